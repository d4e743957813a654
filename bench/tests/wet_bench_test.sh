#!/usr/bin/env bash
# Functional test of wet-bench on small generated raw streams of each kind:
# exit 0, one line of key=value pairs, exact record and byte counts, a
# verified walk, a saved form; and one-line errors for bad input. Speeds are
# only checked to be numbers (no timing assertions).
#   bench/tests/wet_bench_test.sh PATH/TO/wet-bench
# Exits 0 if all checks pass; otherwise prints each failure and exits 1.
set -uo pipefail

bin=${1:?usage: $0 PATH/TO/wet-bench}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/wet-bench-test.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fails=0

fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

# Raw streams, little-endian, from a fixed generator: increasing timestamps
# with irregular gaps, values with repeats and strides, and use-def pairs
# whose def often stays put.
/usr/bin/python3 - "$tmp" <<'EOF' || { echo "FAIL: cannot generate the raw streams"; exit 1; }
import struct, sys
out = sys.argv[1]
x = 12345
def rnd():
    global x
    x = (x * 16807) % 2147483647
    return x
t, ts = 0, []
for i in range(3000):
    t += 1 + (rnd() % 7 if i % 5 else 100 + rnd() % 50)
    ts.append(t)
vals = []
for i in range(2000):
    r = rnd() % 4
    vals.append(0x7ff000001000 + 8 * i if r == 0 else (42 if r == 1 else (rnd() << 20) ^ rnd()))
pairs, d = [], 1
for i, u in enumerate(ts[:1500]):
    if i % 9 == 0:
        d = max(1, u - 1 - rnd() % 5)
    pairs.append((u, d))
with open(f"{out}/ts.raw", "wb") as f:
    f.write(struct.pack(f"<{len(ts)}I", *ts))
with open(f"{out}/values.raw", "wb") as f:
    f.write(struct.pack(f"<{len(vals)}Q", *vals))
with open(f"{out}/pairs.raw", "wb") as f:
    for u, d in pairs:
        f.write(struct.pack("<II", u, d))
open(f"{out}/empty.raw", "wb").close()
with open(f"{out}/odd.raw", "wb") as f:
    f.write(b"\1\2\3\4\5\6")
EOF

# The checker of one output line: ARGS output kind file records fields bytes.
cat >"$tmp/check.py" <<'EOF'
import math, sys
path, kind, file, records, fields, size = sys.argv[1:]
records, fields, size = int(records), int(fields), int(size)
lines = open(path).read().splitlines()
if len(lines) != 1:
    sys.exit(f"{len(lines)} lines of output, want 1")
try:
    got = dict(item.split("=", 1) for item in lines[0].split("\t"))
except ValueError:
    sys.exit(f"not tab-separated key=value pairs: {lines[0]!r}")
numeric = ("records fields values raw_bytes saved_bytes compressed_bits memory_bytes bits_per_value "
           "compressed_bits_per_value build_s load_s runs walks_per_run forward_mvalues_s backward_mvalues_s "
           "forward_mb_s backward_mb_s forward_cpu_mvalues_s backward_cpu_mvalues_s seeks seek_median_us seek_p90_us "
           "seek_max_us seek_cpu_median_us seek_mean_distance").split()
missing = [k for k in numeric + ["kind", "file", "verified", "build_type", "description"] if k not in got]
if missing:
    sys.exit(f"keys missing: {missing}")
problems = []
def number(key):
    try:
        value = float(got[key])
    except ValueError:
        value = float("nan")
    if not math.isfinite(value) or value < 0:
        problems.append(f"{key}={got[key]} is not a finite number >= 0")
        return 0.0
    return value
for key in numeric:
    number(key)
exact = {"kind": kind, "file": file, "records": str(records), "fields": str(fields),
         "values": str(records * fields), "raw_bytes": str(size), "verified": "yes", "seeks": "7"}
for key, value in exact.items():
    if got[key] != value:
        problems.append(f"{key}={got[key]}, want {value}")
saved = number("saved_bytes")
if saved <= 0:
    problems.append(f"saved_bytes={got['saved_bytes']}, want > 0")
if records:
    if got["runs"] != "2":
        problems.append(f"runs={got['runs']}, want 2")
    if abs(number("bits_per_value") - saved * 8 / (records * fields)) > 0.001:
        problems.append(f"bits_per_value={got['bits_per_value']} is not saved_bytes*8/values")
    for key in ("forward_mvalues_s", "backward_mvalues_s", "forward_cpu_mvalues_s", "backward_cpu_mvalues_s",
                "memory_bytes"):
        if number(key) <= 0:
            problems.append(f"{key}={got[key]}, want > 0")
    if number("walks_per_run") * records * fields < 2 ** 20:
        problems.append(f"walks_per_run={got['walks_per_run']} walks fewer than 2^20 values")
if not got["description"].startswith("field 1: "):
    problems.append(f"description={got['description']!r}")
if problems:
    sys.exit("; ".join(problems))
EOF

# check KIND FILE RECORDS FIELDS: runs wet-bench on $tmp/FILE, checks its line.
check() {
    local kind=$1 file=$tmp/$2 records=$3 fields=$4
    "$bin" "$kind" "$file" --runs=2 --seeks=7 >"$tmp/out" 2>"$tmp/err"
    local rc=$?
    if [[ $rc -ne 0 ]]; then fail "$kind $2: exit status $rc: $(cat "$tmp/err")"; return; fi
    if [[ -s "$tmp/err" ]]; then fail "$kind $2: unexpected stderr: $(cat "$tmp/err")"; fi
    if ! /usr/bin/python3 "$tmp/check.py" "$tmp/out" "$kind" "$file" "$records" "$fields" \
            "$(stat -c %s "$file")" 2>"$tmp/why"; then
        fail "$kind $2: $(tail -1 "$tmp/why")"
        echo "  output: $(cat "$tmp/out")"
    fi
}

# check_error NAME PATTERN ARGS...: exit 1, one stderr line matching PATTERN, no output.
check_error() {
    local name=$1 pat=$2; shift 2
    "$bin" "$@" >"$tmp/out" 2>"$tmp/err"
    local rc=$?
    if [[ $rc -ne 1 ]]; then fail "$name: exit status $rc, want 1"; fi
    if [[ -s "$tmp/out" ]]; then fail "$name: unexpected output: $(cat "$tmp/out")"; fi
    if [[ $(wc -l <"$tmp/err") -ne 1 ]] || ! grep -q -- "$pat" "$tmp/err"; then
        fail "$name: stderr should be one line matching '$pat', got: $(cat "$tmp/err")"
    fi
}

check node_timestamps ts.raw 3000 1
check node_values values.raw 2000 1
check edge_timestamps pairs.raw 1500 2
check node_timestamps empty.raw 0 1
# The same bytes read as another kind: the counts follow the kind's record size.
check node_values ts.raw 1500 1
check edge_timestamps values.raw 2000 2

check_error "usage" "usage: wet-bench KIND RAW_FILE" node_timestamps
check_error "unknown kind" "unknown kind 'no_such_kind'" no_such_kind "$tmp/ts.raw"
check_error "missing file" "cannot open" node_timestamps "$tmp/missing.raw"
check_error "partial record" "not a multiple of the 4-byte records" node_timestamps "$tmp/odd.raw"
check_error "bad --runs" "bad --runs=0" node_timestamps "$tmp/ts.raw" --runs=0
check_error "unknown option" "unknown option '--fast'" node_timestamps "$tmp/ts.raw" --fast

if [[ $fails -ne 0 ]]; then
    echo "$fails check(s) failed"
    exit 1
fi
echo "wet_bench_test: all checks passed"
