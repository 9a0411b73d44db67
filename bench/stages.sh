#!/usr/bin/env bash
# bench/stages.sh: on the GPU, where a whole run's wall time goes, per config: the whole
# process's wall time from a cold cubin cache and again warm, the winner, and the stages of the
# warm run as its summary prints them. Run from the repository root after `make`. Arguments:
# CONFIG[:OPTION ...] ... (options for autotune, e.g. configs/gemm.yaml:--budget:5%).
set -uo pipefail
LOG=${OUT:-/tmp}/stages.log
: > "$LOG"
printf "%-14s %7s %7s  %-28s %s\n" config cold_s warm_s winner "stages (warm run)"
for spec in "$@"; do
	IFS=: read -r -a parts <<< "$spec"
	cfg=${parts[0]}
	opts=("${parts[@]:1}")
	name=$(awk '/^name:/ { print $2; exit }' "$cfg")
	cache=$(mktemp -d)
	walls=()
	for run in cold warm; do
		echo "== $name $run: ./autotune --fresh --cache-dir $cache ${opts[*]} $cfg" >> "$LOG"
		s=$(date +%s.%N)
		./autotune --fresh --cache-dir "$cache" "${opts[@]}" "$cfg" > /tmp/stages_run.log 2>&1
		e=$(date +%s.%N)
		cat /tmp/stages_run.log >> "$LOG"
		walls+=("$(awk -v a="$s" -v b="$e" 'BEGIN { printf "%.2f", b - a }')")
	done
	rm -rf "$cache"
	winner=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) { c[$i] = i; if ($i == "blockDim.x") np = i - 1 } next }
		$c["flags"] ~ /winner/ { p = $1; for (i = 2; i <= np; i++) p = p " " $i; print p }' "results/$name.csv")
	stages=$(grep -m1 -E '^[^ ]+: [0-9.]+ s: [0-9.]+ s starting' /tmp/stages_run.log | sed 's/^[^:]*: //')
	printf "%-14s %7s %7s  %-28s %s\n" "$name" "${walls[0]}" "${walls[1]}" "$winner" "$stages"
done
