#!/usr/bin/env bash
# tcgen -o writes the way compilers do: through devices, FIFOs, symlinks and
# hard links; never over its own input; never through a fixed temporary name;
# every failure one line.
# Usage: output_test.sh TCGEN SOURCE_DIR
set -u
tcgen=$1
source_dir=$2
spec=$source_dir/examples/vpc3.tcg
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0

# fail MESSAGE: counts a failure. Returns 1, so that a check run in a
# subshell, whose count is lost, can be counted by its status.
fail() {
    echo "FAIL: $*"
    failures=$((failures + 1))
    return 1
}

# succeeds WHAT ARGS...: tcgen must exit 0 and print nothing on stderr. The
# time limit keeps a FIFO without a reader from hanging the test.
succeeds() {
    local what=$1
    shift
    timeout 60 "$tcgen" "$@" >"$work/out" 2>"$work/err"
    local status=$?
    if [ "$status" -ne 0 ] || [ -s "$work/err" ]; then
        fail "$what: tcgen $* -> status $status, stderr: $(cat "$work/err")"
    fi
}

# fails WHAT REGEX ARGS...: tcgen must exit 1 with one line of stderr that
# matches REGEX.
fails() {
    local what=$1 pattern=$2
    shift 2
    timeout 60 "$tcgen" "$@" >"$work/out" 2>"$work/err"
    local status=$?
    if [ "$status" -ne 1 ] || [ "$(wc -l <"$work/err")" -ne 1 ] || ! grep -Eq -- "$pattern" "$work/err"; then
        fail "$what: tcgen $* -> status $status (want 1), stderr: $(cat "$work/err")"
    fi
}

# holds_output WHAT FILE: FILE holds exactly what tcgen prints to stdout.
holds_output() {
    cmp -s "$work/expected" "$2" || fail "$1: '$2' does not hold tcgen's output"
}

"$tcgen" "$spec" >"$work/expected" || { echo "FAIL: tcgen $spec failed"; exit 1; }
# The failed-write check below needs an output larger than its 1 KiB limit.
[ "$(wc -c <"$work/expected")" -gt 4096 ] || { echo "FAIL: tcgen $spec printed too little"; exit 1; }

# "-" is standard output; a new file appears with the umask's mode.
succeeds "-o -" -o - "$spec"
holds_output "-o -" "$work/out"
(umask 027 && succeeds "new file" -o "$work/new.cpp" "$spec") || failures=$((failures + 1))
holds_output "new file" "$work/new.cpp"
[ "$(stat -c %a "$work/new.cpp")" = 640 ] || fail "new file: mode $(stat -c %a "$work/new.cpp"), want 640 (umask 027)"

# A FIFO is written to, not replaced.
mkfifo "$work/fifo"
timeout 60 cat "$work/fifo" >"$work/fifo-got" &
reader=$!
succeeds "FIFO" -o "$work/fifo" "$spec"
wait "$reader"
holds_output "FIFO reader" "$work/fifo-got"
[ -p "$work/fifo" ] || fail "FIFO: '$work/fifo' is no longer a FIFO"

# A symlink is followed, also when its target does not exist yet; relative
# targets are relative to the link's directory.
mkdir "$work/links"
printf 'old\n' >"$work/file"
ln -s ../file "$work/links/link"
succeeds "symlink" -o "$work/links/link" "$spec"
holds_output "symlink target" "$work/file"
[ -L "$work/links/link" ] || fail "symlink: the link was replaced"
ln -s ../created.cpp "$work/links/dangling"
succeeds "dangling symlink" -o "$work/links/dangling" "$spec"
holds_output "dangling symlink target" "$work/created.cpp"
[ -L "$work/links/dangling" ] || fail "dangling symlink: the link was replaced"

# A planted OUT.tmp, symlink or file, is neither followed nor destroyed.
mkdir "$work/planted-link" "$work/planted-file"
printf 'victim\n' >"$work/planted-link/victim"
ln -s victim "$work/planted-link/OUT.tmp"
succeeds "planted OUT.tmp symlink" -o "$work/planted-link/OUT" "$spec"
holds_output "planted OUT.tmp symlink" "$work/planted-link/OUT"
[ "$(cat "$work/planted-link/victim")" = victim ] || fail "planted OUT.tmp symlink: the victim was overwritten"
[ "$(readlink "$work/planted-link/OUT.tmp")" = victim ] || fail "planted OUT.tmp symlink: the link was changed"
printf 'old\n' >"$work/planted-file/OUT"
printf 'mine\n' >"$work/planted-file/OUT.tmp"
succeeds "planted OUT.tmp file" -o "$work/planted-file/OUT" "$spec"
holds_output "planted OUT.tmp file" "$work/planted-file/OUT"
[ "$(cat "$work/planted-file/OUT.tmp")" = mine ] || fail "planted OUT.tmp file: the user's OUT.tmp was changed"

