#!/usr/bin/env bash
# outputs_test.sh SHIM BRANCH_IDS THREADS WET WPP: every tool writes its
# outputs as the generated programs do (common/output.hpp).
# 1. Killed with SIGTERM at its first write (SHIM, preloaded, raises it
#    there), each tool dies of the signal and leaves neither the output nor
#    a temporary.
# 2. A symlink at OUT is replaced, its target untouched; a FIFO at OUT is
#    written through and stays a FIFO; the old fixed OUT.part name is never
#    followed.
# 3. tcgen-branch-ids join writes nothing to standard output when an id is
#    bad; tcgen-threads split into a folder of an earlier split leaves none
#    of that split's KIND.tTHREAD files.
set -euo pipefail

shim=$(readlink -f "${1:?usage: outputs_test.sh SHIM BRANCH_IDS THREADS WET WPP}")
branch_ids=$(readlink -f "$2")
threads=$(readlink -f "$3")
wet=$(readlink -f "$4")
wpp=$(readlink -f "$5")
tests=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/outputs_test_XXXXXX")
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
cd "$work"

python3 "$tests/tracer/make_branches.py" b.bra 1000
python3 "$tests/tracer/make_threads.py" syn > /dev/null
python3 "$tests/wet/make_synthetic_wet.py" toy 3
python3 -c 'import struct, sys; sys.stdout.buffer.write(b"".join(struct.pack("<I", i % 7) for i in range(5000)))' > syms
"$threads" split syn/run.thr good branches=syn/branches

# 1. NAME OUT COMMAND...: killed at the first write to a temporary.
killed_at_first_write() {
    local name=$1 out=$2 status=0 left; shift 2
    mkdir -p "killed/$name"
    (cd "killed/$name" && LD_PRELOAD=$shim "$@" > /dev/null 2>&1) || status=$?
    [[ $status == 143 ]] || fail "$name: exit status $status, not 143 (killed by SIGTERM)"
    left=$(find "killed/$name" \( -name '*.tmp*' -o -name '*.part' \) -print)
    [[ -z $left ]] || fail "$name: temporaries left after SIGTERM: $left"
    [[ ! -e killed/$name/$out ]] || fail "$name: $out written though killed"
}
killed_at_first_write branch-ids-split ids "$branch_ids" split ../../b.bra ids table
killed_at_first_write threads-split out/index.tsv "$threads" split ../../syn/run.thr out branches=../../syn/branches
killed_at_first_write threads-join joined "$threads" join ../../syn/run.thr ../../good branches joined
killed_at_first_write wpp-build out.wpp "$wpp" build --raw ../../syms out.wpp
killed_at_first_write wet-build out.wet "$wet" build ../../toy out.wet
[[ -z $(ls killed/threads-split/out 2> /dev/null) ]] || fail "threads split: files left: $(ls killed/threads-split/out)"

# 2. A symlink at OUT or at the old OUT.part: the target never written.
echo victim > victim
ln -s victim ids
ln -s victim table.part
"$branch_ids" split b.bra ids table
[[ ! -L ids && -f ids ]] || fail "split left the symlink at ids"
[[ $(cat victim) == victim ]] || fail "split wrote through a symlink"
ln -s victim joined
ln -s victim joined.part
"$threads" join syn/run.thr good branches joined
cmp syn/branches joined || fail "join through a symlink: not the trace"
[[ $(cat victim) == victim ]] || fail "join wrote through a symlink"
cp ids expected.ids
# A FIFO at OUT: written through (fd 3 holds it open for reading, so the
# tool's open does not wait), never replaced.
mkfifo fifo.ids
exec 3<> fifo.ids
"$branch_ids" split b.bra fifo.ids table
[[ -p fifo.ids ]] || fail "split replaced the FIFO at OUT"
head -c "$(stat -c %s expected.ids)" <&3 > from-fifo
exec 3>&-
cmp expected.ids from-fifo || fail "split through a FIFO: not the id stream"

# 3. A bad id: nothing on standard output, one line on stderr.
cp ids bad.ids
printf '\377\377\0\0' >> bad.ids
status=0
"$branch_ids" join bad.ids table > joined.bra 2> join.err || status=$?
[[ $status == 1 ]] || fail "join of a bad id: exit status $status"
[[ ! -s joined.bra ]] || fail "join of a bad id wrote $(stat -c %s joined.bra) bytes before failing"
[[ $(wc -l < join.err) == 1 ]] || fail "join of a bad id: $(cat join.err)"
# A split into the folder of an earlier one: only this split's files.
mkdir again
touch again/branches.t99 again/stores.t1 again/notes.txt
"$threads" split syn/run.thr again branches=syn/branches
[[ ! -e again/branches.t99 && ! -e again/stores.t1 ]] || fail "split kept an earlier split's files: $(ls again)"
[[ -e again/notes.txt ]] || fail "split removed a file it does not write"
listed=$(tail -n +2 again/index.tsv | cut -f1 | sort | tr '\n' ' ')
present=$(cd again && ls -1 branches.t* | sort | tr '\n' ' ')
[[ $listed == "$present" ]] || fail "split: index lists '$listed', folder holds '$present'"
echo "outputs_test: no temporary left after SIGTERM; symlinks, FIFOs, bad ids and old splits handled"
