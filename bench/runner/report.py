"""Turns measurements into rows, harmonic means, goals, and the outputs:
text tables, CSV, Markdown and a gnuplot chart.

Averages are harmonic means, as in the paper (§6.5): ratio and speeds are all
"bytes of original data per unit", so the harmonic mean is their natural
average. Peak memory is averaged by its maximum: what a user must provision.
"""

import csv
import math
import os
import shutil
import statistics
import subprocess

from compressors import BASELINE, BLOCK_ID_SPECS, PAPER, WPP_BLOCK_IDS, is_branch_kind
from measure import speed

# (key, heading, unit/format kind); every one is also given relative to xz-9.
METRICS = [
    ("ratio", "ratio", "ratio"),
    ("c_cpu_MBps", "c.MB/s CPU", "speed"),
    ("d_cpu_MBps", "d.MB/s CPU", "speed"),
    ("c_wall_MBps", "c.MB/s wall", "speed"),
    ("d_wall_MBps", "d.MB/s wall", "speed"),
    ("c_rss_MiB", "c.RSS MiB", "rss"),
    ("d_rss_MiB", "d.RSS MiB", "rss"),
]

CSV_FIELDS = [
    "kind", "program", "trace", "file", "trace_bytes", "compressor", "runs",
    "compressed_bytes", "ratio", "c_cpu_MBps", "d_cpu_MBps", "c_wall_MBps", "d_wall_MBps",
    "c_rss_MiB", "d_rss_MiB", "c_cpu_s", "c_user_s", "c_sys_s", "c_wall_s",
    "d_cpu_s", "d_user_s", "d_sys_s", "d_wall_s", "c_maxrss_KiB", "d_maxrss_KiB",
    "verified", "error",
] + [key + "_vs_xz" for key, _, _ in METRICS] + ["command", "tcgen"]

# The project's goals for tcgen (reported, never asserted):
# (what, metric, threshold against xz-9, also wall time). A goal with a wall
# factor is met only when CPU and wall time both meet it.
GOALS = [
    ("ratio ≥ xz-9's", "ratio", 1.0, False),
    ("ratio ≥ 1.5× xz-9's (stretch)", "ratio", 1.5, False),
    ("compression ≥ 20× faster than xz-9", "c_cpu_MBps", 20.0, False),
    ("decompression at least as fast as xz -d", "d_cpu_MBps", 1.0, True),
]
# The ratio ceiling of general-purpose compression, measured on a subset of
# the traces (bench/run.py --zpaq): tcgen is compared with it on that subset.
CEILING = "zpaq-m5"
# Goals stated per trace rather than on average: (what, the compressor
# compared with, threshold of the smallest per-trace ratio factor). Every
# kind's: no trace on which xz -9's file is the smaller. Branch traces'
# (control flow) besides: a plain tcgen compressor at least as small as the
# grammar pipeline of block ids, and the rest.
TRACE_GOALS = [
    ("ratio ≥ xz-9's on every trace", BASELINE, 1.0),
]
BRANCH_GOALS = [
    ("ratio ≥ 1.5× xz-9's on every trace", BASELINE, 1.5),
    ("ratio ≥ zstd-19-long's on every trace", "zstd-19-long", 1.0),
    (f"ratio ≥ {WPP_BLOCK_IDS}'s on every trace", WPP_BLOCK_IDS, 1.0),
]