# Hard links stay one file.
printf 'old\n' >"$work/hard-a"
ln "$work/hard-a" "$work/hard-b"
succeeds "hard link" -o "$work/hard-b" "$spec"
holds_output "hard link (written name)" "$work/hard-b"
holds_output "hard link (other name)" "$work/hard-a"
[ "$(stat -c %i "$work/hard-a")" = "$(stat -c %i "$work/hard-b")" ] || fail "hard link: the links were split"

# An existing file keeps its permission bits.
printf 'old\n' >"$work/perm"
chmod 640 "$work/perm"
succeeds "permissions" -o "$work/perm" "$spec"
holds_output "permissions" "$work/perm"
[ "$(stat -c %a "$work/perm")" = 640 ] || fail "permissions: mode $(stat -c %a "$work/perm"), want 640"

# The input is never overwritten, whatever it is called.
mkdir "$work/input"
cp "$spec" "$work/input/spec.tcg"
ln -s spec.tcg "$work/input/spec-link.tcg"
ln "$work/input/spec.tcg" "$work/input/spec-hard.tcg"
for output in spec.tcg ./spec.tcg spec-link.tcg spec-hard.tcg "$work/input/spec.tcg"; do
    (cd "$work/input" && fails "-o the input as $output" "^tcgen: error: refusing to overwrite the input '$output'" \
        -o "$output" spec.tcg) || failures=$((failures + 1))
    cmp -s "$spec" "$work/input/spec.tcg" || fail "-o the input as $output: the spec was changed"
    cp "$spec" "$work/input/spec.tcg"
done
[ -L "$work/input/spec-link.tcg" ] || fail "-o the input: the symlink to it was replaced"

# A character device is written to, not replaced. Only root may make one.
if mknod "$work/null" c 1 3 2>/dev/null; then
    succeeds "character device" -o "$work/null" "$spec"
    [ -c "$work/null" ] || fail "character device: '$work/null' is no longer a character device"
else
    echo "note: mknod not permitted; character device check skipped"
fi

# A full device: the error names the reason. Where /dev is writable (root),
# a private copy of /dev/full is used, so that a regression cannot replace the
# system's own.
full=/dev/full
if [ -w /dev ]; then
    full=$work/full
    mknod "$full" c 1 7 2>/dev/null || full=
fi
if [ -n "$full" ] && [ -e "$full" ]; then
    fails "-o full device" "^tcgen: error: cannot write '$full': No space left on device$" -o "$full" "$spec"
    [ -c "$full" ] || fail "-o full device: '$full' is no longer a character device"
else
    echo "note: no full device; -o full device check skipped"
fi
if [ -e /dev/full ]; then
    timeout 60 "$tcgen" "$spec" >/dev/full 2>"$work/err"
    status=$?
    if [ "$status" -ne 1 ] || [ "$(wc -l <"$work/err")" -ne 1 ] \
        || ! grep -Eq '^tcgen: error: cannot write to standard output: No space left on device$' "$work/err"; then
        fail "stdout on /dev/full: status $status (want 1), stderr: $(cat "$work/err")"
    fi
else
    echo "note: no /dev/full; standard output check skipped"
fi

# A write that fails half-way (the file size limit; SIGXFSZ ignored so that
# write() reports EFBIG) leaves the old file and no temporary behind.
mkdir "$work/limited"
printf 'old\n' >"$work/limited/OUT"
(
    trap '' XFSZ
    ulimit -f 1
    fails "file size limit" "^tcgen: error: cannot write '$work/limited/OUT': File too large$" \
        -o "$work/limited/OUT" "$spec"
) || failures=$((failures + 1))
[ "$(cat "$work/limited/OUT")" = old ] || fail "file size limit: the old file was changed"
[ -z "$(ls -A "$work/limited" | grep -v '^OUT$')" ] || fail "file size limit: left behind: $(ls -A "$work/limited")"

# A missing directory: one line, the reason.
fails "missing directory" "^tcgen: error: cannot write '$work/missing/out.cpp': No such file or directory$" \
    -o "$work/missing/out.cpp" "$spec"

# No run above may leave a temporary anywhere.
stray=$(find "$work" -name '.*' -o -name '*.tmp' ! -name OUT.tmp)
[ -z "$stray" ] || fail "temporaries left behind: $stray"

if [ "$failures" -ne 0 ]; then
    echo "$failures output check(s) failed"
    exit 1
fi
echo "all output checks passed"
