#!/bin/sh
# tests/readme.sh: the README's five minutes without a GPU, followed as written. The ```sh blocks
# that a `<!-- tests/readme.sh runs this block ... -->` line marks run, in the order they stand,
# in a copy of the checkout's files (what a new clone has: tracked and unignored files, no build),
# with no worker, make flags or cache of this machine's in the environment. They must end with a
# tuned header and a program built from it, on the stand-in worker, which the README labels as
# made-up timings. Run from the repository root (`make integration` does); needs git and nvcc.
set -eu
NVCC=${NVCC:-${CUDA_HOME:-/usr/local/cuda}/bin/nvcc}
fail() { echo "README test: FAILED: $*" >&2; exit 1; }
if ! command -v "$NVCC" >/dev/null 2>&1; then
	echo "SKIPPED: no nvcc (tests/readme.sh: the README's five minutes without a GPU)"
	exit 0
fi
if ! git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	echo "SKIPPED: not a git checkout (tests/readme.sh copies what a clone has)"
	exit 0
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/autotune-readme-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/clone"
git ls-files -z --cached --others --exclude-standard | tar -cf - --null -T - | tar -xf - -C "$tmp/clone"
[ ! -e "$tmp/clone/autotune" ] && [ ! -e "$tmp/clone/build" ] || fail "the copy holds build outputs"

# the marked blocks, as written
awk '/^<!-- tests\/readme\.sh runs this block/ { marked = 1; next }
	marked && /^```sh$/ { inside = 1; marked = 0; blocks++; next }
	inside && /^```$/ { inside = 0; next }
	inside { print }
	END { if (blocks < 2) exit 1 }' README.md >"$tmp/steps.sh" || fail "fewer than two blocks marked for tests/readme.sh in README.md"
grep -q '^AUTOTUNE_WORKER=' "$tmp/steps.sh" || fail "no marked block tunes on the stand-in worker: $(cat "$tmp/steps.sh")"
# the stand-in is labelled for what it is where the README offers it
grep -q '^\*\*Try it without a GPU\.\*\*.*stand-in' README.md && grep -q '\*\*made-up timings\*\*' README.md ||
	fail "README.md does not label the stand-in worker's made-up timings"

start=$(date +%s)
(cd "$tmp/clone" && env -u AUTOTUNE_WORKER -u MAKEFLAGS -u MFLAGS -u MAKELEVEL XDG_CACHE_HOME="$tmp/cache" \
	sh -e -x "$tmp/steps.sh" >"$tmp/log" 2>&1) || { tail -40 "$tmp/log" >&2; fail "the README's commands (above)"; }
elapsed=$(($(date +%s) - start))

h=$tmp/clone/examples/saxpy/results/saxpy_tuned.h
[ -f "$h" ] || fail "no examples/saxpy/results/saxpy_tuned.h"
grep -q '^#define SAXPY_BLOCK [0-9][0-9]*$' "$h" && grep -q '^#define SAXPY_ITEMS [0-9][0-9]*$' "$h" ||
	fail "the header has no winner: $(cat "$h")"
grep -q '^#define SAXPY_TUNED_DEVICE "Fake GPU"$' "$h" || fail "the header does not name the stand-in's GPU"
grep -q '^#define SAXPY_COMPLETE 1$' "$h" || fail "the header is of an incomplete run"
[ -x "$tmp/clone/examples/saxpy/saxpy" ] || fail "no examples/saxpy/saxpy built from the header"
grep -q '^saxpy: tuned: saxpy in saxpy' "$tmp/log" || fail "autotune check did not find the tuned kernel in ./saxpy"
grep -q '^#define SAXPY_BLOCK' "$tmp/log" || fail "the README's last step did not show the header"
echo "README test: ok (a copy of the checkout, built and tuned on the stand-in worker as the README says, in ${elapsed} s)"
