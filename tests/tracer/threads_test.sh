#!/usr/bin/env bash
# threads_test.sh TOOL_DIR PROGRAM TCGEN_THREADS: tcgen-tracer on a multi-threaded program.
# PROGRAM (threads_program.c) runs four workers in loops of their own code
# whose branches it prints; valgrind's fair scheduling makes the threads take
# turns in the middle of the loops. thread_check.py then checks the branch
# trace against those loops (no record completed by another thread), and,
# split by the thread log (--threads), every thread's branch, ChampSim and
# WET flow records against each other, and tcgen-threads split's files
# against that split (and its errors on bad input); again with workers started
# one after the other, each still a thread of its own. The log does not keep a capped
# run going; a single-threaded program's log is one run of the main thread;
# asking for the log changes no other trace.
set -euo pipefail

tool_dir=${1:?usage: threads_test.sh TOOL_DIR PROGRAM TCGEN_THREADS}
program=${2:?usage: threads_test.sh TOOL_DIR PROGRAM TCGEN_THREADS}
threads=$(readlink -f "${3:?usage: threads_test.sh TOOL_DIR PROGRAM TCGEN_THREADS}")
[[ -x "$tool_dir/tcgen-tracer-amd64-linux" ]] || { echo "no tcgen-tracer-amd64-linux in $tool_dir" >&2; exit 1; }
command -v valgrind >/dev/null || { echo "valgrind not installed; skipping"; exit 0; }
tool_dir=$(cd "$tool_dir" && pwd)
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
python=/usr/bin/python3
[[ -x $python ]] || { echo "no $python; skipping"; exit 0; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tracer_threads_test.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

wrap=()
trace() {  # name, options and command... (run under ${wrap[@]})
    local name=$1; shift
    ( exec 9<"$tool_dir"
      exec "${wrap[@]}" env -i -C / PATH=/usr/bin:/bin LC_ALL=C VALGRIND_LIB=/proc/self/fd/9 \
        valgrind --tool=tcgen-tracer "$@" ) > "$tmp/$name.out" 2> "$tmp/$name.log" \
        || { cat "$tmp/$name.log" >&2; fail "valgrind run $name failed"; }
}

# checked NAME [ARG]: the program (with ARG) traced with the thread log,
# five threads reported, split by tcgen-threads and checked by
# thread_check.py; its files are $tmp/NAME.{b,c,w,t} and $tmp/NAME.split.
# --wet turns valgrind's chasing off: every loop iteration is a block of its
# own, and the time slices end inside the loops.
checked() {
    local name=$1; shift
    trace "$name" --fair-sched=yes --branches="$tmp/$name.b" --champsim="$tmp/$name.c" --wet="$tmp/$name.w" \
        --threads="$tmp/$name.t" "$program" "$@"
    grep -q "tcgen-tracer: threads: 5 threads ran, [1-9][0-9]* switches between them" "$tmp/$name.log" \
        || fail "$name: no thread report: $(grep tcgen-tracer: "$tmp/$name.log")"
    "$threads" split "$tmp/$name.t" "$tmp/$name.split" branches="$tmp/$name.b" champsim="$tmp/$name.c" \
        wet-flow="$tmp/$name.w.flow" || fail "$name: tcgen-threads split failed"
    "$python" "$here/thread_check.py" "$tmp/$name.out" "$tmp/$name.b" "$tmp/$name.c" --threads="$tmp/$name.t" \
        --wet="$tmp/$name.w" --split="$tmp/$name.split" || fail "$name: thread check"
}
checked mt
# Workers one after the other, then two together: valgrind gives the second
# worker the first one's thread slot, and the log still names four workers.
checked staggered staggered

# tcgen-threads split on bad input: a one-line error, exit status 1, no output
head -c -5 "$tmp/mt.t" > "$tmp/t.bad"
head -c $(( 4 + 17 * 10 )) "$tmp/mt.b" > "$tmp/b.bad"   # shorter than the log counts
for bad in "$tmp/t.bad branches=$tmp/mt.b" "$tmp/mt.t branches=$tmp/b.bad" "$tmp/mt.t stores=$tmp/mt.b" \
    "$tmp/mt.t bogus=$tmp/mt.b"; do
    set -- $bad
    rc=0; "$threads" split "$1" "$tmp/badsplit" "$2" 2> "$tmp/err" || rc=$?
    [[ $rc == 1 && $(wc -l < "$tmp/err") == 1 && ! -e "$tmp/badsplit" ]] \
        || fail "tcgen-threads split $bad: exit status $rc, $(cat "$tmp/err")"
done

# The log is no trace of its own: the program ends when the traces are full.
trace cap --fair-sched=yes --vex-guest-chase=no --branches="$tmp/bc" --branches-max=30000 \
    --threads="$tmp/tc" "$program"
grep -q "every requested trace reached its record cap" "$tmp/cap.log" || fail "--threads kept a full run going"
[[ $(stat -c %s "$tmp/bc") == $((4 + 17 * 30000)) ]] || fail "--branches-max with --threads not obeyed"
[[ ! -s "$tmp/cap.out" ]] || fail "the capped run got to print its loops"
"$threads" split "$tmp/tc" "$tmp/capsplit" branches="$tmp/bc" || fail "tcgen-threads split on a capped run"

# One thread: one run, the main thread's from the start, whatever the kinds.
trace st --threads="$tmp/t1" --branches="$tmp/b1" /bin/true
cmp "$tmp/t1" <(printf 'THR1\001\000\000\000'; head -c 64 /dev/zero) || fail "single-threaded log"
! grep -q "tcgen-tracer: threads:.*switches" "$tmp/st.log" || fail "a thread report for one thread"

# The log changes no other file: its descriptor is open only while the tool
# writes it, so the program's own descriptors (loaded values here: sort
# opens its input file) keep their numbers. Compared where runs repeat
# (bench/corpus.sh's isolation: no ASLR, a pid namespace).
if setarch "$(uname -m)" -R true 2>/dev/null && unshare --pid --fork --kill-child true 2>/dev/null; then
    printf '%s\n' pear apple fig banana cherry > "$tmp/in"
    wrap=(setarch "$(uname -m)" -R unshare --pid --fork --kill-child)
    for s in a b; do
        log=(); [[ $s == b ]] && log=(--threads="$tmp/t-$s")
        trace "sort-$s" "${log[@]}" --loads="$tmp/l-$s" --branches="$tmp/b-$s" --champsim="$tmp/c-$s" \
            /usr/bin/sort "$tmp/in"
    done
    for k in l b c; do cmp "$tmp/$k-a" "$tmp/$k-b" || fail "--threads changed the $k trace of sort"; done
    cmp "$tmp/sort-a.out" "$tmp/sort-b.out" || fail "--threads changed sort's output"
else
    echo "note: no setarch -R / pid namespace here; traces with and without --threads not compared"
fi
echo PASS
