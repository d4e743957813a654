// wpp-bench FILE.wpp: the query times of one saved grammar, timed in
// process as CPU time (user + system, the median of three runs, so that a
// busy machine's waits are not counted): building the grammar again
// from its expansion, hot subpaths on the grammar against counting the
// expanded sequence in memory (both tables compared), and walking the
// sequence backward and forward with a cursor. bench/block-ids.py reads its
// lines (keep their shape). Not installed.

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <iterator>
#include <vector>

#include <tcgen/wpp/grammar.hpp>

namespace {

double cpu_seconds() {
    timespec now{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now);
    return static_cast<double>(now.tv_sec) + static_cast<double>(now.tv_nsec) * 1e-9;
}

template <class Work>
double median_seconds(Work work) {
    double runs[3];
    for (double& took : runs) {
        const double start = cpu_seconds();
        work();
        took = cpu_seconds() - start;
    }
    std::sort(runs, runs + 3);
    return runs[1];
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 2) {
        std::fprintf(stderr, "usage: wpp-bench FILE.wpp\n");
        return 2;
    }
    try {
        std::ifstream in(argv[1], std::ios::binary);
        const std::vector<std::uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        const auto grammar = tcgen::wpp::Grammar::from_bytes(bytes.data(), bytes.size(), argv[1]);
        const std::vector<std::uint32_t> sequence = grammar.expand();
        std::printf("symbols %zu, rules %u, grammar symbols %llu, saved bytes %zu\n", sequence.size(),
                    grammar.rule_count(), static_cast<unsigned long long>(grammar.body_symbols()), bytes.size());
        const double build = median_seconds([&] { tcgen::wpp::build_grammar(sequence.data(), sequence.size()); });
        std::printf("build: %.6f s (%.1f M symbols/s)\n", build, sequence.size() / build / 1e6);
        for (const std::size_t length : {4, 8, 16, 64}) {
            std::vector<tcgen::wpp::Subpath> on_grammar;
            std::vector<tcgen::wpp::Subpath> on_sequence;
            const double dag = median_seconds([&] { on_grammar = tcgen::wpp::hot_subpaths(grammar, length, 10); });
            const double flat = median_seconds([&] {
                on_sequence = tcgen::wpp::hot_subpaths_of_sequence(sequence.data(), sequence.size(), length, 10);
            });
            bool same = on_grammar.size() == on_sequence.size();
            for (std::size_t i = 0; same && i < on_grammar.size(); ++i) {
                same = on_grammar[i].count == on_sequence[i].count && on_grammar[i].symbols == on_sequence[i].symbols;
            }
            std::printf("hot L=%zu: grammar %.6f s, expanded sequence %.6f s (%.2fx), tables %s\n", length, dag, flat,
                        dag > 0 ? flat / dag : 0.0, same ? "equal" : "DIFFER");
        }
        std::uint64_t checksum = 0;
        const double backward = median_seconds([&] {
            tcgen::wpp::Cursor cursor(grammar, grammar.length());
            std::uint32_t symbol = 0;
            while (cursor.previous(symbol)) {
                checksum += symbol;
            }
        });
        const double forward = median_seconds([&] {
            tcgen::wpp::Cursor cursor(grammar, 0);
            std::uint32_t symbol = 0;
            while (cursor.next(symbol)) {
                checksum += symbol;
            }
        });
        std::printf("walk backward: %.6f s (%.1f M symbols/s); forward: %.6f s (%.1f M symbols/s; checksum %llu)\n",
                    backward, sequence.size() / backward / 1e6, forward, sequence.size() / forward / 1e6,
                    static_cast<unsigned long long>(checksum));
        return 0;
    } catch (const tcgen::wpp::WppError& error) {
        std::fprintf(stderr, "wpp-bench: %s\n", error.what());
        return 1;
    }
}
