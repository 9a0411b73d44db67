#!/usr/bin/env bash
# tests/gpu/specs_more.sh: the published CUDA specs of benchmark_hub, Kernel Tuner and KTT on the
# GPU (make test-gpu; tests/gpu.sh runs it in its mirror of the checkout, whose results/ are its
# own). Each spec is imported and tuned as a user would (`autotune import`, then `autotune
# --budget B`, from a cold cubin cache of its own). Then every configuration it measured is
# measured again against an independent reference (tests/t1/ref/, a C function given as
# verify.host), one run per value of the parameters that change what the kernel computes (the
# reference computes one problem), and the verdicts are matched: a configuration autotune calls
# ok must be ok by the reference; one it calls wrong-result must be wrong by the reference too,
# or else be explained (it computes another problem than the configuration it was compared with).
# Ends with a table. SPECS_MORE_KEEP=DIR keeps the imports, logs and CSVs there;
# SPECS_MORE_ONLY=NAME runs that spec alone.
set -euo pipefail
fail() { echo "FAIL: $*" >&2; exit 1; }
B=build/tests
mkdir -p "$B"
cc -std=c11 -O2 -Wall -Wextra -Werror -o "$B/specs_rows" tests/gpu/specs_rows.c
work=${SPECS_MORE_KEEP:-$(mktemp -d "${TMPDIR:-/tmp}/autotune-specs-XXXXXX")}
mkdir -p "$work"
[ -n "${SPECS_MORE_KEEP:-}" ] || trap 'rm -rf "$work"' EXIT
cache="$work/cubins" # cold: the user's first run
REF=$(pwd)/tests/t1/ref
HOSTFLAGS="-O3, -march=native, -fopenmp"
mkdir -p "$work/src"
cp -r tests/t1/published/benchmark_hub tests/t1/published/kernel_tuner tests/t1/published/ktt "$work/src/"
# KTT's tutorial reads b from ArgumentData.bin, which is not in KTT's stored snapshot: b[i] = i is
# what the spec's own reference, result = 2 i + 3 = a + b + scalar with a[i] = i, implies.
cat > "$B/argdata.c" <<'C'
#include <stdio.h>
int main(int argc, char **argv)
{
	FILE *f = argc == 2 ? fopen(argv[1], "wb") : NULL;
	for (int i = 0; f && i < 1048576; i++) {
		float v = (float)i;
		fwrite(&v, sizeof v, 1, f);
	}
	return !f || fclose(f);
}
C
cc -std=c11 -O2 -o "$B/argdata" "$B/argdata.c"
"$B/argdata" "$work/src/ktt/ArgumentData.bin"

: > "$work/table"
# tune NAME SPEC BUDGET [EDIT]: imports SPEC (under $work/src) as NAME, applies the function
# EDIT to the imported YAML when given, tunes it; sets rc and wall.
tune() {
	local name=$1 spec=$2 budget=$3 edit=${4:-}
	echo "== $name: import $spec, tune with --budget $budget (cold cache)"
	spec_of=$spec
	rc=0
	./autotune import "$work/src/$spec" -o "$work/$name.yaml" 2> "$work/$name.import.log" || rc=$?
	[ "$rc" -eq 0 ] || { cat "$work/$name.import.log"; fail "$name: import exited $rc"; }
	sed -i "s/^name: .*/name: $name/" "$work/$name.yaml"
	[ -z "$edit" ] || "$edit" "$work/$name.yaml"
	rm -f "results/$name.csv" "results/$name.journal"
	local t0=$(date +%s.%N)
	rc=0
	./autotune --cache-dir "$cache" --budget "$budget" "$work/$name.yaml" > "$work/$name.log" 2>&1 < /dev/null || rc=$?
	wall=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.0f", b - a }')
	tail -4 "$work/$name.log"
	[ -f "results/$name.csv" ] || fail "$name: no CSV (exit $rc)"
	# the configurations measured (a CSV may also list those a search never reached, not-run)
	"$B/specs_rows" "results/$name.csv" > "$work/$name.all" || fail "$name: unreadable CSV"
	awk -F'\t' '$2 != "not-run"' "$work/$name.all" > "$work/$name.rows"
	echo "$name: exit $rc, $wall s, $(wc -l < "$work/$name.rows") measured"
}

