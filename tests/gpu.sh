#!/usr/bin/env bash
# make test-gpu: end-to-end tests on a real GPU. Run from the repository root after `make`.
set -euo pipefail
fail() { echo "FAIL: $*" >&2; exit 1; }
# waits (up to 30 s) until the journal of summatrix holds $1 finished configurations
wait_journaled() {
	for _ in $(seq 600); do
		n=$(grep -c '^done ' results/summatrix.journal 2>/dev/null || true)
		[ "${n:-0}" -ge "$1" ] && return
		sleep 0.05
	done
}
B=build/tests
mkdir -p "$B"
# Everything runs in a mirror of the checkout (each top-level entry a symbolic link) with a
# results/ of its own: the runs write their default outputs there, never over the checkout's
# measured results.
top=$(pwd)
mirror=$(mktemp -d "${TMPDIR:-/tmp}/autotune-gpu-XXXXXX")
trap 'rm -rf "$mirror"' EXIT
for entry in "$top"/* "$top"/.[!.]*; do
	[ -e "$entry" ] && [ "$(basename "$entry")" != results ] && ln -s "$entry" "$mirror/"
done
mkdir "$mirror/results"
cd "$mirror"
NGPUS=$(nvidia-smi -L | grep -c '^GPU ' || true)
echo "GPUs: $NGPUS"
cc -std=c11 -O2 -Wall -Wextra -Werror -o "$B/csvcheck" tests/gpu/csvcheck.c

echo "== summatrix end to end"
rm -f results/summatrix.csv results/summatrix_tuned.h
./autotune --fresh --metrics top:10 configs/summatrix.yaml || fail "autotune configs/summatrix.yaml exited $?"
# spread: the profiler's construction once stalled a timed sample of the profiling GPU by 25%
"$B/csvcheck" results/summatrix.csv 153 ok=153 counters=10 spread=15 || fail "summatrix CSV"

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
# the verdicts say how: MODE 3 left out[0] unwritten (poisoned: NaN), MODE 2 is off by in[i], half
# of the expected 2 in[i], with |in[i]| up to 1
grep -Eq "argument 2 'out': 1 of 1048576 values differ \([0-9.e+-]+%\), only index 0, no finite error \(NaN against numbers\); output: 1 NaN, no Inf; reference: 0 NaN, all finite" \
	results/faults.csv || fail "unwritten element not reported: $(grep -m1 'only index' results/faults.csv)"
[ "$(grep -Ec "argument 2 'out': [0-9]+ of 1048576 values differ \([0-9.]+%\), (every value|indices [0-9]+\.\.[0-9]+), max abs error (0\.99[0-9]*|1) at index [0-9]+ \(got -?[0-9.]+, expected -?[0-9.]+\), max rel error 0\.5; output: 0 NaN, all finite; reference: 0 NaN, all finite" results/faults.csv)" -eq 2 ] ||
	fail "MODE 2's errors not reported: $(grep -m1 'max rel' results/faults.csv)"
echo "== a reference that left an element unwritten: the verdicts against it call it suspect"
sed -e 's/MODE: \[0, 1, 2, 3, 4, 5, 6\]/MODE: [0, 3]/' -e 's/bx: \[128, 256, 2048\]/bx: [128]/' \
    -e 's/reference: {MODE: 0/reference: {MODE: 3/' -e 's|results/faults|results/faults_badref|g' \
    tests/gpu/faults.yaml >tests/gpu/faults_badref.yaml
set +e
./autotune --fresh -q tests/gpu/faults_badref.yaml
rc=$?
set -e
rm -f tests/gpu/faults_badref.yaml
[ "$rc" -eq 0 ] || fail "faults_badref exited $rc, not 0 (the reference passes)"
"$B/csvcheck" results/faults_badref.csv 2 ok=1 wrong-result=1 || fail "faults_badref CSV"
grep -Eq "1 of 1048576 values differ .*only index 0, no finite error .*output: 0 NaN, all finite; reference: 1 NaN, no Inf; the reference looks suspect: NaN in it" \
	results/faults_badref.csv || fail "a suspect reference not called so: $(grep -m1 'differ' results/faults_badref.csv)"

echo "== no reference named: the first to pass is outvoted by the next two binaries, which agree"
./autotune --fresh tests/gpu/vote.yaml 2>"$B/vote.err" || fail "vote exited $?"
"$B/csvcheck" results/vote.csv 4 ok=3 wrong-result=1 || fail "vote CSV"
grep -Eq "^3,.*wrong-result,\"argument 2 'out': [0-9]+ of 1048576 values differ .*max rel error 0\.5;" results/vote.csv ||
	fail "the outvoted first does not say how it differs: $(grep '^3,' results/vote.csv)"
# which two of the three right binaries come next follows which nvcc finished first and, with
# several GPUs, which GPU was free: any two, named once each
grep -Eq "reference: VARIANT=(0, by vote: it and VARIANT=[12]|1, by vote: it and VARIANT=[02]|2, by vote: it and VARIANT=[01]) \(other binaries\) agree, while VARIANT=3, the first to pass, differs from both" \
	"$B/vote.err" || fail "the summary does not tell the vote: $(grep reference "$B/vote.err")"

echo "== hostile kernels: out of bounds, __trap, an endless loop, device malloc exhausted, a printf flood"
rm -f results/hostile.csv results/hostile.journal results/hostile.worker.log
t0=$(date +%s)
./autotune --fresh tests/gpu/hostile.yaml || fail "hostile run exited $?"
echo "hostile space took $(( $(date +%s) - t0 )) s"
awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next } { printf "MODE %s bx %s: %s\n", $1, $2, $c["status"] }' \
	results/hostile.csv
# MODE 1, 2, 5 crashed x2 each; the rest by MODE below
"$B/csvcheck" results/hostile.csv 14 crashed=6 || fail "hostile CSV"
awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
	{ m = $1; s = $c["status"] }
	# the correct kernel runs in whatever worker the hostile ones left: ok both times
	m == 0 && s != "ok" { print "MODE 0 (correct) is " s; bad = 1 }
	(m == 1 || m == 2 || m == 5) && s != "crashed" { print "MODE " m " is " s ", not crashed"; bad = 1 }
	m == 3 && s != "timeout" { print "MODE 3 (endless) is " s ", not timeout"; bad = 1 }
	m == 4 && s != "ok" { print "MODE 4 (malloc exhausted, then correct) is " s; bad = 1 }
	m == 6 && s != "ok" && s != "timeout" { print "MODE 6 (printf flood) is " s; bad = 1 }
	END { exit bad }' results/hostile.csv || fail "hostile statuses"
log=results/hostile.worker.log
size=$(stat -c %s "$log" 2>/dev/null || echo 0)
[ "$size" -le $(( 5 * 1024 * 1024 + 8192 )) ] || fail "worker.log is $size bytes: not bounded"
grep -q 'thread [0-9]* says hello' "$log" || fail "the printf flood's first lines are not in $log"
echo "hostile: worker.log $size bytes"

echo "== a printing kernel with min_samples 100000 and time_cap 1: sampling stops at the cap"
rm -f results/printf.csv results/printf.journal results/printf.worker.log
t0=$(date +%s)
./autotune --fresh -q tests/gpu/printf.yaml 2> "$B/printf.log" || fail "printf run exited $? ($(tail -3 "$B/printf.log"))"
secs=$(( $(date +%s) - t0 ))
echo "printf space took $secs s"
"$B/csvcheck" results/printf.csv 2 ok=2 || fail "printf CSV: both configurations measured"
[ "$(grep -c 'time_cap reached after' results/printf.csv)" -eq 2 ] || fail "printf CSV: the cap is not said"
# two configurations, each capped at 1 s, with set-up and verification around them
[ "$secs" -le 30 ] || fail "printf: $secs s for two configurations capped at 1 s"

echo "== kernels that launch kernels (build.rdc): every nested reduction verified"
rm -f results/nested_reduce.csv results/nested_reduce.journal
t0=$(date +%s)
./autotune --fresh configs/nested_reduce.yaml || fail "autotune configs/nested_reduce.yaml exited $?"
echo "nested_reduce space took $(( $(date +%s) - t0 )) s"
# ok rows: a theoretical occupancy from the linked image's registers that the driver agrees with
"$B/csvcheck" results/nested_reduce.csv 30 ok=30 || fail "nested_reduce CSV"

echo "== nested launches that fail: a refused device-side launch and a trap in a child grid are statuses"
rm -f results/nested_faults.csv results/nested_faults.journal
./autotune --fresh tests/gpu/nested_faults.yaml || fail "nested_faults run exited $?"
# MODE 0 ok x2; MODE 1 (a child block of 2048 threads) launch-error x2; MODE 2 (trap) crashed x2
"$B/csvcheck" results/nested_faults.csv 6 ok=2 launch-error=2 crashed=2 || fail "nested_faults CSV"
grep -Eq '^1,[0-9]+,.*launch-error,a device-side launch failed' results/nested_faults.csv ||
	fail "the refused device-side launch is not reported as such"
grep -Eq '^2,[0-9]+,.*crashed,CUDA_ERROR_' results/nested_faults.csv || fail "the trap in a child grid is not reported"
grep -o 'a device-side launch failed[^,"]*' results/nested_faults.csv | sort -u

echo "== kill -9 in the middle of a GPU run, then the same command again"
rm -f results/summatrix.journal
./autotune -q --metrics none configs/summatrix.yaml & pid=$!
# kill it once a few configurations are journaled, in the middle of measuring
wait_journaled 8
kill -9 $pid; wait $pid 2>/dev/null || true
pkill -9 -f autotune-worker || true
done_before=$(grep -c '^done ' results/summatrix.journal || true)
./autotune --metrics none configs/summatrix.yaml || fail "resumed run exited $?"
"$B/csvcheck" results/summatrix.csv 153 || fail "resumed CSV"
crashed=$(grep -c ',crashed,' results/summatrix.csv || true)
ok=$(grep -c ',ok,' results/summatrix.csv || true)
echo "killed after $done_before finished configurations; resumed: $ok ok, $crashed crashed (in flight, at most one per GPU)"
[ "$done_before" -ge 8 ] && [ "$crashed" -le "$NGPUS" ] && [ $((ok + crashed)) -eq 153 ] || fail "rows lost or wrong after resume"

echo "== kill -9 in the middle of a budgeted search, then the same search again"
rm -f results/summatrix.journal
search=(--metrics none --strategy model --budget 40 --seed 5 configs/summatrix.yaml)
./autotune -q "${search[@]}" & pid=$!
wait_journaled 10
kill -9 $pid; wait $pid 2>/dev/null || true
pkill -9 -f autotune-worker || true
# (a resumed run first records the one in flight as crashed in an earlier run: not a measurement)
measured() { awk '$1 == "done" && $4 != "crashed" { print $2 }' results/summatrix.journal; }
measured > "$B/search_before"
# --retry-failed: the configuration in flight is measured again rather than kept as crashed
./autotune -q --retry-failed "${search[@]}" || fail "resumed search exited $?"
measured > "$B/search_after"
before=$(wc -l < "$B/search_before")
ok=$(grep -c ',ok,' results/summatrix.csv || true)
notrun=$(grep -c ',not-run,' results/summatrix.csv || true)
echo "search killed after $before measurements; resumed: $(wc -l < "$B/search_after") measured, CSV $ok ok, $notrun not run"
# what the killed run measured steers the resumed search as it did then: kept, in order, and
# nothing measured twice; the budget holds across both runs
head -n "$before" "$B/search_after" | cmp -s - "$B/search_before" || fail "the resumed search lost or reordered measurements"
[ -z "$(sort "$B/search_after" | uniq -d)" ] || fail "the resumed search measured a configuration twice"
# a row per configuration the search did something with, each counting the space's 153
listed=$(($(wc -l < results/summatrix.csv) - 1))
counted=$(grep -c $',153\r$' results/summatrix.csv || true)
# 40 evaluations; a configuration the killed run measured ahead of the search's turn stays in the
# CSV even where the resumed search (its in-flight configuration timed anew) no longer visits it
[ "$before" -ge 10 ] && [ "$ok" -ge 40 ] && [ "$ok" -le $((40 + before)) ] && [ $((ok + notrun)) -eq "$listed" ] &&
	[ "$counted" -eq "$listed" ] ||
	fail "the resumed search's CSV: $ok ok, $notrun not run, $listed rows, $counted counting 153"

echo "== SIGTERM to every process of the run (a batch system's time limit), then the same command again"
rm -f results/summatrix.journal
./autotune -q --metrics none configs/summatrix.yaml & pid=$!
wait_journaled 8
# the workers first, the harder order: each dies in the middle of a configuration
pkill -TERM -f autotune-worker || true
kill -TERM $pid
set +e
wait $pid
rc=$?
set -e
[ "$rc" -eq 143 ] || fail "SIGTERM: exited $rc, not 143"
ok=$(grep -c ',ok,' results/summatrix.csv || true)
notrun=$(grep -c ',not-run,' results/summatrix.csv || true)
crashed=$(grep -c ',crashed,' results/summatrix.csv || true)
listed=$(($(wc -l < results/summatrix.csv) - 1))
counted=$(grep -c $',terminated,153\r$' results/summatrix.csv || true)
[ $((ok + notrun)) -eq "$listed" ] && [ "$counted" -eq "$listed" ] ||
	fail "CSV written at SIGTERM: $ok ok, $notrun not run, $listed rows, $counted saying terminated of 153"
stopped=$(grep -c '^stopped ' results/summatrix.journal || true)
done_before=$(grep -c '^done ' results/summatrix.journal || true)
./autotune --metrics none configs/summatrix.yaml || fail "run resumed after SIGTERM exited $?"
"$B/csvcheck" results/summatrix.csv 153 ok=153 || fail "resumed CSV after SIGTERM"
echo "SIGTERM after $done_before finished configurations: CSV $ok ok, $notrun not run, $crashed crashed; $stopped stopped in flight; resumed: 153 ok"
[ "$crashed" -eq 0 ] && [ "$stopped" -le "$NGPUS" ] || fail "SIGTERM counted configurations crashed"

echo "== a search of 1.9 million configurations (test_T1_input, a stand-in kernel): small files, SIGTERM within 2 s"
T=$(mktemp -d "$mirror/t1-XXXXXX")
cp tests/t1/published/kernel_tuner/test_T1_input.json "$T/"
cp tests/gpu/convolution_standin.cu "$T/convolution.cu"
./autotune import -q "$T/test_T1_input.json" || fail "import test_T1_input exited $?"
(cd "$T" && "$mirror/autotune" -q --t4 --budget 64 test_T1_input.yaml) || fail "test_T1_input --budget 64 exited $?"
for f in "$T"/results/*; do
	[ "$(stat -c %s "$f")" -lt 1000000 ] || fail "$f: $(stat -c %s "$f") bytes for a search of 64"
done
rm -rf "$T/results"
(cd "$T" && exec "$mirror/autotune" -q --budget 64 test_T1_input.yaml) & pid=$!
for _ in $(seq 1200); do
	[ "$(grep -c '^done ' "$T/results/test_T1_input.journal" 2>/dev/null || true)" -ge 3 ] && break
	sleep 0.05
done
t0=$(date +%s.%N)
kill -TERM $pid
set +e
wait $pid
rc=$?
set -e
secs=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }')
echo "SIGTERM while measuring test_T1_input: exit $rc after $secs s; $(wc -c < "$T/results/test_T1_input.csv") bytes of CSV"
[ "$rc" -eq 143 ] || fail "test_T1_input SIGTERM: exited $rc, not 143"
awk -v s="$secs" 'BEGIN { exit !(s < 2) }' || fail "test_T1_input SIGTERM: exited after $secs s, not within 2 s"
[ "$(grep -c $',terminated,1867776\r$' "$T/results/test_T1_input.csv")" -ge 3 ] || fail "test_T1_input CSV: not terminated of 1867776"
grep -q '#define TEST_T1_INPUT_RUN "terminated"' "$T/results/test_T1_input_tuned.h" || fail "test_T1_input header: not terminated"
for f in "$T"/results/*; do
	[ "$(stat -c %s "$f")" -lt 1000000 ] || fail "$f: $(stat -c %s "$f") bytes when stopped"
done

echo "== shared memory over 48 KB only with the static part: the worker opts in, every launch runs"
./autotune --fresh tests/gpu/smem.yaml || fail "smem run exited $?"
"$B/csvcheck" results/smem.csv 8 ok=8 || fail "smem CSV: a launch was refused"

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

echo "== an expression fill that fails in the middle of the array is said at its place in the config"
X=$(mktemp -d)
cp tests/kernels/expect.yaml tests/kernels/expect.cu "$X"/
sed -i 's|fill: {expr: "i % 100"}|fill: {expr: "100 / (i - 7)"}|; s|results/|'"$X"'/|g' "$X/expect.yaml"
set +e
./autotune "$X/expect.yaml" > "$X/out" 2>&1
rc=$?
set -e
[ "$rc" -eq 2 ] || fail "a failing expression fill exited $rc"
grep -q "expect.yaml:7:.*cannot evaluate this for 'in': element 7, lane 0: division by zero" "$X/out" ||
	fail "a failing expression fill: $(cat "$X/out")"
rm -rf "$X"

echo "== inputs and expected outputs from data files: a raw input, an .npy of what the output must be"
X=$(mktemp -d)
cp tests/kernels/expect.yaml tests/kernels/expect.cu "$X"/
sed -i 's|fill: {expr: "i % 100"}|fill: {file: in.bin}|; s|expect: {out: "2 \* (i % 100)"}|expected: {out: out.npy}|; s|results/|'"$X"'/|g' \
	"$X/expect.yaml"
grep -q 'fill: {file: in.bin}' "$X/expect.yaml" && grep -q 'expected: {out: out.npy}' "$X/expect.yaml" ||
	fail "expect.yaml no longer has the lines this test rewrites"
# element i (int32, little-endian) is i % 100 in the input and 2 * (i % 100) in the output: one
# period of 100 elements, 100 periods a block, enough blocks for n = 1 << 20, cut to size
for k in $(seq 0 99); do printf "\\x$(printf %02x "$k")\\x00\\x00\\x00"; done > "$X/in.period"
for k in $(seq 0 99); do printf "\\x$(printf %02x $((2 * k)))\\x00\\x00\\x00"; done > "$X/out.period"
for f in in out; do
	for _ in $(seq 100); do cat "$X/$f.period"; done > "$X/$f.block"
	for _ in $(seq 105); do cat "$X/$f.block"; done | head -c $((4 << 20)) > "$X/$f.raw"
done
mv "$X/in.raw" "$X/in.bin"
# an .npy header as numpy writes it: magic, version 1.0, length, the dict padded to 64 bytes
dict="{'descr': '<i4', 'fortran_order': False, 'shape': (1048576,), }"
pad=$(( (64 - (10 + ${#dict} + 1) % 64) % 64 )); hlen=$(( ${#dict} + 1 + pad ))
{ printf '\x93NUMPY\x01\x00'; printf "\\x$(printf %02x $((hlen & 255)))\\x$(printf %02x $((hlen >> 8)))"
  printf '%s%*s\n' "$dict" "$pad" ''; cat "$X/out.raw"; } > "$X/out.npy"
[ "$(stat -c %s "$X/out.npy")" -eq $((10 + hlen + (4 << 20))) ] || fail "the .npy file written is $(stat -c %s "$X/out.npy") bytes"
./autotune "$X/expect.yaml" > "$X/out" 2>&1 || { cat "$X/out"; fail "data files: autotune exited $?"; }
"$B/csvcheck" "$X/expect.csv" 3 ok=3 || fail "data files CSV"
# one element of the expected output wrong: every configuration, the reference included, fails
printf '\x07' | dd of="$X/out.npy" bs=1 seek=$((10 + hlen + 4 * 1000)) conv=notrunc 2>/dev/null
set +e
./autotune "$X/expect.yaml" > "$X/out" 2>&1
rc=$?
set -e
[ "$rc" -ne 0 ] || fail "a wrong expected output passed"
grep -q 'only index 1000, max abs error 7 at index 1000 (got 0, expected 7)' "$X/out" "$X/expect.csv" ||
	fail "a wrong expected output: $(cat "$X/out")"
rm -rf "$X"

echo "== verify.max_mismatches: an integer output a few elements off passes, more is a wrong result"
set +e
./autotune --fresh -q tests/gpu/mismatch.yaml
rc=$?
set -e
[ "$rc" -eq 0 ] || fail "mismatch exited $rc"
"$B/csvcheck" results/mismatch.csv 3 ok=2 wrong-result=1 || fail "mismatch CSV"
grep -q "argument 1 'out': 5 of 1048576 values differ (0.00048%), only the first 5 (indices 0..4), max abs error 3 at index 2 (got -1, expected 2), max rel error 2; reference: 349526 zeros" \
	results/mismatch.csv || fail "the wrong result does not say how: $(grep 'differ' results/mismatch.csv)"

echo "== verify.host: a C reference on the host; a wrong one makes every configuration a wrong result"
./autotune --fresh -q tests/gpu/hostref.yaml || fail "hostref exited $?"
"$B/csvcheck" results/hostref.csv 32 ok=32 || fail "hostref CSV"
set +e
./autotune --fresh -q tests/gpu/hostref_wrong.yaml
rc=$?
set -e
[ "$rc" -eq 1 ] || fail "hostref_wrong exited $rc, not 1 (none passed)"
"$B/csvcheck" results/hostref_wrong.csv 32 wrong-result=32 || fail "hostref_wrong CSV"
[ "$(grep -Ec "argument 1 'out': [0-9]+ of 600000 values differ .*, max abs error [0-9.e+-]+ at index [0-9]+ \(got .*; expected values: 0 NaN, all finite" results/hostref_wrong.csv)" -eq 32 ] ||
	fail "a wrong result does not say how: $(grep -m1 'differ' results/hostref_wrong.csv)"
# the FIR kernel of configs/fir.yaml, every input source and layout, against its C reference
./autotune --fresh -q tests/gpu/fir_hostref.yaml || fail "fir_hostref exited $?"
"$B/csvcheck" results/fir_hostref.csv 32 ok=32 || fail "fir_hostref CSV"

echo "== the host makes the GPU's fills bit for bit (tests/gpu/fills.sh)"
bash tests/gpu/fills.sh || fail "host and GPU fills (tests/gpu/fills.sh)"

echo "== verify.host on a thread beside the first timings (tests/gpu/hostref_late.sh)"
bash tests/gpu/hostref_late.sh || fail "verify.host beside the timing (tests/gpu/hostref_late.sh)"

echo "== 16-bit floats: a bf16 layer norm and a half2 axpy against host references, tolerances, fills"
bash tests/gpu/half.sh || fail "16-bit floats (tests/gpu/half.sh)"

echo "== streams: four kernels in 1 to 32 streams, depth- or breadth-first, on 1, 8 or 32 hardware queues"
rm -f results/streams.csv results/streams.journal
t0=$(date +%s)
./autotune --fresh configs/streams.yaml || fail "streams exited $?"
echo "streams took $(( $(date +%s) - t0 )) s"
# every plan verified, and every one's concurrency measured (its launches one at a time / its time)
"$B/csvcheck" results/streams.csv 60 ok=60 positive=concurrency || fail "streams CSV"
grep -q '<table id="concurrency-table">' results/streams.html || fail "results/streams.html has no concurrency table"
for m in STREAMS_PLAN_STREAMS STREAMS_PLAN_ORDER STREAMS_PLAN_BREADTH_FIRST STREAMS_PLAN_CONNECTIONS; do
	grep -q "^#define $m " results/streams_tuned.h || fail "results/streams_tuned.h has no $m"
done
# the seed's table: per streams, order and connections the faster block's time and concurrency
awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
	$c["status"] == "ok" { k = $c["plan_streams"] " " $c["plan_order"] " " $c["plan_connections"]
		t = $c["final_ms_median"] != "" ? $c["final_ms_median"] : $c["time_ms_median"]
		if (!(k in best) || t + 0 < best[k] + 0) { best[k] = t; conc[k] = $c["concurrency"] } }
	END { for (k in best) printf "%s %.4f ms concurrency %s\n", k, best[k], conc[k] }' results/streams.csv |
	sort -k1,1n -k2,2 -k3,3n | tee "$B/streams_table.txt"
# the example program runs the tuned plan (no re-tuning: the header is newer than the config)
make -C examples/streams_app run > "$B/streams_app.log" 2>&1 || { cat "$B/streams_app.log"; fail "examples/streams_app"; }
tail -2 "$B/streams_app.log"
grep -q 'result checked on the CPU: correct' "$B/streams_app.log" || fail "examples/streams_app computed a wrong result"
grep -q 'build check: .*: the tuned kernel' "$B/streams_app.log" || fail "examples/streams_app does not run the tuned kernel"

echo "== the README's five-minute example: examples/saxpy tuned, built with its recipe, run"
RUN=1 sh tests/saxpy_example.sh || fail "examples/saxpy"

echo "== instances: summatrix at three sizes in one run, the selector's picks in examples/sizes_app"
# the checkout's examples run in this mirror (ROOT), so that they use its results/
./autotune --fresh configs/summatrix_sizes.yaml > "$B/sizes.log" 2>&1 || { cat "$B/sizes.log"; fail "summatrix_sizes"; }
grep 'distinct binar.* built for 3 instances' "$B/sizes.log" || fail "no count of distinct binaries in the summary"
make -C examples/sizes_app run ROOT="$PWD" > "$B/sizes_app.log" 2>&1 || { cat "$B/sizes_app.log"; fail "examples/sizes_app"; }
! grep -q 'autotune configs/summatrix_sizes.yaml' "$B/sizes_app.log" || fail "examples/sizes_app tuned again"
[ "$(grep -c ': tuned: .* in ' "$B/sizes_app.log")" -ge 2 ] || fail "examples/sizes_app: autotune check did not find the tuned kernels"
grep -q '<svg id="sizes-plot"' results/summatrix_sizes.html || fail "results/summatrix_sizes.html has no size plot"
# check_sizes LOG WHAT: each size checked on the CPU, 2048^2 given the nearest tuned size, and
# on the GPU each tuned size's pick is that instance's winner in the CSV
check_sizes() {
	grep '^[0-9]*x[0-9]*: ' "$1"
	! grep -q WRONG "$1" || fail "$2 computed a wrong result"
	grep -q '^2048x2048: untuned, the nearest tuned size' "$1" || fail "$2: no pick for 2048^2"
	for n in 1024 4096; do
		want=$(./autotune show --top 1 results/summatrix_sizes.csv |
			sed -n "s/^  nx=$n ny=$n: \(block_x=[0-9]* block_y=[0-9]* maxrreg=[0-9]*\):.*/\1/p")
		got=$(sed -n "s/^${n}x${n}: tuned, its own winner, [0-9x]*: \(block_x=[0-9]* block_y=[0-9]* maxrreg=[0-9]*\) .*/\1/p" \
			"$1")
		if [ -z "$want" ] || [ "$want" != "$got" ]; then
			grep -n '^	{' results/summatrix_sizes_tuned.h
			./autotune show --top 1 results/summatrix_sizes.csv | tail -4
			fail "$2: the selector picked '$got' for ${n}^2; the CSV's winner is '$want'"
		fi
	done
}
check_sizes "$B/sizes_app.log" examples/sizes_app
# the same program built by CMake from that run's results, every variant by autotune_tuned_header
if command -v cmake >/dev/null 2>&1; then
	rm -rf "$B/sizes_cmake"
	{ cmake -S examples/sizes_app -B "$B/sizes_cmake" -DSIZES_RESULTS="$PWD/results/summatrix_sizes.csv" &&
		cmake --build "$B/sizes_cmake" --verbose; } > "$B/sizes_cmake.log" 2>&1 ||
		{ cat "$B/sizes_cmake.log"; fail "examples/sizes_app with CMake"; }
	variants=$(sed -n 's/^SUMMATRIX_SIZES_VARIANTS := //p' "$B/sizes_cmake/autotune/summatrix_sizes.mk")
	for v in $variants; do
		grep -q -- "-DSUMMATRIX_SIZES_VARIANT=$v " "$B/sizes_cmake/autotune/summatrix_sizes.v$v.nvcc-flags" ||
			fail "CMake: variant $v's slot lacks its recipe"
	done
	echo "CMake: variants $variants"
	"$B/sizes_cmake/sizes_app" > "$B/sizes_cmake_run.log" 2>&1 || { cat "$B/sizes_cmake_run.log"; fail "the CMake-built sizes_app"; }
	check_sizes "$B/sizes_cmake_run.log" "examples/sizes_app (CMake)"
