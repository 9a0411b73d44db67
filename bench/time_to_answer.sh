#!/usr/bin/env bash
# bench/time_to_answer.sh: where a whole run's time goes, this checkout against an earlier commit,
# side by side, in one call on the GPU machine (about 3-4 minutes on a 16-core H100 box):
#   - configs/summatrix.yaml, ROUNDS runs each (default 5), and bench/softmax_big.yaml (two
#     1.65 GB float arrays checked by verify.host), BIG_ROUNDS runs each (default 2); every run
#     --fresh from a cold cubin cache of its own, the two builds alternating, AUTOTUNE_TRACE on;
#   - per run: the wall time, the time from the start to the first measurement (the trace's
#     "lane 0 measures"), the winner and its time, and the summary's stages line;
#   - then bench/summatrix_loop.cu, the independent event-timed loop, against each summatrix
#     winner: the issue's checks for this checkout (median wall <= 2.0 s, one winner in every
#     run, each within 2% of the loop at its shape; the big config's first measurement < 1 s).
# Run from the repository root after `make`:
#   bench/time_to_answer.sh [BASE]
# BASE: a commit (default HEAD~1), checked out with `git worktree add` in a scratch directory and
# built there (needs this checkout's .git), or a directory holding the earlier sources (a checkout,
# or `git archive REV | tar -x -C DIR`), built there unless it is already. Exit 0
# when every check passes, 1 when one fails, 2 when something could not run. Logs under $OUT
# (default /tmp): time_to_answer.log, and each run's output in time_to_answer/.
set -uo pipefail
root=$(pwd)
BASE=${1:-HEAD~1}
ROUNDS=${ROUNDS:-5}
BIG_ROUNDS=${BIG_ROUNDS:-2}
OUTDIR=${OUT:-/tmp}
LOG=$OUTDIR/time_to_answer.log
RUNS=$OUTDIR/time_to_answer
JOBS=$(nproc)
mkdir -p "$RUNS"
: >"$LOG"
say() { echo "$*" | tee -a "$LOG" >&2; }
die() { say "CANNOT RUN: $*"; exit 2; }
work=$(mktemp -d "${TMPDIR:-/tmp}/time_to_answer-XXXXXX")
worktree=
cleanup() {
	[ -n "$worktree" ] && git -C "$root" worktree remove --force "$worktree" >/dev/null 2>&1
	rm -rf "$work"
}
trap cleanup EXIT

# the two builds: this checkout, and BASE
say "== building this checkout"
make -C "$root" -j"$JOBS" autotune autotune-worker >>"$LOG" 2>&1 || die "make failed here, see $LOG"
if [ -d "$BASE" ]; then
	prev=$(cd "$BASE" && pwd)
	# its own commit when it is a checkout of its own; a plain copy (git archive) is its name
	label=$(basename "$prev")
	[ -e "$prev/.git" ] && label=$(git -C "$prev" rev-parse --short HEAD 2>/dev/null || echo "$label")
else
	rev=$(git -C "$root" rev-parse --short "$BASE" 2>/dev/null) ||
		die "'$BASE' is neither a directory nor a commit of this checkout (no .git here? give a built checkout's directory)"
	worktree=$work/base
	git -C "$root" worktree add --detach "$worktree" "$rev" >>"$LOG" 2>&1 || die "git worktree add $rev failed, see $LOG"
	prev=$worktree
	label=$rev
fi
[ -x "$prev/autotune" ] && [ -x "$prev/autotune-worker" ] || {
	say "== building $label in $prev"
	make -C "$prev" -j"$JOBS" autotune autotune-worker >>"$LOG" 2>&1 || die "make failed in $prev, see $LOG"
}
here=$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo here)
[ "$(git -C "$root" status --porcelain --untracked-files=no 2>/dev/null)" ] && here="$here+"

# One run: NAME CONFIG BUILD-DIR LABEL ROUND; a line of the table on stdout, the run's output in
# $RUNS/NAME-LABEL-ROUND.log. Each runs in a scratch directory: its results/ is not the checkout's.
run_one() {
	local name=$1 cfg=$2 dir=$3 lab=$4 round=$5
	local d=$work/$name-$lab-$round out=$RUNS/$name-$lab-$round.log
	mkdir -p "$d/cache"
	local s e rc=0
	s=$(date +%s.%N)
	(cd "$d" && AUTOTUNE_TRACE=1 "$dir/autotune" --fresh --cache-dir "$d/cache" "$cfg") >"$out" 2>&1 || rc=$?
	e=$(date +%s.%N)
	[ -f "$d/results/$name.worker.log" ] && grep -E 'hostref|: (array|hostref|warmup): ' "$d/results/$name.worker.log" >>"$out"
	local wall first winner stages
	wall=$(awk -v a="$s" -v b="$e" 'BEGIN { printf "%.2f", b - a }')
	first=$(awk '/^trace main [0-9.]+: start$/ { t0 = $3 + 0 }
		/^trace main [0-9.]+: lane 0 measures$/ && !t1 { t1 = $3 + 0 }
		END { if (t0 && t1) printf "%.2f", t1 - t0; else printf "-" }' "$out")
	# the winner's parameters (the columns before blockDim.x) and its time (the finalists' if any)
	winner=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) { c[$i] = i; if ($i == "blockDim.x" && !np) np = i - 1 } next }
		$c["flags"] ~ /winner/ { p = $1; for (i = 2; i <= np; i++) p = p "x" $i
			t = $c["final_ms_median"] != "" ? $c["final_ms_median"] : $c["time_ms_median"]; print p, t; exit }' \
		"$d/results/$name.csv" 2>/dev/null)
	[ -n "$winner" ] || winner="none -"
	stages=$(grep -m1 -E "^$name: [0-9.]+ s: " "$out" | sed "s/^$name: //")
	printf "%-12s %-9s %2s %4s %7s %7s  %-12s %9s  %s\n" "$name" "$lab" "$round" "$rc" "$wall" "$first" $winner "$stages"
}

