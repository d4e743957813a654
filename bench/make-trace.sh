#!/usr/bin/env bash
# make-trace.sh: make a real memory trace by running a Debian program under
# valgrind's lackey tool and converting its output with tcgen-lackey-to-trace
# (tracer/).
#
#   bench/make-trace.sh [--kind=store-addresses|cache-miss-addresses]
#                       [--program=NAME] [--input-bytes=N] [--max-records=N]
#                       [--tool=PATH] OUT_FILE
#
# The program's input is a fixed pseudo-random text made by this script (no
# network, no files from the system), and the program runs with an empty,
# fixed environment and reads stdin, so the trace is the same bytes on every
# run on the same system (same Debian package versions). See bench/README.md.
set -euo pipefail

source "$(dirname "${BASH_SOURCE[0]}")/runner/common.sh"
usage() {
    usage_lines 5,8
    echo "programs: ${!programs[*]}"
}

# Program table: NAME -> command line (reads the text on stdin, output is
# discarded). Keep each one single-threaded and free of time/pid-dependent
# behaviour.
declare -A programs=(
    [bzip2]="/usr/bin/bzip2 -9"
    [gzip]="/usr/bin/gzip -9 -n"
    [sort]="/usr/bin/sort --parallel=1 -S 16M"
)
# Default input size (bytes of text) per program and kind, chosen so that the
# trace is roughly 20-30 MB (measured with valgrind 3.19 on Debian 12).
declare -A input_bytes=(
    [bzip2:store-addresses]=40000           # see the table in bench/README.md
    [bzip2:cache-miss-addresses]=150000
    [gzip:store-addresses]=120000
    [gzip:cache-miss-addresses]=50000
    [sort:store-addresses]=400000
    [sort:cache-miss-addresses]=2000000
)

kind=store-addresses
program=bzip2
tool=""
nbytes=""
max_records=""
out=""
for arg in "$@"; do
    case "$arg" in
        --kind=*) kind=${arg#--kind=} ;;
        --program=*) program=${arg#--program=} ;;
        --tool=*) tool=${arg#--tool=} ;;
        --input-bytes=*) nbytes=${arg#--input-bytes=} ;;
        --max-records=*) max_records=${arg#--max-records=} ;;
        -h|--help) usage; exit 0 ;;
        -*) die "unknown option '$arg' (try --help)" ;;
        *) [[ -z "$out" ]] || die "more than one output file given"; out=$arg ;;
    esac
done
[[ -n "$out" ]] || die "no output file given (try --help)"
case "$kind" in
    store-addresses|cache-miss-addresses) ;;
    *) die "unknown kind '$kind' (expected store-addresses or cache-miss-addresses)" ;;
esac
[[ -n "${programs[$program]+x}" ]] || die "unknown program '$program' (known: ${!programs[*]})"
[[ -n "$nbytes" ]] || nbytes=${input_bytes[$program:$kind]}
[[ "$nbytes" =~ ^[0-9]+$ ]] || die "bad --input-bytes value '$nbytes'"
[[ -z "$max_records" || "$max_records" =~ ^[0-9]+$ ]] || die "bad --max-records value '$max_records'"

if [[ -z "$tool" ]]; then
    for cand in "$here/../build/tracer/tcgen-lackey-to-trace" "$PWD/build/tracer/tcgen-lackey-to-trace" \
                "$PWD/tracer/tcgen-lackey-to-trace" "$PWD/tcgen-lackey-to-trace"; do
        if [[ -x "$cand" ]]; then tool=$cand; break; fi
    done
    [[ -n "$tool" ]] || die "tcgen-lackey-to-trace not found; build it (cmake --build build) or pass --tool=PATH"
fi
[[ -x "$tool" ]] || die "--tool: '$tool' is not an executable"
command -v valgrind >/dev/null || die "valgrind not found (apt-get install valgrind)"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/make-trace.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

gen_text "$nbytes" > "$tmp/input.txt"  # runner/common.sh

norand=()
if command -v setarch >/dev/null && setarch "$(uname -m)" -R true 2>/dev/null; then
    norand=(setarch "$(uname -m)" -R)
fi

conv_args=(--kind="$kind" --stats)
[[ -z "$max_records" ]] || conv_args+=(--max-records="$max_records")

# valgrind's log (the lackey trace) goes to fd 9 -> the pipe; the program's
# own output goes to /dev/null and its stderr to a file shown on failure.
# Empty environment, cwd / (valgrind passes PWD=<cwd> to the client, which
# shifts its stack) and input on stdin keep the client's memory layout fixed.
read -r -a cmd <<< "${programs[$program]}"
set +e
"${norand[@]}" env -i -C / PATH=/usr/bin:/bin LC_ALL=C \
    valgrind --tool=lackey --trace-mem=yes --log-fd=9 "${cmd[@]}" \
    < "$tmp/input.txt" 9>&1 >/dev/null 2>"$tmp/stderr" \
    | "$tool" "${conv_args[@]}" > "$tmp/trace"
status=("${PIPESTATUS[@]}")
set -e
if [[ ${status[1]} -ne 0 ]]; then
    die "tcgen-lackey-to-trace failed (exit ${status[1]})"
fi
# With --max-records, tcgen-lackey-to-trace stops reading early and valgrind dies
# of SIGPIPE (141) or gets EPIPE; that is expected.
if [[ ${status[0]} -ne 0 && ! ( -n "$max_records" && ${status[0]} -ge 128 ) ]]; then
    cat "$tmp/stderr" >&2
    die "valgrind ${programs[$program]} failed (exit ${status[0]})"
fi
mv "$tmp/trace" "$out"
