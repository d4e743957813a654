// tcgen-lackey-to-trace: turn valgrind lackey `--trace-mem=yes` output into a binary
// trace in the VPC format used by the TCgen paper (Burtscher & Sam 2005, §6.3):
// a 4-byte header followed by records of a 32-bit PC and a 64-bit data value,
// both little-endian (12 bytes per record).
//
// Input (stdin), one event per line, as printed by lackey:
//     I  0400d7d4,8        instruction fetch: address (hex), size (decimal)
//      L 04222cac,4        data load
//      S 7ff0001b8,8       data store
//      M 0421f4ac,4        data modify (load then store of the same bytes)
// Lines starting with "==", "--" or "**" (valgrind's own messages) and empty
// lines are skipped; anything else is an error (one line on stderr naming the
// line number, exit status 1). Each data access is attributed to the address
// of the latest preceding `I` line; the PC is its low 32 bits (0 if a data
// line comes before any `I` line).
//
// Header: four ASCII bytes naming the trace kind, so a file says what it holds:
//     "STA1"  --kind=store-addresses
//             one record per S and M access: PC, effective address.
//     "CMA1"  --kind=cache-miss-addresses
//             one record per L, S and M access that misses in a simulated
//             16 KiB direct-mapped data cache with 64-byte lines (256 sets),
//             write-allocate (loads and stores both allocate; there is no
//             separate write-back model). An access touches every line from
//             addr/64 to (addr+size-1)/64 (so one spanning a line boundary
//             touches two); it is a miss if any line it touches is absent,
//             and it then writes ONE record with its effective address (not
//             the line address). All touched lines are installed. An M access
//             is one access (its store part always hits after its load part).
//             The cache starts empty (all lines invalid).
//
// Options:
//     --kind=store-addresses|cache-miss-addresses   (required)
//     --max-records=N   stop after N records: stop reading, exit 0 (the
//                       writer on the other side of the pipe then gets
//                       EPIPE/SIGPIPE and should terminate)
//     --stats           print a one-line summary to stderr at the end
//
// Parsing is a hand-written scanner over 1 MiB read(2) blocks; output goes
// through a 1 MiB buffer and write(2).

#include <fcntl.h>
#include <time.h>
#include <unistd.h>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace {

enum class Kind { None, StoreAddresses, CacheMissAddresses };

constexpr std::size_t kInBlock = 1 << 20;
constexpr std::size_t kOutBlock = 1 << 20;
constexpr std::size_t kMaxLine = 4096;  // longer lines are rejected

const char* g_prog = "tcgen-lackey-to-trace";

[[noreturn]] void die(const std::string& msg) {
    std::fprintf(stderr, "%s: %s\n", g_prog, msg.c_str());
    std::exit(1);
}

class Output {
public:
    Output() : buf_(new unsigned char[kOutBlock]) {}
    ~Output() { delete[] buf_; }
    Output(const Output&) = delete;
    Output& operator=(const Output&) = delete;

    void bytes(const void* p, std::size_t n) {
        if (len_ + n > kOutBlock)
            flush();
        std::memcpy(buf_ + len_, p, n);
        len_ += n;
    }
    void record(uint32_t pc, uint64_t data) {
        unsigned char r[12];
        for (int i = 0; i < 4; ++i)
            r[i] = static_cast<unsigned char>(pc >> (8 * i));
        for (int i = 0; i < 8; ++i)
            r[4 + i] = static_cast<unsigned char>(data >> (8 * i));
        bytes(r, sizeof r);
    }
    void flush() {
        std::size_t off = 0;
        while (off < len_) {
            ssize_t w = ::write(1, buf_ + off, len_ - off);
            if (w < 0) {
                if (errno == EINTR)
                    continue;
                die(std::string("write error on stdout: ") + std::strerror(errno));
            }
            off += static_cast<std::size_t>(w);
        }
        len_ = 0;
    }

private:
    unsigned char* buf_;
    std::size_t len_ = 0;
};

