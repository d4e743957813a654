"""The list of traces to measure: from a corpus manifest or from --traces.

A trace is (kind, program, path, bytes, sha256). The kind decides which tcgen
specs apply (see compressors.py); the program only labels table rows.
"""

import hashlib
import os
from dataclasses import dataclass


@dataclass
class Trace:
    kind: str
    program: str
    path: str
    size: int
    label: str = ""         # unique within its kind; set by label_traces()
    display_path: str = ""  # as shown in reports; set by the caller


class CorpusError(Exception):
    pass


# Column names accepted in a manifest's header line, lower-cased; a manifest
# without a header line is read positionally in this order.
MANIFEST_COLUMNS = ("kind", "program", "file", "bytes", "sha256")
COLUMN_ALIASES = {"path": "file", "size": "bytes", "sha-256": "sha256", "name": "program"}


def _sha256(path):
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def read_manifest(manifest_path, check_sha256=True):
    """Reads a TSV manifest (kind, program, file, bytes, sha256).

    Blank lines and '#' comments are skipped; a first line whose fields are
    column names is taken as the header, so that the column order may change.
    Relative file paths are relative to the manifest's directory. Sizes and
    checksums are checked so that a stale manifest cannot silently produce
    figures for the wrong bytes.
    """
    base = os.path.dirname(os.path.abspath(manifest_path))
    columns = list(MANIFEST_COLUMNS)
    traces = []
    with open(manifest_path, encoding="utf-8") as f:
        lines = [(n, line.rstrip("\r\n")) for n, line in enumerate(f, 1)]
    for lineno, line in lines:
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        fields = [x.strip() for x in line.split("\t")]
        names = [COLUMN_ALIASES.get(x.lower(), x.lower()) for x in fields]
        if not traces and "kind" in names and "file" in names:
            columns = names
            continue
        row = dict(zip(columns, fields))
        where = f"{manifest_path}:{lineno}"
        if not row.get("kind") or not row.get("file"):
            raise CorpusError(f"{where}: expected tab-separated kind, program, file, bytes, sha256")
        path = row["file"] if os.path.isabs(row["file"]) else os.path.join(base, row["file"])
        if not os.path.isfile(path):
            raise CorpusError(f"{where}: trace file not found: {path}")
        size = os.path.getsize(path)
        if row.get("bytes") and row["bytes"].isdigit() and int(row["bytes"]) != size:
            raise CorpusError(f"{where}: {path} has {size} bytes, manifest says {row['bytes']}")
        if check_sha256 and row.get("sha256") and _sha256(path) != row["sha256"].lower():
            raise CorpusError(f"{where}: {path}: sha256 differs from the manifest's")
        program = row.get("program") or os.path.basename(path)
        traces.append(Trace(row["kind"], program, path, size))
    if not traces:
        raise CorpusError(f"{manifest_path}: no traces listed")
    return traces


def parse_traces_option(value):
    """--traces=KIND:FILE,KIND:FILE... ; the program label is the file's name."""
    traces = []
    for item in filter(None, value.split(",")):
        kind, sep, path = item.partition(":")
        if not sep or not kind or not path:
            raise CorpusError(f"--traces: expected KIND:FILE, got '{item}'")
        if not os.path.isfile(path):
            raise CorpusError(f"--traces: trace file not found: {path}")
        program = os.path.basename(path).split(".")[0] or os.path.basename(path)
        traces.append(Trace(kind, program, os.path.abspath(path), os.path.getsize(path)))
    if not traces:
        raise CorpusError("--traces: no traces given")
    return traces


def label_traces(traces):
    """Row labels: the program name, or the file name where a kind has two
    traces of the same program."""
    seen = {}
    for t in traces:
        seen.setdefault((t.kind, t.program), []).append(t)
    for group in seen.values():
        for t in group:
            t.label = t.program if len(group) == 1 else os.path.basename(t.path)


def kinds_in_order(traces):
    """Kinds in the order they first appear (the manifest's order)."""
    return list(dict.fromkeys(t.kind for t in traces))
