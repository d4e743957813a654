#!/usr/bin/python3
"""bench/wet.py: whole WETs of the corpus programs, in the WET paper's tables.

    bench/wet.py [--corpus=DIR] [--wet-max=N] [--programs=P1,P2] [--long] [--jobs=N]
                 [--long-trace-pcs=N] [--long-slice-items=N]
                 [--tool-dir=DIR] [--build=DIR] [--work=DIR] [--slices=N]
                 [--seeks=N] [--no-xz] [--out=FILE] [--section=NAME]

Makes sure each program's WET files exist (bench/corpus.sh --wet-only with
--wet-max=N events, default 40,000,000: 50 M instructions or more; DIR
defaults to bench/corpus.sh's directory plus `/wet-N`), then per program:
builds the WET (`wet build`, CPU time and peak memory), reads its sizes per
label type (`wet stats`), compresses the same raw labels in execution order
with `xz -9 -T1` (the control flow, values, addresses, and the edges'
⟨t_use, t_def⟩ pairs), and times the paper's queries on the saved WET
(wet-query-bench: control flow both ways, every instruction's access trace,
seeks, backward slices). --long adds a billion-instruction run (cc1
compiling the tracer's wet.c, 1.17 G instructions) through `wet run`,
its access traces timed on a sample of instructions and its slices
stopped at N items (--long-trace-pcs, --long-slice-items).
Prints Markdown tables shaped as the paper's
Tables I, II/III, V-VIII with the paper's averages beside them, and whether
the WET's goals are met (reported, never asserted); --out=FILE replaces the
bench/wet.py section of FILE (docs/benchmarks/wet.md), or section NAME with
--section=NAME. Exit status 1 if a tool
fails. Runs with Debian's /usr/bin/python3 and its standard library only.
"""

import os
import re
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "runner"))
sys.dont_write_bytecode = True  # no __pycache__ in the source tree

import machine  # noqa: E402
import markdown_doc  # noqa: E402
import script  # noqa: E402
from script import BENCH, REPO  # noqa: E402

PROG = "bench/wet.py"
die, _ = script.messages(PROG, error="")
PROGRAMS = ["bzip2", "gzip", "xz", "sort", "sqlite3", "python3", "perl", "cc1"]

# The billion-instruction run (--long): cc1 -O2 compiling the tracer's wet.c
# (after tracer.h, as one translation unit, as bench/corpus.sh's hard set
# compiles all of the tracer): a whole run of 1.17 G instructions, traced
# and built by `wet run`, so that its 17 GB of raw labels are never on disk.
LONG_RUN = "cc1, whole run"
LONG_RUN_SOURCES = ["tracer/valgrind/tracer.h", "tracer/valgrind/wet.c"]
LONG_RUN_COMMAND = ["/usr/lib/gcc/x86_64-linux-gnu/12/cc1", "-quiet", "-O2", "-fno-strict-aliasing", "-fno-builtin",
                    "-fno-stack-protector", "-fno-omit-frame-pointer", "-I/usr/include/valgrind", "-DVGA_amd64=1",
                    "-DVGO_linux=1", "-DVGP_amd64_linux=1", "-DVGPV_amd64_linux_vanilla=1", "-", "-o", "/dev/null"]

# The paper's averages (Zhang & Gupta 2005, Tables I-III, V, VIII) and the
# issue's goals, printed beside the measurements.
PAPER_OVERALL = 41.33
PAPER_NODE_TIMESTAMPS = 230.99
PAPER_VALUES = 11.51
PAPER_EDGES = 130.31
GOAL_RESIDENT = 1.2          # resident ÷ saved
GOAL_LABELS_PER_S = 50e6     # control flow, each direction
GOAL_SEEK_S = 100e-6
GOAL_BUILD_BYTES = 1e9       # `wet build`'s peak resident memory


def run(argv, **kwargs):
    result = subprocess.run(argv, capture_output=True, **kwargs)
    if result.returncode != 0:
        die(f"{' '.join(argv)} failed: {result.stderr.decode(errors='replace').strip()}")
    return result


def run_measured(argv):
    """Runs argv; returns (CPU seconds, peak resident bytes) of the child."""
    process = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    stderr = process.stderr.read()
    _, status, usage = os.wait4(process.pid, 0)
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode != 0:
        die(f"{' '.join(argv)} failed: {stderr.decode(errors='replace').strip()}")
    return usage.ru_utime + usage.ru_stime, usage.ru_maxrss * 1024