else
	echo "SKIPPED: cmake not installed (examples/sizes_app with CMake)"
fi

echo "== every config of configs/ and every feature kernel of tests/kernels, all verified"
bench/catalogue.sh || fail "a config did not tune cleanly (see ${OUT:-/tmp}/catalogue.log)"

echo "== a hand-written T1 spec imports and tunes"
./autotune import tests/t1/vector_add.json -o tests/t1/vector_add.yaml || fail "import"
./autotune --fresh tests/t1/vector_add.yaml || fail "the imported spec did not tune"
"$B/csvcheck" results/vector_add.csv 5 ok=5 || fail "vector_add CSV"
# every field the import supports: Python value lists, ProblemSize over GridDivX, __constant__
# arrays from a generator and a constant, a read-write array, a bool scalar; all 79 verified
./autotune import tests/t1/everything.json -o tests/t1/everything.yaml || fail "import everything.json"
./autotune --fresh -q tests/t1/everything.yaml || fail "the imported everything.json did not tune"
"$B/csvcheck" results/everything.csv 79 ok=79 || fail "everything CSV"

echo "== a spec as Kernel Tuner and BAT users write them: constant memory, kernel_tuner, Default, Output"
# the filter both __constant__ and argument, the kernel's own parameters unless kernel_tuner is
# defined: all 52 configurations equal Default's outputs bit for bit (the double3 'sums' is no Output)
./autotune import tests/t1/tuners.json -o tests/t1/tuners.yaml || fail "import tuners.json"
./autotune --fresh -q tests/t1/tuners.yaml || fail "the imported tuners.json did not tune"
"$B/csvcheck" results/tuners.csv 52 ok=52 || fail "tuners CSV"
# the control: with WRONG4 a tile of 4 computes otherwise, and Default has a tile of 4: the 12
# configurations of tile 4 pass and the 40 others fail, so the reference is Default's and each
# configuration compiled its own parameters (without kernel_tuner all would be the kernel's)
sed -e 's/"Values": "\[1, 2, 4\]", "Default": 1/"Values": "[1, 2, 4]", "Default": 4/' \
    -e 's/"BenchmarkConfig": {/"BenchmarkConfig": {"WRONG4": 1, /' tests/t1/tuners.json >tests/t1/tuners_wrong4.json