# statuses NAME: "76 ok, 8 compile-error, ..."
statuses() {
	cut -f2 "$work/$1.rows" | sort | uniq -c | sort -rn | awk '{ printf("%s%s %s", NR > 1 ? ", " : "", $1, $2) }'
}

# winner NAME: the winner's parameters and time, or "none"
winner() {
	awk -F'\t' '$3 ~ /winner/ { printf "%s: %s ms", $1, $4; found = 1 } END { if (!found) printf "none" }' "$work/$1.rows"
}

# group_of "PARAMS" "P1 P2": the values of P1, P2 in a row's parameters, as "P1=v P2=w"
group_of() {
	local out="" p
	for p in $2; do
		out="$out${out:+ }$(tr ' ' '\n' <<< "$1" | grep "^$p=")"
	done
	echo "${out:-all}"
}

# pinned FILE: the configurations of the rows in FILE as one constraint, (A == 1 && B == 2) || ...
pinned() {
	local cons="" params
	while IFS=$'\t' read -r params _; do
		cons="$cons${cons:+ || }($(sed 's/=/ == /g; s/ \([A-Za-z_][A-Za-z0-9_]*\) == / \&\& \1 == /g' <<< "$params"))"
	done < "$1"
	echo "$cons"
}

# ref_run NAME CNAME ROWS SOURCE FUNCTION "DEFINES" RTOL ATOL [EDIT]: NAME's imported config
# as CNAME, its verify SOURCE's FUNCTION built with DEFINES (", -DX=1, ..."), its space the
# configurations of ROWS, edited by EDIT when given; measured, its rows in $work/CNAME.rows.
ref_run() {
	local name=$1 cname=$2 rows=$3 src=$4 fn=$5 defs=$6 rtol=$7 atol=$8 edit=${9:-}
	local yaml="$work/$cname.yaml" crc=0
	awk -v name="$cname" -v cons="$(pinned "$rows")" '
		/^name:/ { print "name: " name; next }
		/^verify:/ { skip = 1; next }
		skip && /^[ ]/ { next }
		{ skip = 0 }
		/^constraints:/ { print; print "  - \"" cons "\""; done = 1; next }
		{ print }
		END { if (!done) { print "constraints:"; print "  - \"" cons "\"" } }' "$work/$name.yaml" > "$yaml"
	cat >> "$yaml" <<Y
verify:
  host: {source: "$REF/$src", function: $fn, flags: [$HOSTFLAGS$defs]}
  rtol: $rtol
  atol: $atol
Y
	[ -z "$edit" ] || "$edit" "$yaml"
	rm -f "results/$cname.csv" "results/$cname.journal"
	./autotune --cache-dir "$cache" "$yaml" > "$work/$cname.log" 2>&1 < /dev/null || crc=$?
	[ -f "results/$cname.csv" ] || { tail -20 "$work/$cname.log"; fail "$cname exited $crc, no CSV"; }
	"$B/specs_rows" "results/$cname.csv" > "$work/$cname.rows"
}