// Direct-mapped cache: 16 KiB / 64-byte lines = 256 sets. tag_[set] holds
// line number + 1 (0 = invalid), so the line number is kept whole.
class Cache {
public:
    // Returns true if the access [addr, addr+size) misses in any line.
    bool access(uint64_t addr, uint64_t size) {
        uint64_t first = addr >> kLineBits;
        uint64_t last = (size == 0 ? addr : addr + (size - 1)) >> kLineBits;
        if (last < first)
            last = first;  // wrapped around 2^64: treat as one line
        bool miss = false;
        for (uint64_t line = first;; ++line) {
            uint64_t& slot = tag_[line & (kSets - 1)];
            if (slot != line + 1) {
                miss = true;
                slot = line + 1;
            }
            if (line == last)
                break;
        }
        return miss;
    }

private:
    static constexpr unsigned kLineBits = 6;  // 64-byte lines
    static constexpr uint64_t kSets = 256;    // 16 KiB / 64 B
    uint64_t tag_[kSets] = {};
};

inline int hexval(unsigned char c) {
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

struct Stats {
    uint64_t instrs = 0, loads = 0, stores = 0, modifies = 0, records = 0;
};

class Converter {
public:
    Converter(Kind kind, uint64_t max_records, bool limited)
        : kind_(kind), max_records_(max_records), limited_(limited) {}

    // Processes one line (without its '\n'). Returns false once the record
    // limit is reached.
    bool line(const char* p, const char* end) {
        ++lineno_;
        if (p == end)
            return true;
        if (end - p >= 2 &&
            ((p[0] == '=' && p[1] == '=') || (p[0] == '-' && p[1] == '-') || (p[0] == '*' && p[1] == '*')))
            return true;
        char op;
        if (end - p >= 3 && p[0] == 'I' && p[1] == ' ' && p[2] == ' ') {
            op = 'I';
        } else if (end - p >= 3 && p[0] == ' ' && (p[1] == 'L' || p[1] == 'S' || p[1] == 'M') && p[2] == ' ') {
            op = p[1];
        } else {
            bad("expected 'I  addr,size' or ' L|S|M addr,size'");
        }
        p += 3;
        uint64_t addr = 0;
        int ndig = 0;
        for (int v; p < end && (v = hexval(static_cast<unsigned char>(*p))) >= 0; ++p) {
            if (++ndig > 16)
                bad("address has more than 16 hex digits");
            addr = (addr << 4) | static_cast<uint64_t>(v);
        }
        if (ndig == 0)
            bad("missing hex address");
        if (p == end || *p != ',')
            bad("expected ',' after the address");
        ++p;
        uint64_t size = 0;
        int sdig = 0;
        for (; p < end && *p >= '0' && *p <= '9'; ++p) {
            if (++sdig > 18)
                bad("size too large");
            size = size * 10 + static_cast<uint64_t>(*p - '0');
        }
        if (sdig == 0)
            bad("missing decimal size");
        if (p != end)
            bad("unexpected characters after the size");

        switch (op) {
            case 'I':
                ++stats_.instrs;
                pc_ = static_cast<uint32_t>(addr);
                return true;
            case 'L':
                ++stats_.loads;
                break;
            case 'S':
                ++stats_.stores;
                break;
            default:
                ++stats_.modifies;
                break;
        }
        bool emit;
        if (kind_ == Kind::StoreAddresses)
            emit = (op == 'S' || op == 'M');
        else
            emit = cache_.access(addr, size);
        if (emit) {
            out_.record(pc_, addr);
            ++stats_.records;
            if (limited_ && stats_.records >= max_records_)
                return false;
        }
        return true;
    }

    Output& out() { return out_; }
    const Stats& stats() const { return stats_; }
    uint64_t lineno() const { return lineno_; }

private:
    [[noreturn]] void bad(const char* why) { die("line " + std::to_string(lineno_) + ": bad lackey line: " + why); }

    Kind kind_;
    uint64_t max_records_;
    bool limited_;
    uint64_t lineno_ = 0;
    uint32_t pc_ = 0;
    Cache cache_;
    Output out_;
    Stats stats_;
};

[[noreturn]] void usage_and_exit(int status) {
    std::fprintf(status ? stderr : stdout,
                 "usage: %s --kind=store-addresses|cache-miss-addresses "
                 "[--max-records=N] [--stats] < lackey-output > trace\n",
                 g_prog);
    std::exit(status);
}

}  // namespace

