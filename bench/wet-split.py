#!/usr/bin/python3
"""bench/wet-split.py: cut the WET files of tcgen-tracer --wet=PREFIX into raw streams.

    bench/wet-split.py [--nodes=K] [--edges=K] [--out=DIR] PREFIX

Reads PREFIX.blocks (WTB1), PREFIX.flow (WTF1), PREFIX.nodes (WTN2),
PREFIX.events (WTE2) and PREFIX.edges (WTD2), checks that they agree, and
writes, into DIR, one raw little-endian file per stream of the K nodes with
the most events and the K use-def edges with the most dependences:
NODE.timestamps (u32 block timestamp each), NODE.values (u64 each), USE-DEF.pairs (u32
t_use, u32 t_def each), where NODE, USE and DEF are node ids; and index.tsv,
one line per file (columns: file, stream, records, node, pc, access, size,
def_node, def_pc). Ties are broken by the smaller id. Files listed in an
index.tsv already in DIR are removed first. Exit status 1 with a one-line
error on unreadable, malformed or truncated input.

Formats: docs/wet-streams.md. Runs with Debian's /usr/bin/python3 and its
standard library only.
"""

import argparse
import collections
import os
import sys
from array import array

PROG = "bench/wet-split.py"

# (suffix, magic, record bytes) of the five input files.
BLOCKS = (".blocks", b"WTB1", 24)
FLOW = (".flow", b"WTF1", 4)
NODES = (".nodes", b"WTN2", 24)
EVENTS = (".events", b"WTE2", 24)
EDGES = (".edges", b"WTD2", 16)

INDEX_COLUMNS = ("file", "stream", "records", "node", "pc", "access", "size",
                 "def_node", "def_pc")


class InputError(Exception):
    pass


def die(message):
    print(f"{PROG}: error: {message}", file=sys.stderr)
    sys.exit(1)


def words(data, typecode):
    """data (little-endian) as an array of typecode."""
    a = array(typecode)
    a.frombytes(data)
    if sys.byteorder == "big":
        a.byteswap()
    return a


def read_file(prefix, kind):
    """The records of PREFIX+suffix as bytes, after checking magic and size."""
    suffix, magic, size = kind
    path = prefix + suffix
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        raise InputError(f"cannot read {path}: {e.strerror}")
    if len(data) < 4 or data[:4] != magic:
        raise InputError(f"{path}: not a WET {suffix[1:]} file (first 4 bytes "
                         f"{data[:4]!r}, expected {magic.decode()})")
    if (len(data) - 4) % size:
        raise InputError(f"{path}: truncated or corrupt: {len(data)} bytes is not "
                         f"4 + a multiple of {size}")
    return path, data[4:]


def first_bad(column, limit):
    return next(i for i, n in enumerate(column) if n >= limit)


def load(prefix):
    """Nodes, events and edges as column arrays, checked for consistency
    with each other and with the blocks and the flow."""
    path, data = read_file(prefix, BLOCKS)
    n_blocks = len(data) // 24
    ids = words(data, "I")[0::6]
    if ids != array("I", range(n_blocks)):
        bad = next(i for i in range(n_blocks) if ids[i] != i)
        raise InputError(f"{path}: record {bad} has id {ids[bad]}, expected {bad}")
    path, data = read_file(prefix, FLOW)
    flow = words(data, "I")
    if flow and max(flow) >= n_blocks:
        bad = first_bad(flow, n_blocks)
        raise InputError(f"{path}: record {bad}: block {flow[bad]} is not in "
                         f"{prefix + BLOCKS[0]} ({n_blocks} blocks)")
    executed = len(flow)
    del flow

    path, data = read_file(prefix, NODES)
    w = words(data, "I")
    q = words(data, "Q")
    n_nodes = len(w) // 6
    ids = w[0::6]
    if ids != array("I", range(n_nodes)):
        bad = next(i for i in range(n_nodes) if ids[i] != i)
        raise InputError(f"{path}: record {bad} has id {ids[bad]}, expected {bad}")
    node_block = w[1::6]
    if node_block and max(node_block) >= n_blocks:
        bad = first_bad(node_block, n_blocks)
        raise InputError(f"{path}: node {bad}: block {node_block[bad]} is not in "
                         f"{prefix + BLOCKS[0]} ({n_blocks} blocks)")
    nodes = []
    for i in range(n_nodes):
        kind, slot, size = data[24 * i + 8], data[24 * i + 9], w[6 * i + 2] >> 16
        if kind not in b"LS":
            raise InputError(f"{path}: node {i}: access kind byte {kind}, expected 'L' or 'S'")
        nodes.append((q[3 * i + 2], "load" if kind == ord("L") else "store", size, slot))

    path, data = read_file(prefix, EVENTS)
    w = words(data, "I")
    event_node, event_t = w[0::6], w[1::6]
    del w  # keep the peak near twice the events file
    values = words(data, "Q")[2::3]
    del data
    if event_node and max(event_node) >= n_nodes:
        bad = first_bad(event_node, n_nodes)
        raise InputError(f"{path}: record {bad}: node {event_node[bad]} is not in "
                         f"{prefix + NODES[0]} ({n_nodes} nodes)")
    if event_t and (event_t[0] == 0 or max(event_t) > executed):
        bad = next(i for i, t in enumerate(event_t) if t == 0 or t > executed)
        raise InputError(f"{path}: record {bad}: timestamp {event_t[bad]} is not within "
                         f"1..{executed}, the blocks in {prefix + FLOW[0]}")
    if any(b < a for a, b in zip(event_t, event_t[1:])):
        bad = next(i for i in range(1, len(event_t)) if event_t[i] < event_t[i - 1])
        raise InputError(f"{path}: record {bad}: timestamp {event_t[bad]} is smaller "
                         f"than the previous one ({event_t[bad - 1]})")

    path, data = read_file(prefix, EDGES)
    w = words(data, "I")
    use, dfn = w[0::4], w[1::4]
    for column in (use, dfn):
        if column and max(column) >= n_nodes:
            bad = first_bad(column, n_nodes)
            raise InputError(f"{path}: record {bad}: node {column[bad]} is not in "
                             f"{prefix + NODES[0]} ({n_nodes} nodes)")
    return nodes, (event_node, event_t, values), (use, dfn, w[2::4], w[3::4])


