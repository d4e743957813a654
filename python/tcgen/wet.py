"""Whole Execution Traces in Python: a .wet saved by `wet build`, queried
as the `wet` command queries it (docs/wet.md), through libtcgen_wet_c
(include/tcgen/tcgen_wet.h), built with tcgen, never compiled on use.

    import tcgen.wet
    with tcgen.wet.open("run.wet") as trace:
        trace.stats()                  # {"executed": ..., "blocks": ..., ...}
        cf = trace.cf(1, 1000)         # {"t": ..., "block": ..., "pc": ...} numpy arrays
        trace.values(0x401234)         # {"t", "kind", "slot", "value"}
        trace.slice(0x401234, instance=3, count=100)
        for part in trace.slice_parts(0x401234, instance=3):  # a slice too large to hold
            ...                        # part: the next rows, the same dict of arrays

Query results are dicts of numpy arrays, one row per line `wet` prints;
kinds are one-character strings ('L', 'S', 'B', 'R'). Errors are tcgen.Error
with the line `wet` prints after "wet: ".
"""

import ctypes
import os

import numpy

from ._errors import Error
from ._library import Handle

ABI_VERSION = 3  # TCGEN_WET_ABI_VERSION of the header this module speaks
ALL = 2**64 - 1  # TCGEN_WET_ALL
_NONE = 2**64 - 1  # TCGEN_WET_NONE: an INSTANCE, --at or --from not given

_OK = 0
_p = ctypes.POINTER
_u8, _u32, _u64 = ctypes.c_uint8, ctypes.c_uint32, ctypes.c_uint64

try:
    from . import _config  # written by CMake: where the build's or the installation's library is
except ImportError:
    _config = None


class _Stats(ctypes.Structure):
    _fields_ = [("executed", _u64), ("blocks", _u64), ("nodes", _u64), ("events", _u64), ("defs", _u64)]


def _rows(*columns):
    """A ctypes mirror of one of the header's result structures: `rows`, then
    one pointer per column, named as the dict of arrays names them."""
    return type("_Rows", (ctypes.Structure,), {
        "_fields_": [("rows", ctypes.c_size_t)] + [(name, _p(kind)) for name, kind in columns],
        "names": [name for name, _ in columns]})


_Top = _rows(("kind", ctypes.c_char), ("executions", _u64), ("pc", _u64), ("id", _u32))
_Accesses = _rows(("t", _u32), ("kind", ctypes.c_char), ("slot", _u8), ("value", _u64), ("address", _u64))
_Defs = _rows(("t", _u32), ("slot", _u8), ("def_t", _u32), ("def_slot", _u8), ("def_pc", _u64))
_Slice = _rows(("t", _u32), ("kind", ctypes.c_char), ("pc", _u64), ("slot", _u8), ("id", _u32))

_SIGNATURES = {
    "tcgen_wet_abi_version": (ctypes.c_uint, []),
    "tcgen_wet_open": (ctypes.c_int, [ctypes.c_char_p, _p(ctypes.c_void_p)]),
    "tcgen_wet_share": (ctypes.c_int, [ctypes.c_void_p, _p(ctypes.c_void_p)]),
    "tcgen_wet_error": (ctypes.c_char_p, [ctypes.c_void_p]),
    "tcgen_wet_free": (None, [ctypes.c_void_p]),
    "tcgen_wet_get_stats": (ctypes.c_int, [ctypes.c_void_p, _p(_Stats)]),
    "tcgen_wet_cf": (ctypes.c_int, [ctypes.c_void_p, _u64, ctypes.c_size_t, ctypes.c_void_p, ctypes.c_void_p,
                                    _p(ctypes.c_size_t)]),
    "tcgen_wet_top": (ctypes.c_int, [ctypes.c_void_p, _u64, _p(_Top)]),
    "tcgen_wet_accesses": (ctypes.c_int, [ctypes.c_void_p, _u64, _p(_Accesses)]),
    "tcgen_wet_def": (ctypes.c_int, [ctypes.c_void_p, _u64, _u64, _u64, _p(_Defs)]),
    "tcgen_wet_slice": (ctypes.c_int, [ctypes.c_void_p, _u64, _u64, _u64, _u64, _u64, _p(_Slice)]),
    "tcgen_wet_slice_walk_open": (ctypes.c_int, [ctypes.c_void_p, _u64, _u64, _u64, _u64, _u64, _u64,
                                                 _p(ctypes.c_void_p)]),
    "tcgen_wet_slice_walk_next": (ctypes.c_int, [ctypes.c_void_p, ctypes.c_size_t, _p(_Slice)]),
    "tcgen_wet_slice_walk_free": (None, [ctypes.c_void_p]),
}

