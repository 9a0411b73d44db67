#!/bin/sh
# tests/recipe.sh: what autotune tunes is what a build compiles. Every shipped config, and
# tests/kernels/recipe.yaml (a define, a `#pragma unroll` parameter, a register cap, build.flags,
# a constant as a define through an include directory), and tests/kernels/hardcoded.yaml (a
# parameter replacing the source's hard-coded #define, the file unedited), tests/kernels/
# strparam.yaml (a template type parameter in a templated entry) and variants.yaml (kernels chosen
# by name), is tuned on the fake worker (a budget
# keeps compile-bound spaces short); then the winner is built twice, as docs/build.md says a
# user's build does:
#   make:  the fragment's recipe, $(NAME_NVCC_FLAGS) $(NAME_INCLUDE_FLAGS) $(NAME_KERNEL_SOURCE),
#          and for build.rdc the link with $(NAME_LINK_FLAGS);
#   CMake: autotune_tuned_header() on a program that includes the header and then
#          NAME_KERNEL_SOURCE (nvcc -keep gives its device binary);
# and each binary must execute the same code as the tuned one: the code hash of the CSV's winner
# row (tests/cubin_hash.c), and `autotune check` says "tuned" of the make-built cubin and of each
# CMake-built program (autotune_tuned_header checks it after the build). Run from the repository root after `make all build/fake_worker
# build/cubin_hash`.
set -eu
# make's output is read: a make -s above (MAKEFLAGS) would silence the commands it echoes
unset MAKEFLAGS MFLAGS MAKELEVEL
NVCC=${NVCC:-${CUDA_HOME:-/usr/local/cuda}/bin/nvcc}
fail() { echo "recipe test: FAILED: $*" >&2; exit 1; }
if ! command -v "$NVCC" >/dev/null 2>&1; then
	echo "SKIPPED: no nvcc (tests/recipe.sh: the tuned binary built from the header's recipe)"
	exit 0
