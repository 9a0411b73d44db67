#!/usr/bin/env bash
# bench/transfer.sh: the default strategy with and without transfer (autotune --prior), scored as
# bench/anytime.sh scores it (the methodology's time and evaluation axes, then the fixed-budget
# median/worst tenth/random at 1, 2, 5, 10 and 20%), on the three spaces tests/data has on both an
# H100 and an H200, in both directions: each GPU's recording replayed with the built-in model, with
# the other GPU's recording as its prior, and with that prior's ranking reversed (a transfer that
# misleads: it should be set aside and cost little). No GPU. Run from the repository root after
# `make build/anytime_score`; SEEDS (30).
set -euo pipefail
SEEDS=${SEEDS:-30}
export STRATEGIES=model
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# a recording with its ranking reversed: each passed time t as fastest + slowest - t
reverse() {
	awk -F, -v OFS=, 'NR == FNR { if (FNR == 1) { for (i = 1; i <= NF; i++) col[$i] = i; next }
		if ($col["status"] == "ok") { t = $col["final_ms_median"] != "" ? $col["final_ms_median"] : $col["time_ms_median"];
			lo = (lo == "" || t < lo) ? t : lo; hi = (t > hi) ? t : hi }; next }
		FNR == 1 { print; next }
		$col["status"] == "ok" { sub(/\r$/, ""); if ($col["final_ms_median"] != "") $col["final_ms_median"] = sprintf("%.6g", lo + hi - $col["final_ms_median"]);
			$col["time_ms_median"] = sprintf("%.6g", lo + hi - $col["time_ms_median"]); print $0 "\r"; next } { print }' "$1" "$1"
}
for space in configs/summatrix.yaml:summatrix configs/reduce.yaml:reduce bench/spaces/transpose_big.yaml:transpose_big; do
	cfg=${space%%:*} name=${space#*:}
	for dir in "h100 h200" "h200 h100"; do
		set -- $dir
		to=tests/data/${name}_$1.csv from=tests/data/${name}_$2.csv
		reverse "$from" > "$tmp/${name}_$2_reversed.csv"
		for prior in none "$from" "$tmp/${name}_$2_reversed.csv"; do
			pair=$cfg:$to
			[ "$prior" = none ] || pair=$pair:$prior
			printf '%-8s %-42s ' "$1" "${prior#$tmp/}"
			build/anytime_score "$SEEDS" "$pair" | awk 'NR == 2 { $1 = ""; $2 = ""; print }'
		done
	done
done