def parse_args(argv):
    p = script.argument_parser(PROG, "Whole WETs of the corpus programs, in the WET paper's tables.", die)
    p.add_argument("--corpus", metavar="DIR", help="bench/corpus.sh's --dir (default: its default plus /wet-N)")
    p.add_argument("--wet-max", type=int, default=40000000, metavar="N",
                   help="events per WET, bench/corpus.sh's --wet-max (default 40000000; 0: whole runs)")
    p.add_argument("--programs", help="comma-separated corpus programs (default: all eight; empty: none)")
    p.add_argument("--long", action="store_true",
                   help=f"also the billion-instruction run ({LONG_RUN}), through `wet run`")
    p.add_argument("--jobs", default="1", help="bench/corpus.sh's --jobs (default 1)")
    p.add_argument("--tool-dir", help="bench/corpus.sh's --tool-dir (default: BUILD/tracer/lib)")
    script.add_build_option(p)
    p.add_argument("--work", help="directory for the saved WETs (default BUILD/wet-whole)")
    p.add_argument("--slices", type=int, default=25, help="backward slices per program (default 25, as the paper)")
    p.add_argument("--seeks", type=int, default=101, help="control-flow seeks per program (default 101)")
    p.add_argument("--long-trace-pcs", type=int, default=5000, metavar="N",
                   help="the long run's access traces: of N loads and N stores taken at random (default 5000)")
    p.add_argument("--long-slice-items", type=int, default=20000000, metavar="N",
                   help="the long run's slices: each stopped at N items (default 20,000,000)")
    p.add_argument("--no-xz", action="store_true", help="skip xz -9 on the raw labels")
    p.add_argument("--out", metavar="FILE", help="replace the bench/wet.py section of this Markdown file "
                   "(docs/benchmarks/wet.md)")
    p.add_argument("--section", default="bench/wet.py", type=markdown_doc.section_name,
                   help="the section --out replaces (default bench/wet.py)")
    args = p.parse_args(argv)
    args.programs = PROGRAMS if args.programs is None else [p for p in args.programs.split(",") if p]
    if not args.programs and not args.long:
        die("nothing to measure: no --programs and no --long")
    for program in args.programs:
        if program not in PROGRAMS:
            die(f"unknown program '{program}' (known: {', '.join(PROGRAMS)})")
    if args.corpus is None:
        base = os.path.join(os.environ.get("XDG_CACHE_HOME", os.path.expanduser("~/.cache")), "tcgen-corpus")
        args.corpus = os.path.join(base, f"wet-{args.wet_max}")
    args.work = args.work or os.path.join(args.build, "wet-whole")
    return args


def make_corpus(args):
    argv = [os.path.join(BENCH, "corpus.sh"), "--wet-only", f"--wet-max={args.wet_max}", f"--dir={args.corpus}",
            f"--programs={','.join(args.programs)}", f"--jobs={args.jobs}"]
    if args.tool_dir:
        argv.append(f"--tool-dir={args.tool_dir}")
    result = subprocess.run(argv, stdout=subprocess.DEVNULL)
    if result.returncode != 0:
        die("bench/corpus.sh failed (see its message above)")


def stats_rows(wet, path):
    """`wet stats` as {label: (count, raw, compressed, memory)}."""
    rows = {}
    for line in run([wet, "stats", path]).stdout.decode().splitlines()[1:]:
        words = line.split()
        name = " ".join(words[:-5])
        rows[name] = tuple(int(word) for word in words[-5:-2]) + (int(words[-1]),)
    return rows


def raw_labels(prefix):
    """The raw labels xz compresses, in execution order, as bytes."""
    with open(prefix + ".flow", "rb") as f:
        flow = f.read()[4:]
    with open(prefix + ".events", "rb") as f:
        events = memoryview(f.read()[4:]).cast("Q")  # per event: node|t, address, value
    with open(prefix + ".edges", "rb") as f:
        edges = memoryview(f.read()[4:]).cast("Q")   # per edge: use|def, t_use|t_def
    return {
        "control flow": flow,
        "addresses": events[1::3].tobytes(),
        "values": events[2::3].tobytes(),
        "data dependences": edges[1::2].tobytes(),
    }


