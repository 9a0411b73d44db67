#!/bin/sh
# tests/slurm.sh: job arrays under a real Slurm (make integration), on the stand-in worker. A
# single-node Slurm of its own (tests/slurm_lib.sh: slurmctld and slurmd in a temporary directory,
# six stand-in GPUs through GRES, character devices every system has) runs
#  1. the block of docs/reference.md marked for it, as written: an array of 4 tasks of
#     `autotune --shard I/4 configs/x.yaml`, then `autotune merge`; the merged CSV, header, make
#     fragment and report are byte for byte one process's for the same measurements (but the
#     run's time and nvcc's seconds); x.yaml names a reference, which every shard measures;
#  2. a time limit: an array of 2 tasks with --time=1 and three minutes of work each gets SIGTERM
#     from Slurm: each task writes its CSV of what it measured and exits 143 (the job's ExitCode
#     143:0, state TIMEOUT), leaving no lock; the same command resubmitted resumes from the journal:
#     it measures the rest, nothing twice, and the merged results are complete.
# As root, it runs itself as nobody where nobody can read the checkout. Skipped, saying why, where
# Slurm is not installed or cannot start. About 95 s: Slurm checks time limits every 30 s. Run from
# the repository root after `make all build/fake_worker build/csv_same`.
set -eu
top=$(pwd)
NVCC=${NVCC:-${CUDA_HOME:-/usr/local/cuda}/bin/nvcc}
command -v "$NVCC" >/dev/null 2>&1 || NVCC=$top/build/fake_nvcc
fail() { echo "Slurm test: FAILED: $*" >&2; exit 1; }
. "$top/tests/slurm_lib.sh"
why=$(slurm_missing)
if [ -n "$why" ]; then
	echo "SKIPPED: $why (tests/slurm.sh: the job-array commands under a real Slurm)"
	exit 0
fi
for f in autotune build/fake_worker build/csv_same; do [ -x "$f" ] || fail "no $f: make it first"; done
# As root (CI), the daemons and jobs run as nobody where it can read the checkout and run nvcc: a
# Slurm as its users have it, whose slurmd cannot act as anyone else.
if [ "$(id -u)" -eq 0 ] && [ -z "${SLURM_TEST_AS:-}" ] && command -v setpriv >/dev/null 2>&1 && id nobody >/dev/null 2>&1; then
	as_nobody() { setpriv --reuid="$(id -u nobody)" --regid="$(id -g nobody)" --clear-groups "$@"; }
	if as_nobody sh -c 'test -r docs/reference.md && test -x autotune && test -x build/fake_worker &&
		test -w "${TMPDIR:-/tmp}" && "$1" --version >/dev/null 2>&1' sh "$NVCC"; then
		exec setpriv --reuid="$(id -u nobody)" --regid="$(id -g nobody)" --clear-groups \
			env SLURM_TEST_AS=nobody HOME="${TMPDIR:-/tmp}" sh "$0" "$@"
	fi
	echo "tests/slurm.sh: nobody cannot read this checkout or run $NVCC: Slurm runs as root"
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/autotune-slurm-XXXXXX")
trap 'slurm_stop; [ -n "${SLURM_TEST_KEEP:-}" ] || rm -rf "$tmp"' EXIT
trap 'exit 1' INT TERM HUP
if ! slurm_start "$tmp/slurm" /dev/null /dev/zero /dev/full /dev/random /dev/urandom /dev/tty; then
	echo "SKIPPED: Slurm is installed but did not start here (above) (tests/slurm.sh)"
	exit 0
fi

# the docs' commands find autotune on PATH, the stand-in worker and a cache of their own
PATH=$top:$PATH
AUTOTUNE_WORKER=$top/build/fake_worker
XDG_CACHE_HOME=$tmp/cache
export PATH AUTOTUNE_WORKER XDG_CACHE_HOME NVCC
unset FAKE_SLEEP_MS FAKE_LOG FAKE_GPUS CUDA_VISIBLE_DEVICES
w=$tmp/work
mkdir -p "$w/configs" "$w/kernels" "$w/one/configs"
cat >"$w/kernels/x.cu" <<'EOF'
extern "C" __global__ void k(float *a, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) a[i] = i; }
EOF
# one binary, a launch per configuration: no two share a measurement, so that each shard measures
# what one process measures; no finalists (each shard re-times its own)
space() {
	cat <<EOF
name: $1
kernel: {source: ../kernels/x.cu, entry: k}
arguments:
  - {name: a, type: float, count: 4096, output: true}
  - {name: n, type: int32, value: 4096}
space: {bx: {start: 1, stop: $2}}
launch: {block: [bx], grid: ["ceil_div(4096, bx)"]}
verify: {reference: {bx: 7}}
measure: {finalists: 0, metrics: none}
EOF
}
space x 41 >"$w/configs/x.yaml"
space t 120 >"$w/configs/t.yaml"

# 2 first, in the background of 1: three minutes of work a task (3 s a configuration), a minute's limit
cd "$w"
tl=$(FAKE_SLEEP_MS=3000 sbatch --parsable --time=1 --array=0-1 --gpus=1 \
	--wrap 'exec autotune --shard $SLURM_ARRAY_TASK_ID/2 configs/t.yaml') || fail "sbatch of the time-limit array"

# 1: the marked block, as written
awk '/^<!-- tests\/slurm\.sh runs this block/ { marked = 1; next }
	marked && /^```sh$/ { inside = 1; marked = 0; blocks++; next }
	inside && /^```$/ { inside = 0; next }
	inside { print }
	END { if (blocks != 1) exit 1 }' "$top/docs/reference.md" >"$tmp/steps.sh" || fail "no block marked for tests/slurm.sh in docs/reference.md"