def hottest(counter, k):
    return [key for key, _ in sorted(counter.items(), key=lambda kv: (-kv[1], kv[0]))[:k]]


def write_stream(path, typecode, items):
    a = array(typecode, items)
    if sys.byteorder == "big":
        a.byteswap()
    with open(path, "wb") as f:
        a.tofile(f)
    return len(a)


def remove_old_split(out):
    index = os.path.join(out, "index.tsv")
    if not os.path.exists(index):
        return
    with open(index, encoding="utf-8") as f:
        lines = f.read().splitlines()[1:]
    for line in lines:
        name = line.split("\t", 1)[0]
        if name and os.sep not in name and name not in (".", ".."):
            try:
                os.remove(os.path.join(out, name))
            except FileNotFoundError:
                pass
    os.remove(index)


def split(prefix, out, k_nodes, k_edges):
    nodes, (event_node, event_t, values), (use, dfn, t_use, t_def) = load(prefix)
    hot_nodes = hottest(collections.Counter(event_node), k_nodes)
    hot_edges = hottest(collections.Counter(zip(use, dfn)), k_edges)

    positions = {n: [] for n in hot_nodes}
    for i, n in enumerate(event_node):
        p = positions.get(n)
        if p is not None:
            p.append(i)
    pair_positions = {e: [] for e in hot_edges}
    for i, e in enumerate(zip(use, dfn)):
        p = pair_positions.get(e)
        if p is not None:
            p.append(i)

    os.makedirs(out, exist_ok=True)
    remove_old_split(out)
    rows = []
    for n in hot_nodes:
        pc, access, size, _ = nodes[n]
        idx = positions[n]
        for stream, typecode, column in (("timestamps", "I", event_t), ("values", "Q", values)):
            name = f"{n}.{stream}"
            count = write_stream(os.path.join(out, name), typecode, (column[i] for i in idx))
            rows.append((name, stream, count, n, f"0x{pc:x}", access, size, "-", "-"))
    for u, d in hot_edges:
        idx = pair_positions[(u, d)]
        pairs = array("I")
        for i in idx:
            pairs.append(t_use[i])
            pairs.append(t_def[i])
        name = f"{u}-{d}.pairs"
        write_stream(os.path.join(out, name), "I", pairs)
        pc, access, size, _ = nodes[u]
        rows.append((name, "pairs", len(idx), u, f"0x{pc:x}", access, size, d,
                     f"0x{nodes[d][0]:x}"))
    with open(os.path.join(out, "index.tsv"), "w", encoding="utf-8") as f:
        f.write("\t".join(INDEX_COLUMNS) + "\n")
        for row in rows:
            f.write("\t".join(str(x) for x in row) + "\n")
    return len(event_node), len(use), len(hot_nodes), len(hot_edges)


def main(argv):
    p = argparse.ArgumentParser(
        prog=PROG, formatter_class=argparse.RawDescriptionHelpFormatter,
        description=__doc__.split("\n\n", 2)[2])
    p.error = die  # one-line error, exit status 1
    p.add_argument("prefix", help="the PREFIX given to tcgen-tracer --wet=")
    p.add_argument("--nodes", type=int, default=10, metavar="K",
                   help="write the streams of the K nodes with the most events (default 10)")
    p.add_argument("--edges", type=int, default=10, metavar="K",
                   help="write the pairs of the K edges with the most dependences (default 10)")
    p.add_argument("--out", metavar="DIR", help="output directory (default PREFIX.streams)")
    args = p.parse_args(argv)
    if args.nodes < 0 or args.edges < 0:
        die("--nodes and --edges must be >= 0")
    out = args.out or args.prefix + ".streams"
    try:
        events, edges, n, e = split(args.prefix, out, args.nodes, args.edges)
    except InputError as err:
        die(str(err))
    except OSError as err:
        die(f"{err.filename or out}: {err.strerror}")
    print(f"{PROG}: {events} events, {edges} edges -> {out}: {n} nodes x 2 streams, "
          f"{e} edge streams (index.tsv)", file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv[1:])
