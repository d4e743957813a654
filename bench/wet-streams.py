#!/usr/bin/python3
"""bench/wet-streams.py: measure libtcgen_wet on the WET streams of the corpus programs.

    bench/wet-streams.py [--corpus=DIR] [--runs=N] [--nodes=K] [--edges=K] [--out=FILE]
              [--programs=P1,P2] [--quick] [--jobs=N] [--tool-dir=DIR]
              [--build=DIR] [--work=DIR] [--seeks=N] [--cxx=CXX]

Makes sure the corpus's WET sets exist (bench/corpus.sh --wet, given --corpus as
its --dir and --programs, --quick, --jobs, --tool-dir as they are), cuts each
program's set into the raw streams of its K hottest nodes and edges
(bench/wet-split.py), and measures every stream three ways: the bidirectional
library's saved form and its walks and seeks (wet-bench, medians of --runs),
tcgen's ordinary compressor of the same spec (`tcgen specs/wet/KIND.tcg`,
built with c++ -O3, its .tcz checked by decompressing), and xz -9. Prints a
Markdown table per stream kind, totals, and whether the library meets its
goals (reported, never asserted); --out=FILE replaces the bench/wet-streams.py
section of FILE (docs/benchmarks/wet-streams.md; see bench/runner/markdown_doc.py).
Per-stream figures go to WORK/streams.tsv. Exit status 1 if a tool fails or a round trip differs.

tcgen and wet-bench are taken from --build (default: build/ beside this
script's folder), and so is the valgrind tool when --tool-dir is not given.
Runs with Debian's /usr/bin/python3 and its standard library only.
"""

import collections
import datetime
import os
import platform
import shlex
import statistics
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "runner"))
sys.dont_write_bytecode = True  # no __pycache__ in the source tree

import compressors  # noqa: E402
import markdown_doc  # noqa: E402
import script  # noqa: E402
from script import BENCH, REPO  # noqa: E402

PROG = "bench/wet-streams.py"
die, _ = script.messages(PROG)

# wet-split's stream names -> the spec (and wet-bench kind) of each, in the
# order the report shows them, with what one record holds.
KINDS = collections.OrderedDict([
    ("node_timestamps", ("timestamps", "one u32 timestamp per execution of a node")),
    ("node_values", ("values", "one u64 value per execution of a node")),
    ("edge_timestamps", ("pairs", "two u32 timestamps ⟨t_use, t_def⟩ per dependence")),
])
STREAM_KIND = {stream: kind for kind, (stream, _) in KINDS.items()}

# The WET library's goals.
SIZE_GOAL = 1.3        # saved form at most this times the .tcz
SPEED_GOAL = 50.0      # M values/s, each direction
BALANCE_GOAL = 0.8     # backward at least this times forward
SEEK_GOAL_US = 1000.0  # median seek latency of a stream


def run(argv, **kwargs):
    """Runs ARGV; a failure is fatal, with the tool's own message."""
    result = subprocess.run(argv, capture_output=True, **kwargs)
    if result.returncode != 0:
        err = result.stderr.decode(errors="replace").strip().splitlines()
        die(f"{shlex.join(argv)} failed (exit {result.returncode})" + (f": {err[-1]}" if err else ""))
    return result


def parse_args(argv):
    p = script.argument_parser(PROG, __doc__.split("\n\n", 2)[2], die)
    p.add_argument("--corpus", metavar="DIR", help="bench/corpus.sh's --dir (default: its default)")
    p.add_argument("--runs", type=int, default=3, help="runs per stream, medians reported (default 3)")
    p.add_argument("--seeks", type=int, default=101, help="random seeks per stream (default 101)")
    p.add_argument("--nodes", type=int, default=10, metavar="K",
                   help="streams of the K nodes with the most events per program (default 10)")
    p.add_argument("--edges", type=int, default=10, metavar="K",
                   help="streams of the K edges with the most dependences per program (default 10)")
    p.add_argument("--out", metavar="FILE", help="replace the bench/wet-streams.py section of this Markdown file "
                   "(docs/benchmarks/wet-streams.md)")
    p.add_argument("--programs", help="bench/corpus.sh's --programs")
    p.add_argument("--quick", action="store_true", help="bench/corpus.sh's --quick (small WET sets)")
    p.add_argument("--jobs", help="bench/corpus.sh's --jobs")
    p.add_argument("--tool-dir", help="bench/corpus.sh's --tool-dir (default: BUILD/tracer/lib)")
    script.add_build_option(p, "the build directory, holding generator/tcgen and bench/wet-bench")
    p.add_argument("--work", help="directory for the streams and compressors (default BUILD/wet-bench)")
    p.add_argument("--cxx", default=os.environ.get("CXX", "c++"),
                   help="C++ compiler for the ordinary compressors (default $CXX or c++; always -O3)")
    args = p.parse_args(argv)
    if args.runs < 1 or args.seeks < 1 or args.nodes < 0 or args.edges < 0:
        die("--runs and --seeks must be >= 1, --nodes and --edges >= 0")
    return args


