#!/usr/bin/env bash
# bench/space_build.sh: time and peak memory of building a space of ~10^8 combinations with 6
# constraints (bench/spaces/space_1e8.yaml), through `autotune validate` (no GPU, no nvcc).
set -euo pipefail
/usr/bin/time -f "wall %e s, peak RSS %M KB" ${AUTOTUNE:-./autotune} validate bench/spaces/space_1e8.yaml