def xz_size(data):
    result = subprocess.run(["xz", "-9", "-T1", "-c"], input=data, capture_output=True)
    if result.returncode != 0:
        die(f"xz failed: {result.stderr.decode(errors='replace').strip()}")
    return len(result.stdout)


def query_bench(binary, path, args, bounds=()):
    line = run([binary, path, f"--slices={args.slices}", f"--seeks={args.seeks}", *bounds]).stdout.decode()
    return {key: float(value) for key, value in (item.split("=", 1) for item in line.split())}


def measure(program, args, binaries):
    prefix = os.path.join(args.corpus, f"{program}.wet")
    saved = os.path.join(args.work, f"{program}.wet")
    print(f"{PROG}: {program}: building the WET ...", file=sys.stderr)
    build_s, build_rss = run_measured([binaries["wet"], "build", prefix, saved])
    row = {"program": program, "build_s": build_s, "build_rss": build_rss,
           "saved_bytes": os.path.getsize(saved), "stats": stats_rows(binaries["wet"], saved)}
    print(f"{PROG}: {program}: timing the queries ...", file=sys.stderr)
    row["queries"] = query_bench(binaries["query"], saved, args)
    row["xz"] = {}
    if not args.no_xz:
        print(f"{PROG}: {program}: xz -9 on the raw labels ...", file=sys.stderr)
        for label, data in raw_labels(prefix).items():
            row["xz"][label] = xz_size(data)
    return row


def measure_long(args, binaries):
    """The billion-instruction run: traced and built at once by `wet run`
    on every core; its build CPU and peak memory are wet's own, as it
    prints them (the tracer's not counted), and it has no xz column (no raw
    labels on disk)."""
    source = os.path.join(args.work, "long-run.c")
    with open(source, "w") as out:
        for name in LONG_RUN_SOURCES:
            with open(os.path.join(REPO, name)) as f:
                out.writelines(line for line in f if line.strip() != '#include "tracer.h"')
    saved = os.path.join(args.work, "cc1-whole.wet")
    print(f"{PROG}: {LONG_RUN}: tracing and building the WET ...", file=sys.stderr)
    with open(source, "rb") as stdin:
        result = run([binaries["wet"], "run", "-T", "0", saved, "--", *LONG_RUN_COMMAND], stdin=stdin)
    built = re.search(r"in ([\d.]+) s, CPU ([\d.]+) s, peak memory (\d+) MB$", result.stderr.decode().strip())
    if not built:
        die(f"wet run: no build line in its output: {result.stderr.decode(errors='replace').strip()[-300:]}")
    row = {"program": LONG_RUN, "build_s": float(built.group(2)), "build_rss": int(built.group(3)) * 1e6,
           "build_wall_s": float(built.group(1)), "saved_bytes": os.path.getsize(saved),
           "stats": stats_rows(binaries["wet"], saved), "xz": {}}
    print(f"{PROG}: {LONG_RUN}: timing the queries ...", file=sys.stderr)
    row["queries"] = query_bench(binaries["query"], saved, args,
                                 [f"--trace-pcs={args.long_trace_pcs}", f"--slice-items={args.long_slice_items}"])
    return row


def ratio(raw, packed):
    return f"{raw / packed:.1f}" if packed else "–"


def per_second(count, seconds, scale=1e6, digits=1):
    """count / seconds in units of `scale`, or – for a time the clock did not see."""
    return f"{count / seconds / scale:.{digits}f}" if seconds > 0 else "–"


def mb(nbytes):
    return f"{nbytes / 1e6:,.1f}"


