#!/usr/bin/env bash
# tcgen tune end to end on a small real trace (the load values of the .tcz
# goldens): the spec it prints is accepted by tcgen, its compressor
# round-trips the sample byte for byte and is no larger than the wide
# start's (with --tolerance=0, which forbids trading size for simplicity);
# --spec measures the given spec too; argument errors give the expected
# one-line messages. Few candidates, no timing checks.
# Usage: tune_command_test.sh TCGEN SOURCE_DIR
set -euo pipefail
tcgen=$(realpath "$1")
source_dir=$2
sample=$source_dir/tests/golden/tcz/inputs/load_values.trace
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export TMPDIR=$work
fail=0
cxx=(${CXX:-c++} -std=c++17 -O2)
link_flags=$(dirname "$0")/../tools/link-flags   # the back-ends' -l flags, from the generated file

# --- a tuning run and its spec ---------------------------------------------
"$tcgen" tune "$sample" --record=h32,pc32,64 --max-candidates=3 --tolerance=0 -o "$work/tuned.tcg" 2>"$work/log"
"$tcgen" tune "$sample" --record=h32,pc32,64 --max-candidates=1 >"$work/wide.tcg" 2>/dev/null
grep -q '^tcgen tune:   1  ratio .* taken  wide start$' "$work/log" || { echo "no wide start line:"; cat "$work/log"; fail=1; }
[[ $(grep -c '^tcgen tune:  *[0-9]*  ratio' "$work/log") -eq 3 ]] || { echo "not 3 candidates:"; cat "$work/log"; fail=1; }
for spec in tuned wide; do
    "$tcgen" "$work/$spec.tcg" -o "$work/$spec.cpp"
    # shellcheck disable=SC2046  # the flags are words
    "${cxx[@]}" -o "$work/$spec" "$work/$spec.cpp" -pthread $("$link_flags" "$work/$spec.cpp")
    "$work/$spec" <"$sample" >"$work/$spec.tcz" 2>/dev/null
    "$work/$spec" -d <"$work/$spec.tcz" >"$work/$spec.back"
    cmp "$sample" "$work/$spec.back" || { echo "$spec: round trip differs"; fail=1; }
done
tuned_size=$(stat -c %s "$work/tuned.tcz")
wide_size=$(stat -c %s "$work/wide.tcz")
if (( tuned_size > wide_size )); then
    echo "tuned spec's output ($tuned_size bytes) is larger than the wide start's ($wide_size)"; fail=1
fi
# The printed spec is canonical: tcgen prints its statements unchanged.
"$tcgen" --canonical "$work/tuned.tcg" | grep -v '^#' >"$work/canonical"
grep -v '^#' "$work/tuned.tcg" | diff -u - "$work/canonical" || { echo "tuned spec is not canonical"; fail=1; }

# --spec: the layout of a spec, whose own predictors are a candidate too.
"$tcgen" tune "$sample" --spec="$source_dir/examples/vpc3.tcg" --max-candidates=2 >"$work/from_spec.tcg" 2>"$work/log"
grep -q '  the given spec$' "$work/log" || { echo "--spec: the given spec was not measured:"; cat "$work/log"; fail=1; }
"$tcgen" --canonical "$work/from_spec.tcg" >/dev/null || { echo "--spec: output refused"; fail=1; }

# Several samples: each is cut and compressed on its own, and the ratio the
# tuner prints is that of the totals (here: the second half of the trace
# under the header, and the whole trace).
head -c 4 "$sample" >"$work/second_half.trace"
tail -c +$((4 + 12 * 1500 + 1)) "$sample" >>"$work/second_half.trace"
"$tcgen" tune "$work/second_half.trace" "$sample" --record=h32,pc32,64 --max-candidates=2 -o "$work/both.tcg" \
    2>"$work/log"
for file in "$work/second_half.trace" "$sample"; do
    grep -q "^tcgen tune: sample '$file': $(stat -c %s "$file") bytes (the whole file)$" "$work/log" ||
        { echo "several samples: no line for $file:"; cat "$work/log"; fail=1; }
