#!/usr/bin/env bash
# bench/time_to_solution.sh: on the GPU, whole-process wall time of budgeted (and exhaustive)
# runs of compile-bound spaces from a cold compile cache, the binaries they built and measured,
# the best found against the recorded exhaustive optimum (tests/data), and how busy the cores
# were: CPU seconds of autotune and its children / (wall x cores); the floor, from the run's own
# compile times (the CSV's compile_s, once per binary): max(their sum / cores, the longest) plus
# the GPU's time (measuring, finalists, counters as the summary gives them), and wall / floor, over
# every binary built (floor_s: guesses too) and over those the search measured (need_s: the
# binaries it could not have done without).
# Run from the repository root after `make`. Arguments: CONFIG:RECORDING:BUDGET ... (BUDGET "all"
# for exhaustive; RECORDING "-" when there is none: no optimum, no ratio). AUTOTUNE_AHEAD=0 in
# the environment compares with a pool that does not compile ahead; JOBS sets -j (default: the
# cores); DEVICES sets --devices (default: every GPU).
set -uo pipefail
cores=$(nproc)
LOG=${OUT:-/tmp}/time_to_solution.log
: > "$LOG"
printf "%-12s %7s %8s %7s %8s %10s %10s %7s %6s %8s %10s %8s %9s\n" space budget wall_s built measured best_ms optimum ratio busy floor_s wall/floor need_s wall/need
for spec in "$@"; do
	IFS=: read -r cfg rec budget <<< "$spec"
	name=$(basename "$cfg" .yaml)
	cache=$(mktemp -d)
	args=(--fresh --cache-dir "$cache")
	[ -n "${JOBS:-}" ] && args+=(-j "$JOBS")
	[ -n "${DEVICES:-}" ] && args+=(--devices "$DEVICES")
	[ "$budget" != all ] && args+=(--budget "$budget")
	TIMEFORMAT="%R %U %S"
	run_log=$(mktemp)
	t=$( { time ./autotune "${args[@]}" "$cfg" > "$run_log" 2>&1; } 2>&1 )
	cat "$run_log" >> "$LOG"
	read -r wall user sys <<< "$t"
	rm -rf "$cache"
	csv=results/$name.csv
	built=$(sed -n 's/.*; \([0-9]*\) binaries built.*/\1/p' "$LOG" | tail -1)
	measured=$(grep -c ',ok,' "$csv")
	best=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next } $c["status"] == "ok" {
		t = $c["final_ms_median"] != "" ? $c["final_ms_median"] : $c["time_ms_median"]; if (!b || t < b) b = t } END { print b }' "$csv")
	opt=$([ -f "$rec" ] && awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next } { sub(/\r$/, "") } $c["status"] == "ok" {
		t = $c["final_ms_median"] != "" ? $c["final_ms_median"] : $c["time_ms_median"]; if (!b || t < b) b = t } END { print b }' "$rec")
	# nvcc's seconds once per binary (its flags name it), and the GPU's part of the wall time
	compile=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next } $c["compile_s"] != "" && !seen[$c["nvcc_flags"]]++ {
		s += $c["compile_s"]; if ($c["compile_s"] > l) l = $c["compile_s"] } END { printf "%.3f %.3f\n", s, l }' "$csv")
	needed=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next } $c["compile_s"] != "" && $c["status"] != "not-run" && !seen[$c["nvcc_flags"]]++ {
		s += $c["compile_s"]; if ($c["compile_s"] > l) l = $c["compile_s"] } END { printf "%.3f %.3f\n", s, l }' "$csv")
	gpu=$(sed -n 's/.* \([0-9.]*\) s measuring, \([0-9.]*\) s finalists, \([0-9.]*\) s counters.*/\1 \2 \3/p' "$run_log" | tail -1)
	rm -f "$run_log"
	read -r sum longest <<< "$compile"
	read -r nsum nlongest <<< "$needed"
	read -r meas fin cnt <<< "${gpu:-0 0 0}"
	awk -v n="$name" -v b="$budget" -v w="$wall" -v bu="$built" -v m="$measured" -v best="$best" -v o="$opt" \
		-v u="$user" -v s="$sys" -v c="$cores" -v j="${JOBS:-$cores}" -v sum="$sum" -v l="$longest" \
		-v ns="$nsum" -v nl="$nlongest" -v meas="$meas" -v fin="$fin" -v cnt="$cnt" 'BEGIN {
		floor = (sum / j > l ? sum / j : l) + meas + fin + cnt
		need = (ns / j > nl ? ns / j : nl) + meas + fin + cnt
		opt = o > 0 ? sprintf("%10.4f", o) : "-"; ratio = o > 0 ? sprintf("%7.3f", best / o) : "-"
		printf "%-12s %7s %8.1f %7s %8s %10.4f %10s %7s %5.0f%% %8.1f %10.2f %8.1f %9.2f\n", n, b, w, bu, m, best, opt, ratio,
			100 * (u + s) / (w * c), floor, (floor > 0 ? w / floor : 0), need, (need > 0 ? w / need : 0) }'
done
