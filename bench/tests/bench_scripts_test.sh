#!/usr/bin/env bash
# The benchmark scripts end to end on a tiny corpus: bench/corpus.sh --quick
# traces two programs with tcgen-tracer, bench/run.py and bench/ablation.py measure
# them (one run each), and the checks below look at what they wrote: a
# verified CSV row for every (trace, compressor) and (trace, variant; branch
# traces also as block ids, through tcgen and as a grammar), the
# tables on stdout, both sections of one Markdown document, with no path of
# this checkout in it. Then the hard set of two programs goes into the same
# directory beside the regular one, bench/run.py --section writes it into a
# document of its own (as docs/benchmarks/run-hard.md, its chart beside it),
# and bench/ablation.py --section writes a second section without touching the
# others. Last, bench/wet.py on one program's small WET. No figure is asserted: timings on a shared machine mean nothing in
# a test. So tcgen's compressors are built with -O0 (--opt-level=0, half
# the compiler's time; the sizes and round trips are the same) and once for
# the whole test (--build-cache: the ablation's full optimisations is
# bench/run.py's tcgen-a, the hard set's compressors and the second
# ablation's are those built before).
#
#   bench/tests/bench_scripts_test.sh TCGEN TRACER_DIR
set -euo pipefail

tcgen=$1 tracer_dir=$2
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/bench-scripts-test.XXXXXX")
trap 'rm -rf "$work"' EXIT
fail() { echo "bench_scripts_test: FAIL: $*" >&2; exit 1; }

# What every run of bench/run.py and bench/ablation.py below is given.
builds=(--opt-level=0 --build-cache="$work/builds")
"$repo/bench/corpus.sh" --quick --dir="$work/corpus" --programs=gzip,sort --tool-dir="$tracer_dir" \
    >"$work/corpus.out" 2>&1 || { cat "$work/corpus.out"; fail "bench/corpus.sh failed"; }
manifest=$work/corpus/quick/manifest.tsv
[[ $(wc -l <"$manifest") -eq 11 ]] || fail "manifest: expected 10 traces (5 kinds × 2 programs), got $(($(wc -l <"$manifest") - 1))"

doc=$work/doc/benchmarks.md
mkdir -p "$work/doc"
printf '# Benchmarks\n\nHand-written analysis that the scripts must keep.\n' >"$doc"

"$repo/bench/run.py" --quick "${builds[@]}" --tcgen="$tcgen" --out="$work/run" --markdown="$doc" --zpaq=sort "$manifest" \
    >"$work/run.out" 2>"$work/run.err" || { cat "$work/run.err"; fail "bench/run.py failed"; }
"$repo/bench/ablation.py" --quick "${builds[@]}" --tcgen="$tcgen" --out="$work/ablation" --markdown="$doc" "$manifest" \
    >"$work/ablation.out" 2>"$work/ablation.err" || { cat "$work/ablation.err"; fail "bench/ablation.py failed"; }

# Every expected row is there, verified, and nothing else.
/usr/bin/python3 - "$work/run/results.csv" "$work/ablation/results.csv" <<'EOF' || fail "CSV check failed"
import csv, sys
general = ["bzip2-9", "xz-9", "zstd-19-long", "zstd-3"]
vpc = ["store-addresses", "cache-miss-addresses", "load-values"]
programs = ["gzip", "sort"]
expected_run = {(k, p, c) for k in vpc for p in programs for c in ["tcgen-a", "tcgen-a-paper", "tcgen-b"] + general}
expected_run |= {("champsim", p, c) for p in programs for c in ["tcgen-champsim"] + general}
expected_run |= {("branches", p, c) for p in programs
                 for c in ["tcgen-branches", "tcgen-block-ids", "wpp-block-ids"] + general}
expected_run |= {(k, "sort", "zpaq-m5") for k in vpc + ["champsim", "branches"]}  # --zpaq=sort
expected_run |= {("cache-miss-addresses", p, "tcgen-x86-misses") for p in programs}
expected_run |= {("store-addresses", p, "tcgen-x86-stores") for p in programs}
expected_run |= {("load-values", p, "tcgen-x86-loads") for p in programs}
# Each kind's shipped spec also at -9.
shipped = {"cache-miss-addresses": "tcgen-x86-misses", "store-addresses": "tcgen-x86-stores",
           "load-values": "tcgen-x86-loads", "champsim": "tcgen-champsim", "branches": "tcgen-branches"}
