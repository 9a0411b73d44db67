#!/usr/bin/env bash
# bench/large_results.sh: rows per second of `autotune report` and `autotune show` on results
# CSVs of 10^4, 10^5 and 10^6 rows (no GPU, no nvcc). The rows are a dry run's of a two-parameter
# space whose first parameter is the block's x (what made choosing the report's axes quadratic),
# with the columns of tests/data/summatrix_h100.csv. Linear: rows/s about the same at each size.
set -euo pipefail
AUTOTUNE=${AUTOTUNE:-./autotune}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
printf '%-9s %-7s %9s %12s %12s\n' rows command seconds rows/s "peak RSS KB"
for n in 10000 100000 1000000; do
	csv=$dir/r$n.csv
	head -1 tests/data/summatrix_h100.csv > "$csv"
	awk -v n="$n" 'BEGIN { for (i = 0; i < n; i++)
		printf "%d,%d,0,%d,1,1,16384,512,1,0,12,0,0,0,0,0,32,0.5000,blocks,32,,,,,,,,,,,,,,,,,,,cold,,not-run,\r\n",
			i % 1000 + 1, int(i / 1000) + 1, i % 1000 + 1 }' >> "$csv"
	for cmd in report show; do
		if [ $cmd = report ]; then
			args=(report "$csv" -o "$dir/r.html")
		else
			args=(show "$csv")
		fi
		/usr/bin/time -f '%e %M' -o "$dir/time" "$AUTOTUNE" "${args[@]}" > /dev/null 2>&1
		read -r s kb < "$dir/time"
		awk -v n="$n" -v c="$cmd" -v s="$s" -v kb="$kb" \
			'BEGIN { printf "%-9d %-7s %9.2f %12.0f %12d\n", n, c, s, (s > 0 ? n / s : 0), kb }'
	done
done