./autotune import tests/t1/tuners_wrong4.json -o tests/t1/tuners_wrong4.yaml || fail "import tuners_wrong4.json"
./autotune --fresh -q tests/t1/tuners_wrong4.yaml
rc=$?
[ "$rc" -eq 0 ] || fail "tuners_wrong4 exited $rc, not 0 (the tile-4 ones pass)"
"$B/csvcheck" results/tuners_wrong4.csv 52 ok=12 wrong-result=40 || fail "tuners_wrong4 CSV"
rm -f tests/t1/tuners_wrong4.json tests/t1/tuners_wrong4.yaml tests/t1/tuners.yaml

echo "== the report of a real run"
./autotune -q configs/summatrix.yaml || fail "summatrix (resumed) exited $?"
grep -q '<svg id="heatmap"' results/summatrix.html || fail "results/summatrix.html has no heat map"

if [ "$NGPUS" -ge 2 ]; then
	echo "== shards of a job array on two GPUs at once, merged"
	rm -f results/summatrix.shard-*
	./autotune -q --fresh --shard 0/2 --devices 0 configs/summatrix.yaml & p0=$!
	./autotune -q --fresh --shard 1/2 --devices 1 configs/summatrix.yaml & p1=$!
	wait $p0 || fail "shard 0 exited $?"
	wait $p1 || fail "shard 1 exited $?"
	./autotune merge configs/summatrix.yaml results/summatrix.shard-0-of-2.csv results/summatrix.shard-1-of-2.csv ||
		fail "merge exited $?"
	"$B/csvcheck" results/summatrix.csv 153 ok=153 || fail "merged CSV"
	[ "$(grep -c ';winner' results/summatrix.csv)" -eq 1 ] || fail "merged CSV: not one winner"
