#!/usr/bin/env python3
"""Writes the v2 raw files of a WET (PREFIX.blocks, .flow, .nodes, .events,
.edges, .regs; docs of the tracer's --wet) for a toy program run by a tiny
simulator, so that the WET's readers can be tested without valgrind:

    make_synthetic_wet.py [--no-regs] PREFIX [SCALE]

The program: main stores n = 5 * SCALE, calls fill (a rotated loop entered in
the middle of its head block: two blocks hold the same load), sum (a loop
with an if inside) and a recursive fact(3); then an if on the results, and a
call whose `ret` goes elsewhere than its return address (a jump). Calls push
their return address and returns load it, so these are edges too; one load
reads memory no store wrote (no edge); one instruction loads and stores
(slots 0 and 1); a block stores then loads the same bytes (t_def == t_use).
One block is translated but never runs.

Registers (PREFIX.regs, "WTR1"; omitted with --no-regs): every block is
also written as amd64-like instructions (the list beside its accesses in
declare()), each naming the registers its accesses' addresses and stored
data read, the registers it writes and what their values read; a read of a
register written earlier in the block is an 'O' source (that instruction's
'R' op), any other a 'G' source (the slot at the block's start); rsp and rip
are not tracked; a `cmp`, `test`, `add` or `imul` writes the four flags
slots (CC_OP, CC_DEP1, CC_DEP2, CC_NDEP), which a conditional branch reads.
The dataflow: fill keeps arr in rdi (set by main, read by every store
arr[i] = v, so a 'G' source many blocks back) and v = 3i + 1 in eax,
bumped in its loop (an 'R' reading its own slot); its loop test loads i
into ecx (set to 0 before the loop is entered in the middle, so the first
test reads it from the block before) and compares it with n in memory. sum
walks arr with a pointer in rdi bumped per iteration, tests arr[i] & 1 in
eax, adds into edx and returns s in eax; fact passes n in rdi and returns in
rax; main compares fact's result (rbx) with sum's (loaded), adds the
constant into rcx (last written by sum's loop test); the block jumped to by
the odd `ret` indexes its load with r8, which no block writes. A `ret`'s end reads its
return-address load; direct jumps and calls read nothing; several blocks
write no register. The groups are written in order of first execution, the
block that never runs last. Python 3 standard library only.
"""

import os
import struct
import sys


class Machine:
    def __init__(self):
        self.blocks = []  # (pc, bytes, end, instructions)
        self.block_id = {}
        self.block_nodes = {}  # block id -> [node]
        self.dataflow = []  # block id -> (ops, writes), PREFIX.regs's group
        self.nodes = []  # (block, access, slot, size, pc)
        self.flow = []
        self.events = []  # (node, t, address, value)
        self.edges = []  # (use, def, t_use, t_def)
        self.memory = {}  # byte address -> byte
        self.last_store = {}  # byte address -> (node, t)
        self.sp = 0x7FFF0000

    def block(self, name, pc, nbytes, end, accesses, code):
        """accesses: (pc, access 'L'/'S', size) in IR order; the slot is the
        access's position among its instruction's accesses. code: the
        block's instructions, see assemble()."""
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
        self.dataflow.append(self.assemble(name, pc, nbytes, code, [(a[0], a[1]) for a in accesses]))

    def assemble(self, name, pc, nbytes, code, accesses):
        """The block's ops and writes (PREFIX.regs) from its instructions,
        each (pc, text, memory, writes, reads): memory lists, per memory
        access of the instruction, "L" or "S" then the registers its address
        and, for a store, its data read; writes names the registers it
        writes, reads what their values read; the last instruction's tuple
        also has its branch's sources. A source is a register name or
        "load", the instruction's own load. Returns (ops, {slot: op})."""
        nodes = iter(self.block_nodes[len(self.blocks) - 1])
        ops, last_writer, seen = [], {}, []
        load = None  # the op of the current instruction's load

        def sources(names):
            found = []
            for register in names.split():
                if register == "load":
                    assert load is not None, (name, names)
                    found.append(("O", load))
                    continue
                for slot in REGISTER_SLOTS[register]:
                    found.append(("O", last_writer[slot]) if slot in last_writer else ("G", slot))
            return list(dict.fromkeys(found))  # each source once, in order

        for index, instruction in enumerate(code):
            ipc, _text, memory, writes, reads = instruction[:5]
            assert pc <= ipc < pc + nbytes and (index == 0 or ipc > code[index - 1][0]), (name, hex(ipc))
            assert (len(instruction) == 6) == (index == len(code) - 1), (name, hex(ipc))
            assert bool(writes) or not reads, (name, hex(ipc))
            load = None
            for access in memory:
                kind, _, names = access.partition(" ")
                seen.append((ipc, kind))
                ops.append((kind, next(nodes), sources(names)))
                if kind == "L":
                    load = len(ops) - 1
            if writes:
                ops.append(("R", ipc, sources(reads)))
                for register in writes.split():
                    for slot in REGISTER_SLOTS[register]:
                        last_writer[slot] = len(ops) - 1
        assert seen == accesses, (name, seen, accesses)
        ops.append(("B", code[-1][0], sources(code[-1][5])))
        return ops, dict(sorted(last_writer.items()))

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

    def write_regs(self, prefix):
        """PREFIX.regs: one group per block, in order of first execution,
        the blocks that never ran last."""
        order = list(dict.fromkeys(self.flow))
        order += [b for b in range(len(self.blocks)) if b not in order]
        with open(prefix + ".regs", "wb") as f:
            f.write(b"WTR1")
            for bid in order:
                ops, writes = self.dataflow[bid]
                f.write(struct.pack("<BBHIII", ord("K"), 0, 0, bid, len(ops), len(writes)))
                for kind, what, sources in ops:
                    f.write(struct.pack("<BBHIQ", ord("O"), ord(kind), len(sources), 0, what))
                    for source, index in sources:
                        f.write(struct.pack("<BBHIQ", ord("F"), ord(source), 0, index, 0))
                for slot, op in writes.items():
                    f.write(struct.pack("<BBHIII", ord("W"), 0, 0, slot, op, 0))


