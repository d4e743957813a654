"""Timed, verified runs of one compressor on one trace.

Each compressor runs under GNU time (/usr/bin/time, Debian package `time`),
started with posix_spawn and reaped with wait4. CPU time (user + sys, the
paper's "time") and wall time come from wait4's rusage, which includes the
reaped compressor and has microsecond resolution (GNU time prints 10 ms).
Peak RSS comes from GNU time's %M: a process started straight from Python
would inherit Python's own peak RSS as a floor (Linux carries the old
address space's high-water mark across exec), while GNU time's child is
forked from a small process.
"""

import filecmp
import os
import statistics
import time
from dataclasses import dataclass

MB = 1e6  # speeds are in MB/s of original data, 1 MB = 10^6 bytes


@dataclass
class Sample:
    user: float
    sys: float
    wall: float
    maxrss_kib: int
    cpu: float = -1.0  # user + sys unless given (a median is given)

    def __post_init__(self):
        if self.cpu < 0:
            self.cpu = self.user + self.sys


class RunError(Exception):
    pass


GNU_TIME = "/usr/bin/time"


def run_timed(argv, stdin_path, stdout_path, stderr_path):
    """Runs ARGV with files on stdin/stdout/stderr; returns a Sample.
    Raises RunError if it does not exit with status 0."""
    rss_path = stdout_path + ".rss"
    argv = [GNU_TIME, "-f", "%M", "-o", rss_path, "--"] + argv
    with open(stdin_path, "rb") as fin, open(stdout_path, "wb") as fout, \
            open(stderr_path, "ab") as ferr:
        actions = [(os.POSIX_SPAWN_DUP2, fin.fileno(), 0),
                   (os.POSIX_SPAWN_DUP2, fout.fileno(), 1),
                   (os.POSIX_SPAWN_DUP2, ferr.fileno(), 2)]
        start = time.perf_counter()
        pid = os.posix_spawnp(argv[0], argv, os.environ, file_actions=actions)
        _, status, usage = os.wait4(pid, 0)
        wall = time.perf_counter() - start
    code = os.waitstatus_to_exitcode(status)
    if code != 0:
        raise RunError(f"{argv[6]} exited with status {code} (see {stderr_path})")
    with open(rss_path) as f:
        maxrss_kib = int(f.read().split()[-1])  # GNU time's %M is in KiB
    os.remove(rss_path)
    return Sample(usage.ru_utime, usage.ru_stime, wall, maxrss_kib)


def warm_page_cache(path):
    """Reads PATH once so that every compressor, the first included, finds
    it in the page cache: the runs then measure the compressor, not the disk."""
    with open(path, "rb") as f:
        while f.read(1 << 20):
            pass


@dataclass
class Result:
    """Medians over the runs of one (trace, compressor)."""
    compressed_bytes: int
    comp: Sample
    decomp: Sample
    runs: int
    verified: bool
    error: str = ""


def _median_sample(samples):
    """Medians of each figure separately; user and sys are informational,
    the reported CPU time is the median of user + sys (the paper's metric)."""
    med = statistics.median
    return Sample(med(s.user for s in samples), med(s.sys for s in samples),
                  med(s.wall for s in samples), int(med(s.maxrss_kib for s in samples)),
                  cpu=med(s.cpu for s in samples))


def measure(compressor, trace_path, runs, tmpdir, log_path):
    """Compresses and decompresses TRACE_PATH RUNS times, checking every
    decompression byte for byte against the original (cmp semantics)."""
    packed = os.path.join(tmpdir, compressor.name + ".packed")
    unpacked = os.path.join(tmpdir, compressor.name + ".unpacked")
    comp, decomp, sizes = [], [], set()
    verified = True
    try:
        for _ in range(runs):
            comp.append(run_timed(compressor.compress, trace_path, packed, log_path))
            sizes.add(os.path.getsize(packed))
            decomp.append(run_timed(compressor.decompress, packed, unpacked, log_path))
            if not filecmp.cmp(trace_path, unpacked, shallow=False):
                verified = False
        error = "" if verified else "decompressed output differs from the original"
        if len(sizes) > 1:
            error = f"compressed size varies between runs: {sorted(sizes)}"
    except RunError as e:
        verified, error = False, str(e)
    finally:
        for path in (packed, unpacked):
            if os.path.exists(path):
                os.remove(path)
    if not comp or not decomp:
        empty = Sample(0.0, 0.0, 0.0, 0)
        return Result(0, empty, empty, 0, False, error)
    return Result(max(sizes), _median_sample(comp), _median_sample(decomp),
                  len(decomp), verified, error)


def merge(results):
    """One Result from several of the same (trace, compressor), e.g. runs
    interleaved with other compressors': medians of their samples, verified
    only if every one was."""
    good = [r for r in results if r.runs > 0]
    failed = [r for r in results if not r.verified]
    sizes = {r.compressed_bytes for r in good}
    error = failed[0].error if failed else ""
    if len(sizes) > 1:
        error = f"compressed size varies between runs: {sorted(sizes)}"
    if not good:
        return results[0]
    return Result(max(sizes), _median_sample([r.comp for r in good]),
                  _median_sample([r.decomp for r in good]), sum(r.runs for r in good),
                  not failed and len(sizes) == 1, error)


def speed(nbytes, seconds):
    """MB/s of original data; a run too short to time counts as 1 µs."""
    return nbytes / MB / max(seconds, 1e-6)
