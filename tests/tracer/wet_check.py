#!/usr/bin/python3
"""wet_check.py: check the invariants of tcgen-tracer's WET files (a test helper).

    wet_check.py PREFIX [--loads=LDV1_FILE] [--split=DIR --nodes=K --edges=K]

Reads the five files PREFIX.blocks, .flow, .nodes, .events and .edges with
its own parser (not wet-split's) and replays the traced stores byte by byte,
without any bound, to check the tool's edges against the rule of
docs/wet-streams.md. An event is identified by (node, t):

- blocks: ids dense from 0 in file order, end 'C', 'R' or 'J', at least one
  instruction (an undecodable one has 0 bytes), padding 0;
- flow: every id < the number of static blocks (flow[t-1] = the block
  executed at t);
- nodes: ids dense from 0 in file order, block known, access 'L' or 'S',
  size > 0, pc inside its block's bytes, no two nodes with the same (block,
  pc, slot, access, size);
- events: node ids known, t within 1..executed blocks and non-decreasing,
  the node's block is flow[t-1], node ids strictly increasing within one
  block execution (so a node has at most one event per t), values fit the
  access size;
- edges: one at most per load event, in event order; the use node is a load
  and the def node a store; t_def <= t_use; the def event (def node, t_def)
  exists and comes before the load; the def is the last traced store of the
  load's first byte;
- values: a load whose def has its address and size, and whose first
  min(size, 8) bytes were all last written by that store, loaded the value
  the store stored;
- --loads: the WET load events and the same run's LDV1 trace (one record per
  load, in the same order) agree on pc and value;
- syms (when PREFIX.syms is there): a line for every block's first pc
  and every node's pc, six fields, a pc's lines alike;
- --split: wet-split's files are the streams of the hottest nodes and edges
  (ties: smaller id), byte for byte, with the right sizes.

Prints a summary; exit status 1 and the first problems on failure.
"""

import collections
import os
import struct
import sys


def fail(message):
    print(f"wet_check: FAIL: {message}", file=sys.stderr)
    sys.exit(1)


def records(path, magic, fmt):
    with open(path, "rb") as f:
        data = f.read()
    if data[:4] != magic:
        fail(f"{path}: magic {data[:4]!r}, expected {magic!r}")
    size = struct.calcsize(fmt)
    if (len(data) - 4) % size:
        fail(f"{path}: {len(data)} bytes is not 4 + {size}k")
    return list(struct.iter_unpack(fmt, data[4:]))


