"""The C interface of one spec's codec (include/tcgen/tcgen_codec.h),
loaded with ctypes: its fields, and readers and writers of its .tcz files
whose columns are numpy arrays written in place by the library."""

import ctypes

import numpy

from ._errors import Error

ABI_VERSION = 1  # TCGEN_CODEC_ABI_VERSION of the header this module speaks

_OK = 0
_UNKNOWN_RECORD_COUNT = 2**64 - 1  # TCGEN_UNKNOWN_RECORD_COUNT
_DTYPES = {8: numpy.uint8, 16: numpy.uint16, 32: numpy.uint32, 64: numpy.uint64}

_c_size_p = ctypes.POINTER(ctypes.c_size_t)
_c_uint64_p = ctypes.POINTER(ctypes.c_uint64)
_c_bytes_p = ctypes.POINTER(ctypes.POINTER(ctypes.c_uint8))


def _declare(library):
    """Sets the argument and result types of every function of the ABI."""
    signatures = {
        "tcgen_codec_abi_version": (ctypes.c_uint, []),
        "tcgen_codec_tcgen_version": (ctypes.c_char_p, []),
        "tcgen_codec_spec_text": (ctypes.c_char_p, []),
        "tcgen_codec_fingerprint": (ctypes.c_uint64, []),
        "tcgen_codec_record_bytes": (ctypes.c_size_t, []),
        "tcgen_codec_header_bytes": (ctypes.c_size_t, []),
        "tcgen_codec_field_count": (ctypes.c_size_t, []),
        "tcgen_codec_field_name": (ctypes.c_char_p, [ctypes.c_size_t]),
        "tcgen_codec_field_bits": (ctypes.c_uint, [ctypes.c_size_t]),
        "tcgen_codec_field_offset": (ctypes.c_size_t, [ctypes.c_size_t]),
        "tcgen_reader_open": (ctypes.c_int, [ctypes.c_char_p, ctypes.POINTER(ctypes.c_void_p)]),
        "tcgen_reader_open_memory": (
            ctypes.c_int, [ctypes.c_void_p, ctypes.c_size_t, ctypes.POINTER(ctypes.c_void_p)]),
        "tcgen_reader_error": (ctypes.c_char_p, [ctypes.c_void_p]),
        "tcgen_reader_header": (ctypes.c_int, [ctypes.c_void_p, _c_bytes_p, _c_size_p]),
        "tcgen_reader_record_count": (ctypes.c_int, [ctypes.c_void_p, _c_uint64_p]),
        "tcgen_reader_block_records": (ctypes.c_int, [ctypes.c_void_p, _c_uint64_p]),
        "tcgen_reader_read_columns": (
            ctypes.c_int, [ctypes.c_void_p, ctypes.POINTER(ctypes.c_void_p), ctypes.c_size_t, _c_size_p]),
        "tcgen_reader_position": (ctypes.c_uint64, [ctypes.c_void_p]),
        "tcgen_reader_tail": (ctypes.c_int, [ctypes.c_void_p, _c_bytes_p, _c_size_p]),
        "tcgen_reader_free": (None, [ctypes.c_void_p]),
        "tcgen_writer_create": (
            ctypes.c_int, [ctypes.c_char_p, ctypes.c_int, ctypes.c_uint64, ctypes.c_void_p, ctypes.c_size_t,
                           ctypes.POINTER(ctypes.c_void_p)]),
        "tcgen_writer_error": (ctypes.c_char_p, [ctypes.c_void_p]),
        "tcgen_writer_append_columns": (
            ctypes.c_int, [ctypes.c_void_p, ctypes.POINTER(ctypes.c_void_p), ctypes.c_size_t]),
        "tcgen_writer_records": (ctypes.c_uint64, [ctypes.c_void_p]),
        "tcgen_writer_close": (ctypes.c_int, [ctypes.c_void_p]),
        "tcgen_writer_free": (None, [ctypes.c_void_p]),
    }
    for name, (result, arguments) in signatures.items():
        function = getattr(library, name)
        function.restype = result
        function.argtypes = arguments