def make_corpus(args, build):
    """Runs bench/corpus.sh --wet; returns the corpus directory (with /quick)."""
    argv = [os.path.join(BENCH, "corpus.sh"), "--wet"]
    if args.corpus:
        argv.append("--dir=" + args.corpus)
    for name in ("programs", "jobs"):
        if getattr(args, name):
            argv.append(f"--{name}={getattr(args, name)}")
    if args.quick:
        argv.append("--quick")
    tool_dir = args.tool_dir or os.path.join(build, "tracer", "lib")
    if args.tool_dir or os.path.exists(os.path.join(tool_dir, "tcgen-tracer-amd64-linux")):
        argv.append("--tool-dir=" + tool_dir)
    print(f"{PROG}: {shlex.join(argv)}", file=sys.stderr)
    result = subprocess.run(argv, stdout=subprocess.DEVNULL)
    if result.returncode != 0:
        die("bench/corpus.sh --wet failed")
    corpus = args.corpus or os.path.join(os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"),
                                         "tcgen-corpus")
    corpus = corpus.rstrip("/") or "/"
    return os.path.join(corpus, "quick") if args.quick else corpus


def wet_sets(corpus, programs):
    """[(program, prefix)] from DIR/wet-manifest.tsv, in its order."""
    path = os.path.join(corpus, "wet-manifest.tsv")
    try:
        with open(path, encoding="utf-8") as f:
            lines = f.read().splitlines()
    except OSError as e:
        die(f"cannot read {path}: {e.strerror}")
    sets = []
    for line in lines[1:]:
        kind, program, file = line.split("\t")[:3]
        if kind == "wet-nodes" and (not programs or program in programs):
            sets.append((program, file[:-len(".nodes")]))
    if not sets:
        die(f"{path} lists no WET sets")
    return sets


def build_compressors(tcgen, cxx, work):
    """The ordinary compressor of each spec, built as bench/run.py builds its."""
    binaries = {}
    for kind in KINDS:
        source = os.path.join(work, f"{kind}.cpp")
        binary = os.path.join(work, kind)
        run([tcgen, "-o", source, os.path.join(REPO, "specs", "wet", f"{kind}.tcg")])
        run(compressors.compile_generated(source, binary, cxx))
        binaries[kind] = binary
    return binaries


def split(program, prefix, work, nodes, edges):
    """bench/wet-split.py into WORK/PROGRAM; [(file, kind, records)]."""
    out = os.path.join(work, program)
    run([os.path.join(BENCH, "wet-split.py"), f"--nodes={nodes}", f"--edges={edges}", f"--out={out}", prefix])
    with open(os.path.join(out, "index.tsv"), encoding="utf-8") as f:
        rows = [line.split("\t") for line in f.read().splitlines()[1:]]
    return [(os.path.join(out, row[0]), STREAM_KIND[row[1]], int(row[2])) for row in rows]


def tcz_bytes(compressor, path):
    with open(path, "rb") as f:
        raw = f.read()
    packed = run([compressor], input=raw).stdout
    if run([compressor, "-d"], input=packed).stdout != raw:
        die(f"{compressor}: the .tcz of {path} does not decompress to it")
    return len(packed)


def xz_bytes(path):
    return len(run(["xz", "-9", "-T1", "-c", path]).stdout)


