"""What the tests share: the golden .tcz files and the compressors the
build made of the example specs (tests/roundtrip), and a codec cache. Fast
tests use one cache kept in the build tree (TCGEN_TEST_CACHE), so that a
session compiles the vpc3 codec at most once; tests marked slow compile
every example's."""

import os
import subprocess
import sys

import pytest


def pytest_configure(config):
    config.addinivalue_line("markers", "slow: compiles many codecs (ctest -L slow)")


@pytest.fixture(scope="session")
def goldens():
    directory = os.environ.get("TCGEN_TEST_GOLDENS")
    if not directory:
        directory = os.path.join(os.path.dirname(__file__), "..", "..", "tests", "golden", "tcz")
    return directory


@pytest.fixture(scope="session", autouse=True)
def cache(tmp_path_factory):
    """The codec cache of the session's fast tests."""
    directory = os.environ.get("TCGEN_TEST_CACHE") or str(tmp_path_factory.mktemp("cache"))
    os.environ["XDG_CACHE_HOME"] = directory
    return directory


def compressor(name):
    """The path of comp_NAME, the build's compressor of a spec, or a skip."""
    directory = os.environ.get("TCGEN_TEST_COMPRESSORS", "")
    path = os.path.join(directory, "comp_" + name)
    if not os.access(path, os.X_OK):
        pytest.skip("no compressor comp_%s (build the target, or set TCGEN_TEST_COMPRESSORS)" % name)
    return path


def decompressed(comp, tcz_path):
    """`comp -d < tcz_path`: its bytes, or the one-line message after "error: "."""
    with open(tcz_path, "rb") as tcz:
        ran = subprocess.run([comp, "-d"], stdin=tcz, capture_output=True)
    if ran.returncode != 0:
        line = ran.stderr.decode().splitlines()[0]
        return None, line.split("error: ", 1)[1]
    return ran.stdout, None


def interleaved(reader_header, columns, fields, record_bytes, tail):
    """The trace's bytes from its columns: what comp -d writes."""
    import numpy
    dtype = numpy.dtype({"names": [field.name for field in fields],
                         "formats": ["<u%d" % (field.bits // 8) for field in fields],
                         "offsets": [field.offset for field in fields], "itemsize": record_bytes})
    count = len(columns[fields[0].name]) if fields else 0
    records = numpy.zeros(count, dtype=dtype)
    for field in fields:
        records[field.name] = columns[field.name]
    return reader_header + records.tobytes() + tail


def wet_command():
    """The build's wet command (TCGEN_TEST_WET), or a skip."""
    path = os.environ.get("TCGEN_TEST_WET", "")
    if not os.access(path, os.X_OK):
        pytest.skip("no wet command (set TCGEN_TEST_WET)")
    return path


def run_wet(*arguments):
    """`wet ARGUMENTS`: its output lines, or an Error's line after "wet: "."""
    ran = subprocess.run([wet_command()] + [str(argument) for argument in arguments], capture_output=True, text=True)
    if ran.returncode != 0:
        return None, ran.stderr.strip().splitlines()[-1].split("wet: ", 1)[1]
    return ran.stdout.splitlines(), ran.stderr


@pytest.fixture(scope="session")
def toy(tmp_path_factory):
    """The toy WET's path and the build line `wet build` printed."""
    wet_command()
    script = os.environ.get("TCGEN_TEST_SYNTHETIC_WET") or os.path.join(
        os.path.dirname(__file__), "..", "..", "tests", "wet", "make_synthetic_wet.py")
    work = tmp_path_factory.mktemp("wet")
    subprocess.run([sys.executable, script, str(work / "toy"), "2"], check=True)
    lines, report = run_wet("build", work / "toy", work / "toy.wet")
    assert lines is not None, report
    return str(work / "toy.wet"), report
