#!/usr/bin/env bash
# bench/same_outputs.sh: whether a refactor changed what autotune writes. Builds REV (default: the
# merge base with HEAD's first parent, or give one) in a temporary worktree, then with both
# builds: dry runs of every shipped config of REV (compiled by tests/fake_nvcc.c, so no CUDA
# toolkit or GPU is needed and both see the same compiler) and seeded replays (--budget 10%
# --seed 3) of every recording in tests/data that has a config. Prints, per CSV, the columns
# whose values differ in some row (build/csv_same: columns only one side has are listed apart, a
# new column being a feature, not a change) and whether each replay's sequence is byte-identical.
# Run from the repository root after `make all build/fake_nvcc build/csv_same`. No GPU.
set -euo pipefail
REV=${1:-HEAD~1}
top=$(pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/autotune-same-XXXXXX")
trap 'git -C "$top" worktree remove --force "$tmp/base" >/dev/null 2>&1 || true; rm -rf "$tmp"' EXIT
git worktree add -q --detach "$tmp/base" "$REV"
make -s -C "$tmp/base" autotune >/dev/null
run() { # run TREE OUT: the dry runs and replays of TREE's autotune, over REV's configs and data
	local tree=$1 out=$2
	mkdir -p "$out/work"
	cp -r "$tmp/base/configs" "$tmp/base/kernels" "$out/work/"
	(cd "$out/work" &&
		for c in configs/*.yaml; do
			NVCC="$top/build/fake_nvcc" "$tree/autotune" -q --dry-run --arch sm_90 --cache-dir "$out/cache" "$c" \
				>/dev/null 2>&1 || echo "$c: dry run exit $?" >&2
		done
		for r in "$tmp"/base/tests/data/*_h100.csv; do
			n=$(basename "$r" _h100.csv)
			[ -f "configs/$n.yaml" ] || continue
			"$tree/autotune" --replay "$r" --budget 10% --seed 3 "configs/$n.yaml" >/dev/null 2>&1 ||
				echo "$n: replay exit $?" >&2
		done)
}
run "$tmp/base" "$tmp/a"
run "$top" "$tmp/b"
status=0
for f in "$tmp"/a/work/results/*.csv; do
	n=$(basename "$f")
	if [ ! -f "$tmp/b/work/results/$n" ]; then
		echo "$n: not written after"
		status=1
	elif [[ $n == *.replay.csv ]]; then
		cmp -s "$f" "$tmp/b/work/results/$n" && echo "$n: byte-identical" || { echo "$n: DIFFERS"; status=1; }
	else
		"$top/build/csv_same" "$f" "$tmp/b/work/results/$n" || status=1
	fi
done
exit $status
