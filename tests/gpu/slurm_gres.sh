#!/usr/bin/env bash
# tests/gpu/slurm_gres.sh: GPUs through Slurm's GRES (make test-gpu, from tests/gpu.sh's mirror,
# after `make`). A single-node Slurm of its own (tests/slurm_lib.sh) with a gres.conf for
# /dev/nvidia0 and /dev/nvidia1 runs exhaustive configs/summatrix.yaml, ROUNDS times (3), alternating:
#   one task:  sbatch --gpus=1 --wrap 'exec autotune --fresh configs/summatrix.yaml'
#   two tasks: the docs' array (docs/reference.md, Scaling out) of 2 with --gpus=1 each, then merge
# and checks that each task saw one GPU (CUDA_VISIBLE_DEVICES as Slurm set it, one entry, the two
# tasks' different; every row of a shard measured on one GPU, the two shards' on different GPUs),
# that the merged CSV has 153 ok rows and one winner, and that the merged winner is the one task's
# (or, where they differ, a near-tie: within 1% in the one task's own CSV, reported as such). It
# prints each round's wall times, submit to the end of the last task (squeue polled every 0.1 s),
# and autotune's own (its summary line), then the ratio of the medians: the issue asks 2 tasks
# <= 0.55x the wall of one. Exit 1 on the first check that fails.
#
# The GPU machine has no Slurm and no network: Debian 12's Slurm 22.05 and the libraries it needs
# are carried in as .deb files in .deps/slurm/ and unpacked (not installed) into a temporary
# directory. Fetch them once, on a Debian 12 machine (the development machine):
#   mkdir -p .deps/slurm && (cd .deps/slurm && apt-get download slurmctld slurmd slurm-client \
#     slurm-wlm-basic-plugins libhwloc15 liblz4-1 libnuma1 libjson-c5 liblua5.1-0 libreadline8 \
#     libtinfo6 libcap-ng0 libaudit1 libudev1 libpam0g)
# Skips, saying why, with fewer than 2 GPUs, or without Slurm (installed, or in .deps/slurm).
set -uo pipefail
fail() { echo "FAIL: tests/gpu/slurm_gres.sh: $*" >&2; exit 1; }
top=$(pwd)
ROUNDS=${ROUNDS:-3}
ngpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ' || true)
if [ "${ngpus:-0}" -lt 2 ]; then
	echo "SKIPPED: ${ngpus:-0} GPU(s) (tests/gpu/slurm_gres.sh needs 2)"
	exit 0
fi
if [ ! -c /dev/nvidia0 ] || [ ! -c /dev/nvidia1 ]; then
	echo "SKIPPED: no /dev/nvidia0 and /dev/nvidia1 for gres.conf (tests/gpu/slurm_gres.sh)"
	exit 0
