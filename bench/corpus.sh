#!/usr/bin/env bash
# corpus.sh: make (or reuse) the deterministic benchmark corpus of real traces:
# Debian programs run under the tcgen-tracer valgrind tool (tracer/) on
# inputs generated here, one valgrind run per program writing every kind.
#
#   bench/corpus.sh [--set=regular|hard] [--dir=DIR] [--kinds=K1,K2] [--programs=P1,P2]
#                   [--jobs=N] [--quick] [--tool-dir=DIR] [--force] [--list] [--wet]
#                   [--wet-only] [--wet-max=N]
#
# DIR defaults to ${XDG_CACHE_HOME:-$HOME/.cache}/tcgen-corpus; the manifest
# is DIR/manifest.tsv (format in bench/README.md). Traces already in DIR are
# reused when their recipe and sha256 match; anything else is rebuilt.
# --wet also makes each program's WET files (tcgen-tracer --wet, a second
# run per program; docs/wet-streams.md), listed in DIR/wet-manifest.tsv;
# --wet-only makes those alone, --wet-max=N caps their events (0: the whole
# run; a DIR holds one cap's WET set: give each cap its own DIR).
# --set=hard makes the hard set instead: programs on inputs that are not easy
# (Markov-chain text, real binaries, random keys, a real C file), start-up
# skipped in every kind; files DIR/hard-PROGRAM.*, manifest DIR/hard-manifest.tsv.
set -euo pipefail

source "$(dirname "${BASH_SOURCE[0]}")/runner/common.sh"
usage() { usage_lines 5,8; }

all_kinds=(store-addresses cache-miss-addresses load-values champsim branches)
declare -A kind_opt=([store-addresses]=stores [cache-miss-addresses]=misses
                     [load-values]=loads [champsim]=champsim [branches]=branches)
declare -A kind_ext=([store-addresses]=sta [cache-miss-addresses]=cma
                     [load-values]=ldv [champsim]=champsim [branches]=bra
                     [wet-blocks]=wet.blocks [wet-flow]=wet.flow [wet-nodes]=wet.nodes
                     [wet-events]=wet.events [wet-edges]=wet.edges [wet-regs]=wet.regs)
# The WET set: six files from one option (--wet=PREFIX), made by a run of
# their own (the WET instrumentation would slow the trace run down) with its
# own stamp, PROGRAM.wet.stamp, and manifest, wet-manifest.tsv.
wet_kinds=(wet-blocks wet-flow wet-nodes wet-events wet-edges wet-regs)
declare -A record_bytes=([branches]=17 [wet-blocks]=24 [wet-flow]=4 [wet-nodes]=24
                         [wet-events]=24 [wet-edges]=16 [wet-regs]=16)

# Program table: NAME -> command (input on stdin, output discarded), input
# generator and size (see gen_input), and ChampSim instructions to skip
# (start-up: the dynamic loader). Single-threaded, no pid/time dependence
# left after the tracer's fixes (fake clock, getrandom, rdtsc, AT_RANDOM).
all_programs=(bzip2 gzip xz sort sqlite3 python3 perl cc1)
declare -A cmd=(
    [bzip2]="/usr/bin/bzip2 -9"
    [gzip]="/usr/bin/gzip -9 -n"
    [xz]="/usr/bin/xz -6 -T1 -c"
    [sort]="/usr/bin/sort --parallel=1 -S 64M"
    [sqlite3]="/usr/bin/sqlite3 :memory:"
    [python3]="/usr/bin/python3 -S -B -c PYSCRIPT"
    [perl]="/usr/bin/perl -e PLSCRIPT"
    [cc1]="/usr/lib/gcc/x86_64-linux-gnu/12/cc1 -quiet -O2 - -o /dev/null"
)
declare -A input=(            # generator:bytes-or-count
    [bzip2]=text:3000000 [gzip]=text:3000000 [xz]=text:3000000
    [sort]=text:3000000 [sqlite3]=sql:60000 [python3]=text:3000000
    [perl]=text:3000000 [cc1]=csrc:400
)
# The Python and Perl programs: word statistics over the text on stdin.
pyscript='import sys
counts = {}
pairs = {}
prev = ""
for line in sys.stdin:
    words = line.split()
    for w in words:
        counts[w] = counts.get(w, 0) + 1
        k = prev + " " + w
        pairs[k] = pairs.get(k, 0) + 1
        prev = w
top = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
bigr = sorted(pairs.items(), key=lambda kv: (-kv[1], kv[0]))[:100]
lens = [len(w) * c for w, c in top]
print(len(top), sum(lens), top[:10], bigr[:10])'
plscript='my (%c, %p, $prev); $prev = "";
while (my $l = <STDIN>) { chomp $l; $l =~ s/(\d+)/<$1>/g;
  for my $w (split / /, $l) { $c{$w}++; $p{"$prev $w"}++; $prev = $w; } }
my @t = sort { $c{$b} <=> $c{$a} || $a cmp $b } keys %c;
my @b = sort { $p{$b} <=> $p{$a} || $a cmp $b } keys %p;
print scalar(@t), " ", join(",", @t[0..9]), " ", join(",", @b[0..9]), "\n";'

# The hard set (--set=hard). The regular set's generated inputs are very
# regular, and its address and value traces start with the program's
# start-up: TCgen(A) compresses them far better than real workloads. Here the
# inputs are not easy and no kind records the first startup_skip
# instructions (tcgen-tracer --skip; the cache model warms meanwhile), as
# ChampSim traces skip start-up. Inputs (gen_input; their sources' sha256
# are in the recipe):
#   markov   order-2 word-level Markov chain trained on the GNU GPL 3 text
#            every Debian has (base-files), driven by the awk LCG;
#   binaries real executables of essential packages, concatenated;
#   sqlrand  rounds of inserts with multiplicative-hash keys into a table
#            with two indexes, look-ups by both in scrambled order, deletes;
#   tracer   real C: the repo's tcgen-tracer as one translation unit
#            (tracer.h, then tracer/valgrind/*.c without their #include of it),
#            compiled as its CMakeLists.txt does (-D flags, valgrind's
#            headers).
hard_programs=(bzip2 gzip xz xz-bin sqlite3 python3 perl cc1)
declare -A hard_cmd=(
    [bzip2]="/usr/bin/bzip2 -9"
    [gzip]="/usr/bin/gzip -9 -n"
    [xz]="/usr/bin/xz -6 -T1 -c"
    [xz-bin]="/usr/bin/xz -6 -T1 -c"
    [sqlite3]="/usr/bin/sqlite3 :memory:"
    [python3]="/usr/bin/python3 -S -B -c PYSCRIPT"
    [perl]="/usr/bin/perl -e PLSCRIPT"
    [cc1]="/usr/lib/gcc/x86_64-linux-gnu/12/cc1 -quiet -O2 -fno-strict-aliasing -fno-builtin -fno-stack-protector -fno-omit-frame-pointer -I/usr/include/valgrind -DVGA_amd64=1 -DVGO_linux=1 -DVGP_amd64_linux=1 -DVGPV_amd64_linux_vanilla=1 - -o /dev/null"
)
declare -A hard_input=(
    [bzip2]=markov:3000000 [gzip]=markov:3000000 [xz]=markov:3000000
    [xz-bin]=binaries:all [sqlite3]=sqlrand:12 [python3]=markov:3000000
    [perl]=markov:3000000 [cc1]=tracer:all
)
markov_source=/usr/share/common-licenses/GPL-3
hard_binaries=(/usr/bin/bash /usr/bin/ls /usr/bin/cp /usr/bin/date /usr/bin/du /usr/bin/sort
               /usr/bin/stat /usr/bin/tar /usr/bin/grep /usr/bin/sed /usr/bin/find /usr/bin/dpkg)
hard_recipe_version=1   # bump when the hard set's inputs/commands change meaning

