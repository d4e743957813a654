#!/usr/bin/env python3
"""branch_check.py BRANCHES CHAMPSIM [--part-of=BRANCHES]: checks a branch
trace (BRA1: u64 pc, u64 target, u8 taken) against the ChampSim trace of the
same run, which marks the same instructions as branches: the branches are
the ChampSim records with is_branch set, in order, with the same taken flag
(ChampSim also completes the last instruction at exit, which the branch
trace leaves out), and a taken branch's target is the next instruction's ip.
--part-of: the branch records must also be a contiguous run of that file's
(a trace started later and capped is a slice of the full one)."""
import argparse
import struct
import sys

RECORD = struct.Struct("<QQB")


def branches(path):
    data = open(path, "rb").read()
    if data[:4] != b"BRA1":
        sys.exit(f"{path}: not a BRA1 file")
    if (len(data) - 4) % RECORD.size:
        sys.exit(f"{path}: {len(data)} bytes is not 4 + 17k")
    return [RECORD.unpack_from(data, 4 + i * RECORD.size) for i in range((len(data) - 4) // RECORD.size)]


def champsim(path):
    data = open(path, "rb").read()
    if len(data) % 64:
        sys.exit(f"{path}: {len(data)} bytes is not a multiple of 64")
    return [(struct.unpack_from("<Q", data, i)[0], data[i + 8], data[i + 9]) for i in range(0, len(data), 64)]


def main():
    p = argparse.ArgumentParser()
    p.add_argument("branches")
    p.add_argument("champsim")
    p.add_argument("--part-of")
    args = p.parse_args()
    got = branches(args.branches)
    instrs = champsim(args.champsim)
    expected = [(i, ip, taken) for i, (ip, is_branch, taken) in enumerate(instrs) if is_branch]
    if expected and expected[-1][0] == len(instrs) - 1:
        expected.pop()  # completed at exit: no outcome
    if len(got) != len(expected):
        sys.exit(f"{len(got)} branches, but {len(expected)} ChampSim records are branches")
    for n, ((pc, target, taken), (i, ip, cs_taken)) in enumerate(zip(got, expected)):
        if pc != ip or taken != cs_taken:
            sys.exit(f"branch {n}: pc {pc:#x} taken {taken}, ChampSim: ip {ip:#x} taken {cs_taken}")
        if taken and target != instrs[i + 1][0]:
            sys.exit(f"branch {n} at {pc:#x}: taken to {target:#x}, but the next ip is {instrs[i + 1][0]:#x}")
    if not any(taken for _, _, taken in got) or all(taken for _, _, taken in got):
        sys.exit("the branches are all taken or all not taken")
    if args.part_of:
        whole = branches(args.part_of)
        if not any(whole[k:k + len(got)] == got for k in range(len(whole) - len(got) + 1)):
            sys.exit(f"{args.branches} is not a slice of {args.part_of}")
    print(f"ok: {len(got)} branches agree with the ChampSim trace"
          f" ({sum(t for _, _, t in got)} taken)")


if __name__ == "__main__":
    main()
