#!/usr/bin/env bash
# bench/streams.sh: issue 24's streams experiment on the GPU: tunes configs/streams.yaml RUNS times
# (default 3, each --fresh) and prints, per streams count, dispatch order and
# CUDA_DEVICE_MAX_CONNECTIONS, the median over the runs of the faster block's time and of its
# achieved concurrency (serial time / time), as a Markdown table for BENCHMARKS.md; then each
# run's winner, wall time and where its time went. The seed predicts concurrency near 1 for
# depth-first dispatch on fewer queues than streams (false dependencies), and near the streams
# otherwise. Run from the repository root after `make`; also copies the last run's CSV and
# report to results/bench/.
set -euo pipefail
RUNS=${RUNS:-3}
mkdir -p results/bench
: > results/bench/streams_runs.txt
for r in $(seq "$RUNS"); do
	t0=$(date +%s.%N)
	out=$(./autotune --fresh configs/streams.yaml 2>&1) || { echo "$out"; exit 1; }
	t1=$(date +%s.%N)
	echo "run $r: $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }') s wall" >&2
	echo "$out" | grep -E '^streams: [0-9.]+ s:|^  winner:' >&2
	# one line per combination: the faster block's deciding time and its concurrency
	awk -F, -v run="$r" 'NR == 1 { sub(/\r$/, ""); for (i = 1; i <= NF; i++) c[$i] = i; next }
		{ sub(/\r$/, "") }
		$c["status"] == "ok" { k = $c["plan_streams"] " " $c["plan_order"] " " $c["plan_connections"]
			t = $c["final_ms_median"] != "" ? $c["final_ms_median"] : $c["time_ms_median"]
			if (!(k in best) || t + 0 < best[k] + 0) { best[k] = t; conc[k] = $c["concurrency"] } }
		END { for (k in best) print run, k, best[k], conc[k] }' results/streams.csv >> results/bench/streams_runs.txt
done
cp results/streams.csv results/streams.html results/bench/
# the median over the runs, per combination
sort -k2,2n -k3,3 -k4,4n results/bench/streams_runs.txt | awk -v runs="$RUNS" '
	function median(a, n,   i, j, t) {
		for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j - 1] > a[j]; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
		return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
	}
	function flush() {
		if (key != "") printf "| %s | %s | %s | %.4f | %.2f |\n", s, o, q, median(tt, n), median(cc, n)
	}
	BEGIN { print "| streams | order | connections | time (ms) | concurrency |"; print "|---|---|---|---|---|" }
	{ k = $2 " " $3 " " $4; if (k != key) { flush(); key = k; n = 0; s = $2; o = $3; q = $4 }
	  n++; tt[n] = $5 + 0; cc[n] = $6 + 0 }
	END { flush(); printf "\n(median of %d runs; each cell the faster of block 32 and 128)\n", runs }'