# Record caps per kind (full / --quick). A program stops as soon as every
# kind is full, so input sizes above are generous on purpose.
declare -A cap=([store-addresses]=8000000 [cache-miss-addresses]=4000000
                [load-values]=12000000 [champsim]=1500000 [branches]=3000000)
declare -A qcap=([store-addresses]=20000 [cache-miss-addresses]=20000
                 [load-values]=20000 [champsim]=5000 [branches]=20000)
# Instructions run before the ChampSim and branch traces start (the hard
# set: before any trace starts), as ChampSim traces skip start-up (the
# dynamic loader, the program's initialisation).
startup_skip=50000000
qstartup_skip=200000
wet_cap=4000000      # WET events (96 MB; edges at most 64 MB)
qwet_cap=20000
wet_track_mb=8       # the tool's last-store table: 80 MiB
recipe_version=1     # bump when inputs/commands change meaning

dir=${XDG_CACHE_HOME:-$HOME/.cache}/tcgen-corpus
kinds_arg=""; programs_arg=""; jobs=2; quick=0; tool_dir=""; force=0; list=0; wet=0
wet_only=0; wet_max_arg=""
set_name=regular
for arg in "$@"; do
    case "$arg" in
        --set=*) set_name=${arg#--set=} ;;
        --dir=*) dir=${arg#--dir=} ;;
        --kinds=*) kinds_arg=${arg#--kinds=} ;;
        --programs=*) programs_arg=${arg#--programs=} ;;
        --jobs=*) jobs=${arg#--jobs=} ;;
        --quick) quick=1 ;;
        --tool-dir=*) tool_dir=${arg#--tool-dir=} ;;
        --force) force=1 ;;
        --list) list=1 ;;
        --wet) wet=1 ;;
        --wet-only) wet=1; wet_only=1 ;;
        --wet-max=*) wet_max_arg=${arg#--wet-max=} ;;
        -h|--help) usage; echo "kinds: ${all_kinds[*]}"; echo "programs: ${all_programs[*]}"
                   echo "programs (--set=hard): ${hard_programs[*]}"; exit 0 ;;
        *) die "unknown argument '$arg' (try --help)" ;;
    esac
done
# The set decides the program table, the file names and the skip: the
# regular set's files keep their names (PROGRAM.sta, manifest.tsv), the hard
# set's are prefixed (hard-PROGRAM.sta, hard-manifest.tsv) in the same DIR.
case "$set_name" in
    regular) fprefix="" ;;
    hard)
        fprefix="hard-"
        [[ $wet == 0 ]] || die "--wet makes WET files of the regular set only (tcgen-tracer's --skip does not apply to them)"
        all_programs=("${hard_programs[@]}")
        cmd=(); input=()
        for p in "${all_programs[@]}"; do cmd[$p]=${hard_cmd[$p]}; input[$p]=${hard_input[$p]}; done ;;
    *) die "unknown --set '$set_name' (known: regular, hard)" ;;
esac
[[ "$jobs" =~ ^[1-9][0-9]*$ ]] || die "bad --jobs value '$jobs'"
if [[ $list == 1 ]]; then
    for p in "${all_programs[@]}"; do printf '%-8s %s  (input %s)\n' "$p" "${cmd[$p]}" "${input[$p]}"; done
    exit 0
fi
kinds=("${all_kinds[@]}")
if [[ -n "$kinds_arg" ]]; then
    IFS=, read -r -a kinds <<< "$kinds_arg"
    for k in "${kinds[@]}"; do [[ -n "${kind_opt[$k]+x}" ]] || die "unknown kind '$k' (known: ${all_kinds[*]})"; done
fi
programs=("${all_programs[@]}")
if [[ -n "$programs_arg" ]]; then
    IFS=, read -r -a programs <<< "$programs_arg"
    for p in "${programs[@]}"; do [[ -n "${cmd[$p]+x}" ]] || die "unknown program '$p' (known: ${all_programs[*]})"; done
fi
if [[ $quick == 1 ]]; then
    for k in "${all_kinds[@]}"; do cap[$k]=${qcap[$k]}; done
    startup_skip=$qstartup_skip
    wet_cap=$qwet_cap
    [[ "$dir" == */ ]] && dir=${dir%/}
    dir=$dir/quick
