"""bench/run.py --decode: decompression speed alone, in ns per record.

Each trace is compressed once by its kind's shipped tcgen spec (the
compressor bench/run.py builds) and by bzip2 -9, xz -9 and zstd -19 --long=27
(bench/run.py's commands); then every decoder runs on those files, in turn,
--runs times (interleaved, so that a burst of load on a shared machine falls
on all of them alike): tcgen's with one thread (`-d -T1`) and with its
default threads (`-d`), `xz -d`, `zstd -d --long=27`, `bzip2 -d`. Every
decompression is compared with the trace byte for byte. A figure is the
median over the runs, of CPU (user + sys) and of wall time, divided by the
trace's records; the spread of the runs (largest minus smallest over the
median) is kept beside it, so that a report can say how noisy the machine
was.

The profile says where `-d -T1`'s time goes, from perf's samples of one more
run (`perf record`, the samples' shared objects and symbols): the back-ends
(libbz2, liblzma, libzstd), the kernel (page faults and the zeroing of table
pages, reading and writing the files), copies and allocation in the C library,
the records' checksum (xxh64) in the generated program, and the rest of the
generated program: the predictors and the records' assembly, which the
compiler inlines into one loop per field and cannot be told apart without
changing the program. Without perf (or when it may not sample), the profile
is left out and the report says why.

The baselines' compressed files can be kept in a cache directory (--cache):
a file is reused when the trace's size and modification time and the
command are those it was made with; it is still decoded and compared on
every run, so a stale one fails loudly rather than giving wrong figures.
"""

import filecmp
import os
import shlex
import shutil
import statistics
import subprocess
from dataclasses import dataclass, field

import compressors
import measure


# Bytes before the first record and bytes per record, by kind (bench/corpus.sh's
# formats: ChampSim's 64-byte input_instr without a header; branch traces
# BRA1 and 17-byte records; every other kind the VPC format's 12 bytes).
def record_layout(kind):
    if compressors.is_champsim_kind(kind):
        return 0, 64
    if compressors.is_branch_kind(kind):
        return 4, 17
    return 4, 12


def records_of(trace):
    header, size = record_layout(trace.kind)
    return max(trace.size - header, 0) // size


# The kind's shipped spec: the x86 spec where there is one, else the
# kind's own (ChampSim, branches).
def shipped_spec_name(kind):
    if kind in compressors.X86_SPECS:
        return compressors.X86_SPECS[kind][0]
    return compressors.reference_specs_for_kind(kind)[0][0]


BASELINES = ["xz-9", "zstd-19-long", "bzip2-9"]


@dataclass
class Decoder:
    name: str        # as in the tables: "tcgen -d -T1", "xz -d"
    packer: str      # the compressor whose output it reads
    argv: list


def decoders(tcgen):
    """The decoders of one trace: tcgen's (Compressor TCGEN) on one thread
    and on its default threads, then the baselines'."""
    general = {c.name: c for c in compressors.GENERAL}
    out = [Decoder("tcgen -d -T1", tcgen.name, tcgen.decompress + ["-T1"]),
           Decoder("tcgen -d", tcgen.name, list(tcgen.decompress))]
    labels = {"xz-9": "xz -d", "zstd-19-long": "zstd -d --long=27", "bzip2-9": "bzip2 -d"}
    out += [Decoder(labels[name], name, general[name].decompress) for name in BASELINES]
    return out


def _cache_key(trace_path, argv):
    st = os.stat(trace_path)
    return f"{st.st_size} {int(st.st_mtime)} {shlex.join(argv)}"


def pack(compressor, trace_path, tmpdir, log_path, cache_dir=None):
    """Compresses the trace with COMPRESSOR once; returns the packed path.
    Baselines go through CACHE_DIR when given (see the module's text);
    tcgen's compressor, the one under test, always runs."""
    if cache_dir and not compressor.is_tcgen:
        packed = os.path.join(cache_dir, os.path.basename(trace_path) + "." + compressor.name)
        key = _cache_key(trace_path, compressor.compress)
        try:
            with open(packed + ".key") as f:
                if f.read().strip() == key and os.path.exists(packed):
                    return packed
        except OSError:
            pass
        partial = f"{packed}.{os.getpid()}.tmp"  # another run may be making the same file
        measure.run_timed(compressor.compress, trace_path, partial, log_path)
        os.replace(partial, packed)
        with open(packed + ".key", "w") as f:
            f.write(key + "\n")
        return packed
    packed = os.path.join(tmpdir, compressor.name + ".packed")
    measure.run_timed(compressor.compress, trace_path, packed, log_path)
    return packed