fi

echo "== Slurm job arrays, a GPU each through GRES (skips without Slurm or a second GPU)"
bash tests/gpu/slurm_gres.sh || fail "the Slurm GRES array (tests/gpu/slurm_gres.sh)"

echo "== the example app re-tunes only when the kernel or config changed"
make -C examples/summatrix_app run > "$B/app1.log" 2>&1 || { cat "$B/app1.log"; fail "example app (first build)"; }
tail -3 "$B/app1.log"
make -C examples/summatrix_app -n tuned > "$B/app2.log" 2>&1
cat "$B/app2.log"
grep -q 'autotune configs/summatrix.yaml' "$B/app2.log" && fail "example app re-tunes with nothing changed"
touch kernels/summatrix.cu
make -C examples/summatrix_app -n tuned > "$B/app3.log" 2>&1
cat "$B/app3.log"
grep -q 'autotune configs/summatrix.yaml' "$B/app3.log" || fail "example app does not re-tune after touch"
make -C examples/summatrix_app run > "$B/app4.log" 2>&1 || { cat "$B/app4.log"; fail "example app (after touch)"; }
grep -q 'autotune configs/summatrix.yaml' "$B/app4.log" || fail "example app did not re-tune"
tail -3 "$B/app4.log"
for log in "$B/app1.log" "$B/app4.log"; do
	grep -q 'build check: .*: the tuned kernel' "$log" || fail "the example app does not run the tuned kernel ($log)"
	grep -q 'autotune check' "$log" && grep -q ': tuned: .* in ' "$log" ||
		fail "the example app's build is not checked by autotune check ($log)"