G_N, G_RES, G_RES2, G_RET, CONST = 0x601000, 0x601008, 0x601010, 0x601018, 0x500000
ARR = 0x602000


# amd64 register slots (VexGuestAMD64State offset / 8); rsp is not tracked.
REGISTER_SLOTS = {"rax": (2,), "rcx": (3,), "rdx": (4,), "rbx": (5,), "rsp": (), "rbp": (7,), "rsi": (8,),
                  "rdi": (9,), "r8": (10,), "flags": (18, 19, 20, 21)}


def declare(m):
    # Each block: its accesses, then its instructions (pc, text, memory accesses
    # with the registers they read, registers written, what they read[, the
    # branch's sources]); see Machine.assemble.
    # main
    m.block("M0", 0x400000, 0x10, "C", [(0x400004, "S", 4), (0x40000B, "S", 8)], [
        (0x400000, "mov edi, 0x602000", [], "rdi", ""),
        (0x400004, "mov dword [0x601000], n", ["S"], "", ""),
        (0x40000B, "call fill", ["S rsp"], "", "", "")])
    m.block("M1", 0x400010, 0x10, "C", [(0x400012, "L", 4), (0x40001B, "S", 8)], [
        (0x400010, "mov edi, 0x602000", [], "rdi", ""),
        (0x400012, "mov esi, [0x601000]", ["L"], "rsi", "load"),
        (0x40001B, "call sum", ["S rsp"], "", "", "")])
    m.block("M2", 0x400020, 0x10, "C", [(0x400024, "S", 8), (0x40002B, "S", 8)], [
        (0x400024, "mov [0x601008], rax", ["S rax"], "", ""),
        (0x400028, "mov edi, 3", [], "rdi", ""),
        (0x40002B, "call fact", ["S rsp"], "", "", "")])
    m.block("M3", 0x400030, 0x10, "J", [(0x400032, "L", 8), (0x400036, "S", 8), (0x40003A, "L", 8)], [
        (0x400030, "mov rbx, rax", [], "rbx", "rax"),
        (0x400032, "mov rdx, [0x601008]", ["L"], "rdx", "load"),
        (0x400036, "mov [0x601010], rbx", ["S rbx"], "", ""),
        (0x40003A, "add rcx, [0x500000]", ["L"], "rcx flags", "rcx load"),
        (0x40003C, "cmp rbx, rdx", [], "flags", "rbx rdx"),
        (0x40003E, "jge 0x400048", [], "", "", "flags")])
    m.block("M4", 0x400040, 0x08, "J", [(0x400040, "S", 8)], [
        (0x400040, "mov qword [0x601018], 1", ["S"], "", "", "")])
    m.block("M3b", 0x400048, 0x08, "C", [(0x40004B, "S", 8)], [
        (0x400048, "mov rdi, rbx", [], "rdi", "rbx"),
        (0x40004B, "call jumper", ["S rsp"], "", "", "")])
    m.block("M5", 0x400050, 0x08, "R", [(0x400050, "L", 8)], [  # translated, never run
        (0x400050, "ret", ["L rsp"], "", "", "load")])
    m.block("M6", 0x400070, 0x10, "R", [(0x400070, "L", 4), (0x400074, "L", 8), (0x40007C, "L", 8)], [
        (0x400070, "mov eax, [0x601000]", ["L"], "rax", "load"),
        (0x400074, "mov rdx, [0x601010]", ["L"], "rdx", "load"),
        (0x40007C, "ret", ["L rsp"], "", "", "load")])
    m.block("X0", 0x400100, 0x10, "J", [(0x400100, "L", 4)], [
        (0x400100, "cmp eax, [0x601000+r8*4]", ["L r8"], "flags", "rax load"),  # r8: never written, 0
        (0x400104, "jne 0x400100", [], "", "", "flags")])
    # fill(arr, n): i = 0; goto test; do { arr[i] = 3i + 1; i++; test: } while (i < n)
    m.block("F0", 0x401000, 0x10, "J", [(0x401004, "S", 4)], [
        (0x401000, "mov eax, 1", [], "rax", ""),
        (0x401004, "mov dword [rsp-16], 0", ["S rsp"], "", ""),
        (0x401008, "mov ecx, 0", [], "rcx", ""),
        (0x40100C, "jmp 0x401014", [], "", "", "")])
    m.block("F1", 0x401010, 0x10, "J", [(0x401010, "L", 4), (0x401014, "L", 4)], [
        (0x401010, "mov ecx, [rsp-16]", ["L rsp"], "rcx", "load"),
        (0x401014, "cmp ecx, [0x601000]", ["L"], "flags", "rcx load"),
        (0x40101C, "jl 0x401020", [], "", "", "flags")])
    m.block("F1b", 0x401014, 0x0C, "J", [(0x401014, "L", 4)], [
        (0x401014, "cmp ecx, [0x601000]", ["L"], "flags", "rcx load"),
        (0x40101C, "jl 0x401020", [], "", "", "flags")])
    m.block("F2", 0x401020, 0x10, "J", [(0x401020, "L", 4), (0x401028, "S", 4), (0x40102C, "L", 4),
                                        (0x40102C, "S", 4)], [
        (0x401020, "mov edx, [rsp-16]", ["L rsp"], "rdx", "load"),
        (0x401028, "mov [rdi+rdx*4], eax", ["S rdi rdx rax"], "", ""),
        (0x40102A, "add eax, 3", [], "rax flags", "rax"),
        (0x40102C, "add dword [rsp-16], 1", ["L rsp", "S rsp load"], "flags", "load"),
        (0x40102E, "jmp 0x401010", [], "", "", "")])
    m.block("F3", 0x401030, 0x08, "R", [(0x401030, "L", 8)], [
        (0x401030, "ret", ["L rsp"], "", "", "load")])
    # sum(arr, n): s = 0; for (i = 0; i < n; i++) if (arr[i] & 1) s += arr[i]; return s
    m.block("S0", 0x402000, 0x10, "J", [(0x402000, "S", 4), (0x402008, "S", 4)], [
        (0x402000, "mov dword [rsp-16], 0", ["S rsp"], "", ""),
        (0x402008, "mov dword [rsp-12], 0", ["S rsp"], "", ""),
        (0x40200C, "jmp 0x402010", [], "", "", "")])
    m.block("S1", 0x402010, 0x10, "J", [(0x402010, "L", 4), (0x402014, "L", 4)], [
        (0x402010, "mov ecx, [rsp-12]", ["L rsp"], "rcx", "load"),
        (0x402014, "cmp ecx, [0x601000]", ["L"], "flags", "rcx load"),
        (0x40201A, "jge 0x402050", [], "", "", "flags")])
    m.block("S2", 0x402020, 0x10, "J", [(0x402020, "L", 4)], [
        (0x402020, "mov eax, [rdi]", ["L rdi"], "rax", "load"),
        (0x402022, "test al, 1", [], "flags", "rax"),
        (0x402024, "je 0x402040", [], "", "", "flags")])
    m.block("S3", 0x402030, 0x10, "J", [(0x402030, "L", 4), (0x402034, "L", 4), (0x402038, "S", 4)], [
        (0x402030, "mov edx, [rsp-16]", ["L rsp"], "rdx", "load"),
        (0x402034, "add edx, [rdi]", ["L rdi"], "rdx flags", "rdx load"),
        (0x402038, "mov [rsp-16], edx", ["S rsp rdx"], "", "", "")])  # falls through
    m.block("S4", 0x402040, 0x10, "J", [(0x402040, "L", 4), (0x402044, "S", 4)], [
        (0x402040, "mov eax, [rsp-12]", ["L rsp"], "rax", "load"),
        (0x402042, "add eax, 1", [], "rax flags", "rax"),
        (0x402044, "mov [rsp-12], eax", ["S rsp rax"], "", ""),
        (0x402048, "add rdi, 4", [], "rdi flags", "rdi"),
        (0x40204C, "jmp 0x402010", [], "", "", "")])
    m.block("S5", 0x402050, 0x10, "R", [(0x402050, "L", 4), (0x402054, "S", 8), (0x40205C, "L", 8)], [
        (0x402050, "mov eax, [rsp-16]", ["L rsp"], "rax", "load"),
        (0x402054, "mov [0x601018], rax", ["S rax"], "", ""),
        (0x40205C, "ret", ["L rsp"], "", "", "load")])
    # fact(n): store n; if (n <= 1) ret = 1; else { fact(n - 1); ret = n * ret; }
    m.block("R0", 0x403000, 0x10, "J", [(0x403000, "S", 8), (0x403004, "L", 8)], [
        (0x403000, "mov [rsp-16], rdi", ["S rsp rdi"], "", ""),
        (0x403004, "mov rax, [rsp-16]", ["L rsp"], "rax", "load"),
        (0x403008, "cmp rax, 1", [], "flags", "rax"),
        (0x40300C, "jle 0x403030", [], "", "", "flags")])
    m.block("R2", 0x403010, 0x10, "C", [(0x40301B, "S", 8)], [
        (0x403010, "lea rdi, [rax-1]", [], "rdi", "rax"),
        (0x40301B, "call fact", ["S rsp"], "", "", "")])
    m.block("R2b", 0x403020, 0x10, "J", [(0x403020, "L", 8), (0x403024, "L", 8), (0x403028, "S", 8)], [
        (0x403020, "mov rdx, [rsp-16]", ["L rsp"], "rdx", "load"),
        (0x403024, "imul rdx, [0x601018]", ["L"], "rdx flags", "rdx load"),
        (0x403028, "mov [0x601018], rdx", ["S rdx"], "", ""),
        (0x40302C, "mov rax, rdx", [], "rax", "rdx"),
        (0x40302E, "jmp 0x403040", [], "", "", "")])
    m.block("R1", 0x403030, 0x10, "J", [(0x403030, "S", 8)], [
        (0x403030, "mov qword [0x601018], 1", ["S"], "", ""),
        (0x403038, "mov eax, 1", [], "rax", ""),
        (0x40303C, "jmp 0x403040", [], "", "", "")])
    m.block("R3", 0x403040, 0x08, "R", [(0x403040, "L", 8)], [
        (0x403040, "ret", ["L rsp"], "", "", "load")])
    # jumper: a `ret` to an address that is not its return address
    m.block("J0", 0x404000, 0x08, "R", [(0x404000, "S", 8), (0x404004, "L", 8)], [
        (0x404000, "mov qword [rsp], 0x400070", ["S rsp"], "", ""),
        (0x404004, "ret", ["L rsp"], "", "", "load")])


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
    args = [a for a in argv[1:] if a != "--no-regs"]
    if len(args) not in (1, 2) or any(a.startswith("-") for a in args):
        sys.stderr.write("usage: make_synthetic_wet.py [--no-regs] PREFIX [SCALE]\n")
        return 2
    m = Machine()
    m.memory.update({CONST + i: b for i, b in enumerate((42).to_bytes(8, "little"))})
    declare(m)
    program(m, int(args[1]) if len(args) == 2 else 1)
    m.write(args[0])
    if "--no-regs" in argv[1:]:
        try:
            os.remove(args[0] + ".regs")
        except FileNotFoundError:
            pass
    else:
        m.write_regs(args[0])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
