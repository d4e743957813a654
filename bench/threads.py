#!/usr/bin/python3
"""bench/threads.py: multi-threaded traces coded per thread, against interleaved.

    bench/threads.py [--programs=P1,P2] [--sched=fair,default] [--kinds=K1,K2|wet-flow]
                     [--quick] [--tool-dir=DIR] [--build=DIR] [--work=DIR]
                     [--cxx=CXX] [--out=FILE] [--section=NAME]

Traces multi-threaded runs of real programs with tcgen-tracer (every kind
asked for at once, with --threads=LOG, under valgrind's fair scheduling and
its default one), then per program, scheduling and kind: splits the trace
with tcgen-threads into one file per thread, joins them back and compares
with the trace (cmp), and compresses

  - the interleaved trace with the kind's shipped spec (examples/*.tcg, the
    compressor tcgen generates, default level) and xz -9;
  - each per-thread file the same two ways, the sizes summed;
  - the thread log with xz -9 (what join needs beside the per-thread files).

--kinds=wet-flow (not among the defaults) traces with --wet instead and
measures the block-id flow's SEQUITUR grammar (`wpp build`, each .wpp
expanded again and compared) where the other kinds have their spec: one
grammar of the interleaved flow against one per thread (docs/wpp.md,
"Threads"); its cap counts WET events, the flow is what they reach.

Every compressed file is decompressed and compared with its input. Prints a
Markdown table; --out=FILE replaces the bench/threads.py section of FILE
(docs/benchmarks/threads.md; see bench/runner/markdown_doc.py). Exit status 1
if a tool fails or a round trip differs.

The programs' inputs are generated here (seeded), so runs repeat; the
traces are capped per kind (CAPS), so each covers the start of a run.
tcgen and tcgen-threads are taken from --build (default: build/ beside this
script's folder), and so is the valgrind tool when --tool-dir is not given.
Runs with Debian's /usr/bin/python3 and its standard library only.
"""

import os
import random
import shutil
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "runner"))
sys.dont_write_bytecode = True  # no __pycache__ in the source tree

import compressors  # noqa: E402
import machine  # noqa: E402
import markdown_doc  # noqa: E402
import script  # noqa: E402
from script import REPO  # noqa: E402

PROG = "bench/threads.py"
die, _ = script.messages(PROG, error="")
steps = script.Steps(die)
run, same_files, packed_size = steps.run, steps.same_files, steps.packed_size
# Program -> (command, with INPUT for the input file; input generator, size).
# Each runs two worker threads or more on its input: xz and zstd in blocks
# small enough that both workers get some, sort on enough lines that it
# sorts in two threads.
PROGRAMS = {
    "xz": (["/usr/bin/xz", "-T2", "--block-size=32KiB", "-1", "-c", "INPUT"], "words", 1_000_000),
    "zstd": (["/usr/bin/zstd", "-T2", "-B512KiB", "-3", "-c", "INPUT"], "words", 4_000_000),
    "sort": (["/usr/bin/sort", "--parallel=2", "-S", "64M", "INPUT"], "keys", 200_000),
}
SCHEDULES = {"fair": ["--fair-sched=yes"], "default": []}
# Kind -> (tracer option, spec, records kept). The caps keep the bench to
# minutes: xz -9 is its slow part.
KINDS = {
    "branches": ("branches", "examples/x86_branches.tcg", 3_000_000),
    "champsim": ("champsim", "examples/champsim.tcg", 2_000_000),
    "stores": ("stores", "examples/x86_store_addresses.tcg", 3_000_000),
    "loads": ("loads", "examples/x86_load_values.tcg", 3_000_000),
    "misses": ("misses", "examples/x86_cache_misses.tcg", 1_000_000),
    "wet-flow": ("wet", None, 40_000_000),  # WET events; the flow: 20-23 M blocks here
}
DEFAULT_KINDS = ["branches", "champsim", "stores", "loads", "misses"]
QUICK_CAP = 20_000
HEADERS = {"branches": 4, "champsim": 0, "stores": 4, "loads": 4, "misses": 4, "wet-flow": 4}
RECORD = {"branches": 17, "champsim": 64, "stores": 12, "loads": 12, "misses": 12, "wet-flow": 4}
XZ = ["xz", "-9", "-T1", "-c"], ["xz", "-d", "-T1", "-c"]