table=$work/table
printf "%-12s %-9s %2s %4s %7s %7s  %-12s %9s  %s\n" config build run exit wall_s first_s winner ms stages | tee -a "$LOG"
for spec in "summatrix $root/configs/summatrix.yaml $ROUNDS" "softmax_big $root/bench/softmax_big.yaml $BIG_ROUNDS"; do
	read -r name cfg rounds <<<"$spec"
	for r in $(seq "$rounds"); do
		# alternating, so that a drift of the machine falls on both
		if [ $((r % 2)) -eq 1 ]; then
			run_one "$name" "$cfg" "$prev" "$label" "$r"
			run_one "$name" "$cfg" "$root" "$here" "$r"
		else
			run_one "$name" "$cfg" "$root" "$here" "$r"
			run_one "$name" "$cfg" "$prev" "$label" "$r"
		fi
	done
done | tee -a "$LOG" "$table"

say "== medians"
awk '{ k = $1 " " $2; n[k]++; w[k, n[k]] = $5; f[k, n[k]] = $6; win[k] = win[k] " " $7 }
	function med(a, k, m,   i, j, x, v) { for (i = 1; i <= m; i++) v[i] = a[k, i]
		for (i = 1; i <= m; i++) for (j = i + 1; j <= m; j++) if (v[j] < v[i]) { x = v[i]; v[i] = v[j]; v[j] = x }
		return m % 2 ? v[(m + 1) / 2] : (v[m / 2] + v[m / 2 + 1]) / 2 }
	END { for (k in n) printf "%-22s wall %6.2f s, first measurement %6.2f s, winners:%s\n", k, med(w, k, n[k]), med(f, k, n[k]), win[k] }' \
	"$table" | sort | tee -a "$LOG"

# the independent loop against this checkout's summatrix winners
say "== bench/summatrix_loop.cu, 50 launches a shape"
nvcc -O3 -arch=sm_90 -o "$work/loop" "$root/bench/summatrix_loop.cu" >>"$LOG" 2>&1 || die "nvcc of the loop failed, see $LOG"
"$work/loop" 16384 16384 50 >"$work/loop.txt" 2>>"$LOG" || die "the loop failed, see $LOG"
cat "$work/loop.txt" >>"$LOG"
# check BUILD: the issue's checks on BUILD's runs
check() {
awk -v here="$1" -v n="$ROUNDS" -v needbig="$2" '
	FILENAME == ARGV[1] { if ($1 == "shape") loop[$2 "x" $3] = $4; next }
	$1 == "softmax_big" && $2 == here { big++; if ($6 == "-" || $6 + 0 >= 1.0) bigslow++; if ($4 != 0) bad++ }
	$1 != "summatrix" || $2 != here { next }
	{ runs++; walls[runs] = $5; if ($4 != 0) bad++
	  split($7, p, "x"); shape = p[1] "x" p[2]; shapes[shape]++
	  if (!(shape in loop)) { printf "FAIL run %d: no loop time for %s\n", $3, shape; off++; next }
	  d = 100 * ($8 - loop[shape]) / loop[shape]
	  printf "run %d: winner %s %.4f ms, loop %.4f ms (%+.2f%%)\n", $3, shape, $8, loop[shape], d
	  if (d > 2 || d < -2) off++ }
	END {
		for (i = 1; i <= runs; i++) for (j = i + 1; j <= runs; j++) if (walls[j] < walls[i]) { x = walls[i]; walls[i] = walls[j]; walls[j] = x }
		m = runs % 2 ? walls[(runs + 1) / 2] : (walls[runs / 2] + walls[runs / 2 + 1]) / 2
		k = 0; for (s in shapes) k++
		ok = 1
		printf "%s summatrix median wall %.2f s <= 2.0 s\n", m <= 2.0 ? "PASS" : "FAIL", m; ok = ok && m <= 2.0
		printf "%s one winner shape in %d of %d runs (%d shapes)\n", k == 1 && runs == n ? "PASS" : "FAIL", k == 1 ? runs : 0, n, k; ok = ok && k == 1 && runs == n
		printf "%s every winner within 2%% of the loop\n", off ? "FAIL" : "PASS"; ok = ok && !off
		if (needbig) {
			printf "%s softmax_big first measurement < 1 s in %d of %d runs\n", bigslow || !big ? "FAIL" : "PASS", big - bigslow, big
			ok = ok && !bigslow && big
		}
		printf "%s every run exited 0\n", bad ? "FAIL" : "PASS"; ok = ok && !bad
		exit !ok
	}' "$work/loop.txt" "$table" | tee -a "$LOG"
return "${PIPESTATUS[0]}"
}
say "== $here"
check "$here" 1
rc=$?
exit "$rc"
