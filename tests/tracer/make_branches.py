#!/usr/bin/python3
"""make_branches.py OUT [RECORDS]: a synthetic branch trace (BRA1, then per
branch u64 pc, u64 target, u8 taken) of RECORDS branches (default 200000):
nested loops over a few hundred static branches, with a data-dependent
branch whose outcome follows a fixed pseudo-random sequence, so that the
outcomes repeat as in a real program's trace and some branches go both
ways. Deterministic: the same bytes every run."""

import struct
import sys


def main():
    out = sys.argv[1]
    records = int(sys.argv[2]) if len(sys.argv) > 2 else 200000
    pack = struct.Struct("<QQB").pack
    chunks = [b"BRA1"]
    state = 12345
    written = 0
    base = 0x401000
    while written < records:
        for function in range(37):
            pc = base + 0x1000 * function
            for i in range(function % 5 + 1):
                state = (state * 1103515245 + 12345) & 0x7FFFFFFF
                taken = (state >> 16) & 1
                chunks.append(pack(pc + 0x10 * i, pc + 0x400 + 0x10 * i, taken))
            chunks.append(pack(pc + 0x80, pc, 1))            # loop back edge
            chunks.append(pack(pc + 0x90, pc + 0x800, 0))    # loop exit, not taken
            chunks.append(pack(pc + 0xa0, 0x7f0000001000, 1))  # return
            written += function % 5 + 4
    data = b"".join(chunks)[:4 + 17 * records]
    with open(out, "wb") as f:
        f.write(data)


if __name__ == "__main__":
    main()
