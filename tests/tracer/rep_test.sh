#!/usr/bin/env bash
# rep_test.sh TRACER PROGRAM: the build tree's tcgen-tracer script, run as it
# is, on a loop of `rep stosb` (rep_program.c), with and without valgrind's
# chasing. A rep string instruction is not a branch (tracer/README.md): no
# branch record goes from an instruction to itself, and no ChampSim record
# marked as a taken branch is followed by the same instruction.
set -euo pipefail

tracer=${1:?usage: rep_test.sh TRACER PROGRAM}
program=${2:?usage: rep_test.sh TRACER PROGRAM}
command -v valgrind >/dev/null || { echo "valgrind not installed; skipping"; exit 0; }
[[ -x $tracer ]] || { echo "FAIL: $tracer is not executable" >&2; exit 1; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tracer_rep_test.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

for chase in --vex-guest-chase=yes --vex-guest-chase=no; do
    "$tracer" --branches="$tmp/b" --champsim="$tmp/c" "$chase" "$program" 2> "$tmp/log" \
        || { cat "$tmp/log" >&2; echo "FAIL: tcgen-tracer $chase failed" >&2; exit 1; }
    /usr/bin/python3 - "$tmp/b" "$tmp/c" "$chase" <<'PY'
import struct, sys
branches, champsim, chase = sys.argv[1], open(sys.argv[2], "rb").read(), sys.argv[3]
data = open(branches, "rb").read()
assert data[:4] == b"BRA1", "no branch trace header"
records = [struct.unpack_from("<QQB", data, at) for at in range(4, len(data) - 16, 17)]
to_itself = sum(1 for pc, target, _ in records if pc == target)
if to_itself:
    sys.exit(f"FAIL ({chase}): {to_itself} of {len(records)} branch records go to their own pc")
if len(records) > 100000:
    sys.exit(f"FAIL ({chase}): {len(records)} branch records for 50 rounds of rep stosb")
ips = [struct.unpack_from("<QBB", champsim, at) for at in range(0, len(champsim) - 63, 64)]
again = sum(1 for (ip, is_branch, taken), (next_ip, _, _) in zip(ips, ips[1:])
            if is_branch and taken and next_ip == ip)
if again:
    sys.exit(f"FAIL ({chase}): {again} ChampSim branch records are followed by their own instruction")
print(f"{chase}: {len(records)} branch records, {len(ips)} ChampSim records, none from a rep instruction")
PY
done
