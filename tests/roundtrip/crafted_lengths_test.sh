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
# (44 + spec length + 4 bytes); the first block follows the header section
# (24 + its compressed size + 8 bytes).
mkdir "$work/crafted"
python3 - "$work/valid.tcz" "$work/crafted" <<'PY'
import struct, sys, zlib
data = bytearray(open(sys.argv[1], 'rb').read())
out = sys.argv[2]
spec = struct.unpack_from('<I', data, 40)[0]
streams = struct.unpack_from('<I', data, 28)[0]
header = 44 + spec + 4
block = header + 24 + struct.unpack_from('<Q', data, header + 12)[0] + 8
fields = {'header_raw_size': (header, 4, 20), 'header_compressed_size': (header, 12, 20),
          'block_record_count': (block, 4, 12 + 16 * streams)}
for s in range(streams):
    fields['block_stream_%d_raw_size' % s] = (block, 12 + 16 * s, 12 + 16 * streams)
    fields['block_stream_%d_compressed_size' % s] = (block, 20 + 16 * s, 12 + 16 * streams)
for name, (section, offset, crc_at) in fields.items():
    for value in (2**32, 2**63, 2**64 - 1):
        crafted = bytearray(data)
        struct.pack_into('<Q', crafted, section + offset, value)
        struct.pack_into('<I', crafted, section + crc_at, zlib.crc32(bytes(crafted[section:section + crc_at])))
        open('%s/%s_%d.tcz' % (out, name, value), 'wb').write(crafted)
# Within every limit: a full block whose first stream claims 16 bytes a
# record, compressed and raw, and a file that ends right after the claim.
records = struct.unpack_from('<Q', data, 32)[0]
crafted = bytearray(data[:block + 16 + 16 * streams])
struct.pack_into('<Q', crafted, block + 4, records)
struct.pack_into('<QQ', crafted, block + 12, 16 * records, 16 * records)
struct.pack_into('<I', crafted, block + 12 + 16 * streams, zlib.crc32(bytes(crafted[block:block + 12 + 16 * streams])))
open('%s/full_block_claimed_then_truncated.tcz' % out, 'wb').write(crafted)
PY

limit="ulimit -v 50000"
if ldd "$comp" 2>/dev/null | grep -q libasan; then
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
if [ "$failures" -ne 0 ]; then
    echo "$failures of $count crafted length fields were not refused cleanly"
    exit 1
fi
echo "$count crafted length fields refused (limit: $limit)"