done
"$tcgen" "$work/both.tcg" -o "$work/both.cpp"
# shellcheck disable=SC2046  # the flags are words
"${cxx[@]}" -o "$work/both" "$work/both.cpp" -pthread $("$link_flags" "$work/both.cpp")
total_in=0 total_out=0
for file in "$work/second_half.trace" "$sample"; do
    "$work/both" <"$file" >"$work/both.tcz" 2>/dev/null
    "$work/both" -d <"$work/both.tcz" | cmp "$file" - || { echo "several samples: round trip of $file differs"; fail=1; }
    total_in=$((total_in + $(stat -c %s "$file")))
    total_out=$((total_out + $(stat -c %s "$work/both.tcz")))
done
expected=$(awk -v i="$total_in" -v o="$total_out" 'BEGIN { printf "%.3f", i / o }')
grep -q "^# tcgen tune: ratio $expected on 2 samples, $total_in bytes in all (" "$work/both.tcg" ||
    { echo "several samples: not the ratio of the totals ($expected):"; head -2 "$work/both.tcg"; fail=1; }

# --- errors ------------------------------------------------------------------
head -c 15 "$sample" >"$work/short.trace"
check_error() {  # EXPECTED-MESSAGE ARGUMENTS...
    local expected=$1
    shift
    local status=0
    "$tcgen" tune "$@" >"$work/out" 2>"$work/err" || status=$?
    if [[ $status -ne 1 || -s "$work/out" ]] || ! diff -u <(echo "$expected") <(grep -v '^tcgen tune: ' "$work/err"); then
        echo "for: tcgen tune $* (status $status)"; fail=1
    fi
}
check_error "tcgen: error: tune needs the record layout: give --record=LAYOUT (e.g. h32,pc32,64) or --spec=FILE" \
    "$sample"
check_error "tcgen: error: --record: 'pc8': only one field can be the PC" "$sample" --record=h32,pc32,64,pc8
check_error "tcgen: error: --record: '12' is not a field: N or pcN with N = 8, 16, 32 or 64 (e.g. --record=h32,pc32,64)" \
    "$sample" --record=h32,pc32,12
check_error "tcgen: error: cannot read the sample '$work/none': No such file or directory" \
    "$work/none" --record=h32,pc32,64
check_error "tcgen: error: the sample '$work' is not a regular file" "$work" --record=h32,pc32,64
check_error "tcgen: error: the sample '$work/short.trace' has 15 bytes, fewer than the header and one record (16)" \
    "$work/short.trace" --record=h32,pc32,64
check_error "tcgen: error: cannot run the C++ compiler '$work/no-c++': No such file or directory (set CXX or --cxx)" \
    "$sample" --record=h32,pc32,64 --cxx="$work/no-c++"
check_error "tcgen: error: the C++ compiler 'false' failed on a generated compressor (exit status 1): no messages" \
    "$sample" --record=h32,pc32,64 --cxx=false
check_error "tcgen: error: --budget must be a positive number of seconds" "$sample" --record=h32,pc32,64 --budget=0
check_error "tcgen: error: --max-table-mb must be from 1 to 16384 (16 GiB, the most tcgen accepts)" \
    "$sample" --record=h32,pc32,64 --max-table-mb=0
check_error "tcgen: error: tune: The following argument was not expected: --bogus (try tcgen tune --help)" \
    "$sample" --record=h32,pc32,64 --bogus
check_error "tcgen: error: cannot read '$work/none.tcg': No such file or directory" "$sample" --spec="$work/none.tcg"
check_error "tcgen: error: refusing to overwrite the input '$work/second_half.trace' with the output" \
    "$sample" "$work/second_half.trace" --record=h32,pc32,64 --max-candidates=1 -o "$work/second_half.trace"
"$tcgen" tune --help | grep -q -- '--record' || { echo "tune --help"; fail=1; }
# The work directories are gone.
if compgen -G "$work/tcgen-tune-*" >/dev/null; then echo "work directory left behind"; fail=1; fi

exit $fail