int main(int argc, char** argv) {
    Kind kind = Kind::None;
    uint64_t max_records = 0;
    bool limited = false;
    bool want_stats = false;
    for (int i = 1; i < argc; ++i) {
        std::string a = argv[i];
        if (a == "--kind=store-addresses") {
            kind = Kind::StoreAddresses;
        } else if (a == "--kind=cache-miss-addresses") {
            kind = Kind::CacheMissAddresses;
        } else if (a.rfind("--kind=", 0) == 0) {
            die("unknown trace kind '" + a.substr(7) + "' (expected store-addresses or cache-miss-addresses)");
        } else if (a.rfind("--max-records=", 0) == 0) {
            std::string v = a.substr(14);
            if (v.empty() || v.size() > 19 || v.find_first_not_of("0123456789") != std::string::npos)
                die("bad --max-records value '" + v + "' (expected a non-negative integer)");
            max_records = std::strtoull(v.c_str(), nullptr, 10);
            limited = true;
        } else if (a == "--stats") {
            want_stats = true;
        } else if (a == "-h" || a == "--help") {
            usage_and_exit(0);
        } else {
            die("unknown option '" + a + "' (try --help)");
        }
    }
    if (kind == Kind::None)
        die("--kind=store-addresses|cache-miss-addresses is required");

    Converter conv(kind, max_records, limited);
    conv.out().bytes(kind == Kind::StoreAddresses ? "STA1" : "CMA1", 4);

    // valgrind writes its log in small pieces; waking up for each one costs
    // more system time than the whole parse. Enlarge the pipe (if stdin is a
    // pipe; failure is harmless) and, after a short read, nap briefly so that
    // the writer can fill the pipe.
#ifdef F_SETPIPE_SZ
    (void)fcntl(0, F_SETPIPE_SZ, 1 << 20);
#endif
    const struct timespec nap = {0, 2000000};  // 2 ms

    bool go = !(limited && max_records == 0);
    // Buffer: carried-over partial line + one read block.
    char* buf = new char[kMaxLine + kInBlock];
    std::size_t have = 0;  // bytes of an incomplete line at buf[0..have)
    while (go) {
        ssize_t n = ::read(0, buf + have, kInBlock);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            die(std::string("read error on stdin: ") + std::strerror(errno));
        }
        if (n == 0) {
            if (have > 0)
                go = conv.line(buf, buf + have);  // last line without '\n'
            have = 0;
            break;
        }
        const char* p = buf;
        const char* end = buf + have + static_cast<std::size_t>(n);
        while (go) {
            const char* nl = static_cast<const char*>(std::memchr(p, '\n', static_cast<std::size_t>(end - p)));
            if (!nl)
                break;
            go = conv.line(p, nl);
            p = nl + 1;
        }
        if (!go)
            break;
        if (static_cast<std::size_t>(n) < kInBlock / 4)
            nanosleep(&nap, nullptr);
        have = static_cast<std::size_t>(end - p);
        if (have > kMaxLine) {
            die("line " + std::to_string(conv.lineno() + 1) + ": line longer than " + std::to_string(kMaxLine) +
                " bytes");
        }
        std::memmove(buf, p, have);
    }
    delete[] buf;
    conv.out().flush();
    if (want_stats) {
        const Stats& s = conv.stats();
        std::fprintf(stderr, "%s: %llu instructions, %llu loads, %llu stores, %llu modifies -> %llu records\n", g_prog,
                     static_cast<unsigned long long>(s.instrs), static_cast<unsigned long long>(s.loads),
                     static_cast<unsigned long long>(s.stores), static_cast<unsigned long long>(s.modifies),
                     static_cast<unsigned long long>(s.records));
    }
    return 0;
}
