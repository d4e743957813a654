#!/usr/bin/env bash
# tracer_install_test.sh CMAKE BUILD_DIR: the installed tracer tools work.
# Installs the `tracer` component twice, under prefixes of different
# lengths, and runs each installed bin/tcgen-tracer on `sort` with every
# kind: the traces must be well formed and the same bytes from both
# prefixes (where tcgen is installed never reaches the traced program), and
# the same as the build tree's tool gives.  The installed
# tcgen-lackey-to-trace must convert tests/tracer/sample.lackey as the built one
# does; the installed tcgen-branch-ids and tcgen-threads must give the traces
# back byte for byte.
set -euo pipefail

cmake=${1:?usage: tracer_install_test.sh CMAKE BUILD_DIR}
build=${2:?usage: tracer_install_test.sh CMAKE BUILD_DIR}
command -v valgrind >/dev/null || { echo "valgrind not installed; skipping"; exit 0; }
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tracer_install_test.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

short=$tmp/p
long=$tmp/a-much-longer-install-prefix-than-the-other-one/with/more/directories
for prefix in "$short" "$long"; do
    "$cmake" --install "$build" --prefix "$prefix" --component tracer > "$tmp/install.log" \
        || { cat "$tmp/install.log" >&2; fail "cmake --install --component tracer failed"; }
    [[ -x "$prefix/bin/tcgen-tracer" && -x "$prefix/bin/tcgen-lackey-to-trace" && -x "$prefix/bin/tcgen-branch-ids" \
       && -x "$prefix/bin/tcgen-threads" ]] \
        || fail "$prefix/bin lacks tcgen-tracer, tcgen-lackey-to-trace, tcgen-branch-ids or tcgen-threads"
done

printf '%s\n' pear apple fig banana cherry date kiwi lemon mango grape > "$tmp/in"
# Same isolation as bench/corpus.sh (no ASLR, own pid namespace): without it
# two runs differ, and only the traces' form is checked.
wrap=()
if setarch "$(uname -m)" -R true 2>/dev/null && unshare --pid --fork --kill-child true 2>/dev/null; then
    wrap=(setarch "$(uname -m)" -R unshare --pid --fork --kill-child)
fi
kinds() {  # output directory: every kind's option
    echo --stores="$1/s" --misses="$1/m" --loads="$1/l" --champsim="$1/c" --branches="$1/b" --wet="$1/w" \
        --threads="$1/t"
}
run() {  # output directory, the command that runs valgrind with the tool...
    local out=$1; shift
    mkdir -p "$out"
    # PWD=/ as the installed script's shell would export it anyway.
    "${wrap[@]}" env -i -C / PATH=/usr/bin:/bin LC_ALL=C PWD=/ "$@" $(kinds "$out") /usr/bin/sort \
        < "$tmp/in" > "$out/stdout" 2> "$out/log" || { cat "$out/log" >&2; fail "run into $out failed"; }
    cmp -s "$out/stdout" <(LC_ALL=C sort "$tmp/in") || fail "sort's output under the tool is wrong ($out)"
}
run "$tmp/short" "$short/bin/tcgen-tracer"
run "$tmp/long" "$long/bin/tcgen-tracer"
( exec 9<"$build/tracer/lib"
  run "$tmp/built" env VALGRIND_LIB=/proc/self/fd/9 valgrind --tool=tcgen-tracer )
for f in s m l c b w.blocks w.flow w.nodes w.events w.edges t; do
    [[ -s "$tmp/short/$f" ]] || fail "installed tool: no $f trace"
    (( ${#wrap[@]} )) || continue   # runs are not comparable without the isolation
    cmp "$tmp/short/$f" "$tmp/long/$f" || fail "trace $f depends on the install prefix"
    cmp "$tmp/short/$f" "$tmp/built/$f" || fail "trace $f differs from the build tree's tool's"
done
(( ${#wrap[@]} )) || echo "note: no setarch -R or unshare --pid here; traces not compared"
[[ "$(head -c 4 "$tmp/short/s")$(head -c 4 "$tmp/short/m")$(head -c 4 "$tmp/short/l")$(head -c 4 "$tmp/short/b")" \
    == STA1CMA1LDV1BRA1 ]] || fail "installed tool: wrong headers"
echo "ok: installed tcgen-tracer, same traces from two prefixes as from the build tree"

"$short/bin/tcgen-lackey-to-trace" --kind=store-addresses < "$here/sample.lackey" > "$tmp/lackey.installed"
"$build/tracer/tcgen-lackey-to-trace" --kind=store-addresses < "$here/sample.lackey" > "$tmp/lackey.built"
[[ -s "$tmp/lackey.built" ]] && cmp -s "$tmp/lackey.installed" "$tmp/lackey.built" \
    || fail "installed tcgen-lackey-to-trace converts differently"
echo "ok: installed tcgen-lackey-to-trace"

# The branch trace the installed tracer wrote, split into ids and a table and
# joined again by the installed tcgen-branch-ids.
"$short/bin/tcgen-branch-ids" split "$tmp/short/b" "$tmp/ids" "$tmp/table"
"$short/bin/tcgen-branch-ids" join "$tmp/ids" "$tmp/table" > "$tmp/b.joined"
cmp -s "$tmp/short/b" "$tmp/b.joined" || fail "installed tcgen-branch-ids does not rebuild the branch trace"
echo "ok: installed tcgen-branch-ids"

# Every kind of that run split by its thread log and joined again by the
# installed tcgen-threads (one thread: one file a kind).
"$short/bin/tcgen-threads" split "$tmp/short/t" "$tmp/split" stores="$tmp/short/s" misses="$tmp/short/m" \
    loads="$tmp/short/l" champsim="$tmp/short/c" branches="$tmp/short/b" wet-flow="$tmp/short/w.flow" \
    wet-events="$tmp/short/w.events" wet-edges="$tmp/short/w.edges"
for kind in stores=s misses=m loads=l champsim=c branches=b wet-flow=w.flow wet-events=w.events wet-edges=w.edges; do
    "$short/bin/tcgen-threads" join "$tmp/short/t" "$tmp/split" "${kind%%=*}" "$tmp/joined"
    cmp -s "$tmp/short/${kind#*=}" "$tmp/joined" || fail "installed tcgen-threads does not rebuild ${kind%%=*}"
done
echo "ok: installed tcgen-threads"
echo PASS