def wet_bench(binary, kind, path, runs, seeks):
    line = run([binary, kind, path, f"--runs={runs}", f"--seeks={seeks}"]).stdout.decode()
    fields = dict(item.split("=", 1) for item in line.rstrip("\n").split("\t"))
    if fields.get("verified") != "yes":
        die(f"wet-bench {kind} {path}: not verified")
    return fields


def measure_stream(program, path, kind, binaries, args, wet_bench_binary):
    b = wet_bench(wet_bench_binary, kind, path, args.runs, args.seeks)
    return {
        "program": program, "kind": kind, "file": path,
        "records": int(b["records"]), "values": int(b["values"]), "raw": int(b["raw_bytes"]),
        "saved": int(b["saved_bytes"]), "compressed_bits": int(b["compressed_bits"]),
        "memory": int(b["memory_bytes"]), "tcz": tcz_bytes(binaries[kind], path), "xz": xz_bytes(path),
        "forward": float(b["forward_mvalues_s"]), "backward": float(b["backward_mvalues_s"]),
        "forward_cpu": float(b["forward_cpu_mvalues_s"]), "backward_cpu": float(b["backward_cpu_mvalues_s"]),
        "seek_us": float(b["seek_median_us"]), "seek_cpu_us": float(b["seek_cpu_median_us"]), "seek_distance": float(b["seek_mean_distance"]),
        "build_s": float(b["build_s"]), "build_type": b["build_type"], "description": b["description"],
    }


STREAM_COLUMNS = ("program", "kind", "file", "records", "values", "raw", "saved", "compressed_bits", "memory",
                  "tcz", "xz", "forward", "backward", "forward_cpu", "backward_cpu", "seek_us", "seek_cpu_us",
                  "seek_distance", "build_s", "description")


def write_streams_tsv(path, rows):
    with open(path, "w", encoding="utf-8") as f:
        f.write("\t".join(STREAM_COLUMNS) + "\n")
        for row in rows:
            f.write("\t".join(str(row[c]) for c in STREAM_COLUMNS) + "\n")


# --- aggregation -------------------------------------------------------------

def aggregate(rows):
    """Sizes summed, speeds as total values over total time, seeks as the
    median and the worst of the streams' medians."""
    values = sum(r["values"] for r in rows)
    agg = {"streams": len(rows), "values": values}
    for key in ("raw", "saved", "compressed_bits", "memory", "tcz", "xz"):
        agg[key] = sum(r[key] for r in rows)
    for key in ("forward", "backward", "forward_cpu", "backward_cpu"):
        seconds = sum(r["values"] / r[key] for r in rows if r[key] > 0)
        agg[key] = values / seconds if seconds else 0.0
    seeks = [r["seek_us"] for r in rows]
    agg["seek_median"] = statistics.median(seeks) if seeks else 0.0
    agg["seek_cpu_median"] = statistics.median(r["seek_cpu_us"] for r in rows) if rows else 0.0
    agg["seek_worst"] = max(seeks) if seeks else 0.0
    agg["seek_ok"] = sum(s < SEEK_GOAL_US for s in seeks)
    agg["size_ok"] = sum(r["saved"] <= SIZE_GOAL * r["tcz"] for r in rows)
    agg["bytes_per_value"] = agg["raw"] / values if values else 0.0
    return agg


def bits(nbytes, values):
    return 8.0 * nbytes / values if values else 0.0


def ratio(a, b):
    return a / b if b else 0.0


def fmt_bits(x):
    return f"{x:.3f}" if x < 1 else f"{x:.2f}"


def fmt_us(x):
    return f"{x:,.0f}" if x >= 100 else f"{x:.1f}"


def table_row(name, a):
    v = a["values"]
    return (f"| {name} | {a['streams']} | {v:,} | {fmt_bits(bits(a['saved'], v))} | {fmt_bits(bits(a['tcz'], v))} "
            f"| {fmt_bits(bits(a['xz'], v))} | {ratio(a['saved'], a['tcz']):.2f}× "
            f"| {a['forward']:.1f} ({a['forward_cpu']:.1f}) | {a['backward']:.1f} ({a['backward_cpu']:.1f}) "
            f"| {ratio(a['backward'], a['forward']):.2f} | {fmt_us(a['seek_median'])} "
            f"| {fmt_us(a['seek_worst'])} |")


