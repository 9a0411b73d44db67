#!/bin/sh
# tests/sizes_app.sh: examples/sizes_app builds against the selecting header of
# configs/summatrix_sizes.yaml (three sizes): one object per variant from the fragment's recipes,
# and main.cu that launches each pick's variant. Without a GPU the header comes from a run on
# tests/fake_worker.c (FAKE_SMS: the best block grows with the size); nvcc compiles the program,
# nothing runs it (tests/gpu.sh runs it on a GPU). Run from the repository root after
# `make all build/fake_worker`.
set -eu
# make's output is read: a make -s above (MAKEFLAGS) would silence the commands it echoes
unset MAKEFLAGS MFLAGS MAKELEVEL
NVCC=${NVCC:-${CUDA_HOME:-/usr/local/cuda}/bin/nvcc}
fail() { echo "sizes app test: FAILED: $*" >&2; exit 1; }
if ! command -v "$NVCC" >/dev/null 2>&1; then
	echo "SKIPPED: no nvcc (tests/sizes_app.sh: examples/sizes_app against a selecting header)"
	exit 0
fi
top=$(pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/autotune-sizes-app-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/configs"
cp configs/summatrix_sizes.yaml "$tmp/configs/"
ln -s "$top/kernels" "$tmp/kernels"
(cd "$tmp" && FAKE_SMS=4 AUTOTUNE_WORKER="$top/build/fake_worker" "$top/autotune" -q --budget 6 --cache-dir "$tmp/cache" \
	configs/summatrix_sizes.yaml) || fail "tuning configs/summatrix_sizes.yaml on the fake worker"
grep -q "^static inline const struct summatrix_sizes_instance \*summatrix_sizes_select(double nx, double ny)" \
	"$tmp/results/summatrix_sizes_tuned.h" || fail "no selector in the tuned header"
variants=$(sed -n 's/^SUMMATRIX_SIZES_VARIANTS := //p' "$tmp/results/summatrix_sizes.mk")
[ -n "$variants" ] || fail "no variants in the fragment"
make -s -C examples/sizes_app build TUNED="$tmp/results" APP="$tmp/app/sizes_app" NVCC="$NVCC" >/dev/null ||
	fail "examples/sizes_app did not build against the tuned header"
[ -x "$tmp/app/sizes_app" ] || fail "no program built"
for v in $variants; do
	[ -f "$tmp/app/obj/kernel_v$v.o" ] || fail "variant $v was not built"
done
# the make example checked the program (autotune check); each instance's winner is there as tuned
winners=$(grep -c "winner" "$tmp/results/summatrix_sizes.csv")
tuned=$("$top/autotune" check "$tmp/app/sizes_app" "$tmp/results/summatrix_sizes.csv" | grep -c ": tuned: ") ||
	fail "autotune check: the program is not the tuned code"
[ "$tuned" = "$winners" ] || fail "autotune check found $tuned of $winners winners"
echo "sizes app: built against a selecting header, variants: $variants"
