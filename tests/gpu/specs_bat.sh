#!/usr/bin/env bash
# The published BAT specs on the GPU (make test-gpu, from tests/gpu.sh's mirror): each of the 9
# CUDA specs of tests/t1/published/bat imported and tuned as a user would (`autotune import`, then
# `autotune --budget B`, a cold cache of its own), then its verdicts checked against an independent
# reference (tests/t1/ref/bat_*_ref.c, verify.host): the same configurations (random search, the
# same seed and budget) run once with the imported verification and once with the C reference must
# get the same ok / wrong-result. Where the spec itself is wrong, the expected verdict and the fix:
# TRIAD declares a double for the kernel's float (exit 2 naming it; declared float, it tunes),
# pnpoly passes 4 arguments for 3 parameters (exit 2), nbody's USE_SOA=1 reads SoA arrays filled
# with other bodies and hotspot's output is a function of BLOCK_SIZE_X/Y and
# TEMPORAL_TILING_FACTOR (each verified against a reference of its own: verify.reference_per).
# Prints a table; exit 1 on the first check that fails when SPECS_STRICT=1, else at the end.
set -uo pipefail
B=build/tests
mkdir -p "$B"
cc -std=c11 -O2 -Wall -Wextra -Werror -o "$B/specs_csv" tests/gpu/specs_csv.c || exit 1
CSV=$B/specs_csv
W=$(mktemp -d "${TMPDIR:-/tmp}/specs-bat-XXXXXX")
LOGS=${SPECS_LOGS:-$W}
mkdir -p "$LOGS"
CACHE=$W/cache
REF=$(pwd)/tests/t1/ref
# -fno-math-errno: sqrtf is an instruction, not a call into libm, in the reference the worker loads
HOSTFLAGS="[-O3, -march=native, -fopenmp, -fno-math-errno]"
failed=0
table=""
bad() {
	echo "FAIL: $*" >&2
	failed=1
	[ "${SPECS_STRICT:-0}" = 1 ] && exit 1
}
row() { table="$table$1"$'\n'; }

# yaml_as SRC NAME [VERIFY...]: SRC renamed NAME, its verify block replaced by the lines given
# (kept when none are), written to $W/NAME.yaml
yaml_as() {
	local src=$1 name=$2
	shift 2
	awk -v name="$name" -v replace=$# '
		/^name:/ { print "name: " name; next }
		/^verify:/ && replace { skip = 1; next }
		skip && /^[^ #]/ { skip = 0 }
		skip && /^ / { next }
		{ print }' "$src" > "$W/$name.yaml"
	if [ $# -gt 0 ]; then
		echo "verify:" >> "$W/$name.yaml"
		for line in "$@"; do echo "  $line" >> "$W/$name.yaml"; done
	fi
}

# tune NAME ARGS...: autotune on $W/NAME.yaml with the cold cache; sets rc and wall
tune() {
	local name=$1
	shift
	local t0=$(date +%s.%N)
	./autotune --cache-dir "$CACHE" "$@" "$W/$name.yaml" > "$LOGS/$name.log" 2>&1
	rc=$?
	wall=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
	# what went wrong, where it went wrong: the log's last lines
	[ "$rc" -le 1 ] && [ -f "results/$name.csv" ] ||
		tail -n 4 "$LOGS/$name.log" | cut -c1-400 | sed "s/^/  [$name, exit $rc] /"
}

# user SPEC BUDGET: import, then tune as a user would; sets name, rc, wall, counts, winner
user() {
	local spec=$1 budget=$2
	./autotune import "tests/t1/published/bat/$spec-CAFF.json" -o "$W/$spec.yaml" > "$LOGS/$spec.import.log" 2>&1 ||
		{ bad "$spec: import"; return 1; }
	name=$(sed -n 's/^name: //p' "$W/$spec.yaml")
	yaml_as "$W/$spec.yaml" "$name"
	tune "$name" --budget "$budget"
	urc=$rc uwall=$wall
	counts=$( [ -f "results/$name.csv" ] && "$CSV" counts "results/$name.csv")
	winner=$( [ -f "results/$name.csv" ] && "$CSV" winner "results/$name.csv" | cut -d, -f1)
	echo "$spec: exit $rc, $wall s, ${counts:-nothing measured}; winner ${winner:-none}"
}

# pair SPEC BUDGET VERIFY...: the imported config and the one verified by VERIFY, the same
# configurations (random search, seed 1); sets agree (the comparison's last line)
pair() {
	local spec=$1 budget=$2
	shift 2
	yaml_as "$W/$spec.yaml" "${name}_a"
	yaml_as "$W/$spec.yaml" "${name}_b" "$@"
	tune "${name}_a" --strategy random --seed 1 --budget "$budget"
	tune "${name}_b" --strategy random --seed 1 --budget "$budget"
	agree=$("$CSV" compare "results/${name}_a.csv" "results/${name}_b.csv" 2>&1)
	local arc=$?
	echo "$agree" | sed "s/^/  $spec: /"
	agree=$(echo "$agree" | tail -1)
	[ $arc -eq 0 ] || { bad "$spec: the independent reference disagrees"; agree="NO: $agree"; }
}

host() { echo "host: {source: $REF/$1, function: ${2:-${1%.c}}, flags: ${3:-$HOSTFLAGS}}"; }

echo "== BAT's published specs, imported and tuned (work in $W)"
# SPECS_BAT_ONLY="FFT TRIAD": those specs alone
only() { [ -z "${SPECS_BAT_ONLY:-}" ] || [[ " $SPECS_BAT_ONLY " == *" $1 "* ]]; }
for spec in GEMM:48 convolution:24 MD5Hash:32 builtin_vectors:32 FFT:24; do
	s=${spec%%:*} budget=${spec#*:}
	only "$s" || continue
	user "$s" "$budget" || continue
	[ "$rc" -eq 0 ] && [ "$winner" != none ] || bad "$s: no verified winner (exit $rc)"
	case $s in
	GEMM) pair GEMM 12 "$(host bat_gemm_ref.c)" "rtol: 1e-5" "atol: 1e-5" ;;
	convolution) pair convolution 8 "$(host bat_convolution_ref.c)" "rtol: 1e-5" "atol: 1e-5" ;;
	MD5Hash) pair MD5Hash 12 "$(host bat_md5hash_ref.c)" ;;
	builtin_vectors) pair builtin_vectors 16 "$(host bat_builtin_vectors_ref.c)" "rtol: 1e-12" "atol: 0" ;;
	FFT)
		# 8e11 configurations: a run draws a uniform sample with the reference first, so a run
		# verified by the C reference (no reference run) samples other configurations, and the
		# two share none: each configuration it measures must be ok by the reference instead
		yaml_as "$W/FFT.yaml" "${name}_b" "$(host bat_fft_ref.c)" "rtol: 1e-3" "atol: 2e-2"
		tune "${name}_b" --strategy random --seed 1 --budget 12
		agree=$("$CSV" counts "results/${name}_b.csv")
		[ "$rc" -eq 0 ] && [ "$agree" = "ok=12" ] || { bad "FFT: by the independent reference: exit $rc, $agree"; agree="NO: $agree"; }
		agree="another sample of 12, by the C reference: $agree" ;;
	esac
	row "| $s | $budget | $uwall s | $counts | ${winner:-none} | $agree |"
