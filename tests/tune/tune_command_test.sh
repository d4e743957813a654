#!/usr/bin/env bash
# tcgen tune end to end on a small real trace (the load values of the .tcz
# goldens) and a synthetic one: --record starts from every shipped spec of
# the layout, names the best as the start and returns a spec no larger than
# the smallest of them; --spec=examples/vpc3.tcg (the runs below that
# look at the search itself) starts from that spec alone and says so; the spec it prints is accepted by tcgen, its compressor
# round-trips the sample byte for byte and is never larger than the start's
# (whatever the tolerance); the start and best lines give the ratios the
# specs' own programs reach;
# every run shares one build cache (--cache-dir), so that a candidate is
# built once in the whole test, and a run of candidates built before builds
# nothing; the candidates are built with --opt-level=0 (the bytes they write
# are those of any level), and the levels tune would choose itself are
# checked on its first line;
# --spec starts from the given spec and names it; argument errors give the expected
# one-line messages; --objective=ratio is the default's search exactly;
# balanced and speed, and a decode target, give specs that round-trip, or
# the one-line error when no candidate meets the target. Few candidates, no
# timing checks: decode times appear, their values are never compared. The
# test's own compressors of the printed specs are built with -O0 (their
# bytes are those of any -O) and once per generated code.
# Usage: tune_command_test.sh TCGEN SOURCE_DIR SYNTH_TRACE
set -euo pipefail
tcgen=$(realpath "$1")
source_dir=$2
synth=$(realpath "$3")
sample=$source_dir/tests/golden/tcz/inputs/load_values.trace
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export TMPDIR=$work
fail=0
# The test's own builds of the specs tune printed: -O0, for their sizes
# and round trips alone (which the compiler's options do not change).
cxx=(${CXX:-c++} -std=c++17 -O0)
link_flags=$(dirname "$0")/../tools/link-flags   # the back-ends' -l flags, from the generated file

