#!/usr/bin/env bash
# wet-walk against a reference walk in Python: for every kind of specs/wet/,
# raw files of several shapes and lengths, and random STEPS (forward,
# backward, seeks), the printed records must be exactly the reference's; a
# step past either end prints what came before it, then fails with exit 1;
# bad arguments fail with a one-line error. Under the sanitizers one random
# STEPS per file, not four (each starts the sanitized wet-walk once).
# Usage: wet_walk_test.sh WET_WALK SOURCE_DIR
set -euo pipefail
walk=$(realpath "$1")
source_dir=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

python3 - "$walk" "$work" <<'PY'
import os, random, struct, subprocess, sys
walk, work = sys.argv[1], sys.argv[2]
trials = 1 if os.environ.get("TCGEN_TEST_UNDER_SANITIZERS") else 4
kinds = {"node_timestamps": "<I", "node_values": "<Q", "edge_timestamps": "<II"}
failures = 0

def make(fmt, count, shape, rng):
    fields = len(fmt) - 1
    width = 32 if "I" in fmt else 64
    mask = (1 << width) - 1
    run = [0] * fields
    records = []
    for i in range(count):
        rec = []
        for f in range(fields):
            if shape == 0:
                v = rng.getrandbits(width)
            elif shape == 1:
                run[f] += 7 if rng.random() < 0.9 else rng.randrange(1, 100)
                v = run[f] & mask
            else:
                v = [3, 1, 4, 1, 5, 9][i % 6] + f
            rec.append(v)
        records.append(tuple(rec))
    return records

def reference(records, steps):
    out, p = [], 0
    for kind, n in steps:
        if kind == "@":
            if n > len(records):
                return out, 1
            p = n
            continue
        for _ in range(n):
            if kind == "+":
                if p == len(records):
                    return out, 1
                out.append(records[p]); p += 1
            else:
                if p == 0:
                    return out, 1
                p -= 1; out.append(records[p])
    return out, 0

rng = random.Random(20261124)
for kind, fmt in kinds.items():
    for count in (0, 1, 2, 5, 1000):
        for shape in range(3):
            records = make(fmt, count, shape, rng)
            raw = f"{work}/{kind}-{count}-{shape}.raw"
            with open(raw, "wb") as f:
                for r in records:
                    f.write(struct.pack(fmt, *r))
            for trial in range(trials):
                steps = []
                for _ in range(rng.randrange(1, 12)):
                    kind_char = rng.choice("+-@+-")
                    n = rng.randrange(0, count + 2) if kind_char == "@" else rng.randrange(1, max(2, count // 2 + 2))
                    steps.append((kind_char, n))
                text = ",".join(f"{k}{n}" for k, n in steps)
                expected, code = reference(records, steps)
                run = subprocess.run([walk, kind, raw, text], capture_output=True, text=True)
                got = [tuple(int(x) for x in line.split()) for line in run.stdout.splitlines()]
                if got != expected or run.returncode != code or (code == 1) != bool(run.stderr):
                    failures += 1
                    print(f"FAIL {kind} count={count} shape={shape} steps={text}: exit {run.returncode} "
                          f"(expected {code}), {len(got)} records (expected {len(expected)}), stderr {run.stderr!r}")
                elif code == 1 and not run.stderr.startswith("wet-walk: error: "):
                    failures += 1
                    print(f"FAIL {kind}: error not one line with the tool's name: {run.stderr!r}")
print(f"wet-walk: reference walks done, {failures} failures")
sys.exit(1 if failures else 0)
PY

fail=0
expect_error() {  # expect_error MESSAGE ARGS...: exit 1 and exactly that one line on stderr
    local message=$1
    shift
    local status=0
    "$walk" "$@" >"$work/out" 2>"$work/err" || status=$?
    if [[ $status -ne 1 || "$(cat "$work/err")" != "$message" ]]; then
        echo "FAIL: wet-walk $* -> exit $status, stderr: $(cat "$work/err") (expected: $message)"
        fail=1
    fi
}
printf '\x01\x00\x00\x00\x02\x00\x00\x00\x03' >"$work/odd.raw"
printf '\x01\x00\x00\x00\x02\x00\x00\x00' >"$work/two.raw"
expect_error "wet-walk: error: unknown kind 'node_colours'" node_colours "$work/two.raw" +1
expect_error "wet-walk: error: bad step '*2': expected +N, -N or @K" node_timestamps "$work/two.raw" +1,*2
expect_error "wet-walk: error: bad step '': expected +N, -N or @K" node_timestamps "$work/two.raw" ""
expect_error "wet-walk: error: input of 9 bytes is not a whole number of 4-byte records" \
    node_timestamps "$work/odd.raw" +1
expect_error "wet-walk: error: cannot open '$work/missing.raw': No such file or directory" \
    node_timestamps "$work/missing.raw" +1
expect_error "wet-walk: error: @3 is past the end (2 records)" node_timestamps "$work/two.raw" @3
expect_error "wet-walk: error: step -1 at position 0 is past the beginning" node_timestamps "$work/two.raw" -1
if [[ "$("$walk" node_timestamps "$work/two.raw" +2,-1,@0,+1 2>&1)" != $'1\n2\n2\n1' ]]; then
    echo "FAIL: the issue's example walk"
    fail=1
fi
exit $fail
