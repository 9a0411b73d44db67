#!/usr/bin/env bash
# tests/gpu/half.sh (tests/gpu.sh runs it, in its mirror of the checkout, after building csvcheck):
# 16-bit floats on the GPU. The bf16 layer norm and the half2 axpy tuned against host references
# written for them (every configuration verified), those references made wrong on purpose (the
# checks catch what the type's tolerance should catch, and pass what it should pass), and every
# fill of a 16-bit array checked bit for bit.
set -euo pipefail
fail() { echo "FAIL: $*" >&2; exit 1; }
B=build/tests
[ -x "$B/csvcheck" ] || cc -std=c11 -O2 -Wall -Wextra -Werror -o "$B/csvcheck" tests/gpu/csvcheck.c

echo "== half: the bf16 layer norm, every configuration against the host reference"
./autotune --fresh -q tests/gpu/layernorm_bf16_host.yaml || fail "layernorm_bf16_host exited $?"
"$B/csvcheck" results/layernorm_bf16_host.csv 30 ok=30 || fail "layernorm_bf16_host CSV"

echo "== half: the half2 axpy, every configuration bit for bit against the host reference"
./autotune --fresh -q tests/gpu/axpy_half2_host.yaml || fail "axpy_half2_host exited $?"
"$B/csvcheck" results/axpy_half2_host.csv 20 ok=20 || fail "axpy_half2_host CSV"

echo "== half: the shipped configs tune (their reference chosen by vote)"
for c in layernorm_bf16 axpy_half2; do
	./autotune --fresh -q "configs/$c.yaml" || fail "configs/$c.yaml exited $?"
	grep -q ",ok," "results/$c.csv" || fail "$c: no configuration passed"
	! grep -q ",wrong-result," "results/$c.csv" || fail "$c: $(grep -m1 ',wrong-result,' "results/$c.csv")"
done

# A variant of a host-verified config, with the reference built with `flags`, at one configuration.
variant() { # NAME BASE FLAGS SPACE
	sed -e "s|^name: .*|name: $1|" -e "s|results/$2|results/$1|g" -e "s|\.\./\.\./kernels/|$PWD/kernels/|g" \
		-e "s|function: \([a-z0-9_]*\)}|function: \1, flags: [$3]}|" -e "s|^space:|space: $4\nold_space:|" \
		"tests/gpu/$2.yaml" | sed '/^old_space:/,/^launch:/{/^launch:/!d}' > "$B/$1.yaml"
}
expect_wrong() { # NAME PATTERN: every configuration a wrong result, its message matching
	set +e
	./autotune --fresh -q "$B/$1.yaml"
	rc=$?
	set -e
	[ "$rc" -eq 1 ] || fail "$1 exited $rc, not 1 (none passed)"
	"$B/csvcheck" "results/$1.csv" 1 wrong-result=1 || fail "$1 CSV"
	grep -Eq "$2" "results/$1.csv" || fail "$1: the message does not say '$2': $(grep -m1 differ "results/$1.csv")"
}
echo "== half: the tolerances suit the types"
one_ln="{BLOCK: [256], VEC: [8], ONE_PASS: [0]}"
one_ax="{BLOCK: [256], ITEMS: [4]}"
# bfloat16 out one unit in the last place off everywhere: within 2 epsilons, passes
variant ln_ulp1 layernorm_bf16_host -DOUT_ULPS=1 "$one_ln"
./autotune --fresh -q "$B/ln_ulp1.yaml" || fail "ln_ulp1 (one ulp off) exited $?"
"$B/csvcheck" results/ln_ulp1.csv 1 ok=1 || fail "ln_ulp1 CSV"
# eight units off: a wrong result, said of out, with bfloat16's digits
variant ln_ulp8 layernorm_bf16_host -DOUT_ULPS=8 "$one_ln"
expect_wrong ln_ulp8 "argument 1 'out': [0-9]+ of 6291456 values differ"
# rstd 1e-4 off: float's tolerance catches it while the bfloat16 output passes
variant ln_rstd layernorm_bf16_host -DRSTD_OFF=1e-4 "$one_ln"
expect_wrong ln_rstd "argument 3 'rstd': 8192 of 8192 values differ"
# a reference that truncates instead of rounding to nearest even: not bit for bit
variant ax_trunc axpy_half2_host -DTRUNCATE "$one_ax"
expect_wrong ax_trunc "argument 1 'out': [0-9]+ of 33554432 values differ"

echo "== half: every fill, bit for bit"
# 0..2047 as half (exact): an .npy file of float16 written by hand, as numpy writes one
{
	printf '\x93NUMPY\x01\x00\x76\x00'
	printf "%-117s\n" "{'descr': '<f2', 'fortran_order': False, 'shape': (2048,), }"
	for ((i = 0; i < 2048; i++)); do
		if ((i == 0)); then h=0; else
			e=0; while (((i >> (e + 1)) > 0)); do e=$((e + 1)); done
			h=$(((e + 15) << 10 | ((i - (1 << e)) << (10 - e)) & 1023))
		fi
		printf -v lo %02x $((h & 255))
		printf -v hi %02x $((h >> 8))
		printf "\\x$lo\\x$hi"
	done
} > "$B/half_index.npy"
./autotune --fresh -q tests/gpu/half_fills.yaml || fail "half_fills exited $?"
"$B/csvcheck" results/half_fills.csv 2 ok=2 || fail "half_fills CSV"
echo "half: ok"