done

echo "== a header merged from two GPUs' results compiles and runs with each target and with none"
# A recording of another model than this GPU (the header refuses two CSVs of one model): the H100
# recording in today's columns (its GPU named, its build flags from maxrreg), or the example's
# sample, an H200's run.
awk -F, -v OFS=, '{ sub(/\r$/, "") } NR == 1 { print $0, "gpu,gpu_uuid,arch,nvcc_flags,spec_hash,tuned_at,config"; next }
	{ print $0, "NVIDIA H100 80GB HBM3", "", "sm_90", ($3 > 0 ? "-maxrregcount=" $3 : ""), "", "", "configs/summatrix.yaml" }' \
	tests/data/summatrix_h100.csv > "$B/h100.csv"
here=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "gpu") c = i; next } { print $c; exit }' results/summatrix.csv)
other=
for rec in "$B/h100.csv" examples/summatrix_app/sample/summatrix.csv; do
	model=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "gpu") c = i; next } { print $c; exit }' "$rec")
	[ "$model" != "$here" ] && { other=$rec; break; }
done
[ -n "$other" ] || fail "no recording of a GPU other than $here"
echo "this GPU: $here; the other: $other"
mkdir -p "$B/merged"
./autotune header results/summatrix.csv "$other" -o "$B/merged/summatrix_tuned.h" || fail "autotune header"
[ "$(grep -c '^#if defined(AUTOTUNE_TARGET_' "$B/merged/summatrix_tuned.h")" -ge 1 ] || fail "merged header: no section per GPU"
for t in $(grep -oE 'AUTOTUNE_TARGET_[A-Z0-9][A-Z0-9_]*' "$B/merged/summatrix_tuned.h" | sort -u) ""; do
	nvcc -O3 -arch=sm_90 ${t:+-D$t} -I"$B/merged" -Ikernels -o "$B/merged/app" examples/summatrix_app/main.cu ||
		fail "merged header with ${t:-no target}"
	echo "${t:-no target}: $("$B/merged/app" | head -2 | tr '\n' ' ')"