grep -q '^sbatch .*--array=0-3 .*--gpus=1 .*autotune --shard \$SLURM_ARRAY_TASK_ID/4 configs/x.yaml' "$tmp/steps.sh" &&
	grep -q '^autotune merge configs/x.yaml results/x.shard-\*-of-4.csv' "$tmp/steps.sh" ||
	fail "the marked block is not the 4-task array of configs/x.yaml and its merge: $(cat "$tmp/steps.sh")"
timeout 600 sh -e -x "$tmp/steps.sh" >"$tmp/steps.log" 2>&1 || { tail -30 "$tmp/steps.log" slurm-*.out >&2; fail "the docs' commands (above)"; }
for i in 0 1 2 3; do
	grep -q "shard $i of 4" slurm-*_$i.out 2>/dev/null || fail "no task $i ran (slurm-*_$i.out)"
done
[ -f results/x.csv ] && [ -f results/x_tuned.h ] || fail "autotune merge wrote no results/x.csv or header"
# one process, the same configuration and cache, in a directory of its own
cp configs/x.yaml one/configs/ && cp -r kernels one/
(cd one && autotune -q configs/x.yaml) >"$tmp/one.log" 2>&1 || { cat "$tmp/one.log" >&2; fail "one process's run"; }
# the run's time and nvcc's seconds aside (the report lists each time the shards started, one
# process has one)
same_bytes() {
	for file in "$1" "$2"; do
		awk -F, -v OFS=, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "compile_s") c = i }
			c && NR > 1 { $c = "" } { print }' "$file" |
			sed -E -e 's/[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z/TIME/g' -e 's/TIME(, TIME)+/TIME/g' >"$file.same"
	done
	cmp "$1.same" "$2.same" >/dev/null
}
for f in x.csv x_tuned.h x.mk x.html; do
	same_bytes one/results/$f results/$f || { "$top/build/csv_same" one/results/x.csv results/x.csv >&2 || true
		diff one/results/$f.same results/$f.same | head >&2; fail "merged $f differs from one process's"; }
done
rows=$(($(grep -c '^' results/x.csv) - 1))
[ "$rows" -eq 41 ] || fail "the merged CSV has $rows rows, not 41"
echo "Slurm test: the docs' 4-task array merged equals one process ($rows configurations, reference in every shard)"

# 2: the time limit
slurm_wait_done "$tl" 300 || fail "the time-limited array did not end within 300 s"
for i in 0 1; do
	info=$(scontrol show job "${tl}_$i")
	echo "$info" | grep -q 'JobState=TIMEOUT' || fail "task $i: not ended by its time limit: $(echo "$info" | grep -o 'JobState=[A-Z_]*')"
	echo "$info" | grep -q 'ExitCode=143:0' || fail "task $i: autotune did not exit 143: $(echo "$info" | grep -o 'ExitCode=[0-9:]*')"
	csv=results/t.shard-$i-of-2.csv
	[ -f "$csv" ] || fail "task $i wrote no $csv"
	[ ! -e results/t.shard-$i-of-2.journal.lock ] || fail "task $i left its lock"
	grep -q 'stopped by SIGTERM: resume with the same command' slurm-${tl}_$i.out || fail "task $i did not say it was stopped"
	done_rows=$(grep -c '^done ' results/t.shard-$i-of-2.journal || true)
	[ "$(($(grep -c '^' "$csv") - 1))" -ge "$done_rows" ] || fail "task $i: its CSV lists fewer than the $done_rows measured"
	eval "before_$i=$done_rows"
done
# resubmitted as it was, at full speed: it resumes
timeout 300 sbatch --wait --array=0-1 --gpus=1 --wrap 'exec autotune --shard $SLURM_ARRAY_TASK_ID/2 configs/t.yaml' >/dev/null ||
	{ tail slurm-*.out >&2; fail "the resubmitted array"; }
for i in 0 1; do
	j=results/t.shard-$i-of-2.journal
	n=$(grep -c '^done ' "$j")
	twice=$(grep '^done ' "$j" | awk '{print $2}' | sort | uniq -d | head -3)
	[ -z "$twice" ] || fail "task $i measured configurations $twice twice"
	eval "b=\$before_$i"
	last=$(ls -t slurm-*_$i.out | head -1)
	# (a machine too slow to measure one before the limit resumes from nothing: still no repeat)
	[ "$b" -eq 0 ] || grep -q "resuming: $b configurations measured before" "$last" ||
		fail "task $i did not resume from its $b: $(grep resuming "$last")"
	ok=$(grep -c ',ok,' results/t.shard-$i-of-2.csv)
	[ "$n" -eq "$ok" ] && [ "$n" -gt "$b" ] || fail "task $i: $n measurements in its journal, $ok ok rows in its CSV"
done
autotune -q merge configs/t.yaml results/t.shard-0-of-2.csv results/t.shard-1-of-2.csv ||
	fail "merge of the resumed shards"
[ "$(grep -c ',ok,' results/t.csv)" -eq 120 ] || fail "the resumed shards' merge has $(grep -c ',ok,' results/t.csv) ok of 120"
grep -q '#define T_COMPLETE 1' results/t_tuned.h || fail "the resumed shards' merge is not complete"
echo "Slurm test: ok (time limit: exit 143, $before_0 + $before_1 measured before it, resumed to 120, nothing twice; as $(id -un))"
