#!/bin/sh
# tests/install.sh: `make install` into a scratch prefix, then the installed autotune validates
# every installed config (so each finds its kernel), finds its worker in ../libexec/autotune, and
# compiles an installed kernel; DESTDIR stages under a root; `make uninstall` leaves no file
# behind. Run from the repository root after `make` (`make test` does).
set -eu
MAKE=${MAKE:-make}
top=$(pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/autotune-install-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
prefix=$tmp/prefix
fail() { echo "install test: FAILED: $*" >&2; exit 1; }

$MAKE -s --no-print-directory install PREFIX="$prefix" >/dev/null
for f in bin/autotune libexec/autotune/autotune-worker share/man/man1/autotune.1 \
	share/autotune/configs/summatrix.yaml share/autotune/kernels/summatrix.cu; do
	[ -f "$prefix/$f" ] || fail "$f was not installed"
done
[ -x "$prefix/bin/autotune" ] && [ -x "$prefix/libexec/autotune/autotune-worker" ] || fail "not executable"

# From elsewhere, with no worker named in the environment: only the installed layout can help.
mkdir "$tmp/work"
cd "$tmp/work"
unset AUTOTUNE_WORKER
for cfg in "$prefix"/share/autotune/configs/*.yaml; do
	"$prefix/bin/autotune" validate "$cfg" >/dev/null || fail "validate $(basename "$cfg")"
done
# Without --arch the worker is asked for the GPU: it starts (and without a GPU says so), or the
# run succeeds on a machine with one. Not found would read "cannot start the GPU worker".
out=$("$prefix/bin/autotune" --dry-run --no-cache "$prefix/share/autotune/configs/summatrix.yaml" 2>&1) && rc=0 || rc=$?
case $out in
*"cannot start the GPU worker"*) fail "the worker was not found: $out" ;;
esac
[ $rc -eq 0 ] || case $out in
*"$prefix/bin/../libexec/autotune/autotune-worker"* | *"GPU worker"*) ;;
*) fail "unexpected: $out" ;;
esac
if command -v "${NVCC:-nvcc}" >/dev/null 2>&1 || [ -x "${CUDA_HOME:-/usr/local/cuda}/bin/nvcc" ]; then
	"$prefix/bin/autotune" -q --dry-run --no-cache --arch sm_90 "$prefix/share/autotune/configs/summatrix.yaml" ||
		fail "a dry run of the installed summatrix"
	[ -s results/summatrix.csv ] || fail "no results/summatrix.csv"
fi
MANWIDTH=80 man -l "$prefix/share/man/man1/autotune.1" >/dev/null 2>&1 ||
	! command -v man >/dev/null || fail "man -l of the installed page"
cd "$top"

$MAKE -s --no-print-directory uninstall PREFIX="$prefix" >/dev/null
left=$(find "$prefix" -type f)
[ -z "$left" ] || fail "left behind after uninstall: $left"

$MAKE -s --no-print-directory install DESTDIR="$tmp/stage" PREFIX=/usr/local >/dev/null
[ -x "$tmp/stage/usr/local/bin/autotune" ] && [ -f "$tmp/stage/usr/local/share/autotune/kernels/reduce.cu" ] ||
	fail "DESTDIR install"
$MAKE -s --no-print-directory uninstall DESTDIR="$tmp/stage" PREFIX=/usr/local >/dev/null
left=$(find "$tmp/stage" -type f)
[ -z "$left" ] || fail "left behind after DESTDIR uninstall: $left"
echo "install test: ok (install, validate, worker found, dry run, uninstall, DESTDIR)"
