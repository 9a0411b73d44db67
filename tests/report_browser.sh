#!/usr/bin/env bash
# report_browser.sh: renders the report of a recorded run in headless Chromium and checks what the
# browser built (the DOM after parsing, not our own text) and that the screenshot is not blank.
# The expected counts are worked out from the CSV here, independently of autotune.
set -euo pipefail
cd "$(dirname "$0")/.."
CSV=tests/data/summatrix_h100.csv
# everything it writes goes to a scratch directory, none of it into the checkout
work=$(mktemp -d "${TMPDIR:-/tmp}/autotune-report-browser-XXXXXX")
trap 'rm -rf "$work"' EXIT
HTML=$work/report.html
PNG=$work/report.png
DOM=$work/report.dom.html
LOG=$work/report_browser.log
./autotune report -q "$CSV" -o "$HTML"

profile=$work/profile
chrome() {
	timeout 120 chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
		--disable-background-networking --disable-component-update --disable-sync \
		--user-data-dir="$profile" "$@" "file://$HTML"
}
chrome --screenshot="$PNG" --window-size=1280,2400 >"$LOG" 2>&1
chrome --dump-dom >"$DOM" 2>>"$LOG"

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

# a blank 1280x2400 page compresses to a few KB; the plots and tables make it far larger
size=$(stat -c %s "$PNG" 2>/dev/null || echo 0)
if [ "$size" -gt 40000 ] && [ "$(head -c 8 "$PNG" | od -An -c | tr -d ' ')" = "211PNG\r\n032\n" ]; then
	echo "ok: screenshot $PNG ($size bytes)"
else
	echo "FAIL: screenshot $PNG missing, not a PNG or blank ($size bytes); the browser said:"
	tail -20 "$LOG"
	fail=1
fi
[ "$fail" -eq 0 ] && echo "report_browser: all checks passed" || echo "report_browser: FAILED"
exit "$fail"
