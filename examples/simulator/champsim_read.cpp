// champsim_read: reads a ChampSim trace the ways ChampSim's trace readers
// do, and writes the 64-byte input_instr records it read to standard output,
// so that a test can compare them with the original trace byte for byte
// (docs/champsim.md). It models ChampSim's reading, not its code:
//
//   champsim_read --popen --tcz-command=COMMAND TRACE
//       ChampSim up to 2023: the decompressor is chosen by the letter after
//       the name's last dot (g: gzip, x: xz) and run as `PROGRAM -dc TRACE`
//       through popen(); records are read one by one with fread(). The
//       recipe adds a case: a name ending in .tcz runs `COMMAND -dc TRACE`.
//   champsim_read --ifstream TRACE
//       ChampSim since 2023, for a name not ending in gz, xz or bz2: a
//       std::ifstream read in bulk (127 records a read) through read(),
//       gcount() and eof(); TRACE may be a pipe, as <(comp -dc trace.tcz).
//   champsim_read --tcz TRACE.tcz
//       the same bulk reading with TczIstream (tcz_istream.hpp), the
//       in-process case the recipe adds for names ending in .tcz.
//   champsim_read --tcz-repeat TRACE.tcz
//       the same, and at the end a new TczIstream assigned over the old, as
//       ChampSim's repeating reader does, read once more: the trace twice.
//   champsim_read --tcz-bytes TRACE.tcz
//       every byte TczIstream gives, a partial last record too.

#include <cstdio>
#include <cstring>
#include <exception>
#include <fstream>
#include <stdexcept>
#include <string>

#include <sys/wait.h>

#include "champsim.hpp"
#include "tcz_istream.hpp"

namespace {

// ChampSim's record (inc/trace_instruction.h), 64 bytes.
struct input_instr {
    unsigned long long ip;
    unsigned char is_branch;
    unsigned char branch_taken;
    unsigned char destination_registers[2];
    unsigned char source_registers[4];
    unsigned long long destination_memory[2];
    unsigned long long source_memory[4];
};
static_assert(sizeof(input_instr) == 64, "ChampSim's input_instr is 64 bytes");
static_assert(sizeof(input_instr) == champsim_trace::Record::bytes, "examples/champsim.tcg describes input_instr");

void write_record(const input_instr& instr) {
    if (std::fwrite(&instr, sizeof instr, 1, stdout) != 1) {
        throw std::runtime_error("cannot write the records read");
    }
}

// The decompressor the name's suffix selects, as ChampSim's popen reader
// selected gzip or xz, with the recipe's .tcz case first.
std::string decompressor_for(const std::string& path, const std::string& tcz_command) {
    const std::size_t dot = path.find_last_of('.');
    if (dot == std::string::npos || dot + 1 == path.size()) {
        throw std::runtime_error("no suffix to choose a decompressor by");
    }
    const std::string suffix = path.substr(dot);
    if (suffix == ".tcz") {
        return tcz_command;
    }
    if (suffix[1] == 'g') {
        return "gzip";
    }
    if (suffix[1] == 'x') {
        return "xz";
    }
    throw std::runtime_error("only gz, xz and tcz traces are read this way");
}

// Returns the decompressor's exit status: a reader that reaches the end of
// the pipe cannot tell a damaged file from the end of the trace otherwise.
int read_through_popen(const std::string& path, const std::string& tcz_command) {
    const std::string command = decompressor_for(path, tcz_command) + " -dc " + path;
    FILE* trace = popen(command.c_str(), "r");
    if (trace == nullptr) {
        throw std::runtime_error("cannot run '" + command + "'");
    }
    input_instr instr;
    while (std::fread(&instr, sizeof instr, 1, trace) == 1) {
        write_record(instr);
    }
    const int status = pclose(trace);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

// The bulk loop: up to 127 records a read, as many whole records as
// gcount() covers, until eof().
template <class Stream>
void read_in_bulk(Stream& trace) {
    constexpr std::size_t records_per_read = 127;
    char buffer[records_per_read * sizeof(input_instr)];
    do {
        trace.read(buffer, sizeof buffer);
        const std::size_t records = static_cast<std::size_t>(trace.gcount()) / sizeof(input_instr);
        for (std::size_t k = 0; k < records; ++k) {
            input_instr instr;
            std::memcpy(&instr, buffer + k * sizeof instr, sizeof instr);
            write_record(instr);
        }
    } while (!trace.eof());
}

constexpr const char* usage =
    "usage: champsim_read --popen --tcz-command=COMMAND TRACE | --ifstream TRACE | --tcz TRACE.tcz\n"
    "       | --tcz-repeat TRACE.tcz | --tcz-bytes TRACE.tcz";

int run(int argc, char** argv) {
    const std::string mode = argc > 1 ? argv[1] : "";
    if (mode == "--popen" && argc == 4 && std::strncmp(argv[2], "--tcz-command=", 14) == 0) {
        const int status = read_through_popen(argv[3], argv[2] + 14);
        if (status != 0) {
            std::fprintf(stderr, "champsim_read: %s: error: the decompressor exited with status %d\n", argv[3],
                         status);
            return 1;
        }
        return 0;
    }
    if (mode == "--ifstream" && argc == 3) {
        std::ifstream trace(argv[2], std::ios::binary);
        if (!trace) {
            throw std::runtime_error("cannot open it");
        }
        read_in_bulk(trace);
        return 0;
    }
    using TraceStream = TczIstream<champsim_trace::Reader, champsim_trace::Record>;
    if (mode == "--tcz" && argc == 3) {
        TraceStream trace(argv[2]);
        read_in_bulk(trace);
        return 0;
    }
    if (mode == "--tcz-repeat" && argc == 3) {
        TraceStream trace(argv[2]);
        read_in_bulk(trace);
        trace = TraceStream(argv[2]);
        read_in_bulk(trace);
        return 0;
    }
    if (mode == "--tcz-bytes" && argc == 3) {
        TraceStream trace(argv[2]);
        char buffer[1000];  // no multiple of a record
        do {
            trace.read(buffer, sizeof buffer);
            const std::size_t bytes = static_cast<std::size_t>(trace.gcount());
            if (std::fwrite(buffer, 1, bytes, stdout) != bytes) {
                throw std::runtime_error("cannot write the bytes read");
            }
        } while (!trace.eof());
        return 0;
    }
    throw std::invalid_argument(usage);
}

}  // namespace

int main(int argc, char** argv) {
    try {
        const int status = run(argc, argv);
        if (std::fflush(stdout) != 0) {
            throw std::runtime_error("cannot write the records read");
        }
        return status;
    } catch (const std::invalid_argument& error) {
        std::fprintf(stderr, "champsim_read: error: %s\n", error.what());
    } catch (const std::exception& error) {
        std::fprintf(stderr, "champsim_read: %s: error: %s\n", argv[argc - 1], error.what());
    }
    return 1;
}
