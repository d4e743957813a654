// Writes a deterministic synthetic trace for round-trip tests: an optional
// header, records of the given field widths, and an optional tail that is not
// a whole record. Field values follow the patterns value predictors exist
// for (strides, repeats, alternations, repeating sequences) or are random.
//
// Usage: synth_trace --fields=32,64 [--header=4] [--records=N] [--tail=T]
//                    [--pattern=mixed|stride|repeat|alternate|sequence|random] [--seed=S]

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

namespace {

struct Options {
    std::vector<unsigned> field_bits;
    unsigned long long header_bytes = 0;
    unsigned long long records = 1000;
    unsigned long long tail_bytes = 0;
    std::string pattern = "mixed";
    unsigned seed = 1;
};

[[noreturn]] void usage_error(const std::string& message) {
    std::fprintf(stderr, "synth_trace: error: %s\n", message.c_str());
    std::exit(1);
}

std::vector<unsigned> parse_fields(const std::string& list) {
    std::vector<unsigned> bits;
    std::size_t begin = 0;
    while (begin <= list.size()) {
        std::size_t end = list.find(',', begin);
        if (end == std::string::npos) {
            end = list.size();
        }
        unsigned width = static_cast<unsigned>(std::strtoul(list.substr(begin, end - begin).c_str(), nullptr, 10));
        if (width != 8 && width != 16 && width != 32 && width != 64) {
            usage_error("field widths are 8, 16, 32 or 64");
        }
        bits.push_back(width);
        begin = end + 1;
    }
    return bits;
}

Options parse_options(int argc, char** argv) {
    Options options;
    for (int i = 1; i < argc; ++i) {
        std::string argument = argv[i];
        std::size_t equals = argument.find('=');
        std::string name = argument.substr(0, equals);
        std::string value = equals == std::string::npos ? "" : argument.substr(equals + 1);
        if (name == "--fields") {
            options.field_bits = parse_fields(value);
        } else if (name == "--header") {
            options.header_bytes = std::strtoull(value.c_str(), nullptr, 10);
        } else if (name == "--records") {
            options.records = std::strtoull(value.c_str(), nullptr, 10);
        } else if (name == "--tail") {
            options.tail_bytes = std::strtoull(value.c_str(), nullptr, 10);
        } else if (name == "--pattern") {
            options.pattern = value;
        } else if (name == "--seed") {
            options.seed = static_cast<unsigned>(std::strtoul(value.c_str(), nullptr, 10));
        } else {
            usage_error("unknown option '" + argument + "'");
        }
    }
    if (options.field_bits.empty()) {
        usage_error("--fields is required");
    }
    return options;
}

// One field's value source. Each of a handful of "instructions" (the PC
// cycles through them) keeps its own state, as in a real trace.
class FieldPattern {
public:
    FieldPattern(std::string kind, unsigned bits, std::mt19937_64& random)
        : kind_(std::move(kind)), mask_(bits == 64 ? ~0ull : (1ull << bits) - 1), random_(random) {
        for (auto& state : states_) {
            state.base = random_();
            state.stride = (random_() % 64) * 8 + 1;
        }
    }

    std::uint64_t next(std::uint64_t record, unsigned instruction) {
        State& state = states_[instruction % state_count];
        ++state.count;
        std::uint64_t value = 0;
        if (kind_ == "stride") {
            value = state.base + state.count * state.stride;
        } else if (kind_ == "repeat") {
            value = state.base;
        } else if (kind_ == "alternate") {
            value = state.count % 2 == 0 ? state.base : state.base + state.stride;
        } else if (kind_ == "sequence") {
            static const std::uint64_t sequence[] = {3, 141, 59, 26, 535, 8979, 3238, 46};
            value = state.base ^ sequence[state.count % 8];
        } else if (kind_ == "random") {
            value = random_();
        } else if (kind_ == "pc") {
            value = 0x400000 + 4 * instruction;
        } else {
            usage_error("unknown pattern '" + kind_ + "'");
        }
        (void)record;
        return value & mask_;
    }

private:
    struct State {
        std::uint64_t base = 0;
        std::uint64_t stride = 0;
        std::uint64_t count = 0;
    };

    std::string kind_;
    std::uint64_t mask_;
    std::mt19937_64& random_;
    static constexpr unsigned state_count = 8;
    State states_[state_count];
};

}  // namespace

int main(int argc, char** argv) {
    Options options = parse_options(argc, argv);
    std::mt19937_64 random(options.seed);
    static const char* const mixed[] = {"pc", "stride", "repeat", "alternate", "sequence", "random"};
    std::vector<FieldPattern> fields;
    for (std::size_t i = 0; i < options.field_bits.size(); ++i) {
        std::string kind = options.pattern == "mixed" ? mixed[i % 6] : options.pattern;
        fields.emplace_back(kind, options.field_bits[i], random);
    }
    std::vector<unsigned char> buffer;
    for (unsigned long long i = 0; i < options.header_bytes; ++i) {
        buffer.push_back(static_cast<unsigned char>('H' + i % 7));
    }
    for (std::uint64_t record = 0; record < options.records; ++record) {
        // A loop-like walk over 8 instructions, with an occasional jump.
        unsigned instruction = static_cast<unsigned>(record % 8);
        if (random() % 97 == 0) {
            instruction = static_cast<unsigned>(random() % 8);
        }
        for (std::size_t i = 0; i < fields.size(); ++i) {
            std::uint64_t value = fields[i].next(record, instruction);
            // A little noise so that every code path, misses included, runs.
            if (options.pattern == "mixed" && random() % 50 == 0) {
                value ^= random();
            }
            for (unsigned byte = 0; byte < options.field_bits[i] / 8; ++byte) {
                buffer.push_back(static_cast<unsigned char>(value >> (8 * byte)));
            }
        }
        if (buffer.size() >= (1u << 20)) {
            std::fwrite(buffer.data(), 1, buffer.size(), stdout);
            buffer.clear();
        }
    }
    for (unsigned long long i = 0; i < options.tail_bytes; ++i) {
        buffer.push_back(static_cast<unsigned char>(random()));
    }
    if (!buffer.empty()) {  // an empty vector's data() may be null, which fwrite must not get
        std::fwrite(buffer.data(), 1, buffer.size(), stdout);
    }
    return std::fflush(stdout) == 0 ? 0 : 1;
}
