#!/usr/bin/env bash
# tracer_test.sh TOOL_DIR: smoke test of the tcgen-tracer valgrind tool.
# Runs `sort` on 10 fixed lines under the tool with every kind requested and
# checks the files' structure: header bytes, sizes a whole number of records,
# non-empty, caps obeyed, ChampSim ips nonzero; then runs it again and checks
# the store-address trace is the same bytes (determinism).
set -euo pipefail

tool_dir=${1:?usage: tracer_test.sh TOOL_DIR (build/bench/tracer/lib)}
[[ -x "$tool_dir/tcgen-tracer-amd64-linux" ]] || { echo "no tcgen-tracer-amd64-linux in $tool_dir" >&2; exit 1; }
command -v valgrind >/dev/null || { echo "valgrind not installed; skipping"; exit 0; }
tool_dir=$(cd "$tool_dir" && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tracer_test.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

printf '%s\n' pear apple fig banana cherry date kiwi lemon mango grape > "$tmp/in"

# Same isolation as bench/corpus: no ASLR (the vDSO address is a loaded
# value) and a pid namespace (getpid); without them only the address traces
# are compared between runs.
wrap=(); isolated=1
if setarch "$(uname -m)" -R true 2>/dev/null; then wrap=(setarch "$(uname -m)" -R); else isolated=0; fi
if unshare --pid --fork --kill-child true 2>/dev/null; then
    wrap+=(unshare --pid --fork --kill-child)
elif unshare --user --map-root-user --pid --fork --kill-child true 2>/dev/null; then
    wrap+=(unshare --user --map-root-user --pid --fork --kill-child)
else
    isolated=0
fi

run() {  # suffix, extra options...
    local s=$1; shift
    ( exec 9<"$tool_dir"
      exec "${wrap[@]}" env -i -C / PATH=/usr/bin:/bin LC_ALL=C VALGRIND_LIB=/proc/self/fd/9 \
        valgrind --tool=tcgen-tracer --stores="$tmp/s$s" --misses="$tmp/m$s" \
        --loads="$tmp/l$s" --champsim="$tmp/c$s" "$@" /usr/bin/sort ) \
        < "$tmp/in" > "$tmp/out$s" 2> "$tmp/log$s" || { cat "$tmp/log$s" >&2; fail "valgrind run $s failed"; }
}

run 1
cmp -s "$tmp/out1" <(LC_ALL=C sort "$tmp/in") || fail "sort output under the tool is wrong"

check12() {  # file header
    local f=$1 h=$2 n
    [[ "$(head -c 4 "$f")" == "$h" ]] || fail "$f: header is not $h"
    n=$(stat -c %s "$f")
    (( n > 4 )) || fail "$f: no records"
    (( (n - 4) % 12 == 0 )) || fail "$f: size $n is not 4 + 12k"
    echo "ok: $h $(( (n - 4) / 12 )) records"
}
check12 "$tmp/s1" STA1
check12 "$tmp/m1" CMA1
check12 "$tmp/l1" LDV1
n=$(stat -c %s "$tmp/c1")
(( n > 0 && n % 64 == 0 )) || fail "champsim: size $n is not a positive multiple of 64"
# every ip (first 8 bytes of each record) nonzero; is_branch/taken are 0/1
od -An -v -tu8 -w64 "$tmp/c1" | awk '{ if ($1 == 0) bad++ } END { exit bad ? 1 : 0 }' \
    || fail "champsim: a record has ip 0"
od -An -v -tu1 -w64 -j8 -N$((n - 8)) "$tmp/c1" | awk 'NR % 1 == 0 { if ($1 > 1 || $2 > 1 || ($2 == 1 && $1 == 0)) bad++ }
    END { exit bad ? 1 : 0 }' || fail "champsim: bad is_branch/branch_taken byte"
branches=$(od -An -v -tu1 -w64 -j8 "$tmp/c1" | awk '$1 == 1 { b++ } END { print b + 0 }')
(( branches > 0 )) || fail "champsim: no branches"
echo "ok: champsim $(( n / 64 )) records, $branches branches"

# determinism and caps
run 2
cmp -s "$tmp/s1" "$tmp/s2" || fail "store trace differs between two identical runs"
if [[ $isolated == 1 ]]; then
    cmp -s "$tmp/l1" "$tmp/l2" || fail "load-value trace differs between two identical runs"
else
    echo "note: no setarch -R / pid namespace here; load values not compared"
fi
cmp -s "$tmp/c1" "$tmp/c2" || fail "champsim trace differs between two identical runs"
run 3 --stores-max=100 --misses-max=50 --loads-max=70 --champsim-max=30
[[ $(stat -c %s "$tmp/s3") == $((4 + 12 * 100)) ]] || fail "--stores-max not obeyed"
[[ $(stat -c %s "$tmp/m3") == $((4 + 12 * 50)) ]] || fail "--misses-max not obeyed"
[[ $(stat -c %s "$tmp/l3") == $((4 + 12 * 70)) ]] || fail "--loads-max not obeyed"
[[ $(stat -c %s "$tmp/c3") == $((64 * 30)) ]] || fail "--champsim-max not obeyed"
cmp -s "$tmp/s3" <(head -c $((4 + 12 * 100)) "$tmp/s1") || fail "capped store trace is not a prefix of the full one"
echo "ok: determinism and caps"
echo PASS
