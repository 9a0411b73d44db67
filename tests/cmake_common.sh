# tests/cmake_common.sh: the start the CMake tests share, sourced after setting `what` (what the
# test checks, for the skip messages) and `name` (the test's name in failures, and of its temporary
# directory): skips (exit 0) without cmake or nvcc, then sets nvcc, tmp (removed on exit) and
# fail().
# the builds' verbose output is read: a make -s above (MAKEFLAGS) would silence their commands
unset MAKEFLAGS MFLAGS MAKELEVEL
if ! command -v cmake >/dev/null 2>&1; then
	echo "SKIPPED: cmake not installed ($what)"
	exit 0
fi
nvcc=${NVCC:-$(command -v nvcc || echo "${CUDA_HOME:-/usr/local/cuda}/bin/nvcc")}
if [ ! -x "$nvcc" ]; then
	echo "SKIPPED: no nvcc at $nvcc ($what)"
	exit 0
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/autotune-$(echo "$name" | tr ' ' -)-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fail() { echo "$name: FAILED: $*" >&2; exit 1; }