@dataclass
class Timing:
    """The runs of one decoder on one trace."""
    decoder: str
    packed_bytes: int
    samples: list = field(default_factory=list)
    verified: bool = True
    error: str = ""

    def median(self, what):
        return statistics.median(getattr(s, what) for s in self.samples) if self.samples else None

    def spread(self, what):
        """(largest - smallest) / median of the runs; 0 with one run."""
        values = [getattr(s, what) for s in self.samples]
        mid = statistics.median(values) if values else 0
        return (max(values) - min(values)) / mid if len(values) > 1 and mid > 0 else 0.0


def time_decoders(decoder_list, packed, trace_path, runs, tmpdir, log_path):
    """RUNS rounds of every decoder in turn on its packed file (PACKED:
    compressor name -> path); each output compared with the trace."""
    unpacked = os.path.join(tmpdir, "decoded")
    timings = {d.name: Timing(d.name, os.path.getsize(packed[d.packer])) for d in decoder_list}
    for _ in range(runs):
        for d in decoder_list:
            t = timings[d.name]
            if not t.verified:
                continue
            try:
                t.samples.append(measure.run_timed(d.argv, packed[d.packer], unpacked, log_path))
                if not filecmp.cmp(trace_path, unpacked, shallow=False):
                    t.verified, t.error = False, "decompressed output differs from the original"
            except measure.RunError as e:
                t.verified, t.error = False, str(e)
            finally:
                if os.path.exists(unpacked):
                    os.remove(unpacked)
    return timings


# ---- the profile ----------------------------------------------------------

# Parts of the profile, in table order.
PARTS = ["back-ends", "predictors and the rest", "checksum", "C library", "kernel"]
BACKEND_LIBRARIES = ("libbz2", "liblzma", "libzstd")


def classify(dso, symbol, program):
    """The part of the profile that a sample in DSO at SYMBOL falls in;
    PROGRAM: the generated program's file name."""
    base = os.path.basename(dso)
    if base.startswith(BACKEND_LIBRARIES):
        return "back-ends"
    if dso.startswith("[kernel") or dso in ("[vdso]",) or symbol.startswith("[k]"):
        return "kernel"
    if base.startswith(("libc.", "libc-", "libstdc++", "libm.", "libgcc", "ld-linux")):
        return "C library"
    if base == program:
        if "xxh" in symbol.lower() or "checksum" in symbol.lower():
            return "checksum"
        return "predictors and the rest"
    return "predictors and the rest" if base == "[unknown]" else "C library"


def parse_perf_report(text, program):
    """Shares (percent) per part from `perf report --stdio --no-children
    --sort dso,sym` output."""
    shares = {part: 0.0 for part in PARTS}
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        fields = line.split(None, 2)
        if len(fields) < 3 or not fields[0].endswith("%"):
            continue
        try:
            percent = float(fields[0].rstrip("%"))
        except ValueError:
            continue
        dso, symbol = fields[1], fields[2]
        shares[classify(dso, symbol, program)] += percent
    total = sum(shares.values())
    if total <= 0:
        return None
    return {part: 100.0 * value / total for part, value in shares.items()}


def perf_available():
    """'' if perf can sample here, else why not."""
    if not shutil.which("perf"):
        return "perf is not installed (Debian package linux-perf)"
    try:
        probe = subprocess.run(["perf", "stat", "-e", "task-clock", "--", "true"],
                               capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired) as e:
        return f"perf does not run: {e}"
    if probe.returncode != 0:
        return "perf may not sample here (kernel.perf_event_paranoid?)"
    return ""


def profile(argv, packed, tmpdir, log_path):
    """Shares of the profile of ARGV decoding PACKED, or (None, why)."""
    data = os.path.join(tmpdir, "perf.data")
    out = os.path.join(tmpdir, "profiled")
    try:
        measure.run_timed(["perf", "record", "-q", "-F", "999", "-o", data, "--"] + argv,
                          packed, out, log_path)
        report = subprocess.run(["perf", "report", "-i", data, "--stdio", "--no-children",
                                 "--sort", "dso,sym", "-q"],
                                capture_output=True, text=True, timeout=600)
    except (measure.RunError, OSError, subprocess.TimeoutExpired) as e:
        return None, f"perf failed: {e}"
    finally:
        for path in (data, out):
            if os.path.exists(path):
                os.remove(path)
    shares = parse_perf_report(report.stdout, os.path.basename(argv[0]))
    return (shares, "") if shares else (None, "perf recorded no samples")