_library = None


def find_library():
    """The path of libtcgen_wet_c: $TCGEN_WET_LIBRARY, or the build or
    installation this package came with."""
    for candidate in [os.environ.get("TCGEN_WET_LIBRARY"), getattr(_config, "WET_LIBRARY", None)]:
        if candidate and os.path.isfile(candidate):
            return candidate
    raise Error("cannot find libtcgen_wet_c, the WET library built with tcgen: "
                "set TCGEN_WET_LIBRARY=/path/to/libtcgen_wet_c.so")


def _c():
    global _library
    if _library is None:
        path = find_library()
        try:
            library = ctypes.CDLL(path)
            for name, (result, arguments) in _SIGNATURES.items():
                function = getattr(library, name)
                function.restype = result
                function.argtypes = arguments
        except (OSError, AttributeError) as failure:
            raise Error("cannot load the WET library %s: %s" % (path, failure)) from None
        version = library.tcgen_wet_abi_version()
        if version != ABI_VERSION:
            raise Error("the WET library %s has C ABI version %d, this package speaks %d"
                        % (path, version, ABI_VERSION))
        _library = library
    return _library


def _arrays(result, rename=None):
    """The columns of a result structure copied into numpy arrays (the
    library's are valid only until the next query); kinds as strings."""
    arrays = {}
    for name in result.names:
        pointer = getattr(result, name)
        if result.rows == 0:
            dtype = "U1" if pointer._type_ is ctypes.c_char else numpy.dtype(pointer._type_)
            array = numpy.empty(0, dtype=dtype)
        elif pointer._type_ is ctypes.c_char:
            array = numpy.frombuffer(ctypes.string_at(pointer, result.rows), dtype="S1").astype("U1")
        else:
            array = numpy.ctypeslib.as_array(pointer, shape=(result.rows,)).copy()
        arrays[(rename or {}).get(name, name)] = array
    return arrays


def _optional(number):
    return _NONE if number is None else int(number)


