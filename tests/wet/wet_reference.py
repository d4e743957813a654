#!/usr/bin/env python3
"""A naive reference for the `wet` command: reads the v2 raw files of a WET
(PREFIX.blocks, .flow, .nodes, .events, .edges, and PREFIX.regs, the blocks'
register dataflow, when it exists) and prints exactly what the `wet` queries
print on the WET built from them, to check the library.

    wet_reference.py PREFIX cf [--from=T] [--backward] [--count=N]
    wet_reference.py PREFIX values PC | addresses PC
    wet_reference.py PREFIX def PC INSTANCE | slice PC INSTANCE
    wet_reference.py PREFIX parents      # "T PARENT" per executed block
    wet_reference.py PREFIX --batch QUERIES OUTDIR

--batch answers every query of QUERIES (one a line, its words as above
after PREFIX) from one reading of the files, as a run of its own would:
OUTDIR/N.out, N.err and N.status for the N-th line (from 1). A test that
asks dozens of queries of one trace starts Python, reads the files and
finds the control parents once, not once a query.

Control dependence is computed here the slow, obvious way, independently of
the C++ (wet/dependences/control_dependence.cpp), from the same definition: shadow call
stack, per-function CFG from the flow, post-dominator *sets* by iterative
intersection, "Y is control dependent on X iff Y post-dominates a successor
of X and does not strictly post-dominate X", and the dynamic parent found by
scanning the activation's own executions backwards. Quadratic at worst: for
small traces only.

A slice is a set of items (t, op), op an index into the ops of the block
executed at t (a memory access, a register-writing instruction 'R', the
block's end 'B'); from each item it adds its control parent's 'B', its
sources (an earlier op of the same execution, or the latest earlier
execution of a block that writes the register slot read) and, for a load,
its def. Without PREFIX.regs each block's dataflow is synthesized (its
stores read every earlier load of the block, its end every load), which is
the slice of WETs without register dependences. Python 3 standard library
only. Bad input: one line on stderr, exit 1.
"""

import bisect
import collections
import contextlib
import os
import struct
import sys

U64 = (1 << 64) - 1


class Bad(Exception):
    pass


def read_records(prefix, suffix, magic, fmt):
    path = prefix + suffix
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        raise Bad("%s: %s" % (path, e.strerror))
    size = struct.calcsize(fmt)
    if data[:4] != magic:
        raise Bad("%s: not a %s file" % (path, magic.decode()))
    if (len(data) - 4) % size:
        raise Bad("%s: truncated: %d bytes is not 4 + a multiple of %d" % (path, len(data), size))
    return list(struct.iter_unpack(fmt, memoryview(data)[4:]))


