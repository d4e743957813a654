#!/usr/bin/python3
"""bench/run.py: measure tcgen's generated compressors against bzip2, xz and zstd.

    bench/run.py [OPTIONS] MANIFEST.tsv
    bench/run.py [OPTIONS] --traces=KIND:FILE[,KIND:FILE...]
    bench/run.py --decode [OPTIONS] MANIFEST.tsv

With --decode, decompression speed alone: ns/record of the kind's shipped
tcgen spec (`-d -T1` and default threads) beside xz -d, zstd -d --long=27 and
bzip2 -d, CPU and wall, medians of --runs runs taken in turn, and perf's
profile of where tcgen's time goes (bench/runner/decode_speed.py); writes
decode.csv, decode.md and logs into --out, the Markdown to --markdown.

For every trace and compressor: compressed size and ratio, compression and
decompression speed (CPU = user + sys, and wall), peak RSS, medians of --runs
runs, every decompression checked byte for byte. Each kind's shipped spec
runs at its default level and at -9. Branch traces are also
measured as block ids (tcgen-branch-ids split: the id stream through tcgen's
examples/branch_ids.tcg or wpp's grammar, the side table through xz -9;
every file counted, every step timed). Prints a table per trace
kind and whether tcgen meets the project's goals (against xz -9 on average
and on every trace, against zpaq -m5 where it ran); writes
results.csv, chart.png, report.md and logs into --out. Exit status 1 if a
round trip failed or a tcgen compressor could not be built, else 0 (the goals
are reported, never asserted). --markdown=FILE writes the report into FILE
(docs/benchmarks/run-regular.md, run-hard.md, ...) and its chart beside it.
See docs/benchmarks.md.

Runs with Debian's /usr/bin/python3 and its standard library only.
"""

import csv
import os
import shlex
import shutil
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "runner"))
sys.dont_write_bytecode = True  # no __pycache__ in the source tree

import compressors  # noqa: E402
import corpus  # noqa: E402
import decode_speed  # noqa: E402
import machine  # noqa: E402
import markdown_doc  # noqa: E402
import measure  # noqa: E402
import report  # noqa: E402
import script  # noqa: E402
from script import REPO  # noqa: E402

PROG = "bench/run.py"
die, note = script.messages(PROG)
# bench/corpus.sh's manifests: the heading says which set a section measures.
DEFAULT_TITLES = {"manifest.tsv": "the regular set", "hard-manifest.tsv": "the hard set"}
# --decode's section; like bench/run-hard, a section's name, whose last part
# also names its chart, not the script's.
DECODE_SECTION = "bench/run-decode"


