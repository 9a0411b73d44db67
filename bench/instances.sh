#!/usr/bin/env bash
# bench/instances.sh: summatrix at 1024^2, 4096^2 and 16384^2 in one run (configs/summatrix_sizes.yaml):
# per size its own winner against the largest size's winner measured at that size, which answers
# the seed's sumMatrix question per size: does the best block shape change with the size, and by
# how much. Also the run's count of distinct binaries (built once for the three sizes).
#
# Run from the repository root on the GPU machine, after `make`.
#   AUTOTUNE=path   the autotune binary (default ./autotune)
#   OUT=dir         where bench_instances.log goes (default /tmp)
#   ARGS="..."      more arguments for the tuning run (e.g. --budget 40)
set -euo pipefail

AUTOTUNE=${AUTOTUNE:-./autotune}
LOG=${OUT:-/tmp}/bench_instances.log
CONFIG=configs/summatrix_sizes.yaml
CSV=results/summatrix_sizes.csv

mkdir -p "$(dirname "$LOG")"
: >"$LOG"
log() { echo "$*" | tee -a "$LOG" >&2; }

log "== $AUTOTUNE ${ARGS:-} $CONFIG"
t0=$(date +%s.%N)
# shellcheck disable=SC2086 # ARGS is words on purpose
"$AUTOTUNE" ${ARGS:-} "$CONFIG" 2>&1 | tee -a "$LOG" >&2 || { log "FAIL: the tuning run failed"; exit 1; }
t1=$(date +%s.%N)
log "== tuned 3 sizes in $(echo "$t1 - $t0" | bc) s"
grep -o '[0-9]* distinct binar[a-z]* built for [0-9]* instances[^)]*)' "$LOG" | tail -1 | sed 's/^/== /' >&2 || true

# per size: its winner, and the largest size's winner at that size (autotune show's last lines)
log "== per size: own winner vs the 16384^2 winner"
"$AUTOTUNE" show --top 1 "$CSV" 2>&1 | sed -n '/^per instance:/,$p' | tee -a "$LOG"