def make_row(trace, compressor, result):
    n = trace.size
    c, d = result.comp, result.decomp
    ok = result.verified
    row = {
        "kind": trace.kind, "program": trace.program, "trace": trace.label,
        "file": trace.path, "trace_bytes": n, "compressor": compressor.name,
        "runs": result.runs, "compressed_bytes": result.compressed_bytes,
        "ratio": n / result.compressed_bytes if ok and result.compressed_bytes else None,
        "c_cpu_MBps": speed(n, c.cpu) if ok else None,
        "d_cpu_MBps": speed(n, d.cpu) if ok else None,
        "c_wall_MBps": speed(n, c.wall) if ok else None,
        "d_wall_MBps": speed(n, d.wall) if ok else None,
        "c_rss_MiB": c.maxrss_kib / 1024 if ok else None,
        "d_rss_MiB": d.maxrss_kib / 1024 if ok else None,
        "c_cpu_s": c.cpu, "c_user_s": c.user, "c_sys_s": c.sys, "c_wall_s": c.wall,
        "d_cpu_s": d.cpu, "d_user_s": d.user, "d_sys_s": d.sys, "d_wall_s": d.wall,
        "c_maxrss_KiB": c.maxrss_kib, "d_maxrss_KiB": d.maxrss_kib,
        "verified": "yes" if ok else "NO", "error": result.error,
        "command": compressor.command_line(),
    }
    return row


def _ratio_of(a, b):
    return a / b if a is not None and b else None


def add_relative(rows):
    """Adds <metric>_vs_xz to every row: its figure over xz-9's on the same trace."""
    base = {(r["kind"], r["file"]): r for r in rows if r["compressor"] == BASELINE}
    for r in rows:
        b = base.get((r["kind"], r["file"]))
        for key, _, _ in METRICS:
            r[key + "_vs_xz"] = _ratio_of(r[key], b[key]) if b else None


def summarize(rows, kind):
    """Per compressor of KIND: harmonic means of ratio and speeds, maximum of
    RSS, over the traces whose round trip verified; each also vs xz-9."""
    by_comp = {}
    for r in rows:
        if r["kind"] == kind:
            by_comp.setdefault(r["compressor"], []).append(r)
    summary = {}
    for name, group in by_comp.items():
        good = [r for r in group if r["verified"] == "yes"]
        s = {"compressor": name, "traces": len(group), "verified": len(good)}
        for key, _, fmt in METRICS:
            values = [r[key] for r in good]
            if not values:
                s[key] = None
            elif fmt == "rss":
                s[key] = max(values)
            else:
                s[key] = statistics.harmonic_mean(values)
        summary[name] = s
    base = summary.get(BASELINE)
    for s in summary.values():
        for key, _, _ in METRICS:
            s[key + "_vs_xz"] = _ratio_of(s[key], base[key]) if base else None
    return summary


def goals(summary, rows, kind):
    """[(compressor, [(what, factor, wall_factor, met)])] for every tcgen
    compressor of KIND; factor None (met None) when the compressor it is
    measured against was not run."""
    ceiling_traces = {r["file"] for r in rows
                      if r["kind"] == kind and r["compressor"] == CEILING and r["verified"] == "yes"}
    out = []
    for name, s in summary.items():
        if not name.startswith("tcgen"):
            continue
        checks = []
        for what, key, threshold, with_wall in GOALS:
            factor = s.get(key + "_vs_xz")
            wall = s.get(key.replace("_cpu_", "_wall_") + "_vs_xz") if with_wall else None
            met = None if factor is None else factor >= threshold and (not with_wall or (wall or 0) >= threshold)
            checks.append((what, factor, wall, met))
        factor = _ceiling_factor(rows, kind, name, ceiling_traces)
        checks.append((f"ratio ≥ {CEILING}'s ({len(ceiling_traces)} trace(s))", factor, None,
                       None if factor is None else factor >= 1.0))
        for what, other, threshold in TRACE_GOALS + (BRANCH_GOALS if is_branch_kind(kind) else []):
            factor = _worst_trace_factor(rows, kind, name, other)
            checks.append((what, factor, None, None if factor is None else factor >= threshold))
        out.append((name, checks))
    return out


def _worst_trace_factor(rows, kind, name, other):
    """The smallest, over KIND's traces, of NAME's ratio divided by OTHER's on
    the same trace; None unless both verified on every trace."""
    def ratios(compressor):
        return {r["file"]: r["ratio"] for r in rows if r["kind"] == kind
                and r["compressor"] == compressor and r["verified"] == "yes"}
    mine, theirs = ratios(name), ratios(other)
    traces = {r["file"] for r in rows if r["kind"] == kind}
    if not traces or not all(t in mine and theirs.get(t) for t in traces):
        return None
    return min(mine[t] / theirs[t] for t in traces)