def parse_args(argv):
    p = script.argument_parser(PROG, script.usage_description(__doc__), die)
    p.add_argument("manifest", nargs="?", help="corpus manifest (TSV: kind, program, file, "
                   "bytes, sha256; see bench/README.md)")
    p.add_argument("--traces", help="KIND:FILE,... instead of a manifest "
                   "(kinds with 'champsim' or 'branch' in their name use examples/champsim.tcg "
                   "or examples/x86_branches.tcg; branch traces also go as block ids through "
                   "examples/branch_ids.tcg and wpp)")
    p.add_argument("--runs", type=int, default=3, help="runs per measurement; medians are "
                   "reported (default 3)")
    p.add_argument("--quick", action="store_true", help="one run (for tests)")
    p.add_argument("--kinds", help="comma-separated trace kinds to measure (default all)")
    p.add_argument("--compressors", help="comma-separated subset of: "
                   + ", ".join(compressors.all_names()) + " ('tcgen' = all tcgen ones)")
    p.add_argument("--zpaq", default="python3", help="comma-separated programs whose traces "
                   "zpaq -m5 also compresses, once (it runs at about 1 MB/s each way), as the "
                   "ratio ceiling of general-purpose compression (default python3; 'none': "
                   "no zpaq; 'all': every trace)")
    p.add_argument("--out", help="results directory (default build/bench-results/DATE-TIME)")
    p.add_argument("--tmp", help="directory for compressed and decompressed files "
                   "(default OUT/tmp; the same for every compressor)")
    p.add_argument("--tcgen", default=os.path.relpath(script.TCGEN),
                   help="the tcgen under test (default build/generator/tcgen)")
    p.add_argument("--branch-ids", help="tcgen-branch-ids, for the block-id compressors of "
                   "branch traces (default: the one built beside --tcgen, tracer/tcgen-branch-ids "
                   "in its build directory, or installed in its directory)")
    p.add_argument("--wpp", help="wpp, for wpp-block-ids (default: beside --tcgen, as "
                   "--branch-ids)")
    p.add_argument("--cxx", default=os.environ.get("CXX", "c++"),
                   help="C++ compiler for the generated compressors (default $CXX or c++; "
                   "with -O3 unless --opt-level says otherwise)")
    compressors.add_build_options(p)
    p.add_argument("--markdown", help="also write the report into FILE (one document per "
                   "corpus: docs/benchmarks/run-regular.md, docs/benchmarks/run-hard.md), "
                   "replacing the section bench/run.py wrote there before; its chart is copied "
                   "next to it as FILE's name with .png (with --section=NAME, NAME's last part "
                   "with .png)")
    p.add_argument("--section", default=PROG, type=markdown_doc.section_name,
                   help=f"the name of the Markdown section written (default {PROG}; another, "
                   "e.g. bench/run-hard, for a second corpus beside the first)")
    p.add_argument("--title", help="what the section's heading says the traces are (default: "
                   "'the regular set' or 'the hard set' for bench/corpus.sh's manifest.tsv and "
                   "hard-manifest.tsv, else nothing)")
    p.add_argument("--about", default="", help="a sentence on where the traces come from, "
                   "printed under Traces in the Markdown")
    p.add_argument("--decode", action="store_true", help="measure decompression speed alone "
                   "(see above); --compressors is not used")
    p.add_argument("--cache", help="with --decode: keep the baselines' compressed files in this "
                   "directory and reuse them while the trace and the command are the same")
    p.add_argument("--no-profile", action="store_true", help="with --decode: no perf profile")
    p.add_argument("--no-sha256", action="store_true",
                   help="do not check the manifest's sha256 sums (sizes are still checked)")
    args = p.parse_args(argv)
    if bool(args.manifest) == bool(args.traces):
        p.error("give either a MANIFEST or --traces (not both)")
    if args.quick:
        args.runs = 1
    if args.runs < 1:
        p.error("--runs must be at least 1")
    if (args.cache or args.no_profile) and not args.decode:
        p.error("--cache and --no-profile go with --decode")
    if args.decode and args.section == PROG:
        args.section = DECODE_SECTION
    if args.title is None:
        args.title = DEFAULT_TITLES.get(os.path.basename(args.manifest or ""), "")
    return args


def load_traces(args):
    try:
        if args.manifest:
            traces = corpus.read_manifest(args.manifest, check_sha256=not args.no_sha256)
        else:
            traces = corpus.parse_traces_option(args.traces)
    except (corpus.CorpusError, OSError) as e:
        die(str(e))
    if args.kinds:
        wanted = set(args.kinds.split(","))
        unknown = wanted - {t.kind for t in traces}
        if unknown:
            die(f"--kinds: no traces of kind {', '.join(sorted(unknown))}")
        traces = [t for t in traces if t.kind in wanted]
    corpus.label_traces(traces)
    for t in traces:
        inside = os.path.abspath(t.path).startswith(REPO + os.sep)
        t.display_path = os.path.relpath(t.path, REPO) if inside else os.path.basename(t.path)
    return traces


def selected_compressors(args):
    """The set of compressor names chosen with --compressors, or None (all)."""
    if not args.compressors:
        return None
    names = set()
    for name in args.compressors.split(","):
        if name == "tcgen":
            names |= {n for n in compressors.all_names() if n.startswith("tcgen")}
        elif name in compressors.all_names():
            names.add(name)
        else:
            die(f"--compressors: unknown compressor '{name}' "
                f"(known: {', '.join(compressors.all_names())})")
    return names