expected_run |= {(k, p, c + "-9") for k, c in shipped.items() for p in programs}
variants = ["no smart update", "no type minimisation", "no shared tables", "no fast hash function",
            "all of the above", "full optimisations", "no dead-code removal"]
expected_ablation = {(k, p, v) for k in vpc for p in programs for v in variants}
ok = True
for path, key, expected in ((sys.argv[1], "compressor", expected_run),
                            (sys.argv[2], "variant", expected_ablation)):
    rows = list(csv.DictReader(open(path)))
    got = [(r["kind"], r["program"], r[key]) for r in rows]
    if sorted(got) != sorted(expected):
        print(path, "rows differ: missing", sorted(expected - set(got)), "extra",
              sorted(set(got) - expected), file=sys.stderr)
        ok = False
    for r in rows:
        ratio = r.get("ratio") or r.get("rate")
        if r["verified"] != "yes" or not ratio or float(ratio) <= 0:
            print(path, "not verified:", r["kind"], r["program"], r[key], r["error"], file=sys.stderr)
            ok = False
sys.exit(0 if ok else 1)
EOF

for kind in store-addresses cache-miss-addresses load-values champsim branches; do
    grep -q "^== $kind:" "$work/run.out" || fail "bench/run.py printed no table for $kind"
    grep -q "^### $kind" "$doc" || fail "no $kind table in the document"
done
# Branch traces also go as block ids, through tcgen and as a grammar (their
# round trips are in the CSV check above): a row of each per trace in the
# table and the document, and the control-flow goals judged on every trace.
for program in gzip sort; do
    for compressor in tcgen-block-ids wpp-block-ids; do
        grep -q "^$program  *$compressor  *[0-9]" "$work/run.out" || fail "bench/run.py printed no $compressor row for $program"
        grep -q "^| $program | $compressor | [0-9]" "$doc" || fail "no $compressor row for $program in the document"
    done
done
grep -q "^  tcgen-block-ids  *ratio ≥ xz-9's " "$work/run.out" || fail "no goals for tcgen-block-ids"
for goal in "ratio ≥ 1.5× xz-9's on every trace" "ratio ≥ zstd-19-long's on every trace" \
            "ratio ≥ wpp-block-ids's on every trace"; do
    grep -q "^  *$goal  *\(met\|NOT MET\) " "$work/run.out" || fail "no verdict on '$goal'"
done
grep -q "^- \`tcgen-block-ids\`: \`bench/runner/block-ids-filter -c --split=" "$doc" \
    || fail "tcgen-block-ids' command is not in the document, relative to the repository"
# Every goal has a verdict, the ceiling's on the one trace zpaq compressed.
grep -q "^  tcgen-a  *ratio ≥ xz-9's  *\(met\|NOT MET\) " "$work/run.out" || fail "no verdict on the xz goal"
grep -q "^  *ratio ≥ xz-9's on every trace  *\(met\|NOT MET\) " "$work/run.out" ||
    fail "no verdict on the per-trace xz goal"
grep -q "^  tcgen-x86-misses-9  *ratio ≥ xz-9's  *\(met\|NOT MET\) " "$work/run.out" || fail "no goals for -9"
grep -q "^- \`tcgen-x86-misses-9\`: \`tcgen-x86-misses -9 < trace > packed\`" "$doc" ||
    fail "the -9 configuration's command is not in the document"
grep -q "^  *ratio ≥ zpaq-m5's (1 trace(s))  *\(met\|NOT MET\) " "$work/run.out" ||
    fail "no verdict on the zpaq goal"
grep -q "not measured" "$work/run.out" && fail "a goal was not measured"
# The before/after: the paper's configuration against tcgen's best, per VPC kind.
for kind in store-addresses cache-miss-addresses load-values; do
    grep -q "^  $kind  *before  *tcgen-a-paper " "$work/run.out" || fail "no before/after row for $kind"
done
grep -q "^| store-addresses | before: \`tcgen-a-paper\` |" "$doc" || fail "no before/after table in the document"
for kind in store-addresses cache-miss-addresses load-values; do
    grep -q "^$kind (2 traces)" "$work/ablation.out" || fail "bench/ablation.py printed no table for $kind"
