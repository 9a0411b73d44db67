#!/usr/bin/env bash
# bench/strategies.sh: every search strategy in replay against recorded exhaustive H100 runs
# (tests/data), at budgets of 2, 5, 10 and 20% of the space (PCTS), SEEDS seeds each. Per space,
# strategy and budget: the median and the 90th percentile over seeds of best-found / optimum, and
# the median's score
#   (random - found) / (random - optimum)
# where random is the expected best of the same number of uniform draws without replacement
# (1: the optimum, 0: no better than random, negative: worse). No GPU needed.
set -euo pipefail
SEEDS=${SEEDS:-30}
PCTS=${PCTS:-2 5 10 20}
AUTOTUNE=${AUTOTUNE:-./autotune}
spaces="configs/summatrix.yaml:tests/data/summatrix_h100.csv configs/reduce.yaml:tests/data/reduce_h100.csv
bench/spaces/transpose_big.yaml:tests/data/transpose_big_h100.csv
configs/convolution.yaml:tests/data/convolution_h100.csv configs/gemm.yaml:tests/data/gemm_h100.csv
configs/fir.yaml:tests/data/fir_h100.csv
configs/stencil.yaml:tests/data/stencil_h100.csv
bench/spaces/gs_axpy.yaml:tests/data/gs_axpy_h200.csv bench/spaces/blur.yaml:tests/data/blur_h200.csv bench/spaces/histogram.yaml:tests/data/histogram_h200.csv"
printf "%-14s %-10s %7s %10s %8s %8s %8s\n" space strategy budget "found/opt" p90 score random/opt
for pair in $spaces; do
	cfg=${pair%%:*} csv=${pair#*:}
	name=$(basename "$cfg" .yaml)
	# the recorded times, sorted (what did not pass counts as never best)
	times=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
		{ sub(/\r$/, "") } $col["status"] == "ok" {
			t = $col["final_ms_median"] != "" ? $col["final_ms_median"] : $col["time_ms_median"]; print t }' "$csv" | sort -g)
	n=$(awk -F, 'NR > 1' "$csv" | wc -l)
	for pct in $PCTS; do
		k=$(awk -v n="$n" -v p="$pct" 'BEGIN { k = n * p / 100; print (k == int(k)) ? k : int(k) + 1 }')
		# E[min of k of n without replacement]: P(rank i is the minimum) = C(n-i, k-1) / C(n, k)
		expect=$(echo "$times" | awk -v n="$n" -v k="$k" '{ t[NR] = $1 } END {
			p = k / n; e = 0; for (i = 1; i <= NR && p > 0; i++) { e += p * t[i]; p *= (n - i - k + 1) / (n - i) }
			printf "%.9g", e }')
		opt=$(echo "$times" | sed -n 1p) # (head would cut the pipe: pipefail)
		for s in ${STRATEGIES:-random local anneal genetic model}; do
			for seed in $(seq "$SEEDS"); do
				"$AUTOTUNE" --replay "$csv" --strategy "$s" --budget "$pct%" --seed "$seed" "$cfg" 2>&1 |
					sed -n 's/.*(ratio \([0-9.e+-]*\)).*/\1/p'
			done | sort -g | awk -v s="$s" -v pct="$pct" -v e="$expect" -v o="$opt" -v name="$name" '
				{ r[NR] = $1 } END {
					m = NR % 2 ? r[(NR + 1) / 2] : (r[NR / 2] + r[NR / 2 + 1]) / 2
					p90 = r[int(NR * 0.9 + 0.999)]
					found = m * o; score = e > o ? (e - found) / (e - o) : 1
					printf "%-14s %-10s %6d%% %10.4f %8.4f %8.3f %8.4f\n", name, s, pct, m, p90, score, e / o }'
		done
	done
done