def main(argv):
    opts = dict(a[2:].split("=", 1) for a in argv if a.startswith("--"))
    args = [a for a in argv if not a.startswith("--")]
    if len(args) != 1:
        fail("usage: wet_check.py PREFIX [--loads=FILE] [--split=DIR --nodes=K --edges=K]")
    prefix = args[0]
    blocks = records(prefix + ".blocks", b"WTB1", "<IHBBIIQ")
    flow = [b for (b,) in records(prefix + ".flow", b"WTF1", "<I")]
    nodes = [(nid, kind, slot, size, pc, block) for nid, block, kind, slot, size, _, pc
             in records(prefix + ".nodes", b"WTN2", "<IIBBHIQ")]
    events = records(prefix + ".events", b"WTE2", "<IIQQ")
    edges = records(prefix + ".edges", b"WTD2", "<IIII")
    problems = []

    def problem(message):
        problems.append(message)
        if len(problems) >= 20:
            report_and_exit()

    def report_and_exit():
        for p in problems:
            print(f"wet_check: {p}", file=sys.stderr)
        fail(f"{len(problems)} problem(s)")

    for i, (bid, instrs, end, zero, size, zero2, pc) in enumerate(blocks):
        if bid != i:
            problem(f"block record {i} has id {bid}")
        if end not in b"CRJ" or instrs == 0 or zero or zero2:
            problem(f"block {i}: end {end}, {instrs} instructions, {size} bytes, "
                    f"padding {zero}, {zero2}")
    for t, b in enumerate(flow, 1):
        if b >= len(blocks):
            problem(f"flow at t {t}: block {b}, but there are {len(blocks)} static blocks")
            break

    keys = set()
    for i, (nid, kind, slot, size, pc, block) in enumerate(nodes):
        if nid != i:
            problem(f"node record {i} has id {nid}")
        if kind not in (ord("L"), ord("S")) or size == 0:
            problem(f"node {i}: access {kind}, size {size}")
        if block >= len(blocks):
            problem(f"node {i}: block {block} unknown")
        elif not blocks[block][6] <= pc < blocks[block][6] + blocks[block][4]:
            problem(f"node {i}: pc {pc:#x} outside its block {block}")
        if (block, pc, slot, kind, size) in keys:
            problem(f"node {i}: (block, pc, slot, access, size) seen before")
        keys.add((block, pc, slot, kind, size))
    is_load = [kind == ord("L") for _, kind, _, _, _, _ in nodes]
    node_size = [size for _, _, _, size, _, _ in nodes]

    # Events are identified by (node, t); the edges must follow the load
    # events in order.
    edge_at = {}
    for use, dfn, t_use, t_def in edges:
        if (use, t_use) in edge_at:
            problem(f"edge ({use}, {dfn}, {t_use}, {t_def}): a second edge for one load")
        edge_at[(use, t_use)] = (dfn, t_def, len(edge_at))
    event_of = {}             # (node, t) -> index in events, for stores
    last = {}                 # byte address -> (t, node) of its last store
    loads = stores = exact = lost = edges_seen = 0
    previous_t, previous_node = 0, -1
    for i, (node, t, addr, value) in enumerate(events):
        if not 1 <= t <= len(flow) or t < previous_t:
            problem(f"event {i}: t {t} not within 1..{len(flow)} or decreasing "
                    f"(previous {previous_t})")
            continue
        if node >= len(nodes):
            problem(f"event {i}: unknown node {node}")
            continue
        if t == previous_t and node <= previous_node:
            problem(f"event {i}: node {node} after node {previous_node} in the same "
                    f"block execution t {t}")
        previous_t, previous_node = t, node
        if nodes[node][5] != flow[t - 1]:
            problem(f"event {i}: node {node} is in block {nodes[node][5]}, but block "
                    f"{flow[t - 1]} ran at t {t}")
        size = node_size[node]
        if size < 8 and value >> (8 * size):
            problem(f"event {i}: value {value:#x} wider than {size} bytes")
        if not is_load[node]:
            stores += 1
            event_of[(node, t)] = i
            for b in range(addr, addr + size):
                last[b] = (t, node)
            continue
        loads += 1
        replay = last.get(addr)
        edge = edge_at.pop((node, t), None)
        if edge is None:
            lost += replay is not None   # forgotten by the bounded table or a kernel write
            continue
        dfn, t_def, order = edge
        if order != edges_seen:
            problem(f"edge {order} (load node {node} at t {t}) is out of event order")
        edges_seen += 1
        if dfn >= len(nodes) or is_load[dfn] or not 0 < t_def <= t:
            problem(f"edge at ({node}, {t}): def node {dfn} at {t_def} is not an earlier store")
            continue
        if (dfn, t_def) not in event_of:
            problem(f"edge at ({node}, {t}): no store event ({dfn}, {t_def}) before it")
            continue
        if replay != (t_def, dfn):
            problem(f"edge at ({node}, {t}): def ({dfn}, {t_def}), but the last store of "
                    f"{addr:#x} is {replay}")
            continue
        d_addr, d_value = events[event_of[(dfn, t_def)]][2:4]
        n = min(size, 8)
        if (d_addr == addr and node_size[dfn] == size
                and all(last.get(b, (0, -1)) == (t_def, dfn) for b in range(addr, addr + n))):
            exact += 1
            if d_value != value:
                problem(f"load ({node}, {t}, {addr:#x}, {size} bytes) got {value:#x}, "
                        f"its def ({dfn}, {t_def}) stored {d_value:#x}")
    if edge_at:
        problem(f"{len(edge_at)} edge(s) that are not a load event, first "
                f"{min(edge_at.items(), key=lambda kv: kv[1][2])}")
    if not edges or not exact:
        problem(f"too little to check: {len(edges)} edges, {exact} exact defs")

    if "loads" in opts:
        ldv = records(opts["loads"], b"LDV1", "<IQ")
        wet = [(nodes[node][4] & 0xFFFFFFFF, value) for node, _, _, value in events
               if node < len(nodes) and is_load[node]]
        if len(ldv) != len(wet):
            problem(f"{len(wet)} WET loads, {len(ldv)} LDV1 records")
        for i, (a, b) in enumerate(zip(ldv, wet)):
            if a != b:
                problem(f"load {i}: LDV1 (pc {a[0]:#x}, value {a[1]:#x}), "
                        f"WET (pc {b[0]:#x}, value {b[1]:#x})")
                break

    if os.path.exists(prefix + ".syms"):
        named = check_symbols(prefix + ".syms", blocks, nodes, problem)
        print(f"wet_check: symbols: {named}")

    if "split" in opts:
        check_split(opts["split"], int(opts.get("nodes", 10)), int(opts.get("edges", 10)),
                    nodes, events, edges, problem)

    if problems:
        report_and_exit()
    print(f"wet_check: ok: {len(blocks)} static blocks, {len(flow)} executed, "
          f"{len(nodes)} nodes, {len(events)} events ({loads} loads, "
          f"{stores} stores), {len(edges)} edges, {exact} loads with an exact def "
          f"(same value), {lost} loads whose last store was forgotten")