fi
if [[ -n "$wet_max_arg" ]]; then
    [[ "$wet_max_arg" =~ ^[0-9]+$ ]] || die "bad --wet-max value '$wet_max_arg'"
    wet_cap=$wet_max_arg
fi

if [[ -z "$tool_dir" ]]; then
    for cand in "$here/../build/tracer/lib" "$PWD/build/tracer/lib" "$PWD/tracer/lib"; do
        if [[ -x "$cand/tcgen-tracer-amd64-linux" ]]; then tool_dir=$cand; break; fi
    done
    [[ -n "$tool_dir" ]] || die "tcgen-tracer not found; build it (cmake --build build --target tcgen-tracer) or pass --tool-dir=DIR"
fi
[[ -x "$tool_dir/tcgen-tracer-amd64-linux" ]] || die "--tool-dir: no tcgen-tracer-amd64-linux in '$tool_dir'"
[[ -e "$tool_dir/vgpreload_core-amd64-linux.so" ]] || die "--tool-dir: '$tool_dir' lacks vgpreload_core-amd64-linux.so (rebuild the tcgen-tracer target)"
tool_dir=$(cd "$tool_dir" && pwd)
command -v valgrind >/dev/null || die "valgrind not found (apt-get install valgrind)"
for p in "${programs[@]}"; do
    read -r exe _ <<< "${cmd[$p]}"
    [[ -x "$exe" ]] || die "program '$p' needs $exe (see bench/README.md for the Debian packages)"
done

mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
case "$dir/" in "$(cd "$here/.." && pwd)/"*) die "--dir must be outside the source tree" ;; esac

# Isolation: no address-space randomisation (vDSO etc.) and, when possible,
# a fresh pid namespace so getpid() is the same on every run.
wrap=()
if command -v setarch >/dev/null && setarch "$(uname -m)" -R true 2>/dev/null; then
    wrap=(setarch "$(uname -m)" -R)
fi
if unshare --pid --fork --kill-child true 2>/dev/null; then
    wrap+=(unshare --pid --fork --kill-child)
elif unshare --user --map-root-user --pid --fork --kill-child true 2>/dev/null; then
    wrap+=(unshare --user --map-root-user --pid --fork --kill-child)
else
    echo "$prog: warning: cannot make a pid namespace (unshare); load values that depend on the pid may differ between runs" >&2
fi

tool_sum=$(sha256sum "$tool_dir/tcgen-tracer-amd64-linux" | cut -c1-64)
vg_version=$(valgrind --version)

