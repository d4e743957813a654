// wet-walk: checks libtcgen_wet against a raw file. Builds the compressed
// stream of KIND from RAW_FILE (little-endian records of the spec
// specs/wet/KIND.tcg), then walks it as STEPS says, printing every record a
// step yields, one per line, its fields as decimal numbers.
//
//   wet-walk KIND RAW_FILE STEPS       STEPS: +n, -n, @k separated by commas
//
// The cursor sits between records: at position p, +1 yields record p and
// moves to p+1, -1 yields record p-1 and moves to p-1, @k moves to k without
// printing. A step past either end is an error: exit 1, nothing more printed.

#include <cstdint>
#include <cstdio>
#include <iostream>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include <tcgen/wet.hpp>

#include "common/files.hpp"

namespace {

struct Step {
    char kind;  // '+', '-' or '@'
    std::uint64_t count;
};

[[noreturn]] void fail(const std::string& message) {
    throw std::runtime_error(message);
}

std::vector<Step> parse_steps(const std::string& text) {
    std::vector<Step> steps;
    std::size_t begin = 0;
    while (begin <= text.size()) {
        std::size_t end = text.find(',', begin);
        if (end == std::string::npos) {
            end = text.size();
        }
        const std::string item = text.substr(begin, end - begin);
        if (item.size() < 2 || (item[0] != '+' && item[0] != '-' && item[0] != '@') ||
            item.find_first_not_of("0123456789", 1) != std::string::npos || item.size() > 20) {
            fail("bad step '" + item + "': expected +N, -N or @K");
        }
        steps.push_back({item[0], std::stoull(item.substr(1))});
        begin = end + 1;
    }
    return steps;
}

// Prints the fields of a record of any stream type: the generated records
// are plain structs of unsigned fields, field1 first.
template <class Record>
void print_fields(const Record& record) {
    constexpr std::size_t fields = sizeof(Record) / sizeof(record.field1);
    const auto* values = &record.field1;
    static_assert(sizeof(Record) % sizeof(record.field1) == 0);
    std::string line;
    for (std::size_t i = 0; i < fields; ++i) {
        line += (i == 0 ? "" : " ") + std::to_string(static_cast<std::uint64_t>(values[i]));
    }
    std::cout << line << '\n';
}

template <class Stream>
void walk(const std::vector<std::uint8_t>& raw, const std::vector<Step>& steps) {
    Stream stream = Stream::from_bytes(raw.data(), raw.size());
    typename Stream::Record record{};
    for (const Step& step : steps) {
        if (step.kind == '@') {
            if (step.count > stream.size()) {
                fail("@" + std::to_string(step.count) + " is past the end (" + std::to_string(stream.size()) +
                     " records)");
            }
            stream.seek(step.count);
            continue;
        }
        for (std::uint64_t i = 0; i < step.count; ++i) {
            if (!(step.kind == '+' ? stream.next(record) : stream.prev(record))) {
                std::cout.flush();
                fail(std::string("step ") + step.kind + "1 at position " + std::to_string(stream.position()) +
                     " is past the " + (step.kind == '+' ? "end" : "beginning"));
            }
            print_fields(record);
        }
    }
}

}  // namespace

int main(int argc, char** argv) {
    try {
        if (argc != 4) {
            std::string kinds;
            for (std::string_view kind : tcgen::wet::kinds) {
                kinds += (kinds.empty() ? "" : ", ") + std::string(kind);
            }
            std::cerr << "usage: wet-walk KIND RAW_FILE STEPS   (KIND: " << kinds << "; STEPS: +n,-n,@k,...)\n";
            return 1;
        }
        const std::string kind = argv[1];
        const std::vector<Step> steps = parse_steps(argv[3]);
        const std::vector<std::uint8_t> raw = tcgen::read_whole_file(argv[2], tcgen::FileNamed::in_message);
        const bool known = tcgen::wet::visit_kind(kind, [&](auto* type) {
            walk<std::remove_pointer_t<decltype(type)>>(raw, steps);
        });
        if (!known) {
            fail("unknown kind '" + kind + "'");
        }
        std::cout.flush();
        return std::cout ? 0 : 1;
    } catch (const std::exception& error) {
        std::cout.flush();
        std::cerr << "wet-walk: error: " << error.what() << "\n";
        return 1;
    }
}
