# bench/runner/common.sh: what the bench shell scripts start with, sourced
# right after `set -euo pipefail`:
#   here         the bench folder (absolute)
#   prog         the script's name, for its messages
#   die MESSAGE  "PROG: MESSAGE" on stderr, exit status 1
#   usage_lines FIRST,LAST
#                prints the script's usage from its own header comment
#   gen_text N   N bytes of deterministic text on stdout: words from a fixed
#                vocabulary with a skewed distribution, Park-Miller LCG (exact
#                in awk's doubles), lines of 4-15 words; the same bytes on
#                every machine, so a trace made from it repeats

here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
prog=$(basename "$0")

die() { echo "$prog: $*" >&2; exit 1; }

usage_lines() { sed -n "$1p" "$0" | sed 's/^# \{0,3\}//'; }

gen_text() {  # bytes
    awk -v n="$1" 'BEGIN {
    nv = split("the of and to in is that for it as was with be by on not he this are " \
               "or his from at which but have an they you were her she there one all " \
               "would their we him been has when who will more no if out so said what " \
               "up its about into than them can only other new some could time these " \
               "two may then do first any my now such like our over man me even most " \
               "made after also did many before must through back years where much your " \
               "way well down should because each just those people how too little state " \
               "good very make world still own see men work long get here between both " \
               "life being under never day same another know while last might us great " \
               "old year off come since against go came right used take three trace " \
               "compressor predictor value stride table field record header memory " \
               "address cache miss store load instruction program benchmark", v, " ")
    x = 20050101; len = 0; nw = 0; line = ""
    while (len < n) {
        x = (x * 16807) % 2147483647; r = x / 2147483647
        w = v[1 + int(nv * r * r * r)]                 # skewed towards early words
        x = (x * 16807) % 2147483647
        if (x % 97 == 0) w = w (x % 10000)             # occasional numbers
        line = (nw == 0) ? w : line " " w; nw++
        x = (x * 16807) % 2147483647
        if (nw >= 4 + x % 12) {
            line = line "\n"
            if (len + length(line) > n) line = substr(line, 1, n - len)  # exactly n bytes
            printf "%s", line; len += length(line); nw = 0; line = ""
        }
    }}'
}
