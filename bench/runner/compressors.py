"""The compressors under test and how tcgen's are generated and built.

Every compressor reads its input on stdin and writes stdout, so all of them
are run and timed the same way (measure.py).
"""

import hashlib
import os
import shlex
import shutil
import subprocess
from dataclasses import dataclass


@dataclass
class Compressor:
    name: str                 # short, used on the command line and in the CSV
    compress: list            # argv
    decompress: list          # argv
    spec: str = ""            # tcgen spec file (tcgen compressors only)
    binary: str = ""          # built executable (tcgen compressors only)
    version: str = ""

    @property
    def is_tcgen(self):
        return bool(self.spec)

    def command_line(self):
        return shlex.join(self.compress) + " / " + shlex.join(self.decompress)


# The baseline that every figure is also given relative to, and against which
# the project's goals are stated.
BASELINE = "xz-9"

# General-purpose compressors, in table order. xz gets -T1: xz 5.4 already
# defaults to one thread, but saying so keeps wall times comparable if the
# default changes; zstd is single-threaded by default. --long=27 must be
# repeated on decompression or zstd refuses the 128 MiB window.
GENERAL = [
    Compressor("bzip2-9", ["bzip2", "-9", "-c"], ["bzip2", "-d", "-c"]),
    Compressor("xz-9", ["xz", "-9", "-T1", "-c"], ["xz", "-d", "-T1", "-c"]),
    Compressor("zstd-19-long", ["zstd", "-19", "--long=27", "-q", "-c"],
               ["zstd", "-d", "--long=27", "-q", "-c"]),
    Compressor("zstd-3", ["zstd", "-3", "-q", "-c"], ["zstd", "-d", "-q", "-c"]),
]

# The ratio ceiling of general-purpose compression: zpaq's strongest context
# mixing, through a filter script (zpaq is an archiver). At about 1 MB/s in
# both directions it runs only on the traces bench/run.py --zpaq selects, once.
ZPAQ = Compressor("zpaq-m5", [os.path.join(os.path.dirname(os.path.abspath(__file__)), "zpaq-filter"), "-c", "5"],
                  [os.path.join(os.path.dirname(os.path.abspath(__file__)), "zpaq-filter"), "-d"])

# Branch traces as block ids (docs/branch-ids.md): tcgen-branch-ids splits
# the trace into an id stream and a small side table; the ids are compressed
# by tcgen's compressor of examples/branch_ids.tcg (tcgen-block-ids, built
# as every tcgen compressor is) or held as a SEQUITUR grammar by wpp
# (wpp-block-ids), the table by xz -9; decompression joins them back.
# block-ids-filter runs those steps as one stdin-to-stdout program, so that
# its size counts every file the rebuild needs and its times every step.
BLOCK_IDS_FILTER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "block-ids-filter")
BLOCK_ID_SPECS = [("tcgen-block-ids", "examples/branch_ids.tcg")]
WPP_BLOCK_IDS = "wpp-block-ids"

# tcgen specs by trace kind: ChampSim traces (64-byte input_instr records, no
# header) get the ChampSim spec; branch traces (BRA1: 4-byte header, 64-bit
# PC, 64-bit target, 8-bit taken) the branch spec; every other kind is in the
# VPC format of the paper (4-byte header, 32-bit PC + 64-bit value), measured
# with TCgen(A) (Figure 5) and TCgen(B) (Figure 9) as in the paper's Table 3.
VPC_SPECS = [("tcgen-a", "examples/vpc3.tcg"), ("tcgen-b", "examples/tcgen_b.tcg")]
CHAMPSIM_SPECS = [("tcgen-champsim", "examples/champsim.tcg")]
BRANCH_SPECS = [("tcgen-branches", "examples/x86_branches.tcg")]
# tcgen's best configuration for today's traces, measured beside the
# paper's: for cache misses the spec bench/tune.py chose for x86-64 traces on
# half of the corpus (docs/design/log.md, "Specs for x86-64 traces"); for
# stores and load values TCgen(A), which the tuner kept; each with MATCH
# predictors placed as measured on the hard set's traces of that half
# ("The match predictor"). ChampSim and branch traces have their own spec.
X86_SPECS = {
    "store-addresses": ("tcgen-x86-stores", "examples/x86_store_addresses.tcg"),
    "cache-miss-addresses": ("tcgen-x86-misses", "examples/x86_cache_misses.tcg"),
    "load-values": ("tcgen-x86-loads", "examples/x86_load_values.tcg"),
}
# Other configurations of a built tcgen compressor, run with its binary and
# other options: (name, the compressor it varies, compress options,
# decompress options). PAPER is where the project started, measured in the
# same run as the "before" of a before/after: the TCgen paper's
# configuration, TCgen(A) with every stream through bzip2 and decoding on one
# thread. Each kind's shipped spec also runs at -9, the strongest level: the
# one the project's goal against zpaq -m5 is stated for.
PAPER = ("tcgen-a-paper", "tcgen-a", ["--backend=bzip2"], ["-T1"])
SHIPPED_SPECS = CHAMPSIM_SPECS + BRANCH_SPECS + list(X86_SPECS.values())
CONFIGURATIONS = [PAPER] + [(name + "-9", name, ["-9"], []) for name, _ in SHIPPED_SPECS]


