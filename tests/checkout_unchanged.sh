#!/bin/sh
# tests/checkout_unchanged.sh save FILE | check FILE: `make test` saves what the checkout holds
# before the tests and checks it after them. The tests write only under temporary directories: a
# user's measured results in results/ must come out byte for byte as they went in, and no other
# file of the checkout may appear, change or go (build outputs aside). Run from the repository root.
set -eu
fail() { echo "checkout test: FAILED: $*" >&2; exit 1; }
# results/: every entry with its type, and every file's bytes; the rest: what git sees changed or
# unknown (where this is a git checkout), without what `make` builds
state() {
	find results | LC_ALL=C sort | while IFS= read -r p; do
		if [ -f "$p" ] && [ ! -L "$p" ]; then
			printf '%s %s\n' "$(cksum <"$p")" "$p"
		else
			printf '%s %s\n' "$(stat -c %F "$p")" "$p"
		fi
	done
	if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
		git status --porcelain --ignored --untracked-files=all -- . ':!build' ':!results' ':!autotune' \
			':!autotune-worker'
	fi
}
case ${1:-} in
save) state >"$2" ;;
check)
	now=$(mktemp "${TMPDIR:-/tmp}/autotune-checkout-XXXXXX")
	trap 'rm -f "$now"' EXIT
	state >"$now"
	diff "$2" "$now" >&2 || fail "the tests changed the checkout (above: < before, > after)"
	rm -f "$2"
	echo "checkout test: ok (results/ byte-identical, nothing else in the checkout changed)"
	;;
*) fail "usage: $0 save FILE | check FILE" ;;
esac
