#!/usr/bin/env bash
# bench/race.sh: on the GPU, whole-process wall time of full runs with racing (the config as it
# is) and without (a copy with measure.race: 0), RUNS runs each, cold cubin cache, alternating;
# per config: the median wall of each, how many runs picked the same winner as the first run
# without racing, and how many ranked the same top 10 (by the time that decided). Run from the
# repository root after `make`. Arguments: CONFIG[:OPTION ...] ... (options for autotune, e.g.
# configs/gemm.yaml:--budget:2%). WARM=1 keeps one cubin cache per config across its runs (the
# first run compiles): for winner agreement on compile-bound spaces, where cold walls are nvcc's.
set -uo pipefail
RUNS=${RUNS:-5}
LOG=${OUT:-/tmp}/race.log
: > "$LOG"
# rows as "TIME PARAMS FLAGS" (the time that decided), from a CSV
rows() {
	awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) { c[$i] = i; if ($i == "blockDim.x") np = i - 1 } next }
		$c["status"] == "ok" { p = $1; for (i = 2; i <= np; i++) p = p " " $i
			print ($c["final_ms_median"] != "" ? $c["final_ms_median"] : $c["time_ms_median"]) "\t" p "\t" $c["flags"] }' "$1"
}
winner() { rows "$1" | awk -F'\t' '$3 ~ /winner/ { print $2 }'; }
top10() { rows "$1" | sort -g | head -10 | cut -f2 | tr '\n' '|'; }
# same_*: runs that agree with the first run without racing (the "off" columns: how far runs
# without racing agree among themselves, noise alone)
printf "%-14s %8s %8s %9s %9s %9s %9s %6s\n" config race_s off_s winner off_win top10 off_top10 raced
for spec in "$@"; do
	IFS=: read -r -a parts <<< "$spec"
	cfg=${parts[0]}
	opts=("${parts[@]:1}")
	name=$(awk '/^name:/ { print $2; exit }' "$cfg")
	warm_cache=$(mktemp -d)
	off=$(dirname "$cfg")/.race0_$(basename "$cfg")
	if grep -q '^measure:$' "$cfg"; then sed 's/^measure:$/measure:\n  race: 0/' "$cfg" > "$off"
	else { cat "$cfg"; echo "measure: {race: 0}"; } > "$off"; fi
	: > /tmp/race_walls_on; : > /tmp/race_walls_off
	refw="" reft="" samew=0 samet=0 offw=0 offt=0 raced=0
	for i in $(seq "$RUNS"); do
		for mode in off on; do
			c=$cfg; [ $mode = off ] && c=$off
			cache=$warm_cache
			[ "${WARM:-0}" = 1 ] || cache=$(mktemp -d)
			s=$(date +%s.%N)
			./autotune --fresh --cache-dir "$cache" "${opts[@]}" "$c" >> "$LOG" 2>&1
			e=$(date +%s.%N)
			[ "$cache" = "$warm_cache" ] || rm -rf "$cache"
			wall=$(awk -v a="$s" -v b="$e" 'BEGIN { printf "%.2f", b - a }')
			echo "$wall" >> /tmp/race_walls_$mode
			w=$(winner "results/$name.csv") top=$(top10 "results/$name.csv")
			echo "$name $mode run $i: $wall s; $w; top10 $top" >> "$LOG"
			if [ -z "$refw" ]; then refw=$w; reft=$top; fi
			if [ $mode = on ]; then
				[ "$w" = "$refw" ] && samew=$((samew + 1))
				[ "$top" = "$reft" ] && samet=$((samet + 1))
				raced=$(grep -c ';raced' "results/$name.csv")
			else
				[ "$w" = "$refw" ] && offw=$((offw + 1))
				[ "$top" = "$reft" ] && offt=$((offt + 1))
			fi
		done
	done
	rm -f "$off"
	rm -rf "$warm_cache"
	med() { sort -g "$1" | awk '{ v[NR] = $1 } END { printf "%.2f", NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
	printf "%-14s %8s %8s %9s %9s %9s %9s %6s\n" "$name" "$(med /tmp/race_walls_on)" "$(med /tmp/race_walls_off)" \
		"$samew/$RUNS" "$offw/$RUNS" "$samet/$RUNS" "$offt/$RUNS" "$raced"
done
