#!/usr/bin/env bash
# tests/gpu/energy.sh: energy on the GPU (make test-gpu; tests/gpu.sh runs it in its mirror of the
# checkout, whose results/ are its own). tests/gpu/energy.yaml is tuned for joules per launch:
# every configuration that passed must have joules_per_launch and watts, its watts above the
# board's idle draw and at most its power limit (both from nvidia-smi, read before the run), and
# its joules per launch consistent with its watts and time (tests/gpu/energycheck.c). Whether the
# energy objective's winner differs from the shortest launch is printed, not required: the numbers
# say why when it does not.
set -euo pipefail
fail() { echo "FAIL: $*" >&2; exit 1; }
B=build/tests
mkdir -p "$B"
cc -std=c11 -O2 -Wall -Wextra -Werror -o "$B/energycheck" tests/gpu/energycheck.c
# the least idle draw of the GPUs and the largest limit: the run may use any of them
idle=$(nvidia-smi --query-gpu=power.draw --format=csv,noheader,nounits | sort -g | head -1)
limit=$(nvidia-smi --query-gpu=power.limit --format=csv,noheader,nounits | sort -g | tail -1)
case "$idle$limit" in
*[!0-9.]*|'') echo "SKIPPED: energy: nvidia-smi gives no power reading here ('$idle', '$limit')"; exit 0 ;;
esac
echo "idle $idle W, power limit $limit W"
rm -f results/energy.csv results/energy.journal
rc=0
./autotune --fresh tests/gpu/energy.yaml 2> "$B/energy.log" || rc=$?
cat "$B/energy.log"
[ "$rc" -eq 0 ] || fail "energy run exited $rc"
grep -q 'by the objective (minimize joules)' "$B/energy.log" || fail "the summary does not give the objective"
"$B/energycheck" results/energy.csv "$idle" "$limit" || fail "energy columns (tests/gpu/energycheck.c)"
# the metric, joules x seconds, is a column of its own
head -1 results/energy.csv | tr ',' '\n' | grep -qx edp || fail "no edp column"
echo "PASS: energy"
