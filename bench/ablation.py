#!/usr/bin/python3
"""bench/ablation.py: what each of TCgen's optimisations buys, in the layout of
the paper's Table 2.

    bench/ablation.py [OPTIONS] MANIFEST.tsv
    bench/ablation.py [OPTIONS] --traces=KIND:FILE[,KIND:FILE...]

Generates the compressor of one spec (default examples/vpc3.tcg, TCgen(A), as
in the paper) once per variant: every optimisation on; smart update, type
minimisation, table sharing or fast hashing off; those four off together;
and, beyond the paper, dead-code removal off. Builds each with c++ -O3 (or
--opt-level's; --build-cache keeps the builds) and measures every variant on
every trace in the same run, the runs of the variants interleaved so that a
noisy moment hits them alike. Reports per trace kind the harmonic means of
compression rate, decompression speed and
compression speed (MB/s of original data, CPU time as in the paper; medians
of --runs runs), each speed also relative to "full optimisations"; checks
every decompression byte for byte. Writes results.csv and report.md into
--out; --markdown=FILE (docs/benchmarks/ablation.md) replaces the
bench/ablation.py section of FILE (or the one --section names). Exit status 1 if a round trip failed or a variant did
not build.

Runs with Debian's /usr/bin/python3 and its standard library only.
"""

import csv
import os
import shutil
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "runner"))
sys.dont_write_bytecode = True  # no __pycache__ in the source tree

import compressors  # noqa: E402
import corpus  # noqa: E402
import machine  # noqa: E402
import markdown_doc  # noqa: E402
import measure  # noqa: E402
from report import fmt_factor, fmt_value  # noqa: E402
import script  # noqa: E402
from script import REPO  # noqa: E402

PROG = "bench/ablation.py"
die, note = script.messages(PROG)

# (row label, passes turned off), in the paper's order; the last row is ours.
FULL = "full optimisations"
VARIANTS = [
    ("no smart update", ["smart-update"]),
    ("no type minimisation", ["type-minimisation"]),
    ("no shared tables", ["table-sharing"]),
    ("no fast hash function", ["fast-hash"]),
    ("all of the above", ["smart-update", "type-minimisation", "table-sharing", "fast-hash"]),
    (FULL, []),
    ("no dead-code removal", ["dead-code"]),
]
PAPER_KINDS = ["store-addresses", "cache-miss-addresses", "load-values"]
# (key, heading); speeds are also given relative to FULL.
COLUMNS = [("rate", "rate"), ("d_cpu_MBps", "d.spd"), ("c_cpu_MBps", "c.spd")]


def parse_args(argv):
    p = script.argument_parser(PROG, script.usage_description(__doc__), die)
    p.add_argument("manifest", nargs="?", help="corpus manifest (bench/corpus.sh writes one)")
    p.add_argument("--traces", help="KIND:FILE,... instead of a manifest")
    p.add_argument("--spec", default="examples/vpc3.tcg",
                   help="the spec to ablate, relative to the repository (default %(default)s)")
    p.add_argument("--kinds", help="comma-separated trace kinds (default: the paper's, "
                   + ", ".join(PAPER_KINDS) + ", as far as present)")
    p.add_argument("--runs", type=int, default=3, help="runs per measurement; medians are "
                   "reported (default 3)")
    p.add_argument("--quick", action="store_true", help="one run (for tests)")
    p.add_argument("--out", help="results directory (default build/bench-results/ablation-DATE-TIME)")
    p.add_argument("--tcgen", default=os.path.relpath(script.TCGEN),
                   help="the tcgen under test (default build/generator/tcgen)")
    p.add_argument("--cxx", default=os.environ.get("CXX", "c++"),
                   help="C++ compiler for the generated compressors (default $CXX or c++; -O3 unless "
                   "--opt-level says otherwise)")
    compressors.add_build_options(p)
    p.add_argument("--markdown", help="also write the table into FILE (docs/benchmarks/"
                   "ablation.md), replacing the section bench/ablation.py wrote there before")
    p.add_argument("--section", default=PROG, type=markdown_doc.section_name,
                   help=f"the name of the Markdown section written (default {PROG}; another, "
                   "e.g. bench/ablation-hard, for a second corpus beside the first)")
    p.add_argument("--about", default="", help="a sentence on where the traces come from")
    p.add_argument("--no-sha256", action="store_true", help="do not check the manifest's sha256 sums")
    args = p.parse_args(argv)
    if bool(args.manifest) == bool(args.traces):
        p.error("give either a MANIFEST or --traces (not both)")
    if args.quick:
        args.runs = 1
    if args.runs < 1:
        p.error("--runs must be at least 1")
    if not os.path.isfile(os.path.join(REPO, args.spec)):
        p.error(f"--spec: no such file: {args.spec}")
    return args