class Trace:
    def __init__(self, prefix, need_memory=True):
        self.parents = None  # parents(self), once asked for: the queries never change a Trace
        blocks = read_records(prefix, ".blocks", b"WTB1", "<IHBBIIQ")
        self.block_pc, self.block_bytes, self.block_end = [], [], []
        for i, (bid, _instructions, end, _z, nbytes, _z2, pc) in enumerate(blocks):
            if bid != i or chr(end) not in "CRJ":
                raise Bad("%s.blocks: block record %d is corrupt" % (prefix, i))
            self.block_pc.append(pc)
            self.block_bytes.append(nbytes)
            self.block_end.append(chr(end))
        self.flow = [r[0] for r in read_records(prefix, ".flow", b"WTF1", "<I")]
        for t, b in enumerate(self.flow, 1):
            if b >= len(blocks):
                raise Bad("%s.flow: block %d at %d does not exist" % (prefix, b, t))
        if not need_memory:
            return
        executed = len(self.flow)
        self.nodes = read_records(prefix, ".nodes", b"WTN2", "<IIBBHIQ")
        for i, (nid, block, access, _slot, _size, _z, _pc) in enumerate(self.nodes):
            if nid != i or block >= len(blocks) or chr(access) not in "LS":
                raise Bad("%s.nodes: node record %d is corrupt" % (prefix, i))
        self.events = read_records(prefix, ".events", b"WTE2", "<IIQQ")
        last_t = 0
        self.event_at = {}  # (node, t) -> (address, value)
        for node, t, address, value in self.events:
            if node >= len(self.nodes) or not max(last_t, 1) <= t <= executed or (node, t) in self.event_at:
                raise Bad("%s.events: corrupt event (node %d, t %d)" % (prefix, node, t))
            if self.flow[t - 1] != self.nodes[node][1]:
                raise Bad("%s.events: node %d's block did not run at %d" % (prefix, node, t))
            last_t = t
            self.event_at[(node, t)] = (address, value)
        self.def_of = {}  # (use node, t_use) -> (def node, t_def)
        for use, dnode, t_use, t_def in read_records(prefix, ".edges", b"WTD2", "<IIII"):
            if (use, t_use) not in self.event_at or (dnode, t_def) not in self.event_at or t_def > t_use \
                    or self.kind(use) != "L" or self.kind(dnode) != "S" or (use, t_use) in self.def_of:
                raise Bad("%s.edges: corrupt edge %d@%d <- %d@%d" % (prefix, use, t_use, dnode, t_def))
            self.def_of[(use, t_use)] = (dnode, t_def)
        self.events_at_t = {}  # t -> [node], the memory events of the block executed at t
        for node, t, _a, _v in self.events:
            self.events_at_t.setdefault(t, []).append(node)
        self.read_dataflow(prefix)

    def read_dataflow(self, prefix):
        """self.ops[block] = [(kind, what, [(from, index)])], kind 'L'/'S'
        (what: the node), 'R' (what: the pc) or 'B' (what: the last pc);
        self.writes[block] = {slot: op}; self.node_op[node] = its op index.
        From PREFIX.regs, or synthesized when there is none."""
        blocks = len(self.block_pc)
        nodes_of = [[] for _ in range(blocks)]
        for n, record in enumerate(self.nodes):
            nodes_of[record[1]].append(n)
        self.ops, self.writes = [None] * blocks, [None] * blocks
        path = prefix + ".regs"
        if not os.path.exists(path):
            for b in range(blocks):
                ops = []
                for n in nodes_of[b]:
                    earlier = [("O", j) for j, op in enumerate(ops) if op[0] == "L"]
                    ops.append((self.kind(n), n, earlier if self.kind(n) == "S" else []))
                ops.append(("B", None, [("O", j) for j, op in enumerate(ops) if op[0] == "L"]))
                self.ops[b], self.writes[b] = ops, {}
        else:
            records = read_records(prefix, ".regs", b"WTR1", "<BBHIQ")
            at = -1  # the record taken last (0: the first after the magic)

            def bad(what):
                raise Bad("%s: record %d: %s" % (path, at, what))

            def take(expected):
                nonlocal at
                at += 1
                if at >= len(records):
                    raise Bad("%s: ends inside a block's group (record type '%s' expected)" % (path, expected))
                record = records[at]
                if chr(record[0]) != expected:
                    bad("record type '%s' expected, got 0x%02x" % (expected, record[0]))
                return record

            while at + 1 < len(records):
                _k, zero, zero2, low, high = take("K")
                b, ops_count, writes_count = low, high & 0xFFFFFFFF, high >> 32
                if zero or zero2:
                    bad("block header with nonzero padding")
                if b >= blocks:
                    bad("block %d does not exist" % b)
                if self.ops[b] is not None:
                    bad("block %d's second group" % b)
                ops, r_pcs = [], set()
                for index in range(ops_count):
                    _o, kind, count, zero, what = take("O")
                    kind = chr(kind)
                    if zero or kind not in "LSRB":
                        bad("op %d of block %d: bad kind or padding" % (index, b))
                    sources = []
                    for _ in range(count):
                        _f, source, zero, where, zero2 = take("F")
                        source = chr(source)
                        if zero or zero2 or source not in "OG" \
                                or (source == "O" and where >= index) or (source == "G" and where >= 4096):
                            bad("bad source of op %d of block %d" % (index, b))
                        sources.append((source, where))
                    if kind == "B" and index != ops_count - 1:
                        bad("block %d's 'B' op is not its last" % b)
                    if kind == "R":
                        if what in r_pcs:
                            bad("block %d has two 'R' ops at 0x%x" % (b, what))
                        r_pcs.add(what)
                    ops.append((kind, what, sources))
                if not ops or ops[-1][0] != "B":
                    raise Bad("%s: block %d's ops do not end with a 'B' op" % (path, b))
                memory = [op for op in ops if op[0] in "LS"]
                if [op[1] for op in memory] != nodes_of[b] \
                        or any(self.kind(op[1]) != op[0] for op in memory):
                    raise Bad("%s: block %d's memory ops are not its nodes in id order" % (path, b))
                writes = {}
                for _ in range(writes_count):
                    _w, zero, zero2, slot, high = take("W")
                    op, zero3 = high & 0xFFFFFFFF, high >> 32
                    if zero or zero2 or zero3 or slot >= 4096 or op >= len(ops) or ops[op][0] != "R" \
                            or (writes and slot <= max(writes)):
                        bad("bad write record of block %d" % b)
                    writes[slot] = op
                self.ops[b], self.writes[b] = ops, writes
            missing = [b for b in range(blocks) if self.ops[b] is None]
            if missing:
                raise Bad("%s: block %d has no group" % (path, missing[0]))
        self.node_op = {}
        for ops in self.ops:
            for index, (kind, what, _s) in enumerate(ops):
                if kind in "LS":
                    self.node_op[what] = index
        # writers[slot]: the increasing timestamps whose block writes the slot
        self.writers = {}
        for t, b in enumerate(self.flow, 1):
            for slot in self.writes[b]:
                self.writers.setdefault(slot, []).append(t)

    def kind(self, node):
        return chr(self.nodes[node][2])

    def slot(self, node):
        return self.nodes[node][3]

    def pc(self, node):
        return self.nodes[node][6]


