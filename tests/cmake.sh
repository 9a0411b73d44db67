#!/bin/sh
# tests/cmake.sh: examples/summatrix_cmake configured and built from the checked-in sample (nvcc
# compiles it; no GPU, no tuning): the header and the binary are there, nvcc reads the tuned
# flags, a second build runs nothing, and touching the config or a file the kernel includes
# writes the header again. On copies of the config and kernel, so the checkout is not touched. A
# CMake build that tunes (the fake worker) finds in the cache what a command-line run compiled.
# Then AutotuneFinish.cmake on a fragment of several GPUs, and on one of an incomplete run. Run from the repository root after
# `make` (`make test` does).
set -eu
what="tests/cmake.sh: the CMake integration" name="cmake test"
. tests/cmake_common.sh

# The kernel's copy includes one header more, to see its includes followed.
mkdir -p "$tmp/src/configs" "$tmp/src/kernels"
cp configs/summatrix.yaml "$tmp/src/configs/"
config=$tmp/src/configs/summatrix.yaml
{ echo '#include "extra.cuh"'; cat kernels/summatrix.cu; } >"$tmp/src/kernels/summatrix.cu"
echo '// included by the kernel' >"$tmp/src/kernels/extra.cuh"

b=$tmp/build
out=$(cmake -S examples/summatrix_cmake -B "$b" -DAUTOTUNE_SAMPLE=ON -DSUMMATRIX_CONFIG="$config" \
	-DCMAKE_CUDA_COMPILER="$nvcc" 2>&1) || fail "configure: $out"
out=$(cmake --build "$b" --verbose 2>&1) || fail "build: $out"
header=$b/autotune/summatrix_tuned.h
[ -f "$header" ] || fail "no $header"
grep -q '^#define SUMMATRIX_BLOCK_X 256$' "$header" || fail "not the sample's winner in $header"
[ -x "$b/summatrix_app" ] || fail "no binary"
case $out in
*"--options-file=$b/autotune/summatrix.nvcc-flags"*) ;;
*) fail "nvcc was not given the tuned flags: $out" ;;
esac
# the sample's config column (configs/summatrix.yaml) is found above the CSV, not in the build
case $out in *"cannot load"*) fail "the sample's config was not found: $out" ;; esac
# the kernel's copy is not the code the sample was tuned on: the build says so (CMake wraps it)
sample_spec=$(sed -n 's/^#define SUMMATRIX_SPEC_HASH "\(.*\)"$/\1/p' examples/summatrix_app/sample/summatrix_tuned.h)
case $(printf '%s' "$out" | tr '\n' ' ' | tr -s ' ') in
*"comes from results tuned for spec '$sample_spec', but $config and its kernel are now"*) ;;
*) fail "no warning that the sample's spec is stale: $out" ;;
esac

# rebuild WHAT: builds again; true when autotune wrote the header (its step's comment)
rebuild() {
	out=$(cmake --build "$b" 2>&1) || fail "the build after $1: $out"
	case $out in *"autotune: summatrix_tuned.h from"*) return 0 ;; esac
	return 1
}
! rebuild "a build" || fail "a build with nothing changed ran autotune: $out"
for f in "$config" "$tmp/src/kernels/extra.cuh"; do
	sleep 1 # a later modification time, also where only seconds count
	touch "$f"
	rebuild "touching $f" || fail "touching $f did not write the header again: $out"
	[ -n "$(find "$header" -newer "$f")" ] || fail "the header is older than $f"
	case $out in *"Building CUDA object"*) ;; *) fail "main.cu was not compiled again: $out" ;; esac
	! rebuild "the rebuild" || fail "a second build after touching $f ran autotune: $out"
done

# The default's flags, not a GPU's from an ifeq block, with make's escapes undone; where nvcc
# is not there, a depfile of the kernel alone.
printf '%s\n' 'X_TARGETS := G' 'ifeq ($(AUTOTUNE_TARGET),G)' \
	'X_NVCC_FLAGS := -maxrregcount=64' endif \
	'X_NVCC_FLAGS := -maxrregcount=32 -DQ=$$\#' >"$tmp/x.mk"
cmake -DMK="$tmp/x.mk" -DFLAGS="$tmp/x.flags" -DNVCC= -DKERNEL=k.cu -DINCLUDES= -DHEADER=x_tuned.h \
	-DDEPFILE="$tmp/x.d" -P cmake/AutotuneFinish.cmake 2>/dev/null || fail "AutotuneFinish.cmake"
