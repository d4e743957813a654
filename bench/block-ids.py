#!/usr/bin/python3
"""bench/block-ids.py: branch traces as block-id streams, against the raw traces.

    bench/block-ids.py [--corpus=DIR | --manifest=FILE] [--programs=P1,P2] [--jobs=N]
              [--quick] [--tool-dir=DIR] [--build=DIR] [--work=DIR] [--cxx=CXX]
              [--opt-level=N] [--build-cache=DIR] [--out=FILE] [--section=NAME]

Makes sure the corpus's branch traces exist (bench/corpus.sh --kinds=branches,
given --corpus as its --dir and --programs, --jobs, --quick, --tool-dir as
they are; or, with --manifest, the branch traces a bench/corpus.sh manifest
lists, such as the hard set's hard-manifest.tsv, taken as they are), then
per program: splits the trace with tcgen-branch-ids into its id stream and
side table, joins them back and compares with the trace (cmp), and
compresses

  - the raw trace with tcgen's examples/x86_branches.tcg, xz -9 and
    zstd -19 --long=27;
  - the id stream with tcgen's examples/branch_ids.tcg, with `wpp build
    --raw` (its SEQUITUR grammar, docs/wpp.md; expanded again and compared)
    and with xz -9, for comparison; the side table with xz -9.

Then it times queries on the grammar against the expanded ids (wpp-bench:
CPU time, median of 3, in process): the hot subpaths of lengths 4, 8, 16
and 64 (the two tables compared) and a backward walk over every id.

Every compressed file is decompressed and compared with its input. Prints
two Markdown tables (sizes, query times); --out=FILE replaces the
bench/block-ids.py section of FILE (docs/benchmarks/block-ids.md; see
bench/runner/markdown_doc.py). Exit status 1 if a tool fails, a round trip
differs or the grammar's hot subpaths differ from the expanded ids'.

tcgen, tcgen-branch-ids, wpp and wpp-bench are taken from --build (default:
build/ beside this script's folder), and so is the valgrind tool when
--tool-dir is not given. The two compressors are built with -O3 (--opt-level
lowers it: their sizes stay, for a quick check), and --build-cache keeps
them for later runs.
Runs with Debian's /usr/bin/python3 and its standard library only.
"""

import os
import re
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "runner"))
sys.dont_write_bytecode = True  # no __pycache__ in the source tree

import compressors  # noqa: E402
import corpus  # noqa: E402
import machine  # noqa: E402
import markdown_doc  # noqa: E402
import script  # noqa: E402
from script import BENCH, REPO  # noqa: E402

PROG = "bench/block-ids.py"
die, _ = script.messages(PROG, error="")
steps = script.Steps(die)
run, same_files, packed_size = steps.run, steps.same_files, steps.packed_size
PROGRAMS = ["bzip2", "gzip", "xz", "sort", "sqlite3", "python3", "perl", "cc1"]
DEFAULT_PROGRAMS = ["sort", "bzip2", "gzip"]
HOT_LENGTHS = [4, 8, 16, 64]
SPECS = [("tcgen-branches", "examples/x86_branches.tcg"), ("tcgen-branch-ids", "examples/branch_ids.tcg")]
XZ = ["xz", "-9", "-T1", "-c"], ["xz", "-d", "-T1", "-c"]
ZSTD = ["zstd", "-19", "--long=27", "-q", "-c"], ["zstd", "-d", "--long=27", "-q", "-c"]


