#!/usr/bin/python3
"""bench/tune.py: the spec tuner (`tcgen tune`) measured honestly on held-out traces.

    bench/tune.py [OPTIONS] MANIFEST.tsv

For each trace kind of the corpus: `tcgen tune` runs on one program's trace,
or on several programs' traces together (--tune-on, default bzip2), then the
tuned spec, TCgen(A) (examples/vpc3.tcg) and TCgen(B) (examples/tcgen_b.tcg)
compress and decompress the traces of every OTHER program of that kind (A
and B also the samples, which are left out of the averages); every round
trip is checked byte for byte.
Prints a table per kind (ratio and CPU speeds, harmonic means) and writes
the tuned specs, the tuner's logs and results.csv into --out; --markdown
writes the section bench/tune.py owns in a document (docs/benchmarks/tune.md;
a variant run under another --section into a document of its own, e.g.
docs/benchmarks/tune-from-a.md).
Exit status 1 if a round trip failed or something could not be built.

Runs with Debian's /usr/bin/python3 and its standard library only.
"""

import datetime
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "runner"))
sys.dont_write_bytecode = True  # no __pycache__ in the source tree

import compressors  # noqa: E402
import corpus  # noqa: E402
import machine  # noqa: E402
import markdown_doc  # noqa: E402
import measure  # noqa: E402
import report  # noqa: E402
import script  # noqa: E402
from script import REPO  # noqa: E402

PROG = "bench/tune.py"
die, note = script.messages(PROG)
SECTION = "bench/tune.py"
# The layout of the VPC traces (4-byte header, 32-bit PC, 64-bit value);
# ChampSim and branch traces are tuned from the layout of their own spec
# (examples/champsim.tcg, examples/x86_branches.tcg).
VPC_RECORD = "h32,pc32,64"
DEFAULT_KINDS = ["store-addresses", "cache-miss-addresses", "load-values"]


def parse_args(argv):
    p = script.argument_parser(PROG, script.usage_description(__doc__), die)
    p.add_argument("manifest", help="corpus manifest (bench/corpus.sh writes DIR/manifest.tsv)")
    p.add_argument("--kinds", default=",".join(DEFAULT_KINDS),
                   help="comma-separated kinds (default: " + ",".join(DEFAULT_KINDS) + "; "
                   "champsim and branches are tuned from the layout of examples/champsim.tcg and "
                   "examples/x86_branches.tcg and compared with them)")
    p.add_argument("--tune-on", default="bzip2", help="the program whose trace of each kind is "
                   "the tuning sample (default bzip2), or several joined by '+' (bzip2+cc1: one spec "
                   "tuned on both samples together); the samples' traces are left out of the tuned "
                   "spec's averages and of A's and B's it is compared with. Several, comma-separated: "
                   "one tuned spec each")
    p.add_argument("--budget", type=float, default=300, help="tcgen tune --budget, seconds per kind "
                   "(default 300)")
    p.add_argument("--sample-bytes", type=int, default=4000000,
                   help="tcgen tune --sample-bytes (default 4000000)")
    p.add_argument("--start", help="a spec (e.g. examples/vpc3.tcg) whose layout tcgen tune takes "
                   "and whose predictors it measures as a second start (tcgen tune --spec); "
                   "default: --record=h32,pc32,64, which starts from the shipped examples/vpc3.tcg "
                   "as well as the wide spec")
    p.add_argument("--section", default=SECTION, type=markdown_doc.section_name,
                   help=f"the name of the Markdown section written (default {SECTION}; give "
                   "another for a variant run)")
    p.add_argument("--runs", type=int, default=1, help="runs per measurement, medians reported "
                   "(default 1)")
    p.add_argument("--out", help="results directory (default build/bench-results/tune-DATE-TIME)")
    p.add_argument("--tcgen", default=os.path.relpath(script.TCGEN),
                   help="the tcgen under test (default build/generator/tcgen)")
    p.add_argument("--cxx", default=os.environ.get("CXX", "c++"),
                   help="C++ compiler (default $CXX or c++): -O1 for the tuner's candidates, -O3 "
                   "for the compressors measured")
    p.add_argument("--markdown", help="write the report into FILE (docs/benchmarks/tune.md), "
                   "replacing the section bench/tune.py wrote there before")
    p.add_argument("--no-sha256", action="store_true", help="do not check the manifest's sha256 sums")
    args = p.parse_args(argv)
    if args.runs < 1:
        p.error("--runs must be at least 1")
    return args


