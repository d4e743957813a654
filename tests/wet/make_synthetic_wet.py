#!/usr/bin/env python3
"""Writes the v2 raw files of a WET (PREFIX.blocks, .flow, .nodes, .events,
.edges; docs of the tracer's --wet) for a toy program run by a tiny simulator,
so that the WET's readers can be tested without valgrind:

    make_synthetic_wet.py PREFIX [SCALE]

The program: main stores n = 5 * SCALE, calls fill (a rotated loop entered in
the middle of its head block: two blocks hold the same load), sum (a loop
with an if inside) and a recursive fact(3); then an if on the results, and a
call whose `ret` goes elsewhere than its return address (a jump). Calls push
their return address and returns load it, so these are edges too; one load
reads memory no store wrote (no edge); one instruction loads and stores
(slots 0 and 1); a block stores then loads the same bytes (t_def == t_use).
One block is translated but never runs. Python 3 standard library only.
"""

import struct
import sys


class Machine:
    def __init__(self):
        self.blocks = []  # (pc, bytes, end, instructions)
        self.block_id = {}
        self.block_nodes = {}  # block id -> [node]
        self.nodes = []  # (block, access, slot, size, pc)
        self.flow = []
        self.events = []  # (node, t, address, value)
        self.edges = []  # (use, def, t_use, t_def)
        self.memory = {}  # byte address -> byte
        self.last_store = {}  # byte address -> (node, t)
        self.sp = 0x7FFF0000

    def block(self, name, pc, nbytes, end, accesses):
        """accesses: (pc, access 'L'/'S', size) in IR order; the slot is the
        access's position among its instruction's accesses."""
        bid = len(self.blocks)
        self.block_id[name] = bid
        self.blocks.append((pc, nbytes, end, max(1, nbytes // 4)))
        slots = {}
        self.block_nodes[bid] = []
        for apc, access, size in accesses:
            slot = slots.get(apc, 0)
            slots[apc] = slot + 1
            self.block_nodes[bid].append(len(self.nodes))
            self.nodes.append((bid, access, slot, size, apc))

    def read(self, address, size):
        return int.from_bytes(bytes(self.memory.get(address + i, 0) for i in range(min(size, 8))), "little")

    def run(self, name, operations):
        """operations: per access of the block, (address, value to store or
        None for a load). Returns the loaded values."""
        bid = self.block_id[name]
        self.flow.append(bid)
        t = len(self.flow)
        loaded = []
        assert len(operations) == len(self.block_nodes[bid]), name
        for node, (address, value) in zip(self.block_nodes[bid], operations):
            _b, access, _slot, size, _pc = self.nodes[node]
            if access == "S":
                for i in range(size):
                    self.memory[address + i] = (value >> (8 * i)) & 0xFF if i < 8 else 0
                    self.last_store[address + i] = (node, t)
                self.events.append((node, t, address, self.read(address, size)))
            else:
                v = self.read(address, size)
                loaded.append(v)
                self.events.append((node, t, address, v))
                d = self.last_store.get(address)
                if d is not None:
                    self.edges.append((node, d[0], t, d[1]))
        return loaded

    # A call block's last access pushes its return address; a ret block's
    # last access pops it.
    def push_return(self, name):
        pc, nbytes, _end, _i = self.blocks[self.block_id[name]]
        self.sp -= 8
        return (self.sp, pc + nbytes)

    def pop_return(self):
        self.sp += 8
        return (self.sp - 8, None)

    def write(self, prefix):
        with open(prefix + ".blocks", "wb") as f:
            f.write(b"WTB1")
            for bid, (pc, nbytes, end, instructions) in enumerate(self.blocks):
                f.write(struct.pack("<IHBBIIQ", bid, instructions, ord(end), 0, nbytes, 0, pc))
        with open(prefix + ".flow", "wb") as f:
            f.write(b"WTF1" + struct.pack("<%dI" % len(self.flow), *self.flow))
        with open(prefix + ".nodes", "wb") as f:
            f.write(b"WTN2")
            for nid, (block, access, slot, size, pc) in enumerate(self.nodes):
                f.write(struct.pack("<IIBBHIQ", nid, block, ord(access), slot, size, 0, pc))
        with open(prefix + ".events", "wb") as f:
            f.write(b"WTE2")
            for e in self.events:
                f.write(struct.pack("<IIQQ", *e))
        with open(prefix + ".edges", "wb") as f:
            f.write(b"WTD2")
            for e in self.edges:
                f.write(struct.pack("<IIII", *e))


G_N, G_RES, G_RES2, G_RET, CONST = 0x601000, 0x601008, 0x601010, 0x601018, 0x500000
ARR = 0x602000


def declare(m):
    # main
    m.block("M0", 0x400000, 0x10, "C", [(0x400004, "S", 4), (0x40000B, "S", 8)])
    m.block("M1", 0x400010, 0x10, "C", [(0x400012, "L", 4), (0x40001B, "S", 8)])
    m.block("M2", 0x400020, 0x10, "C", [(0x400024, "S", 8), (0x40002B, "S", 8)])
    m.block("M3", 0x400030, 0x10, "J", [(0x400032, "L", 8), (0x400036, "S", 8), (0x40003A, "L", 8)])
    m.block("M4", 0x400040, 0x08, "J", [(0x400040, "S", 8)])
    m.block("M3b", 0x400048, 0x08, "C", [(0x40004B, "S", 8)])
    m.block("M5", 0x400050, 0x08, "R", [(0x400050, "L", 8)])  # translated, never run
    m.block("M6", 0x400070, 0x10, "R", [(0x400070, "L", 4), (0x400074, "L", 8), (0x40007C, "L", 8)])
    m.block("X0", 0x400100, 0x10, "J", [(0x400100, "L", 4)])
    # fill(arr, n): i = 0; goto test; do { arr[i] = 3i + 1; i++; test: } while (i < n)
    m.block("F0", 0x401000, 0x10, "J", [(0x401004, "S", 4)])
    m.block("F1", 0x401010, 0x10, "J", [(0x401010, "L", 4), (0x401014, "L", 4)])
    m.block("F1b", 0x401014, 0x0C, "J", [(0x401014, "L", 4)])
    m.block("F2", 0x401020, 0x10, "J", [(0x401020, "L", 4), (0x401028, "S", 4), (0x40102C, "L", 4),
                                        (0x40102C, "S", 4)])
    m.block("F3", 0x401030, 0x08, "R", [(0x401030, "L", 8)])
    # sum(arr, n): s = 0; for (i = 0; i < n; i++) if (arr[i] & 1) s += arr[i]; return s
    m.block("S0", 0x402000, 0x10, "J", [(0x402000, "S", 4), (0x402008, "S", 4)])
    m.block("S1", 0x402010, 0x10, "J", [(0x402010, "L", 4), (0x402014, "L", 4)])
    m.block("S2", 0x402020, 0x10, "J", [(0x402020, "L", 4)])
    m.block("S3", 0x402030, 0x10, "J", [(0x402030, "L", 4), (0x402034, "L", 4), (0x402038, "S", 4)])
    m.block("S4", 0x402040, 0x10, "J", [(0x402040, "L", 4), (0x402044, "S", 4)])
    m.block("S5", 0x402050, 0x10, "R", [(0x402050, "L", 4), (0x402054, "S", 8), (0x40205C, "L", 8)])
    # fact(n): store n; if (n <= 1) ret = 1; else { fact(n - 1); ret = n * ret; }
    m.block("R0", 0x403000, 0x10, "J", [(0x403000, "S", 8), (0x403004, "L", 8)])
    m.block("R2", 0x403010, 0x10, "C", [(0x40301B, "S", 8)])
    m.block("R2b", 0x403020, 0x10, "J", [(0x403020, "L", 8), (0x403024, "L", 8), (0x403028, "S", 8)])
    m.block("R1", 0x403030, 0x10, "J", [(0x403030, "S", 8)])
    m.block("R3", 0x403040, 0x08, "R", [(0x403040, "L", 8)])
    # jumper: a `ret` to an address that is not its return address
    m.block("J0", 0x404000, 0x08, "R", [(0x404000, "S", 8), (0x404004, "L", 8)])


def fill(m):
    base = m.sp - 16
    m.run("F0", [(base, 0)])
    i = 0
    (n,) = m.run("F1b", [(G_N, None)])
    while i < n:
        m.run("F2", [(base, None), (ARR + 4 * i, 3 * i + 1), (base, None), (base, i + 1)])
        i += 1
        m.run("F1", [(base, None), (G_N, None)])
    m.run("F3", [m.pop_return()])


def sum_(m):
    base = m.sp - 16
    m.run("S0", [(base, 0), (base + 4, 0)])
    s = i = 0
    while True:
        _i, n = m.run("S1", [(base + 4, None), (G_N, None)])
        if not i < n:
            break
        (a,) = m.run("S2", [(ARR + 4 * i, None)])
        if a & 1:
            m.run("S3", [(base, None), (ARR + 4 * i, None), (base, s + a)])
            s += a
        m.run("S4", [(base + 4, None), (base + 4, i + 1)])
        i += 1
    m.run("S5", [(base, None), (G_RET, s), m.pop_return()])
    return s


def fact(m, n):
    base = m.sp - 16
    m.run("R0", [(base, n), (base, None)])
    if n <= 1:
        m.run("R1", [(G_RET, 1)])
        result = 1
    else:
        saved = m.sp
        m.sp = base
        m.run("R2", [m.push_return("R2")])
        r = fact(m, n - 1)
        m.sp = saved
        result = n * r
        m.run("R2b", [(base, None), (G_RET, None), (G_RET, result)])
    m.run("R3", [m.pop_return()])
    return result


def program(m, scale):
    m.run("M0", [(G_N, 5 * scale), m.push_return("M0")])
    fill(m)
    m.run("M1", [(G_N, None), m.push_return("M1")])
    s = sum_(m)
    m.run("M2", [(G_RES, s), m.push_return("M2")])
    f = fact(m, 3)
    m.run("M3", [(G_RES, None), (G_RES2, f), (CONST, None)])
    if f < s:
        m.run("M4", [(G_RES2 + 8, 1)])
    m.run("M3b", [m.push_return("M3b")])
    m.run("J0", [(m.sp, 0x400070), m.pop_return()])  # overwrites its return address: a jump to M6
    m.run("M6", [(G_N, None), (G_RES2, None), m.pop_return()])  # "returns" to X0, matching no frame
    m.run("X0", [(G_N, None)])


def main(argv):
    if len(argv) not in (2, 3):
        sys.stderr.write("usage: make_synthetic_wet.py PREFIX [SCALE]\n")
        return 2
    m = Machine()
    m.memory.update({CONST + i: b for i, b in enumerate((42).to_bytes(8, "little"))})
    declare(m)
    program(m, int(argv[2]) if len(argv) == 3 else 1)
    m.write(argv[1])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