# check NAME SOURCE FUNCTION "PROBLEM PARAMS" RTOL ATOL MAXGROUPS [EDIT]: measures NAME's ok and
# wrong-result configurations again against SOURCE's FUNCTION (verify.host), one run per value of
# the problem parameters (those of the configurations autotune verified, and at most MAXGROUPS
# others), the YAML edited by the function EDIT when given; matches the verdicts and appends
# NAME's row to the table.
check() {
	local name=$1 src=$2 fn=$3 probs=$4 rtol=$5 atol=$6 maxg=$7 edit=${8:-}
	local rows="$work/$name.rows" joined="$work/$name.checked"
	: > "$joined"
	awk -F'\t' '$2 == "ok" || $2 == "wrong-result"' "$rows" > "$work/$name.cmp"
	# the reference's problem: every group with a configuration autotune verified
	local refg="" others=0 g line
	while IFS=$'\t' read -r params st _; do
		[ "$st" = ok ] && refg="$refg|$(group_of "$params" "$probs")|"
	done < "$work/$name.cmp"
	cut -f1 "$work/$name.cmp" | while read -r params; do group_of "$params" "$probs"; done | sort -u > "$work/$name.groups"
	local gi=0
	while read -r g; do
		if [[ "$refg" != *"|$g|"* ]]; then
			others=$((others + 1))
			[ "$others" -le "$maxg" ] || continue
		fi
		gi=$((gi + 1))
		local defs="" p
		[ "$g" = all ] || for p in $g; do defs="$defs, -D$p"; done
		while IFS=$'\t' read -r params rest; do
			[ "$(group_of "$params" "$probs")" != "$g" ] || printf '%s\t%s\n' "$params" "$rest"
		done < "$work/$name.cmp" > "$work/$name.g$gi"
		ref_run "$name" "${name}_ref$gi" "$work/$name.g$gi" "$src" "$fn" "$defs" "$rtol" "$atol" "$edit"
		cat "$work/${name}_ref$gi.rows" >> "$joined"
		echo "$name, $g: the reference says $(cut -f2 "$joined" | sort | uniq -c | tr '\n' ' ')(so far)"
	done < "$work/$name.groups"
	# match the verdicts
	local agree=0 other=0 unchecked=0 bad=0
	while IFS=$'\t' read -r params st _ _ msg; do
		local got
		got=$(awk -F'\t' -v p="$params" '$1 == p { print $2; exit }' "$joined")
		g=$(group_of "$params" "$probs")
		if [ -z "$got" ]; then
			[[ "$refg" != *"|$g|"* ]] || { echo "$name: $params: not measured against the reference"; bad=$((bad + 1)); }
			unchecked=$((unchecked + 1))
		elif [ "$got" = "$st" ]; then
			agree=$((agree + 1))
		elif [ "$st" = wrong-result ] && [ "$got" = ok ] && [[ "$refg" != *"|$g|"* ]]; then
			other=$((other + 1)) # right for its own problem, compared with another problem's
		else
			local why
			why=$(awk -F'\t' -v p="$params" '$1 == p { print $5; exit }' "$joined")
			echo "$name: $params: autotune says $st ($msg), the reference says $got ($why)"
			bad=$((bad + 1))
		fi
	done < "$work/$name.cmp"
	local verdict="yes"
	[ "$other" -eq 0 ] || verdict="$verdict; $other wrong only against $other_what"
	[ "$unchecked" -eq 0 ] || verdict="$verdict; $unchecked of other problems not re-measured"
	[ "$bad" -eq 0 ] || verdict="NO: $bad disagree"
	printf '| `%s` | %s | %s s | %s | %s | %s | %s |\n' "$spec_of$variant" "$budget_of" "$wall" "$(wc -l < "$rows")" \
		"$(statuses "$name")" "$(winner "$name")" "$verdict" >> "$work/table"
	[ "$bad" -eq 0 ] || fail "$name: $bad verdicts differ from the independent reference's"
}

# no_check NAME WHY: a spec whose run has nothing to compare; its table row
no_check() {
	printf '| `%s` | %s | %s s | %s | %s | %s | %s |\n' "$spec_of$variant" "$budget_of" "$wall" "$(wc -l < "$work/$1.rows")" \
		"$(statuses "$1")" "$(winner "$1")" "$2" >> "$work/table"
}

# every row of NAME has status ST and a message matching RE
all_are() {
	awk -F'\t' -v st="$2" -v re="$3" '$2 != st || $5 !~ re { print; bad = 1 } END { exit bad }' "$work/$1.rows" ||
		fail "$1: not every configuration is $2 matching /$3/"
}

# want NAME: whether NAME runs (all, unless SPECS_MORE_ONLY names one)
want() { [ -z "${SPECS_MORE_ONLY:-}" ] || [ "$SPECS_MORE_ONLY" = "$1" ]; }
variant=""
other_what="another problem's output"

# errors_explained NAME: every compile-error is ptxas's "too much shared data", every
# launch-error the registers of a block, and nothing else failed
errors_explained() {
	awk -F'\t' '$2 != "ok" && $2 != "wrong-result" && !($2 == "compile-error" && $5 ~ /too much shared data/) &&
		!($2 == "launch-error" && $5 ~ /OUT_OF_RESOURCES.*registers/) { print; bad = 1 } END { exit bad }' \
		"$work/$1.rows" || fail "$1: a failure that is neither shared memory nor registers"
}