def report(rows, args, argv, items):
    out = [f"### Measured (`bench/wet.py`, {time.strftime('%Y-%m-%d')})\n",
           f"    {markdown_doc.command_line(PROG, argv)}\n"]
    out.append("Machine: " + "; ".join(f"{label} {value}" for label, value in items
                                        if label not in ("compiler",)) + ".\n")
    out.append(f"Runs: each program of the regular corpus (bench/corpus.sh) traced by `tcgen-tracer --wet` from "
               f"its start until {args.wet_max:,} loads and stores (0: the whole run). Raw bytes count the "
               f"labels as the paper counts its Orig. WET (docs/wet.md: 4 per timestamp, 8 per value, "
               f"address or dependence); saved = the `.wet` file; xz = `xz -9 -T1` on the same raw labels in "
               f"execution order. Times on the CPU clock of one thread.\n")
    if args.long:
        out.append(f"The billion-instruction run, *{LONG_RUN}*: cc1 -O2 compiling the tracer's wet.c (after tracer.h, "
                   "as one translation unit), traced and built at once by `wet run -T 0` (a thread per core), its "
                   "raw labels never on disk; its build CPU (of every thread) and peak memory are `wet`'s own (the "
                   "tracer's not counted), and it has no xz column.\n")

    out.append("#### WET sizes (the paper's Table I)\n")
    out.append("| program | instructions (M) | blocks executed (M) | loads and stores (M) | raw WET (MB) | "
               "saved (MB) | raw ÷ saved |")
    out.append("|---|---:|---:|---:|---:|---:|---:|")
    ratios = []
    # Loads and stores: one value each (`wet stats`); the access traces
    # count only the instructions they sample on a long run.
    for r in rows:
        total = r["stats"]["total"]
        q = r["queries"]
        ratios.append(total[1] / r["saved_bytes"])
        out.append(f"| {r['program']} | {q['instructions'] / 1e6:,.1f} | {q['executed'] / 1e6:,.2f} | "
                   f"{r['stats']['values'][0] / 1e6:,.2f} | {mb(total[1])} | {mb(r['saved_bytes'])} | "
                   f"{ratios[-1]:.1f} |")
    out.append(f"| **mean** | | | | | | **{statistics.mean(ratios):.1f}** (paper: {PAPER_OVERALL}) |\n")

    labels = ["control flow", "block timestamps", "node timestamps", "values", "addresses",
              "data dependences", "control dependences", "register dataflow"]
    out.append("#### Raw ÷ compressed per label type (the paper's Tables II and III), xz -9 in brackets\n")
    out.append("| program | " + " | ".join(labels) + " |")
    out.append("|---|" + "---:|" * len(labels))
    means = {label: [] for label in labels}
    for r in rows:
        cells = []
        for label in labels:
            count, raw, compressed, _ = r["stats"][label]
            means[label].append(raw / compressed if compressed else 0)
            cell = ratio(raw, compressed)
            if label in r["xz"]:
                cell += f" ({ratio(raw, r['xz'][label])})"
            cells.append(cell)
        out.append(f"| {r['program']} | " + " | ".join(cells) + " |")
    out.append("| **mean** | " + " | ".join(f"**{statistics.mean(means[l]):.1f}**" for l in labels) + " |")
    out.append(f"| paper (mean) | | {PAPER_NODE_TIMESTAMPS} | | {PAPER_VALUES} | | "
               f"{PAPER_EDGES} | | |\n")

    out.append("#### Memory and build\n")
    out.append("| program | saved (MB) | resident after load (MB) | resident ÷ saved | memory_bytes() (MB) | "
               "code pages touched (MB) | build CPU s | build peak RSS (MB) |")
    out.append("|---|---:|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        q = r["queries"]
        out.append(f"| {r['program']} | {mb(r['saved_bytes'])} | {mb(q['resident_bytes'])} | "
                   f"{q['resident_bytes'] / r['saved_bytes']:.2f} | {mb(q['memory_bytes'])} | "
                   f"{mb(q['code_pages_bytes'])} | {r['build_s']:.1f} | {mb(r['build_rss'])} |")
    out.append("\nResident after load: the heap pages the load added (RssAnon); the code pages column is the "
               "program's and its libraries' code and read-only data the load touched first (RssFile), the same for "
               "any WET and shared with other processes.\n")

    out.append("#### Queries (the paper's Tables V-VIII)\n")
    out.append("| program | control flow forward (M blocks/s) | backward (M blocks/s) | every load's trace "
               "(M accesses/s) | every store's trace (M accesses/s) | seek, median (µs) | "
               f"slice, median (ms) | slice, slowest (ms) | slice items, median |")
    out.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        q = r["queries"]
        out.append(f"| {r['program']} | {per_second(q['executed'], q['cf_forward_s'])} | "
                   f"{per_second(q['executed'], q['cf_backward_s'])} | "
                   f"{per_second(q['L_accesses'], q['L_s'], digits=2)} | "
                   f"{per_second(q['S_accesses'], q['S_s'], digits=2)} | {q['seek_median_s'] * 1e6:,.0f} | "
                   f"{q['slice_median_s'] * 1e3:,.1f} | {q['slice_max_s'] * 1e3:,.0f} | "
                   f"{q['slice_items_median']:,.0f} |")
    for r in rows:
        q = r["queries"]
        if q.get("slice_items_cap"):
            out.append(f"\n{r['program']}: the access traces of {q['L_pcs']:,.0f} loads and {q['S_pcs']:,.0f} "
                       f"stores taken at random (a fixed seed), the slices each stopped at "
                       f"{q['slice_items_cap']:,.0f} items (`wet slice --count`): a run this long is not queried "
                       "whole in a bench's time.")
    out.append(f"\nSlices: {args.slices} per program from random executions of random loads (fixed seed). "
               "The paper's averages: control flow 126–148 MB/s of raw timestamps (31–37 M blocks/s), load "
               "values 1.6 MB/s, addresses 1.3 MB/s, a slice 91 s on 127 M statements.\n")

    out.append("#### Goals\n")
    cf = [r["queries"]["executed"] / max(r["queries"]["cf_forward_s"], r["queries"]["cf_backward_s"], 1e-9)
          for r in rows]
    resident = [r["queries"]["resident_bytes"] / r["saved_bytes"] for r in rows]
    seeks = [r["queries"]["seek_median_s"] for r in rows]
    peaks = [r["build_rss"] for r in rows]
    values = [(r["stats"]["values"][2], r["xz"].get("values")) for r in rows]
    measured_values = [(r["program"], v) for r, v in zip(rows, values) if v[1]]
    goals = [
        (f"overall ratio ≥ {PAPER_OVERALL}", f"mean {statistics.mean(ratios):.1f}",
         statistics.mean(ratios) >= PAPER_OVERALL),
        ("values ≥ xz -9 on the same raw values (WET ÷ xz bytes)",
         ", ".join(f"{program} {v[0] / v[1]:.2f}×" for program, v in measured_values) or "not measured (--no-xz)",
         all(v[0] <= v[1] for _, v in measured_values) if measured_values else None),
        (f"resident ≤ {GOAL_RESIDENT}× saved", f"{min(resident):.2f}–{max(resident):.2f}×",
         max(resident) <= GOAL_RESIDENT),
        ("control flow ≥ 50 M labels/s both ways", f"{min(cf) / 1e6:.1f}–{max(cf) / 1e6:.1f} M/s",
         min(cf) >= GOAL_LABELS_PER_S),
        ("seek anywhere < 100 µs", f"median {statistics.median(seeks) * 1e6:,.0f} µs",
         max(seeks) < GOAL_SEEK_S),
        (f"build peak ≤ {GOAL_BUILD_BYTES / 1e9:.0f} GB whatever the run's length",
         f"{min(peaks) / 1e6:,.0f}–{max(peaks) / 1e6:,.0f} MB", max(peaks) <= GOAL_BUILD_BYTES),
    ]
    out.append("| goal | measured | met |")
    out.append("|---|---|---|")
    for goal, measured, met in goals:
        out.append(f"| {goal} | {measured} | {'–' if met is None else 'yes' if met else '**no**'} |")
    return "\n".join(out) + "\n"


def main(argv):
    args = parse_args(argv)
    binaries = {"wet": os.path.join(args.build, "wet", "wet"),
                "query": os.path.join(args.build, "bench", "wet-query-bench")}
    script.require_built([(binaries["wet"], "wet"), (binaries["query"], "wet-query-bench")], args.build, die)
    os.makedirs(args.work, exist_ok=True)
    # The machine and the commit as the run starts: a long run's tree may
    # move on before it ends.
    items = machine.describe(REPO, os.path.join(args.build, "generator", "tcgen"), "c++", [])
    if args.programs:
        make_corpus(args)
    rows = [measure(program, args, binaries) for program in args.programs]
    if args.long:
        rows.append(measure_long(args, binaries))
    text = report(rows, args, argv, items)
    print(text)
    if args.out:
        markdown_doc.write_section(args.out, args.section, text)
        print(f"{PROG}: wrote the {args.section} section of {args.out}", file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv[1:])
