#!/bin/sh
# tests/saxpy_example.sh: the README's five-minute example, followed as written: examples/saxpy's
# make tunes saxpy.yaml (here on tests/fake_worker.c) and builds ./saxpy with the winner's recipe,
# whose -DITEMS must be the header's SAXPY_ITEMS, and checks it with autotune check. On a GPU (tests/gpu.sh, RUN=1) it also runs it.
# Run from the repository root after `make all build/fake_worker`.
set -eu
# make's output is read: a make -s above (MAKEFLAGS) would silence the commands it echoes
unset MAKEFLAGS MFLAGS MAKELEVEL
NVCC=${NVCC:-${CUDA_HOME:-/usr/local/cuda}/bin/nvcc}
fail() { echo "saxpy example: FAILED: $*" >&2; exit 1; }
if ! command -v "$NVCC" >/dev/null 2>&1; then
	echo "SKIPPED: no nvcc (tests/saxpy_example.sh: the README's five-minute example)"
	exit 0
fi
top=$(pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/autotune-saxpy-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
cp examples/saxpy/Makefile examples/saxpy/saxpy.cu examples/saxpy/saxpy.yaml examples/saxpy/main.cu "$tmp/"
if [ "${RUN:-0}" = 1 ]; then worker=""; else worker="$top/build/fake_worker"; fi
(cd "$tmp" && AUTOTUNE_WORKER=$worker make AUTOTUNE="$top/autotune" AUTOTUNE_FLAGS="-q --cache-dir $tmp/cache" \
	NVCC="$NVCC" >"$tmp/make.log" 2>&1) || { cat "$tmp/make.log" >&2; fail "make in examples/saxpy"; }
[ -x "$tmp/saxpy" ] || fail "no ./saxpy built"
items=$(sed -n 's/^#define SAXPY_ITEMS \([0-9]*\)$/\1/p' "$tmp/results/saxpy_tuned.h")
[ -n "$items" ] || fail "no SAXPY_ITEMS in the header"
grep -q -- "-DITEMS=$items " "$tmp/make.log" || fail "the build did not pass the winner's -DITEMS=$items"
# the Makefile checked the program it built: the tuned kernel, exactly
grep -q "^saxpy: tuned: saxpy in saxpy (sm_" "$tmp/make.log" || fail "autotune check did not find the tuned saxpy: $(cat "$tmp/make.log")"
if [ "${RUN:-0}" = 1 ]; then
	out=$("$tmp/saxpy") || fail "./saxpy: $out"
	echo "$out"
else
	echo "saxpy example: tuned on the fake worker and built with -DITEMS=$items"
fi