# --- a tuning run and its spec ---------------------------------------------
# Every run's builds: one cache, -O0.
tune_builds=(--cache-dir="$work/cache" --opt-level=0)
# tune_vpc3 ARGS...: tcgen tune from examples/vpc3.tcg alone (its layout,
# h32,pc32,64), named as the --record start of earlier versions was.
tune_vpc3() { (cd "$source_dir" && "$tcgen" tune "$@" --spec=examples/vpc3.tcg "${tune_builds[@]}"); }
# From vpc3.tcg: it is measured first, the wide start second, and the result
# is never larger than it.
tune_vpc3 "$sample" --max-candidates=3 --tolerance=0 -o "$work/tuned.tcg" 2>"$work/log"
grep -q '^tcgen tune:   1  ratio .*  examples/vpc3.tcg$' "$work/log" || { echo "not started from vpc3:"; cat "$work/log"; fail=1; }
grep -q '^tcgen tune:   2  ratio .*  wide start$' "$work/log" || { echo "no wide start line:"; cat "$work/log"; fail=1; }
[[ $(grep -c '^tcgen tune:  *[0-9]*  ratio' "$work/log") -eq 3 ]] || { echo "not 3 candidates:"; cat "$work/log"; fail=1; }
cp "$source_dir/examples/vpc3.tcg" "$work/start.tcg"
# Compresses SAMPLE with SPEC's program, round trip checked; prints the
# compressed size. A program is built once for all specs that generate the
# same code (the start kept unchanged is the start), in $work/builds.
compressed_size() {  # SPEC-NAME SAMPLE
    local spec=$1 input=$2 build
    if [[ ! -x "$work/$spec" ]]; then
        "$tcgen" "$work/$spec.tcg" -o "$work/$spec.cpp"
        build=$work/builds/$(sha256sum <"$work/$spec.cpp" | cut -c1-64)
        if [[ ! -x "$build" ]]; then
            mkdir -p "$work/builds"
            # shellcheck disable=SC2046  # the flags are words
            "${cxx[@]}" -o "$build" "$work/$spec.cpp" -pthread $("$link_flags" "$work/$spec.cpp")
        fi
        cp "$build" "$work/$spec"
    fi
    "$work/$spec" <"$input" >"$work/$spec.tcz" 2>/dev/null
    "$work/$spec" -d <"$work/$spec.tcz" >"$work/$spec.back"
    cmp "$input" "$work/$spec.back" >&2 || { echo "$spec: round trip of $input differs" >&2; return 1; }
    stat -c %s "$work/$spec.tcz"
}
# The start and best lines: the ratios of the sizes the specs' own programs
# write (a candidate's sizes do not depend on the compiler's options).
# Usage: check_start_and_best LOG SAMPLE START-NAME START-SIZE BEST-SIZE
check_start_and_best() {
    local log=$1 input=$2 name=$3 start_size=$4 best_size=$5
    local in_size expected_start expected_best
    in_size=$(stat -c %s "$input")
    expected_start=$(awk -v i="$in_size" -v o="$start_size" -v n="$name" 'BEGIN { printf "tcgen tune: start: %s, ratio %.3f", n, i / o }')
    if (( best_size >= start_size )); then
        expected_best=$(awk -v i="$in_size" -v s="$start_size" \
            'BEGIN { printf "tcgen tune: best: ratio %.3f, the start unchanged (no candidate beats it), ", i / s }')
    else
        expected_best=$(awk -v i="$in_size" -v s="$start_size" -v b="$best_size" \
            'BEGIN { printf "tcgen tune: best: ratio %.3f (+%.2f %%), ", i / b, (s / b - 1) * 100 }')
    fi
    grep -qxE "$(sed 's/[.()+]/\\&/g' <<<"$expected_start"), decode [0-9]+\.[0-9] ns/record" "$log" ||
        { echo "expected '$expected_start, decode N ns/record':"; cat "$log"; fail=1; }
    grep -qF "$expected_best" "$log" || { echo "expected '$expected_best...':"; cat "$log"; fail=1; }
}
tuned_size=$(compressed_size tuned "$sample") || fail=1
start_size=$(compressed_size start "$sample") || fail=1
if (( tuned_size > start_size )); then
    echo "tuned spec's output ($tuned_size bytes) is larger than its start's ($start_size)"; fail=1
fi
check_start_and_best "$work/log" "$sample" examples/vpc3.tcg "$start_size" "$tuned_size"
# The printed spec is canonical: tcgen prints its statements unchanged.
"$tcgen" --canonical "$work/tuned.tcg" | grep -v '^#' >"$work/canonical"
grep -v '^#' "$work/tuned.tcg" | diff -u - "$work/canonical" || { echo "tuned spec is not canonical"; fail=1; }

# A synthetic VPC trace of a few hundred KB. With a large tolerance the
# search takes simpler candidates that cost size; the result is still never
# below the start: the start comes back, unchanged, when nothing beats it.
"$synth" --fields=32,64 --header=4 --records=30000 >"$work/synthetic.trace"
for tolerance in 0 5; do
    tune_vpc3 "$work/synthetic.trace" --max-candidates=4 --tolerance=$tolerance \
        -o "$work/synthetic_$tolerance.tcg" 2>"$work/log"
    rm -f "$work/synthetic_$tolerance"
    size=$(compressed_size "synthetic_$tolerance" "$work/synthetic.trace") || fail=1
    synthetic_start=$(compressed_size start "$work/synthetic.trace") || fail=1
    if (( size > synthetic_start )); then
        echo "--tolerance=$tolerance: output ($size bytes) larger than the start's ($synthetic_start)"; fail=1
    fi
    check_start_and_best "$work/log" "$work/synthetic.trace" examples/vpc3.tcg "$synthetic_start" "$size"
done
# Here the third candidate (one FCM1 slot fewer for the PC) is simpler and
# within a 5 % tolerance, so the search takes it, but its output is larger
# than the start's: the start comes back as it is (its canonical form).
tune_vpc3 "$sample" --max-candidates=3 --tolerance=5 -o "$work/kept.tcg" 2>"$work/log"
grep -q '^tcgen tune:   3  ratio .*  taken  field 1: FCM1\[2\] -> FCM1\[1\]$' "$work/log" &&
    grep -qF ", the start unchanged (no candidate beats it), " "$work/log" ||
    { echo "a simpler, smaller candidate taken: the start not kept:"; cat "$work/log"; fail=1; }
