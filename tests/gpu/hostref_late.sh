#!/usr/bin/env bash
# tests/gpu/hostref_late.sh (called by tests/gpu.sh; runs alone too, from the repository root
# after `make`): verify.host runs on a thread of the worker while the first configurations are
# timed (worker/hostref.c). On the real worker: a reference that takes longer than a run may is
# waited for, and every configuration is verified against it; one that crashes while kernels
# are timed is said at verify.host, exit 2, nothing written; a wrong one still makes every
# configuration a wrong result; the trace says how long a run waited for it. The runs write in a
# scratch directory. Exit 1 with FAIL: on stderr otherwise.
set -uo pipefail
fail() { echo "FAIL: $*" >&2; exit 1; }
root=$(pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/autotune-hostref-late-XXXXXX")
trap 'rm -rf "$work"' EXIT
cd "$work" || fail "no scratch directory"
cat > k.cu <<'CU'
extern "C" __global__ void k(float *out, const float *in, int n, float s)
{
	for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
		out[i] = in[i] * s;
}
CU
# SLEEP: seconds the reference sleeps first; WRONG: 1 adds 1 to element 7; CRASH: 1 writes through NULL
cat > ref.c <<'C'
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <unistd.h>
static volatile uintptr_t nowhere; /* 0, which the compiler cannot see: a real store, a real SIGSEGV */
void scale(float *out, const float *in, int n, float s)
{
	sleep(SLEEP);
	if (CRASH)
		*(float *)nowhere = 1;
	for (int i = 0; i < n; i++)
		out[i] = in[i] * s;
	out[7] += WRONG;
}
C
# config NAME SLEEP WRONG CRASH: 16 configurations of 2^24 floats; a run may take 0.5 s + 0.3 s
config() {
	cat > "$1.yaml" <<YAML
name: $1
kernel: {source: k.cu, entry: k}
arguments:
  - {name: out, type: float, count: 16777216, output: true}
  - {name: in, type: float, count: 16777216, fill: random, seed: 3}
  - {name: n, type: int32, value: 16777216}
  - {name: s, type: float, value: 0.5}
space: {bx: [64, 128, 256, 512], gx: [132, 264, 528, 1056]}
launch: {block: [bx], grid: [gx]}
verify: {host: {source: ref.c, function: scale, flags: [-DSLEEP=$2, -DWRONG=$3, -DCRASH=$4]}, rtol: 0, atol: 0}
measure: {finalists: 0, timeout: 0.5, time_cap: 0.3}
output: {csv: results/$1.csv, header: results/$1_tuned.h}
YAML
}
cc -std=c11 -O2 -Wall -Wextra -Werror -o csvcheck "$root/tests/gpu/csvcheck.c" || fail "csvcheck does not build"

# 2 s of reference beside runs that may take 0.8 s: waited for, and every configuration verified
config slow 2 0 0
AUTOTUNE_TRACE=1 "$root/autotune" --fresh -q slow.yaml 2> slow.err || { cat slow.err; fail "slow exited $?"; }
./csvcheck results/slow.csv 16 ok=16 || fail "a reference slower than a run's timeout: not 16 ok"
line=$(grep -m1 -E 'hostref: [0-9]+ arrays' results/slow.worker.log) || fail "no hostref trace in the worker log"
echo "$line"
echo "$line" | grep -Eq 'verify\.host [0-9.]+ ms; a run waited [0-9.]+ ms for them; outputs to the GPU [0-9.]+ ms' ||
	fail "the hostref trace does not say the wait"
ms=$(echo "$line" | sed -E 's/.*verify\.host ([0-9.]+) ms.*/\1/')
awk -v m="$ms" 'BEGIN { exit !(m >= 2000) }' || fail "verify.host took $ms ms, not the 2 s it sleeps"

# a wrong reference: every configuration a wrong result, said as before
config wrong 0 1 0
"$root/autotune" --fresh -q wrong.yaml 2> wrong.err
rc=$?
[ "$rc" -eq 1 ] || { cat wrong.err; fail "wrong exited $rc, not 1 (none passed)"; }
./csvcheck results/wrong.csv 16 wrong-result=16 || fail "a wrong reference: not 16 wrong-result"
grep -q "argument 1 'out': 1 of 16777216 values differ" results/wrong.csv ||
	fail "a wrong result does not say how: $(grep -m1 differ results/wrong.csv)"

# a reference that crashes 1 s in, while the first configurations are timed
config crash 1 0 1
"$root/autotune" --fresh -q crash.yaml 2> crash.err
rc=$?
[ "$rc" -eq 2 ] || { cat crash.err; fail "crash exited $rc, not 2"; }
grep -q "crash.yaml:10:[0-9]*: verify host 'scale' ended the GPU worker: killed by signal 11" crash.err ||
	{ cat crash.err; fail "the crash is not said at verify.host"; }
[ ! -e results/crash.csv ] || fail "a crashed reference wrote results"
echo "PASS: verify.host beside the timing"