done
grep -q "^| \*\*full optimisations\*\* |" "$doc" || fail "no ablation table in the document"
grep -q "^Hand-written analysis that the scripts must keep.$" "$doc" || fail "the hand-written text was lost"
[[ $(grep -c "^<!-- begin bench/" "$doc") -eq 2 ]] || fail "expected exactly two generated sections"
grep -q "^## tcgen against bzip2, xz and zstd on the regular set$" "$doc" || fail "the bench/run.py heading does not name the regular set"
# The commands are written as run from the repository's top (the test ran
# them with absolute paths into it: --tcgen, the zpaq filter).
if grep -F "$repo/" "$doc"; then fail "the document names this checkout's path"; fi
grep -q "^- \`zpaq-m5\`: \`bench/runner/zpaq-filter -c 5 " "$doc" || fail "zpaq's command is not relative to the repository"

# The hard set: its own files and manifest in the same directory, the regular
# set's left as they were; all five kinds of both programs, each with records.
# section NAME [DOCUMENT]: the text of a generated section (default document: $doc)
section() { awk -v b="<!-- begin $1 -->" -v e="<!-- end $1 -->" '$0 == b { on = 1 } on { print } $0 == e { on = 0 }' "${2:-$doc}"; }
regular_before=$(cd "$work/corpus/quick" && sha256sum manifest.tsv ./*.stamp)
run_before=$(section bench/run.py)
"$repo/bench/corpus.sh" --quick --set=hard --dir="$work/corpus" --programs=sqlite3,xz-bin --tool-dir="$tracer_dir" \
    >"$work/hard.out" 2>&1 || { cat "$work/hard.out"; fail "bench/corpus.sh --set=hard failed"; }
hard=$work/corpus/quick/hard-manifest.tsv
[[ $(wc -l <"$hard") -eq 11 ]] || fail "hard manifest: expected 10 traces, got $(($(wc -l <"$hard") - 1))"
awk -F'\t' 'NR > 1 && ($5 <= 0 || $3 !~ /\/hard-(sqlite3|xz-bin)\.[a-z]+$/) { bad = 1 } END { exit bad }' "$hard" \
    || fail "hard manifest: an empty trace or a file not named hard-PROGRAM.*: $(cat "$hard")"
[[ "$(cd "$work/corpus/quick" && sha256sum manifest.tsv ./*.stamp | grep -v '/hard-')" == "$regular_before" ]] \
    || fail "bench/corpus.sh --set=hard changed the regular set's files"
"$repo/bench/corpus.sh" --quick --set=hard --dir="$work/corpus" --programs=sqlite3,xz-bin --tool-dir="$tracer_dir" \
    >"$work/hard2.out" 2>&1 || fail "bench/corpus.sh --set=hard failed the second time"
[[ $(grep -c " reused$" "$work/hard2.out") -eq 10 ]] || fail "the hard set was not reused: $(cat "$work/hard2.out")"

hard_doc=$work/doc/run-hard.md
"$repo/bench/run.py" --quick "${builds[@]}" --tcgen="$tcgen" --out="$work/run-hard" --markdown="$hard_doc" --zpaq=none \
    --kinds=store-addresses,branches --section=bench/run-hard "$hard" \
    >"$work/run-hard.out" 2>"$work/run-hard.err" || { cat "$work/run-hard.err"; fail "bench/run.py --section failed"; }
[[ $(grep -c "^<!-- begin bench/" "$doc") -eq 2 ]] || fail "bench/run.py --markdown=run-hard.md wrote into another document"
[[ $(grep -c "^<!-- begin bench/" "$hard_doc") -eq 1 ]] || fail "expected one generated section in run-hard.md"
[[ $(head -1 "$hard_doc") == "# Benchmark results" ]] || fail "the new document does not begin with its generated title"
[[ "$(section bench/run.py)" == "$run_before" ]] || fail "bench/run.py --section=bench/run-hard changed the bench/run.py section"
# Read once into a variable: "section ... | grep -q" under pipefail fails
# whenever grep finds its line and exits before awk has written the rest.
hard_section=$(section bench/run-hard "$hard_doc")
grep -q "^## tcgen against bzip2, xz and zstd on the hard set$" <<<"$hard_section" \
    || fail "the bench/run-hard heading does not name the hard set"
for kind in store-addresses branches; do
    grep -q "^### $kind$" <<<"$hard_section" || fail "no $kind table in the bench/run-hard section"
    grep -q "^== $kind:" "$work/run-hard.out" || fail "bench/run.py --section printed no table for $kind"
done
grep -q "^| store-addresses | xz-bin |" <<<"$hard_section" || fail "the hard section does not list xz-bin's trace"
if command -v gnuplot >/dev/null; then
    [[ -s "$work/doc/run-hard.png" ]] || fail "the hard section's chart was not copied beside its document as run-hard.png"
    grep -q "^!\[compression ratio vs decompression speed\](run-hard.png)$" <<<"$hard_section" \
        || fail "the hard section does not show its own chart"
    # A second section of the same document draws a chart of its own and
    # leaves the first one's alone.
    chart_before=$(sha256sum <"$work/doc/run-hard.png")
    "$repo/bench/run.py" --quick "${builds[@]}" --tcgen="$tcgen" --out="$work/run-hard-two" --markdown="$hard_doc" --zpaq=none \
        --kinds=branches --section=bench/run-hard-two "$hard" >/dev/null 2>"$work/run-hard-two.err" \
        || { cat "$work/run-hard-two.err"; fail "bench/run.py --section=bench/run-hard-two failed"; }
    [[ -s "$work/doc/run-hard-two.png" ]] || fail "the second section's chart is not run-hard-two.png"
    [[ $(sha256sum <"$work/doc/run-hard.png") == "$chart_before" ]] || fail "the second section overwrote run-hard.png"
    grep -q "^!\[compression ratio vs decompression speed\](run-hard-two.png)$" <<<"$(section bench/run-hard-two "$hard_doc")" \
        || fail "the second section does not show its own chart"
    [[ "$(section bench/run-hard "$hard_doc")" == "$hard_section" ]] || fail "the second section changed the first"
fi

# bench/ablation.py --section writes a second ablation beside the first.
ablation_before=$(section bench/ablation.py)
"$repo/bench/ablation.py" --quick "${builds[@]}" --tcgen="$tcgen" --out="$work/ablation2" --markdown="$doc" \
    --section=bench/ablation-gzip --traces="store-addresses:$work/corpus/quick/gzip.sta" >/dev/null 2>&1 \
    || fail "bench/ablation.py --traces --section failed"
[[ "$(section bench/ablation.py)" == "$ablation_before" ]] || fail "bench/ablation.py --section changed the bench/ablation.py section"
# Its seven variants were built by the first ablation: none is compiled again.
[[ $(grep -c "^# variant[0-9]: taken from the build cache, " "$work/ablation2/logs/build.log") -eq 7 ]] &&
    ! grep -q "^\$ .* -O0 " "$work/ablation2/logs/build.log" || fail "--build-cache: the variants were built again"
grep -qF -- ' -O0`)' "$doc" || fail "the document does not say the compressors were built with -O0"
[[ $(grep -c "^<!-- begin bench/ablation-gzip -->" "$doc") -eq 1 ]] || fail "no bench/ablation-gzip section"
grep -q "gzip.sta" <<<"$(section bench/ablation-gzip)" || fail "the bench/ablation-gzip section does not list its trace"

# Writing a section again replaces it and keeps the text around it.
/usr/bin/python3 - "$repo/bench/runner" "$work/sections.md" <<'EOF' || fail "markdown_doc.write_section check failed"
import sys
sys.path.insert(0, sys.argv[1])
import markdown_doc
path = sys.argv[2]
markdown_doc.write_section(path, "bench/a", "first A")
with open(path, "a", encoding="utf-8") as f:
    f.write("hand-written text\n")
markdown_doc.write_section(path, "bench/b", "B")
markdown_doc.write_section(path, "bench/a", "second A")
with open(path, encoding="utf-8") as f:
    document = f.read()
expected = (markdown_doc.GENERATED_TITLE + "\n\n<!-- begin bench/a -->\nsecond A\n<!-- end bench/a -->\nhand-written text\n"
            "\n<!-- begin bench/b -->\nB\n<!-- end bench/b -->\n")
assert document == expected, repr(document)
EOF
if command -v gnuplot >/dev/null; then
    [[ -s "$work/run/chart.png" && -s "$work/doc/benchmarks.png" ]] || fail "chart not drawn"
fi

# Bad input is a one-line error and exit status 1.
if "$repo/bench/run.py" --quick --traces="champsim:$work/nonexistent" >/dev/null 2>"$work/err"; then
    fail "bench/run.py accepted a missing trace file"
fi
[[ $(wc -l <"$work/err") -eq 1 ]] || fail "bench/run.py: not a one-line error: $(cat "$work/err")"
if "$repo/bench/ablation.py" --quick --spec=examples/nonexistent.tcg "$manifest" >/dev/null 2>"$work/err"; then
    fail "bench/ablation.py accepted a missing spec"
fi
[[ $(wc -l <"$work/err") -eq 1 ]] || fail "bench/ablation.py: not a one-line error: $(cat "$work/err")"
for script in run.py ablation.py tune.py; do
    if "$repo/bench/$script" --section='a--b' "$manifest" >/dev/null 2>"$work/err"; then
        fail "bench/$script accepted a section name with '--'"
    fi
    grep -q "argument --section: give a name without '--'" "$work/err" \
        || fail "bench/$script: no error for a section name with '--': $(cat "$work/err")"
done
# block-ids-filter, the block-id pipelines' program: a stream it did not
# write, cut short or with bytes after it is one line and exit status 1.
filter=$repo/bench/runner/block-ids-filter
tools=(--split="$(dirname "$tcgen")/../tracer/tcgen-branch-ids" --wpp="$(dirname "$tcgen")/../wpp/wpp")
"$filter" -c "${tools[@]}" <"$work/corpus/quick/sort.bra" >"$work/sort.bip" || fail "block-ids-filter -c failed"
"$filter" -d "${tools[@]}" <"$work/sort.bip" | cmp - "$work/corpus/quick/sort.bra" || fail "block-ids-filter round trip differs"
check_filter_error() {  # INPUT EXPECTED_MESSAGE
    if "$filter" -d "${tools[@]}" <"$1" >/dev/null 2>"$work/err"; then fail "block-ids-filter accepted $2"; fi
    [[ $(cat "$work/err") == "block-ids-filter: error: $2" ]] || fail "block-ids-filter: $(cat "$work/err")"
}
printf 'not packed' >"$work/bad.bip"
check_filter_error "$work/bad.bip" "standard input: not a block-ids-filter stream (no BIP1 header)"
head -c 30 "$work/sort.bip" >"$work/bad.bip"
check_filter_error "$work/bad.bip" "standard input: truncated in the compressed ids"
{ cat "$work/sort.bip"; printf x; } >"$work/bad.bip"
check_filter_error "$work/bad.bip" "standard input: bytes after the compressed side table"
if "$filter" -c "${tools[@]}" <"$doc" >/dev/null 2>"$work/err"; then fail "block-ids-filter compressed a file that is no branch trace"; fi
[[ $(wc -l <"$work/err") -eq 1 ]] && grep -q "^block-ids-filter: error: tcgen-branch-ids failed: " "$work/err" \
    || fail "block-ids-filter -c on a file that is no branch trace: $(cat "$work/err")"

# bench/wet.py on one program's small WET (no xz: it is most of a real run):
# every table and the goals, sort's row in each, no path of this checkout.
build=$(cd "$(dirname "$tcgen")/.." && pwd)
"$repo/bench/wet.py" --corpus="$work/wet-corpus" --wet-max=20000 --programs=sort --no-xz --slices=3 --seeks=3 \
    --build="$build" --work="$work/wet" --tool-dir="$tracer_dir" --out="$work/doc/wet.md" \
    >"$work/wet.out" 2>"$work/wet.err" || { cat "$work/wet.err"; fail "bench/wet.py failed"; }
for heading in "WET sizes" "Raw ÷ compressed per label type" "Memory and build" "Queries" "Goals"; do
    grep -q "^#### $heading" "$work/doc/wet.md" || fail "bench/wet.py: no table '$heading'"
done
[[ $(grep -c '^| sort | ' "$work/doc/wet.md") -eq 4 ]] || fail "bench/wet.py: sort is not in each table"
! grep -qF "$repo" "$work/doc/wet.md" || fail "bench/wet.py: the checkout's path is in the document"
if "$repo/bench/wet.py" --programs=nosuch >/dev/null 2>"$work/err"; then fail "bench/wet.py accepted an unknown program"; fi
[[ $(cat "$work/err") == "bench/wet.py: unknown program 'nosuch' (known: bzip2, gzip, xz, sort, sqlite3, python3, perl, cc1)" ]] \
    || fail "bench/wet.py: unknown program: $(cat "$work/err")"
if "$repo/bench/wet.py" --programs= --build="$build" >/dev/null 2>"$work/err"; then fail "bench/wet.py measured nothing"; fi
[[ $(cat "$work/err") == "bench/wet.py: nothing to measure: no --programs and no --long" ]] \
    || fail "bench/wet.py: nothing to measure: $(cat "$work/err")"
echo "bench_scripts_test: ok"