# ---- the report -----------------------------------------------------------

@dataclass
class TraceResult:
    trace: object            # corpus.Trace
    records: int
    spec: str                # the tcgen compressor's name
    timings: dict            # decoder name -> Timing
    profile: dict = None     # part -> percent, or None
    why_no_profile: str = ""


def ns_per_record(seconds, records):
    return seconds * 1e9 / records if seconds is not None and records else None


def _ns(value):
    if value is None:
        return "–"
    return f"{value:.0f}" if value >= 100 else f"{value:.1f}" if value >= 10 else f"{value:.2f}"


def _factor(value):
    return "–" if value is None else f"×{value:.2f}"


def figure(result, decoder, what):
    """RESULT's median ns/record of DECODER, WHAT "cpu" or "wall"; None if
    it did not run or failed."""
    t = result.timings.get(decoder)
    if not t or not t.verified or not t.samples:
        return None
    return ns_per_record(t.median(what), result.records)


def kind_mean(results, decoder, what):
    """Mean ns/record over the traces where every decoder verified: the
    harmonic mean of their speeds in records per second, the paper's average
    (report.py); None if no trace counts."""
    values = [figure(r, decoder, what) for r in results]
    values = [v for v in values if v is not None]
    return statistics.mean(values) if values and len(values) == len(results) else None


def speed_columns(decoder_names):
    """(heading, decoder, what) of the speed tables."""
    cols = []
    for name in decoder_names:
        cols.append((f"`{name}` CPU", name, "cpu"))
        if name.startswith("tcgen") or name == "xz -d":
            cols.append((f"`{name}` wall", name, "wall"))
    return cols


XZ = "xz -d"
ONE_THREAD = "tcgen -d -T1"
DEFAULT_THREADS = "tcgen -d"


def summary_table(by_kind, decoder_names):
    """Markdown: a row per kind, mean ns/record of each decoder, and tcgen's
    speed against xz -d (CPU on one thread; wall on the default threads)."""
    cols = speed_columns(decoder_names)
    head = (["kind", "traces"] + [h for h, _, _ in cols]
            + ["`-T1` CPU vs `xz -d`", "default threads wall vs `xz -d` wall"])
    lines = ["| " + " | ".join(head) + " |", "|---|" + "---:|" * (len(head) - 1)]
    for kind, results in by_kind.items():
        cells = [kind, str(len(results))]
        cells += [_ns(kind_mean(results, d, w)) for _, d, w in cols]
        xz_cpu, xz_wall = kind_mean(results, XZ, "cpu"), kind_mean(results, XZ, "wall")
        one, default = kind_mean(results, ONE_THREAD, "cpu"), kind_mean(results, DEFAULT_THREADS, "wall")
        cells.append(_factor(xz_cpu / one if xz_cpu and one else None))
        cells.append(_factor(xz_wall / default if xz_wall and default else None))
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def trace_table(results, decoder_names):
    """Markdown: a row per trace of one kind, ns/record of each decoder."""
    cols = speed_columns(decoder_names)
    head = ["trace", "records", "tcgen bytes", "xz bytes"] + [h for h, _, _ in cols]
    lines = ["| " + " | ".join(head) + " |", "|---|" + "---:|" * (len(head) - 1)]
    for r in results:
        tcgen = r.timings.get(ONE_THREAD)
        xz = r.timings.get(XZ)
        cells = [r.trace.label, f"{r.records:,}", f"{tcgen.packed_bytes:,}" if tcgen else "–",
                 f"{xz.packed_bytes:,}" if xz else "–"]
        for _, d, w in cols:
            t = r.timings.get(d)
            cells.append(_ns(figure(r, d, w)) if t is None or t.verified else "FAILED")
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def profile_table(by_kind):
    """Markdown: where `-d -T1`'s time goes, per trace and kind (percent of
    perf's samples)."""
    head = ["kind", "trace"] + PARTS
    lines = ["| " + " | ".join(head) + " |", "|---|---|" + "---:|" * len(PARTS)]
    for kind, results in by_kind.items():
        profiled = [r for r in results if r.profile]
        for r in profiled:
            lines.append("| " + " | ".join([kind, r.trace.label] + [f"{r.profile[p]:.0f} %" for p in PARTS]) + " |")
        if len(profiled) > 1:
            means = [statistics.mean(r.profile[p] for r in profiled) for p in PARTS]
            lines.append("| " + " | ".join([f"**{kind}**", "**mean**"] + [f"**{m:.0f} %**" for m in means]) + " |")
    return "\n".join(lines)


