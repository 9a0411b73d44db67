#!/usr/bin/env bash
# tests/gpu/fills.sh (called by tests/gpu.sh; runs alone too, from the repository root after
# `make`): the fills the host makes for verify.host (lib/fills.c) are the GPU's fills bit for bit,
# and the host made them rather than copying them from the GPU. The run writes in a scratch
# directory. Exit 1 with FAIL: on stderr otherwise.
set -uo pipefail
fail() { echo "FAIL: $*" >&2; exit 1; }
root=$(pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/autotune-fills-XXXXXX")
trap 'rm -rf "$work"' EXIT
cc -std=c11 -O2 -Wall -Wextra -Werror -o "$work/csvcheck" tests/gpu/csvcheck.c || fail "csvcheck does not build"
cd "$work" || fail "no scratch directory"
AUTOTUNE_TRACE=1 "$root/autotune" --fresh -q "$root/tests/gpu/fills.yaml" 2> fills.err ||
	{ cat fills.err; fail "fills exited $?"; }
"$work/csvcheck" results/fills.csv 2 ok=2 || { grep -m2 differ results/fills.csv; fail "host and GPU fills differ"; }
line=$(grep -m1 -E 'hostref: [0-9]+ arrays' results/fills.worker.log) || fail "no hostref trace in the worker log"
echo "$line"
# float, double, int32, uint8, index, constant and float4 on the host; normal from the GPU
echo "$line" | grep -q ': 7 arrays made on the host, 1 copied from the GPU' || fail "the host did not make its fills"
echo "PASS: the host's fills are the GPU's"