TABLE_HEAD = ("| program | streams | values | bidirectional bits/value | .tcz bits/value | xz -9 bits/value "
              "| bidir. ÷ .tcz | forward M values/s (CPU) | backward M values/s (CPU) | back ÷ fwd "
              "| seek µs (median stream) "
              "| seek µs (worst stream) |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")


def predictor_counts(rows):
    """'DFCM2[1] ×12, LV[2] ×3' over every field of the rows."""
    counts = collections.Counter()
    for r in rows:
        for part in r["description"].split("; "):
            name = part.split(": ", 1)[-1].split(",", 1)[0].strip()
            counts[name] += 1
    return ", ".join(f"{name} ×{n}" for name, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))


def goals(a):
    """[(goal, verdict, detail)] of one aggregate; the speed goals judged on
    the steady clock and, after a slash, on CPU time."""
    size = a["saved"] / a["tcz"] if a["tcz"] else float("inf")
    balance = ratio(a["backward"], a["forward"])
    balance_cpu = ratio(a["backward_cpu"], a["forward_cpu"])
    return [
        (f"size within {SIZE_GOAL}× of the .tcz", yes_no(size <= SIZE_GOAL),
         f"{size:.2f}×; {a['size_ok']} of {a['streams']} streams"),
        (f"both directions ≥ {SPEED_GOAL:.0f} M values/s (wall / CPU)",
         yes_no(min(a["forward"], a["backward"]) >= SPEED_GOAL) + " / "
         + yes_no(min(a["forward_cpu"], a["backward_cpu"]) >= SPEED_GOAL),
         f"forward {a['forward']:.1f} / {a['forward_cpu']:.1f}, backward {a['backward']:.1f} / "
         f"{a['backward_cpu']:.1f}"),
        (f"backward ≥ {BALANCE_GOAL}× forward (wall / CPU)",
         yes_no(balance >= BALANCE_GOAL) + " / " + yes_no(balance_cpu >= BALANCE_GOAL),
         f"{balance:.2f}× / {balance_cpu:.2f}×"),
        (f"seek < {SEEK_GOAL_US / 1000:.0f} ms", yes_no(a["seek_worst"] < SEEK_GOAL_US),
         f"{a['seek_ok']} of {a['streams']} streams' median seeks; worst {fmt_us(a['seek_worst'])} µs"),
    ]


def yes_no(met):
    return "**yes**" if met else "no"


def machine_line(cxx, build_types):
    model = "unknown"
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    compiler = run(shlex.split(cxx) + ["--version"]).stdout.decode().splitlines()[0]
    return (f"Machine: date {datetime.datetime.now(datetime.timezone.utc).strftime('%Y-%m-%d %H:%M UTC')}; "
            f"CPU {model}; {os.cpu_count()} hardware threads; load average at the start {load}; kernel "
            f"{platform.system()} {platform.release()}; libtcgen_wet and wet-bench built {'/'.join(build_types)}; "
            f"ordinary compressors `{cxx} -O3` ({compiler}), lzma back end.")