done

echo "== nbody: USE_SOA=1 reads the SoA arrays, which the spec fills with other bodies"
only nbody && user nbody 5% && {
	[ "$rc" -eq 0 ] || bad "nbody: exit $rc"
	pair nbody 16 "$(host bat_nbody_ref.c)" "rtol: 1e-3" "atol: 1e-3"
	# the configurations that were wrong are right for the bodies they read
	"$CSV" group "results/${name}_a.csv" USE_SOA=0 || bad "nbody: USE_SOA=0 not all ok"
	yaml_as "$W/nbody.yaml" "${name}_soa" "$(host bat_nbody_ref.c bat_nbody_soa_ref)" "rtol: 1e-3" "atol: 1e-3"
	tune "${name}_soa" --strategy random --seed 1 --budget 16
	"$CSV" group "results/${name}_soa.csv" USE_SOA=1 || bad "nbody: USE_SOA=1 not ok by the SoA reference"
	yaml_as "$W/nbody.yaml" "${name}_per" "reference_per: [USE_SOA]" "rtol: 1e-5" "atol: 1e-6"
	tune "${name}_per" --strategy random --seed 1 --budget 16
	per=$("$CSV" counts "results/${name}_per.csv")
	case $per in *wrong-result*) bad "nbody: wrong-result with reference_per: [USE_SOA]: $per" ;; esac
	grep 'reference_per' "$LOGS/$name.log" | cut -c1-400
	grep -q 'whose USE_SOA differs from the reference.s (USE_SOA=0).*verify: {reference_per: \[USE_SOA\]}' "$LOGS/$name.log" ||
		bad "nbody: the run does not name USE_SOA and the fix"
	row "| nbody | 5% | $uwall s | $counts | ${winner:-none} | $agree; USE_SOA=1 ok by the SoA reference; with reference_per: $per |"
}

