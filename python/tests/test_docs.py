"""docs/python.md's worked analysis, run as written (the Python blocks
between "<!-- analysis: start" and "<!-- analysis: end"), so that it never
rots: in a directory holding the toy WET as run.wet. Slow: the store
trace's codec is compiled on first use."""

import os
import re
import shutil

import pytest

DOC = os.path.join(os.path.dirname(__file__), "..", "..", "docs", "python.md")


def analysis_code():
    with open(DOC) as doc:
        text = doc.read()
    section = re.search(r"<!-- analysis: start.*?\n(.*?)<!-- analysis: end", text, re.S)
    assert section, "docs/python.md: no worked analysis"
    return "\n".join(re.findall(r"```python\n(.*?)```", section.group(1), re.S))


@pytest.mark.slow
def test_the_worked_analysis_runs_as_written(toy, tmp_path, monkeypatch, capsys):
    shutil.copy(toy[0], tmp_path / "run.wet")
    monkeypatch.chdir(tmp_path)
    exec(compile(analysis_code(), "docs/python.md (worked analysis)", "exec"), {})
    printed = capsys.readouterr().out
    assert re.search(r"^\d+ stores, \d+ lines, \d+ reuses$", printed, re.M), printed
    assert re.search(r"^hottest loads: 0x[0-9a-f]+ \(\d+\)", printed, re.M), printed
    assert re.search(r"^its slice at t=\d+: [1-9]\d* items", printed, re.M), printed
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        return
    assert (tmp_path / "analysis.png").stat().st_size > 1000
