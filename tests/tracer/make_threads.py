#!/usr/bin/python3
"""make_threads.py DIR: a synthetic multi-threaded run, as tcgen-tracer would
write it, and what tcgen-threads split must make of it.

Writes DIR/run.thr (the thread log, THR1), DIR/branches, DIR/champsim, DIR/stores and
DIR/wet-flow (one trace per kind, records numbered so that each says whose
and which it is), and DIR/expected/KIND.tTHREAD: every thread's records of
each kind in order, computed here from the runs, not from the log's bytes.
The runs: threads 1, 2 and 3 take turns in a random order, each many times;
a run may hold no record of a kind, and thread 3 never stores (its stores
file is the header alone). Standard library only.
"""

import os
import random
import struct
import sys

KINDS = [("stores", 0, b"STA1", 12), ("champsim", 3, b"", 64), ("branches", 4, b"BRA1", 17),
         ("wet-flow", 5, b"WTF1", 4)]


def record(kind, thread, serial, size):
    """A record that names its thread, kind and position; the rest filler."""
    body = struct.pack("<HIB", thread, serial, kind)
    return (body * (size // len(body) + 1))[:size]


def main():
    out = sys.argv[1]
    os.makedirs(os.path.join(out, "expected"), exist_ok=True)
    rng = random.Random(7)
    threads = [1] + [rng.choice([1, 2, 3]) for _ in range(60)]
    runs = []  # (thread, {kind: records in this run})
    for thread in threads:
        counts = {}
        for name, _, _, _ in KINDS:
            counts[name] = 0 if (name == "stores" and thread == 3) or rng.random() < 0.2 \
                else rng.randrange(1, 40)
        runs.append((thread, counts))
    written = {name: 0 for name, _, _, _ in KINDS}
    log = bytearray(b"THR1")
    traces = {name: bytearray(header) for name, _, header, _ in KINDS}
    expected = {}
    for thread, counts in runs:
        columns = [0] * 8
        for name, column, _, _ in KINDS:
            columns[column] = written[name]
        log += struct.pack("<I8Q", thread, *columns)
        for index, (name, column, header, size) in enumerate(KINDS):
            part = expected.setdefault((name, thread), bytearray(header))
            for _ in range(counts[name]):
                r = record(index, thread, written[name], size)
                traces[name] += r
                part += r
                written[name] += 1
    with open(os.path.join(out, "run.thr"), "wb") as f:
        f.write(log)
    for name, data in traces.items():
        with open(os.path.join(out, name), "wb") as f:
            f.write(data)
    for (name, thread), data in expected.items():
        with open(os.path.join(out, "expected", f"{name}.t{thread}"), "wb") as f:
            f.write(data)


if __name__ == "__main__":
    main()
