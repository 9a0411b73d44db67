#!/usr/bin/env bash
# bench/time_to_solution.sh: on the GPU, whole-process wall time of budgeted (and exhaustive)
# runs of compile-bound spaces from a cold compile cache, the binaries they built and measured,
# the best found against the recorded exhaustive optimum (tests/data), and how busy the cores
# were: CPU seconds of autotune and its children / (wall x cores). Run from the repository root
# after `make`. Arguments: CONFIG:RECORDING:BUDGET ... (BUDGET "all" for exhaustive).
set -uo pipefail
cores=$(nproc)
LOG=${OUT:-/tmp}/time_to_solution.log
: > "$LOG"
printf "%-12s %7s %8s %7s %8s %10s %10s %7s %6s\n" space budget wall_s built measured best_ms optimum ratio busy
for spec in "$@"; do
	IFS=: read -r cfg rec budget <<< "$spec"
	name=$(basename "$cfg" .yaml)
	cache=$(mktemp -d)
	args=(--fresh --cache-dir "$cache")
	[ "$budget" != all ] && args+=(--budget "$budget")
	TIMEFORMAT="%R %U %S"
	t=$( { time ./autotune "${args[@]}" "$cfg" >> "$LOG" 2>&1; } 2>&1 )
	read -r wall user sys <<< "$t"
	rm -rf "$cache"
	csv=results/$name.csv
	built=$(sed -n 's/.*; \([0-9]*\) binaries built.*/\1/p' "$LOG" | tail -1)
	measured=$(grep -c ',ok,' "$csv")
	best=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next } $c["status"] == "ok" {
		t = $c["final_ms_median"] != "" ? $c["final_ms_median"] : $c["time_ms_median"]; if (!b || t < b) b = t } END { print b }' "$csv")
	opt=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next } { sub(/\r$/, "") } $c["status"] == "ok" {
		t = $c["final_ms_median"] != "" ? $c["final_ms_median"] : $c["time_ms_median"]; if (!b || t < b) b = t } END { print b }' "$rec")
	awk -v n="$name" -v b="$budget" -v w="$wall" -v bu="$built" -v m="$measured" -v best="$best" -v o="$opt" \
		-v u="$user" -v s="$sys" -v c="$cores" 'BEGIN {
		printf "%-12s %7s %8.1f %7s %8s %10.4f %10.4f %7.3f %5.0f%%\n", n, b, w, bu, m, best, o, best / o, 100 * (u + s) / (w * c) }'
done
