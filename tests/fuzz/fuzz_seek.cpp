// Seeking in a .tcz (RecordReader::seek, the block index, restart points) on
// any trace, with any restart interval, and with one byte of the file
// damaged. Input: [restart interval][damage position, 2 bytes][damage xor]
// [8 seek targets][the trace]. Asserts: on an undamaged file every seek
// lands on the right record; on a damaged one a seek may fail with a
// tcgen_runtime::Error, but any record that comes out is the right one,
// and so is every value of the columns read after it
// (RecordReader::read_columns, across blocks).
// The codec is a small one of its own with 4-record blocks, so that a short
// input spans many blocks and restart points.

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string_view>
#include <vector>

#include "runtime/driver.hpp"
#include "runtime/record_io.hpp"

#include "fuzz_support.hpp"

namespace tcgen_fuzz_seek {

inline constexpr std::string_view xor_spec_text =
    "TCgen Trace Specification;\n"
    "0-Bit Header;\n"
    "32-Bit Field 1 = {L1 = 1: LV[1]};\n"
    "PC = Field 1;\n";

// Each record stored as the xor with the one before; the previous record is
// the predictor state, which restarts like real tables do.
struct XorCodec {
    static constexpr std::string_view program_name = "fuzz_seek";
    static constexpr std::string_view spec_text = xor_spec_text;
    static constexpr std::uint64_t fingerprint = tcgen_runtime::fingerprint64(spec_text);
    static constexpr std::size_t header_bytes = 0;
    static constexpr std::size_t record_bytes = 4;
    static constexpr std::size_t records_per_block = 4;
    static constexpr std::size_t stream_count = 1;
    static constexpr std::array<std::string_view, stream_count> stream_names = {"xors"};
    static constexpr std::array<std::uint64_t, stream_count> stream_bytes_per_record = {4};
    static constexpr std::uint64_t table_bytes = 0;

    void encode(const std::uint8_t* records, std::size_t count, tcgen_runtime::StreamWriter* streams) {
        for (std::size_t index = 0; index < count; ++index) {
            const std::uint32_t value = tcgen_runtime::load_le<std::uint32_t>(records + index * record_bytes);
            streams[0].put<std::uint32_t>(value ^ previous_);
            previous_ = value;
        }
    }

    void decode(tcgen_runtime::StreamReader* streams, std::size_t count, std::uint8_t* records) {
        for (std::size_t index = 0; index < count; ++index) {
            previous_ ^= streams[0].get<std::uint32_t>();
            tcgen_runtime::store_le(records + index * record_bytes, previous_);
        }
    }

    void write_report(std::FILE*) const {}
    bool mostly_missed() const { return false; }
    void restart() { previous_ = 0; }
    void restart_touched_pages_only(bool on) {
        if (on) {
            restart();
        }
    }
    void learn_every_record(bool) {}  // no whole-record runs: nothing to choose
    void estimate_streams_with(tcgen_runtime::StreamCostEstimate) {}

    std::uint32_t previous_ = 0;
};

struct RawRecord {
    static constexpr std::size_t bytes = XorCodec::record_bytes;
    std::array<std::uint8_t, bytes> data{};
    static RawRecord load(const std::uint8_t* record) {
        RawRecord loaded;
        std::memcpy(loaded.data.data(), record, bytes);
        return loaded;
    }
    void store(std::uint8_t* record) const { std::memcpy(record, data.data(), bytes); }
};

constexpr std::size_t prefix_bytes = 1 + 2 + 1 + 8;

// The record as a column of its 32-bit value and one of its second byte.
constexpr std::array<tcgen_runtime::FieldLayout, 2> fields = {{
    {"value", 32, 0},
    {"second_byte", 8, 1},
}};

}  // namespace tcgen_fuzz_seek

using tcgen_fuzz_seek::fields;
using tcgen_fuzz_seek::prefix_bytes;
using tcgen_fuzz_seek::RawRecord;
using tcgen_fuzz_seek::XorCodec;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    return tcgen_fuzz::run_input([&] {
        if (size < prefix_bytes) {
            return;
        }
        // The first byte picks the restart interval and the block size (1-6
        // records: seeking must not assume the codec's own).
        const std::uint32_t restart_blocks = data[0] % 5;
        const std::uint64_t block_records = 1 + data[0] / 5 % 6;
        const std::size_t damage_at = static_cast<std::size_t>(data[1]) | static_cast<std::size_t>(data[2]) << 8;
        const std::uint8_t damage = data[3];
        const std::uint8_t* targets = data + 4;
        const std::uint8_t* trace = data + prefix_bytes;
        const std::size_t trace_size = size - prefix_bytes;
        const std::size_t records = trace_size / XorCodec::record_bytes;

        tcgen_runtime::MemorySink sink;
        {
            const tcgen_runtime::WriteOptions options{restart_blocks, block_records * XorCodec::record_bytes,
                                                      tcgen_runtime::Backend::zstd};
            tcgen_runtime::TraceWriter<XorCodec> writer(sink, options);
            writer.write(trace, trace_size);
            writer.finish();
        }
        std::vector<std::uint8_t> file = sink.bytes();
        const bool damaged = damage != 0;
        if (damaged) {
            file[damage_at % file.size()] ^= damage;
        }
        tcgen_runtime::MemorySource source(file);
        try {
            tcgen_runtime::RecordReader<XorCodec, RawRecord> reader(source);
            for (std::size_t step = 0; step < 8; ++step) {
                const std::size_t target = records == 0 ? 0 : targets[step] * 7u % (records + 2);
                const bool found = reader.seek(target);
                tcgen_fuzz::check(damaged || found == (target <= records), "seek's answer is wrong on a sound file");
                RawRecord record;
                if (found && reader.next(record)) {
                    tcgen_fuzz::check(target < records, "a record past the end");
                    tcgen_fuzz::check(std::memcmp(record.data.data(), trace + target * XorCodec::record_bytes,
                                                  XorCodec::record_bytes) == 0,
                                      "seek landed on the wrong record");
                    // The records after it as columns, up to 2 blocks of 6.
                    const std::size_t wanted = targets[step] % 13;
                    std::uint32_t values[12];
                    std::uint8_t second_bytes[12];
                    void* const columns[] = {values, second_bytes};
                    const std::size_t read = reader.read_columns(fields.data(), fields.size(), columns, wanted);
                    tcgen_fuzz::check(damaged || read == std::min(wanted, records - target - 1),
                                      "a column read gave too few records on a sound file");
                    for (std::size_t k = 0; k < read; ++k) {
                        tcgen_fuzz::check(target + 1 + k < records, "a column read past the end");
                        const std::uint8_t* expected = trace + (target + 1 + k) * XorCodec::record_bytes;
                        tcgen_fuzz::check(values[k] == tcgen_runtime::load_le<std::uint32_t>(expected) &&
                                              second_bytes[k] == expected[1],
                                          "a column read gave a wrong value");
                    }
                }
            }
        } catch (const tcgen_runtime::Error& error) {
            if (!damaged) {
                tcgen_fuzz::report_bug("a sound file was refused", error.what());
            }
        }
    });
}
