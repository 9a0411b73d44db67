#!/bin/sh
# tests/streams_app.sh: examples/streams_app builds against a tuned header of configs/streams.yaml
# that carries the plan's choices (STREAMS_PLAN_*). Without a GPU the header comes from a run on
# tests/fake_worker.c (a stand-in that times plans as the streams seed predicts); nvcc compiles the
# program, nothing runs it. Run from the repository root after `make all build/fake_worker`.
set -eu
# make's output is read: a make -s above (MAKEFLAGS) would silence the commands it echoes
unset MAKEFLAGS MFLAGS MAKELEVEL
NVCC=${NVCC:-${CUDA_HOME:-/usr/local/cuda}/bin/nvcc}
fail() { echo "streams app test: FAILED: $*" >&2; exit 1; }
if ! command -v "$NVCC" >/dev/null 2>&1; then
	echo "SKIPPED: no nvcc (tests/streams_app.sh: examples/streams_app against a tuned header)"
	exit 0
fi
top=$(pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/autotune-streams-app-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
# the config beside its kernel, as in the repository, its results in $tmp/results
mkdir "$tmp/configs"
cp configs/streams.yaml "$tmp/configs/"
ln -s "$top/kernels" "$tmp/kernels"
(cd "$tmp" && AUTOTUNE_WORKER="$top/build/fake_worker" "$top/autotune" -q --cache-dir "$tmp/cache" configs/streams.yaml) ||
	fail "tuning configs/streams.yaml on the fake worker"
for m in STREAMS_PLAN_STREAMS STREAMS_PLAN_ORDER STREAMS_PLAN_BREADTH_FIRST STREAMS_PLAN_CONNECTIONS; do
	grep -q "^#define $m " "$tmp/results/streams_tuned.h" || fail "no $m in the tuned header"
done
make -s -C examples/streams_app build TUNED="$tmp/results" APP="$tmp/streams_app" NVCC="$NVCC" >/dev/null ||
	fail "examples/streams_app did not build against the tuned header"
[ -x "$tmp/streams_app" ] || fail "no program built"
echo "streams app: built against a tuned header with the plan's choices"
