"""tcgen's traces in Python: any .tcz as numpy columns.

    import tcgen
    columns = tcgen.read("trace.tcz")        # {"field_1": array([...], dtype=uint64), ...}
    columns = tcgen.read("trace.tcz", spec="champsim")  # named by the spec: {"ip": ...}
    for block in tcgen.blocks("trace.tcz"):  # the same a block at a time, in bounded memory
        ...
    tcgen.write("out.tcz", "vpc3", columns, header=b"...")

A .tcz stores the spec that made it, so any file can be read: on the first
open of a spec the package has tcgen write its codec's C interface
(tcgen --emit=c-library) and the system's C++ compiler build it, then keeps
the library in $XDG_CACHE_HOME/tcgen/ (~/.cache/tcgen/) by the spec's
fingerprint; later opens compile nothing. Errors are tcgen.Error, with the
command line's one-line message. WETs saved by `wet build`:
tcgen.wet.open("run.wet") (tcgen/wet.py). See docs/python.md.
"""

import os

try:
    import numpy
except ImportError:
    raise ImportError("the tcgen package needs numpy: on Debian, apt-get install python3-numpy "
                      "(and use /usr/bin/python3), or pip install numpy") from None

from ._errors import Error
from ._library import Field, Library, Reader, Writer
from . import _build, _tcz, wet

__all__ = ["Error", "Field", "Library", "Reader", "Writer", "blocks", "codec", "open", "read", "wet", "write"]


def _examples_directory():
    config = getattr(_build, "_config", None)
    here = os.path.dirname(os.path.abspath(__file__))
    for candidate in [getattr(config, "EXAMPLES_DIR", None), os.path.join(here, "..", "..", "examples")]:
        if candidate and os.path.isdir(candidate):
            return candidate
    return None


def codec(spec):
    """The codec Library of a spec: a .tcg file, or the name of one of
    tcgen's examples ("vpc3", "champsim")."""
    path = str(spec)
    if not os.path.isfile(path):
        examples = _examples_directory()
        example = os.path.join(examples, path + ".tcg") if examples else None
        if example is None or not os.path.isfile(example):
            raise Error("no spec file '%s', and no example spec of that name%s" % (
                path, " (the examples: %s)" % ", ".join(sorted(name[:-4] for name in os.listdir(examples)
                                                                 if name.endswith(".tcg"))) if examples else ""))
        path = example
    return _build.library_for_spec(path)


def _library_of(path, spec):
    if spec is not None:
        return codec(spec)
    return _build.library_for_tcz(path, _tcz.fingerprint(path))


def open(path, spec=None):
    """A Reader of the .tcz `path`. `spec`: read it with that spec's codec
    rather than the one its preamble names (a file of another spec is then
    an Error)."""
    return _library_of(path, spec).reader(path)


def blocks(path, columns=None, spec=None):
    """The records of the .tcz `path` a block at a time, each a dict of numpy
    arrays by field name; `columns`: the fields wanted (all by default)."""
    with open(path, spec) as reader:
        while True:
            block = reader.read_block(columns)
            if block is None:
                return
            yield block


def read(path, columns=None, spec=None):
    """Every record of the .tcz `path` as a dict of numpy arrays by field name,
    one contiguous array per field of its width (uint8 to uint64)."""
    with open(path, spec) as reader:
        count = reader.record_count()
        if count is not None:
            # Known from the trailer: the library writes every value in its place.
            columns_read = reader.read(count, columns)
            if reader.block_records() != 0:  # reads on to the trailer, whose checks then run
                raise Error("corrupt input: the trailer counts %d records, the blocks hold more" % count)
            return columns_read
        parts = []  # a file cut short, which fails on its last block, or concatenated files
        while True:
            block = reader.read_block(columns)
            if block is None:
                break
            parts.append(block)
        wanted = reader._wanted(columns)
    if len(parts) == 1:
        return parts[0]
    return {field.name: numpy.concatenate([part[field.name] for part in parts]) if parts
            else numpy.empty(0, dtype=field.dtype) for field in wanted}


def write(path, spec, columns, header=b"", level=-1, block_bytes=0):
    """Writes the records `columns` (a dict of arrays by field name, all of
    one length; a field left out is zeros) to the .tcz `path` with the codec
    of `spec` (a .tcg file or an example's name), after the trace's `header`
    bytes. `level`: 0-9, as comp -0 .. -9 (-1: the default). Returns the
    records written."""
    with codec(spec).writer(path, header, level, block_bytes) as writer:
        writer.append(columns)
        return writer.records()
