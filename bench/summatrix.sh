#!/usr/bin/env bash
# bench/summatrix.sh: checks autotune's summatrix result against an independent event-timed loop
# run in the same call (issue 2 acceptance): the winner's median within 3% of the loop's best,
# and the winner at >= 85% of the device's copy bandwidth. Run on the GPU machine after `make`.
set -euo pipefail
AUTOTUNE=${AUTOTUNE:-./autotune}
LOG=${OUT:-/tmp}/bench_summatrix.log
NX=16384 NY=16384
mkdir -p build/bench
nvcc -std=c++17 -O3 -arch=sm_90 -o build/bench/summatrix_loop bench/summatrix_loop.cu

t0=$(date +%s.%N)
"$AUTOTUNE" configs/summatrix.yaml 2>>"$LOG"
t1=$(date +%s.%N)
build/bench/summatrix_loop $NX $NY 20 > build/bench/loop.txt 2>>"$LOG"
cat build/bench/loop.txt >> "$LOG"

# autotune's best ok median per block shape, from the CSV (columns found by name)
awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
	 $col["status"] == "ok" {
		k = $col["blockDim.x"] " " $col["blockDim.y"]; t = $col["time_ms_median"] + 0
		if (!(k in best) || t < best[k]) best[k] = t }
	 END { for (k in best) print k, best[k] }' results/summatrix.csv | sort -k3 -g > build/bench/autotune.txt

read -r AX AY AT < <(head -1 build/bench/autotune.txt)
read -r _ LX LY LT < <(grep '^best ' build/bench/loop.txt)
LOOP_AT=$(awk -v x="$AX" -v y="$AY" '$1 == "shape" && $2 == x && $3 == y { print $4 }' build/bench/loop.txt)
COPY=$(awk '$1 == "copy_gbps" { print $2 }' build/bench/loop.txt)

awk -v ax="$AX" -v ay="$AY" -v at="$AT" -v lx="$LX" -v ly="$LY" -v lt="$LT" -v lat="$LOOP_AT" \
    -v copy="$COPY" -v nx=$NX -v ny=$NY -v t0="$t0" -v t1="$t1" '
BEGIN {
	bytes = 3 * nx * ny * 4
	gbps = bytes / (at * 1e-3) / 1e9
	diff = 100 * (at - lt) / lt
	printf "autotune wall time           %8.2f s\n", t1 - t0
	printf "autotune winner  %4dx%-4d    %8.4f ms\n", ax, ay, at
	printf "loop best        %4dx%-4d    %8.4f ms\n", lx, ly, lt
	printf "loop, winner shape %4dx%-4d  %8.4f ms\n", ax, ay, lat
	printf "winner / loop best           %8.4f  (%+.2f%%)\n", at / lt, diff
	printf "copy bandwidth               %8.1f GB/s\n", copy
	printf "winner bandwidth             %8.1f GB/s = %.1f%% of copy\n", gbps, 100 * gbps / copy
	ok1 = (diff < 0 ? -diff : diff) <= 3; ok2 = gbps >= 0.85 * copy
	printf "%s winner within 3%% of the loop best\n", ok1 ? "PASS" : "FAIL"
	printf "%s winner >= 85%% of copy bandwidth\n", ok2 ? "PASS" : "FAIL"
	exit !(ok1 && ok2)
}'