def names(text, known, what):
    chosen = text.split(",")
    for name in chosen:
        if name not in known:
            die(f"unknown {what} '{name}' (known: {', '.join(known)})")
    return chosen


def parse_args(argv):
    p = script.argument_parser(PROG, "Multi-threaded traces coded per thread, against interleaved.", die)
    p.add_argument("--programs", default=",".join(PROGRAMS), help="comma-separated (default: xz,zstd,sort)")
    p.add_argument("--sched", default=",".join(SCHEDULES), help="comma-separated: fair, default (both)")
    p.add_argument("--kinds", default=",".join(DEFAULT_KINDS),
                   help="comma-separated (default: all five but wet-flow, the grammar of the --wet flow)")
    p.add_argument("--quick", action="store_true", help=f"tiny inputs, {QUICK_CAP} records a kind (for tests)")
    p.add_argument("--tool-dir", help="the tcgen-tracer tool directory (default: BUILD/tracer/lib)")
    script.add_build_option(p)
    p.add_argument("--work", help="directory for traces and compressed files (default BUILD/threads)")
    p.add_argument("--cxx", default="c++", help="the compiler of tcgen's output (default c++)")
    p.add_argument("--out", metavar="FILE", help="replace the bench/threads.py section of this Markdown file "
                   "(docs/benchmarks/threads.md)")
    p.add_argument("--section", default=PROG, type=markdown_doc.section_name,
                   help="the section --out replaces (default bench/threads.py)")
    args = p.parse_args(argv)
    args.programs = names(args.programs, PROGRAMS, "program")
    args.sched = names(args.sched, SCHEDULES, "scheduling")
    args.kinds = names(args.kinds, KINDS, "kind")
    args.work = args.work or os.path.join(args.build, "threads")
    args.tool_dir = args.tool_dir or os.path.join(args.build, "tracer", "lib")
    return args


def make_input(kind, size, quick, path):
    """A seeded input: lines of words from a vocabulary (for the
    compressors), or of random keys (for sort)."""
    rng = random.Random(size)
    if quick:
        size //= 20
    with open(path, "w") as f:
        if kind == "keys":
            for line in range(size):
                f.write(f"{rng.getrandbits(32):08x} {line}\n")
            return
        vocabulary = ["".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(rng.randint(2, 9)))
                      for _ in range(20000)]
        written = 0
        while written < size:
            line = " ".join(rng.choice(vocabulary) for _ in range(rng.randint(3, 12))) + "\n"
            f.write(line)
            written += len(line)



def trace(program, schedule, args, directory):
    """Traces PROGRAM under SCHEDULE into DIRECTORY: {kind: path}, the log."""
    command, generator, size = PROGRAMS[program]
    os.makedirs(directory, exist_ok=True)
    source = os.path.join(directory, "input")
    make_input(generator, size, args.quick, source)
    traces = {kind: os.path.join(directory, kind) for kind in args.kinds}
    log = os.path.join(directory, "log")
    options = list(SCHEDULES[schedule])
    for kind in args.kinds:
        option, _, cap = KINDS[kind]
        if kind == "wet-flow":  # --wet=PREFIX writes PREFIX.flow and the WET's other files
            traces[kind] = os.path.join(directory, "wet.flow")
            options += [f"--wet={os.path.join(directory, 'wet')}", f"--wet-max={QUICK_CAP if args.quick else cap}"]
            continue
        options += [f"--{option}={traces[kind]}", f"--{option}-max={QUICK_CAP if args.quick else cap}"]
    argv = ["valgrind", "--tool=tcgen-tracer", *options, f"--threads={log}",
            *[source if word == "INPUT" else word for word in command]]
    print(f"{PROG}: {program} ({schedule}): tracing ...", file=sys.stderr)
    env = dict(os.environ, VALGRIND_LIB=args.tool_dir, LC_ALL="C")
    with open(os.path.join(directory, "valgrind.log"), "wb") as messages:
        result = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=messages, env=env)
    if result.returncode != 0:
        die(f"tracing {program} failed; see {directory}/valgrind.log")
    for other in ("blocks", "nodes", "events", "edges"):  # the flow alone is measured
        if os.path.exists(os.path.join(directory, "wet." + other)):
            os.remove(os.path.join(directory, "wet." + other))
    return traces, log




