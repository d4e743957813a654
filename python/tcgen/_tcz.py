"""What the package reads of a .tcz itself: the fingerprint in its preamble
(docs/format.md), which names the codec the file needs. Everything else,
the checks included, is the codec library's."""

import os
import struct

from ._errors import Error

MAGIC = b"\x89TCZ\r\n\x1a\n"
_FINGERPRINT_OFFSET = 12


def fingerprint(path):
    """The spec fingerprint of the .tcz `path`, or None if the file ends
    before it; an Error with the command line's message when the file is not
    a .tcz at all."""
    if os.path.isdir(path):
        raise Error("'%s' is a directory" % path)
    try:
        with open(path, "rb") as tcz:
            start = tcz.read(_FINGERPRINT_OFFSET + 8)
    except OSError as failure:
        raise Error("cannot open '%s': %s" % (path, failure.strerror or failure)) from None
    return fingerprint_of(start)


def fingerprint_of(start):
    """The same from the first bytes of a .tcz."""
    if not start:
        raise Error("not a .tcz file (empty input)")
    if not start.startswith(MAGIC[:len(start)]) or (len(start) >= len(MAGIC) and start[:len(MAGIC)] != MAGIC):
        if start[1:4] == b"TCZ":
            raise Error("not a .tcz file (bad magic: the file looks mangled, e.g. by a text-mode transfer)")
        raise Error("not a .tcz file (bad magic)")
    if len(start) < _FINGERPRINT_OFFSET + 8:
        return None  # tcgen, reading the preamble, says how it ends
    return struct.unpack_from("<Q", start, _FINGERPRINT_OFFSET)[0]