def parse_args(argv):
    p = script.argument_parser(PROG, "Branch traces as block-id streams, against the raw traces.", die)
    p.add_argument("--corpus", metavar="DIR", help="bench/corpus.sh's --dir (default: its default)")
    p.add_argument("--manifest", metavar="FILE", help="take the branch traces this bench/corpus.sh manifest lists "
                   "(e.g. the hard set's DIR/hard-manifest.tsv) instead of running bench/corpus.sh")
    p.add_argument("--programs", help="comma-separated corpus programs (default: sort,bzip2,gzip)")
    p.add_argument("--jobs", default="1", help="bench/corpus.sh's --jobs (default 1)")
    p.add_argument("--quick", action="store_true", help="bench/corpus.sh's --quick (tiny traces, for tests)")
    p.add_argument("--tool-dir", help="bench/corpus.sh's --tool-dir (default: BUILD/tracer/lib)")
    script.add_build_option(p)
    p.add_argument("--work", help="directory for the split and compressed files (default BUILD/block-ids)")
    p.add_argument("--cxx", default="c++", help="the compiler of tcgen's output (default c++)")
    compressors.add_build_options(p)
    p.add_argument("--out", metavar="FILE", help="replace the bench/block-ids.py section of this Markdown file "
                   "(docs/benchmarks/block-ids.md)")
    p.add_argument("--section", default=PROG, type=markdown_doc.section_name,
                   help="the section --out replaces (default bench/block-ids.py)")
    args = p.parse_args(argv)
    args.programs = args.programs.split(",") if args.programs else DEFAULT_PROGRAMS
    for program in args.programs:
        if program not in PROGRAMS:
            die(f"unknown program '{program}' (known: {', '.join(PROGRAMS)})")
    if args.corpus is None:
        args.corpus = os.path.join(os.environ.get("XDG_CACHE_HOME", os.path.expanduser("~/.cache")), "tcgen-corpus")
    args.work = args.work or os.path.join(args.build, "block-ids")
    return args


def make_corpus(args):
    if args.manifest:
        return traces_of(args.manifest, args)
    argv = [os.path.join(BENCH, "corpus.sh"), "--kinds=branches", f"--dir={args.corpus}",
            f"--programs={','.join(args.programs)}", f"--jobs={args.jobs}"]
    if args.quick:
        argv.append("--quick")
    if args.tool_dir:
        argv.append(f"--tool-dir={args.tool_dir}")
    if subprocess.run(argv, stdout=subprocess.DEVNULL).returncode != 0:
        die("bench/corpus.sh failed (see its message above)")
    manifest = os.path.join(args.corpus, "quick" if args.quick else "", "manifest.tsv")  # as bench/corpus.sh puts it
    return traces_of(manifest, args)


def traces_of(manifest, args):
    if not os.path.isfile(manifest):
        die(f"no manifest {manifest}")
    try:
        listed = corpus.read_manifest(manifest)
    except corpus.CorpusError as error:
        die(str(error))
    traces = [trace for trace in listed if trace.kind == "branches" and trace.program in args.programs]
    missing = set(args.programs) - {trace.program for trace in traces}
    if missing:
        die(f"no branch trace of {', '.join(sorted(missing))} in {manifest}")
    return sorted(traces, key=lambda trace: args.programs.index(trace.program))





def grammar_size(wpp, ids, work):
    """The size of the .wpp of IDS (bare u32 ids), checked by expanding it;
    the .wpp's path, for the queries."""
    grammar = os.path.join(work, "ids.wpp")
    expanded = os.path.join(work, "expanded")
    run([wpp, "build", "--raw", ids, grammar])
    with open(expanded, "wb") as sink:
        run([wpp, "expand", grammar], stdout=sink)
    same_files(ids, expanded, "wpp build and expand")
    os.remove(expanded)
    return os.path.getsize(grammar), grammar


def query_times(wpp, wpp_bench, grammar):
    """wpp-bench's CPU times (median of 3) of the queries on GRAMMAR and on
    its expanded ids; its table shape from `wpp stats`."""
    stats = dict(line.rsplit(" ", 1) for line in run([wpp, "stats", grammar]).stdout.decode().splitlines())
    text = run([wpp_bench, grammar]).stdout.decode()
    times = {"symbols": int(stats["symbols"]), "grammar_symbols": int(stats["grammar symbols"]),
             "rules": int(stats["rules"])}
    for length in HOT_LENGTHS:
        found = re.search(rf"^hot L={length}: grammar ([0-9.]+) s, expanded sequence ([0-9.]+) s "
                          r"\([^)]*\), tables (\w+)$", text, re.M)
        if not found:
            die(f"wpp-bench {grammar}: no line for L = {length} in: {text}")
        if found.group(3) != "equal":
            die(f"wpp-bench {grammar}: hot subpaths of length {length} differ on the grammar and the expanded ids")
        times[f"hot{length}"] = (float(found.group(1)), float(found.group(2)))
    found = re.search(r"^walk backward: ([0-9.]+) s .*; forward: ([0-9.]+) s ", text, re.M)
    if not found:
        die(f"wpp-bench {grammar}: no walk line in: {text}")
    times["backward"], times["forward"] = float(found.group(1)), float(found.group(2))
    return times