def runs_within(log, kind_column, records):
    """How many of the log's runs hold records of the kind (start before
    its end), and of how many threads."""
    with open(log, "rb") as f:
        data = f.read()[4:]
    runs, threads = 0, set()
    for i in range(0, len(data), 68):
        start = int.from_bytes(data[i + 4 + 8 * kind_column:i + 12 + 8 * kind_column], "little")
        if start < records:
            runs += 1
            threads.add(int.from_bytes(data[i:i + 4], "little"))
    return runs, len(threads)


COLUMN = {"stores": 0, "misses": 1, "loads": 2, "champsim": 3, "branches": 4, "wet-flow": 5}


def grammar_size(wpp, path, work):
    """The size of the .wpp of the flow PATH, checked by expanding it."""
    grammar = os.path.join(work, "flow.wpp")
    expanded = os.path.join(work, "expanded")
    run([wpp, "build", path, grammar])
    with open(expanded, "wb") as sink:
        run([wpp, "expand", grammar], stdout=sink)
    same_files(path, expanded, "wpp build and expand")
    size = os.path.getsize(grammar)
    os.remove(grammar)
    os.remove(expanded)
    return size


def coded_size(coder, path, work):
    """PATH by the kind's coder: a tcgen compressor (compress, decompress),
    or for the flow the path of wpp."""
    return grammar_size(coder, path, work) if isinstance(coder, str) else packed_size(*coder, path, work)


def measure(program, schedule, kind, path, log, tool, built, work):
    split = os.path.join(work, "split")
    joined = os.path.join(work, "joined")
    shutil.rmtree(split, ignore_errors=True)
    print(f"{PROG}: {program} ({schedule}) {kind}: split, join, compress ...", file=sys.stderr)
    run([tool, "split", log, split, f"{kind}={path}"])
    run([tool, "join", log, split, kind, joined])
    same_files(path, joined, "split and join")
    os.remove(joined)
    parts = sorted(os.path.join(split, name) for name in os.listdir(split) if name.startswith(kind + ".t"))
    records = (os.path.getsize(path) - HEADERS[kind]) // RECORD[kind]
    runs, threads = runs_within(log, COLUMN[kind], records)
    row = {
        "program": program, "schedule": schedule, "kind": kind, "records": records, "runs": runs,
        "threads": threads, "raw": os.path.getsize(path),
        "xz": packed_size(*XZ, path, work),
        "tcgen": coded_size(built[kind], path, work),
        "xz_split": sum(packed_size(*XZ, part, work) for part in parts),
        "tcgen_split": sum(coded_size(built[kind], part, work) for part in parts),
    }
    shutil.rmtree(split)
    return row


