#!/usr/bin/env python3
"""thread_check.py PROGRAM_OUTPUT BRANCHES CHAMPSIM [--threads=LOG] [--wet=PREFIX]:
checks the traces of threads_program (threads_test.sh) against what its
threads did.

Always: each worker's loop branches (their addresses, targets, and how often
they run and are taken are in PROGRAM_OUTPUT) have exactly that many records
in the branch trace, every one with the loop head as target and that many
taken.  A record completed
by another thread's instruction shows up here as a wrong target or a wrong
taken flag: the script counts those ("bogus") and fails if there are any.

With --threads (the tool's thread log, THR1): the log is well formed, the
branch and ChampSim traces split by it give, per thread, the checks of
branch_check.py (the same branches, taken alike, a taken branch's target the
thread's next instruction), each loop's records come from one thread, each
thread's from one worker's loops at most (also when valgrind gave a later
worker an ended worker's thread slot), the main thread and each worker are
threads of their own, and the records per thread are printed.  With --wet as well: per thread, the WET
flow moves to another block only at that thread's taken branches.  With
--split=DIR (tcgen-threads split's output for the same traces): its
per-thread files hold the records of this script's own split."""
import argparse
import re
import struct
import sys

BRANCH = struct.Struct("<QQB")
LOG = struct.Struct("<I8Q")
LOG_COLUMNS = ["stores", "misses", "loads", "champsim", "branches", "wet flow", "wet events", "wet edges"]


def read(path, header, size):
    data = open(path, "rb").read()
    if header and data[:len(header)] != header:
        sys.exit(f"{path}: not a {header.decode()} file")
    body = data[len(header):]
    if len(body) % size:
        sys.exit(f"{path}: {len(data)} bytes is not {len(header)} + {size}k")
    return body


def loops(path):
    """{branch pc: (worker, head, runs, taken)}"""
    found = {}
    for line in open(path):
        m = re.fullmatch(r"worker (\d+) branch (0x[0-9a-f]+) head (0x[0-9a-f]+) runs (\d+) taken (\d+)\n", line)
        if not m:
            sys.exit(f"{path}: unexpected line {line!r}")
        found[int(m[2], 16)] = (int(m[1]), int(m[3], 16), int(m[4]), int(m[5]))
    if len(found) != 8:
        sys.exit(f"{path}: {len(found)} loop branches, expected 8")
    return found


def check_loops(branches, known):
    """Bogus records at the loop branches, and a line per loop."""
    bogus = 0
    seen = {pc: [0, 0] for pc in known}
    for pc, target, taken in branches:
        if pc in known:
            seen[pc][taken] += 1
            if target != known[pc][1]:
                bogus += 1
    for pc, (k, head, runs, want_taken) in sorted(known.items(), key=lambda kv: (kv[1][0], kv[0])):
        not_taken, taken = seen[pc]
        # a missing record or a wrong taken flag is a bogus record too
        bogus += abs(taken - want_taken) + abs(not_taken - (runs - want_taken))
        print(f"worker {k}, branch {pc:#x}: {taken + not_taken} records ({taken} taken), "
              f"expected {runs} ({want_taken} taken)")
    return bogus


def thread_runs(path, totals):
    """[(thread, {column: (first, end)})] from the log; ends from the next run."""
    body = read(path, b"THR1", LOG.size)
    recs = [LOG.unpack_from(body, i) for i in range(0, len(body), LOG.size)]
    if not recs or recs[0] != (1,) + (0,) * 8:
        sys.exit(f"{path}: the first run is not the main thread's from the start: {recs[:1]}")
    runs = []
    for i, (tid, *counts) in enumerate(recs):
        nxt = recs[i + 1][1:] if i + 1 < len(recs) else [totals.get(c) for c in range(8)]
        if i + 1 < len(recs) and recs[i + 1][0] == tid:
            sys.exit(f"{path}: runs {i} and {i + 1} are both thread {tid}'s")
        spans = {}
        for c in range(8):
            end = nxt[c] if nxt[c] is not None else counts[c]
            if end < counts[c]:
                sys.exit(f"{path}: run {i}: {LOG_COLUMNS[c]} count goes back from {counts[c]} to {end}")
            spans[c] = (counts[c], end)
        runs.append((tid, spans))
    return runs


def split(records, runs, column):
    per = {}
    for tid, spans in runs:
        first, end = spans[column]
        per.setdefault(tid, []).extend(records[first:end])
    return per


def check_thread(tid, got, instrs, last_run):
    """branch_check.py's checks on one thread's records."""
    expected = [(i, ip, taken) for i, (ip, is_branch, taken) in enumerate(instrs) if is_branch]
    if last_run and expected and expected[-1][0] == len(instrs) - 1:
        expected.pop()  # still pending at exit: no outcome
    if len(got) != len(expected):
        sys.exit(f"thread {tid}: {len(got)} branches, but {len(expected)} of its ChampSim records are branches")
    for n, ((pc, target, taken), (i, ip, cs_taken)) in enumerate(zip(got, expected)):
        if pc != ip or taken != cs_taken:
            sys.exit(f"thread {tid}, branch {n}: pc {pc:#x} taken {taken}, ChampSim: ip {ip:#x} taken {cs_taken}")
        if taken and target != instrs[i + 1][0]:
            sys.exit(f"thread {tid}, branch {n} at {pc:#x}: taken to {target:#x}, "
                     f"but the thread's next ip is {instrs[i + 1][0]:#x}")