fi
top=$(pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/autotune-recipe-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
# the configs beside their kernels, as in the repository; results in $tmp/results
mkdir "$tmp/configs" "$tmp/kernels"
cp configs/*.yaml "$tmp/configs/"
cp kernels/* "$tmp/kernels/"
cp -r tests/kernels/recipe.yaml tests/kernels/recipe.cu tests/kernels/inc "$tmp/kernels/"
cp tests/kernels/hardcoded.yaml tests/kernels/hardcoded.cu "$tmp/kernels/"
cp tests/kernels/strparam.yaml tests/kernels/strparam.cu tests/kernels/variants.yaml "$tmp/kernels/"
names=""
for c in "$tmp"/configs/*.yaml "$tmp/kernels/recipe.yaml" "$tmp/kernels/hardcoded.yaml" "$tmp/kernels/strparam.yaml" \
	"$tmp/kernels/variants.yaml"; do
	n=$(basename "$c" .yaml)
	names="$names $n"
	(cd "$tmp" && AUTOTUNE_WORKER="$top/build/fake_worker" "$top/autotune" -q --budget 6 --cache-dir "$tmp/cache" \
		"$c" >"$tmp/$n.log" 2>&1) || fail "tuning $n on the fake worker: $(cat "$tmp/$n.log")"
done

# The make path, as docs/build.md writes it.
cat >"$tmp/Makefile" <<'EOF'
include results/$(N).mk
U := $(shell echo $(N) | tr a-z A-Z)
out/$(N).cubin: results/$(N).mk
	@mkdir -p out
	$(NVCC) -cubin -arch=$($(U)_TUNED_ARCH) $($(U)_NVCC_FLAGS) $($(U)_INCLUDE_FLAGS) -x cu $($(U)_KERNEL_SOURCE) -o $@
	$(if $($(U)_LINK_FLAGS),$(NVCC) -dlink -cubin -arch=$($(U)_TUNED_ARCH) $@ $($(U)_LINK_FLAGS) -o $@.linked && mv $@.linked $@)
EOF
tuned() { sed -n "s/^$(echo "$1" | tr a-z A-Z)_CODE_HASH := //p" "$tmp/results/$1.mk"; }
for n in $names; do
	make -s -C "$tmp" N="$n" NVCC="$NVCC" "out/$n.cubin" >"$tmp/$n.make.log" 2>&1 || fail "make $n: $(cat "$tmp/$n.make.log")"
	want=$(tuned "$n")
	[ -n "$want" ] || fail "$n: no code hash in results/$n.mk"
	got=$("$top/build/cubin_hash" "$tmp/out/$n.cubin")
	[ "$got" = "$want" ] || fail "$n: the fragment's recipe built code $got, the tuned binary is $want"
	# autotune check finds the winner in it by its own code
	"$top/autotune" check "$tmp/out/$n.cubin" "$tmp/results/$n.csv" >"$tmp/$n.check.log" 2>&1 ||
		fail "$n: autotune check of the make-built cubin: $(cat "$tmp/$n.check.log")"
done
# the hard-coded define: tuned with the file unedited, a winner the source does not have, and that
# value in the copy the recipe builds
cmp -s tests/kernels/hardcoded.cu "$tmp/kernels/hardcoded.cu" || fail "tuning edited hardcoded.cu"
items=$(awk -F, 'NR > 1 && $0 ~ /winner/ { print $1; exit }' "$tmp/results/hardcoded.csv")
[ -n "$items" ] && [ "$items" != 4 ] || fail "hardcoded: winner ITEMS '$items', not one the source lacks"
grep -q "^#define ITEMS $items\$" "$tmp/results/hardcoded_tuned.cu" ||
	fail "hardcoded: the shipped copy has no '#define ITEMS $items'"
# string parameters: the winner's type and kernel name as tokens of the header, the template's
# instance in the copy the recipe builds
grep -q '^#define STRPARAM_T __half$' "$tmp/results/strparam_tuned.h" || fail "strparam: no '#define STRPARAM_T __half'"
grep -q '(void \*)&scale<__half, 128>;$' "$tmp/results/strparam_tuned.cu" || fail "strparam: the copy takes no scale<__half, 128>"
grep -q '^#define VARIANTS_KERNEL copy_strided$' "$tmp/results/variants_tuned.h" ||
	fail "variants: no '#define VARIANTS_KERNEL copy_strided'"

if ! command -v cmake >/dev/null 2>&1; then
	echo "recipe test: ok through make ($(echo $names | wc -w) configs); SKIPPED the CMake half: cmake not installed"
	exit 0
fi
# The CMake path: one program per config, each with the tuned header of its recorded results.
mkdir "$tmp/cm"
{
	echo 'cmake_minimum_required(VERSION 3.20)'
	echo 'project(recipe_check LANGUAGES CUDA)'
	echo "find_package(Autotune CONFIG REQUIRED PATHS \"$top/cmake\")"
	for n in $names; do
		u=$(echo "$n" | tr a-z A-Z)
		printf '#include "%s_tuned.h"\n#include %s_KERNEL_SOURCE\nint main(void) { return 0; }\n' "$n" "$u" \
			>"$tmp/cm/k_$n.cu"
		cfg=$tmp/configs/$n.yaml
		[ -f "$cfg" ] || cfg=$tmp/kernels/$n.yaml
		echo "add_executable(k_$n k_$n.cu)"
		echo "autotune_tuned_header(TARGET k_$n CONFIG \"$cfg\" RESULTS \"$tmp/results/$n.csv\" OUTPUT_DIR at_$n)"
		echo "target_compile_options(k_$n PRIVATE -keep -keep-dir \"$tmp/keep/$n\")"
		echo "file(MAKE_DIRECTORY \"$tmp/keep/$n\")"
	done
} >"$tmp/cm/CMakeLists.txt"
out=$(cmake -S "$tmp/cm" -B "$tmp/cmb" -DCMAKE_CUDA_COMPILER="$NVCC" -DCMAKE_CUDA_ARCHITECTURES=90 2>&1) ||
	fail "configure: $out"
out=$(cmake --build "$tmp/cmb" -j 2 2>&1) || fail "build: $out"
case $out in *"was tuned for"*) fail "an arch warning for the tuned arch itself: $out" ;; esac
# autotune_tuned_header checked each program after building it (autotune check): every winner tuned
for n in $names; do
	case $out in
	*"$n: tuned: "*"/k_$n "* | *"$n (instance "*"): tuned: "*"/k_$n "*) ;;
	*) fail "$n: no \"tuned\" from autotune check of k_$n: $out" ;;
	esac
done
for n in $names; do
	cubin=$(ls "$tmp/keep/$n"/k_"$n"*.sm_90.cubin 2>/dev/null | head -n 1)
	[ -n "$cubin" ] || fail "$n: nvcc kept no sm_90 cubin of k_$n.cu"
	if grep -q '^[A-Z_]*_LINK_FLAGS := -lcudadevrt' "$tmp/results/$n.mk"; then
		# a separable target: its relocatable code, linked with the device runtime as the tuning did
		"$NVCC" -dlink -cubin -arch=sm_90 "$cubin" -lcudadevrt -o "$tmp/keep/$n/linked.cubin"
		cubin=$tmp/keep/$n/linked.cubin
	fi
	got=$("$top/build/cubin_hash" "$cubin")
	[ "$got" = "$(tuned "$n")" ] || fail "$n: autotune_tuned_header() built code $got, the tuned binary is $(tuned "$n")"
done
echo "recipe test: ok ($(echo $names | wc -w) configs: the tuned binary from the make fragment and from CMake)"