done

echo "== the CMake example tunes on this GPU, builds and runs"
if command -v cmake >/dev/null 2>&1; then
	rm -rf "$B/cmake"
	cmake -S examples/summatrix_cmake -B "$B/cmake" > "$B/cmake.log" 2>&1 || { cat "$B/cmake.log"; fail "cmake configure"; }
	cmake --build "$B/cmake" >> "$B/cmake.log" 2>&1 || { cat "$B/cmake.log"; fail "cmake build (tuning included)"; }
	grep -q 'SUMMATRIX_TUNED_DEVICE "'"$here"'"' "$B/cmake/autotune/summatrix_tuned.h" || fail "the CMake header was not tuned on $here"
	"$B/cmake/summatrix_app" > "$B/cmake-run.log" 2>&1 || { cat "$B/cmake-run.log"; fail "the CMake-built app"; }
	cat "$B/cmake-run.log"
	grep -q 'build check: .*: the tuned kernel' "$B/cmake-run.log" || fail "the CMake-built app does not run the tuned kernel"
	cmake --build "$B/cmake" > "$B/cmake2.log" 2>&1
	grep -q 'autotune: tuning' "$B/cmake2.log" && fail "the CMake build re-tuned with nothing changed"
else
	echo "SKIPPED: cmake not installed"