def _ceiling_factor(rows, kind, name, traces):
    """NAME's harmonic-mean ratio over TRACES divided by the ceiling's."""
    def hmean(compressor):
        values = [r["ratio"] for r in rows if r["kind"] == kind and r["compressor"] == compressor
                  and r["file"] in traces and r["verified"] == "yes"]
        return statistics.harmonic_mean(values) if len(values) == len(traces) and values else None
    return _ratio_of(hmean(name), hmean(CEILING))


def before_after(summaries):
    """[(kind, before, after)] for every kind on which the paper's
    configuration ran (compressors.PAPER, where the project started): its
    summary record, and that of the tcgen compressor with the best
    harmonic-mean ratio on the kind. SUMMARIES: kind -> summarize()."""
    out = []
    for kind, summary in summaries.items():
        before = summary.get(PAPER[0])
        after = [s for name, s in summary.items()
                 if name.startswith("tcgen") and name != PAPER[0] and s["ratio"]]
        if before and before["ratio"] and after:
            out.append((kind, before, max(after, key=lambda s: s["ratio"])))
    return out


# The block-id pipelines of branch traces (compressors.py).
BLOCK_IDS = {name for name, _ in BLOCK_ID_SPECS} | {WPP_BLOCK_IDS}

# The columns of the before/after table: a subset of METRICS.
BEFORE_AFTER_METRICS = [m for m in METRICS if m[0] in ("ratio", "c_cpu_MBps", "d_cpu_MBps", "d_wall_MBps")]


# ---- formatting -----------------------------------------------------------

def _three_digits(value):
    """About three significant digits: 1234, 123, 12.3, 1.23."""
    if value >= 100:
        return f"{value:.0f}"
    if value >= 10:
        return f"{value:.1f}"
    return f"{value:.2f}"


def fmt_value(value, fmt):
    if value is None:
        return "-"
    return f"{value:.1f}" if fmt == "rss" else _three_digits(value)


def fmt_factor(factor):
    return "   -" if factor is None else "×" + _three_digits(factor)


def _cells(record, metrics=METRICS):
    """One text cell per metric: the value and its factor against the baseline."""
    return [f"{fmt_value(record[key], fmt)} {fmt_factor(record[key + '_vs_xz'])}"
            for key, _, fmt in metrics]


def _columns(lines, left):
    """LINES (lists of cells; None for an empty line) laid out in columns two
    spaces apart: the first LEFT cells left-aligned, the rest right-aligned.
    Cells beyond the first line's count (a note at a row's end) are appended
    as they are."""
    count = len(lines[0])
    widths = [max(len(line[i]) for line in lines if line) for i in range(count)]
    out = []
    for line in lines:
        cells = [] if line is None else [
            c.ljust(w) if i < left else c.rjust(w) for i, (c, w) in enumerate(zip(line, widths))]
        out.append("  ".join(cells + (line[count:] if line else [])).rstrip())
    return out


def text_table(rows, kind, summary, runs):
    """The per-kind table printed on stdout: trace rows, then h-mean rows."""
    kind_rows = [r for r in rows if r["kind"] == kind]
    ntraces = len({r["file"] for r in kind_rows})
    head = ["trace", "compressor", "out bytes"] + [h for _, h, _ in METRICS]
    body = []
    for r in kind_rows:
        body.append([r["trace"], r["compressor"], str(r["compressed_bytes"])] +
                    _cells(r) + ([] if r["verified"] == "yes" else ["ROUND TRIP FAILED: " + r["error"]]))
    body.append(None)
    for s in summary.values():
        body.append(["h-mean", s["compressor"], ""] + _cells(s))
    return "\n".join([f"== {kind}: {ntraces} trace(s), medians of {runs} run(s); × = relative to "
                      f"{BASELINE} on the same trace; MB/s of original data (10^6 B); "
                      f"h-mean = harmonic mean (RSS: max) =="] + _columns([head] + body, left=2))