"$tcgen" --canonical "$source_dir/examples/vpc3.tcg" | grep -v '^#' >"$work/canonical_start"
grep -v '^#' "$work/kept.tcg" | diff -u "$work/canonical_start" - || { echo "the start kept: not its spec"; fail=1; }
# A shipped start whose tables exceed --max-table-mb is left out, and said so.
tune_vpc3 "$sample" --max-table-mb=16 --max-candidates=1 -o /dev/null 2>"$work/log"
grep -qxF 'tcgen tune: skipped examples/vpc3.tcg: its tables (22.0 MB) exceed --max-table-mb' "$work/log" &&
    grep -q '^tcgen tune: start: the wide start, ratio ' "$work/log" ||
    { echo "--max-table-mb=16: the start not left out:"; cat "$work/log"; fail=1; }
# A layout no shipped spec has starts from the wide start.
"$synth" --fields=32,32 --header=4 --records=3000 >"$work/narrow.trace"
"$tcgen" tune "$work/narrow.trace" --record=h32,pc32,32 --max-candidates=1 "${tune_builds[@]}" -o /dev/null \
    2>"$work/log"
grep -q '^tcgen tune: start: the wide start, ratio ' "$work/log" || { echo "h32,pc32,32: not the wide start:"; cat "$work/log"; fail=1; }

# --record starts from every shipped spec of the layout (vpc3.tcg first, the
# others by name, then the wide start), names the best of them as the start
# and returns a spec no larger than the smallest of them (x86_cache_misses.tcg's
# tables, 69 MB, exceed the candidates' default limit of 64: the default grows
# to the largest start's).
shipped=(vpc3 tcgen_b x86_cache_misses x86_load_values x86_store_addresses)
"$tcgen" tune "$sample" --record=h32,pc32,64 --max-candidates=7 --tolerance=0 \
    "${tune_builds[@]}" -o "$work/all_starts.tcg" \
    2>"$work/log"
number=1
for name in "${shipped[@]}"; do
    grep -q "^tcgen tune:   $number  ratio .*  examples/$name.tcg\$" "$work/log" ||
        { echo "--record: examples/$name.tcg not start $number:"; cat "$work/log"; fail=1; }
    number=$((number + 1))
done
grep -q "^tcgen tune:   6  ratio .*  wide start\$" "$work/log" || { echo "--record: no wide start:"; cat "$work/log"; fail=1; }
smallest_name="" smallest_size=""
for name in "${shipped[@]}"; do
    [[ -e "$work/shipped_$name.tcg" ]] || cp "$source_dir/examples/$name.tcg" "$work/shipped_$name.tcg"
    size=$(compressed_size "shipped_$name" "$sample") || fail=1
    if [[ -z $smallest_size ]] || (( size < smallest_size )); then smallest_name=$name smallest_size=$size; fi
done
all_starts_size=$(compressed_size all_starts "$sample") || fail=1
if (( all_starts_size > smallest_size )); then
    echo "--record: output ($all_starts_size bytes) larger than examples/$smallest_name.tcg's ($smallest_size)"; fail=1
fi
check_start_and_best "$work/log" "$sample" "examples/$smallest_name.tcg" "$smallest_size" "$all_starts_size"

# The objectives. --objective=ratio is the default: the same candidates,
# the same spec; and all three were built by the first run, so the cache
# gains nothing.
cached_builds=$(find "$work/cache" -type f | wc -l)
tune_vpc3 "$sample" --max-candidates=3 --objective=ratio -o "$work/ratio.tcg" 2>"$work/log"
diff <(grep -v '^#' "$work/tuned.tcg") <(grep -v '^#' "$work/ratio.tcg") ||
    { echo "--objective=ratio: not the default's spec"; fail=1; }