def load_traces(args):
    try:
        if args.manifest:
            traces = corpus.read_manifest(args.manifest, check_sha256=not args.no_sha256)
        else:
            traces = corpus.parse_traces_option(args.traces)
    except (corpus.CorpusError, OSError) as e:
        die(str(e))
    present = corpus.kinds_in_order(traces)
    wanted = args.kinds.split(",") if args.kinds else [k for k in PAPER_KINDS if k in present]
    missing = [k for k in wanted if k not in present]
    if missing or not wanted:
        die(f"no traces of kind {', '.join(missing or PAPER_KINDS)} (have: {', '.join(present)})")
    traces = [t for t in traces if t.kind in wanted]
    corpus.label_traces(traces)
    return traces


def build_variants(args, bindir, log_path):
    if not os.access(args.tcgen, os.X_OK):
        die(f"tcgen not found at {args.tcgen} (build it, or pass --tcgen=PATH)")
    built = {}
    with open(log_path, "a") as log:
        for index, (label, disabled) in enumerate(VARIANTS):
            options = ["--disable=" + ",".join(disabled)] if disabled else []
            note(f"building '{label}' from {args.spec} {' '.join(options)}")
            try:
                built[label] = compressors.build_tcgen(f"variant{index}", args.spec, REPO, args.tcgen,
                                                       bindir, args.cxx, log, options,
                                                       opt_level=args.opt_level, cache_dir=args.build_cache)
            except (OSError, subprocess.CalledProcessError) as e:
                note(f"could not build '{label}': {e} (see {log_path})")
    return built


def measure_all(args, traces, built, tmpdir, logdir):
    """Rows, one per (trace, variant). For each trace the variants take
    turns run by run, so that slow moments of a shared machine are spread
    over all of them."""
    rows = []
    for number, trace in enumerate(traces, 1):
        measure.warm_page_cache(trace.path)
        results = {label: [] for label in built}
        for _ in range(args.runs):
            for label, comp in built.items():
                log = os.path.join(logdir, f"{trace.kind}.{trace.label}.{comp.name}.log")
                results[label].append(measure.measure(comp, trace.path, 1, tmpdir, log))
        for label, comp in built.items():
            r = measure.merge(results[label])
            n = trace.size
            ok = r.verified and r.compressed_bytes > 0
            rows.append({
                "kind": trace.kind, "program": trace.program, "trace": trace.label, "file": trace.path,
                "trace_bytes": n, "variant": label, "disabled": ",".join(dict(VARIANTS)[label]),
                "runs": r.runs, "compressed_bytes": r.compressed_bytes,
                "rate": n / r.compressed_bytes if ok else None,
                "c_cpu_MBps": measure.speed(n, r.comp.cpu) if ok else None,
                "d_cpu_MBps": measure.speed(n, r.decomp.cpu) if ok else None,
                "c_wall_MBps": measure.speed(n, r.comp.wall) if ok else None,
                "d_wall_MBps": measure.speed(n, r.decomp.wall) if ok else None,
                "verified": "yes" if r.verified else "NO", "error": r.error,
            })
        full = next(r for r in rows[-len(built):] if r["variant"] == FULL) if FULL in built else None
        note(f"[{number}/{len(traces)}] {trace.kind} {trace.label}: "
             + (f"full optimisations rate {fmt_value(full['rate'], 'ratio')}, "
                f"d {fmt_value(full['d_cpu_MBps'], 'speed')} MB/s" if full and full["rate"] else "measured"))
    return rows


def summarize(rows, kind):
    """{variant: {column: harmonic mean, column_vs_full: ratio, traces: n}}."""
    summary = {}
    for label, _ in VARIANTS:
        good = [r for r in rows if r["kind"] == kind and r["variant"] == label and r["verified"] == "yes"]
        if good:
            summary[label] = {key: statistics.harmonic_mean([r[key] for r in good]) for key, _ in COLUMNS}
            summary[label]["traces"] = len(good)
    full = summary.get(FULL)
    for s in summary.values():
        for key, _ in COLUMNS:
            s[key + "_vs_full"] = s[key] / full[key] if full else None
    return summary


def verdicts(summary):
    """Which variant is best in each column, and whether it is FULL."""
    lines = []
    for key, what in (("rate", "best rate"), ("d_cpu_MBps", "fastest decompression"),
                      ("c_cpu_MBps", "fastest compression")):
        best = max(summary, key=lambda label: summary[label][key])
        if FULL not in summary or summary[FULL][key] >= summary[best][key]:
            lines.append(f"{what}: {FULL if FULL in summary else best}")
        else:
            lines.append(f"{what}: {best}, ×{summary[best][key + '_vs_full']:.3f} of {FULL}")
    return lines


def cell(s, key):
    text = fmt_value(s[key], "ratio" if key == "rate" else "speed")
    return text if key == "rate" else f"{text} ({fmt_factor(s[key + '_vs_full']).strip()})"


def text_report(kinds, summaries, args):
    out = [f"== TCgen's optimisations (the paper's Table 2) for {args.spec}: harmonic means per kind; "
           f"rate = compression ratio; d.spd, c.spd = MB/s of original data, CPU time, medians of "
           f"{args.runs} run(s); (×) = relative to {FULL} =="]
    for kind in kinds:
        summary = summaries[kind]
        n = max((s["traces"] for s in summary.values()), default=0)
        out += ["", f"{kind} ({n} traces)",
                f"  {'':24} {'rate':>8} {'d.spd':>16} {'c.spd':>16}"]
        for label, s in summary.items():
            out.append(f"  {label:24} {cell(s, 'rate'):>8} {cell(s, 'd_cpu_MBps'):>16} "
                       f"{cell(s, 'c_cpu_MBps'):>16}")
        out += ["  " + line for line in verdicts(summary)]
    return "\n".join(out)