# --- control dependence, naively ---------------------------------------------

class Frame:
    def __init__(self, entry, return_address, call_site):
        self.entry = entry
        self.return_address = return_address
        self.call_site = call_site
        self.executed = []  # (t, block) run in this activation itself
        self.last = None


def walk_frames(trace):
    """The shadow call stack: per t, the frame it ran in. Also the CFG of
    every function: {entry: (nodes, edges)}."""
    flow, pcs, ends, sizes = trace.flow, trace.block_pc, trace.block_end, trace.block_bytes
    cfgs = {}
    frame_at = []
    stack = []
    for t in range(1, len(flow) + 1):
        b = flow[t - 1]
        if t == 1:
            stack.append(Frame(b, None, 0))
        else:
            p = flow[t - 2]
            if ends[p] == "C":
                stack.append(Frame(b, (pcs[p] + sizes[p]) & U64, t - 1))
            elif ends[p] == "R":
                for depth in range(len(stack) - 1, 0, -1):
                    if stack[depth].return_address == pcs[b]:
                        del stack[depth:]
                        break
        frame = stack[-1]
        nodes, edges = cfgs.setdefault(frame.entry, (set(), set()))
        nodes.add(b)
        if frame.last is not None:
            edges.add((frame.last, b))
        frame.last = b
        frame.executed.append((t, b))
        frame_at.append(frame)
    return frame_at, cfgs


def control_dependences(trace, nodes, edges):
    """{Y: set of X that Y is control dependent on} in one function."""
    EXIT = "EXIT"
    succ = {n: set() for n in nodes}
    for x, y in edges:
        succ[x].add(y)
    for n in nodes:
        if trace.block_end[n] == "R" or not succ[n]:
            succ[n].add(EXIT)
    reach = {EXIT}
    changed = True
    while changed:
        changed = False
        for n in nodes:
            if n not in reach and succ[n] & reach:
                reach.add(n)
                changed = True
    for n in nodes:
        if n not in reach:
            succ[n].add(EXIT)
    everything = set(nodes) | {EXIT}
    pdom = {n: set(everything) for n in nodes}
    pdom[EXIT] = {EXIT}
    changed = True
    while changed:
        changed = False
        for n in sorted(nodes):
            new = {n} | set.intersection(*(pdom[s] for s in succ[n]))
            if new != pdom[n]:
                pdom[n] = new
                changed = True
    cd = {n: set() for n in nodes}
    for x in nodes:
        strict = pdom[x] - {x}
        for y in nodes:
            if y not in strict and any(y in pdom[s] for s in succ[x]):
                cd[y].add(x)
    return cd


def parents(trace):
    if trace.parents is None:
        trace.parents = find_parents(trace)
    return trace.parents


def find_parents(trace):
    frame_at, cfgs = walk_frames(trace)
    cds = {entry: control_dependences(trace, nodes, edges) for entry, (nodes, edges) in cfgs.items()}
    result = []
    position = {}  # frame -> index of the next execution in frame.executed
    for t, frame in enumerate(frame_at, 1):
        i = position.get(id(frame), 0)
        position[id(frame)] = i + 1
        b = frame.executed[i][1]
        controllers = cds[frame.entry][b]
        parent = frame.call_site
        for j in range(i - 1, -1, -1):
            if frame.executed[j][1] in controllers:
                parent = frame.executed[j][0]
                break
        result.append(parent)
    return result


# --- queries -------------------------------------------------------------------

