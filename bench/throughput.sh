#!/usr/bin/env bash
# bench/throughput.sh: wall time of tuning configs/summatrix.yaml, all of it (enumerate, compile,
# run, write): (a) cold cubin cache, (b) warm cache, counting nvcc processes through a wrapper,
# (c) a naive baseline in the same call: one nvcc and one fresh process per configuration with
# the same sampling (measured on every STRIDE-th configuration and scaled to the whole space);
# and compile-only time of the space, serial vs parallel. Run on the GPU machine after `make`.
set -euo pipefail
STRIDE=${STRIDE:-5}
W=$(mktemp -d /tmp/autotune-bench.XXXXXX)
trap 'rm -rf "$W"' EXIT
REAL_NVCC=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
printf '#!/bin/sh\necho x >> %s/nvcc.count\nexec %s "$@"\n' "$W" "$REAL_NVCC" > "$W/nvcc"
chmod +x "$W/nvcc"
export NVCC="$W/nvcc"
count() { [ -f "$W/nvcc.count" ] && wc -l < "$W/nvcc.count" || echo 0; }
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.2f", b - a }'; }

t=$(now); ./autotune -q --fresh --cache-dir "$W/cache" configs/summatrix.yaml; cold=$(since "$t"); cold_n=$(count)
rm -f "$W/nvcc.count"
t=$(now); ./autotune -q --fresh --cache-dir "$W/cache" configs/summatrix.yaml; warm=$(since "$t"); warm_n=$(count)
rows=$(($(wc -l < results/summatrix.csv) - 1))

# naive: each configuration alone, its own nvcc (no cache) and its own processes
rm -f "$W/nvcc.count"
i=0 naive_runs=0
t=$(now)
for bx in 1 2 4 8 16 32 64 128 256 512 1024; do
	for by in 1 2 4 8 16 32 64 128 256 512 1024; do
		p=$((bx * by)); [ $p -ge 32 ] && [ $p -le 1024 ] || continue
		for r in 0 32 64; do
			i=$((i + 1)); [ $((i % STRIDE)) -eq 1 ] || [ "$STRIDE" -eq 1 ] || continue
			sed -e "s/^  block_x: .*/  block_x: [$bx]/" -e "s/^  block_y: .*/  block_y: [$by]/" \
			    -e "s/^  maxrreg: .*/  maxrreg: [$r]/" -e "s/^  reference: .*/  reference: {block_x: $bx, block_y: $by, maxrreg: $r}/" \
			    -e "s|^  source: ../kernels|  source: $PWD/kernels|" \
			    -e "s|^name: summatrix|name: naive\noutput: {csv: $W/naive.csv, header: $W/naive.h}|" \
			    configs/summatrix.yaml > "$W/one.yaml"
			./autotune -q --fresh --no-cache --metrics none "$W/one.yaml" || true
			naive_runs=$((naive_runs + 1))
		done
	done
done
naive_part=$(since "$t"); naive_n=$(count)
naive=$(awk -v s="$naive_part" -v n="$naive_runs" -v all="$i" 'BEGIN { printf "%.1f", s * all / n }')

rm -f "$W/nvcc.count"
t=$(now); ./autotune -q --dry-run --no-cache -j 1 configs/summatrix.yaml; serial=$(since "$t")
t=$(now); ./autotune -q --dry-run --no-cache configs/summatrix.yaml; parallel=$(since "$t")

echo
echo "summatrix: $rows configurations, $(nproc) cores"
printf "%-52s %9s %6s\n" "" "wall s" "nvcc"
printf "%-52s %9s %6s\n" "(a) cold cache" "$cold" "$cold_n"
printf "%-52s %9s %6s\n" "(b) warm cache" "$warm" "$warm_n"
printf "%-52s %9s %6s\n" "(c) naive, $naive_runs of $i configurations measured" "$naive_part" "$naive_n"
printf "%-52s %9s %6s\n" "(c) naive, scaled to all $i" "$naive" ""
printf "%-52s %9s\n" "compile only (dry run, no cache), -j 1" "$serial"
printf "%-52s %9s\n" "compile only (dry run, no cache), -j $(nproc)" "$parallel"
awk -v c="$cold" -v w="$warm" -v n="$naive" -v wn="$warm_n" 'BEGIN {
	printf "naive / cold = %.1fx, cold / warm = %.2fx\n", n / c, c / w
	printf "%s cold <= 15 s\n", (c <= 15 ? "PASS" : "FAIL")
	printf "%s naive >= 5x cold\n", (n >= 5 * c ? "PASS" : "FAIL")
	printf "%s warm runs no nvcc\n", (wn == 0 ? "PASS" : "FAIL")
}'
