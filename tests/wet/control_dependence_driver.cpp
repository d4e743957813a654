// control-dependence-driver PREFIX: reads PREFIX.blocks and PREFIX.flow (the
// tracer's --wet files, v2) and prints dynamic_control_parents as "T PARENT"
// lines, the format of `wet_reference.py PREFIX parents`, so that the two are
// compared with cmp. With --time, prints only the executed blocks, the
// seconds and the rate on stderr. Bad input: one line on stderr, exit 1.

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>
#include <vector>

#include "wet/dependences/control_dependence.hpp"

namespace {

std::vector<char> read_file(const std::string& path, const char* magic, std::size_t record) {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        throw std::runtime_error(path + ": cannot open");
    }
    std::vector<char> data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (data.size() < 4 || std::memcmp(data.data(), magic, 4) != 0) {
        throw std::runtime_error(path + ": not a " + magic + " file");
    }
    if ((data.size() - 4) % record != 0) {
        throw std::runtime_error(path + ": truncated: " + std::to_string(data.size()) +
                                 " bytes is not 4 + a multiple of " + std::to_string(record));
    }
    return data;
}

template <class T>
T load(const char* at) {
    T value;
    std::memcpy(&value, at, sizeof value);  // little-endian hosts only, like the tracer
    return value;
}

}  // namespace

int main(int argc, char** argv) {
    const bool time_only = argc == 3 && std::strcmp(argv[1], "--time") == 0;
    if (argc != 2 && !time_only) {
        std::fprintf(stderr, "usage: control-dependence-driver [--time] PREFIX\n");
        return 1;
    }
    const std::string prefix = argv[argc - 1];
    try {
        const std::vector<char> block_file = read_file(prefix + ".blocks", "WTB1", 24);
        const std::vector<char> flow_file = read_file(prefix + ".flow", "WTF1", 4);
        std::vector<tcgen::wet::BlockShape> blocks;
        for (std::size_t at = 4; at < block_file.size(); at += 24) {
            const char* record = block_file.data() + at;
            blocks.push_back({load<std::uint64_t>(record + 16), load<std::uint32_t>(record + 8), record[6]});
        }
        std::vector<std::uint32_t> flow((flow_file.size() - 4) / 4);
        if (!flow.empty()) {
            std::memcpy(flow.data(), flow_file.data() + 4, flow.size() * 4);
        }
        const auto start = std::chrono::steady_clock::now();
        const std::vector<std::uint32_t> parents =
            tcgen::wet::dynamic_control_parents(blocks, flow.data(), flow.size());
        const std::chrono::duration<double> seconds = std::chrono::steady_clock::now() - start;
        if (time_only) {
            std::fprintf(stderr, "%zu executed blocks, %zu static, %.3f s, %.1f M blocks/s\n", flow.size(),
                         blocks.size(), seconds.count(), flow.size() / seconds.count() / 1e6);
            return 0;
        }
        std::string out;
        for (std::size_t t = 1; t <= parents.size(); ++t) {
            out += std::to_string(t) + ' ' + std::to_string(parents[t - 1]) + '\n';
            if (out.size() > (1 << 20)) {
                std::fwrite(out.data(), 1, out.size(), stdout);
                out.clear();
            }
        }
        std::fwrite(out.data(), 1, out.size(), stdout);
        return std::fflush(stdout) == 0 ? 0 : 1;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "control-dependence-driver: error: %s\n", e.what());
        return 1;
    }
}