def check_flow(tid, flow, blocks, branches):
    """The tracer test's flow check, on one thread: a move to another block
    that is not a fall-through is the thread's next taken branch (or a rep
    instruction's next iteration, a jump back into the block just run)."""
    taken = [target for _, target, t in branches if t]
    j = other = 0
    for prev_id, cur_id in zip(flow, flow[1:]):
        prev, cur = blocks[prev_id], blocks[cur_id]
        start, size, pc = prev[6], prev[4], cur[6]
        if pc == start + size:
            continue
        if j < len(taken) and taken[j] == pc:
            j += 1
        elif start <= pc < start + size:
            other += 1
        else:
            sys.exit(f"thread {tid}: the flow moves to {pc:#x}, its next taken branch goes to "
                     f"{taken[j] if j < len(taken) else None:#x}")
    if len(taken) - j > 1:  # the thread's last taken branch may end its flow
        sys.exit(f"thread {tid}: the flow follows {j} of its {len(taken)} taken branches")
    return j


def main():
    p = argparse.ArgumentParser()
    p.add_argument("output")
    p.add_argument("branches")
    p.add_argument("champsim")
    p.add_argument("--threads")
    p.add_argument("--wet")
    p.add_argument("--split")
    args = p.parse_args()
    known = loops(args.output)
    body = read(args.branches, b"BRA1", BRANCH.size)
    branches = [BRANCH.unpack_from(body, i) for i in range(0, len(body), BRANCH.size)]
    bogus = check_loops(branches, known)
    print(f"bogus records at the loop branches: {bogus}")
    if bogus:
        sys.exit(1)
    if not args.threads:
        return
    cs = read(args.champsim, b"", 64)
    instrs = [(struct.unpack_from("<Q", cs, i)[0], cs[i + 8], cs[i + 9]) for i in range(0, len(cs), 64)]
    totals = {3: len(instrs), 4: len(branches)}
    flow = blocks = None
    if args.wet:
        flow = [b for (b,) in struct.iter_unpack("<I", read(args.wet + ".flow", b"WTF1", 4))]
        blocks = list(struct.iter_unpack("<IHBBIIQ", read(args.wet + ".blocks", b"WTB1", 24)))
        totals[5] = len(flow)
    runs = thread_runs(args.threads, totals)
    per_branches = split(branches, runs, 4)
    per_instrs = split(instrs, runs, 3)
    per_flow = split(flow, runs, 5) if flow is not None else {}
    last = runs[-1][0]
    for k in {k for k, *_ in known.values()}:
        pcs = {pc for pc, v in known.items() if v[0] == k}
        owners = {tid for tid, recs in per_branches.items() if any(r[0] in pcs for r in recs)}
        if len(owners) != 1:
            sys.exit(f"worker {k}: its loop branch records come from threads {sorted(owners)}")
    # A thread whose slot valgrind gave to a later thread is still a thread
    # of its own: no thread holds two workers' loops.
    for tid, recs in per_branches.items():
        workers = {known[r[0]][0] for r in recs if r[0] in known}
        if len(workers) > 1:
            sys.exit(f"thread {tid}: holds the loop branches of workers {sorted(workers)}")
    if len(per_branches) != 1 + len({k for k, *_ in known.values()}):
        sys.exit(f"{len(per_branches)} thread ids in the log, expected the main thread and one per worker")
    # A switch right after a loop branch (the thread's last instruction) is
    # where a thread-blind tracer completes the branch with another thread's
    # code: the test needs some.
    in_loops = after_branch = 0
    for tid, spans in runs[:-1]:
        first, end = spans[3]
        if end > first and instrs[end - 1][1]:
            after_branch += 1
            in_loops += instrs[end - 1][0] in known
    print(f"{len(runs)} runs of {len(per_branches)} thread ids, {len(runs) - 1} switches, "
          f"{after_branch} right after a branch, {in_loops} of them a loop branch")
    if not in_loops:
        sys.exit("no thread switch right after a loop branch: the run does not test the tracer")
    for tid in sorted(per_branches):
        check_thread(tid, per_branches[tid], per_instrs.get(tid, []), tid == last)
        line = (f"thread {tid}: {len(per_branches[tid])} branch records, "
                f"{len(per_instrs.get(tid, []))} ChampSim records")
        if flow is not None:
            moves = check_flow(tid, per_flow.get(tid, []), blocks, per_branches[tid])
            line += f", {len(per_flow.get(tid, []))} WET blocks ({moves} taken branches followed)"
        print(line)
    print("ok: no record mixes threads")
    if args.split:
        compare_split(args.split, per_branches, per_instrs, per_flow if flow is not None else None)


def compare_split(directory, per_branches, per_instrs, per_flow):
    def records(name, header, size, fmt):
        body = read(f"{directory}/{name}", header, size)
        return [struct.unpack_from(fmt, body, i) for i in range(0, len(body), size)]
    for tid in per_branches:
        if records(f"branches.t{tid}", b"BRA1", 17, "<QQB") != per_branches[tid]:
            sys.exit(f"{directory}/branches.t{tid}: not thread {tid}'s branch records")
        cs = [(ip, b, t) for ip, b, t in records(f"champsim.t{tid}", b"", 64, "<QBB")]
        if cs != per_instrs[tid]:
            sys.exit(f"{directory}/champsim.t{tid}: not thread {tid}'s ChampSim records")
        if per_flow is not None and [b for (b,) in records(f"wet-flow.t{tid}", b"WTF1", 4, "<I")] != per_flow[tid]:
            sys.exit(f"{directory}/wet-flow.t{tid}: not thread {tid}'s WET flow")
    print(f"ok: tcgen-threads split gives the same {len(per_branches)} threads")


if __name__ == "__main__":
    main()
