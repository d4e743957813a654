#!/usr/bin/env bash
# bench/run.py --decode on two small synthetic store-address traces: a verified
# CSV row for every (trace, decoder) with the runs asked for, the Markdown
# section (the table by kind, a table per kind, the profile or why there is
# none, the noise, no path of this checkout) written into a document that
# keeps its hand-written text; the baselines' cache reused while the trace
# and command are the same, and a cached file that no longer decodes to the
# trace failing the run rather than giving figures. The profile's parser and
# classifier on a canned perf report. No figure is asserted: timings on a
# shared machine mean nothing in a test.
#
#   bench/tests/decode_speed_test.sh TCGEN
set -euo pipefail

tcgen=$1
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/decode-speed-test.XXXXXX")
trap 'rm -rf "$work"' EXIT
fail() { echo "decode_speed_test: FAIL: $*" >&2; exit 1; }

# Two traces in the VPC format: a header, then (PC, address) records of a few
# strided loops and some noise; the manifest names them as bench/corpus.sh does.
/usr/bin/python3 - "$work" <<'EOF'
import hashlib, os, random, struct, sys
work = sys.argv[1]
rows = ["kind\tprogram\tfile\tbytes\tsha256"]
for program, seed in (("alpha", 1), ("beta", 2)):
    rng = random.Random(seed)
    out = bytearray(b"STA1")
    bases = [rng.randrange(1 << 40) & ~7 for _ in range(8)]
    for i in range(30000):
        loop = i % 8
        pc = 0x400000 + 16 * loop
        addr = bases[loop] + 8 * (i // 8) if rng.random() < 0.9 else rng.randrange(1 << 44)
        out += struct.pack("<IQ", pc, addr)
    path = os.path.join(work, f"{program}.sta")
    open(path, "wb").write(out)
    rows.append(f"store-addresses\t{program}\t{path}\t{len(out)}\t{hashlib.sha256(out).hexdigest()}")
open(os.path.join(work, "manifest.tsv"), "w").write("\n".join(rows) + "\n")
EOF

doc=$work/doc/benchmarks.md
mkdir -p "$work/doc"
printf '# Benchmarks\n\nHand-written analysis that the script must keep.\n' >"$doc"

run() {  # run OUT [OPTIONS...]
    local out=$1
    shift
    "$repo/bench/run.py" --decode --runs=2 --tcgen="$tcgen" --out="$work/$out" --cache="$work/cache" \
        --markdown="$doc" "$@" "$work/manifest.tsv" >"$work/$out.out" 2>"$work/$out.err"
}
run first || { cat "$work/first.err"; fail "bench/run.py --decode failed"; }

/usr/bin/python3 - "$work/first/decode.csv" <<'EOF' || fail "CSV check failed"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
decoders = ["tcgen -d -T1", "tcgen -d", "xz -d", "zstd -d --long=27", "bzip2 -d"]
expected = {(p, d) for p in ("alpha", "beta") for d in decoders}
got = {(r["program"], r["decoder"]) for r in rows}
ok = got == expected and len(rows) == len(expected)
if not ok:
    print("rows differ: missing", sorted(expected - got), "extra", sorted(got - expected), file=sys.stderr)
for r in rows:
    if r["verified"] != "yes" or r["runs"] != "2" or r["records"] != "30000" or int(r["packed_bytes"]) <= 0 \
            or float(r["cpu_ns_per_record"]) <= 0 or float(r["wall_ns_per_record"]) <= 0:
        print("bad row:", r, file=sys.stderr)
        ok = False
sys.exit(0 if ok else 1)
EOF

section() { awk -v b="<!-- begin $1 -->" -v e="<!-- end $1 -->" '$0 == b { on = 1 } on { print } $0 == e { on = 0 }' "$doc"; }
text=$(section bench/run-decode)
[[ -n $text ]] || fail "no bench/run-decode section in the document"
grep -q "^Hand-written analysis that the script must keep.$" "$doc" || fail "the hand-written text was lost"
grep -q "^| store-addresses | 2 | [0-9]" <<<"$text" || fail "no row for store-addresses in the table by kind"
grep -q "^### store-addresses (\`examples/x86_store_addresses.tcg\`)$" <<<"$text" || fail "no table for the kind"
for program in alpha beta; do
    grep -q "^| $program | 30,000 | [0-9,]* | [0-9,]* | [0-9]" <<<"$text" || fail "no row for $program"
done
grep -q "^Noise: the runs of one decoder on one trace differed by [0-9]* %" <<<"$text" || fail "no noise stated"
grep -q "^- \`tcgen -d -T1\`: \`comp -d -T1\`$" <<<"$text" || fail "the commands are not listed"
if grep -q "^- perf: " <<<"$text"; then
    grep -q "^| store-addresses | alpha | [0-9]* % | [0-9]* % |" <<<"$text" || fail "perf ran but no profile row"
    grep -q "^| \*\*store-addresses\*\* | \*\*mean\*\* |" <<<"$text" || fail "no mean of the profile"
else
    grep -q "^Not measured: " <<<"$text" || fail "no profile and no reason given"
fi
if grep -F "$repo/" <<<"$text"; then fail "the section names this checkout's path"; fi

# The cache: reused as long as trace and command are the same (the files
# are not rewritten), and still decoded and compared on every run.
ls "$work/cache"/alpha.sta.{xz-9,zstd-19-long,bzip2-9}{,.key} >/dev/null || fail "the cache is not filled"
before=$(stat -c '%Y.%y' "$work/cache"/*.xz-9)
sleep 1
run second --no-profile || { cat "$work/second.err"; fail "the second run failed"; }
[[ $(stat -c '%Y.%y' "$work/cache"/*.xz-9) == "$before" ]] || fail "the cache was not reused"
grep -q "^Not measured: --no-profile.$" <<<"$(section bench/run-decode)" || fail "--no-profile not said"
[[ $(grep -c "^<!-- begin bench/run-decode -->" "$doc") -eq 1 ]] || fail "the section was not replaced"
# A cached file that decodes to other bytes fails the run.
xz -9 -c </dev/null >"$work/cache/beta.sta.xz-9"
if run third --no-profile; then fail "a wrong cached file went unnoticed"; fi
grep -q "FAILED: store-addresses beta xz -d: decompressed output differs" "$work/third.err" ||
    { cat "$work/third.err"; fail "the failure is not named"; }

# The profile's parts from a canned `perf report --stdio --no-children --sort dso,sym -q`.
/usr/bin/python3 - "$repo/bench/runner" <<'EOF' || fail "the profile parser is wrong"
import sys
sys.path.insert(0, sys.argv[1])
sys.dont_write_bytecode = True
import decode_speed
report = """
    40.00%  tcgen-x86-stores   [.] tcgen::generated::decode_block
    30.00%  libbz2.so.1.0.4    [.] BZ2_decompress
     5.00%  liblzma.so.5.4.1   [.] lzma_decode
     8.00%  [kernel.kallsyms]  [k] clear_page_erms
     7.00%  libc.so.6          [.] __memmove_avx_unaligned_erms
     5.00%  tcgen-x86-stores   [.] tcgen::xxh64_update
     5.00%  [unknown]          [.] 0x00007f0000001234
"""
shares = decode_speed.parse_perf_report(report, "tcgen-x86-stores")
want = {"back-ends": 35, "predictors and the rest": 45, "checksum": 5, "C library": 7, "kernel": 8}
assert all(abs(shares[k] - v) < 1e-9 for k, v in want.items()), shares
assert decode_speed.parse_perf_report("# nothing\n", "x") is None
assert decode_speed.records_of(type("T", (), {"kind": "champsim", "size": 640})()) == 10
assert decode_speed.records_of(type("T", (), {"kind": "branches", "size": 4 + 17 * 3})()) == 3
EOF
echo "decode_speed_test: ok"
