#!/usr/bin/env bash
# bench/summatrix.sh: checks autotune's summatrix winner against an independent event-timed loop
# (bench/summatrix_loop.cu) run on the same GPU right after it. Passes when the winner's median is
# within 3% of the loop's best median and the winner moves >= 85% of device copy bandwidth.
#
# Run from the repository root on the GPU machine, after `make`.
#   AUTOTUNE=path   the autotune binary (default ./autotune)
#   OUT=dir         where bench_summatrix.log goes (default /tmp)
set -euo pipefail

AUTOTUNE=${AUTOTUNE:-./autotune}
LOG=${OUT:-/tmp}/bench_summatrix.log
CONFIG=configs/summatrix.yaml
CSV=results/summatrix.csv
NX=16384 NY=16384  # as in $CONFIG
REPEATS=50
BUILD=results/bench  # ignored by git

mkdir -p "$(dirname "$LOG")" "$BUILD"
: >"$LOG"
log() { echo "$*" | tee -a "$LOG" >&2; }

log "== building the loop"
nvcc -O3 -arch=sm_90 -o "$BUILD/summatrix_loop" bench/summatrix_loop.cu >>"$LOG" 2>&1 ||
	{ log "FAIL: nvcc failed, see $LOG"; exit 1; }

# The marker tells a CSV written by this run from one left over from an earlier one.
touch "$BUILD/started"
log "== $AUTOTUNE $CONFIG"
t0=$(date +%s.%N)
rc=0
"$AUTOTUNE" --fresh "$CONFIG" >>"$LOG" 2>&1 || rc=$?
t1=$(date +%s.%N)
if [ "$rc" -ne 0 ]; then
	log "FAIL: autotune exited with status $rc, see $LOG"
	exit 1
fi
if [ ! "$CSV" -nt "$BUILD/started" ]; then
	log "FAIL: autotune did not write $CSV"
	exit 1
fi

log "== $BUILD/summatrix_loop $NX $NY $REPEATS"
"$BUILD/summatrix_loop" $NX $NY $REPEATS >"$BUILD/loop.txt" 2>>"$LOG" ||
	{ log "FAIL: the loop failed, see $LOG"; exit 1; }
cat "$BUILD/loop.txt" >>"$LOG"

# autotune's best median per block shape over rows with status ok (a shape repeats once per
# register cap), sorted fastest first. Columns are found by header name. Only the last column,
# message, can be quoted; it may hold commas (they only shift fields after status) and line
# breaks, so a line that ends inside an open quote starts continuation lines, which are skipped.
if ! awk -F, '
	{ sub(/\r$/, "") }
	inquote { if (gsub(/"/, "\"") % 2) inquote = 0; next }
	{ if (gsub(/"/, "\"") % 2) inquote = 1 }
	!header {
		header = 1
		for (i = 1; i <= NF; i++) col[$i] = i
		split("blockDim.x blockDim.y status time_ms_median", need, " ")
		for (k in need) if (!(need[k] in col)) { print "no column " need[k] > "/dev/stderr"; bad = 1; exit 1 }
		next
	}
	$col["status"] == "ok" && $col["time_ms_median"] != "" {
		shape = $col["blockDim.x"] " " $col["blockDim.y"]
		t = $col["time_ms_median"] + 0
		if (!(shape in best) || t < best[shape]) best[shape] = t
	}
	END { if (!bad) for (s in best) print s, best[s] }
' "$CSV" | sort -k3,3g -k1,1n -k2,2n >"$BUILD/autotune.txt"; then
	log "FAIL: cannot read $CSV"
	exit 1
fi
{ echo "== autotune best median per shape (ok rows)"; cat "$BUILD/autotune.txt"; } >>"$LOG"

read -r AX AY AT <"$BUILD/autotune.txt" || { log "FAIL: no row with status ok in $CSV"; exit 1; }
field() { awk -v k="$1" -v n="$2" '$1 == k { print $n; exit }' "$BUILD/loop.txt"; }
LX=$(field best 2) LY=$(field best 3) LT=$(field best 4) COPY=$(field copy_gbps 2)
LAT=$(awk -v x="$AX" -v y="$AY" '$1 == "shape" && $2 == x && $3 == y { print $4; exit }' "$BUILD/loop.txt")
if [ -z "$LT" ] || [ -z "$COPY" ] || [ -z "$LAT" ]; then
	log "FAIL: the loop output lacks best, copy_gbps or shape $AX $AY"
	exit 1
fi

rc=0
awk -v ax="$AX" -v ay="$AY" -v at="$AT" -v lx="$LX" -v ly="$LY" -v lt="$LT" -v lat="$LAT" \
    -v copy="$COPY" -v nx=$NX -v ny=$NY -v wall="$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')" '
BEGIN {
	gbps = 3 * nx * ny * 4 / (at * 1e-3) / 1e9
	diff = 100 * (at - lt) / lt
	printf "autotune wall time                %10.2f s\n", wall
	printf "autotune winner        %4dx%-4d   %10.5f ms\n", ax, ay, at
	printf "loop best              %4dx%-4d   %10.5f ms\n", lx, ly, lt
	printf "loop at winner shape   %4dx%-4d   %10.5f ms\n", ax, ay, lat
	printf "autotune / loop best              %10.4f (%+.2f%%)\n", at / lt, diff
	printf "copy bandwidth                    %10.1f GB/s\n", copy
	printf "winner bandwidth                  %10.1f GB/s (%.1f%% of copy)\n", gbps, 100 * gbps / copy
	ok_time = (diff < 0 ? -diff : diff) <= 3
	ok_bw = gbps >= 0.85 * copy
	printf "%s winner within 3%% of loop best\n", ok_time ? "PASS" : "FAIL"
	printf "%s winner >= 85%% of copy bandwidth\n", ok_bw ? "PASS" : "FAIL"
	exit !(ok_time && ok_bw)
}' | tee -a "$LOG" || rc=$?
exit "$rc"
