#!/usr/bin/env bash
# tests/gpu/fills.sh (called by tests/gpu.sh, from the mirror's root): the fills the host makes for
# verify.host (lib/fills.c) are the GPU's fills bit for bit, and the host made them rather than
# copying them from the GPU. Exit 1 with FAIL: on stderr otherwise.
set -uo pipefail
fail() { echo "FAIL: $*" >&2; exit 1; }
B=build/tests
rm -f results/fills.csv results/fills.worker.log
AUTOTUNE_TRACE=1 ./autotune --fresh -q tests/gpu/fills.yaml 2> "$B/fills.err" ||
	{ cat "$B/fills.err"; fail "fills exited $?"; }
"$B/csvcheck" results/fills.csv 2 ok=2 || { grep -m2 differ results/fills.csv; fail "host and GPU fills differ"; }
line=$(grep -m1 'hostref: ' results/fills.worker.log) || fail "no hostref trace in results/fills.worker.log"
echo "$line"
# float, double, int32, uint8, index, constant and float4 on the host; normal from the GPU
echo "$line" | grep -q ': 7 arrays made on the host, 1 copied from the GPU' || fail "the host did not make its fills"
echo "PASS: the host's fills are the GPU's"