def block_id_tool(option, tcgen, in_build, name):
    """OPTION's path, else the tool NAME built beside TCGEN (IN_BUILD, a path
    in its build directory) or installed beside it; None if none is there."""
    tcgen = os.path.abspath(tcgen)
    candidates = [option] if option else [
        os.path.join(os.path.dirname(os.path.dirname(tcgen)), in_build),
        os.path.join(os.path.dirname(tcgen), name)]
    for path in candidates:
        if os.access(path, os.X_OK):
            return os.path.abspath(path)
    return None


def block_id_tools(args):
    """What the block-id compressors need beyond tcgen: (split tool, wpp,
    why they cannot run or "")."""
    split = block_id_tool(args.branch_ids, args.tcgen, "tracer/tcgen-branch-ids", "tcgen-branch-ids")
    wpp = block_id_tool(args.wpp, args.tcgen, "wpp/wpp", "wpp")
    why = ("tcgen-branch-ids not found (build it: cmake --build build --target tcgen-branch-ids, "
           "or pass --branch-ids=PATH)" if not split
           else "xz not found (run scripts/setup.sh)" if not shutil.which("xz") else "")
    return split, wpp, why


def build_tcgen_compressors(args, traces, wanted, bindir, log_path):
    """Generates and compiles each tcgen compressor that some trace needs, and
    makes the block-id pipelines of branch traces (compressors.py)."""
    if not os.access(args.tcgen, os.X_OK):
        die(f"tcgen not found at {args.tcgen} (build it: cmake -S . -B build && "
            "cmake --build build, or pass --tcgen=PATH)")
    needed = {}
    for t in traces:
        needed.update(compressors.tcgen_builds_for(t.kind, wanted))
    block_id_names = {name for name, _ in compressors.BLOCK_ID_SPECS}
    split, wpp, why_not = block_id_tools(args)
    built = {}
    with open(log_path, "a") as log:
        for name, spec in needed.items():
            if name in block_id_names and why_not:
                note(f"could not make {name}: {why_not}")
                continue
            note(f"building {name} from {spec} with {args.tcgen}")
            try:
                built[name] = compressors.build_tcgen(name, spec, REPO, args.tcgen, bindir,
                                                      args.cxx, log, opt_level=args.opt_level,
                                                      cache_dir=args.build_cache)
            except (subprocess.CalledProcessError, OSError) as e:
                note(f"could not build {name}: {e} (see {log_path})")
                continue
            if name in block_id_names:
                built[name] = compressors.tcgen_block_ids(built[name], split)
    expected = set(needed)
    if any(compressors.is_branch_kind(t.kind) for t in traces) and (
            wanted is None or compressors.WPP_BLOCK_IDS in wanted):
        expected.add(compressors.WPP_BLOCK_IDS)
        if why_not or not wpp:
            note(f"could not make {compressors.WPP_BLOCK_IDS}: " + (why_not or
                 "wpp not found (build it: cmake --build build --target wpp, or pass --wpp=PATH)"))
        else:
            built[compressors.WPP_BLOCK_IDS] = compressors.wpp_block_ids(split, wpp)
    return built, sorted(expected - set(built))


def zpaq_programs(args, wanted):
    """The programs whose traces zpaq-m5 runs on (None: all)."""
    if args.zpaq == "none" or (wanted is not None and compressors.ZPAQ.name not in wanted):
        return set()
    return None if args.zpaq == "all" else set(args.zpaq.split(","))


def compressors_for(trace, built, wanted, zpaq):
    """Every compressor that runs on TRACE, tcgen's first, the ceiling last."""
    chosen = compressors.compressors_for_kind(trace.kind, built, wanted)
    if zpaq is None or trace.program in zpaq:
        chosen.append(compressors.ZPAQ)
    return chosen


def check_tools(wanted, zpaq):
    if not os.access(measure.GNU_TIME, os.X_OK):
        die(f"{measure.GNU_TIME} not found (apt-get install time; it measures peak memory)")
    for c in compressors.GENERAL:
        if (wanted is None or c.name in wanted) and not shutil.which(c.compress[0]):
            die(f"{c.compress[0]} not found (run scripts/setup.sh)")
    if zpaq != set() and not shutil.which("zpaq"):
        die("zpaq not found (run scripts/setup.sh, or --zpaq=none)")


