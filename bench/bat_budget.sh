#!/bin/sh
# bench/bat_budget.sh: BAT's GEMM, convolution, nbody and pnpoly specs, as BAT publishes them
# (tests/t1/published/bat, MIT, with their kernels), imported and searched on the GPU with
# `--budget 2%`. Per spec: the configurations measured, their statuses, and how many were verified
# (ok: outputs equal to the reference's, Default's where it is a configuration of the space). Every
# measured configuration is verified or has a status that says why. Run from the repository root
# after `make`; OUT (default /tmp/bat_budget) holds the configs and logs.
set -u
OUT=${OUT:-/tmp/bat_budget}
mkdir -p "$OUT" || exit 2
STATUSES="ok compile-error launch-error wrong-result crashed timeout"
fail=0
for s in GEMM convolution nbody pnpoly; do
	name=${s}_CAFF
	./autotune import "tests/t1/published/bat/$s-CAFF.json" -o "$OUT/$s.yaml" 2>"$OUT/$s.import.log" ||
		{ echo "$s: import failed (see $OUT/$s.import.log)"; fail=1; continue; }
	start=$(date +%s)
	./autotune --fresh -q --budget 2% "$OUT/$s.yaml" 2>"$OUT/$s.log"
	rc=$?
	wall=$(($(date +%s) - start))
	csv=results/$name.csv
	[ -f "$csv" ] || { echo "$s: no $csv (exit $rc, see $OUT/$s.log)"; fail=1; continue; }
	# the status is a bare field of its record; a quoted message that follows may span lines
	line=""
	measured=0
	for st in $STATUSES; do
		n=$(grep -c "^[^\"]*,$st," "$csv")
		[ "$n" -gt 0 ] && line="$line $st=$n"
		measured=$((measured + n))
	done
	valid=$(($(grep -c '^[^"]*,not-run,' "$csv") + measured))
	verified=$(grep -c "^[^\"]*,ok," "$csv")
	echo "$s: exit $rc, ${wall} s: $measured of $valid configurations measured:$line; $verified verified"
	[ "$rc" -le 1 ] || fail=1
done
exit $fail
