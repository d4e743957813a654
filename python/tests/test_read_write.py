"""The package on the vpc3 example, whose codec the session compiles once:
columns against comp -d byte for byte, blocks, writing, the cache, and bad
files as tcgen.Error with the command line's message."""

import os
import shutil

import numpy
import pytest

import tcgen
from conftest import compressor, decompressed, interleaved


@pytest.fixture(scope="session")
def vpc3_tcz(goldens):
    return os.path.join(goldens, "vpc3.tcz")


def test_columns_interleaved_are_what_comp_d_writes(vpc3_tcz):
    expected, error = decompressed(compressor("vpc3"), vpc3_tcz)
    assert error is None
    columns = tcgen.read(vpc3_tcz)
    assert list(columns) == ["field_1", "field_2"]
    assert columns["field_1"].dtype == numpy.uint32 and columns["field_2"].dtype == numpy.uint64
    with tcgen.open(vpc3_tcz) as reader:
        while reader.read_block() is not None:
            pass
        rebuilt = interleaved(reader.header(), columns, reader.fields, 12, reader.tail())
    assert rebuilt == expected


def test_written_columns_read_back_block_by_block(tmp_path):
    count = 50000
    columns = {"field_1": (0x400000 + 4 * (numpy.arange(count) % 37)).astype(numpy.uint32),
               "field_2": numpy.arange(count, dtype=numpy.uint64) * 8 + 0x7ff000000000}
    path = str(tmp_path / "t.tcz")
    assert tcgen.write(path, "vpc3", columns, header=b"\x01\x02\x03\x04", level=1, block_bytes=12 * 10000) == count
    blocks = list(tcgen.blocks(path))
    assert [len(block["field_1"]) for block in blocks] == [10000] * 5
    read = tcgen.read(path)
    for name in columns:
        assert numpy.array_equal(read[name], columns[name])
    only = tcgen.read(path, columns=["field_2"])
    assert list(only) == ["field_2"] and numpy.array_equal(only["field_2"], columns["field_2"])
    with tcgen.open(path) as reader:
        assert reader.header() == b"\x01\x02\x03\x04"
        assert reader.record_count() == count
    # Two files one after the other: no count up front, the records of both.
    with open(path, "rb") as tcz:
        data = tcz.read()
    both = str(tmp_path / "both.tcz")
    with open(both, "wb") as out:
        out.write(data + data)
    with tcgen.open(both) as reader:
        assert reader.record_count() is None
    # From memory: the same records.
    with tcgen.codec("vpc3").reader(data) as reader:
        assert reader.record_count() == count
        assert numpy.array_equal(reader.read(count)["field_1"], columns["field_1"])
    assert numpy.array_equal(tcgen.read(both)["field_2"], numpy.concatenate([columns["field_2"]] * 2))


def test_a_field_left_out_is_written_as_zeros_and_mistakes_are_errors(tmp_path):
    path = str(tmp_path / "t.tcz")
    tcgen.write(path, "vpc3", {"field_2": [1, 2, 3]}, header=b"abcd")
    read = tcgen.read(path)
    assert read["field_1"].tolist() == [0, 0, 0] and read["field_2"].tolist() == [1, 2, 3]
    with pytest.raises(tcgen.Error, match="^the header has 0 bytes, the spec's has 4$"):
        tcgen.write(path, "vpc3", {"field_2": [1]})
    with pytest.raises(tcgen.Error, match="no field is named 'pc'"):
        tcgen.write(path, "vpc3", {"pc": [1]}, header=b"abcd")
    with pytest.raises(tcgen.Error, match="columns of different lengths"):
        tcgen.write(path, "vpc3", {"field_1": [1], "field_2": [1, 2]}, header=b"abcd")
    with pytest.raises(tcgen.Error, match="no example spec of that name"):
        tcgen.write(path, "no_such_spec", {}, header=b"abcd")


