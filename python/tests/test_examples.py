"""Slow (a codec compiled per spec): every example spec's golden .tcz read
as columns equals comp -d's output byte for byte, and the cache from empty:
the first open compiles, the second nothing, a changed spec again."""

import os

import numpy
import pytest

import tcgen
from conftest import compressor, decompressed, interleaved

EXAMPLES = ["any_file", "branch_ids", "champsim", "tcgen_b", "vpc3", "x86_branches", "x86_cache_misses",
            "x86_load_values", "x86_store_addresses"]


@pytest.mark.slow
@pytest.mark.parametrize("name", EXAMPLES)
def test_every_example_reads_as_comp_d_writes(goldens, name):
    path = os.path.join(goldens, name + ".tcz")
    expected, error = decompressed(compressor(name), path)
    assert error is None
    columns = tcgen.read(path)
    with tcgen.open(path) as reader:
        while reader.read_block() is not None:
            pass
        library = reader._library
        rebuilt = interleaved(reader.header(), columns, reader.fields, library.record_bytes, reader.tail())
    assert rebuilt == expected


@pytest.mark.slow
def test_the_cache_from_empty(goldens, tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    start = tcgen._build.compilations
    vpc3 = os.path.join(goldens, "vpc3.tcz")
    tcgen.read(vpc3)
    assert tcgen._build.compilations == start + 1
    tcgen.read(vpc3)
    assert tcgen._build.compilations == start + 1
    # The same spec with other table sizes: another fingerprint, another codec.
    with open(tcgen._examples_directory() + "/vpc3.tcg") as original:
        text = original.read().replace("L1 = 65536", "L1 = 4096")
    changed = tmp_path / "vpc3_small.tcg"
    changed.write_text(text)
    tcgen.write(str(tmp_path / "t.tcz"), str(changed), {"field_2": numpy.arange(1000, dtype=numpy.uint64)},
                header=b"abcd")
    assert tcgen._build.compilations == start + 2
    assert tcgen.read(str(tmp_path / "t.tcz"))["field_2"].tolist() == list(range(1000))
    assert tcgen._build.compilations == start + 2
    # Two libraries, and the second names a .tcz finds the first by (its unnamed fields).
    names = os.listdir(tmp_path / "cache" / "tcgen")
    assert len([name for name in names if name.endswith(".so") and not name.endswith("-tcz.so")]) == 2
    # Other compiler flags: another build of the same code, once.
    monkeypatch.setenv("TCGEN_CXXFLAGS", "-O1")
    tcgen.read(vpc3)
    assert tcgen._build.compilations == start + 3
    tcgen.read(vpc3)
    assert tcgen._build.compilations == start + 3
