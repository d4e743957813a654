"""A spec's codec library, made on first use and cached: tcgen writes its C
interface (tcgen --emit=c-library), the system's C++ compiler builds it into
a shared library, kept under $XDG_CACHE_HOME/tcgen/ (~/.cache/tcgen/) by the
spec's fingerprint, the tcgen that made it and the C ABI version, so that a
later open of a file of that spec compiles nothing."""

import hashlib
import os
import shutil
import subprocess
import tempfile

from ._errors import Error
from ._library import ABI_VERSION, Library

try:
    from . import _config  # written by CMake: the build's or the installation's tcgen and header
except ImportError:
    _config = None

# Libraries loaded in this process, by their path.
_loaded = {}
# Versions of tcgen executables, by their path.
_versions = {}
# How many libraries this process compiled (the tests' way to see the cache at work).
compilations = 0


def cache_directory():
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "tcgen")


def find_tcgen():
    """The tcgen executable: $TCGEN, the build or installation this package
    came with, or tcgen on PATH."""
    candidates = [os.environ.get("TCGEN"), getattr(_config, "TCGEN", None), shutil.which("tcgen")]
    for candidate in candidates:
        if candidate and os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return candidate
    raise Error("cannot find tcgen, which makes the codec of a spec: set TCGEN=/path/to/tcgen or put it on PATH")


def find_include_directory():
    """The directory that holds tcgen/tcgen_codec.h."""
    here = os.path.dirname(os.path.abspath(__file__))
    candidates = [os.environ.get("TCGEN_INCLUDE"), getattr(_config, "INCLUDE_DIR", None),
                  os.path.join(here, "include"), os.path.join(here, "..", "..", "include")]
    for candidate in candidates:
        if candidate and os.path.isfile(os.path.join(candidate, "tcgen", "tcgen_codec.h")):
            return os.path.abspath(candidate)
    raise Error("cannot find tcgen/tcgen_codec.h: set TCGEN_INCLUDE to the directory that holds it")


def find_compiler():
    """The C++ compiler: $CXX, or c++, g++ or clang++ on PATH."""
    for candidate in [os.environ.get("CXX"), "c++", "g++", "clang++"]:
        if candidate:
            found = shutil.which(candidate)
            if found:
                return found
    raise Error("cannot find a C++ compiler to build the codec of a spec (c++, g++ or clang++; or set CXX); "
                "on Debian: apt-get install g++")


def tcgen_version(tcgen):
    if tcgen not in _versions:
        ran = subprocess.run([tcgen, "--version"], capture_output=True, text=True)
        words = ran.stdout.split()
        if ran.returncode != 0 or not words:
            raise Error("%s --version failed: %s" % (tcgen, (ran.stderr or ran.stdout).strip()))
        _versions[tcgen] = words[-1]
    return _versions[tcgen]


def _compiler_flags():
    return os.environ.get("TCGEN_CXXFLAGS", "-O2").split()


def _cache_key(fingerprint, tcgen, names):
    # The fingerprint names the encoding; the tcgen that wrote the code and
    # the ABI name the library's functions. The executable's identity makes a
    # rebuilt tcgen of the same version (a developer's) compile afresh, and
    # the compiler asked for and its flags another build of the same code
    # (a library built with -O0 -g is not the one asked for with -O3).
    # `names` tells the field names apart: a .tcz stores its spec without
    # them (its columns are field_1, field_2, ...), a spec file has its own,
    # and the same encoding read both ways must not share a library.
    status = os.stat(tcgen)
    identity = "%s:%d:%d:%s:%s" % (os.path.realpath(tcgen), status.st_size, status.st_mtime_ns,
                                   os.environ.get("CXX", ""), " ".join(_compiler_flags()))
    tag = hashlib.sha256(identity.encode()).hexdigest()[:12]
    return "%016x-tcgen%s-abi%d-%s-%s" % (fingerprint, tcgen_version(tcgen), ABI_VERSION, tag, names)


