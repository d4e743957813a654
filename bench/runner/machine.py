"""What the figures were measured on and with: they mean little without it."""

import datetime
import os
import platform
import subprocess


def _first_line(argv, cwd=None):
    try:
        out = subprocess.run(argv, capture_output=True, text=True, timeout=20, cwd=cwd)
    except OSError:
        return ""
    lines = (out.stdout or out.stderr).strip().splitlines()
    return lines[0].strip() if out.returncode == 0 and lines else ""


def _cpuinfo():
    model, sockets_cores = "unknown", set()
    try:
        with open("/proc/cpuinfo") as f:
            physical = "0"
            for line in f:
                key, _, value = line.partition(":")
                key, value = key.strip(), value.strip()
                if key == "model name" and model == "unknown":
                    model = value
                elif key == "physical id":
                    physical = value
                elif key == "core id":
                    sockets_cores.add((physical, value))
    except OSError:
        pass
    return model, len(sockets_cores)


def _memory():
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemTotal:"):
                    return f"{int(line.split()[1]) / 1024 / 1024:.1f} GiB"
    except OSError:
        pass
    return "unknown"


def describe(repo, tcgen, cxx, tool_versions, opt_level="3"):
    """(label, value) pairs, in the order they are printed; OPT_LEVEL: the
    -O tcgen's compressors were built with."""
    model, cores = _cpuinfo()
    threads = os.cpu_count()
    commit = _first_line(["git", "rev-parse", "--short=12", "HEAD"], cwd=repo) or "unknown"
    # Changes to the docs alone (a benchmark writing its section) are not
    # changes to what was measured.
    dirty = _first_line(["git", "status", "--porcelain", "--untracked-files=no", "--", ".", ":(exclude)docs"],
                        cwd=repo)
    items = [
        ("date", datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")),
        ("CPU", model),
        ("cores", f"{cores or threads} cores, {threads} hardware threads"),
        ("memory", _memory()),
        ("kernel", f"{platform.system()} {platform.release()} {platform.machine()}"),
        ("OS", _os_release()),
        ("compiler", _first_line(cxx.split() + ["--version"]) + " (`" + cxx + " -O" + opt_level + "`)"),
        ("tcgen", (_first_line([tcgen, "--version"]) or "unknown") + ", commit " + commit
         + (" with uncommitted changes" if dirty else "")),
    ]
    items += [(name, version) for name, version in tool_versions]
    return items


def _os_release():
    try:
        with open("/etc/os-release") as f:
            for line in f:
                if line.startswith("PRETTY_NAME="):
                    return line.split("=", 1)[1].strip().strip('"')
    except OSError:
        pass
    return "unknown"
