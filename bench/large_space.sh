#!/usr/bin/env bash
# bench/large_space.sh: a --budget 64 search of Kernel Tuner's test_T1_input (1,867,776 valid
# configurations, imported from tests/t1/published) with a stand-in kernel (every configuration
# computes the same output: the spec's arguments, no convolution): the whole run's wall time and
# peak RSS, the stages' times (AUTOTUNE_TRACE), each output's size; then the same run stopped by
# SIGTERM at each stage, with its exit status and the seconds from the signal to the exit. On the
# fake worker and fake nvcc (`make build/fake_worker build/fake_nvcc`), or with GPU=1 on the GPU
# with the real nvcc.
set -euo pipefail
root=$(pwd)
AUTOTUNE=${AUTOTUNE:-$root/autotune}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cp tests/t1/published/kernel_tuner/test_T1_input.json "$dir/"
cat > "$dir/convolution.cu" <<'EOF'
__constant__ float d_filter[33 * 33];
extern "C" __global__ void convolution_kernel(float *output, const float *input, const float *filter)
{
	size_t threads = (size_t)gridDim.x * blockDim.x * gridDim.y * blockDim.y;
	size_t id = ((size_t)blockIdx.y * blockDim.y + threadIdx.y) * gridDim.x * blockDim.x + blockIdx.x * blockDim.x + threadIdx.x;
	for (size_t i = id; i < 4096u * 4096u; i += threads)
		output[i] = input[i] + filter[0] + d_filter[0];
}
EOF
cd "$dir"
"$AUTOTUNE" import -q test_T1_input.json
if [ -z "${GPU:-}" ]; then
	export AUTOTUNE_WORKER=$root/build/fake_worker NVCC=$root/build/fake_nvcc
fi
export AUTOTUNE_TRACE=1
run=("$AUTOTUNE" --no-cache --budget 64 test_T1_input.yaml)

/usr/bin/time -f '%e %M' -o time "${run[@]}" 2> err
read -r s kb < time
printf 'whole run: %.2f s, peak RSS %d MB\n' "$s" $((kb / 1024))
awk '/^trace main [0-9.]+: (start|enumerated|launch geometry|planned|journal open|measuring|measured|outputs written|end)/ {
	t = $3 + 0; if (!t0) t0 = t; sub(/^trace main [0-9.]+: /, ""); printf "  %7.2f s  %s\n", t - t0, $0 }' err
for f in results/*; do printf '  %-34s %9d bytes\n' "$f" "$(stat -c %s "$f")"; done

# SIGTERM once a stage's trace line is out: exit status, seconds to the exit, what was written
set +e +o pipefail
for at in 'enumerated' 'launch geometry evaluated' 'journal open' 'search visited' 'counters done' ': measured$'; do
	rm -rf results err
	"${run[@]}" 2> err & pid=$!
	until grep -q "$at" err 2> /dev/null; do
		kill -0 $pid 2> /dev/null || break
		sleep 0.01
	done
	t0=$(date +%s.%N)
	kill -TERM $pid
	wait $pid
	rc=$?
	t1=$(date +%s.%N)
	size=$(cat results/*.csv results/*.html 2> /dev/null | wc -c)
	printf 'SIGTERM at %-28s exit %d after %.2f s; CSV + report %s bytes\n' "'$at'" $rc "$(echo "$t1 - $t0" | bc)" "${size:-0}"
done