def check_symbols(path, blocks, nodes, problem):
    """PREFIX.syms: "WTS1", then per instruction of each static block a line
    of six tab-separated fields: 0xPC, object, 0xOFFSET, function, file,
    line ("-" unknown). Every block's first pc and every node's pc has a
    line; a pc's lines agree."""
    with open(path, "rb") as f:
        lines = f.read().decode("utf-8", "replace").split("\n")
    if lines[0] != "WTS1" or lines[-1] != "":
        problem(f"{path}: not WTS1 and whole lines")
        return "none"
    by_pc = {}
    for number, line in enumerate(lines[1:-1], 2):
        fields = line.split("\t")
        if len(fields) != 6 or not fields[0].startswith("0x") or not fields[2].startswith("0x") \
                or not (fields[5] == "-" or fields[5].isdigit()):
            problem(f"{path}:{number}: not 0xPC, object, 0xOFFSET, function, file, line: {line!r}")
            continue
        pc = int(fields[0], 16)
        if by_pc.setdefault(pc, fields) != fields:
            problem(f"{path}:{number}: pc {pc:#x} described twice, differently")
    for block in blocks:
        if block[1] and block[6] not in by_pc:
            problem(f"{path}: block {block[0]} at {block[6]:#x} has no line")
    for node in nodes:
        if node[4] not in by_pc:
            problem(f"{path}: node {node[0]} at {node[4]:#x} has no line")
    functions = sum(1 for fields in by_pc.values() if fields[3] != "-")
    lines_known = sum(1 for fields in by_pc.values() if fields[5] != "-")
    if functions * 2 < len(by_pc):
        problem(f"{path}: only {functions} of {len(by_pc)} instructions have a function")
    return f"{len(by_pc)} instructions, {functions} in a known function, {lines_known} with a source line"


def check_split(out, k_nodes, k_edges, nodes, events, edges, problem):
    def hottest(counter, k):
        return sorted(counter, key=lambda key: (-counter[key], key))[:k]

    per_node = collections.defaultdict(list)
    for node, t, _, value in events:
        per_node[node].append((t, value))
    per_edge = collections.defaultdict(list)
    for use, dfn, t_use, t_def in edges:
        per_edge[(use, dfn)].append((t_use, t_def))
    expected = {}
    for n in hottest({k: len(v) for k, v in per_node.items()}, k_nodes):
        expected[f"{n}.timestamps"] = struct.pack(f"<{len(per_node[n])}I",
                                                  *(t for t, _ in per_node[n]))
        expected[f"{n}.values"] = struct.pack(f"<{len(per_node[n])}Q",
                                              *(v for _, v in per_node[n]))
    for u, d in hottest({k: len(v) for k, v in per_edge.items()}, k_edges):
        expected[f"{u}-{d}.pairs"] = b"".join(struct.pack("<II", *p) for p in per_edge[(u, d)])

    with open(os.path.join(out, "index.tsv"), encoding="utf-8") as f:
        rows = [line.split("\t") for line in f.read().splitlines()]
    if rows[0][:3] != ["file", "stream", "records"]:
        problem(f"{out}/index.tsv: header {rows[0]}")
    listed = {row[0]: row for row in rows[1:]}
    if sorted(listed) != sorted(expected):
        problem(f"{out}: files {sorted(listed)}, expected {sorted(expected)}")
        return
    record_bytes = {"timestamps": 4, "values": 8, "pairs": 8}
    for name, want in expected.items():
        with open(os.path.join(out, name), "rb") as f:
            got = f.read()
        row = listed[name]
        if len(got) != int(row[2]) * record_bytes[row[1]]:
            problem(f"{out}/{name}: {len(got)} bytes for {row[2]} {row[1]} records")
        if got != want:
            problem(f"{out}/{name}: not the stream of the WET files")


if __name__ == "__main__":
    main(sys.argv[1:])
