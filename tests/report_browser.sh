#!/usr/bin/env bash
# report_browser.sh: renders reports in headless Chromium and checks what the browser built (the DOM
# after parsing, not our own text) and that the screenshots are not blank: the report of a recorded
# run (summatrix on an H100) and of a multi-size run (configs/summatrix_sizes.yaml tuned here on the
# fake worker and fake nvcc: made-up times). The expected counts and speedups are worked out from the
# CSVs here, independently of autotune. The screenshots are kept as build/report.png and
# build/report_sizes.png. Run from anywhere after `make all build/fake_worker build/fake_nvcc`.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
# everything it writes goes to a scratch directory, none of it into the checkout (but the screenshots
# under build/, the build's own outputs)
work=$(mktemp -d "${TMPDIR:-/tmp}/autotune-report-browser-XXXXXX")
trap 'rm -rf "$work"' EXIT
# The recorded run predates the baseline flag: flag in a copy the row a run flags now, the verify
# reference of configs/summatrix.yaml (block_x=32 block_y=16 maxrreg=0).
CSV=$work/summatrix_h100.csv
awk -F, -v OFS=, 'NR == 1 {for (i = 1; i <= NF; i++) c[$i] = i; print; next}
	$c["block_x"] == 32 && $c["block_y"] == 16 && $c["maxrreg"] == 0 && $c["status"] == "ok" {$c["flags"] = $c["flags"] ";baseline"}
	{print}' tests/data/summatrix_h100.csv >"$CSV"
HTML=$work/report.html
PNG=$work/report.png
DOM=$work/report.dom.html
LOG=$work/report_browser.log
./autotune report -q "$CSV" -o "$HTML"

profile=$work/profile
chrome() { # chrome HTML ARGS...
	local html=$1
	shift
	timeout 120 chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
		--disable-background-networking --disable-component-update --disable-sync \
		--user-data-dir="$profile" "$@" "file://$html"
}
chrome "$HTML" --screenshot="$PNG" --window-size=1280,2400 >"$LOG" 2>&1
chrome "$HTML" --dump-dom >"$DOM" 2>>"$LOG"

fail=0
check() { # check WHAT EXPECTED ACTUAL
	if [ "$2" = "$3" ]; then
		echo "ok: $1 ($3)"
	else
		echo "FAIL: $1: expected $2, got $3"
		fail=1
	fi
}
# the text of one element: from its opening tag to the first closing tag of its kind
element() { awk -v o="$1" -v c="$2" 'index($0, o) {on = 1} on {print} on && index($0, c) {exit}' "$DOM"; }
count() { grep -o -- "$1" | wc -l | tr -d ' '; }

# column numbers by name (the data has no quoted fields)
col() { head -1 "$CSV" | tr -d '\r' | tr ',' '\n' | grep -nx -- "$1" | cut -d: -f1; }
BX=$(col blockDim.x) BY=$(col blockDim.y) ST=$(col status) EFF=$(col gld_efficiency_pct)
nx=$(tail -n +2 "$CSV" | cut -d, -f"$BX" | sort -u | wc -l)
ny=$(tail -n +2 "$CSV" | cut -d, -f"$BY" | sort -u | wc -l)
passing_cells=$(tail -n +2 "$CSV" | awk -F, -v x="$BX" -v y="$BY" -v s="$ST" '$s == "ok" {print $x "," $y}' | sort -u | wc -l)
passing=$(tail -n +2 "$CSV" | awk -F, -v s="$ST" '$s == "ok"' | wc -l)
with_counters=$(tail -n +2 "$CSV" | awk -F, -v s="$ST" -v e="$EFF" '$s == "ok" && $e != ""' | wc -l)

map=$(element '<svg id="heatmap"' '</svg>')
check "heat map cells (every blockDim.x by blockDim.y pair)" $((nx * ny)) "$(count '<rect class="cell' <<<"$map")"
check "heat map cells with a passing time" "$passing_cells" "$(count '<rect class="cell"' <<<"$map")"
occ=$(element '<svg id="scatter-occupancy"' '</svg>')
check "occupancy scatter: points (passing rows)" "$passing" "$(count '<circle class="point' <<<"$occ")"
check "occupancy scatter: winner points" 1 "$(count 'class="point winner"' <<<"$occ")"
eff=$(element '<svg id="scatter-efficiency"' '</svg>')
check "efficiency scatter: points (rows with counters)" "$with_counters" "$(count '<circle class="point' <<<"$eff")"
check "efficiency scatter: winner points" 1 "$(count 'class="point winner"' <<<"$eff")"
top=$(element '<table id="top"' '</table>')
check "top table rows" 10 "$(sed -n '/<tbody>/,$p' <<<"$top" | count '<tr')"
check "top table winner rows" 1 "$(count '<tr class="winner"' <<<"$top")"
check "failures section" 1 "$(count '<section id="failures"' <"$DOM")"
check "facts section" 1 "$(count '<section id="facts"' <"$DOM")"
check "scripts in the page" 0 "$(count '<script' <"$DOM")"

