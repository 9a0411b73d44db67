#!/usr/bin/env bash
# bench/multigpu.sh: wall time of exhaustive configs/summatrix.yaml on one GPU (--devices 0) and on
# every GPU of the machine, alternating (1, all, 1, all, ...) so that drifts hit both alike, with
# a warm cubin cache and the copy bandwidths already measured. Prints each run's wall time and
# winner, then the ratio of the medians. Run on a machine with two or more GPUs after `make`.
set -euo pipefail
ROUNDS=${ROUNDS:-3}
CONFIG=${CONFIG:-configs/summatrix.yaml}
OUT=${OUT:-/tmp}
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.3f", b - a }'; }
ngpus=$(nvidia-smi -L | grep -c '^GPU ')
echo "GPUs: $ngpus"; nvidia-smi -L
./autotune devices
./autotune -q --dry-run "$CONFIG" # warms the cubin cache
csv=results/$(basename "$CONFIG" .yaml).csv
winner() { grep -E '(^|,|;)winner(;|,)' "$csv" | cut -d, -f1-3; }
one=() all=()
for r in $(seq "$ROUNDS"); do
	t=$(now); ./autotune --fresh --devices 0 "$CONFIG" 2> "$OUT/multigpu_one_$r.log"; s=$(since "$t")
	one+=("$s"); w1=$(winner); cp "$csv" "$OUT/multigpu_one_$r.csv"
	t=$(now); ./autotune --fresh "$CONFIG" 2> "$OUT/multigpu_all_$r.log"; s2=$(since "$t")
	all+=("$s2"); w2=$(winner); cp "$csv" "$OUT/multigpu_all_$r.csv"
	gpus_used=$(cut -d, -f"$(head -1 "$csv" | tr , '\n' | grep -n '^gpu_uuid$' | cut -d: -f1)" "$csv" | tail -n +2 | grep -v '^$' | sort -u | wc -l)
	echo "round $r: 1 GPU ${s} s (winner $w1) | $ngpus GPUs ${s2} s (winner $w2, rows from $gpus_used GPUs)"
	echo "  1 GPU:  $(grep 'set up' "$OUT/multigpu_one_$r.log")"
	echo "  $ngpus GPUs: $(grep 'set up' "$OUT/multigpu_all_$r.log")"
done
median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
m1=$(median "${one[@]}"); m2=$(median "${all[@]}")
awk -v a="$m1" -v b="$m2" -v n="$ngpus" 'BEGIN { printf "median wall time: 1 GPU %.3f s, %d GPUs %.3f s, ratio %.3f\n", a, n, b, b / a }'