def noise(by_kind):
    """(median, largest) spread of CPU times over every (trace, decoder)
    measured more than once, in percent; None without such."""
    spreads = [t.spread("cpu") for results in by_kind.values() for r in results
               for t in r.timings.values() if t.verified and len(t.samples) > 1]
    if not spreads:
        return None
    return 100 * statistics.median(spreads), 100 * max(spreads)


CSV_FIELDS = ["kind", "program", "trace", "records", "decoder", "packed_bytes", "runs",
              "cpu_s", "wall_s", "cpu_ns_per_record", "wall_ns_per_record", "cpu_spread",
              "wall_spread", "verified", "error"] + ["profile_" + p.replace(" ", "_") for p in PARTS]


def csv_rows(by_kind):
    rows = []
    for results in by_kind.values():
        for r in results:
            for name, t in r.timings.items():
                row = {"kind": r.trace.kind, "program": r.trace.program, "trace": r.trace.label,
                       "records": r.records, "decoder": name, "packed_bytes": t.packed_bytes,
                       "runs": len(t.samples), "cpu_s": t.median("cpu"), "wall_s": t.median("wall"),
                       "cpu_ns_per_record": figure(r, name, "cpu"),
                       "wall_ns_per_record": figure(r, name, "wall"),
                       "cpu_spread": t.spread("cpu"), "wall_spread": t.spread("wall"),
                       "verified": "yes" if t.verified else "NO", "error": t.error}
                if name == ONE_THREAD and r.profile:
                    row.update({"profile_" + p.replace(" ", "_"): r.profile[p] for p in PARTS})
                rows.append(row)
    return rows


def markdown_report(context):
    """The section bench/run.py --decode writes (CONTEXT: what bench/run.py knows)."""
    by_kind, decoder_names = context["by_kind"], context["decoders"]
    title = context["title"]
    out = [f"## Decompression speed{' on ' + title if title else ''}", "",
           "Nanoseconds per record (lower is faster): medians of "
           f"{context['runs']} run(s) of each decoder, taken in turn, CPU = user + sys; "
           "every output compared with the trace. The mean of a kind is the mean of its "
           "traces' ns/record (the harmonic mean of their speeds); a factor above 1 means "
           "tcgen is faster than `xz -d`.", "",
           f"Command: `{context['command']}`", ""]
    spread = noise(by_kind)
    if spread:
        out += [f"Noise: the runs of one decoder on one trace differed by {spread[0]:.0f} % "
                f"(CPU, largest minus smallest over the median; the median over all) and by up to "
                f"{spread[1]:.0f} %; load average {context['load']}.", ""]
    out += ["### By kind", "", summary_table(by_kind, decoder_names), ""]
    for kind, results in by_kind.items():
        spec = results[0].spec if results else ""
        out += [f"### {kind} (`{context['specs'].get(spec, spec)}`)", "",
                trace_table(results, decoder_names), ""]
    out += ["### Where `tcgen -d -T1`'s time goes", ""]
    if any(r.profile for results in by_kind.values() for r in results):
        out += ["Shares of perf's samples of one more run (`perf record -F 999`, by shared object "
                "and symbol): the back-ends are libbz2, liblzma and libzstd; the checksum the "
                "generated program's xxh64; the C library copies and allocation; the kernel page "
                "faults, zeroing of table pages and file I/O; \"predictors and the rest\" all else "
                "in the generated program (the predictors, inlined into the loop that rebuilds the "
                "records, and the container).", "", profile_table(by_kind), ""]
    else:
        out += [f"Not measured: {context['why_no_profile'] or 'no profile'}.", ""]
    out += ["Machine:", ""] + [f"- {k}: {v}" for k, v in context["machine"]] + [""]
    out += ["Commands:", ""] + [f"- `{name}`: `{cmd}`" for name, cmd in context["commands"]]
    return "\n".join(out) + "\n"
