"""Generated sections of Markdown documents.

The bench scripts (bench/run.py, bench/ablation.py, bench/tune.py, bench/wet.py) write
their reports into docs/benchmarks/, one document per script run (e.g.
docs/benchmarks/run-regular.md, docs/benchmarks/run-hard.md); the page a
user reads, docs/benchmarks.md, is written by hand and links to them. A
document may also hold hand-written text or more than one section: each
script owns the text between its markers,

    <!-- begin bench/run.py -->
    ...
    <!-- end bench/run.py -->

and replaces only that; everything outside the markers is kept as it is.
"""

import argparse
import os
import shlex


def _markers(name):
    return f"<!-- begin {name} -->", f"<!-- end {name} -->"


def section_name(name):
    """The argparse type of a script's --section: a name that can stand in
    the HTML comments that mark the section."""
    if not name.strip() or "--" in name or "\n" in name:
        raise argparse.ArgumentTypeError("give a name without '--' or line breaks "
                                         "(it goes into HTML comments)")
    return name


GENERATED_TITLE = ("# Benchmark results\n\n"
                   "Written by the bench scripts (see bench/README.md); docs/benchmarks.md says "
                   "what the figures mean.")


def write_section(path, name, text, title=GENERATED_TITLE):
    """Replaces section NAME of the document at PATH by TEXT (appending the
    section if it is not there yet; creating the document, under TITLE, if
    PATH does not exist)."""
    begin, end = _markers(name)
    block = f"{begin}\n{text.rstrip()}\n{end}\n"
    if os.path.exists(path):
        with open(path, encoding="utf-8") as f:
            document = f.read()
    else:
        document = title + "\n\n"
    start = document.find(begin)
    stop = document.find(end, start)
    if start >= 0 and stop >= 0:
        stop += len(end)
        if document[stop:stop + 1] == "\n":
            stop += 1
        document = document[:start] + block + document[stop:]
    else:
        document = document.rstrip("\n") + "\n\n" + block
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write(document)


REPOSITORY = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def command_line(prog, argv):
    """PROG ARGV as a reader can paste it at the top of the repository:
    quoted, paths inside the repository relative to it and a home directory
    that starts an argument written as ~, so that the line names neither the
    machine's checkout nor its user."""
    home = os.path.expanduser("~") + "/"
    words = [prog]
    for argument in argv:
        argument = argument.replace(REPOSITORY + os.sep, "")
        word = shlex.quote(argument)
        if word == argument and word.startswith(home):  # unquoted: the shell expands ~
            word = "~/" + word[len(home):]
        words.append(word)
    return " ".join(words)