def tune(args, kind, samples, out, program):
    """Runs tcgen tune on the SAMPLES (traces) together; returns (spec path, log path)."""
    spec = os.path.join(out, f"tuned-{kind}-{program}.tcg")
    log = os.path.join(out, f"tune-{kind}-{program}.log")
    reference = compressors.reference_specs_for_kind(kind)
    layout = ([f"--spec={os.path.join(REPO, reference[0][1])}"] if reference is not compressors.VPC_SPECS
              else [f"--spec={os.path.join(REPO, args.start)}"] if args.start
              else [f"--record={VPC_RECORD}"])
    argv = [args.tcgen, "tune", *(sample.path for sample in samples), *layout, f"--budget={args.budget:g}",
            f"--sample-bytes={args.sample_bytes}", f"--cxx={args.cxx}", "-o", spec]
    whose = f"{program}'s trace" if len(samples) == 1 else "the traces of " + ", ".join(s.program for s in samples)
    note(f"tuning {kind} on {whose} ({args.budget:g} s): " + " ".join(argv[1:]))
    with open(log, "w") as f:
        f.write("$ " + " ".join(argv) + "\n")
        f.flush()
        status = subprocess.run(argv, stderr=f).returncode
    if status != 0:
        die(f"tcgen tune failed on {program}'s {kind} trace (status {status}; see {log})")
    return spec, log


def tune_summary(log):
    """The tuner's closing line ('best: ratio ...') and its number of candidates."""
    with open(log) as f:
        lines = [line.rstrip("\n") for line in f]
    best = next((line[len("tcgen tune: "):] for line in reversed(lines)
                 if line.startswith("tcgen tune: best:")), "")
    return best


def spec_statements(path):
    with open(path) as f:
        return "".join(line for line in f if not line.startswith("#"))


def measure_kind(args, kind, traces, built, skip, tmpdir, logdir):
    """Every compressor on every trace of KIND, except a tuned one on its own
    samples (SKIP: compressor name -> trace labels)."""
    rows = []
    for trace in traces:
        measure.warm_page_cache(trace.path)
        for comp in built:
            if trace.label in skip.get(comp.name, ()):
                continue
            log = os.path.join(logdir, f"{kind}.{trace.label}.{comp.name}.log")
            if os.path.exists(log):
                os.remove(log)
            result = measure.measure(comp, trace.path, args.runs, tmpdir, log)
            row = report.make_row(trace, comp, result)
            rows.append(row)
            status = (f"ratio {row['ratio']:.2f}, c {row['c_cpu_MBps']:.1f} MB/s, "
                      f"d {row['d_cpu_MBps']:.1f} MB/s (CPU), round trip ok") if result.verified \
                else "ROUND TRIP FAILED: " + result.error
            note(f"{kind} {trace.label} {comp.name}: {status}")
    return rows


def fmt(value):
    return "-" if value is None else report.fmt_value(value, "ratio")


def held_out_summary(rows, kind, sample_labels, names):
    """Harmonic means of NAMES over the traces of KIND other than the samples."""
    kept = [r for r in rows if r["trace"] not in sample_labels and r["compressor"] in names]
    return report.summarize(kept, kind)


