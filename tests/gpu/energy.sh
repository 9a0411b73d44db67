#!/usr/bin/env bash
# tests/gpu/energy.sh: energy on the GPU (make test-gpu runs it; alone: bash tests/gpu/energy.sh
# from the repository root after make). tests/gpu/energy.yaml is tuned for joules per launch:
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
# its own directory: run alone from a checkout, it writes nothing there (ENERGY_KEEP=DIR keeps it)
work=${ENERGY_KEEP:-$(mktemp -d "${TMPDIR:-/tmp}/autotune-energy-XXXXXX")}
mkdir -p "$work"
[ -n "${ENERGY_KEEP:-}" ] || trap 'rm -rf "$work"' EXIT
cp tests/gpu/energy.cu "$work/"
sed "s|results/energy|$work/energy|g" tests/gpu/energy.yaml > "$work/energy.yaml"
rc=0
./autotune --fresh "$work/energy.yaml" 2> "$work/energy.log" || rc=$?
cat "$work/energy.log"
[ "$rc" -eq 0 ] || fail "energy run exited $rc"
grep -q 'by the objective (minimize joules)' "$work/energy.log" || fail "the summary does not give the objective"
"$B/energycheck" "$work/energy.csv" "$idle" "$limit" || fail "energy columns (tests/gpu/energycheck.c)"
# the metric, joules x seconds, is a column of its own
head -1 "$work/energy.csv" | tr ',' '\n' | grep -qx edp || fail "no edp column"
echo "PASS: energy"