[ "$(cat "$tmp/x.flags")" = '-maxrregcount=32 -DQ=$#' ] || fail "flags file: $(cat "$tmp/x.flags")"
[ "$(cat "$tmp/x.d")" = 'x_tuned.h: k.cu' ] || fail "fallback depfile: $(cat "$tmp/x.d")"
# A header of an incomplete run: a warning, and with REQUIRE_COMPLETE an error that removes the
# header, so that the next build runs the step again.
printf '%s\n' '# INCOMPLETE: 2 of 52 configurations measured, interrupted: resume with the same command' \
	'X_NVCC_FLAGS :=' 'X_COMPLETE := 0' 'X_RUN := interrupted' >"$tmp/p.mk"
finish() {
	cmake -DMK="$tmp/p.mk" -DFLAGS="$tmp/p.flags" -DNVCC= -DKERNEL=k.cu -DINCLUDES= -DHEADER="$tmp/p_tuned.h" \
		-DDEPFILE="$tmp/p.d" "$@" -P cmake/AutotuneFinish.cmake 2>&1
}
touch "$tmp/p_tuned.h"
out=$(finish) || fail "an incomplete run's header without REQUIRE_COMPLETE: $out"
case $(printf '%s' "$out" | tr '\n' ' ' | tr -s ' ') in
*"is of an incomplete run: 2 of 52 configurations measured, interrupted: resume with the same command"*) ;;
*) fail "no warning about an incomplete run: $out" ;;
esac
[ -f "$tmp/p_tuned.h" ] || fail "the header of an incomplete run was removed without REQUIRE_COMPLETE"
out=$(finish -DREQUIRE_COMPLETE=ON) && fail "REQUIRE_COMPLETE took an incomplete run's header: $out"
case $(printf '%s' "$out" | tr '\n' ' ' | tr -s ' ') in
*"REQUIRE_COMPLETE refuses it"*) ;;
*) fail "REQUIRE_COMPLETE does not say why: $out" ;;
esac
[ ! -e "$tmp/p_tuned.h" ] || fail "the refused header is left for the next build to take"
sed -i 's/^X_COMPLETE := 0$/X_COMPLETE := 1/; /^# INCOMPLETE/d' "$tmp/p.mk"
touch "$tmp/p_tuned.h"
out=$(finish -DREQUIRE_COMPLETE=ON) || fail "REQUIRE_COMPLETE refused a complete run's header: $out"

# The cache is shared however autotune is started: a run from the command line in another
# directory (relative paths), then a CMake build that tunes the same config (absolute paths, the
# build directory as working directory) starts no nvcc. The fake worker stands in for the GPU;
# both name the same nvcc in NVCC, a wrapper that counts its compiles.
root=$PWD worker=$PWD/build/fake_worker
[ -x "$worker" ] || fail "no $worker (make build/fake_worker)"
printf '#!/bin/sh\n[ "$1" = -dryrun ] || echo "$*" >>"%s/nvcc.log"\nexec "%s" "$@"\n' "$tmp" "$nvcc" >"$tmp/nvcc-count"
chmod +x "$tmp/nvcc-count"
tune_env() { env XDG_CACHE_HOME="$tmp/xdg" AUTOTUNE_WORKER="$worker" NVCC="$tmp/nvcc-count" "$@"; }
mkdir -p "$tmp/cli"
out=$(cd "$tmp/cli" && tune_env "$root/autotune" ../src/configs/summatrix.yaml 2>&1) || fail "the command line's run: $out"
[ -s "$tmp/nvcc.log" ] || fail "the command line's run started no nvcc: $out"
rm "$tmp/nvcc.log"
b2=$tmp/build-tuned
out=$(cmake -S examples/summatrix_cmake -B "$b2" -DSUMMATRIX_CONFIG="$config" -DCMAKE_CUDA_COMPILER="$nvcc" 2>&1) ||
	fail "configure a build that tunes: $out"
out=$(tune_env cmake --build "$b2" 2>&1) || fail "the build that tunes: $out"
[ -f "$b2/autotune/summatrix_tuned.h" ] || fail "the build that tunes wrote no header: $out"
[ ! -e "$tmp/nvcc.log" ] || fail "CMake's tuning compiled again what the command line's had: $(cat "$tmp/nvcc.log")"
case $out in *" 0 nvcc runs, "*) ;; *) fail "CMake's tuning does not say it took every binary from the cache: $out" ;; esac
echo "cmake test: ok (sample header, binary, flags to nvcc, no-op rebuild, re-run on config and include, incomplete runs, the cache shared with the command line)"