def goals_text(kind, goal_list):
    lines = [f"Goals for {kind} (harmonic means, CPU time; reported, not asserted):"]
    for name, checks in goal_list:
        for i, (what, factor, wall, met) in enumerate(checks):
            verdict = "not measured" if met is None else ("met" if met else "NOT MET")
            extra = f" (wall {fmt_factor(wall)})" if wall is not None else ""
            lines.append(f"  {name if i == 0 else '':20} {what:40} {verdict:12} "
                         f"{fmt_factor(factor)}{extra}")
    if not goal_list:
        lines.append("  (no tcgen compressor measured)")
    return "\n".join(lines)


def before_after_text(pairs):
    head = ["kind", "", "compressor"] + [h for _, h, _ in BEFORE_AFTER_METRICS]
    body = []
    for kind, before, after in pairs:
        for i, (label, s) in enumerate((("before", before), ("after", after))):
            body.append([kind if i == 0 else "", label, s["compressor"]] +
                        _cells(s, BEFORE_AFTER_METRICS))
    return "\n".join([f"Before and after (harmonic means; × = relative to {BASELINE}'s; before: "
                      f"{PAPER[0]}, where the project started; after: tcgen's best ratio on the kind):"]
                     + ["  " + line for line in _columns([head] + body, left=3)])


def write_csv(rows, path):
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=CSV_FIELDS, extrasaction="ignore")
        w.writeheader()
        for r in rows:
            w.writerow({k: (f"{v:.6g}" if isinstance(v, float) else ("" if v is None else v))
                        for k, v in r.items()})


# ---- chart ------------------------------------------------------------------

def _gnuplot_quote(text):
    return "'" + text.replace("'", "''") + "'"


def _log_tics(lo, hi):
    """1-2-5 tick values inside [lo, hi], or 1..9 if that gives fewer than
    three: gnuplot labels only decades on a log axis, which leaves a narrow
    panel with one label or none."""
    for mantissas in ((1, 2, 5), (1, 2, 3, 4, 5, 6, 7, 8, 9)):
        tics, decade = [], 10.0 ** math.floor(math.log10(lo))
        while decade <= hi:
            tics += [m * decade for m in mantissas if lo <= m * decade <= hi]
            decade *= 10
        if len(tics) >= 3:
            break
    return "(" + ", ".join(f"{t:g}" for t in tics) + ")"


def _label_commands(points):
    """A `set label` per point; a label that would overprint an earlier one
    (points within ~25% in x and ~15% in y) goes below its point instead."""
    placed, commands = [], []
    for name, x, y in sorted(points, key=lambda p: (p[1], p[2])):
        crowded = any(abs(math.log(x / px)) < 0.25 and abs(math.log(y / py)) < 0.15
                      for px, py in placed)
        where = "left offset char 0.8,-0.9" if crowded else "left offset char 0.8,0.6"
        commands.append(f"set label {_gnuplot_quote(name)} at {x:.6g},{y:.6g} {where} "
                        "font ',9'")
        placed.append((x, y))
    return commands