[[ $(find "$work/cache" -type f | wc -l) -eq $cached_builds ]] ||
    { echo "--objective=ratio: candidates built again, not taken from the cache"; ls -l "$work/cache"; fail=1; }
# Every candidate line, and the best line, show the decode time.
[[ $(grep -c '^tcgen tune:  *[0-9]*  ratio .*  decode  *[0-9]*\.[0-9] ns/rec  tables ' "$work/log") -eq 3 ]] &&
    grep -q '^tcgen tune: best: ratio .*, decode [0-9]*\.[0-9] ns/record' "$work/log" ||
    { echo "no decode times:"; cat "$work/log"; fail=1; }
# balanced and speed, and a target every candidate meets: the spec is
# accepted and its compressor round-trips the sample; the header says the
# goal. Two candidates each (the start and the wide start), built once for
# all three and for the unmet target below (at --opt-level=0, which the first
# line says in place of the -O2 these goals build with by default).
for goal in "balanced" "speed" "ratio --max-decode-ns=1e6"; do
    name=goal_$(tr -c 'a-z0-9\n' _ <<<"$goal")
    # shellcheck disable=SC2086  # the goal is words
    tune_vpc3 "$sample" --max-candidates=2 --objective=$goal -o "$work/$name.tcg" \
        2>"$work/log" || { echo "--objective=$goal failed:"; cat "$work/log"; fail=1; continue; }
    compressed_size "$name" "$sample" >/dev/null || fail=1
    objective=${goal%% *}
    grep -q "^# tcgen tune (objective $objective[,)].* decode [0-9]*\.[0-9] ns/record" "$work/$name.tcg" &&
        grep -q "^tcgen tune: record h32,pc32,64; .*, compiler .* -O0; objective $objective" "$work/log" ||
        { echo "--objective=$goal: the goal not said:"; head -2 "$work/$name.tcg"; cat "$work/log"; fail=1; }
done
grep -q '^# tcgen tune (objective ratio, decode within 1e+06 ns/record) on ' "$work/goal_ratio___max_decode_ns_1e6.tcg" ||
    { echo "the target not in the header:"; head -1 "$work/goal_ratio___max_decode_ns_1e6.tcg"; fail=1; }
# A target no candidate meets: one line, status 1, no spec.
status=0
tune_vpc3 "$sample" --max-candidates=2 --objective=speed --max-decode-ns=0.001 \
    -o "$work/unmet.tcg" 2>"$work/log" || status=$?
grep -v '^tcgen tune: ' "$work/log" >"$work/err"
[[ $status -eq 1 && ! -e "$work/unmet.tcg" ]] &&
    grep -qxE 'tcgen: error: no candidate decodes within --max-decode-ns=0\.001: the fastest of the 2 measured, [0-9]+\.[0-9] ns/record \(ratio [0-9]+\.[0-9]{3}\); raise the target or the --budget' "$work/err" &&
    [[ $(wc -l <"$work/err") -eq 1 ]] ||
    { echo "an unmet target: not the expected error (status $status):"; cat "$work/log"; fail=1; }

# --spec: the layout of a spec, and the start: its own predictors.
"$tcgen" tune "$sample" --spec="$source_dir/examples/vpc3.tcg" --max-candidates=2 "${tune_builds[@]}" \
    >"$work/from_spec.tcg" 2>"$work/log"
grep -q "^tcgen tune:   1  ratio .*  $source_dir/examples/vpc3.tcg\$" "$work/log" &&
    grep -q "^tcgen tune: start: $source_dir/examples/vpc3.tcg, ratio " "$work/log" ||
    { echo "--spec: not started from the given spec:"; cat "$work/log"; fail=1; }
"$tcgen" --canonical "$work/from_spec.tcg" >/dev/null || { echo "--spec: output refused"; fail=1; }