# --- input generators (deterministic; gen_text in runner/common.sh) --------
gen_sql() {  # rows
    cat <<EOF
CREATE TABLE t(id INTEGER PRIMARY KEY, a INTEGER, b TEXT, c REAL);
WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s WHERE i < $1)
INSERT INTO t SELECT i, (i * 7919) % 1009, 'w' || ((i * 104729) % 5003), (i % 97) * 1.5 FROM s;
CREATE INDEX ta ON t(a);
CREATE INDEX tb ON t(b);
CREATE TABLE u AS SELECT a, count(*) AS n, sum(c) AS sc FROM t GROUP BY a;
SELECT count(*), sum(a), max(b) FROM t;
SELECT b, count(*) FROM t GROUP BY b ORDER BY count(*) DESC, b LIMIT 20;
SELECT t.a, u.n, sum(t.c) FROM t JOIN u ON t.a = u.a WHERE t.id % 3 = 0 GROUP BY t.a ORDER BY 3 DESC LIMIT 20;
UPDATE t SET c = c * 2 + a WHERE a % 5 = 1;
DELETE FROM t WHERE id % 7 = 3;
SELECT a, group_concat(b, ',') FROM (SELECT a, b FROM t ORDER BY b) GROUP BY a LIMIT 50;
SELECT count(DISTINCT b), avg(c) FROM t;
EOF
}
gen_csrc() {  # functions
    awk -v n="$1" 'BEGIN {
    x = 12345
    print "struct node { struct node *next; long key; double w; };"
    print "extern int printf(const char *, ...);"
    for (i = 0; i < n; i++) {
        x = (x * 16807) % 2147483647; k = x % 5
        printf "static long f%d(struct node *p, long a, long b) {\n", i
        printf "  long s = %d;\n  for (long i = 0; i < a; i++) {\n", x % 1000
        if (k == 0) printf "    s += (i * %d) ^ (b >> %d);\n", x % 97, x % 13
        if (k == 1) printf "    if (p && p->key > i) s -= p->key * %d; else s += i / (b | 1);\n", x % 31
        if (k == 2) printf "    switch ((s + i) & 3) { case 0: s++; break; case 1: s *= 3; break; default: s -= b; }\n"
        if (k == 3) printf "    for (struct node *q = p; q; q = q->next) s += q->key + (long)q->w;\n"
        if (k == 4) printf "    s = s * %d + (long)(a * 0.5 + b * %d.25);\n", x % 89 + 1, x % 7
        printf "  }\n"
        if (i > 0) printf "  s += f%d(p, a - 1, s);\n", (x % i)
        printf "  return s;\n}\n"
    }
    printf "long run(struct node *p) { return f%d(p, 10, 20); }\n", n - 1
    }'
}
# The hard set's inputs (see hard_input above).
gen_markov() {  # bytes: an order-2 word-level Markov chain trained on $markov_source
    awk -v n="$1" '{ for (i = 1; i <= NF; i++) w[++nw] = $i }
    END {
        # successors of each pair of words, with their multiplicity
        for (i = 1; i + 2 <= nw; i++) { c = w[i] " " w[i + 1]; succ[c, ++ns[c]] = w[i + 2] }
        x = 20050101; len = 0; line = ""; nl = 0; c = ""
        while (len < n) {
            if (!(c in ns)) {   # start, or the text'"'"'s last pair: jump to a random place
                x = (x * 16807) % 2147483647; i = 1 + x % (nw - 2)
                a = w[i]; b = w[i + 1]; c = a " " b
                continue
            }
            x = (x * 16807) % 2147483647
            nx = succ[c, 1 + x % ns[c]]
            line = (nl == 0) ? nx : line " " nx; nl++
            a = b; b = nx; c = a " " b
            x = (x * 16807) % 2147483647
            if (nl >= 8 + x % 8) {
                line = line "\n"
                if (len + length(line) > n) line = substr(line, 1, n - len)
                printf "%s", line; len += length(line); nl = 0; line = ""
            }
        }
    }' "$markov_source"
}
gen_sqlrand() {  # rounds
    # Keys i * 2654435761 mod 2^32 (a multiplicative hash: distinct, scattered
    # over the B-tree); v, a second scattered key, indexed too. Each round
    # inserts 4001 rows, looks 4000 up by i and 2000 by v and deletes up to
    # 1500, all in orders scrambled by LCG-like steps modulo the table size.
    local r lo hi
    cat <<EOF
CREATE TABLE t(k INTEGER PRIMARY KEY, i INTEGER NOT NULL, v TEXT, w REAL);
CREATE INDEX ti ON t(i);
CREATE INDEX tv ON t(v);
EOF
    for (( r = 1; r <= $1; r++ )); do
        lo=$(( (r - 1) * 4001 + 1 )) hi=$(( r * 4001 ))
        cat <<EOF
WITH RECURSIVE s(i) AS (SELECT $lo UNION ALL SELECT i + 1 FROM s WHERE i < $hi)
INSERT INTO t SELECT i * 2654435761 % 4294967296, i, printf('%08x', i * 2246822519 % 4294967296), (i * 40503 % 1000) * 0.25 FROM s;
WITH RECURSIVE q(j) AS (SELECT 1 UNION ALL SELECT j + 1 FROM q WHERE j < 4000)
SELECT count(*), sum(t.w) FROM q JOIN t ON t.i = 1 + (j * 48271 + $r) % $hi;
WITH RECURSIVE q(j) AS (SELECT 1 UNION ALL SELECT j + 1 FROM q WHERE j < 2000)
SELECT count(*), sum(t.i) FROM q JOIN t ON t.v = printf('%08x', (1 + (j * 69621 + $r) % $hi) * 2246822519 % 4294967296);
WITH RECURSIVE q(j) AS (SELECT 1 UNION ALL SELECT j + 1 FROM q WHERE j < 1500)
DELETE FROM t WHERE k IN (SELECT (1 + (j * 16807 + $r) % $hi) * 2654435761 % 4294967296 FROM q);
EOF
    done
    cat <<EOF
UPDATE t SET w = w * 2 + i % 7 WHERE v < '40000000';
SELECT count(*), sum(w), min(v), max(k) FROM t;
SELECT CAST(w AS INTEGER) % 10 AS b, count(*) FROM t GROUP BY b ORDER BY b;
EOF
}
tracer_sources() { echo "$here/../tracer/valgrind/tracer.h" "$here"/../tracer/valgrind/*.c; }
# Files an input is made from (their sha256 go into the recipe).
input_sources() {  # spec
    case "${1%%:*}" in
        markov) echo "$markov_source" ;;
        binaries) echo "${hard_binaries[*]}" ;;
        tracer) tracer_sources ;;
    esac
}
input_sources_all() { local p; for p in "${programs[@]}"; do input_sources "${input[$p]}"; done; }
# The hard set's inputs are made from files this machine must have.
if [[ $set_name == hard ]]; then
    for f in $(input_sources_all); do
        [[ -r "$f" ]] || die "the hard set needs $f (see bench/README.md)"
    done
fi
gen_input() {  # spec
    local g=${1%%:*} n=${1#*:}
    case "$g" in
        text) gen_text "$n" ;;
        sql) gen_sql "$n" ;;
        csrc) gen_csrc "$n" ;;
        markov) gen_markov "$n" ;;
        binaries) cat "${hard_binaries[@]}" ;;
        sqlrand) gen_sqlrand "$n" ;;
        tracer) cat $(tracer_sources) | grep -v '^#include "tracer.h"$' ;;
        *) die "internal: bad input generator '$g'" ;;
    esac
}

# --- one program: one valgrind run writing all requested kinds ------------
# Every run writes all kinds (one run costs the same); --kinds only selects
# what the manifest and the table list.
# Recipe key: everything that determines the bytes.
recipe() {  # program set
    local p=$1 k
    printf 'v%s|%s|%s|%s|%s|%s' "$recipe_version" "$tool_sum" "$vg_version" \
        "${cmd[$p]}" "${input[$p]}" "$(sha256sum "${cmd[$p]%% *}" | cut -c1-16)"
    if [[ $2 == wet ]]; then
        printf '|wet-max=%s|wet-track-mb=%s' "$wet_cap" "$wet_track_mb"
    else
        printf '|skip=%s' "$startup_skip"
        for k in "${all_kinds[@]}"; do printf '|%s=%s' "$k" "${cap[$k]}"; done
    fi
    [[ $p == python3 ]] && printf '|%s' "$(printf %s "$pyscript" | sha256sum | cut -c1-16)"
    [[ $p == perl ]] && printf '|%s' "$(printf %s "$plscript" | sha256sum | cut -c1-16)"
    if [[ $set_name == hard ]]; then   # (the regular set's key is as it always was)
        printf '|hard-v%s|skip-all' "$hard_recipe_version"
        local f
        for f in $(input_sources "${input[$p]}"); do printf '|%s' "$(sha256sum "$f" | cut -c1-16)"; done
    fi
    printf '\n'
}


records_of() {  # kind bytes
    if [[ $1 == champsim ]]; then echo $(( $2 / 64 ))
    elif [[ -n "${record_bytes[$1]+x}" ]]; then echo $(( ($2 - 4) / ${record_bytes[$1]} ))
    else echo $(( ($2 - 4) / 12 )); fi
}

# Per set (traces, wet): stamp suffix and the kinds a run writes.
stamp_of() { if [[ $2 == wet ]]; then echo "$dir/$1.wet.stamp"; else echo "$dir/$fprefix$1.stamp"; fi; }
set_kinds() { if [[ $1 == wet ]]; then echo "${wet_kinds[*]}"; else echo "${all_kinds[*]}"; fi; }

# Stamp DIR/PROGRAM.stamp (PROGRAM.wet.stamp): line 1 "recipe\t<key>", then
# per kind "kind\tfile\tbytes\tsha256\tseconds".  Valid only if every file
# matches.
stamp_ok() {  # program key set
    local p=$1 key=$2 st k line f b s want=()
    st=$(stamp_of "$p" "$3")
    if [[ $3 == wet ]]; then want=("${wet_kinds[@]}"); else want=("${kinds[@]}"); fi
    [[ $force == 0 && -f "$st" ]] || return 1
    [[ "$(head -n1 "$st")" == "recipe	$key" ]] || return 1
    for k in "${want[@]}"; do
        line=$(grep -P "^$k\t" "$st") || return 1
        IFS=$'\t' read -r _ f b s _ <<< "$line"
        [[ -f "$dir/$f" && "$(stat -c %s "$dir/$f")" == "$b" ]] || return 1
        [[ "$(sha256sum "$dir/$f" | cut -c1-64)" == "$s" ]] || return 1
    done
}

run_program() {  # program key set -> writes stamp, logs to $dir/PROGRAM[.wet].log
    local p=$1 key=$2 set=$3 k t0 t1 pre=() args=() ok=1 in tmpd st log kinds_run=()
    read -r -a kinds_run <<< "$(set_kinds "$set")"
    st=$(stamp_of "$p" "$set")
    log=${st%.stamp}.log
    tmpd=$(mktemp -d "$dir/.tmp-$fprefix$p.XXXXXX")
    in="$tmpd/input"
    gen_input "${input[$p]}" > "$in"
    read -r -a args <<< "${cmd[$p]}"
    for i in "${!args[@]}"; do
        [[ ${args[$i]} == PYSCRIPT ]] && args[$i]=$pyscript
        [[ ${args[$i]} == PLSCRIPT ]] && args[$i]=$plscript
    done
    if [[ $set == wet ]]; then
        pre=(--wet="$tmpd/wet" --wet-max="$wet_cap" --wet-track-mb="$wet_track_mb")
    else
        if [[ $set_name == hard ]]; then
            pre=(--skip="$startup_skip")
        else
            pre=(--champsim-skip="$startup_skip" --branches-skip="$startup_skip")
        fi
        for k in "${all_kinds[@]}"; do
            pre+=(--"${kind_opt[$k]}"="$tmpd/${kind_ext[$k]}" --"${kind_opt[$k]}"-max="${cap[$k]}")
        done
    fi
    t0=$(date +%s.%N)
    # VALGRIND_LIB=/proc/self/fd/9: the tool directory's path must not reach
    # the client's environment (its length would shift every stack address).
    set +e
    ( exec 9<"$tool_dir"
      exec "${wrap[@]}" env -i -C / PATH=/usr/bin:/bin LC_ALL=C PYTHONHASHSEED=0 \
          PERL_HASH_SEED=0 PERL_PERTURB_KEYS=0 VALGRIND_LIB=/proc/self/fd/9 \
          valgrind --tool=tcgen-tracer "${pre[@]}" \
          "${args[@]}" ) < "$in" > /dev/null 2> "$log"
    local rc=$?
    set -e
    t1=$(date +%s.%N)
    if [[ $rc -ne 0 ]]; then
        echo "$prog: $p: valgrind exited with status $rc; see $log" >&2
        rm -rf "$tmpd"; return 1
    fi
    if [[ $set != wet ]]; then
        for k in "${kinds_run[@]}"; do
            if (( $(records_of "$k" "$(stat -c %s "$tmpd/${kind_ext[$k]}")") <= 0 )); then
                echo "$prog: $p: no $k records (did the run end within the start-up skip?); see $log" >&2
                rm -rf "$tmpd"; return 1
            fi
        done
    fi
    local secs; secs=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')
    { printf 'recipe\t%s\n' "$key"
      for k in "${kinds_run[@]}"; do
          local f; f="$fprefix$p.${kind_ext[$k]}"
          mv -f "$tmpd/${kind_ext[$k]}" "$dir/$f"
          printf '%s\t%s\t%s\t%s\t%s\n' "$k" "$f" "$(stat -c %s "$dir/$f")" \
              "$(sha256sum "$dir/$f" | cut -c1-64)" "$secs"
      done
    } > "$st.new"
    mv -f "$st.new" "$st"
    rm -rf "$tmpd"
}

start=$(date +%s)
rm -rf "$dir"/.tmp-* 2>/dev/null || true
declare -A reused=()
pids=(); names=(); failed=0
sets=(traces); [[ $wet == 1 ]] && sets+=(wet); [[ $wet_only == 1 ]] && sets=(wet)
for p in "${programs[@]}"; do
    for set in "${sets[@]}"; do
        key=$(recipe "$p" "$set")
        if stamp_ok "$p" "$key" "$set"; then reused[$p.$set]=1; continue; fi
        rm -f "$(stamp_of "$p" "$set")"
        while (( $(jobs -rp | wc -l) >= jobs )); do wait -n || failed=1; done
        echo "$prog: tracing $p$([[ $set == wet ]] && echo " (WET)") ..." >&2
        run_program "$p" "$key" "$set" &
    done
done
while (( $(jobs -rp | wc -l) > 0 )); do wait -n || failed=1; done
wait || failed=1

# Manifest: header line, then one line per trace (tab-separated).
write_manifest() {  # file set kinds...
    local man=$1 set=$2 k p st line f b s; shift 2
    {
        printf 'kind\tprogram\tfile\tbytes\trecords\tsha256\n'
        for k in "$@"; do
            for p in "${programs[@]}"; do
                st=$(stamp_of "$p" "$set")
                [[ -f "$st" ]] || continue
                line=$(grep -P "^$k\t" "$st") || continue
                IFS=$'\t' read -r _ f b s _ <<< "$line"
                printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$k" "$p" "$dir/$f" "$b" "$(records_of "$k" "$b")" "$s"
            done
        done
    } > "$man.new"
    mv -f "$man.new" "$man"
}
man="$dir/${fprefix}manifest.tsv"
[[ $wet_only == 1 ]] || write_manifest "$man" traces "${kinds[@]}"
[[ $wet == 0 ]] || write_manifest "$dir/wet-manifest.tsv" wet "${wet_kinds[@]}"

print_rows() {  # set kinds...
    local set=$1 k p st f b s secs; shift
    for k in "$@"; do
        for p in "${programs[@]}"; do
            st=$(stamp_of "$p" "$set")
            [[ -f "$st" ]] || { printf '%-22s %-8s %10s %11s %8s  %s\n' "$k" "$p" - - - FAILED; continue; }
            IFS=$'\t' read -r _ f b s secs <<< "$(grep -P "^$k\t" "$st")"
            printf '%-22s %-8s %10.1f %11d %8s  %s\n' "$k" "$p" "$(awk -v b="$b" 'BEGIN{print b/1e6}')" \
                "$(records_of "$k" "$b")" "$secs" "$([[ -n "${reused[$p.$set]+x}" ]] && echo reused || echo made)"
        done
    done
}
printf '%-22s %-8s %10s %11s %8s  %s\n' kind program MB records seconds status
[[ $wet_only == 1 ]] || print_rows traces "${kinds[@]}"
[[ $wet == 0 ]] || print_rows wet "${wet_kinds[@]}"
echo "manifest: $man$([[ $wet == 1 ]] && echo ", $dir/wet-manifest.tsv")  (total wall time $(( $(date +%s) - start )) s)"
[[ $failed == 0 ]] || die "some programs failed (see the .log files in $dir)"
