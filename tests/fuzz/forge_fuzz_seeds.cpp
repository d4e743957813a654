// forge_fuzz_seeds DIR: writes the seeds of the forged classes (and the
// sound files they are forged from) into DIR/TARGET/ for fuzz_wet_file,
// fuzz_wpp_file and fuzz_wet_raw_files, made here by the tests' own forgers
// (tests/wet/wet_file_bytes.hpp, tests/wpp/wpp_file_bytes.hpp,
// tests/wet/synthetic_wet.hpp) rather than kept as binary files, so that
// they follow the formats as they change (committed .wet seeds once stayed
// at a format the library had left, and fuzzed the version check alone).
// run_fuzzers.sh adds them to each target's committed seeds.
//
// Each seed is checked as it is written: a forgery must be refused by the
// check it was made for (its message holds the words given), a sound file
// must load. A format change that lets a forgery through, or stops it
// earlier, fails here with the seed's name instead of quietly seeding the
// fuzzers with something else. Exit status 0, or 1 and a line naming the
// seed.

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <tcgen/wet/whole_execution_trace.hpp>
#include <tcgen/wpp/grammar.hpp>

#include "raw_wet_input.hpp"
#include "tests/wet/synthetic_wet.hpp"
#include "tests/wet/wet_file_bytes.hpp"
#include "tests/wpp/wpp_file_bytes.hpp"
#include "wet/format/raw_files.hpp"