def measure(trace, tool, built, work):
    ids = os.path.join(work, trace.program + ".ids")
    table = os.path.join(work, trace.program + ".table")
    joined = os.path.join(work, trace.program + ".joined")
    print(f"{PROG}: {trace.program}: split, join, compress ...", file=sys.stderr)
    run([tool, "split", trace.path, ids, table])
    with open(joined, "wb") as sink:
        run([tool, "join", ids, table], stdout=sink)
    same_files(trace.path, joined, "split and join")
    os.remove(joined)
    row = {
        "program": trace.program,
        "records": (trace.size - 4) // 17,
        "outcomes": (os.path.getsize(table) - 4) // 17,
        "raw": trace.size,
        "tcgen": packed_size(*built["tcgen-branches"], trace.path, work),
        "xz": packed_size(*XZ, trace.path, work),
        "zstd": packed_size(*ZSTD, trace.path, work),
        "ids_tcgen": packed_size(*built["tcgen-branch-ids"], ids, work),
        "ids_xz": packed_size(*XZ, ids, work),
        "table_xz": packed_size(*XZ, table, work),
    }
    row["wpp"], grammar = grammar_size(built["wpp"], ids, work)
    print(f"{PROG}: {trace.program}: queries on the grammar and the expanded ids ...", file=sys.stderr)
    row["queries"] = query_times(built["wpp"], built["wpp-bench"], grammar)
    os.remove(grammar)
    os.remove(ids)
    os.remove(table)
    return row


