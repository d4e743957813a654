#!/usr/bin/env bash
# The C++ control parents (wet/dependences/control_dependence.cpp, through
# control-dependence-driver) against the naive Python reference
# (wet_reference.py parents), which shares no code with it: on the toy
# program of make_synthetic_wet.py at two sizes, and on random flows over
# random blocks (calls, returns that match a frame, returns that match none,
# deep recursion, loops that never exit), every parent must be the same.
# Under the sanitizers a quarter of the random flows (each starts the
# sanitized driver once, a tenth of a second).
# Also: a truncated flow is a one-line error, exit 1.
# Usage: control_dependence_reference_test.sh DRIVER
set -euo pipefail
driver=$(realpath "$1")
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

for scale in 1 4; do
    python3 "$here/make_synthetic_wet.py" "$work/toy" "$scale"
    "$driver" "$work/toy" > "$work/cpp"
    python3 "$here/wet_reference.py" "$work/toy" parents > "$work/py"
    cmp "$work/cpp" "$work/py" || fail "toy program, scale $scale: parents differ"
    echo "ok: toy program, scale $scale, $(wc -l < "$work/py") parents"
done

python3 - "$driver" "$here" "$work" <<'PY'
import os, random, struct, subprocess, sys
driver, here, work = sys.argv[1:4]
cases = 38 if os.environ.get("TCGEN_TEST_UNDER_SANITIZERS") else 150

def random_case(rng):
    """Blocks laid out one after the other (a call's return address is the
    next block's pc), and a flow from a walker that keeps its own call stack
    so that most returns match, some do not, and a few skip frames."""
    count = rng.randrange(2, 40)
    ends = [rng.choice("JJJJCR") for _ in range(count)]
    pcs = [0x1000 + 16 * i for i in range(count)]
    succ = {i: rng.sample(range(count), min(count, rng.randrange(1, 4))) for i in range(count)}
    flow, stack = [rng.randrange(count)], []
    for _ in range(rng.randrange(1, 3000)):
        p = flow[-1]
        if ends[p] == "C":
            stack.append(p + 1)
            b = rng.randrange(count)
        elif ends[p] == "R" and stack and rng.random() < 0.85:
            depth = 1 if rng.random() < 0.9 else rng.randrange(1, len(stack) + 1)
            target = stack[-depth]
            del stack[-depth:]
            b = target if target < count else rng.randrange(count)
        else:
            b = rng.choice(succ[p])
        flow.append(b)
    return pcs, ends, flow

rng = random.Random(20050601)
for case in range(cases):
    pcs, ends, flow = random_case(rng)
    prefix = "%s/r%d" % (work, case)
    with open(prefix + ".blocks", "wb") as f:
        f.write(b"WTB1")
        for i, (pc, end) in enumerate(zip(pcs, ends)):
            f.write(struct.pack("<IHBBIIQ", i, 4, ord(end), 0, 16, 0, pc))
    with open(prefix + ".flow", "wb") as f:
        f.write(b"WTF1" + struct.pack("<%dI" % len(flow), *flow))
    cpp = subprocess.run([driver, prefix], capture_output=True, check=True).stdout
    py = subprocess.run([sys.executable, here + "/wet_reference.py", prefix, "parents"],
                        capture_output=True, check=True).stdout
    if cpp != py:
        sys.exit("FAIL: random case %d (%s.*): parents differ" % (case, prefix))
print("ok: %d random flows, same parents" % cases)
PY

python3 "$here/make_synthetic_wet.py" "$work/cut"
head -c 30 "$work/toy.flow" > "$work/cut.flow"
if "$driver" "$work/cut" > /dev/null 2> "$work/err"; then fail "a truncated flow was accepted"; fi
[[ $(wc -l < "$work/err") == 1 ]] && grep -q 'truncated' "$work/err" || fail "truncated flow: $(cat "$work/err")"
echo "ok: truncated flow: $(cat "$work/err")"