def report(rows, args, argv, cxx):
    out = []
    build_types = sorted({r["build_type"] for r in rows})
    out.append(f"### Measured (`bench/wet-streams.py`, {datetime.date.today().isoformat()})\n")
    out.append(f"    {markdown_doc.command_line(PROG, argv)}\n")
    out.append(machine_line(cxx, build_types) + "\n")
    out.append(f"Streams: the {args.nodes} hottest nodes (timestamps and values) and the {args.edges} hottest "
               f"use-def edges of each program's WET set (`bench/wet-split.py`). Sizes: the library's saved form "
               f"(`save()`, tables and envelope included), tcgen's ordinary `.tcz` of the same spec, `xz -9 -T1`; "
               f"bits per value = 8 × bytes / values (an edge record is two values). Speeds: full walks, "
               f"medians of {args.runs} runs per stream, summed over a program's streams as total values over "
               f"total time; in brackets the same on the thread's CPU clock (the machine is shared). Seeks: per stream the median of {args.seeks} seeks from the previous seek's record "
               f"to a random one (`seek()` steps, so a seek costs its distance, on average a third of the "
               f"stream).\n")
    totals = collections.OrderedDict()
    for kind, (_, what) in KINDS.items():
        kind_rows = [r for r in rows if r["kind"] == kind]
        if not kind_rows:
            continue
        out.append(f"#### {kind} ({what})\n")
        out.append(TABLE_HEAD)
        for program in dict.fromkeys(r["program"] for r in kind_rows):
            out.append(table_row(program, aggregate([r for r in kind_rows if r["program"] == program])))
        totals[kind] = aggregate(kind_rows)
        out.append(table_row("**all**", totals[kind]))
        out.append(f"\nPredictors chosen (per field): {predictor_counts(kind_rows)}.\n")
    out.append("#### All kinds\n")
    out.append("| kind | streams | values | bidirectional bits/value | .tcz bits/value | xz -9 bits/value "
               "| bidir. ÷ .tcz | forward M values/s (MB/s) | backward M values/s (MB/s) "
               "| CPU time: forward / backward M values/s | back ÷ fwd "
               "| seek µs (median / worst stream) | memory ÷ saved |\n"
               "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for kind, a in totals.items():
        v, width = a["values"], a["bytes_per_value"]
        out.append(f"| {kind} | {a['streams']} | {v:,} | {fmt_bits(bits(a['saved'], v))} "
                   f"| {fmt_bits(bits(a['tcz'], v))} | {fmt_bits(bits(a['xz'], v))} | {ratio(a['saved'], a['tcz']):.2f}× "
                   f"| {a['forward']:.1f} ({a['forward'] * width:.0f}) | {a['backward']:.1f} "
                   f"({a['backward'] * width:.0f}) | {a['forward_cpu']:.1f} / {a['backward_cpu']:.1f} "
                   f"| {ratio(a['backward'], a['forward']):.2f} "
                   f"| {fmt_us(a['seek_median'])} / {fmt_us(a['seek_worst'])} | {ratio(a['memory'], a['saved']):.2f} |")
    out.append("\nThe WET library's goals (reported, not asserted):\n")
    out.append("| kind | " + " | ".join(g for g, _, _ in goals(next(iter(totals.values())))) + " |")
    out.append("|---|" + "---|" * 4)
    for kind, a in totals.items():
        out.append(f"| {kind} | " + " | ".join(f"{verdict} ({detail})" for _, verdict, detail in goals(a)) + " |")
    return "\n".join(out) + "\n"


def main(argv):
    args = parse_args(argv)
    build = os.path.abspath(args.build)
    tcgen = os.path.join(build, "generator", "tcgen")
    wet_bench_binary = os.path.join(build, "bench", "wet-bench")
    script.require_built([(tcgen, "tcgen"), (wet_bench_binary, "wet-bench")], args.build, die)
    work = os.path.abspath(args.work or os.path.join(build, "wet-bench"))
    os.makedirs(work, exist_ok=True)

    corpus = make_corpus(args, build)
    programs = args.programs.split(",") if args.programs else None
    sets = wet_sets(corpus, programs)
    binaries = build_compressors(tcgen, args.cxx, work)

    rows = []
    for program, prefix in sets:
        streams = split(program, prefix, work, args.nodes, args.edges)
        print(f"{PROG}: {program}: {len(streams)} streams", file=sys.stderr)
        for path, kind, _ in streams:
            rows.append(measure_stream(program, path, kind, binaries, args, wet_bench_binary))
    if not rows:
        die("no streams to measure (--nodes=0 --edges=0?)")
    write_streams_tsv(os.path.join(work, "streams.tsv"), rows)
    text = report(rows, args, argv, args.cxx)
    with open(os.path.join(work, "report.md"), "w", encoding="utf-8") as f:
        f.write(text)
    print(text)
    if args.out:
        markdown_doc.write_section(args.out, "bench/wet-streams.py", text)
        print(f"{PROG}: wrote the bench/wet-streams.py section of {args.out}", file=sys.stderr)
    print(f"{PROG}: per-stream figures in {os.path.join(work, 'streams.tsv')}", file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv[1:])