# --- benchmark_hub convolution_milo: the kernel's shared tile is too large for some tiles
# (compile-error, ptxas) and some blocks take too many registers (launch-error); the rest verified
if want convolution_milo; then
	budget_of=24
	tune convolution_milo benchmark_hub/convolution_milo.json $budget_of
	[ "$rc" -eq 0 ] || fail "convolution_milo exited $rc"
	errors_explained convolution_milo
	check convolution_milo convolution_ref.c convolution_ref "" 1e-5 1e-6 0
fi

# --- benchmark_hub hotspot_milo: temporal_tiling_factor is how many time steps the kernel takes
# (another problem per value), and the spec's temp holds 4096^2 elements where the kernel reads
# the 4116^2 that the benchmark's own script allocates
hotspot_size() { # the inputs as the benchmark's script lays them out: 4116^2 with a border of 10
	sed -i '/name: temp,/s/count: "16777216"/count: "16941456"/' "$1"
}
if want hotspot_milo; then
	budget_of=24
	tune hotspot_milo benchmark_hub/hotspot_milo.json $budget_of
	[ "$rc" -eq 0 ] || fail "hotspot_milo exited $rc"
	other_what="the output of another temporal_tiling_factor (time steps)"
	check hotspot_milo hotspot_milo_ref.c hotspot_milo_ref "temporal_tiling_factor" 1e-5 1e-6 3 hotspot_size
	other_what="another problem's output"
	# On the spec's own 4096^2 temp, with what lies past it taken as 0 by the reference: every
	# configuration verified is right above output row 4066 - temporal_tiling_factor, the first
	# that reads past temp; below, it computes with whatever memory follows temp.
	awk -F'\t' '$2 == "ok"' "$work/hotspot_milo.rows" | head -6 > "$work/hotspot_milo.ok6"
	t=$(head -1 "$work/hotspot_milo.ok6" | tr ' \t' '\n\n' | sed -n 's/^temporal_tiling_factor=//p')
	grep -q "temporal_tiling_factor=$t " "$work/hotspot_milo.ok6" || fail "hotspot_milo: no verified configuration"
	grep "temporal_tiling_factor=$t " "$work/hotspot_milo.ok6" > "$work/hotspot_milo.past"
	ref_run hotspot_milo hotspot_milo_past "$work/hotspot_milo.past" hotspot_milo_ref.c hotspot_milo_ref \
		", -Dtemporal_tiling_factor=$t, -DTEMP_COUNT=16777216" 1e-5 1e-6
	past=$(awk -F'\t' -v row=$((4066 - t)) '
		$2 == "ok" { next }
		$2 != "wrong-result" { why = "not verified: " $0; exit }
		# the first index that differs, as the verdict says it (lib/verdict.c)
		!match($5, /(only index|indices) [0-9]+|every value|all but index 0/) { why = "no index: " $5; exit }
		{ w = substr($5, RSTART, RLENGTH); sub(/^[^0-9]*/, "", w)
		  i = w == "" ? ($5 ~ /all but index 0/ ? 1 : 0) : w + 0
		  if (int(i / 4096) < row) { why = "wrong above row " row ": " $5; exit }
		  n++; if (first == "" || i < first) first = i }
		END { if (why) { print why; exit 1 }
		      if (!n) printf "all %d agree with the reference (what follows temp read as 0)", NR
		      else printf "%d of %d differ from the reference, each only from row %d down, rows that read past temp", n, NR, int(first / 4096) }' \
		"$work/hotspot_milo_past.rows") || fail "hotspot_milo on the spec's temp: $past"
	echo "hotspot_milo, temporal_tiling_factor=$t, on the spec's temp: $past (row $((4066 - t)) reads past temp)"
	awk -v add="; on the spec's 4096^2 temp: $past" '{ line[NR] = $0 }
		END { for (i = 1; i < NR; i++) print line[i]; sub(/ [|]$/, add " |", line[NR]); print line[NR] }' \
		"$work/table" > "$work/table.new" && mv "$work/table.new" "$work/table"
fi

# --- KTT's CoulombSum3d specs
for coulomb in CoulombSum3dCudaScript:32 CoulombSum3dCudaScript-full-search:16; do
	spec=${coulomb%:*} name=${spec//-/_}
	want "$name" || continue
	budget_of=${coulomb#*:}
	tune "$name" "ktt/$spec.json" $budget_of
	[ "$rc" -eq 0 ] || fail "$name exited $rc"
	other_what="USE_SOA=0's output: the spec gives the AoS atomInfo zeros, the SoA arrays random atoms"
	check "$name" ktt_coulomb3d_ref.c ktt_coulomb3d_ref "USE_SOA" 1e-4 1e-4 2
	other_what="another problem's output"
done
if want CoulombSum3d; then
	budget_of=32
	tune CoulombSum3d ktt/CoulombSum3d.json $budget_of
	[ "$rc" -eq 0 ] || fail "CoulombSum3d exited $rc"
	check CoulombSum3d ktt_coulomb3d_ref.c ktt_coulomb3d_ref "" 1e-4 1e-4 0
fi

# --- KTT's tutorial: vector addition against the spec's own expected values
if want KernelTuningCudaScript; then
	budget_of=4
	tune KernelTuningCudaScript ktt/KernelTuningCudaScript.json $budget_of
	[ "$rc" -eq 0 ] || fail "KernelTuningCudaScript exited $rc"
	all_are KernelTuningCudaScript ok ''
	check KernelTuningCudaScript ktt_vector_add_ref.c ktt_vector_add_ref "" 1e-5 1e-6 0
fi

# --- KTT's ClTuneGemm
if want ClTuneGemm; then
	budget_of=24
	tune ClTuneGemm ktt/ClTuneGemm.json $budget_of
	[ "$rc" -eq 0 ] || fail "ClTuneGemm exited $rc"
	check ClTuneGemm ktt_gemm_ref.c ktt_gemm_ref "" 1e-5 1e-6 0
fi

# --- KTT's NbodyScript: the kernel uses WORK_GROUP_SIZE_Y, which the spec never defines (KTT's
# C++ example makes it a parameter); defined as 1 (the spec's LocalSize.Y), it tunes
nbody_define() {
	sed -i 's/^build:$/constants: {WORK_GROUP_SIZE_Y: 1}\nbuild:/
		s/^  defines: \[WORK_GROUP_SIZE_X,/  defines: [WORK_GROUP_SIZE_Y, WORK_GROUP_SIZE_X,/' "$1"
}
if want NbodyScript; then
	budget_of=16
	tune NbodyScript ktt/NbodyScript.json $budget_of
	[ "$rc" -eq 1 ] || fail "NbodyScript exited $rc, not 1 (nothing compiles)"
	all_are NbodyScript compile-error 'WORK_GROUP_SIZE_Y'
	no_check NbodyScript "nothing to compare: the spec never defines WORK_GROUP_SIZE_Y"
	budget_of=8
	tune NbodyScript_Y1 ktt/NbodyScript.json $budget_of nbody_define
	[ "$rc" -eq 0 ] || fail "NbodyScript with WORK_GROUP_SIZE_Y=1 exited $rc"
	variant=" with WORK_GROUP_SIZE_Y=1"
	other_what="the other layout's output: the spec fills the AoS and SoA bodies with different random data"
	check NbodyScript_Y1 ktt_nbody_ref.c ktt_nbody_ref "USE_SOA" 1e-3 1e-3 2
	variant="" other_what="another problem's output"
fi

# --- Kernel Tuner's test_T1_input: the filter's size is a parameter, another problem per size
# (last: its budgeted run writes a CSV row per valid configuration of 1,867,776)
if want test_T1_input; then
	budget_of=6
	tune test_T1_input kernel_tuner/test_T1_input.json $budget_of
	[ "$rc" -eq 0 ] || fail "test_T1_input exited $rc"
	errors_explained test_T1_input
	other_what="the output of another filter size (filter_width x filter_height)"
	check test_T1_input convolution_ref.c convolution_ref "filter_width filter_height" 1e-5 1e-6 2
	other_what="another problem's output"
fi

echo "== the published specs of benchmark_hub, Kernel Tuner and KTT"
echo "| spec | budget | wall | measured | statuses | winner | the independent reference agrees |"
echo "|---|---|---|---|---|---|---|"
cat "$work/table"