namespace {

using tcgen::wet::WholeExecutionTrace;
using Bytes = std::vector<std::uint8_t>;

std::filesystem::path out_dir;
int failures = 0;

void write(const std::string& target, const std::string& name, const std::string& bytes) {
    std::filesystem::create_directories(out_dir / target);
    std::ofstream(out_dir / target / name, std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

// "" when `bytes` loads, else the error.
std::string wet_error(const Bytes& bytes) {
    try {
        WholeExecutionTrace::from_bytes(bytes.data(), bytes.size(), "seed.wet");
        return "";
    } catch (const tcgen::wet::WetError& error) {
        return error.what();
    }
}

std::string wpp_error(const Bytes& bytes) {
    try {
        tcgen::wpp::Grammar::from_bytes(bytes.data(), bytes.size(), "seed.wpp");
        return "";
    } catch (const tcgen::wpp::WppError& error) {
        return error.what();
    }
}

// `wet build` on a raw seed (after its mode byte): "" when it builds, else the error.
std::string raw_error(const std::string& input) {
    const auto* data = reinterpret_cast<const std::uint8_t*>(input.data());
    raw_wet_input::Files files = raw_wet_input::unpack(data + 1, input.size() - 1);
    try {
        const tcgen::wet::RawTrace raw =
            tcgen::wet::read_raw_files("seed", [&](const std::string& name, bool) {
                for (std::size_t file = 0; file < raw_wet_input::file_count; ++file) {
                    const std::string suffix = raw_wet_input::suffixes[file];
                    if (name.size() >= suffix.size() && name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0) {
                        return std::move(files.bytes[file]);
                    }
                }
                return std::optional<Bytes>();
            });
        WholeExecutionTrace::build(raw);
        return "";
    } catch (const tcgen::wet::WetError& error) {
        return error.what();
    }
}

// A seed whose outcome is `error` (""), or an error holding `expected`.
void expect(const std::string& seed, const std::string& error, const std::string& expected) {
    const bool as_expected = expected.empty() ? error.empty() : error.find(expected) != std::string::npos;
    if (!as_expected) {
        std::fprintf(stderr, "forge_fuzz_seeds: seed %s: expected %s%s%s, got %s\n", seed.c_str(),
                     expected.empty() ? "it to load" : "'", expected.c_str(), expected.empty() ? "" : "'",
                     error.empty() ? "it loaded" : ("'" + error + "'").c_str());
        ++failures;
    }
}

std::string text(const Bytes& bytes) {
    return std::string(bytes.begin(), bytes.end());
}

// fuzz_wet_file: the saved WET of the tests' synthetic run (with a register
// dataflow) of 1, 3 and 400 trips, the last also with a checkpoint every 64
// records (both 400-trip files hold shared frames of values), and the
// forgeries, all but the first after mode byte 1 (resealed: the forgeries
// already are, and a mutation of them is made to pass the checksums again).
void wet_file_seeds() {
    const auto saved = [](unsigned trips, std::uint64_t checkpoint_records) {
        tcgen::wet::RawTrace raw = synthetic_wet::make_trace(trips, 1);
        raw.dataflow = synthetic_wet::random_dataflow(raw, 2);
        return WholeExecutionTrace::build(raw, nullptr, checkpoint_records).to_bytes();
    };
    const Bytes good = saved(400, 64);
    const auto seed = [&](const std::string& name, const Bytes& bytes, const std::string& expected, char mode = 1) {
        expect("fuzz_wet_file/" + name, wet_error(bytes), expected);
        write("fuzz_wet_file", name, std::string(1, mode) + text(bytes));
    };
    const std::uint64_t every_4096 = WholeExecutionTrace::default_checkpoint_records;
    seed("saved_wet_1_trip", saved(1, every_4096), "", 0);
    seed("saved_wet_3_trips_resealed", saved(3, every_4096), "");
    seed("saved_wet_400_trips_resealed", saved(400, every_4096), "");
    seed("saved_wet_400_trips_chunks_of_64_resealed", good, "");
    using namespace wet_file_bytes;
    const std::uint64_t trillion = 1'100'000'000'000ull;
    seed("forged_meta_loads_with_a_def", with_meta_count(good, meta_loads_with_a_def, trillion),
         "META counts 1100000000000 loads with a def");
    seed("forged_meta_control_parents", with_meta_count(good, meta_executions_with_a_control_parent, trillion),
         "META counts 1100000000000 block executions with a control parent");
    seed("forged_unreferenced_frame", with_unreferenced_frames(good, "VALS", 1), "its chunks refer to 0");
    const char* addresses = get_u64(good, payload_of(good, "ADDR")) > 0 ? "ADDR" : "VALS";
    seed("forged_16_unreferenced_frames", with_unreferenced_frames(good, addresses, 16), "its chunks refer to 0");
    seed("forged_dataflow_decoded_size", with_dataflow_claiming(good, std::uint64_t{1} << 40),
         "the register dataflow claims 1099511627776 bytes");
}

// fuzz_wpp_file: mode byte 1 (resealed).
void wpp_file_seeds() {
    const auto seed = [&](const std::string& name, const Bytes& bytes, const std::string& expected) {
        expect("fuzz_wpp_file/" + name, wpp_error(bytes), expected);
        write("fuzz_wpp_file", name, "\x01" + text(bytes));
    };
    using namespace wpp_file_bytes;
    // A start rule of 200,000 zeros (about 300 bytes; loads, too long to
    // expand in the fuzzer), and one claiming more than its payload can code.
    const Bytes zeros = repeated_start_rule(200'000);
    seed("forged_start_rule_of_200000_zeros", zeros, "");
    seed("forged_start_rule_claiming_too_many", repeated_start_rule(200'000, 768 * (zeros.size() - header_bytes) + 1025),
         "payload bytes can code");
    // Chains of rules: doublings to 2^60 symbols (loads), past 2^64 (refused),
    // and 3,000 rules deep, each one symbol longer than the one before
    // (loads and is expanded and walked through its depth).
    const std::vector<std::vector<Symbol>> doubling = doubling_chain(60);
    seed("forged_doubling_chain_of_60", forge(doubling, std::uint64_t{1} << 60, 2 * 60 + 1), "");
    seed("forged_doubling_chain_past_2_64", forge(doubling_chain(71), 0, 2 * 71 + 1), "more than 2^64 - 1");
    std::vector<std::vector<Symbol>> deep{{1, 2}};
    for (std::uint32_t i = 0; i + 1 < 3000; ++i) {
        deep.push_back({rule(i), i % 5});
    }
    deep.push_back({rule(2999), 7});
    seed("forged_chain_of_3000_rules", forge(deep, 3002, 2 * 3000 + 2), "");
    // Rules the start rule never uses: loaded, and counted by no query.
    seed("forged_unused_rules", forge({{7, 8}, {9, 9, 9}, {3, 4, 3}}, 3, 8), "");
    // A branch trace's grammar, its outcomes LZMA-coded before the rules;
    // and one whose rules name an outcome the table lacks.
    const auto branch_grammar = [](const std::vector<std::uint32_t>& ids, std::uint32_t outcomes) {
        tcgen::wpp::Grammar grammar = tcgen::wpp::build_grammar(ids.data(), ids.size());
        grammar.set_origin(tcgen::wpp::Grammar::Origin::branches);
        std::vector<std::uint8_t> records;
        for (std::uint32_t id = 0; id < outcomes; ++id) {
            const std::uint64_t pc = 0x401000 + 4 * std::uint64_t{id};
            const std::uint64_t target = 0x500000 + 16 * std::uint64_t{id};
            for (int i = 0; i < 8; ++i) {
                records.push_back(static_cast<std::uint8_t>(pc >> (8 * i)));
            }
            for (int i = 0; i < 8; ++i) {
                records.push_back(static_cast<std::uint8_t>(target >> (8 * i)));
            }
            records.push_back(static_cast<std::uint8_t>(id & 1));
        }
        grammar.set_outcomes(records);
        return grammar.to_bytes();
    };
    std::vector<std::uint32_t> ids;
    for (std::uint32_t i = 0; i < 3000; ++i) {
        ids.push_back(i % 40 < 30 ? i % 6 : 6 + i % 9);
    }
    seed("saved_branch_trace", branch_grammar(ids, 15), "");
    seed("forged_branch_outcome_missing", branch_grammar(ids, 14), "is not one of the 14 branch outcomes");
}

// fuzz_wet_raw_files: the synthetic run's raw files, whole and with the
// flow emptied.
void raw_files_seeds() {
    const auto seed = [&](const std::string& name, std::uint8_t mode, const synthetic_wet::RawFileBytes& files,
                          const std::string& expected) {
        const std::string input = raw_wet_input::pack(
            mode, {files.blocks, files.flow, files.nodes, files.events, files.edges, files.regs, files.syms});
        expect("fuzz_wet_raw_files/" + name, raw_error(input), expected);
        write("fuzz_wet_raw_files", name, input);
    };
    tcgen::wet::RawTrace small = synthetic_wet::make_trace(3, 1);
    small.dataflow = synthetic_wet::random_dataflow(small, 2);
    small.symbols = "0x1000\tprogram\t0x1000\tmain+0\tmain.c\t3\n0x1004\tprogram\t0x1004\tmain+4\tmain.c\t4\n";
    seed("run_3_trips_with_dataflow_and_symbols", 0, synthetic_wet::raw_file_bytes(small), "");
    tcgen::wet::RawTrace longer = synthetic_wet::make_trace(12, 2);
    seed("run_12_trips_checkpoints_every_4", 1, synthetic_wet::raw_file_bytes(longer), "");
    longer.dataflow = synthetic_wet::random_dataflow(longer, 3);
    seed("run_12_trips_with_dataflow_checkpoints_every_16", 2, synthetic_wet::raw_file_bytes(longer), "");
    // Empty control flows: magics alone, and real blocks and nodes that never ran.
    seed("forged_empty_flow_magics_only", 0, synthetic_wet::raw_file_bytes(tcgen::wet::RawTrace{}),
         "no executed blocks");
    tcgen::wet::RawTrace never_ran = synthetic_wet::make_trace(3, 1);
    never_ran.flow.clear();
    never_ran.events.clear();
    never_ran.edges.clear();
    seed("forged_empty_flow_blocks_and_nodes", 3, synthetic_wet::raw_file_bytes(never_ran), "no executed blocks");
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 2) {
        std::fprintf(stderr, "usage: forge_fuzz_seeds DIR\n");
        return 2;
    }
    out_dir = argv[1];
    wet_file_seeds();
    wpp_file_seeds();
    raw_files_seeds();
    return failures == 0 ? 0 : 1;
}