def _names_of(source):
    """The field names a generated codec gives its columns, as a short tag."""
    with open(source) as generated:
        fields = [line for line in generated if line.startswith("    {\"")]
    return hashlib.sha256("".join(fields).encode()).hexdigest()[:12]


def _tcgen_message(stderr):
    """tcgen's first error line without its "tcgen: error: cannot read 'FILE': "
    prefix: the same text as the command-line program's for a damaged file."""
    lines = [line for line in stderr.splitlines() if line.strip()]
    line = next((line for line in lines if "error: " in line), lines[0] if lines else "tcgen failed")
    message = line.split("error: ", 1)[-1]
    if message.startswith("cannot read '") and "': " in message:
        message = message.split("': ", 1)[1]
    return message


def _generate(spec_source, work):
    """Runs tcgen on `spec_source` (a spec or a .tcz): the C interface's
    source in `work`, and the spec's fingerprint as the source states it."""
    source = os.path.join(work, "codec.cpp")
    ran = subprocess.run([find_tcgen(), "--emit=c-library", "-o", source, str(spec_source)],
                         capture_output=True, text=True)
    if ran.returncode != 0:
        raise Error(_tcgen_message(ran.stderr))
    fingerprint = None
    with open(source) as generated:
        for line in generated:
            if line.startswith("// Spec fingerprint: "):
                fingerprint = int(line.split(":", 1)[1], 16)
                break
    if fingerprint is None:
        raise Error("internal error: tcgen wrote no fingerprint into the codec of %s" % spec_source)
    return source, fingerprint


def _compile(source, destination):
    """Compiles the generated `source` into the shared library `destination`,
    which appears whole or not at all."""
    global compilations
    include = find_include_directory()
    compiler = find_compiler()
    with open(source) as generated:
        link = next((line.split(":", 1)[1].split() for line in generated if line.startswith("// Link:")), [])
    library = source[:-len(".cpp")] + ".so"
    command = ([compiler, "-std=c++17"] + _compiler_flags() +
               ["-shared", "-fPIC", "-fvisibility=hidden", "-pthread", "-I", include, "-o", library, source] + link)
    ran = subprocess.run(command, capture_output=True, text=True)
    if ran.returncode != 0:
        first = (ran.stderr.strip().splitlines() or ["no message"])[0]
        raise Error("the C++ compiler failed on a codec (%s): %s" % (" ".join(command), first))
    os.replace(library, destination)  # atomic, should two processes race
    compilations += 1


def _make(spec_source, fingerprint):
    """The library of `spec_source`, from the cache when there. A .tcz
    (`fingerprint` known from its preamble) is found without running tcgen;
    a spec file runs tcgen to learn its fingerprint and field names."""
    tcgen = find_tcgen()
    directory = cache_directory()
    if fingerprint is not None:
        destination = os.path.join(directory, _cache_key(fingerprint, tcgen, "tcz") + ".so")
        if os.path.exists(destination):
            return _load(destination)
    os.makedirs(directory, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=directory, prefix=".build-") as work:
        source, stated = _generate(spec_source, work)
        destination = os.path.join(directory, _cache_key(stated, tcgen, _names_of(source)) + ".so")
        if not os.path.exists(destination):
            _compile(source, destination)
        if fingerprint is not None:
            # The .tcz's way in: a second name for the library of its
            # unnamed fields (a spec file without names shares it).
            alias = os.path.join(work, "alias.so")
            os.link(destination, alias)
            os.replace(alias, os.path.join(directory, _cache_key(stated, tcgen, "tcz") + ".so"))
    return _load(destination)


def _load(path):
    if path not in _loaded:
        _loaded[path] = Library(path)
    return _loaded[path]


def library_for_tcz(path, fingerprint):
    """The codec library of the .tcz `path`, whose preamble gives
    `fingerprint` (None: a preamble cut short, which tcgen reports)."""
    return _make(path, fingerprint)


def library_for_spec(spec_path):
    """The codec library of the spec file `spec_path`; tcgen runs each time
    (some milliseconds) to learn its fingerprint."""
    return _make(spec_path, None)
