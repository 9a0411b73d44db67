#!/usr/bin/env bash
# bench/anytime.sh: autotune's strategies scored as the auto-tuning community's methodology scores
# optimisers (Willemsen, van Nieuwpoort, van Werkhoven, FGCS 2024; tuner/results/anytime.h says how), over
# every recording in tests/data (and any CONFIG.yaml:RECORDING.csv pairs given), SEEDS seeds each.
# Per recording and strategy: the space, where the axes end (random search's expected evaluations
# to come 95% of the way from the median to the optimum), the mean score on the time axis (compile,
# run and verification charged per evaluation) and on the evaluation axis, then the fixed-budget
# ratios at 1, 2, 5, 10 and 20% of the space: median over seeds of optimum / best found, its worst
# tenth, and random search's expected ratio. Last, each strategy's mean over the recordings and what
# misses the bars of issue 46 (below). No GPU.
# SEED_FROM: the first seed (default 1; SEED_FROM=31 SEEDS=30 scores seeds 31-60).
# JOBS: how many recordings are scored at once (default: every core; the figures do not change).
# Run from the repository root after `make build/anytime_score`.
set -euo pipefail
SEEDS=${SEEDS:-30}
export SEED_FROM=${SEED_FROM:-1}
export STRATEGIES=${STRATEGIES:-random local anneal genetic model}
pairs="configs/summatrix.yaml:tests/data/summatrix_h100.csv configs/reduce.yaml:tests/data/reduce_h100.csv
bench/spaces/transpose_big.yaml:tests/data/transpose_big_h100.csv
configs/convolution.yaml:tests/data/convolution_h100.csv configs/gemm.yaml:tests/data/gemm_h100.csv
configs/fir.yaml:tests/data/fir_h100.csv configs/stencil.yaml:tests/data/stencil_h100.csv
bench/spaces/gs_axpy.yaml:tests/data/gs_axpy_h200.csv bench/spaces/blur.yaml:tests/data/blur_h200.csv bench/spaces/histogram.yaml:tests/data/histogram_h200.csv"
# the H200's recordings of three of those spaces: bench/transfer.sh scores them as priors
transfers="configs/summatrix.yaml:tests/data/summatrix_h200.csv configs/reduce.yaml:tests/data/reduce_h200.csv
bench/spaces/transpose_big.yaml:tests/data/transpose_big_h200.csv"
# a recording in tests/data that the list above lacks is not silently left out
for f in tests/data/*.csv; do
	case " $(echo $pairs) $(echo $transfers) " in *":$f "*|*":$f:"*) ;; *) echo "bench/anytime.sh: $f has no config here: add it" >&2; exit 2 ;; esac
done
# Then, per strategy, what misses issue 46's bars: a fixed-budget median below random's expected
# ratio, a worst tenth below 0.95 at 5% or below 0.98 at 10%, and (where random search ran too) a
# recording whose time-axis score is below random's replays over the same seeds.
# Each recording is scored by a process of its own, JOBS at a time, and printed in the list's order.
export SEEDS OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
n=0 status=0
for p in $pairs "$@"; do n=$((n + 1)); printf '%s\n%s\n' "$n" "$p"; done > "$OUT/list"
xargs -a "$OUT/list" -d '\n' -n 2 -P "${JOBS:-$(nproc)}" sh -c 'build/anytime_score "$SEEDS" "$2" > "$OUT/$1.out"' _ || status=1
{
	head -n 1 "$OUT/1.out"
	for k in $(seq 1 "$n"); do tail -n +2 "$OUT/$k.out"; done
} | awk 'BEGIN { split("1 2 5 10 20", pct, " ") }
	{ print } NR > 1 { sum[$2] += $5; evals[$2] += $6; n[$2]++
		name = $1; sub(/.*\//, "", name); sub(/\.yaml$/, "", name)
		time[$2, name] = $5; names[$2] = names[$2] " " name
		for (i = 1; i <= 5; i++) {
			split($(6 + i), v, "/")
			if (v[1] < v[3]) miss[$2] = miss[$2] sprintf(" %s %s%% median %.3f < %.3f;", name, pct[i], v[1], v[3])
			if ((i == 3 && v[2] < 0.95) || (i == 4 && v[2] < 0.98)) miss[$2] = miss[$2] sprintf(" %s %s%% worst tenth %.3f;", name, pct[i], v[2])
		} }
	END { for (s in sum) printf "mean %-10s time %7.3f  evals %7.3f  over %d recordings\n", s, sum[s] / n[s], evals[s] / n[s], n[s]
		for (s in sum) {
			k = s != "random" ? split(names[s], nm, " ") : 0
			for (i = 1; i <= k; i++)
				if ((("random", nm[i]) in time) && time[s, nm[i]] < time["random", nm[i]])
					miss[s] = miss[s] sprintf(" %s time axis %.3f < random %.3f;", nm[i], time[s, nm[i]], time["random", nm[i]])
			printf "missed %-10s%s\n", s, miss[s] == "" ? " none" : miss[s]
		} }'
exit $status