def write_chart(summaries, out_dir, png_path):
    """One panel per kind: harmonic-mean compression ratio (y, log) against
    harmonic-mean decompression speed (x, CPU time, log: the tools span two
    decades), one labelled point per compressor, tcgen's in another colour.
    Returns None on success, else why no chart was drawn."""
    gnuplot = shutil.which("gnuplot")
    if not gnuplot:
        return "gnuplot not found (apt-get install gnuplot-nox)"
    panels = []
    for kind, summary in summaries.items():
        points = [(s["compressor"], s["d_cpu_MBps"], s["ratio"]) for s in summary.values()
                  if s["ratio"] and s["d_cpu_MBps"]]
        if not points:
            continue
        data = os.path.join(out_dir, f"chart-{kind}.dat")
        with open(data, "w") as f:
            for name, x, y in points:
                f.write(f'"{name}" {x:.6g} {y:.6g} {1 if name.startswith("tcgen") else 3}\n')
        xs, ys = [p[1] for p in points], [p[2] for p in points]
        panels.append((kind, data, points, (min(xs) / 1.6, max(xs) * 4),
                       (min(ys) / 1.4, max(ys) * 1.4)))
    if not panels:
        return "no verified results to draw"
    cols = 1 if len(panels) == 1 else 2
    rows = (len(panels) + cols - 1) // cols
    script = [
        f"set terminal pngcairo size {620 * cols},{460 * rows} font 'sans,10'",
        f"set output {_gnuplot_quote(png_path)}",
        f"set multiplot layout {rows},{cols} title 'Compression ratio vs decompression speed "
        "(harmonic means; tcgen in purple)'",
        "set logscale xy", "set grid xtics ytics lw 0.7 lc rgb '#b0b0b0' dt 3",
        "set xlabel 'decompression speed, MB/s of original data (CPU time)'",
        "set ylabel 'compression ratio'", "unset key",
    ]
    for kind, data, points, (x0, x1), (y0, y1) in panels:
        script += [f"set title {_gnuplot_quote(kind)}", "unset label",
                   f"set xrange [{x0:.6g}:{x1:.6g}]", f"set yrange [{y0:.6g}:{y1:.6g}]",
                   f"set xtics {_log_tics(x0, x1)}", f"set ytics {_log_tics(y0, y1)}"]
        script += _label_commands(points)
        script.append(f"plot {_gnuplot_quote(data)} using 2:3:4 with points pt 7 ps 1.5 "
                      "lc variable")
    script.append("unset multiplot")
    gp_path = os.path.join(out_dir, "chart.gp")
    with open(gp_path, "w") as f:
        f.write("\n".join(script) + "\n")
    done = subprocess.run([gnuplot, gp_path], capture_output=True, text=True)
    if done.returncode != 0:
        return "gnuplot failed: " + (done.stderr.strip().splitlines() or ["?"])[-1]
    return None


# ---- markdown -----------------------------------------------------------------

def _md_cell(value, factor, fmt, is_baseline):
    v = fmt_value(value, fmt)
    return v if is_baseline or value is None else f"{v} ({fmt_factor(factor)})"


def markdown_table(rows, kind, summary):
    head = ["trace", "compressor", "bytes out"] + [h for _, h, _ in METRICS]
    out = ["| " + " | ".join(head) + " |", "|" + "---|" * 2 + "---:|" * (len(head) - 2)]

    def line(first, name, size, record, failed):
        cells = [_md_cell(record[k], record[k + "_vs_xz"], fmt, record["compressor"] == BASELINE)
                 for k, _, fmt in METRICS]
        if failed:
            cells = [failed] + [""] * (len(cells) - 1)
        out.append("| " + " | ".join([first, name, size] + cells) + " |")

    for r in rows:
        if r["kind"] == kind:
            line(r["trace"], r["compressor"], f"{r['compressed_bytes']:,}", r,
                 "" if r["verified"] == "yes" else "round trip FAILED")
    for s in summary.values():
        line("**h-mean**", f"**{s['compressor']}**", "", s,
             "" if s["verified"] else "no verified trace")
    return "\n".join(out)


def markdown_goals(goal_list):
    out = ["| tcgen | goal | verdict | factor (CPU) | factor (wall) |", "|---|---|---|---:|---:|"]
    for name, checks in goal_list:
        for what, factor, wall, met in checks:
            verdict = "not measured" if met is None else ("met" if met else "**not met**")
            out.append(f"| {name} | {what} | {verdict} | "
                       f"{fmt_factor(factor).strip()} | "
                       f"{fmt_factor(wall) if wall is not None else ''} |")
    return "\n".join(out)


def markdown_before_after(pairs):
    head = ["kind", "configuration"] + [h for _, h, _ in BEFORE_AFTER_METRICS]
    out = ["| " + " | ".join(head) + " |", "|---|---|" + "---:|" * len(BEFORE_AFTER_METRICS)]
    for kind, before, after in pairs:
        for i, (label, s) in enumerate((("before", before), ("after", after))):
            cells = [_md_cell(s[k], s[k + "_vs_xz"], fmt, False) for k, _, fmt in BEFORE_AFTER_METRICS]
            out.append("| " + " | ".join([kind if i == 0 else "", f"{label}: `{s['compressor']}`"] + cells)
                       + " |")
    return "\n".join(out)