def test_a_second_open_compiles_nothing(vpc3_tcz, cache):
    tcgen.read(vpc3_tcz)
    libraries = [os.path.join(root, name) for root, _, names in os.walk(cache) for name in names
                 if name.endswith(".so")]
    times = {path: os.stat(path).st_mtime_ns for path in libraries}
    before = tcgen._build.compilations
    tcgen.read(vpc3_tcz)
    tcgen.read(vpc3_tcz, spec="vpc3")
    assert tcgen._build.compilations == before
    assert {path: os.stat(path).st_mtime_ns for path in libraries} == times


def damaged_files(vpc3_tcz, directory):
    """Files cut short and with a byte flipped, in the preamble and past it."""
    with open(vpc3_tcz, "rb") as tcz:
        data = tcz.read()
    files = {"empty": b"", "not_tcz": b"hello, world\n" * 10, "preamble_cut": data[:10],
             "header_cut": data[:120], "half": data[:len(data) // 2], "last_byte_cut": data[:-1]}
    for offset in (60, len(data) // 2, len(data) - 20):
        flipped = bytearray(data)
        flipped[offset] ^= 0x10
        files["flipped_%d" % offset] = bytes(flipped)
    paths = {}
    for name, content in files.items():
        paths[name] = str(directory / (name + ".tcz"))
        with open(paths[name], "wb") as out:
            out.write(content)
    return paths


def test_bad_files_raise_the_command_lines_message(vpc3_tcz, tmp_path):
    comp = compressor("vpc3")
    for name, path in damaged_files(vpc3_tcz, tmp_path).items():
        _, expected = decompressed(comp, path)
        assert expected is not None, name
        with pytest.raises(tcgen.Error) as raised:
            tcgen.read(path)
        assert str(raised.value) == expected, name
        assert "\n" not in str(raised.value)


def test_a_file_of_another_spec_is_refused_as_the_command_line_refuses_it(goldens):
    other = os.path.join(goldens, "champsim.tcz")
    _, expected = decompressed(compressor("vpc3"), other)
    with pytest.raises(tcgen.Error) as raised:
        tcgen.read(other, spec="vpc3")
    assert str(raised.value) == expected
    assert str(raised.value).startswith("this .tcz was made by a different spec")


def test_a_missing_file_and_a_missing_tcgen(tmp_path, monkeypatch):
    with pytest.raises(tcgen.Error, match="^cannot open '.*missing.tcz': No such file or directory$"):
        tcgen.read(str(tmp_path / "missing.tcz"))
    monkeypatch.setenv("TCGEN", "")
    monkeypatch.setenv("PATH", "")
    monkeypatch.setattr(tcgen._build, "_config", None)
    with pytest.raises(tcgen.Error, match="cannot find tcgen"):
        tcgen._build.find_tcgen()


def test_a_missing_compiler_is_a_clear_error(goldens, tmp_path, monkeypatch):
    if shutil.which("tcgen") is None and not os.environ.get("TCGEN") and tcgen._build._config is None:
        pytest.skip("no tcgen")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))  # an empty cache: the codec must be built
    monkeypatch.setenv("CXX", "")
    monkeypatch.setattr(tcgen._build.shutil, "which", lambda name: None)
    with pytest.raises(tcgen.Error, match="cannot find a C\\+\\+ compiler"):
        tcgen.read(os.path.join(goldens, "vpc3.tcz"))


@pytest.mark.slow
def test_a_files_unnamed_columns_and_a_specs_named_ones_do_not_mix(tmp_path):
    # A .tcz stores its spec without field names: read alone its columns are
    # field_1, field_2; the spec file that names them still writes by name,
    # whichever was compiled first (they once shared a cached library).
    path = str(tmp_path / "stores.tcz")
    columns = {"pc": numpy.arange(100, dtype=numpy.uint32), "address": numpy.arange(100, dtype=numpy.uint64) * 8}
    tcgen.write(path, "x86_store_addresses", columns, header=b"STA1")
    assert list(tcgen.read(path)) == ["field_1", "field_2"]
    assert tcgen.write(path, "x86_store_addresses", columns, header=b"STA1") == 100
    named = tcgen.read(path, spec="x86_store_addresses")
    assert list(named) == ["pc", "address"] and numpy.array_equal(named["address"], columns["address"])
