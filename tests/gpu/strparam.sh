#!/usr/bin/env bash
# tests/gpu/strparam.sh: string parameters and a hard-coded #define on the GPU (make test-gpu;
# tests/gpu.sh runs it in its mirror of the checkout, whose results/ are its own). A template
# type parameter (scale<T, BLOCK>, T float or __half), kernels chosen by name, and a kernel whose
# source hard-codes `#define ITEMS 4` are tuned from cold, every configuration verified against
# the first; then a program that includes the tuned header and its kernel source launches
# scale<STRPARAM_T, STRPARAM_BLOCK>, the header's macros used as the type and block size they are,
# and checks its output.
set -euo pipefail
fail() { echo "FAIL: $*" >&2; exit 1; }
B=build/tests
mkdir -p "$B"
NVCC=${NVCC:-${CUDA_HOME:-/usr/local/cuda}/bin/nvcc}
cc -std=c11 -O2 -Wall -Wextra -Werror -o "$B/csvcheck" tests/gpu/csvcheck.c

echo "== a template type parameter: scale<T, BLOCK>, T in float and __half"
./autotune --fresh -q tests/kernels/strparam.yaml || fail "strparam exited $?"
"$B/csvcheck" results/strparam.csv 5 ok=5 || fail "strparam: every instance verified"
[ "$(grep -c '^__half,' results/strparam.csv)" = 2 ] && [ "$(grep -c '^float,' results/strparam.csv)" = 3 ] ||
	fail "strparam: not 2 __half and 3 float rows: $(cut -d, -f1,2 results/strparam.csv | tr '\n' ' ')"
t=$(awk -F, 'NR > 1 && $0 ~ /winner/ { print $1; exit }' results/strparam.csv)
grep -q "^#define STRPARAM_T $t\$" results/strparam_tuned.h || fail "strparam: the header's T is not the winner's $t"
grep -q "(void \*)&scale<$t, " results/strparam_tuned.cu || fail "strparam: the shipped copy takes no scale<$t, ...>"

echo "== the tuned header's type and block size in a program"
cat > "$B/strparam_app.cu" <<'CU'
#include <math.h>
#include <stdio.h>
#include "strparam_tuned.h"
#include STRPARAM_KERNEL_SOURCE
int main(void)
{
	const int n = 1 << 20;
	float *in, *out;
	if (cudaMallocManaged(&in, n * sizeof *in) || cudaMallocManaged(&out, n * sizeof *out))
		return 2;
	for (int i = 0; i < n; i++)
		in[i] = (float)(i % 1000) / 1000.0f;
	scale<STRPARAM_T, STRPARAM_BLOCK><<<(n + STRPARAM_BLOCK - 1) / STRPARAM_BLOCK, STRPARAM_BLOCK>>>(in, out, n);
	if (cudaDeviceSynchronize())
		return 3;
	int bad = 0;
	for (int i = 0; i < n; i++)
		bad += fabsf(out[i] - 2.0f * in[i]) > 2e-3f * 2.0f * in[i] + 1e-6f;
	printf("scale<%s, %d>: %d of %d elements wrong\n", strparam_tuned.t, strparam_tuned.block, bad, n);
	return bad != 0;
}
CU
arch=$(sed -n 's/^#define STRPARAM_TUNED_ARCH "\(.*\)"$/\1/p' results/strparam_tuned.h)
"$NVCC" -arch="$arch" -Iresults -o "$B/strparam_app" "$B/strparam_app.cu" || fail "the program with the tuned header"
"$B/strparam_app" || fail "scale<STRPARAM_T, STRPARAM_BLOCK> computed wrong values"

echo "== kernels chosen by name"
./autotune --fresh -q tests/kernels/variants.yaml || fail "variants exited $?"
"$B/csvcheck" results/variants.csv 4 ok=4 || fail "variants: both kernels verified"
k=$(awk -F, 'NR > 1 && $0 ~ /winner/ { print $1; exit }' results/variants.csv)
grep -q "^#define VARIANTS_KERNEL $k\$" results/variants_tuned.h || fail "variants: the header's KERNEL is not $k"

echo "== a hard-coded #define tuned without editing the file"
cp tests/kernels/hardcoded.cu "$B/hardcoded.before"
./autotune --fresh -q tests/kernels/hardcoded.yaml || fail "hardcoded exited $?"
"$B/csvcheck" results/hardcoded.csv 6 ok=6 || fail "hardcoded: every ITEMS verified"
cmp -s tests/kernels/hardcoded.cu "$B/hardcoded.before" || fail "hardcoded: the tuning edited the kernel"
items=$(awk -F, 'NR > 1 && $0 ~ /winner/ { print $1; exit }' results/hardcoded.csv)
grep -q "^#define ITEMS $items\$" results/hardcoded_tuned.cu || fail "hardcoded: the copy has no '#define ITEMS $items'"
echo "PASS: strparam (winners T=$t, KERNEL=$k, ITEMS=$items)"
