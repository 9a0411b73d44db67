#!/bin/sh
# tests/cmake_sizes.sh: examples/sizes_app configured and built by CMake from its checked-in sample
# (examples/sizes_app/sample: a fake-worker run with two variants; nvcc compiles, no GPU, no
# tuning). autotune_tuned_header's VARIANT_SOURCES gives kernel.cu a slot per instance of the
# config: each variant's object is compiled with that variant's recipe from the fragment (its
# -DSUMMATRIX_SIZES_VARIANT=K, its register cap, its kernel's own name), a slot beyond the
# variants holds nothing, the program links, and a second build runs nothing. Then
# AutotuneFinish.cmake's slots alone: a header without instances, and one with more variants
# than slots. Run from the repository root after `make` (`make test` does).
set -eu
what="tests/cmake_sizes.sh: CMake builds every variant" name="cmake sizes test"
. tests/cmake_common.sh

b=$tmp/build
out=$(cmake -S examples/sizes_app -B "$b" -DAUTOTUNE_SAMPLE=ON -DCMAKE_CUDA_COMPILER="$nvcc" 2>&1) ||
	fail "configure: $out"
log=$(cmake --build "$b" --verbose 2>&1) || fail "build: $log"
mk=$b/autotune/summatrix_sizes.mk
[ -f "$b/autotune/summatrix_sizes_tuned.h" ] && [ -f "$mk" ] || fail "no header or fragment in $b/autotune"
[ -x "$b/sizes_app" ] || fail "the program did not link"
variants=$(sed -n 's/^SUMMATRIX_SIZES_VARIANTS := //p' "$mk")
nvariants=$(echo $variants | wc -w)
slots=$(./autotune validate --print-instances configs/summatrix_sizes.yaml | wc -l)
[ "$nvariants" -ge 2 ] || fail "the sample has $nvariants variants: it is meant to have several"
[ "$slots" -gt "$nvariants" ] || fail "$slots slots for $nvariants variants: the sample is meant to leave one empty"

k=0
while [ "$k" -lt "$slots" ]; do
	obj=$b/CMakeFiles/sizes_app_summatrix_sizes_v$k.dir/autotune/summatrix_sizes.v$k/kernel.cu.o
	opts=$b/autotune/summatrix_sizes.v$k.nvcc-flags
	[ -f "$obj" ] || fail "slot $k was not compiled ($obj)"
	# nvcc was given the slot's own options file for this object
	printf '%s\n' "$log" | grep -- "--options-file=$opts .* -o [^ ]*summatrix_sizes.v$k/kernel.cu.o" >/dev/null ||
		fail "slot $k was not compiled with $opts: $log"
	defined=$(nm "$obj" | sed -n 's/^[0-9a-f]* T //p' | grep -v '^_Z' | sort | tr '\n' ' ')
	if [ "$k" -lt "$nvariants" ]; then
		# the fragment's recipe of variant k, as make would build it
		recipe=$(sed -n "s/^SUMMATRIX_SIZES_V${k}_NVCC_FLAGS [:+]= *//p" "$mk" | tr '\n' ' ')
		for flag in $recipe; do
			case " $(cat "$opts") " in *" $flag "*) ;; *) fail "slot $k's options lack $flag of the fragment: $(cat "$opts")" ;; esac
		done
		case " $recipe " in *" -DSUMMATRIX_SIZES_VARIANT=$k "*) ;; *) fail "variant $k's recipe: $recipe" ;; esac
		[ "$defined" = "run_v$k sumMatrixOnGPU1D_v$k sumMatrixOnGPU2D_v$k " ] ||
			fail "slot $k defines '$defined', not variant $k's own names"
	else
		[ -z "$(tr -d ' \n' <"$opts")" ] || fail "slot $k is beyond the $nvariants variants but has options: $(cat "$opts")"
		[ -z "$defined" ] || fail "slot $k is beyond the $nvariants variants but defines $defined"
	fi
	k=$((k + 1))
done
nm "$b/sizes_app" | grep -q ' T run_v1$' || fail "the program lacks variant 1"
out=$(cmake --build "$b" 2>&1) || fail "the second build: $out"
case $out in *"autotune:"* | *"Building"*) fail "a build with nothing changed did something: $out" ;; esac

# AutotuneFinish.cmake alone: a fragment without instances is slot 0's recipe; one with more
# variants than slots is refused, and its header removed so that the next build tries again.
finish() { # MK SLOTS
	cmake -DMK="$1" -DFLAGS="$tmp/f.flags" -DNVCC= -DKERNEL=k.cu -DINCLUDES= -DHEADER="$tmp/f_tuned.h" \
		-DDEPFILE="$tmp/f.d" -DSLOTS="$2" -DSLOT_FLAGS="$tmp/f" -P cmake/AutotuneFinish.cmake 2>&1
}
printf '%s\n' 'X_NVCC_FLAGS := -maxrregcount=32' 'X_INCLUDE_FLAGS := -I$(X_FRAGMENT_DIR)inc' >"$tmp/one.mk"
out=$(finish "$tmp/one.mk" 2) || fail "a fragment without instances: $out"
[ "$(cat "$tmp/f.v0.nvcc-flags")" = "-maxrregcount=32 -I$tmp/inc -DAUTOTUNE_VARIANT_SLOT=0" ] ||
	fail "slot 0 of a fragment without instances: $(cat "$tmp/f.v0.nvcc-flags")"
[ -z "$(cat "$tmp/f.v1.nvcc-flags")" ] || fail "slot 1 of a fragment without instances: $(cat "$tmp/f.v1.nvcc-flags")"
touch "$tmp/f_tuned.h"
out=$(finish "$mk" 1) && fail "$nvariants variants took 1 slot: $out"
case $(printf '%s' "$out" | tr '\n' ' ' | tr -s ' ') in
*"has $nvariants variants, but the build has 1 variant slots"*) ;;
*) fail "more variants than slots does not say so: $out" ;;
esac
[ ! -e "$tmp/f_tuned.h" ] || fail "the header of too many variants is left for the next build to take"
echo "cmake sizes test: ok ($nvariants variants in $slots slots, each with its recipe and names; the program links; no-op rebuild)"
