#!/usr/bin/env bash
# bench/array_budget.sh: what a budgeted search gains on a job array (docs/reference.md, Scaling
# out), in replay against the recorded exhaustive H100 runs of tests/data: no GPU, a minute or two.
# N tasks (NS, default "2 4"), each `--shard I/N --budget B --seed S`, the best of their bests,
# against one process with --budget B (about the same wall) and with --budget NxB (the same
# number of evaluations); B is PCT% (5) of the whole space, the default strategy, SEEDS (30)
# seeds. Per space: best found / optimum, median and 90th percentile over the seeds, and the wall
# in compile latencies (16 compile jobs a task, as on a node of its own; the array's is its slowest
# task's). Run from the repository root after `make`; the replays write under a temporary directory.
set -euo pipefail
SEEDS=${SEEDS:-30}
PCT=${PCT:-5}
NS=${NS:-2 4}
top=$(pwd)
AUTOTUNE=${AUTOTUNE:-$top/autotune}
spaces="configs/summatrix.yaml:summatrix_h100.csv configs/reduce.yaml:reduce_h100.csv
bench/spaces/transpose_big.yaml:transpose_big_h100.csv configs/convolution.yaml:convolution_h100.csv
configs/gemm.yaml:gemm_h100.csv configs/fir.yaml:fir_h100.csv configs/stencil.yaml:stencil_h100.csv"
w=$(mktemp -d "${TMPDIR:-/tmp}/array-budget-XXXXXX")
trap 'rm -rf "$w"' EXIT
for d in configs kernels bench tests; do ln -s "$top/$d" "$w/$d"; done
mkdir "$w/results"
cd "$w"
# replay ARGS...: "RATIO WALL OPT" of one replay (best found / that space's optimum, the wall in
# compile latencies, the optimum in ms)
replay() {
	"$AUTOTUNE" --strategy model -j 16 "$@" 2>&1 | awk '
		/best found/ { match($0, /: [0-9.e+-]+ ms, optimum [0-9.e+-]+ ms/); split(substr($0, RSTART + 2, RLENGTH - 2), a, " ");
			best = a[1]; opt = a[4] }
		/the wall time of/ { match($0, /the wall time of [0-9.]+/); wall = substr($0, RSTART + 17, RLENGTH - 17) }
		END { print best, wall, opt }'
}
stats() { sort -g | awk '{ r[NR] = $1 } END { m = NR % 2 ? r[(NR + 1) / 2] : (r[NR / 2] + r[NR / 2 + 1]) / 2
	printf "%.4f/%.4f", m, r[int(NR * 0.9 + 0.999)] }'; }
median() { sort -g | awk '{ r[NR] = $1 } END { printf "%.1f", NR % 2 ? r[(NR + 1) / 2] : (r[NR / 2] + r[NR / 2 + 1]) / 2 }'; }
printf "%-14s %6s %5s  %-20s %6s  %-20s %6s  %-20s %6s\n" space B N "one B: found/opt" wall "array NxB: found/opt" wall \
	"one NxB: found/opt" wall
for pair in $spaces; do
	cfg=${pair%%:*} csv=$top/tests/data/${pair#*:}
	name=$(basename "$cfg" .yaml)
	n=$(awk -F, 'NR > 1' "$csv" | wc -l)
	b=$(awk -v n="$n" -v p="$PCT" 'BEGIN { k = n * p / 100; print (k == int(k)) ? k : int(k) + 1 }')
	for ntasks in $NS; do
		: >"$w/one" && : >"$w/array" && : >"$w/more"
		for seed in $(seq "$SEEDS"); do
			read -r best wall opt <<<"$(replay --replay "$csv" --budget "$b" --seed "$seed" "$cfg")"
			echo "$best $opt $wall" >>"$w/one"
			abest="" awall=0
			for i in $(seq 0 $((ntasks - 1))); do
				read -r sb sw _ <<<"$(replay --replay "$csv" --budget "$b" --seed "$seed" --shard "$i/$ntasks" "$cfg")"
				abest=$(awk -v a="$abest" -v b="$sb" 'BEGIN { print (a == "" || b < a) ? b : a }')
				awall=$(awk -v a="$awall" -v b="$sw" 'BEGIN { print (b > a) ? b : a }')
			done
			echo "$abest $opt $awall" >>"$w/array"
			read -r best wall _ <<<"$(replay --replay "$csv" --budget $((ntasks * b)) --seed "$seed" "$cfg")"
			echo "$best $opt $wall" >>"$w/more"
		done
		row=""
		for f in one array more; do
			row="$row $(awk '{ print $1 / $2 }' "$w/$f" | stats) $(awk '{ print $3 }' "$w/$f" | median)"
		done
		# shellcheck disable=SC2086
		printf "%-14s %6d %5d  %-20s %6s  %-20s %6s  %-20s %6s\n" "$name" "$b" "$ntasks" $row
	done
done
