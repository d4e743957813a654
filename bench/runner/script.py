"""What every bench script starts with: where the repository, the bench
folder and the build are, the script's one-line messages, its argument
parser and the check that the programs it drives are built; and the
checked steps (a command, a comparison, a round trip's size) of those that
run tools in turn.

A script in bench/ puts this folder on sys.path and turns bytecode off
(two lines, before any import from here), then

    import script
    PROG = "bench/NAME.py"
    die, note = script.messages(PROG)

REPO and BENCH are absolute; the build directory defaults to REPO/build.
"""

import argparse
import filecmp
import os
import subprocess
import sys

BENCH = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REPO = os.path.dirname(BENCH)
BUILD = os.path.join(REPO, "build")
TCGEN = os.path.join(BUILD, "generator", "tcgen")


def messages(prog, error="error: "):
    """die(MESSAGE): "PROG: error: MESSAGE" on stderr, exit status 1 (ERROR
    is what stands before the message: "" for the scripts whose errors never
    said "error:"); note(MESSAGE): "PROG: MESSAGE" on stderr, at once."""
    def die(message):
        print(f"{prog}: {error}{message}", file=sys.stderr)
        sys.exit(1)

    def note(message):
        print(f"{prog}: {message}", file=sys.stderr, flush=True)

    return die, note


def argument_parser(prog, description, die):
    """An ArgumentParser whose description is printed as written and whose
    errors are DIE's: one line and exit status 1, as tcgen's tools do."""
    p = argparse.ArgumentParser(prog=prog, description=description,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.error = die
    return p


def usage_description(doc):
    """The paragraph of a script's docstring that --help shows: the third,
    after the title line and the usage lines."""
    return doc.split("\n\n")[2]


def add_build_option(p, what="the build directory"):
    p.add_argument("--build", default=BUILD, help=f"{what} (default build/)")


def require_built(binaries, build, die):
    """BINARIES: (path, cmake target) pairs; the first one missing is fatal,
    with the command that builds it."""
    for path, target in binaries:
        if not os.access(path, os.X_OK):
            die(f"no {path} (cmake --build {build} --target {target})")


class Steps:
    """A script's checked steps, each failure one line through its DIE: a
    command run (its stdout captured unless given), two files compared,
    and a file's size through a compressor, checked by a round trip."""

    def __init__(self, die):
        self.die = die

    def run(self, argv, stdin=None, stdout=subprocess.PIPE, cwd=None):
        result = subprocess.run(argv, stdin=stdin, stdout=stdout, stderr=subprocess.PIPE, cwd=cwd)
        if result.returncode != 0:
            self.die(f"{' '.join(argv)} failed: {result.stderr.decode(errors='replace').strip()}")
        return result

    def same_files(self, a, b, what):
        if not filecmp.cmp(a, b, shallow=False):
            self.die(f"{what}: {a} and {b} differ")

    def packed_size(self, compress, decompress, path, work):
        """The size of PATH compressed by COMPRESS, checked by DECOMPRESS."""
        packed = os.path.join(work, "packed")
        unpacked = os.path.join(work, "unpacked")
        with open(path, "rb") as source, open(packed, "wb") as sink:
            self.run(compress, stdin=source, stdout=sink)
        with open(packed, "rb") as source, open(unpacked, "wb") as sink:
            self.run(decompress, stdin=source, stdout=sink)
        self.same_files(path, unpacked, f"{' '.join(compress)} round trip")
        size = os.path.getsize(packed)
        os.remove(packed)
        os.remove(unpacked)
        return size

