// A ChampSim-style trace loop over input_instr records, reading a .tcz
// in-process through the generated champsim_trace::Reader: no xz child
// process, no temporary file, and warm-up instructions skipped with
// Reader::skip(). It models what a front end sees: branches and how often
// they are taken, and a small data cache over the memory operands.
//
//   simulator [--skip=N] [--instructions=N] TRACE.tcz
//   simulator --raw [--skip=N] [--instructions=N] TRACE   (the uncompressed trace, for comparison)

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <exception>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "champsim.hpp"

namespace {

// ChampSim's record (inc/trace_instruction.h), 64 bytes.
constexpr int num_instr_destinations = 2;
constexpr int num_instr_sources = 4;
struct input_instr {
    unsigned long long ip = 0;
    unsigned char is_branch = 0;
    unsigned char branch_taken = 0;
    unsigned char destination_registers[num_instr_destinations] = {};
    unsigned char source_registers[num_instr_sources] = {};
    unsigned long long destination_memory[num_instr_destinations] = {};
    unsigned long long source_memory[num_instr_sources] = {};
};

// The generated Record has the members examples/champsim.tcg names, those
// of input_instr.
input_instr to_input_instr(const champsim_trace::Record& record) {
    input_instr instr;
    instr.ip = record.ip;
    instr.is_branch = record.is_branch;
    instr.branch_taken = record.branch_taken;
    for (int k = 0; k < num_instr_destinations; ++k) {
        instr.destination_registers[k] = record.destination_registers[k];
        instr.destination_memory[k] = record.destination_memory[k];
    }
    for (int k = 0; k < num_instr_sources; ++k) {
        instr.source_registers[k] = record.source_registers[k];
        instr.source_memory[k] = record.source_memory[k];
    }
    return instr;
}

// 32 KiB, 8-way, 64-byte lines, LRU.
class DataCache {
public:
    bool access(unsigned long long address) {
        const unsigned long long line = address >> 6;
        Way* set = &ways_[(line % sets) * associativity];
        ++clock_;
        for (int way = 0; way < associativity; ++way) {
            if (set[way].valid && set[way].line == line) {
                set[way].last_use = clock_;
                return true;
            }
        }
        Way* victim = set;
        for (int way = 1; way < associativity; ++way) {
            if (!set[way].valid || (victim->valid && set[way].last_use < victim->last_use)) {
                victim = &set[way];
            }
        }
        *victim = {true, line, clock_};
        return false;
    }

private:
    static constexpr int sets = 64;
    static constexpr int associativity = 8;
    struct Way {
        bool valid = false;
        unsigned long long line = 0;
        unsigned long long last_use = 0;
    };
    std::vector<Way> ways_ = std::vector<Way>(sets * associativity);
    unsigned long long clock_ = 0;
};

struct Statistics {
    unsigned long long instructions = 0;
    unsigned long long branches = 0;
    unsigned long long taken = 0;
    unsigned long long loads = 0;
    unsigned long long stores = 0;
    unsigned long long misses = 0;
    std::set<unsigned long long> instruction_pointers;
    DataCache cache;

    void operate(const input_instr& instr) {
        ++instructions;
        instruction_pointers.insert(instr.ip);
        branches += instr.is_branch;
        taken += instr.is_branch && instr.branch_taken;
        for (unsigned long long address : instr.source_memory) {
            if (address != 0) {
                ++loads;
                misses += !cache.access(address);
            }
        }
        for (unsigned long long address : instr.destination_memory) {
            if (address != 0) {
                ++stores;
                misses += !cache.access(address);
            }
        }
    }

    void print() const {
        std::printf("instructions %llu\n", instructions);
        std::printf("distinct instruction pointers %zu\n", instruction_pointers.size());
        std::printf("branches %llu, taken %llu\n", branches, taken);
        std::printf("loads %llu, stores %llu, L1D misses %llu\n", loads, stores, misses);
    }
};

struct Options {
    bool raw = false;
    unsigned long long skip = 0;
    unsigned long long instructions = ~0ULL;
    std::string path;
};

unsigned long long number_of(const std::string& text, const std::string& option) {
    std::size_t used = 0;
    unsigned long long value = 0;
    try {
        value = std::stoull(text, &used);
    } catch (const std::exception&) {
        used = 0;
    }
    if (used == 0 || used != text.size()) {
        throw std::runtime_error(option + " needs a number, not '" + text + "'");
    }
    return value;
}

Options parse(int argc, char** argv) {
    Options options;
    for (int index = 1; index < argc; ++index) {
        const std::string argument = argv[index];
        if (argument == "--raw") {
            options.raw = true;
        } else if (argument.rfind("--skip=", 0) == 0) {
            options.skip = number_of(argument.substr(7), "--skip");
        } else if (argument.rfind("--instructions=", 0) == 0) {
            options.instructions = number_of(argument.substr(15), "--instructions");
        } else if (argument[0] == '-' || !options.path.empty()) {
            throw std::runtime_error("usage: simulator [--raw] [--skip=N] [--instructions=N] TRACE");
        } else {
            options.path = argument;
        }
    }
    if (options.path.empty()) {
        throw std::runtime_error("usage: simulator [--raw] [--skip=N] [--instructions=N] TRACE");
    }
    return options;
}

// The loop ChampSim runs over an uncompressed trace, for comparison.
void simulate_raw(const Options& options, Statistics& statistics) {
    std::ifstream trace(options.path, std::ios::binary);
    if (!trace) {
        throw std::runtime_error("cannot open '" + options.path + "'");
    }
    input_instr instr;
    static_assert(sizeof instr == champsim_trace::Record::bytes, "input_instr is the spec's record");
    unsigned long long read = 0;
    while (statistics.instructions < options.instructions &&
           trace.read(reinterpret_cast<char*>(&instr), sizeof instr)) {
        if (read++ >= options.skip) {
            statistics.operate(instr);
        }
    }
}

void simulate(const Options& options, Statistics& statistics) {
    champsim_trace::Reader reader(options.path);
    reader.skip(options.skip);
    champsim_trace::Record record;
    while (statistics.instructions < options.instructions && reader.next(record)) {
        statistics.operate(to_input_instr(record));
    }
}

}  // namespace

int main(int argc, char** argv) {
    try {
        const Options options = parse(argc, argv);
        Statistics statistics;
        if (options.raw) {
            simulate_raw(options, statistics);
        } else {
            simulate(options, statistics);
        }
        statistics.print();
        return 0;
    } catch (const tcgen_runtime::Error& error) {
        std::fprintf(stderr, "simulator: error: %s\n", error.what());
    } catch (const std::exception& error) {
        std::fprintf(stderr, "simulator: error: %s\n", error.what());
    }
    return 1;
}