fi
. "$top/tests/slurm_lib.sh"
W=$(mktemp -d "${TMPDIR:-/tmp}/slurm-gres-XXXXXX")
trap 'slurm_stop; rm -rf "$W"' EXIT
trap 'exit 1' INT TERM HUP
if [ -n "$(slurm_missing)" ] && ls "$top"/.deps/slurm/*.deb >/dev/null 2>&1; then
	slurm_from_debs "$top/.deps/slurm" "$W/root" || fail "unpacking .deps/slurm"
fi
why=$(slurm_missing)
if [ -n "$why" ]; then
	echo "SKIPPED: $why (tests/gpu/slurm_gres.sh; or put Slurm's .deb files in .deps/slurm: see its header)"
	exit 0
fi
slurm_start "$W/slurm" /dev/nvidia0 /dev/nvidia1 || fail "Slurm did not start (above)"
sinfo -N -o '%N %G %t'
mkdir -p "$top/build/tests"
[ -x "$top/build/tests/csvcheck" ] || cc -std=c11 -O2 -o "$top/build/tests/csvcheck" "$top/tests/gpu/csvcheck.c" || fail "csvcheck"

# the commands find this checkout's autotune on PATH, a cache of their own, every GPU
PATH=$top:$PATH
XDG_CACHE_HOME=$W/cache
export PATH XDG_CACHE_HOME
unset CUDA_VISIBLE_DEVICES AUTOTUNE_WORKER
mkdir -p "$W/work" && cp -r "$top/configs" "$top/kernels" "$W/work/" && cd "$W/work" || fail "work directory"
autotune -q --dry-run configs/summatrix.yaml || fail "the warm-up dry run" # compiles into the cache

now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.3f", b - a }'; }
col() { head -1 "$1" | tr -d '\r' | tr , '\n' | grep -n "^$2\$" | cut -d: -f1; }
winner() { grep -E '(^|,|;)winner(;|,)' "$1" | cut -d, -f1-3; }
own_wall() { sed -n 's/^summatrix: \([0-9.]*\) s: .*/\1/p' "$1" | head -1; }
# ends the job's tasks' check: JobState COMPLETED, ExitCode 0:0
job_ok() {
	info=$(scontrol show job "$1")
	echo "$info" | grep -q 'JobState=COMPLETED' && echo "$info" | grep -q 'ExitCode=0:0' ||
		fail "job $1: $(echo "$info" | grep -o 'JobState=[A-Z_]*\|ExitCode=[0-9:]*' | tr '\n' ' ')"
}
one=() two=() own1=() own2=()
for r in $(seq "$ROUNDS"); do
	rm -rf results slurm-*.out
	t=$(now)
	j1=$(sbatch --parsable --gpus=1 --wrap 'exec autotune --fresh configs/summatrix.yaml') || fail "sbatch (one task)"
	slurm_wait_done "$j1" 900 || fail "the one-task job did not end in 900 s"
	s1=$(since "$t")
	job_ok "$j1"
	cp results/summatrix.csv "$W/one_$r.csv"
	o1=$(own_wall "slurm-$j1.out")

	rm -rf results
	t=$(now)
	j2=$(sbatch --parsable --array=0-1 --gpus=1 \
		--wrap 'echo "CUDA_VISIBLE_DEVICES=$CUDA_VISIBLE_DEVICES" >&2; exec autotune --fresh --shard $SLURM_ARRAY_TASK_ID/2 configs/summatrix.yaml') ||
		fail "sbatch (two tasks)"
	slurm_wait_done "$j2" 900 || fail "the two-task array did not end in 900 s"
	s2=$(since "$t")
	job_ok "${j2}_0"
	job_ok "${j2}_1"
	o2=0
	uuids=""
	for i in 0 1; do
		out=slurm-${j2}_$i.out
		cvd=$(sed -n 's/^CUDA_VISIBLE_DEVICES=//p' "$out")
		case "$cvd" in '' | *,*) fail "task $i: CUDA_VISIBLE_DEVICES '$cvd', not one GPU" ;; esac
		eval "cvd_$i=\$cvd"
		csv=results/summatrix.shard-$i-of-2.csv
		c=$(col "$csv" gpu_uuid)
		u=$(tail -n +2 "$csv" | cut -d, -f"$c" | grep -v '^$' | sort -u)
		[ "$(echo "$u" | wc -l)" -eq 1 ] || fail "task $i measured on more than one GPU: $u"
		uuids="$uuids $u"
		w=$(own_wall "$out")
		o2=$(awk -v a="$o2" -v b="$w" 'BEGIN { print (b > a) ? b : a }')
	done
	[ "$cvd_0" != "$cvd_1" ] || fail "both tasks were given GPU $cvd_0"
	[ "$(echo $uuids | tr ' ' '\n' | sort -u | wc -l)" -eq 2 ] || fail "both tasks measured on one GPU ($uuids)"
	autotune merge configs/summatrix.yaml results/summatrix.shard-0-of-2.csv results/summatrix.shard-1-of-2.csv \
		>"$W/merge.log" 2>&1 || { cat "$W/merge.log"; fail "merge"; }
	"$top/build/tests/csvcheck" results/summatrix.csv 153 ok=153 || fail "merged CSV"
	[ "$(grep -c ';winner\|,winner' results/summatrix.csv)" -eq 1 ] || fail "merged CSV: not one winner"
	w1=$(winner "$W/one_$r.csv")
	w2=$(winner results/summatrix.csv)
	if [ "$w1" = "$w2" ]; then
		same="same winner $w1"
	else
		# the merged winner's time and the winner's, both in the one task's CSV
		c=$(col "$W/one_$r.csv" time_ms_median)
		t1=$(grep -E "^$w1," "$W/one_$r.csv" | head -1 | cut -d, -f"$c")
		t2=$(grep -E "^$w2," "$W/one_$r.csv" | head -1 | cut -d, -f"$c")
		awk -v a="$t1" -v b="$t2" 'BEGIN { exit !(b <= a * 1.01) }' ||
			fail "round $r: merged winner $w2 ($t2 ms in the one task's run) is not the one task's $w1 ($t1 ms)"
		same="near-tie: one task $w1 ($t1 ms), merged $w2 ($t2 ms in the one task's CSV)"
	fi
	one+=("$s1") two+=("$s2") own1+=("$o1") own2+=("$o2")
	echo "round $r: one task ${s1} s (autotune ${o1} s) | two tasks ${s2} s (autotune ${o2} s, the slower task) | GPUs $cvd_0 and $cvd_1 | $same"
done
median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
m1=$(median "${one[@]}") m2=$(median "${two[@]}") a1=$(median "${own1[@]}") a2=$(median "${own2[@]}")
awk -v a="$m1" -v b="$m2" -v c="$a1" -v d="$a2" 'BEGIN {
	printf "median wall, submit to last task ended: one task %.3f s, two tasks %.3f s, ratio %.3f\n", a, b, b / a
	printf "median wall, autotune (its summary): one task %.3f s, two tasks %.3f s, ratio %.3f\n", c, d, d / c }'
echo "Slurm GRES test: ok ($ROUNDS rounds)"