def run_all(args, traces, built, wanted, zpaq, tmpdir, logdir):
    """Measures every (trace, compressor); returns the CSV rows. zpaq runs
    once: its ratio is what it is measured for."""
    rows = []
    jobs = [(t, c) for t in traces for c in compressors_for(t, built, wanted, zpaq)]
    warmed = None
    for i, (trace, comp) in enumerate(jobs, 1):
        if warmed != trace.path:
            measure.warm_page_cache(trace.path)
            warmed = trace.path
        log = os.path.join(logdir, f"{trace.kind}.{trace.label}.{comp.name}.log")
        if os.path.exists(log):
            os.remove(log)
        runs = 1 if comp is compressors.ZPAQ else args.runs
        result = measure.measure(comp, trace.path, runs, tmpdir, log)
        row = report.make_row(trace, comp, result)
        rows.append(row)
        if result.verified:
            status = (f"ratio {row['ratio']:.2f}, c {row['c_cpu_MBps']:.1f} MB/s, "
                      f"d {row['d_cpu_MBps']:.1f} MB/s (CPU), round trip ok")
        else:
            status = "ROUND TRIP FAILED: " + result.error
        note(f"[{i}/{len(jobs)}] {trace.kind} {trace.label} {comp.name}: {status}")
    return rows


def write_reports(args, argv, out, traces, rows, built, wanted, zpaq, bindir):
    """Tables and goals on stdout; results.csv, chart.png, report.md in OUT;
    and the Markdown to --markdown with its own copy of the chart."""
    kinds = {}
    for kind in corpus.kinds_in_order(traces):
        summary = report.summarize(rows, kind)
        kinds[kind] = (rows, summary, report.goals(summary, rows, kind))
        print(report.text_table(rows, kind, summary, args.runs))
        print()
        print(report.goals_text(kind, kinds[kind][2]))
        print()
    pairs = report.before_after({kind: summary for kind, (_, summary, _) in kinds.items()})
    if pairs:
        print(report.before_after_text(pairs))
        print()

    machine_items = machine.describe(REPO, args.tcgen, args.cxx, [], args.opt_level)
    tcgen_id = dict(machine_items)["tcgen"]
    for r in rows:
        r["tcgen"] = tcgen_id
    csv_path = os.path.join(out, "results.csv")
    report.write_csv(rows, csv_path)
    png = os.path.join(out, "chart.png")
    why_no_chart = report.write_chart({k: v[1] for k, v in kinds.items()}, out, png)
    if why_no_chart:
        note(f"no chart: {why_no_chart}")

    used = {c.name: c for t in traces for c in compressors_for(t, built, wanted, zpaq)}
    machine_items += [(c.name, compressors.tool_version(c.compress[0]))
                      for c in compressors.GENERAL + [compressors.ZPAQ] if c.name in used]
    context = {
        "command": markdown_doc.command_line(PROG, argv),
        "runs": args.runs,
        "machine": machine_items,
        # the commands as run from the repository's top: no machine paths in the report
        "compressors": [(c.name, [shlex.join(cmd).replace(bindir + os.sep, "")
                                  .replace(REPO + os.sep, "")
                                  for cmd in (c.compress, c.decompress)], c.spec)
                        for c in used.values()],
        "traces": traces, "about": args.about, "kinds": kinds, "before_after": pairs,
        "title": args.title,
        "chart": None if why_no_chart else "chart.png",
    }
    report_md = os.path.join(out, "report.md")
    if os.path.exists(report_md):
        os.remove(report_md)
    markdown_doc.write_section(report_md, args.section, report.markdown_report(context))
    if args.markdown:
        if not why_no_chart:
            # each section its own chart beside its document: the default
            # section's under the document's name (run-regular.md,
            # run-regular.png), another under its own (bench/run-hard-pair:
            # run-hard-pair.png), so that two sections of one document
            # never overwrite each other's chart
            chart_name = (os.path.splitext(os.path.basename(args.markdown))[0] if args.section == PROG
                          else args.section.rsplit("/", 1)[-1])
            chart_copy = os.path.join(os.path.dirname(os.path.abspath(args.markdown)), chart_name + ".png")
            os.makedirs(os.path.dirname(chart_copy), exist_ok=True)
            shutil.copyfile(png, chart_copy)
            context["chart"] = os.path.basename(chart_copy)
        markdown_doc.write_section(args.markdown, args.section, report.markdown_report(context))
    note(f"wrote {csv_path}" + ("" if why_no_chart else f", {png}")
         + f", {os.path.join(out, 'report.md')}" + (f", {args.markdown}" if args.markdown else ""))