def is_champsim_kind(kind):
    return "champsim" in kind.lower()


def is_branch_kind(kind):
    return "branch" in kind.lower()


def reference_specs_for_kind(kind):
    """The specs that define KIND's record layout: the paper's TCgen(A) and
    (B) for the VPC format, else the kind's own spec."""
    if is_champsim_kind(kind):
        return CHAMPSIM_SPECS
    if is_branch_kind(kind):
        return BRANCH_SPECS
    return VPC_SPECS


def tcgen_specs_for_kind(kind):
    return (reference_specs_for_kind(kind) + ([X86_SPECS[kind]] if kind in X86_SPECS else [])
            + (BLOCK_ID_SPECS if is_branch_kind(kind) else []))


def all_names():
    return ([n for n, _ in VPC_SPECS + SHIPPED_SPECS + BLOCK_ID_SPECS]
            + [name for name, _, _, _ in CONFIGURATIONS] + [WPP_BLOCK_IDS]
            + [c.name for c in GENERAL] + [ZPAQ.name])


def block_ids_compressor(name, split_tool, ids_coder):
    """The block-id pipeline NAME: SPLIT_TOOL (tcgen-branch-ids) and
    IDS_CODER, block-ids-filter's --tcgen=COMPRESSOR or --wpp=WPP."""
    options = [f"--split={split_tool}", ids_coder]
    return Compressor(name, [BLOCK_IDS_FILTER, "-c", *options], [BLOCK_IDS_FILTER, "-d", *options])


def tcgen_block_ids(ids_compressor, split_tool):
    """tcgen-block-ids around IDS_COMPRESSOR, the tcgen compressor built
    from BLOCK_ID_SPECS' spec."""
    pipeline = block_ids_compressor(ids_compressor.name, split_tool,
                                    f"--tcgen={ids_compressor.binary}")
    pipeline.spec, pipeline.binary = ids_compressor.spec, ids_compressor.binary
    return pipeline


def wpp_block_ids(split_tool, wpp):
    return block_ids_compressor(WPP_BLOCK_IDS, split_tool, f"--wpp={wpp}")


def tcgen_builds_for(kind, wanted):
    """(name, spec) of the tcgen compressors that traces of KIND need built:
    those selected, and those whose other configurations are selected."""
    def selected(name):
        return wanted is None or name in wanted or any(
            base == name and variant in wanted for variant, base, _, _ in CONFIGURATIONS)
    return [(name, spec) for name, spec in tcgen_specs_for_kind(kind) if selected(name)]


def configuration(variant, base):
    """VARIANT (one of CONFIGURATIONS) run with BASE's binary (BASE: the
    built compressor it varies)."""
    name, _, compress_options, decompress_options = variant
    return Compressor(name, base.compress + compress_options, base.decompress + decompress_options,
                      spec=base.spec, binary=base.binary)


def compressors_for_kind(kind, built, wanted):
    """The compressors to run on traces of KIND, tcgen's first.

    built: name -> Compressor for the tcgen compressors already built and
    the wpp pipeline where its tools are there;
    wanted: set of names selected with --compressors (None = all).
    """
    chosen = []
    for name, _ in tcgen_specs_for_kind(kind):
        if name in built and (wanted is None or name in wanted):
            chosen.append(built[name])
        for variant in CONFIGURATIONS:
            if variant[1] == name and name in built and (wanted is None or variant[0] in wanted):
                chosen.append(configuration(variant, built[name]))
    if is_branch_kind(kind) and WPP_BLOCK_IDS in built and (wanted is None or WPP_BLOCK_IDS in wanted):
        chosen.append(built[WPP_BLOCK_IDS])
    chosen += [c for c in GENERAL if wanted is None or c.name in wanted]
    return chosen


def tool_version(argv0):
    """First line of a general compressor's version banner."""
    if argv0 == ZPAQ.compress[0]:
        argv0 = "zpaq"
    flags = {"bzip2": ["--help"], "xz": ["--version"], "zstd": ["--version"], "zpaq": []}
    try:
        out = subprocess.run([argv0] + flags.get(argv0, ["--version"]), capture_output=True,
                             text=True, timeout=10)
    except OSError:
        return "not found"
    text = (out.stdout or out.stderr).strip().splitlines()
    # bzip2 prints its version on the second line of --help.
    for line in text:
        if "version" in line.lower() or argv0 in line.lower():
            return line.strip()
    return text[0] if text else "unknown"