def parse_number(text, what):
    try:
        if text[:2] in ("0x", "0X"):
            return int(text[2:], 16)
        if text.isdigit():
            return int(text)
    except ValueError:
        pass
    raise Bad("%s: not a number: %s" % (what, text))


def query_cf(trace, options):
    executed = len(trace.flow)
    start, backward, count, ids = None, False, None, False
    for o in options:
        if o.startswith("--from="):
            start = parse_number(o[7:], "--from")
        elif o == "--backward":
            backward = True
        elif o == "--ids":
            ids = True
        elif o.startswith("--count="):
            count = parse_number(o[8:], "--count")
        else:
            raise Bad("cf: unknown option %s" % o)
    if start is None:
        start = executed if backward else 1
        if executed == 0:
            return []
    if not 1 <= start <= executed:
        raise Bad("cf: timestamp %d is outside 1..%d" % (start, executed))
    ts = range(start, 0, -1) if backward else range(start, executed + 1)
    if count is not None:
        ts = ts[:count]
    return ["%d 0x%x" % (t, trace.block_pc[trace.flow[t - 1]]) + (" %d" % trace.flow[t - 1] if ids else "")
            for t in ts]


def query_top(trace, options):
    """The most executed blocks (B COUNT 0xPC ID), then instructions with a
    load (L COUNT 0xPC) and with a store (S): an instruction's count is the
    number of distinct timestamps at which any of its accesses ran."""
    count = 10
    for o in options:
        if o.startswith("--count="):
            count = parse_number(o[8:], "--count")
        else:
            raise Bad("top: unknown option %s" % o)
    runs = collections.Counter(trace.flow)
    rows = sorted((-n, trace.block_pc[b], b) for b, n in runs.items())
    lines = ["B %d 0x%x %d" % (-n, pc, b) for n, pc, b in rows[:count]]
    times = collections.defaultdict(set)
    for node, t, _a, _v in trace.events:
        times[trace.pc(node)].add(t)
    for access in "LS":
        pcs = {trace.pc(n) for n, _t, _a, _v in trace.events if trace.kind(n) == access}
        rows = sorted((-len(times[pc]), pc) for pc in pcs)
        lines += ["%s %d 0x%x" % (access, -n, pc) for n, pc in rows[:count]]
    return lines


def nodes_of_pc(trace, pc):
    found = {n for n in range(len(trace.nodes)) if trace.pc(n) == pc}
    if not found:
        raise Bad("no memory access at pc 0x%x" % pc)
    return found


def query_events(trace, pc, field):
    nodes = nodes_of_pc(trace, pc)
    items = sorted((t, trace.slot(n), n, address, value)
                   for n, t, address, value in trace.events if n in nodes)
    return ["%d %s %d 0x%x" % (t, trace.kind(n), slot, address if field == "address" else value)
            for t, slot, n, address, value in items]


def instance_events(trace, pc, instance):
    """The events (node, t) of pc at its INSTANCE-th distinct T, in slot order."""
    nodes = nodes_of_pc(trace, pc)
    times = sorted({t for n, t, _a, _v in trace.events if n in nodes})
    if not 1 <= instance <= len(times):
        raise Bad("pc 0x%x has %d instances, not %d" % (pc, len(times), instance))
    t = times[instance - 1]
    return t, sorted((n for n in trace.events_at_t[t] if n in nodes), key=trace.slot)


def query_def(trace, pc, instance):
    t, nodes = instance_events(trace, pc, instance)
    lines = []
    for n in nodes:
        if trace.kind(n) != "L":
            continue
        d = trace.def_of.get((n, t))
        if d is None:
            lines.append("%d L %d <- none" % (t, trace.slot(n)))
        else:
            lines.append("%d L %d <- %d S %d 0x%x" % (t, trace.slot(n), d[1], trace.slot(d[0]), trace.pc(d[0])))
    return lines


def slice_start(trace, pc, instance):
    """(t, ops) a slice starts from: pc's memory accesses at its INSTANCE-th
    T; for an instruction with none, its register writes and (from
    PREFIX.regs) its branch at the INSTANCE-th execution of their blocks."""
    if any(trace.pc(n) == pc for n in range(len(trace.nodes))):
        t, nodes = instance_events(trace, pc, instance)
        return t, [trace.node_op[n] for n in nodes]
    starts = {}
    for b, ops in enumerate(trace.ops):
        at_pc = [i for i, (kind, what, _s) in enumerate(ops) if kind in "RB" and what == pc]
        if at_pc:
            starts[b] = at_pc
    if not starts:
        raise Bad("no memory access, register write or branch at pc 0x%x" % pc)
    times = [t for t, b in enumerate(trace.flow, 1) if b in starts]
    if not 1 <= instance <= len(times):
        raise Bad("pc 0x%x has %d instances, not %d" % (pc, len(times), instance))
    t = times[instance - 1]
    return t, starts[trace.flow[t - 1]]