def decode_main(args, argv, traces):
    """bench/run.py --decode (decode_speed.py)."""
    for tool in ["xz", "zstd", "bzip2"]:
        if not shutil.which(tool):
            die(f"{tool} not found (run scripts/setup.sh)")
    if not os.access(measure.GNU_TIME, os.X_OK):
        die(f"{measure.GNU_TIME} not found (apt-get install time)")
    out = os.path.abspath(args.out or os.path.join(
        script.BUILD, "bench-results", "decode-" + time.strftime("%Y%m%d-%H%M%S")))
    bindir, logdir = os.path.join(out, "bin"), os.path.join(out, "logs")
    tmpdir = os.path.abspath(args.tmp or os.path.join(out, "tmp"))
    for d in (out, bindir, logdir, tmpdir) + ((args.cache,) if args.cache else ()):
        os.makedirs(d, exist_ok=True)
    note(f"results in {out}")
    wanted = {decode_speed.shipped_spec_name(t.kind) for t in traces}
    built, failed_builds = build_tcgen_compressors(args, traces, wanted, bindir,
                                                   os.path.join(logdir, "build.log"))
    why_no_profile = "--no-profile" if args.no_profile else decode_speed.perf_available()
    if why_no_profile and not args.no_profile:
        note(f"no profile: {why_no_profile}")
    load_before = os.getloadavg()
    general = {c.name: c for c in compressors.GENERAL}
    by_kind = {}
    failures = []
    for i, trace in enumerate(traces, 1):
        name = decode_speed.shipped_spec_name(trace.kind)
        if name not in built:
            continue
        log = os.path.join(logdir, f"{trace.kind}.{trace.label}.decode.log")
        measure.warm_page_cache(trace.path)
        packers = [built[name]] + [general[b] for b in decode_speed.BASELINES]
        try:
            packed = {c.name: decode_speed.pack(c, trace.path, tmpdir, log, args.cache) for c in packers}
        except (measure.RunError, OSError) as e:
            failures.append(f"{trace.kind} {trace.label}: compressing: {e}")
            note(f"[{i}/{len(traces)}] {trace.kind} {trace.label}: compressing FAILED: {e}")
            continue
        decoders = decode_speed.decoders(built[name])
        timings = decode_speed.time_decoders(decoders, packed, trace.path, args.runs, tmpdir, log)
        result = decode_speed.TraceResult(trace, decode_speed.records_of(trace), name, timings)
        if not why_no_profile and timings[decode_speed.ONE_THREAD].verified:
            result.profile, result.why_no_profile = decode_speed.profile(
                decoders[0].argv, packed[name], tmpdir, log)
        by_kind.setdefault(trace.kind, []).append(result)
        for t in timings.values():
            if not t.verified:
                failures.append(f"{trace.kind} {trace.label} {t.decoder}: {t.error}")
        figures = ", ".join(f"{d.name} {decode_speed._ns(decode_speed.figure(result, d.name, 'cpu'))}"
                            for d in decoders)
        note(f"[{i}/{len(traces)}] {trace.kind} {trace.label}: ns/record CPU: {figures}")
        if os.path.exists(packed[name]) and packed[name].startswith(tmpdir):
            os.remove(packed[name])
    load_after = os.getloadavg()
    # the kinds in bench/corpus.sh's order, the traces of each by name, whatever
    # order the manifest lists them in
    order = ["store-addresses", "cache-miss-addresses", "load-values", "champsim", "branches"]
    by_kind = {kind: sorted(by_kind[kind], key=lambda r: r.trace.label)
               for kind in sorted(by_kind, key=lambda k: (order.index(k) if k in order else len(order), k))}

    decoder_names = [d.name for d in decode_speed.decoders(compressors.Compressor("x", ["x"], ["x"]))]
    rows = decode_speed.csv_rows(by_kind)
    csv_path = os.path.join(out, "decode.csv")
    with open(csv_path, "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=decode_speed.CSV_FIELDS)
        writer.writeheader()
        writer.writerows(rows)
    machine_items = machine.describe(REPO, args.tcgen, args.cxx, [], args.opt_level)
    machine_items += [(c.name, compressors.tool_version(c.compress[0]))
                      for c in compressors.GENERAL if c.name in decode_speed.BASELINES]
    if not why_no_profile:
        machine_items.append(("perf", compressors.tool_version("perf")))
    specs = {n: s for n, s in compressors.X86_SPECS.values()}
    specs.update(dict(compressors.CHAMPSIM_SPECS + compressors.BRANCH_SPECS + compressors.VPC_SPECS))
    commands = [(d.name, shlex.join([os.path.basename(d.argv[0])] + d.argv[1:]))
                for d in decode_speed.decoders(compressors.Compressor("comp", ["comp"], ["comp", "-d"]))]
    context = {
        "command": markdown_doc.command_line(PROG, argv), "runs": args.runs,
        "title": args.title, "by_kind": by_kind, "decoders": decoder_names, "specs": specs,
        "load": " → ".join("{:.1f}".format(a[0]) for a in (load_before, load_after))
                + " (one-minute, before and after)",
        "why_no_profile": why_no_profile, "machine": machine_items, "commands": commands,
    }
    text = decode_speed.markdown_report(context)
    print(text)
    md_path = os.path.join(out, "decode.md")
    if os.path.exists(md_path):
        os.remove(md_path)
    markdown_doc.write_section(md_path, args.section, text)
    if args.markdown:
        markdown_doc.write_section(args.markdown, args.section, text)
    note(f"wrote {csv_path}, {md_path}" + (f", {args.markdown}" if args.markdown else ""))
    for failure in failures:
        note(f"FAILED: {failure}")
    for name in failed_builds:
        note(f"not measured: {name} did not build")
    if not args.tmp:
        shutil.rmtree(tmpdir, ignore_errors=True)
    return 1 if failures or failed_builds else 0


def main(argv):
    args = parse_args(argv)
    traces = load_traces(args)
    if args.decode:
        return decode_main(args, argv, traces)
    wanted = selected_compressors(args)
    zpaq = zpaq_programs(args, wanted)
    check_tools(wanted, zpaq)

    out = os.path.abspath(args.out or os.path.join(
        script.BUILD, "bench-results", time.strftime("%Y%m%d-%H%M%S")))
    bindir, logdir = os.path.join(out, "bin"), os.path.join(out, "logs")
    tmpdir = os.path.abspath(args.tmp or os.path.join(out, "tmp"))
    for d in (out, bindir, logdir, tmpdir):
        os.makedirs(d, exist_ok=True)
    note(f"results in {out}")
    os.environ["TMPDIR"] = tmpdir  # zpaq-filter's copies of the trace go there too

    built, failed_builds = build_tcgen_compressors(args, traces, wanted, bindir,
                                                   os.path.join(logdir, "build.log"))
    rows = run_all(args, traces, built, wanted, zpaq, tmpdir, logdir)
    report.add_relative(rows)

    write_reports(args, argv, out, traces, rows, built, wanted, zpaq, bindir)

    failures = [r for r in rows if r["verified"] != "yes"]
    for r in failures:
        note(f"round trip FAILED: {r['kind']} {r['trace']} {r['compressor']}: {r['error']}")
    for name in failed_builds:
        note(f"not measured: {name} did not build")
    if not args.tmp:
        shutil.rmtree(tmpdir, ignore_errors=True)
    return 1 if failures or failed_builds else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