def report(rows, args, argv):
    out = [f"### Measured (`{PROG}`, {time.strftime('%Y-%m-%d')})\n",
           f"    {markdown_doc.command_line(PROG, argv)}\n"]
    items = machine.describe(REPO, os.path.join(args.build, "generator", "tcgen"), args.cxx, [], args.opt_level)
    out.append("Machine: " + "; ".join(f"{label} {value}" for label, value in items) + ".\n")
    which = f"the branch traces {os.path.basename(args.manifest)} lists" if args.manifest else \
        "the regular corpus's branch traces"
    out.append(f"Traces: {which} (bench/corpus.sh: `tcgen-tracer --branches`, start-up "
               "skipped). Ids = `tcgen-branch-ids split`'s id stream compressed by examples/branch_ids.tcg; "
               "table = its side table by `xz -9`; the gain is the raw trace's tcgen size against ids + table; "
               ".wpp = the ids' SEQUITUR grammar (`wpp build --raw`), + table the same side table. "
               "Every file was rebuilt byte for byte (join, `wpp expand` and each decompressor) before it was "
               "counted.\n")
    out.append("| program | branches | distinct outcomes | raw | xz -9 | zstd -19 --long | tcgen x86_branches | "
               "ids (xz -9) | ids (tcgen) | table (xz -9) | ids + table | gain over tcgen | ids (.wpp) | "
               ".wpp + table |")
    out.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    totals = {key: 0 for key in ("raw", "xz", "zstd", "tcgen", "ids_xz", "ids_tcgen", "table_xz", "wpp")}
    for row in rows:
        both = row["ids_tcgen"] + row["table_xz"]
        for key in totals:
            totals[key] += row[key]
        out.append(f"| {row['program']} | {row['records']:,} | {row['outcomes']:,} | {row['raw']:,} | "
                   f"{row['xz']:,} | {row['zstd']:,} | {row['tcgen']:,} | {row['ids_xz']:,} | "
                   f"{row['ids_tcgen']:,} | {row['table_xz']:,} | {both:,} | {gain(row['tcgen'], both)} | "
                   f"{row['wpp']:,} | {row['wpp'] + row['table_xz']:,} |")
    both = totals["ids_tcgen"] + totals["table_xz"]
    out.append(f"| total | | | {totals['raw']:,} | {totals['xz']:,} | {totals['zstd']:,} | {totals['tcgen']:,} | "
               f"{totals['ids_xz']:,} | {totals['ids_tcgen']:,} | {totals['table_xz']:,} | {both:,} | "
               f"{gain(totals['tcgen'], both)} | {totals['wpp']:,} | {totals['wpp'] + totals['table_xz']:,} |")
    out.append("")
    out.append("Queries on the grammar against the expanded ids, in memory (`wpp-bench`: CPU time, user + system, "
               "median of 3; loading the `.wpp` and expanding it are not counted). Hot L = the most frequent "
               "subpaths of L ids (`wpp hot`, top 10), on the grammar's DAG against counting every window of the "
               "expanded ids (`--by-expanding`), both tables compared; each cell: grammar / expanded, and how many "
               "times faster the grammar is. Walk = a cursor over every id, last first, on the grammar "
               "(`wpp walk --backward`), in M ids a second. Ratio = ids per grammar symbol.\n")
    out.append("| program | ids | grammar symbols | ratio | " +
               " | ".join(f"hot L = {length}" for length in HOT_LENGTHS) + " | backward walk |")
    out.append("|---|---:|---:|---:|" + "---:|" * len(HOT_LENGTHS) + "---:|")
    for row in rows:
        q = row["queries"]
        cells = [f"{seconds(q[f'hot{length}'][0])} / {seconds(q[f'hot{length}'][1])} s "
                 f"({times_faster(*q[f'hot{length}'])})" for length in HOT_LENGTHS]
        walk = f"{q['symbols'] / q['backward'] / 1e6:.1f} M/s" if q["backward"] > 0 else "–"
        out.append(f"| {row['program']} | {q['symbols']:,} | {q['grammar_symbols']:,} | "
                   f"{q['symbols'] / max(q['grammar_symbols'], 1):.1f} | " + " | ".join(cells) + f" | {walk} |")
    return "\n".join(out) + "\n"


def seconds(value):
    return f"{value:.3f}" if value >= 0.01 else f"{value:.4f}"


def times_faster(on_grammar, on_expanded):
    return f"{on_expanded / on_grammar:.1f}×" if on_grammar > 0 else "–"


def gain(before, after):
    return f"{100.0 * (before - after) / before:.1f} %" if before else "–"


def main(argv):
    args = parse_args(argv)
    tcgen = os.path.join(args.build, "generator", "tcgen")
    tool = os.path.join(args.build, "tracer", "tcgen-branch-ids")
    wpp = os.path.join(args.build, "wpp", "wpp")
    wpp_bench = os.path.join(args.build, "wpp", "wpp-bench")
    script.require_built([(tcgen, "tcgen"), (tool, "tcgen-branch-ids"), (wpp, "wpp"), (wpp_bench, "wpp-bench")],
                         args.build, die)
    if args.tool_dir is None:
        args.tool_dir = os.path.join(args.build, "tracer", "lib")
    traces = make_corpus(args)
    bindir = os.path.join(args.work, "bin")
    os.makedirs(bindir, exist_ok=True)
    built = {"wpp": wpp, "wpp-bench": wpp_bench}
    with open(os.path.join(args.work, "build.log"), "w") as log:
        for name, spec in SPECS:
            try:
                compressor = compressors.build_tcgen(name, spec, REPO, tcgen, bindir, args.cxx, log,
                                                     opt_level=args.opt_level, cache_dir=args.build_cache)
            except subprocess.CalledProcessError:
                die(f"building {spec}'s compressor failed; see {args.work}/build.log")
            built[name] = (compressor.compress, compressor.decompress)
    rows = [measure(trace, tool, built, args.work) for trace in traces]
    text = report(rows, args, argv)
    print(text)
    if args.out:
        markdown_doc.write_section(args.out, args.section, text)


if __name__ == "__main__":
    main(sys.argv[1:])