class Field:
    """One field of a record: its column name, width in bits, byte offset in
    the record, and the numpy dtype of its column."""

    def __init__(self, name, bits, offset):
        self.name = name
        self.bits = bits
        self.offset = offset
        self.dtype = numpy.dtype(_DTYPES[bits])

    def __repr__(self):
        return "Field(%r, %d, %d)" % (self.name, self.bits, self.offset)


class Library:
    """A loaded codec library: the spec's fields and the .tcz files of that spec."""

    def __init__(self, path):
        try:
            self._c = ctypes.CDLL(str(path))
            _declare(self._c)
        except (OSError, AttributeError) as failure:
            raise Error("cannot load the codec library %s: %s" % (path, failure)) from None
        version = self._c.tcgen_codec_abi_version()
        if version != ABI_VERSION:
            raise Error("the codec library %s has C ABI version %d, this package speaks %d"
                        % (path, version, ABI_VERSION))
        self.path = str(path)
        self.spec_text = self._c.tcgen_codec_spec_text().decode()
        self.fingerprint = self._c.tcgen_codec_fingerprint()
        self.record_bytes = self._c.tcgen_codec_record_bytes()
        self.header_bytes = self._c.tcgen_codec_header_bytes()
        self.fields = [Field(self._c.tcgen_codec_field_name(index).decode(), self._c.tcgen_codec_field_bits(index),
                             self._c.tcgen_codec_field_offset(index))
                       for index in range(self._c.tcgen_codec_field_count())]

    def reader(self, source):
        """A Reader of `source`: a path, or bytes of a whole .tcz."""
        return Reader(self, source)

    def writer(self, path, header=b"", level=-1, block_bytes=0):
        return Writer(self, path, header, level, block_bytes)


class Handle:
    """A C handle freed once: by close(), at the end of a with block, or
    when collected. A subclass holds it in self._handle and frees it in
    _free(handle)."""

    def close(self):
        if self._handle:
            self._free(self._handle)
            self._handle = ctypes.c_void_p()

    def __enter__(self):
        return self

    def __exit__(self, *exception):
        self.close()

    def __del__(self):
        self.close()


class Reader(Handle):
    """The records of one .tcz as columns, a block at a time."""

    def __init__(self, library, source):
        self._handle = ctypes.c_void_p()
        self._library = library
        self._c = library._c
        handle = ctypes.c_void_p()
        if isinstance(source, (bytes, bytearray, memoryview)):
            self._memory = bytes(source)  # kept alive while the library reads it
            status = self._c.tcgen_reader_open_memory(self._memory, len(self._memory), ctypes.byref(handle))
        else:
            self._memory = None
            status = self._c.tcgen_reader_open(str(source).encode(), ctypes.byref(handle))
        self._handle = handle
        if status != _OK:
            message = self._message()
            self.close()
            raise Error(message)

    def _message(self):
        return self._c.tcgen_reader_error(self._handle).decode(errors="replace")

    def _check(self, status):
        if status != _OK:
            raise Error(self._message())

    @property
    def fields(self):
        return self._library.fields

    def header(self):
        """The trace's header bytes."""
        return self._bytes(self._c.tcgen_reader_header)

    def tail(self):
        """The bytes after the last whole record (a partial record), once the end was read."""
        return self._bytes(self._c.tcgen_reader_tail)

    def _bytes(self, function):
        data = ctypes.POINTER(ctypes.c_uint8)()
        size = ctypes.c_size_t()
        self._check(function(self._handle, ctypes.byref(data), ctypes.byref(size)))
        return ctypes.string_at(data, size.value) if size.value else b""

    def record_count(self):
        """The file's record count from its trailer, without decoding; None
        when the file cannot vouch for it (cut short, concatenated .tcz files)."""
        records = ctypes.c_uint64()
        self._check(self._c.tcgen_reader_record_count(self._handle, ctypes.byref(records)))
        return None if records.value == _UNKNOWN_RECORD_COUNT else records.value

    def block_records(self):
        """Records left in the current block (decoding the next when none are); 0 at the end."""
        records = ctypes.c_uint64()
        self._check(self._c.tcgen_reader_block_records(self._handle, ctypes.byref(records)))
        return records.value

    def read(self, count, columns=None):
        """Up to `count` records as a dict of arrays, fewer only at the end;
        `columns`: the names of the fields wanted (all by default)."""
        wanted = self._wanted(columns)
        arrays = {field.name: numpy.empty(count, dtype=field.dtype) for field in wanted}
        pointers = (ctypes.c_void_p * len(self.fields))()
        for index, field in enumerate(self.fields):
            if field.name in arrays:
                pointers[index] = arrays[field.name].ctypes.data
        read = ctypes.c_size_t()
        self._check(self._c.tcgen_reader_read_columns(self._handle, pointers, count, ctypes.byref(read)))
        if read.value < count:
            arrays = {name: array[:read.value].copy() for name, array in arrays.items()}
        return arrays

    def read_block(self, columns=None):
        """The rest of the current block, or the next one; None at the end."""
        records = self.block_records()
        return self.read(records, columns) if records else None

    def position(self):
        return self._c.tcgen_reader_position(self._handle)

    def _wanted(self, columns):
        if columns is None:
            return self.fields
        names = [field.name for field in self.fields]
        unknown = [name for name in columns if name not in names]
        if unknown:
            raise Error("no field is named %r; the fields are %s" % (unknown[0], ", ".join(names)))
        return [field for field in self.fields if field.name in columns]

    def _free(self, handle):
        self._c.tcgen_reader_free(handle)