# The optimisation level tcgen's compressors are built at: -O3, as the
# README tells users to. The scripts' --opt-level can lower it where only
# sizes and round trips count (a quick check, the scripts' tests): -O0 builds
# in about half the time, and every speed it gives is meaningless.
DEFAULT_OPT_LEVEL = "3"
OPT_LEVELS = ["0", "1", "2", "3"]


def add_build_options(p):
    """--opt-level and --build-cache, for a script that builds tcgen's
    compressors with build_tcgen."""
    p.add_argument("--opt-level", default=DEFAULT_OPT_LEVEL, choices=OPT_LEVELS,
                   help="build tcgen's compressors with -ON (default %(default)s; a lower one "
                   "builds faster for a check of sizes and round trips, its speeds mean nothing)")
    p.add_argument("--build-cache", metavar="DIR",
                   help="keep tcgen's compressors, once built, in DIR (made if missing) and take "
                   "them from there when the same generated code, compiler and flags come again, "
                   "in this run or a later one (default: every run builds its own)")


def compile_generated(source, binary, cxx, opt_level=DEFAULT_OPT_LEVEL):
    """The command that builds the program tcgen generated in SOURCE as the
    README tells users to (`c++ -std=c++17 -O3 -pthread`; OPT_LEVEL replaces
    the 3), linking the back-ends that the file's own "// Build:" line names
    (tcgen writes them from the runtime's back-end table), so that no script
    lists them."""
    with open(source, encoding="utf-8", errors="replace") as text:
        for line in text:
            if line.startswith("// Build:") and " comp.cpp" in line:
                link_flags = shlex.split(line.split(" comp.cpp", 1)[1])
                break
        else:
            raise ValueError(f"{source}: no '// Build:' line naming its libraries")
    return shlex.split(cxx) + ["-std=c++17", "-O" + opt_level, "-o", binary, source, "-pthread", *link_flags]


def _cache_key(source, compile_argv, cxx):
    """What a cached build is kept under: the generated code, the compile
    command (its paths left out) and what the compiler says it is, so that
    another compiler behind the same name builds afresh."""
    key = hashlib.sha256()
    with open(source, "rb") as f:
        key.update(f.read())
    binary = compile_argv[compile_argv.index("-o") + 1]
    key.update("\0".join("SOURCE" if a == source else "BINARY" if a == binary else a
                          for a in compile_argv).encode())
    version = subprocess.run(shlex.split(cxx) + ["--version"], capture_output=True)
    key.update(version.stdout)
    return key.hexdigest()


def _compile(source, binary, cxx, opt_level, cache_dir, log):
    """Compiles SOURCE into BINARY, or copies the build CACHE_DIR keeps of
    the same code, command and compiler (and keeps this one there)."""
    argv = compile_generated(source, binary, cxx, opt_level)
    cached = os.path.join(cache_dir, _cache_key(source, argv, cxx)) if cache_dir else None
    if cached and os.path.isfile(cached):
        log.write(f"# {os.path.basename(binary)}: taken from the build cache, {cached}\n")
        log.flush()
        shutil.copy2(cached, binary)
        return
    log.write("$ " + shlex.join(argv) + "\n")
    log.flush()
    subprocess.run(argv, check=True, stdout=log, stderr=log)
    if cached:
        os.makedirs(cache_dir, exist_ok=True)
        partial = f"{cached}.{os.getpid()}"
        shutil.copy2(binary, partial)
        os.replace(partial, cached)  # whole or not at all, beside another run


def build_tcgen(name, spec, repo, tcgen, bindir, cxx, log, tcgen_options=(),
                opt_level=DEFAULT_OPT_LEVEL, cache_dir=None):
    """Generates NAME.cpp from SPEC with the tcgen under test (given
    TCGEN_OPTIONS, such as --disable=...) and compiles it with
    `c++ -std=c++17 -O3` (as the README tells users to; -O<OPT_LEVEL>), so
    that the figures are always those of the current generator; the
    compiler runs only if CACHE_DIR (--build-cache) has no build of the same
    code yet. The tools' messages go to the file object LOG. Raises
    CalledProcessError."""
    spec_path = os.path.join(repo, spec)
    source = os.path.join(bindir, name + ".cpp")
    binary = os.path.join(bindir, name)
    argv = [tcgen, *tcgen_options, spec_path, "-o", source]
    log.write("$ " + shlex.join(argv) + "\n")
    log.flush()
    subprocess.run(argv, check=True, stdout=log, stderr=log)
    _compile(source, binary, cxx, opt_level, cache_dir, log)
    return Compressor(name, [binary], [binary, "-d"], spec=spec, binary=binary)
