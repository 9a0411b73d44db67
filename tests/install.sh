#!/bin/sh
# tests/install.sh: `make install` into a scratch prefix, then the installed autotune validates
# every installed config (so each finds its kernel), finds its worker in ../libexec/autotune, and
# compiles an installed kernel; the docs are under share/doc/autotune, their links intact, and the
# man page points there; programs link the run-time library (pkg-config, shared, running without
# LD_LIBRARY_PATH, and static; CMake's Autotune::select) and read a T4 file with it; CMake finds
# the installed package (where cmake exists); DESTDIR stages under a root; `make uninstall` leaves
# no file behind. Run from the repository root after `make` (`make test` does).
set -eu
MAKE=${MAKE:-make}
top=$(pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/autotune-install-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
prefix=$tmp/prefix
fail() { echo "install test: FAILED: $*" >&2; exit 1; }

$MAKE -s --no-print-directory install PREFIX="$prefix" >/dev/null
for f in bin/autotune libexec/autotune/autotune-worker share/man/man1/autotune.1 \
	share/doc/autotune/README.md share/doc/autotune/BENCHMARKS.md $(ls docs/*.md | sed 's|^|share/doc/autotune/|') \
	share/autotune/configs/summatrix.yaml share/autotune/kernels/summatrix.cu \
	lib/cmake/autotune/AutotuneConfig.cmake lib/cmake/autotune/AutotuneConfigVersion.cmake \
	lib/cmake/autotune/AutotuneFinish.cmake lib/cmake/autotune/AutotuneCheck.cmake \
	include/autotune_select.h lib/libautotune_select.a \
	lib/libautotune_select.so lib/pkgconfig/autotune-select.pc; do
	[ -f "$prefix/$f" ] || fail "$f was not installed"
done
# the installed docs' relative links lead to installed files (README.md to docs/config.md, ...)
for md in "$prefix"/share/doc/autotune/*.md "$prefix"/share/doc/autotune/docs/*.md; do
	for link in $(grep -o '](\([a-zA-Z0-9_./-]*\.md\)' "$md" | sed 's/^](//' | sort -u); do
		case $link in
		examples/* | ../examples/*) continue ;; # the examples are the source distribution's
		esac
		[ -f "$(dirname "$md")/$link" ] || fail "installed $(basename "$md") links to $link, which was not installed"
	done
done
# the man page names where they are
grep -q 'share/doc/autotune' "$prefix/share/man/man1/autotune.1" || fail "the man page does not point at share/doc/autotune"
[ -x "$prefix/bin/autotune" ] && [ -x "$prefix/libexec/autotune/autotune-worker" ] || fail "not executable"
# autotune check, installed with it: a file that is no binary is bad input (2)
st=0; "$prefix/bin/autotune" check "$prefix/share/autotune/configs/summatrix.yaml" /dev/null >/dev/null 2>&1 || st=$?
[ "$st" = 2 ] || fail "the installed autotune check exited $st on a file that is no binary"

# The run-time library through its pkg-config file, from a program outside the checkout: it
# loads a T4 file (libyaml's part of the library) and picks its one winner.
cat >"$tmp/sel.c" <<'EOF'
#include <stdio.h>
#include <autotune_select.h>
int main(int argc, char **argv)
{
	char err[512];
	autotune_results *r = autotune_results_load(argv[argc - 1], "0123456789abcdef", err, sizeof err);
	if (!r)
		fprintf(stderr, "%s\n", err);
	int ok = r && autotune_param(r, autotune_pick(r, NULL, "G"), 0) == 64 && autotune_ln(1.0) == 0.0;
	autotune_results_free(r);
	return !ok;
}
EOF
printf '{"results": [{"configuration": {"bx": 64}, "measurements": [{"name": "time_ms_median", "value": 1.5}],
  "autotune": {"flags": "winner", "spec_hash": "0123456789abcdef", "gpu": "G"}}]}\n' >"$tmp/sel.t4.json"
# Linked with what pkg-config says and nothing more, the program runs without LD_LIBRARY_PATH: the
# .pc's Libs carry the rpath (without pkg-config, its Libs line read by hand).
if command -v pkg-config >/dev/null 2>&1; then
	pc=$(PKG_CONFIG_PATH="$prefix/lib/pkgconfig" pkg-config --cflags --libs autotune-select) || fail "pkg-config autotune-select"
else
	pc="-I$prefix/include $(sed -n 's/^Libs: //p' "$prefix/lib/pkgconfig/autotune-select.pc" | sed "s|\${libdir}|$prefix/lib|g")"
fi
cc -o "$tmp/sel" "$tmp/sel.c" $pc || fail "a program linked with the installed libautotune_select: $pc"
# the shared library it is, not the archive
if command -v readelf >/dev/null 2>&1; then
	readelf -d "$tmp/sel" | grep -q 'NEEDED.*libautotune_select\.so' || fail "the program does not load libautotune_select.so"
fi
env -u LD_LIBRARY_PATH "$tmp/sel" "$tmp/sel.t4.json" ||
	fail "a program linked with \`pkg-config --cflags --libs autotune-select\` does not run without LD_LIBRARY_PATH ($pc)"
if command -v pkg-config >/dev/null 2>&1; then
	# static: the archive, then what pkg-config --static adds for it (libyaml)
	pc=$(PKG_CONFIG_PATH="$prefix/lib/pkgconfig" pkg-config --static --cflags --libs autotune-select) ||
		fail "pkg-config --static autotune-select"
	cc -o "$tmp/sel_static" "$tmp/sel.c" $(echo "$pc" | sed 's/-lautotune_select/-l:libautotune_select.a/') &&
		"$tmp/sel_static" "$tmp/sel.t4.json" || fail "a program linked with the installed libautotune_select.a: $pc"
	# the library's helpers are its own: a program with a function of one of their names links with
	# the archive and still runs
	printf 'int select_say(void) { return 0; }\nint select_t4_load(void) { return 0; }\n' >"$tmp/clash.c"
	cc -o "$tmp/sel_clash" "$tmp/sel.c" "$tmp/clash.c" $(echo "$pc" | sed 's/-lautotune_select/-l:libautotune_select.a/') &&
		"$tmp/sel_clash" "$tmp/sel.t4.json" || fail "a program with its own select_say clashes with libautotune_select.a"
fi
if command -v nm >/dev/null 2>&1; then
	extra=$(nm -D --defined-only "$prefix/lib/libautotune_select.so" | awk '$3 !~ /^autotune_/ {print $3}')
	[ -z "$extra" ] || fail "libautotune_select.so exports more than autotune_*: $extra"
fi

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
	[ -s results/summatrix.dry-run.csv ] || fail "no results/summatrix.dry-run.csv (a dry run's CSV)"
fi
MANWIDTH=80 man -l "$prefix/share/man/man1/autotune.1" >/dev/null 2>&1 ||
	! command -v man >/dev/null || fail "man -l of the installed page"
cd "$top"

# A throwaway CMake project finds the installed package by its prefix alone, with the version
# autotune reports, and builds a C program against a header from the sample results.
cmake_ok="no cmake"
if command -v cmake >/dev/null 2>&1; then
	mkdir "$tmp/cmake"
	cp examples/summatrix_app/sample/summatrix.csv "$tmp/cmake/"
	printf '#include "summatrix_tuned.h"\nint main(void) { return SUMMATRIX_BLOCK_X > 0 ? 0 : 1; }\n' >"$tmp/cmake/main.c"
	version=$("$prefix/bin/autotune" --version | sed 's/^autotune //')
	cat >"$tmp/cmake/CMakeLists.txt" <<EOF
cmake_minimum_required(VERSION 3.20)
project(installed C)
find_package(Autotune $version CONFIG REQUIRED)
if(NOT Autotune_VERSION STREQUAL "$version" OR NOT AUTOTUNE_EXECUTABLE STREQUAL "$prefix/bin/autotune")
  message(FATAL_ERROR "Autotune \${Autotune_VERSION} with \${AUTOTUNE_EXECUTABLE}")
endif()
add_executable(app main.c)
autotune_tuned_header(TARGET app CONFIG "$prefix/share/autotune/configs/summatrix.yaml" RESULTS summatrix.csv)
add_executable(sel "$tmp/sel.c")
target_link_libraries(sel Autotune::select)
EOF
	out=$(cmake -S "$tmp/cmake" -B "$tmp/cmake/build" -DCMAKE_PREFIX_PATH="$prefix" 2>&1) ||
		fail "find_package(Autotune $version CONFIG REQUIRED) with the installed prefix: $out"
	out=$(cmake --build "$tmp/cmake/build" 2>&1) || fail "a build with the installed package: $out"
	"$tmp/cmake/build/app" && [ -f "$tmp/cmake/build/autotune/summatrix.nvcc-flags" ] ||
		fail "the installed package's tuned header and flags"
	"$tmp/cmake/build/sel" "$tmp/sel.t4.json" || fail "a program linked with Autotune::select"
	cmake_ok="find_package"
fi

$MAKE -s --no-print-directory uninstall PREFIX="$prefix" >/dev/null
left=$(find "$prefix" -type f)
[ -z "$left" ] || fail "left behind after uninstall: $left"

$MAKE -s --no-print-directory install DESTDIR="$tmp/stage" PREFIX=/usr/local >/dev/null
[ -x "$tmp/stage/usr/local/bin/autotune" ] && [ -f "$tmp/stage/usr/local/share/autotune/kernels/reduce.cu" ] ||
	fail "DESTDIR install"
$MAKE -s --no-print-directory uninstall DESTDIR="$tmp/stage" PREFIX=/usr/local >/dev/null
left=$(find "$tmp/stage" -type f)
[ -z "$left" ] || fail "left behind after DESTDIR uninstall: $left"
echo "install test: ok (install, validate, worker found, dry run, $cmake_ok, uninstall, DESTDIR)"