def markdown_report(kinds, summaries, traces, args, argv, machine_items):
    md = [
        "## TCgen's optimisations (the paper's Table 2)",
        "",
        "Generated by `bench/ablation.py`; do not edit by hand, rerun it:",
        "",
        "    " + markdown_doc.command_line(PROG, argv),
        "",
        f"The compressor of `{args.spec}` generated with every optimisation (*{FULL}*), with one "
        "turned off (`tcgen --disable=NAME`), and with the paper's four off together (*all of the "
        "above*); the last row, dead-code removal off, is not in the paper. Each built with "
        f"`c++ -O{args.opt_level}`, all measured in the same run with their runs interleaved. *rate* is the "
        "compression ratio, *d.spd* and *c.spd* decompression and compression speed in MB/s of "
        "original data (10^6 bytes) from CPU time (user + sys, as the paper's §6.2), medians of "
        f"{args.runs} run(s); every figure is the harmonic mean over the traces of a kind, speeds "
        f"also relative to *{FULL}*. Every decompression was checked byte for byte.",
        "",
        "| variant | " + " | ".join(f"{kind}: {heading}" for kind in kinds for _, heading in COLUMNS) + " |",
        "|---|" + "---:|" * (len(kinds) * len(COLUMNS)),
    ]
    for label, _ in VARIANTS:
        cells = []
        for kind in kinds:
            s = summaries[kind].get(label)
            cells += [cell(s, key) if s else "-" for key, _ in COLUMNS]
        name = f"**{label}**" if label == FULL else label
        md.append(f"| {name} | " + " | ".join(cells) + " |")
    md += [""]
    for kind in kinds:
        md.append(f"- {kind}: " + "; ".join(verdicts(summaries[kind])) + ".")
    md += ["", "Machine: " + "; ".join(f"{label} {value}" for label, value in machine_items) + ".", "",
           "Traces" + (f" ({args.about})" if args.about else "") + ": "
           + "; ".join(f"{kind}: " + ", ".join(f"{t.label} ({t.size / 1e6:.1f} MB)"
                                                for t in traces if t.kind == kind) for kind in kinds) + "."]
    return "\n".join(md) + "\n"


def write_csv(rows, path):
    fields = ["kind", "program", "trace", "file", "trace_bytes", "variant", "disabled", "runs",
              "compressed_bytes", "rate", "c_cpu_MBps", "d_cpu_MBps", "c_wall_MBps", "d_wall_MBps",
              "verified", "error"]
    with open(path, "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=fields)
        writer.writeheader()
        for r in rows:
            writer.writerow({k: (f"{v:.6g}" if isinstance(v, float) else ("" if v is None else v))
                             for k, v in r.items()})


def main(argv):
    args = parse_args(argv)
    traces = load_traces(args)
    if not os.access(measure.GNU_TIME, os.X_OK):
        die(f"{measure.GNU_TIME} not found (apt-get install time)")
    out = os.path.abspath(args.out or os.path.join(
        script.BUILD, "bench-results", "ablation-" + time.strftime("%Y%m%d-%H%M%S")))
    bindir, logdir, tmpdir = (os.path.join(out, d) for d in ("bin", "logs", "tmp"))
    for d in (out, bindir, logdir, tmpdir):
        os.makedirs(d, exist_ok=True)
    note(f"results in {out}")

    built = build_variants(args, bindir, os.path.join(logdir, "build.log"))
    rows = measure_all(args, traces, built, tmpdir, logdir)
    kinds = corpus.kinds_in_order(traces)
    summaries = {kind: summarize(rows, kind) for kind in kinds}
    print(text_report(kinds, summaries, args))

    write_csv(rows, os.path.join(out, "results.csv"))
    machine_items = machine.describe(REPO, args.tcgen, args.cxx, [], args.opt_level)
    section = markdown_report(kinds, summaries, traces, args, argv, machine_items)
    report_md = os.path.join(out, "report.md")
    if os.path.exists(report_md):
        os.remove(report_md)
    markdown_doc.write_section(report_md, args.section, section)
    if args.markdown:
        markdown_doc.write_section(args.markdown, args.section, section)
    shutil.rmtree(tmpdir, ignore_errors=True)
    note(f"wrote {os.path.join(out, 'results.csv')}, {report_md}"
         + (f", {args.markdown}" if args.markdown else ""))

    failures = [r for r in rows if r["verified"] != "yes"]
    for r in failures:
        note(f"round trip FAILED: {r['kind']} {r['trace']} '{r['variant']}': {r['error']}")
    unbuilt = [label for label, _ in VARIANTS if label not in built]
    for label in unbuilt:
        note(f"not measured: '{label}' did not build")
    return 1 if failures or unbuilt else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