class Writer:
    """A .tcz being written from columns; it appears complete on close()."""

    def __init__(self, library, path, header, level, block_bytes):
        self._handle = ctypes.c_void_p()
        self._library = library
        self._c = library._c
        header = bytes(header)
        handle = ctypes.c_void_p()
        status = self._c.tcgen_writer_create(str(path).encode(), level, block_bytes, header, len(header),
                                             ctypes.byref(handle))
        self._handle = handle
        if status != _OK:
            message = self._message()
            self.discard()
            raise Error(message)

    def _message(self):
        return self._c.tcgen_writer_error(self._handle).decode(errors="replace")

    def _check(self, status):
        if status != _OK:
            raise Error(self._message())

    def append(self, columns):
        """Appends records given as a dict of arrays by field name, all of
        one length (a field not given is written as zeros)."""
        fields = self._library.fields
        names = {field.name for field in fields}
        unknown = [name for name in columns if name not in names]
        if unknown:
            raise Error("no field is named %r; the fields are %s"
                        % (unknown[0], ", ".join(field.name for field in fields)))
        arrays = {}
        for field in fields:
            if field.name in columns:
                # A copy only when the values are not already contiguous
                # integers of the field's width.
                arrays[field.name] = numpy.ascontiguousarray(columns[field.name], dtype=field.dtype).reshape(-1)
        lengths = {len(array) for array in arrays.values()}
        if len(lengths) > 1:
            raise Error("columns of different lengths: %s"
                        % ", ".join("%s has %d" % (name, len(array)) for name, array in arrays.items()))
        count = lengths.pop() if lengths else 0
        pointers = (ctypes.c_void_p * len(fields))()
        for index, field in enumerate(fields):
            if field.name in arrays:
                pointers[index] = arrays[field.name].ctypes.data
        self._check(self._c.tcgen_writer_append_columns(self._handle, pointers, count))

    def records(self):
        return self._c.tcgen_writer_records(self._handle)

    def close(self):
        """Completes the file."""
        try:
            self._check(self._c.tcgen_writer_close(self._handle))
        finally:
            self.discard()

    def discard(self):
        """Frees the writer; a file not closed is not left behind."""
        if self._handle:
            self._c.tcgen_writer_free(self._handle)
            self._handle = ctypes.c_void_p()

    def __enter__(self):
        return self

    def __exit__(self, kind, value, traceback):
        if kind is None:
            self.close()
        else:
            self.discard()

    def __del__(self):
        self.discard()
