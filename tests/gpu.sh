#!/usr/bin/env bash
# make test-gpu: end-to-end tests on a real GPU. Run from the repository root after `make`.
set -euo pipefail
fail() { echo "FAIL: $*" >&2; exit 1; }
B=build/tests
mkdir -p "$B"
cc -std=c11 -O2 -Wall -Wextra -Werror -o "$B/csvcheck" tests/gpu/csvcheck.c

echo "== summatrix end to end"
rm -f results/summatrix.csv results/summatrix_tuned.h
./autotune --fresh configs/summatrix.yaml || fail "autotune configs/summatrix.yaml exited $?"
"$B/csvcheck" results/summatrix.csv 153 ok=153 || fail "summatrix CSV"

echo "== the tuned header compiles into a program that uses it"
cat > "$B/use_header.c" <<'C'
#include <stdio.h>
#include "summatrix_tuned.h"
int main(void)
{
	int threads = SUMMATRIX_BLOCK_X * SUMMATRIX_BLOCK_Y;
	printf("tuned block %dx%d (%d threads), maxrreg %d, %.4f ms\n", SUMMATRIX_BLOCK_X, SUMMATRIX_BLOCK_Y,
	       threads, SUMMATRIX_MAXRREG, SUMMATRIX_TIME_MS);
	return threads >= 32 && threads <= 1024 ? 0 : 1;
}
C
cc -std=c11 -Wall -Werror -Iresults -o "$B/use_header" "$B/use_header.c" || fail "header does not compile"
"$B/use_header" || fail "header values out of range"

echo "== faults: crashes, a hang, wrong results and refused launches are statuses, not the end of the run"
rm -f results/faults.csv results/faults.journal
t0=$(date +%s)
./autotune --fresh tests/gpu/faults.yaml || fail "faults run exited $?"
echo "faults space took $(( $(date +%s) - t0 )) s"
# MODE 0 ok x2; MODE 1, 4, 5 crashed x2 each; MODE 2, 3 wrong-result x2 each; MODE 6 timeout x2;
# bx=2048 refused x7
"$B/csvcheck" results/faults.csv 21 ok=2 crashed=6 wrong-result=4 timeout=2 launch-error=7 || fail "faults CSV"
grep -Eq 'crashed,CUDA_ERROR_(ILLEGAL_ADDRESS|INVALID_ADDRESS_SPACE)' results/faults.csv || fail "out-of-bounds reason missing"
grep -Eq '^4,[0-9]+,.*crashed,CUDA_ERROR_(LAUNCH_FAILED|ILLEGAL_INSTRUCTION)' results/faults.csv || fail "__trap reason missing"
grep -q 'crashed,CUDA_ERROR_ASSERT' results/faults.csv || fail "assert reason missing"
grep -q 'CUDA_ERROR_INVALID_VALUE' results/faults.csv || fail "launch-error reason missing"
grep -Eq 'first at index 0: got -?nan' results/faults.csv || fail "unwritten element not reported"

echo "== kill -9 in the middle of a GPU run, then the same command again"
rm -f results/summatrix.journal
./autotune -q --metrics none configs/summatrix.yaml & pid=$!
# kill it once a few configurations are journaled, in the middle of measuring
for _ in $(seq 600); do
	[ "$(grep -c '^done ' results/summatrix.journal 2>/dev/null || true)" -ge 8 ] && break
	sleep 0.05
done
kill -9 $pid; wait $pid 2>/dev/null || true
pkill -9 -f autotune-worker || true
done_before=$(grep -c '^done ' results/summatrix.journal || true)
./autotune --metrics none configs/summatrix.yaml || fail "resumed run exited $?"
"$B/csvcheck" results/summatrix.csv 153 || fail "resumed CSV"
crashed=$(grep -c ',crashed,' results/summatrix.csv || true)
ok=$(grep -c ',ok,' results/summatrix.csv || true)
echo "killed after $done_before finished configurations; resumed: $ok ok, $crashed crashed (in flight)"
[ "$done_before" -ge 8 ] && [ "$crashed" -le 1 ] && [ $((ok + crashed)) -eq 153 ] || fail "rows lost or wrong after resume"

echo "== in-place kernels: inputs restored before every sample, every sample verified"
./autotune --fresh tests/gpu/inplace.yaml || fail "inplace run exited $?"
"$B/csvcheck" results/inplace.csv 4 ok=4 || fail "inplace CSV"
# the negative control: without restore the same kernel fails verification after its first sample
set +e
./autotune --fresh tests/gpu/inplace_norestore.yaml
rc=$?
set -e
[ "$rc" -eq 0 ] || fail "inplace_norestore exited $rc"
"$B/csvcheck" results/inplace_norestore.csv 4 ok=1 wrong-result=3 || fail "negative control CSV"

echo "== every config of configs/ and every feature kernel of tests/kernels, all verified"
bench/catalogue.sh || fail "a config did not tune cleanly (see ${OUT:-/tmp}/catalogue.log)"

echo "== a hand-written T1 spec imports and tunes"
./autotune import tests/t1/vector_add.json -o tests/t1/vector_add.yaml || fail "import"
./autotune --fresh tests/t1/vector_add.yaml || fail "the imported spec did not tune"
"$B/csvcheck" results/vector_add.csv 5 ok=5 || fail "vector_add CSV"

echo "PASS: make test-gpu"