def kind_table(rows, names, samples):
    """Markdown: one line per trace, each compressor's ratio and CPU speeds side
    by side; a tuned spec's own sample is marked, not measured."""
    head = (["trace"] + [f"ratio {n}" for n in names] + [f"c.MB/s {n}" for n in names]
            + [f"d.MB/s {n}" for n in names])
    out = ["| " + " | ".join(head) + " |", "|---|" + "---:|" * (len(head) - 1)]
    by_trace = {}
    for r in rows:
        by_trace.setdefault(r["trace"], {})[r["compressor"]] = r
    for label, group in by_trace.items():
        cells = [label]
        for key in ("ratio", "c_cpu_MBps", "d_cpu_MBps"):
            for n in names:
                if label in samples.get(n, ()):
                    cells.append("(sample)")
                elif n in group and group[n]["verified"] == "yes":
                    cells.append(fmt(group[n][key]))
                else:
                    cells.append("FAILED")
        out.append("| " + " | ".join(cells) + " |")
    return out


def markdown(context):
    c = context
    start = f" (starting from `{c['start'] or 'examples/vpc3.tcg'}` as well as the wide spec)"
    md = [
        "## The spec tuner on held-out traces (`tcgen tune`)" + start,
        "",
        "Generated by `bench/tune.py`; do not edit by hand, rerun it:",
        "",
        "    " + c["command"],
        "",
        f"For each kind, `tcgen tune` chose the predictors on one program's trace, or on several "
        f"programs' traces together (each cut to a {c['sample_bytes']:,}-byte sample: its header "
        f"and 8 evenly spaced runs of records; the best spec is the one with the smallest total "
        f"output; "
        f"{c['budget']:g} s of budget; candidates compiled with `{c['cxx']} -O1`). The tuned spec, "
        "TCgen(A) (`examples/vpc3.tcg`) and TCgen(B) (`examples/tcgen_b.tcg`) then compressed "
        "the **other** programs' traces of that kind, which the tuner never saw (compressors "
        f"built with `{c['cxx']} -O3`, default back-end, medians of {c['runs']} run(s), every "
        "round trip checked byte for byte). Ratios and speeds (MB/s of original data, CPU = "
        "user + sys) are harmonic means over those held-out traces, as in the paper; A and B "
        "are averaged over the same traces as the tuned spec they are compared with.",
        "",
        "### Machine",
        "",
    ]
    md += [f"- **{label}**: {value}" for label, value in c["machine"]]
    md += ["", "### Summary", "",
           "| kind | tuned on | held-out traces | ratio A | ratio B | ratio tuned | tuned vs A "
           "| c.MB/s A | c.MB/s tuned | d.MB/s A | d.MB/s tuned |",
           "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for kind, k in c["kinds"].items():
        for program, t_name in k["tuned"].items():
            s = k["summaries"][program]
            a, b, t = s.get("tcgen-a", {}), s.get("tcgen-b", {}), s.get(t_name, {})
            gain = (t["ratio"] / a["ratio"] - 1) * 100 if a.get("ratio") and t.get("ratio") else None
            md.append(f"| {kind} | {program} | {t.get('verified', 0)} | {fmt(a.get('ratio'))} | "
                      f"{fmt(b.get('ratio'))} | {fmt(t.get('ratio'))} | "
                      + ("-" if gain is None else f"{gain:+.1f} %") + " | "
                      f"{fmt(a.get('c_cpu_MBps'))} | {fmt(t.get('c_cpu_MBps'))} | "
                      f"{fmt(a.get('d_cpu_MBps'))} | {fmt(t.get('d_cpu_MBps'))} |")
    for kind, k in c["kinds"].items():
        md += ["", f"### {kind}", ""]
        for program, t_name in k["tuned"].items():
            md += [f"`{t_name}`, tuned on {program.replace('+', ', ')}: {k['tune_summary'][program]}.", "",
                   "```", k["spec"][program].rstrip(), "```", ""]
        md += kind_table(k["rows"], k["names"], k["samples"])
    return "\n".join(md) + "\n"


def main(argv):
    args = parse_args(argv)
    if not os.access(args.tcgen, os.X_OK):
        die(f"tcgen not found at {args.tcgen} (build it, or pass --tcgen=PATH)")
    if not os.access(measure.GNU_TIME, os.X_OK):
        die(f"{measure.GNU_TIME} not found (apt-get install time)")
    try:
        traces = corpus.read_manifest(args.manifest, check_sha256=not args.no_sha256)
    except (corpus.CorpusError, OSError) as e:
        die(str(e))
    corpus.label_traces(traces)
    kinds = [k for k in args.kinds.split(",") if k]
    tune_on = [p for p in args.tune_on.split(",") if p]
    stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
    out = os.path.abspath(args.out or os.path.join(script.BUILD, "bench-results", "tune-" + stamp))
    tmpdir, logdir, bindir = (os.path.join(out, d) for d in ("tmp", "logs", "bin"))
    for d in (out, tmpdir, logdir, bindir):
        os.makedirs(d, exist_ok=True)
    build_log = os.path.join(logdir, "build.log")
    context_kinds = {}
    all_rows = []
    failed = False
    for kind in kinds:
        of_kind = [t for t in traces if t.kind == kind]
        if not of_kind:
            die(f"no {kind} traces in {args.manifest}")
        specs, samples, summaries_text = {}, {}, {}
        for program in tune_on:
            group = []
            for member in program.split("+"):
                sample = next((t for t in of_kind if t.program == member), None)
                if sample is None:
                    die(f"no {kind} trace of program '{member}' in {args.manifest}")
                group.append(sample)
            if len(of_kind) <= len(group):
                die(f"no {kind} traces other than {program}'s to measure on")
            spec, log = tune(args, kind, group, out, program)
            specs[program] = spec
            samples[program] = {sample.label for sample in group}
            summaries_text[program] = tune_summary(log)
        baselines = compressors.reference_specs_for_kind(kind)
        tuned_names = {program: f"tuned-{program}" for program in tune_on}
        built = []
        with open(build_log, "a") as f:
            for name, spec_path in baselines + [(tuned_names[p], specs[p]) for p in tune_on]:
                try:
                    comp = compressors.build_tcgen(f"{kind}-{name}", spec_path, REPO, args.tcgen,
                                                   bindir, args.cxx, f)
                except (subprocess.CalledProcessError, OSError) as e:
                    die(f"could not build {name}: {e} (see {build_log})")
                comp.name = name
                built.append(comp)
        skip = {tuned_names[p]: samples[p] for p in tune_on}
        rows = measure_kind(args, kind, of_kind, built, skip, tmpdir, logdir)
        failed |= any(r["verified"] != "yes" for r in rows)
        all_rows += rows
        names = [c.name for c in built]
        base_names = [n for n, _ in baselines]
        summaries = {p: held_out_summary(rows, kind, samples[p], base_names + [tuned_names[p]])
                     for p in tune_on}
        context_kinds[kind] = {"rows": rows, "names": names, "tuned": tuned_names,
                               "summaries": summaries, "samples": {tuned_names[p]: samples[p] for p in tune_on},
                               "spec": {p: spec_statements(specs[p]) for p in tune_on},
                               "tune_summary": summaries_text}
        for program in tune_on:
            s = summaries[program]
            print(f"== {kind}: tuned on {program}, harmonic means over the other programs ==")
            for n in base_names + [tuned_names[program]]:
                print(f"  {n:14} ratio {fmt(s[n]['ratio']):>8}  c {fmt(s[n]['c_cpu_MBps']):>6} MB/s  "
                      f"d {fmt(s[n]['d_cpu_MBps']):>6} MB/s  ({s[n]['verified']}/{s[n]['traces']} verified)")
            print(flush=True)
    report.write_csv(all_rows, os.path.join(out, "results.csv"))
    if args.markdown:
        context = {
            "command": markdown_doc.command_line(PROG, argv),
            "budget": args.budget, "sample_bytes": args.sample_bytes, "start": args.start,
            "cxx": args.cxx, "runs": args.runs, "kinds": context_kinds,
            "machine": machine.describe(REPO, args.tcgen, args.cxx, []),
        }
        markdown_doc.write_section(args.markdown, args.section, markdown(context))
        note(f"wrote the {args.section} section of {args.markdown}")
    note(f"results in {out}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
