#!/usr/bin/env bash
# bench/catalogue.sh: tunes every config in configs/ and the feature kernels of tests/kernels on
# the GPU (fresh, no journal reuse; a space of over 200 binaries with a 10% budget, over 5,000
# with 2%) and prints one
# line per config: configurations valid and
# their statuses, the winner, its time and its GB/s (% of copy) or GFLOP/s. Exit 1 if any run
# fails or any configuration is not ok. Run from the repository root after `make`.
set -uo pipefail
LOG=${OUT:-/tmp}/catalogue.log
: > "$LOG"
bad=0
printf "%-16s %6s %-34s %-44s %s\n" config valid statuses winner "time, throughput"
for c in configs/*.yaml tests/kernels/*.yaml; do
	# a compile-bound space (hundreds of binaries) is searched within a budget, not measured whole
	bins=$(./autotune validate "$c" | sed -n 's/.*, \([0-9]*\) distinct binar.*/\1/p')
	budget=()
	[ "${bins:-0}" -gt 200 ] && budget=(--budget 10%)
	[ "${bins:-0}" -gt 5000 ] && budget=(--budget 2%)
	out=$(./autotune --fresh "${budget[@]}" "$c" 2>&1); rc=$?
	echo "=== $c (exit $rc)" >> "$LOG"; echo "$out" >> "$LOG"
	name=$(basename "$c" .yaml)
	valid=$(echo "$out" | sed -n 's/^[a-z0-9_]*: \([0-9]*\) valid.*/\1/p')
	statuses=$(echo "$out" | sed -n 's/^  ran [0-9]*: \([^;]*\).*/\1/p')
	winner=$(echo "$out" | sed -n 's/^  winner: \([^:]*\): .*/\1/p')
	perf=$(echo "$out" | sed -n 's/^  winner: [^:]*: \([0-9.]* ms\)[^,]*\(, [0-9]* GB\/s = [0-9]*% of copy\)\{0,1\}.*/\1\2/p')
	gflops=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next } $col["gflops"] != "" && ($col["gflops"] + 0) > best { best = $col["gflops"] + 0 } END { if (best) printf ", %.0f GFLOP/s", best }' "results/$name.csv" 2>/dev/null)
	printf "%-16s %6s %-34s %-44s %s%s\n" "$name" "$valid" "$statuses" "$winner" "$perf" "$gflops"
	# what the space itself rules out is no failure of the tuner: static shared memory over what
	# ptxas allows, and launches known to fail before they are made
	csv=results/$name.csv
	unexpected=$(( $(grep -c ',compile-error,' "$csv") - $(grep -c 'uses too much shared data' "$csv") +
		$(grep -c ',launch-error,' "$csv") - $(grep -c 'known before launching' "$csv") ))
	if [ "$rc" -ne 0 ] || echo "$statuses" | grep -Eq 'wrong-result|crashed|timeout' || [ "${unexpected:-1}" -ne 0 ]; then
		bad=1
	fi
done
exit $bad
