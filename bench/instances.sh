#!/usr/bin/env bash
# bench/instances.sh: problem sizes in one run each (issue 37): summatrix at 1024^2, 4096^2 and
# 16384^2 (configs/summatrix_sizes.yaml), the reduction at 2^16, 2^20 and 2^24 elements
# (bench/spaces/reduce_sizes.yaml) and the GEMM at 256^3, 1024^3 and 2048^3
# (bench/spaces/gemm_sizes.yaml). Per config and size: its own winner against the largest size's
# winner measured at that size, which answers the seed's sumMatrix question per size (does the
# best block shape change with the size, and by how much), and the run's count of distinct
# binaries (built once for the three sizes).
#
# Run from the repository root on the GPU machine, after `make`.
#   AUTOTUNE=path   the autotune binary (default ./autotune)
#   OUT=dir         where bench_instances.log goes (default /tmp)
#   ARGS="..."      more arguments for the tuning runs (e.g. --budget 40)
#   CONFIGS="..."   the configs (default: the three above)
set -euo pipefail

AUTOTUNE=${AUTOTUNE:-./autotune}
LOG=${OUT:-/tmp}/bench_instances.log
CONFIGS=${CONFIGS:-configs/summatrix_sizes.yaml bench/spaces/reduce_sizes.yaml bench/spaces/gemm_sizes.yaml}

mkdir -p "$(dirname "$LOG")"
: >"$LOG"
log() { echo "$*" | tee -a "$LOG" >&2; }

for config in $CONFIGS; do
	name=$(sed -n 's/^name: *//p' "$config")
	csv=results/$name.csv
	log "== $AUTOTUNE ${ARGS:-} $config"
	t0=$(date +%s.%N)
	# shellcheck disable=SC2086 # ARGS is words on purpose
	"$AUTOTUNE" ${ARGS:-} "$config" >>"$LOG" 2>&1 || { log "FAIL: the tuning run of $config failed"; exit 1; }
	t1=$(date +%s.%N)
	log "== $name: tuned its sizes in $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }') s"
	grep -o '[0-9]* distinct binar[a-z]* built for [0-9]* instances[^)]*)' "$LOG" | tail -1 | sed 's/^/== /' >&2 || true

	# per size: its winner, and the largest size's winner at that size (autotune show's last lines)
	log "== $name per size: own winner vs the largest size's winner"
	"$AUTOTUNE" show --top 1 "$csv" 2>&1 | sed -n '/^per instance:/,$p' | tee -a "$LOG"
done