class Wet(Handle):
    """One opened .wet, used by one thread at a time; share() gives another
    thread its own Wet on the same loaded trace."""

    def __init__(self, path, _shared_from=None):
        self._handle = ctypes.c_void_p()
        self._c = _c()
        handle = ctypes.c_void_p()
        if _shared_from is None:
            status = self._c.tcgen_wet_open(os.fsencode(path), ctypes.byref(handle))
        else:
            status = self._c.tcgen_wet_share(_shared_from._handle, ctypes.byref(handle))
        self._handle = handle
        if status != _OK:
            message = self._message()
            self.close()
            raise Error(message)
        self.path = str(path)

    def share(self):
        """Another Wet on this one's trace, without a second copy of it: one
        per thread, and the threads query at once (the library runs without
        the GIL). The trace stays until every Wet sharing it is closed."""
        return Wet(self.path, _shared_from=self)

    def _message(self):
        if not self._handle:
            return "out of memory"
        return self._c.tcgen_wet_error(self._handle).decode(errors="replace")

    def _check(self, status):
        if status != _OK:
            raise Error(self._message())

    def stats(self):
        """What `wet build` reports: executed (timestamps 1..executed), blocks,
        nodes, events (executed loads and stores), defs (loads with a def)."""
        stats = _Stats()
        self._check(self._c.tcgen_wet_get_stats(self._handle, ctypes.byref(stats)))
        return {name: getattr(stats, name) for name, _ in _Stats._fields_}

    def cf(self, start=1, count=None):
        """The blocks executed at timestamps start, start + 1, ... (at most
        `count`, all to the end by default): {"t", "block", "pc"} (`wet cf --ids`)."""
        if count is None:
            count = max(0, self.stats()["executed"] - int(start) + 1)
        blocks = numpy.empty(count, dtype=numpy.uint32)
        pcs = numpy.empty(count, dtype=numpy.uint64)
        written = ctypes.c_size_t()
        self._check(self._c.tcgen_wet_cf(self._handle, int(start), count, blocks.ctypes.data, pcs.ctypes.data,
                                         ctypes.byref(written)))
        written = written.value
        return {"t": numpy.arange(int(start), int(start) + written, dtype=numpy.uint32),
                "block": blocks[:written], "pc": pcs[:written]}

    def top(self, n=10):
        """`wet top --count=n`: the n most executed blocks ('B'), then loads
        ('L') and stores ('S'): {"kind", "executions", "pc", "id"}."""
        result = _Top()
        self._check(self._c.tcgen_wet_top(self._handle, int(n), ctypes.byref(result)))
        return _arrays(result)

    def _accesses(self, pc, column):
        result = _Accesses()
        self._check(self._c.tcgen_wet_accesses(self._handle, int(pc), ctypes.byref(result)))
        arrays = _arrays(result)
        return {name: arrays[name] for name in ("t", "kind", "slot", column)}

    def values(self, pc):
        """`wet values PC`: {"t", "kind", "slot", "value"}, sorted by (t, slot)."""
        return self._accesses(pc, "value")

    def addresses(self, pc):
        """`wet addresses PC`: {"t", "kind", "slot", "address"}."""
        return self._accesses(pc, "address")

    def def_(self, pc, instance=None, at=None):
        """`wet def PC INSTANCE` or `--at=T` (exactly one): per load of pc
        there, {"t", "slot", "def_t", "def_slot", "def_pc"}; def_t 0: none."""
        result = _Defs()
        self._check(self._c.tcgen_wet_def(self._handle, int(pc), _optional(instance), _optional(at),
                                          ctypes.byref(result)))
        return _arrays(result)

    def slice(self, pc, instance=None, at=None, from_=None, count=None, until=None):
        """`wet slice PC INSTANCE|--at=T --from=FROM --until=UNTIL
        --count=COUNT`: the backward dynamic slice, {"t", "kind", "pc",
        "slot", "id"}, t descending."""
        parts = list(self.slice_parts(pc, instance, at, from_, count, until))
        if len(parts) <= 1:
            return parts[0] if parts else _arrays(_Slice())
        return {name: numpy.concatenate([part[name] for part in parts]) for name in _Slice.names}

    def slice_parts(self, pc, instance=None, at=None, from_=None, count=None, until=None, rows=1 << 20):
        """The slice() of the same arguments, yielded as the walk back
        through time finds it: dicts of arrays of at most `rows` rows, so
        that a slice of any size takes the memory of one part. Errors in
        the arguments are raised at the first next(). Other queries may run
        between two parts; closing the trace ends the walk (an Error)."""
        walk = ctypes.c_void_p()
        self._check(self._c.tcgen_wet_slice_walk_open(
            self._handle, int(pc), _optional(instance), _optional(at), _optional(from_), _optional(until),
            ALL if count is None else int(count), ctypes.byref(walk)))
        try:
            while True:
                if not self._handle:  # the walk reads the trace: it ends with it
                    raise Error("%s: error: the WET was closed during its slice's walk" % self.path)
                result = _Slice()
                self._check(self._c.tcgen_wet_slice_walk_next(walk, int(rows), ctypes.byref(result)))
                if result.rows == 0:
                    return
                yield _arrays(result)
        finally:
            self._c.tcgen_wet_slice_walk_free(walk)

    def _free(self, handle):
        self._c.tcgen_wet_free(handle)


def open(path):
    """The .wet `path`, opened (a Wet); an Error with `wet`'s message if it
    is missing, damaged or truncated."""
    return Wet(path)