def report(rows, logs, args, argv):
    out = [f"### Measured (`{PROG}`, {time.strftime('%Y-%m-%d')})\n",
           f"    {markdown_doc.command_line(PROG, argv)}\n"]
    items = machine.describe(REPO, os.path.join(args.build, "generator", "tcgen"), args.cxx, [])
    out.append("Machine: " + "; ".join(f"{label} {value}" for label, value in items) + ".\n")
    caps = ", ".join(f"{kind} {QUICK_CAP if args.quick else KINDS[kind][2]:,}"
                     + (" WET events" if kind == "wet-flow" else "") for kind in args.kinds)
    commands = "; ".join(f"`{' '.join(os.path.basename(w) if w.startswith('/') else w for w in PROGRAMS[p][0])}`"
                         for p in args.programs)
    out.append(f"Traces: `tcgen-tracer --threads=LOG` with every kind at once, records kept: {caps} "
               f"(the first of the run); programs: {commands} (INPUT: seeded text generated by the script); "
               "fair = `--fair-sched=yes`, default = valgrind's scheduling. Runs = the log's runs that hold "
               "records of the kind (each a stretch of one thread); interleaved = the tracer's file, "
               "per thread = `tcgen-threads split`'s files, each compressed on its own, sizes summed; "
               "tcgen = the kind's shipped spec (examples/x86_*.tcg, examples/champsim.tcg), default level; "
               "for wet-flow (the `--wet` block-id flow), the `.wpp` of `wpp build` (its SEQUITUR grammar) "
               "instead; "
               "log = the thread log by `xz -9`, added to each per-thread figure (join needs it). "
               "Gain = interleaved tcgen against per-thread tcgen + log. Every file was rebuilt byte for byte "
               "(join, and each decompressor) before it was counted.\n")
    out.append("| program | sched | kind | records | runs | threads | raw | xz -9 interleaved | "
               "xz -9 per thread + log | tcgen interleaved | tcgen per thread + log | gain |")
    out.append("|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    totals = {key: 0 for key in ("raw", "xz", "xz_split", "tcgen", "tcgen_split")}
    for row in rows:
        log = logs[(row["program"], row["schedule"])]
        xz_split = row["xz_split"] + log
        tcgen_split = row["tcgen_split"] + log
        for key in ("raw", "xz", "tcgen"):
            totals[key] += row[key]
        totals["xz_split"] += xz_split
        totals["tcgen_split"] += tcgen_split
        out.append(f"| {row['program']} | {row['schedule']} | {row['kind']} | {row['records']:,} | "
                   f"{row['runs']:,} | {row['threads']} | {row['raw']:,} | {row['xz']:,} | {xz_split:,} | "
                   f"{row['tcgen']:,} | {tcgen_split:,} | {gain(row['tcgen'], tcgen_split)} |")
    out.append(f"| total | | | | | | {totals['raw']:,} | {totals['xz']:,} | {totals['xz_split']:,} | "
               f"{totals['tcgen']:,} | {totals['tcgen_split']:,} | {gain(totals['tcgen'], totals['tcgen_split'])} |")
    out.append("")
    out.append("Thread logs (`xz -9`): " + "; ".join(f"{p} ({s}) {size:,} bytes"
                                                   for (p, s), size in logs.items()) + ".")
    return "\n".join(out) + "\n"


def gain(before, after):
    return f"{100.0 * (before - after) / before:.1f} %" if before else "–"


def main(argv):
    args = parse_args(argv)
    tcgen = os.path.join(args.build, "generator", "tcgen")
    tool = os.path.join(args.build, "tracer", "tcgen-threads")
    script.require_built([(tcgen, "tcgen"), (tool, "tcgen-threads"),
                          (os.path.join(args.tool_dir, "tcgen-tracer-amd64-linux"), "tcgen-tracer")], args.build, die)
    bindir = os.path.join(args.work, "bin")
    os.makedirs(bindir, exist_ok=True)
    built = {}
    with open(os.path.join(args.work, "build.log"), "w") as messages:
        for kind in args.kinds:
            spec = KINDS[kind][1]
            if spec is None:  # the flow's grammar: wpp
                built[kind] = os.path.join(args.build, "wpp", "wpp")
                if not os.access(built[kind], os.X_OK):
                    die(f"no {built[kind]} (cmake --build {args.build} --target wpp)")
                continue
            try:
                compressor = compressors.build_tcgen("tcgen-" + kind, spec, REPO, tcgen, bindir, args.cxx, messages)
            except subprocess.CalledProcessError:
                die(f"building {spec}'s compressor failed; see {args.work}/build.log")
            built[kind] = (compressor.compress, compressor.decompress)
    rows, logs = [], {}
    for program in args.programs:
        for schedule in args.sched:
            directory = os.path.join(args.work, f"{program}-{schedule}")
            traces, log = trace(program, schedule, args, directory)
            logs[(program, schedule)] = packed_size(*XZ, log, args.work)
            for kind in args.kinds:
                rows.append(measure(program, schedule, kind, traces[kind], log, tool, built, args.work))
                os.remove(traces[kind])
    text = report(rows, logs, args, argv)
    print(text)
    if args.out:
        markdown_doc.write_section(args.out, args.section, text)


if __name__ == "__main__":
    main(sys.argv[1:])
