#!/usr/bin/env bash
# Length fields are claims: every length field of a block and of the header
# section set to 2^32, 2^63 and 2^64-1 (its section's checksum fixed up, so
# that only the length is wrong) must be refused with a one-line error, no
# output, and within a memory limit far below what the field claims.
# Usage: crafted_lengths_test.sh COMP   (a compressor of examples/any_file.tcg)
# A sanitizer build reserves terabytes of shadow memory, which a limit would
# starve: there the memory limit is left out and only the errors are checked.
set -u
comp=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0

head -c 5000 /dev/urandom >"$work/input"
"$comp" <"$work/input" >"$work/valid.tcz" 2>/dev/null || { echo "FAIL: compressing"; exit 1; }

# Writes one crafted file per (section, field, value) to $work/crafted/, using
# the layout of docs/format.md: the header section follows the preamble
# (48 + spec length + 8 bytes); the first block follows the header section
# (29 + its compressed size + 16 bytes); a block's streams take 17 bytes each
# (raw size, compressed size, back-end). A section's first check is seeded
# with the 8 bytes before the section (the previous section's last check).
mkdir "$work/crafted"
python3 - "$work/valid.tcz" "$work/crafted" <<'PY'
import struct, sys

def xxh64(data, seed):
    # XXH64, written from xxHash's specification (the runtime has its own).
    p1, p2, p3, p4, p5 = (0x9E3779B185EBCA87, 0xC2B2AE3D27D4EB4F, 0x165667B19E3779F9,
                          0x85EBCA77C2B2AE63, 0x27D4EB2F165667C5)
    mask = 2**64 - 1
    rotl = lambda x, r: ((x << r) | (x >> (64 - r))) & mask
    rnd = lambda acc, lane: rotl((acc + lane * p2) & mask, 31) * p1 & mask
    n, i = len(data), 0
    if n >= 32:
        v = [(seed + p1 + p2) & mask, (seed + p2) & mask, seed, (seed - p1) & mask]
        while i + 32 <= n:
            v = [rnd(v[k], struct.unpack_from('<Q', data, i + 8 * k)[0]) for k in range(4)]
            i += 32
        h = (rotl(v[0], 1) + rotl(v[1], 7) + rotl(v[2], 12) + rotl(v[3], 18)) & mask
        for lane in v:
            h = ((h ^ rnd(0, lane)) * p1 + p4) & mask
    else:
        h = (seed + p5) & mask
    h = (h + n) & mask
    while i + 8 <= n:
        h = (rotl(h ^ rnd(0, struct.unpack_from('<Q', data, i)[0]), 27) * p1 + p4) & mask
        i += 8
    if i + 4 <= n:
        h = (rotl(h ^ (struct.unpack_from('<I', data, i)[0] * p1 & mask), 23) * p2 + p3) & mask
        i += 4
    while i < n:
        h = rotl(h ^ (data[i] * p5 & mask), 11) * p1 & mask
        i += 1
    h = (h ^ (h >> 33)) * p2 & mask
    h = (h ^ (h >> 29)) * p3 & mask
    return h ^ (h >> 32)

assert xxh64(b'', 0) == 0xEF46DB3751D8E999 and xxh64(b'abc', 0) == 0x44BC2CF5AD770999

def reseal(data, section, check_at):
    seed = struct.unpack_from('<Q', data, section - 8)[0]
    struct.pack_into('<Q', data, section + check_at, xxh64(bytes(data[section:section + check_at]), seed))

data = bytearray(open(sys.argv[1], 'rb').read())
out = sys.argv[2]
spec = struct.unpack_from('<I', data, 44)[0]
streams = struct.unpack_from('<I', data, 28)[0]
header = 48 + spec + 8
block = header + 29 + struct.unpack_from('<Q', data, header + 12)[0] + 16
# The untouched file must verify under this script's checks.
for section, check_at in ((header, 21), (block, 12 + 17 * streams)):
    check = struct.unpack_from('<Q', data, section + check_at)[0]
    assert xxh64(bytes(data[section:section + check_at]), struct.unpack_from('<Q', data, section - 8)[0]) == check
fields = {'header_raw_size': (header, 4, 21), 'header_compressed_size': (header, 12, 21),
          'block_record_count': (block, 4, 12 + 17 * streams)}
for s in range(streams):
    fields['block_stream_%d_raw_size' % s] = (block, 12 + 17 * s, 12 + 17 * streams)
    fields['block_stream_%d_compressed_size' % s] = (block, 20 + 17 * s, 12 + 17 * streams)
for name, (section, offset, check_at) in fields.items():
    for value in (2**32, 2**63, 2**64 - 1):
        crafted = bytearray(data)
        struct.pack_into('<Q', crafted, section + offset, value)
        reseal(crafted, section, check_at)
        open('%s/%s_%d.tcz' % (out, name, value), 'wb').write(crafted)
# Within every limit: a full block whose first stream claims 16 bytes a
# record, compressed and raw, and a file that ends right after the claim.
records = struct.unpack_from('<Q', data, 32)[0]
crafted = bytearray(data[:block + 20 + 17 * streams])
struct.pack_into('<Q', crafted, block + 4, records)
struct.pack_into('<QQ', crafted, block + 12, 16 * records, 16 * records)
reseal(crafted, block, 12 + 17 * streams)
open('%s/full_block_claimed_then_truncated.tcz' % out, 'wb').write(crafted)
PY

limit="ulimit -v 50000"
if [ -n "${TCGEN_TEST_UNDER_SANITIZERS:-}" ]; then
    limit=true
fi

count=0
for crafted in "$work"/crafted/*.tcz; do
    count=$((count + 1))
    name=$(basename "$crafted" .tcz)
    ($limit && "$comp" -d <"$crafted" >"$work/out" 2>"$work/err")
    status=$?
    if [ "$status" -ne 1 ]; then
        echo "FAIL [$name]: exit status $status, not 1: $(head -c 300 "$work/err")"
        failures=$((failures + 1))
    elif [ "$(wc -l <"$work/err")" -ne 1 ] || ! grep -q '^[^:]*: error: ' "$work/err"; then
        echo "FAIL [$name]: not a one-line error: $(head -c 300 "$work/err")"
        failures=$((failures + 1))
    elif grep -q 'out of memory\|cannot allocate' "$work/err"; then
        echo "FAIL [$name]: ran out of memory: $(cat "$work/err")"
        failures=$((failures + 1))
    elif [ -s "$work/out" ]; then
        echo "FAIL [$name]: wrote output"
        failures=$((failures + 1))
    fi
done
[ "$count" -ge 19 ] || { echo "FAIL: only $count crafted files"; exit 1; }
# 16 bytes a record is within the format's general limit but more than this
# spec's first stream can hold: the claim itself is refused, before the
# stream's data is read or room is made for it.
"$comp" -d <"$work/crafted/full_block_claimed_then_truncated.tcz" 2>"$work/err" >/dev/null
if ! grep -q "claims [0-9]* bytes, more than its [0-9]* records can hold" "$work/err"; then
    echo "FAIL [full_block_claimed_then_truncated]: the claim was not refused as such: $(head -c 300 "$work/err")"
    failures=$((failures + 1))
fi
if [ "$failures" -ne 0 ]; then
    echo "$failures of $count crafted length fields were not refused cleanly"
    exit 1
fi
echo "$count crafted length fields refused (limit: $limit)"
