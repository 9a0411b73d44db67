#!/usr/bin/env bash
# bench/prof_overlap.sh: on the GPU, whether a second process's profiler start moves the kernel
# times a first process takes meanwhile (bench/prof_overlap.c says how). Run from the repository
# root; prints sample statistics per window: alone, while the other process creates the profiler
# and profiles its warm-up launch, while it profiles again later, and the rest.
set -euo pipefail
B=${B:-build}
mkdir -p "$B"
NVCC=${NVCC:-nvcc}
"$NVCC" -cubin -arch=sm_90 -o "$B/summatrix.cubin" kernels/summatrix.cu
CUDA=${CUDA_HOME:-/usr/local/cuda}
gcc -std=c11 -D_POSIX_C_SOURCE=200809L -O2 -Iworker/cupti_shim -Iworker -Ilib -isystem "$CUDA/include" \
	-o "$B/prof_overlap" bench/prof_overlap.c worker/counters.c \
	-L"$CUDA/lib64/stubs" -L"$CUDA/lib64" -lcuda -lcupti -lm -Wl,-rpath,"$CUDA/lib64"
LOG=${OUT:-/tmp}
stats() { # label file [lo hi] [lo2 hi2] [invert]: samples whose start is inside [lo,hi] or [lo2,hi2]
	awk -v lo="${3:-0}" -v hi="${4:-1e18}" -v lo2="${5:--1}" -v hi2="${6:--1}" -v invert="${7:-0}" '
		/^#/ { next }
		{ inside = ($1 >= lo && $1 <= hi) || ($1 >= lo2 && $1 <= hi2); if (invert) inside = !inside; if (inside) print $2 }' "$2" |
		sort -g | awk -v label="$1" '{ v[n++] = $1 }
		END { if (!n) { printf "%-34s no samples\n", label; exit }
			printf "%-34s n=%6d median %.4f ms  p90 %.4f  p99 %.4f  max %.4f\n", label, n, v[int(n/2)], v[int(n*0.9)], v[int(n*0.99)], v[n-1] }'
}
for round in 1 2 3; do
	echo "== round $round"
	"$B/prof_overlap" timer 2.5 "$B/summatrix.cubin" > "$LOG/alone.$round"
	stats "timer alone" "$LOG/alone.$round"
	"$B/prof_overlap" timer 3.5 "$B/summatrix.cubin" > "$LOG/timer.$round" &
	tp=$!
	"$B/prof_overlap" prof 1000 1200 "$B/summatrix.cubin" > "$LOG/prof.$round"
	wait $tp
	cat "$LOG/prof.$round"
	read -r c0 w1 < <(awk '/create/ { print $3, $12 }' "$LOG/prof.$round")
	read -r l0 l1 < <(awk '/later session/ { print $4, $6 }' "$LOG/prof.$round")
	stats "timer, other creates + warm-up" "$LOG/timer.$round" "$c0" "$w1"
	stats "timer, other's later session" "$LOG/timer.$round" "$l0" "$l1"
	stats "timer, the rest" "$LOG/timer.$round" "$c0" "$w1" "$l0" "$l1" 1
done
echo "== the profiler alone"
"$B/prof_overlap" prof 0 500 "$B/summatrix.cubin"