def query_slice(trace, pc, instance):
    parent = parents(trace)
    t0, start_ops = slice_start(trace, pc, instance)
    flow, ops = trace.flow, trace.ops
    items = set()
    work = [(t0, op) for op in start_ops]
    while work:
        item = work.pop()
        if item in items:
            continue
        items.add(item)
        t, op = item
        kind, what, sources = ops[flow[t - 1]][op]
        p = parent[t - 1]
        if p:
            work.append((p, len(ops[flow[p - 1]]) - 1))
        for source, index in sources:
            if source == "O":
                k, n, _s = ops[flow[t - 1]][index]
                if k not in "LS" or (n, t) in trace.event_at:
                    work.append((t, index))
            else:
                times = trace.writers.get(index, [])
                at = bisect.bisect_left(times, t) - 1
                if at >= 0:
                    writer = times[at]
                    work.append((writer, trace.writes[flow[writer - 1]][index]))
        if kind == "L":
            d = trace.def_of.get((what, t))
            if d is not None:
                work.append((d[1], trace.node_op[d[0]]))
    kind_order = {"B": 0, "L": 1, "R": 2, "S": 3}
    keyed = []
    for t, op in items:
        b = flow[t - 1]
        kind, what, _s = ops[b][op]
        if kind == "B":
            keyed.append((-t, trace.block_pc[b], 0, -1, "%d B 0x%x -" % (t, trace.block_pc[b])))
        elif kind == "R":
            keyed.append((-t, what, 2, -1, "%d R 0x%x -" % (t, what)))
        else:
            keyed.append((-t, trace.pc(what), kind_order[kind], trace.slot(what),
                          "%d %s 0x%x %d" % (t, kind, trace.pc(what), trace.slot(what))))
    keyed.sort()
    sys.stderr.write("slice: %d items\n" % len(keyed))
    return [k[-1] for k in keyed]


def answer(command, args, load):
    """The lines of one query; load(need_memory) gives the Trace."""
    if command == "cf":
        return query_cf(load(False), args)
    if command == "top":
        return query_top(load(True), args)
    if command == "parents" and not args:
        return ["%d %d" % (t, p) for t, p in enumerate(parents(load(False)), 1)]
    if command in ("values", "addresses") and len(args) == 1:
        return query_events(load(True), parse_number(args[0], "PC"),
                            "value" if command == "values" else "address")
    if command in ("def", "slice") and len(args) == 2:
        trace = load(True)
        pc, instance = parse_number(args[0], "PC"), parse_number(args[1], "INSTANCE")
        return (query_def if command == "def" else query_slice)(trace, pc, instance)
    raise Bad("unknown command or wrong arguments: %s" % " ".join([command] + args))


def batch(prefix, queries, outdir):
    """Each query of the file QUERIES answered into OUTDIR from one Trace
    of each kind (which keeps its parents once found)."""
    traces = {}

    def load(need_memory):
        if need_memory not in traces:
            traces[need_memory] = Trace(prefix, need_memory)
        return traces[need_memory]

    with open(queries) as lines:
        for number, line in enumerate(lines, 1):
            words = line.split()
            status = 0
            with open("%s/%d.out" % (outdir, number), "w") as out, open("%s/%d.err" % (outdir, number), "w") as err:
                with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                    try:
                        for text in answer(words[0], words[1:], load):
                            out.write(text + "\n")
                    except Bad as e:
                        err.write("wet_reference: error: %s\n" % e)
                        status = 1
            with open("%s/%d.status" % (outdir, number), "w") as f:
                f.write("%d\n" % status)
    return 0


def main(argv):
    if len(argv) < 3:
        raise Bad("usage: wet_reference.py PREFIX cf|values|addresses|def|slice|parents ...")
    prefix, command, args = argv[1], argv[2], argv[3:]
    if command == "--batch" and len(args) == 2:
        return batch(prefix, args[0], args[1])
    lines = answer(command, args, lambda need_memory: Trace(prefix, need_memory))
    out = sys.stdout
    for line in lines:
        out.write(line + "\n")
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv))
    except Bad as e:
        sys.stderr.write("wet_reference: error: %s\n" % e)
        sys.exit(1)
    except BrokenPipeError:
        os._exit(0)
