#!/usr/bin/env bash
# bench/record.sh: records the search benchmark's own spaces (bench/spaces/gs_axpy, blur and
# histogram: 3,840, 2,184 and 2,800 configurations of launch geometry and run-time arguments, 2
# or 3 binaries each) exhaustively on GPU 0, each into $OUT/NAME_GPU.csv (GPU: h100, h200, ...
# from the device's name), ready for tests/data and bench/anytime.sh. Each run's log goes to
# $OUT/NAME.log; a space that fails is said and the others still run (exit 1 at the end).
# Run from the repository root after `make`; one device call: about 2-4 minutes on an H200.
set -uo pipefail
OUT=${OUT:-/tmp}
top=$(pwd)
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader -i 0 | grep -o -i -E '[A-Z][0-9]{2,3}' | head -1 | tr A-Z a-z)
gpu=${gpu:-gpu}
work=$(mktemp -d)
status=0
for cfg in ${SPACES:-bench/spaces/gs_axpy.yaml bench/spaces/blur.yaml bench/spaces/histogram.yaml}; do
	name=$(basename "$cfg" .yaml)
	start=$(date +%s)
	# results go under the current directory: a scratch one, so the checkout's results/ stay the user's
	if (cd "$work" && "$top/autotune" --fresh -q -d 0 --cache-dir "$work/cache" "$top/$cfg") > "$OUT/$name.log" 2>&1 &&
		cp "$work/results/$name.csv" "$OUT/${name}_$gpu.csv"; then
		ok=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "status") s = i; next } $s == "ok"' "$OUT/${name}_$gpu.csv" | wc -l)
		echo "$name: $ok configurations passed, $(($(date +%s) - start)) s, $OUT/${name}_$gpu.csv" >&2
	else
		echo "$name: failed after $(($(date +%s) - start)) s (its log: $OUT/$name.log)" >&2
		tail -5 "$OUT/$name.log" >&2
		status=1
	fi
done
rm -rf "$work"
exit $status
