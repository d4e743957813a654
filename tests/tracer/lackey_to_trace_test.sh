#!/usr/bin/env bash
# Test tcgen-lackey-to-trace against hand-computed output.
#   tests/tracer/lackey_to_trace_test.sh PATH/TO/tcgen-lackey-to-trace
# Exits 0 if all checks pass; otherwise prints each failure and exits 1.
set -uo pipefail

bin=${1:?usage: $0 PATH/TO/tcgen-lackey-to-trace}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
sample=$here/sample.lackey
tmp=$(mktemp -d "${TMPDIR:-/tmp}/l2t-test.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fails=0

fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
hex() { od -An -v -tx1 | tr -d ' \n'; }

# check NAME EXPECTED_HEX ARGS... (input on stdin)
check() {
    local name=$1 want=$2; shift 2
    local got
    got=$("$bin" "$@" 2>"$tmp/err" | hex)
    local rc=${PIPESTATUS[0]}
    if [[ $rc -ne 0 ]]; then fail "$name: exit status $rc: $(cat "$tmp/err")"; return; fi
    if [[ "$got" != "$want" ]]; then fail "$name: output differs"; echo "  want $want"; echo "  got  $got"; fi
}

# check_error NAME PATTERN ARGS... (input on stdin): exit 1, one stderr line matching PATTERN, no records
check_error() {
    local name=$1 pat=$2; shift 2
    "$bin" "$@" >"$tmp/out" 2>"$tmp/err"
    local rc=$?
    if [[ $rc -ne 1 ]]; then fail "$name: exit status $rc, want 1"; fi
    if [[ $(wc -l <"$tmp/err") -ne 1 ]] || ! grep -q -- "$pat" "$tmp/err"; then
        fail "$name: stderr should be one line matching '$pat', got: $(cat "$tmp/err")"
    fi
}

# Records, little-endian: 4-byte PC then 8-byte address.
# PCs: before any I line -> 0; 0x0400d7d4; low 32 bits of 0x1234567890 = 0x34567890; 0x0400d7dc.
pc0=00000000; pc1=d4d70004; pc2=90785634; pc3=dcd70004
a100=0001000000000000          # 0x100
astk=b80100ff07000000          # 0x7ff0001b8
a2cac=ac2c220400000000         # 0x04222cac
af4ac=acf4210400000000         # 0x0421f4ac
af4be=bef4210400000000         # 0x0421f4be
a25ac=acf4250400000000         # 0x0425f4ac

# store-addresses: every S and M line, header "STA1".
check store-addresses \
    "53544131${pc0}${a100}${pc1}${astk}${pc2}${af4ac}${pc2}${af4ac}${pc3}${astk}" \
    --kind=store-addresses <"$sample"

# cache-miss-addresses, header "CMA1". 16 KiB direct-mapped, 64-byte lines (set = addr/64 mod 256):
#   S 100 miss | S 7ff0001b8 miss | L 4222cac miss | M 421f4ac miss (set 210)
#   L 421f4ac hit | L 421f4be,4 spans lines 0x1087d2 (hit) and 0x1087d3 (miss) -> miss
#   L 421f4c0 hit | S 421f4ac hit | L 425f4ac miss (set 210, other tag)
#   L 421f4ac miss (evicted) | S 7ff0001b8 hit
check cache-miss-addresses \
    "434d4131${pc0}${a100}${pc1}${astk}${pc1}${a2cac}${pc2}${af4ac}${pc2}${af4be}${pc2}${a25ac}${pc2}${af4ac}" \
    --kind=cache-miss-addresses <"$sample"

check max-records \
    "53544131${pc0}${a100}${pc1}${astk}" --kind=store-addresses --max-records=2 <"$sample"
check max-records-0 "53544131" --kind=store-addresses --max-records=0 <"$sample"
check empty-input "434d4131" --kind=cache-miss-addresses </dev/null
check no-final-newline "53544131${pc1}${astk}" --kind=store-addresses \
    < <(printf 'I  0400d7d4,8\n S 7ff0001b8,8')
check uppercase-hex "53544131${pc1}${astk}" --kind=store-addresses \
    < <(printf 'I  0400D7D4,8\n S 7FF0001B8,8\n')

# Errors.
check_error bad-line 'line 3' --kind=store-addresses < <(printf 'I  0400d7d4,8\n S 7ff0001b8,8\nhello\n')
check_error bad-op 'line 1' --kind=store-addresses < <(printf ' X 0400d7d4,8\n')
check_error no-size 'line 2' --kind=store-addresses < <(printf 'I  0400d7d4,8\n S 7ff0001b8\n')
check_error trailing-junk 'line 1' --kind=store-addresses < <(printf 'I  0400d7d4,8 \n')
check_error long-address 'line 1' --kind=store-addresses < <(printf 'I  00000000000000001,8\n')
check_error unknown-flag 'unknown option' --kind=store-addresses --frobnicate </dev/null
check_error unknown-kind 'unknown trace kind' --kind=load-values </dev/null
check_error no-kind 'required' </dev/null
check_error bad-max 'max-records' --kind=store-addresses --max-records=x </dev/null

if [[ $fails -ne 0 ]]; then echo "$fails check(s) failed"; exit 1; fi
echo "all tcgen-lackey-to-trace checks passed"