fi

echo "== string parameters (types, kernel names) and a hard-coded #define"
bash tests/gpu/strparam.sh || fail "string parameters and hard-coded defines (tests/gpu/strparam.sh)"

echo "== transfer: another GPU's recording as the search's prior (tests/gpu/prior.sh)"
bash tests/gpu/prior.sh || fail "transfer with --prior (tests/gpu/prior.sh)"

echo "== energy: joules per launch and watts, an energy objective (tests/gpu/energy.sh)"
bash tests/gpu/energy.sh || fail "energy (tests/gpu/energy.sh)"

echo "== the published specs: BAT's, and benchmark_hub's, Kernel Tuner's and KTT's (side by side)"
# Each is mostly nvcc's time and checks verdicts, not times: the two run at once, each logging to a
# file of its own, shown when it ends.
bash tests/gpu/specs_bat.sh > "$B/specs_bat.log" 2>&1 & bat=$!
bash tests/gpu/specs_more.sh > "$B/specs_more.log" 2>&1 & more=$!
rc_bat=0 rc_more=0
wait $bat || rc_bat=$?
wait $more || rc_more=$?
cat "$B/specs_bat.log" "$B/specs_more.log"
[ "$rc_bat" -eq 0 ] || fail "BAT's published specs on the GPU (tests/gpu/specs_bat.sh)"
[ "$rc_more" -eq 0 ] || fail "the published specs of benchmark_hub, Kernel Tuner and KTT (tests/gpu/specs_more.sh)"

echo "PASS: make test-gpu"