# Several samples: each is cut and compressed on its own, and the ratio the
# tuner prints is that of the totals (here: the second half of the trace
# under the header, and the whole trace).
head -c 4 "$sample" >"$work/second_half.trace"
tail -c +$((4 + 12 * 1500 + 1)) "$sample" >>"$work/second_half.trace"
tune_vpc3 "$work/second_half.trace" "$sample" --max-candidates=2 -o "$work/both.tcg" \
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
grep -q "^# tcgen tune on 2 samples, $total_in bytes in all: start: examples/vpc3.tcg, ratio " "$work/both.tcg" &&
    grep -q "^# best: ratio $expected[ ,]" "$work/both.tcg" ||
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
check_error "tcgen: error: cannot make the build cache '$sample/cache': Not a directory" \
    "$sample" --record=h32,pc32,64 --cache-dir="$sample/cache"
check_error "tcgen: error: --budget must be a positive number of seconds" "$sample" --record=h32,pc32,64 --budget=0
check_error "tcgen: error: --max-table-mb must be from 1 to 16384 (16 GiB, the most tcgen accepts)" \
    "$sample" --record=h32,pc32,64 --max-table-mb=0
check_error "tcgen: error: --objective must be ratio, balanced or speed, not 'fast'" \
    "$sample" --record=h32,pc32,64 --objective=fast
check_error "tcgen: error: --max-decode-ns must be a positive number of nanoseconds per record" \
    "$sample" --record=h32,pc32,64 --max-decode-ns=0
check_error "tcgen: error: --max-decode-ns must be a positive number of nanoseconds per record" \
    "$sample" --record=h32,pc32,64 --objective=speed --max-decode-ns=-40
check_error "tcgen: error: tune: Could not convert: --max-decode-ns = fast (try tcgen tune --help)" \
    "$sample" --record=h32,pc32,64 --max-decode-ns=fast
check_error "tcgen: error: tune: --opt-level: Value 4 not in range 0 to 3 (try tcgen tune --help)" \
    "$sample" --record=h32,pc32,64 --opt-level=4
check_error "tcgen: error: tune: The following argument was not expected: --bogus (try tcgen tune --help)" \
    "$sample" --record=h32,pc32,64 --bogus
check_error "tcgen: error: cannot read '$work/none.tcg': No such file or directory" "$sample" --spec="$work/none.tcg"
check_error "tcgen: error: refusing to overwrite the input '$work/second_half.trace' with the output" \
    "$sample" "$work/second_half.trace" --record=h32,pc32,64 --max-candidates=1 -o "$work/second_half.trace"
"$tcgen" tune --help | grep -q -- '--record' || { echo "tune --help"; fail=1; }
# The level the candidates are built at: -O1 for ratio, -O2 where decode
# speed counts, else --opt-level's; the first line names it where it is not
# the default -O1. The compiler here notes its arguments and fails.
printf '#!/bin/sh\necho "$*" >"%s/compiler-arguments"\nexit 1\n' "$work" >"$work/noting-c++"
chmod +x "$work/noting-c++"
check_level() {  # LEVEL FIRST-LINE-TAIL ARGUMENTS...
    local level=$1 tail=$2
    shift 2
    rm -f "$work/compiler-arguments"
    "$tcgen" tune "$sample" --record=h32,pc32,64 --cxx="$work/noting-c++" "$@" >/dev/null 2>"$work/log" || true
    grep -qw -- "-O$level" "$work/compiler-arguments" &&
        grep -qxF "compiler $work/noting-c++$tail" <(sed -n 's/^tcgen tune: record [^;]*; [^,]*, budget [^,]*, \(compiler .*\)$/\1/p' "$work/log") ||
        { echo "tune $*: not built at -O$level:"; cat "$work/compiler-arguments" "$work/log"; fail=1; }
}
check_level 1 ""
check_level 2 " -O2; objective balanced" --objective=balanced
check_level 2 " -O2; objective ratio, decode within 50 ns/record" --max-decode-ns=50
check_level 0 " -O0" --opt-level=0
check_level 3 " -O3; objective speed" --objective=speed --opt-level=3
# The work directories are gone.
if compgen -G "$work/tcgen-tune-*" >/dev/null; then echo "work directory left behind"; fail=1; fi

exit $fail