# what tuning bought, per problem size: the flagged winner's deciding time (the finalists' median
# where re-timed) against the baseline row's, from the CSV
expected_bought() { # expected_bought CSV: "instance block_x,block_y speedup nvcc-flags" per instance with both
	awk -F, '{sub(/\r$/, "")} NR == 1 {for (i = 1; i <= NF; i++) c[$i] = i; next}
		function t() { return $c["final_ms_median"] != "" ? $c["final_ms_median"] : $c["time_ms_median"] }
		{k = ("instance" in c) ? $c["instance"] : 0}
		$c["flags"] ~ /winner/ {w[k] = t(); wb[k] = $c["block_x"] "," $c["block_y"]; f[k] = $c["nvcc_flags"]}
		$c["flags"] ~ /baseline/ {b[k] = t()}
		END {for (k in w) if (k in b) printf "%s %s %.2f %s\n", k, wb[k], b[k] / w[k], f[k]}' "$1" | sort -n
}
bought=$(element '<section id="bought"' '</section>')
# this file flags no winner (the report picks it again by the default policy): the winner the
# section names must be the top table's starred row, its speedup worked out from the CSV's times
winner=$(grep -o '<td>block_x=[0-9]* block_y=[0-9]* maxrreg=[0-9]*</td>' <<<"$bought" | head -1 | tr -dc '0-9 ' | tr ' ' ,)
check "what tuning bought: the winner is the top table's" 1 \
	"$(grep -A4 '<tr class="winner"' <<<"$top" | tr -d '\n ' | count "<td>${winner//,/<\/td><td>}</td>")"
speedup=$(awk -F, -v w="$winner" 'NR == 1 {for (i = 1; i <= NF; i++) c[$i] = i; next}
	function t() { return $c["final_ms_median"] != "" ? $c["final_ms_median"] : $c["time_ms_median"] }
	$c["block_x"] "," $c["block_y"] "," $c["maxrreg"] == w {tw = t()}
	$c["flags"] ~ /baseline/ {tb = t()}
	END {if (tw && tb) printf "%.2f", tb / tw}' "$CSV")
check "what tuning bought: first section" 1 "$(grep -m1 -o '<section id="[a-z-]*"' "$DOM" | count 'id="bought"')"
check "what tuning bought: rows" 1 "$(count '<td class="num speedup">' <<<"$bought")"
check "what tuning bought: the speedup" 1 "$(count "<td class=\"num speedup\">$speedup×</td>" <<<"$bought")"
check "what tuning bought: no recipe in an older file" 1 "$(count '<td class="recipe"><span class="note">not recorded' <<<"$bought")"

# a blank 1280x2400 page compresses to a few KB; the plots and tables make it far larger
screenshot() { # screenshot PNG KEEP
	local size
	size=$(stat -c %s "$1" 2>/dev/null || echo 0)
	if [ "$size" -gt 40000 ] && [ "$(head -c 8 "$1" | od -An -c | tr -d ' ')" = "211PNG\r\n032\n" ]; then
		cp "$1" "$2"
		echo "ok: screenshot $2 ($size bytes)"
	else
		echo "FAIL: screenshot $1 missing, not a PNG or blank ($size bytes); the browser said:"
		tail -20 "$LOG"
		fail=1
	fi
}
mkdir -p build
screenshot "$PNG" build/report.png

# a multi-size run, tuned here: each size's winner against its own baseline row
mkdir "$work/sizes" "$work/sizes/configs"
cp configs/summatrix_sizes.yaml "$work/sizes/configs/"
ln -s "$root/kernels" "$work/sizes/kernels"
if ! (cd "$work/sizes" && FAKE_SMS=4 AUTOTUNE_WORKER="$root/build/fake_worker" NVCC="$root/build/fake_nvcc" \
	"$root/autotune" -q --budget 6 --cache-dir "$work/sizes/cache" configs/summatrix_sizes.yaml) >>"$LOG" 2>&1; then
	echo "FAIL: tuning configs/summatrix_sizes.yaml on the fake worker; it said:"
	tail -20 "$LOG"
	exit 1
fi
CSV=$work/sizes/results/summatrix_sizes.csv HTML=$work/sizes/results/summatrix_sizes.html
DOM=$work/report_sizes.dom.html PNG=$work/report_sizes.png
chrome "$HTML" --screenshot="$PNG" --window-size=1280,2400 >>"$LOG" 2>&1
chrome "$HTML" --dump-dom >"$DOM" 2>>"$LOG"
bought=$(element '<section id="bought"' '</section>')
ninst=$(awk -F, '{sub(/\r$/, "")} NR == 1 {for (i = 1; i <= NF; i++) c[$i] = i; next} {print $c["instance"]}' "$CSV" | sort -u | wc -l)
check "sizes: instances" 3 "$ninst"
check "sizes: a row per size" "$ninst" "$(count '<tr data-instance=' <<<"$bought")"
check "sizes: sizes with a speedup" "$(expected_bought "$CSV" | wc -l)" "$(count '<td class="num speedup">' <<<"$bought")"
while read -r inst winner speedup flags; do
	label=$(awk -F, -v i="$inst" '{sub(/\r$/, "")} NR == 1 {for (k = 1; k <= NF; k++) c[$k] = k; next}
		$c["instance"] == i {print "nx=" $c["nx"] " ny=" $c["ny"]; exit}' "$CSV")
	row=$(awk -v o="<tr data-instance=\"$label\">" 'index($0, o) {print; exit}' <<<"$bought")
	check "sizes: $label's winner" 1 "$(count "<td>block_x=${winner%,*} block_y=${winner#*,} " <<<"$row")"
	check "sizes: $label's speedup" 1 "$(count "<td class=\"num speedup\">$speedup×</td>" <<<"$row")"
	check "sizes: $label's recipe" 1 "$(count "<td class=\"recipe\"><code>$flags</code>" <<<"$row")"
done < <(expected_bought "$CSV")
screenshot "$PNG" build/report_sizes.png
[ "$fail" -eq 0 ] && echo "report_browser: all checks passed" || echo "report_browser: FAILED"
exit "$fail"