def markdown_report(context):
    """The Markdown section bench/run.py writes. CONTEXT: command, runs,
    machine items, kinds -> (rows, summary, goals), before_after (pairs from
    before_after()), traces, compressors,
    chart (file name relative to the document, or None), title (what the
    traces are, for the heading; may be empty)."""
    c = context
    md = [
        "## tcgen against bzip2, xz and zstd" + (f" on {c['title']}" if c.get("title") else ""),
        "",
        "Generated by `bench/run.py`; do not edit by hand, rerun it:",
        "",
        "    " + c["command"],
        "",
        "Every trace is compressed and decompressed by each compressor in the same run, "
        "from a file on disk to a file in one temporary directory (inputs warm in the page "
        f"cache). Figures are medians of {c['runs']} run(s). Speeds are in MB/s of original "
        "(uncompressed) data, 1 MB = 10^6 bytes; *CPU* speeds use user + sys time, as the "
        "TCgen paper does (§6.2), *wall* speeds elapsed time. RSS is peak resident memory. "
        f"Each figure in parentheses is relative to `{BASELINE}` on the same trace "
        "(for RSS, lower is better). Averages (**h-mean**) are harmonic means as in the "
        "paper (§6.5), except RSS: maximum. Every decompression was checked byte for byte "
        "against the original.",
        "",
        "### Machine",
        "",
    ]
    md += [f"- **{label}**: {value}" for label, value in c["machine"]]
    md += ["", "### Compressors", ""]
    md += [f"- `{name}`: `{comp} < trace > packed`, `{decomp} < packed > trace`"
           + (f"; `{name}` generated from `{spec}` by the tcgen under test" if spec else "")
           for name, (comp, decomp), spec in c["compressors"]]
    if any(name in BLOCK_IDS for name, _, _ in c["compressors"]):
        md += ["", "The block-id compressors of branch traces run `block-ids-filter`: "
               "`tcgen-branch-ids split` turns the trace into an id stream and a side table "
               "(docs/branch-ids.md); the ids are compressed by the compressor tcgen generated "
               f"from `{BLOCK_ID_SPECS[0][1]}` (`{BLOCK_ID_SPECS[0][0]}`) or held as a grammar "
               f"by `wpp build --raw` (`{WPP_BLOCK_IDS}`), the table by `xz -9 -T1`; "
               "decompression undoes both and `tcgen-branch-ids join` rebuilds the trace. Their "
               "size counts both parts and a 20-byte header giving their lengths; their times "
               "and peak RSS every step of the pipeline (the steps run one after another)."]
    md += ["", "### Traces", ""] + ([c["about"], ""] if c["about"] else [])
    md += ["| kind | trace | bytes | file |", "|---|---|---:|---|"]
    md += [f"| {t.kind} | {t.label} | {t.size:,} | `{t.display_path}` |" for t in c["traces"]]
    pairs = c["before_after"]
    if pairs:
        md += ["", "### Before and after", "",
               f"Harmonic means; each figure in parentheses relative to `{BASELINE}`'s. *Before*: "
               f"`{PAPER[0]}`, the configuration the project started from (TCgen(A), every stream "
               "through bzip2, decoding on one thread); *after*: the tcgen compressor with the best "
               "harmonic-mean ratio on the kind.", "", markdown_before_after(pairs)]
    for kind, (rows, summary, goal_list) in c["kinds"].items():
        md += ["", f"### {kind}", "", markdown_table(rows, kind, summary), "",
               "Goals (harmonic means; reported, not asserted):", "",
               markdown_goals(goal_list)]
    if c["chart"]:
        md += ["", "### Chart", "",
               "Harmonic-mean compression ratio against decompression speed (CPU time), "
               "both axes logarithmic; up and to the right is better.", "",
               f"![compression ratio vs decompression speed]({c['chart']})"]
    return "\n".join(md) + "\n"
