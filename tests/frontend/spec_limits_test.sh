#!/usr/bin/env bash
# A spec over 1 MiB is refused with one line and exit status 1, after reading
# only a little more than the limit: each run has 400 MB of address space,
# far less than parsing 20 MB would take. A spec of exactly 1 MiB is read.
# Usage: spec_limits_test.sh TCGEN
set -u
tcgen=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
limit=$((1024 * 1024))
# A sanitizer build reserves terabytes of shadow memory, which the limit
# would starve: there it is left out and only the refusals are checked.
memory_limit="ulimit -v 400000"
if [ -n "${TCGEN_TEST_UNDER_SANITIZERS:-}" ]; then
    memory_limit=true
fi

# run ARGS...: tcgen with bounded memory, status in $status.
run() {
    ($memory_limit && exec "$tcgen" "$@") >"$work/out" 2>"$work/err"
    status=$?
}

# expect_refused FILE SIZE_TEXT: tcgen FILE fails with the one-line error.
expect_refused() {
    local file=$1 size=$2
    run --canonical "$file"
    local want="tcgen: error: '$file' is $size; a spec is at most 1 MiB (is it the right file?)"
    if [ "$status" -ne 1 ] || [ "$(cat "$work/err")" != "$want" ]; then
        echo "FAIL: tcgen $file -> status $status (want 1), stderr (want: $want):"
        head -c 2000 "$work/err"
        failures=$((failures + 1))
    fi
}

# A valid spec of exactly `limit` bytes: its fields, then a comment to the end.
spec='TCgen Trace Specification;
8-Bit Field 1 = {: LV[1]};
PC = Field 1;
#'
{
    printf '%s' "$spec"
    head -c $((limit - ${#spec} - 1)) /dev/zero | tr '\0' 'x'
    printf '\n'
} >"$work/exact.tcg"
[ "$(wc -c <"$work/exact.tcg")" -eq "$limit" ] || { echo "FAIL: exact.tcg is not $limit bytes"; failures=$((failures + 1)); }
run --canonical "$work/exact.tcg"
if [ "$status" -ne 0 ] || ! grep -q '^8-Bit Field 1 = ' "$work/out"; then
    echo "FAIL: a spec of exactly 1 MiB -> status $status, stderr:"
    head -c 2000 "$work/err"
    failures=$((failures + 1))
fi

# One byte more.
{ cat "$work/exact.tcg"; printf 'x'; } >"$work/over.tcg"
expect_refused "$work/over.tcg" "$((limit + 1)) bytes"

head -c $((2 * limit)) /dev/urandom >"$work/2mib.bin"
expect_refused "$work/2mib.bin" "$((2 * limit)) bytes"

head -c 20000000 /dev/urandom >"$work/20mb.bin"
expect_refused "$work/20mb.bin" "20000000 bytes"

# 20 MB of field statements, each valid alone and each a semantic error.
{
    printf 'TCgen Trace Specification;\n'
    yes '12-Bit Field 1 = {L1 = 3: LV[0]};' | head -c 20000000
    printf 'PC = Field 1;\n'
} >"$work/fields.tcg"
expect_refused "$work/fields.tcg" "$(wc -c <"$work/fields.tcg") bytes"

# Standard input: a redirected file has a size, a pipe has none to give.
for how in file pipe; do
    if [ "$how" = file ]; then
        ($memory_limit && exec "$tcgen" --canonical - <"$work/20mb.bin") >"$work/out" 2>"$work/err"
        status=$?
        size="20000000 bytes"
    else
        cat "$work/20mb.bin" | ($memory_limit && exec "$tcgen" --canonical -) >"$work/out" 2>"$work/err"
        status=$?
        size="more than 1 MiB"
    fi
    want="tcgen: error: '<stdin>' is $size; a spec is at most 1 MiB (is it the right file?)"
    if [ "$status" -ne 1 ] || [ "$(cat "$work/err")" != "$want" ]; then
        echo "FAIL: 20 MB on standard input from a $how -> status $status, stderr (want: $want):"
        head -c 2000 "$work/err"
        failures=$((failures + 1))
    fi
done

if [ "$failures" -ne 0 ]; then
    echo "$failures spec limit check(s) failed"
    exit 1
fi
echo "all spec limit checks passed"
