"""The package's one exception type."""


class Error(Exception):
    """A failure the user can cause or fix: a damaged or foreign .tcz, a
    missing compiler or tcgen, I/O. Its message is one line; for a file's
    contents, the line the command-line program prints after "error: "."""
