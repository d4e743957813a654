// Every stream back-end on any bytes. Input: [back-end index][expected size,
// 2 bytes][bytes]. The bytes are decompressed as that back-end's data to the
// expected size (at most 64 KiB): a tcgen_runtime::Error, or exactly that
// many bytes, never a crash, a read out of bounds or a hang; and they are
// compressed by the back-end and must decompress to themselves, within the
// back-end's bound.

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <vector>

#include "runtime/backends.hpp"
#include "tests/fuzz/fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    return tcgen_fuzz::run_input([&] {
        if (size < 3) {
            return;
        }
        const tcgen_runtime::Backend backend =
            tcgen_runtime::backend_table[data[0] % std::size(tcgen_runtime::backend_table)].id;
        const std::size_t expected_size = static_cast<std::size_t>(data[1]) | static_cast<std::size_t>(data[2]) << 8;
        const std::uint8_t* const bytes = data + 3;
        const std::size_t byte_count = size - 3;
        std::vector<std::uint8_t> out;
        try {
            tcgen_runtime::backend_decompress(backend, bytes, byte_count, out, expected_size, "fuzz input");
            tcgen_fuzz::check(out.size() == expected_size, "decompressed to another size without an error");
        } catch (const tcgen_runtime::Error&) {
        }
        std::vector<std::uint8_t> compressed;
        tcgen_runtime::backend_compress(backend, bytes, byte_count, compressed, tcgen_runtime::max_level);
        tcgen_fuzz::check(compressed.size() <= tcgen_runtime::backend_compress_bound(backend, byte_count),
                          "compressed beyond the back-end's bound");
        std::vector<std::uint8_t> restored;
        tcgen_runtime::backend_decompress(backend, compressed.data(), compressed.size(), restored, byte_count,
                                          "round trip");
        tcgen_fuzz::check(restored == std::vector<std::uint8_t>(bytes, bytes + byte_count),
                          "a round trip through the back-end changed the bytes");
    });
}
