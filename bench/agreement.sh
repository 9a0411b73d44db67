#!/usr/bin/env bash
# bench/agreement.sh: issue 3's check that autotune's medians agree with an independent harness.
# Run after bench/summatrix.sh (which leaves results/summatrix.csv and results/bench/loop.txt from
# the same device call). For five block shapes, compares autotune's median (maxrreg 0 row) with
# the loop's, side by side; passes when every pair agrees within 2%.
set -euo pipefail
CSV=results/summatrix.csv
LOOP=results/bench/loop.txt
SHAPES="256 1 128 2 32 32 16 16 1 32"
awk -F, -v shapes="$SHAPES" '
	FNR == 1 && FILENAME == ARGV[1] { sub(/\r$/, ""); for (i = 1; i <= NF; i++) col[$i] = i; next }
	FILENAME == ARGV[1] {
		sub(/\r$/, "")
		if ($col["status"] == "ok" && $col["maxrreg"] == 0)
			at[$col["blockDim.x"] " " $col["blockDim.y"]] = $col["time_ms_median"]
		next
	}
	/^shape / { split($0, f, " "); loop[f[2] " " f[3]] = f[4] }  # -F, does not split these
	END {
		n = split(shapes, s, " ")
		printf "%-10s %12s %12s %8s\n", "block", "autotune ms", "loop ms", "diff"
		bad = 0
		for (i = 1; i < n; i += 2) {
			k = s[i] " " s[i + 1]
			if (!(k in at) || !(k in loop)) { printf "%-10s missing\n", k; bad = 1; continue }
			d = 100 * (at[k] - loop[k]) / loop[k]
			printf "%-10s %12.4f %12.4f %+7.2f%%\n", s[i] "x" s[i + 1], at[k], loop[k], d
			if (d > 2 || d < -2) bad = 1
		}
		print (bad ? "FAIL" : "PASS") " all five within 2%"
		exit bad
	}' "$CSV" "$LOOP"