echo "== hotspot: the output depends on BLOCK_SIZE_X, BLOCK_SIZE_Y and TEMPORAL_TILING_FACTOR"
only hotspot && user hotspot 64 && {
	[ "$rc" -le 1 ] || bad "hotspot: exit $rc"
	# the cause, when this run's configurations show it alone (a small sample may not)
	grep 'reference_per' "$LOGS/$name.log" | cut -c1-400
	yaml_as "$W/hotspot.yaml" "${name}_a"
	tune "${name}_a" --strategy random --seed 1 --budget 16
	ref=$("$CSV" values "results/${name}_a.csv" ok BLOCK_SIZE_X BLOCK_SIZE_Y TEMPORAL_TILING_FACTOR)
	wrong=$("$CSV" values "results/${name}_a.csv" wrong-result BLOCK_SIZE_X BLOCK_SIZE_Y TEMPORAL_TILING_FACTOR)
	echo "  hotspot: the reference's group $ref; a wrong-result's $wrong"
	hs() { set -- $1; echo "[-O2, -DBSX=${1:-0}, -DBSY=${2:-0}, -DSTEPS=${3:-0}]"; }
	[ -n "$ref" ] || bad "hotspot: no ok configuration to take the reference's group from"
	yaml_as "$W/hotspot.yaml" "${name}_b" "$(host bat_hotspot_ref.c bat_hotspot_ref "$(hs "$ref")")" "rtol: 1e-4" "atol: 1e-3"
	tune "${name}_b" --strategy random --seed 1 --budget 16
	agree=$("$CSV" compare "results/${name}_a.csv" "results/${name}_b.csv")
	echo "$agree" | sed 's/^/  hotspot: /'
	agree=$(echo "$agree" | tail -1)
	[ -n "$ref" ] && "$CSV" compare "results/${name}_a.csv" "results/${name}_b.csv" > /dev/null ||
		{ bad "hotspot: the independent reference disagrees"; agree="NO: $agree"; }
	if [ -n "$wrong" ]; then
		set -- $wrong
		yaml_as "$W/hotspot.yaml" "${name}_own" "$(host bat_hotspot_ref.c bat_hotspot_ref "$(hs "$wrong")")" "rtol: 1e-4" "atol: 1e-3"
		tune "${name}_own" --strategy random --seed 1 --budget 16
		"$CSV" group "results/${name}_own.csv" BLOCK_SIZE_X=$1 BLOCK_SIZE_Y=$2 TEMPORAL_TILING_FACTOR=$3 ||
			bad "hotspot: a wrong-result is not right for its own parameters"
	fi
	yaml_as "$W/hotspot.yaml" "${name}_per" "reference_per: [BLOCK_SIZE_X, BLOCK_SIZE_Y, TEMPORAL_TILING_FACTOR]" "rtol: 1e-5" "atol: 1e-6"
	tune "${name}_per" --strategy random --seed 1 --budget 16
	per=$("$CSV" counts "results/${name}_per.csv")
	case $per in *wrong-result*) bad "hotspot: wrong-result with reference_per: $per" ;; esac
	row "| hotspot | 64 | $uwall s | $counts | ${winner:-none} | $agree; a wrong-result ok by its own parameters' reference; with reference_per: $per |"
}

echo "== TRIAD: a double for the kernel's float"
only TRIAD && user TRIAD 2% && {
	[ "$rc" -eq 2 ] || bad "TRIAD: exit $rc, not 2"
	grep -q "argument 's' is a scalar double (8 bytes), but parameter 4 of kernel 'triad' takes 4 bytes: an int32, uint32 or float value: declare 's' with the type the kernel gives parameter 4" "$LOGS/$name.log" ||
		bad "TRIAD: the refusal does not name 's' and the fix"
	grep -q "PRECISION" "$LOGS/TRIAD.import.log" || bad "TRIAD: the import does not say PRECISION=32 makes it float"
	sed 's/type: double/type: float/' "$W/TRIAD.yaml" > "$W/TRIAD_declared_float.yaml"
	yaml_as "$W/TRIAD_declared_float.yaml" TRIAD_float "$(host bat_triad_ref.c)" "rtol: 0" "atol: 0"
	tune TRIAD_float --strategy random --seed 1 --budget 16
	fixed=$("$CSV" counts results/TRIAD_float.csv)
	[ "$rc" -eq 0 ] && [ "$fixed" = "ok=16" ] || bad "TRIAD declared float: exit $rc, $fixed"
	row "| TRIAD | 2% | $uwall s | exit $urc | none | declared float: $fixed by the independent reference |"
}

echo "== pnpoly: 4 arguments for 3 parameters"
only pnpoly && user pnpoly 2% && {
	[ "$rc" -eq 2 ] || bad "pnpoly: exit $rc, not 2"
	grep -q "argument 'vertex_xy' is an array (an 8-byte pointer), but parameter 3 of kernel 'cn_pnpoly' takes 4 bytes" "$LOGS/$name.log" || bad "pnpoly: the refusal does not name 'vertex_xy'"
	row "| pnpoly | 2% | $uwall s | exit $urc | none | (the spec passes vertex_xy, BAT's constant d_vertices, as an argument) |"
}

echo
echo "| spec | budget | wall | measured | winner (ms) | independent reference |"
echo "|---|---|---|---|---|---|"
printf '%s' "$table"
rm -rf "$W/cache"
if [ "$failed" -eq 0 ]; then
	[ "$LOGS" = "$W" ] && rm -rf "$W"
	echo "PASS: BAT's published specs"
else
	echo "FAIL: BAT's published specs (configs and logs in $W)"
fi
exit $failed
