#pragma once
// A small codec of the shape the generator emits, for driving the runtime in
// tests. Records are 6 bytes: a u16 stored as the difference from the previous
// record's u16, and a u32 stored as the xor with the previous record's u32.
// The previous values carry across blocks, like real predictor tables, and the
// blocks are tiny so that short inputs already span many blocks.

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string_view>

#include "runtime/driver.hpp"

namespace tcgen_test {

inline constexpr std::string_view delta_spec_text =
    "TCgen Trace Specification;\n"
    "32-Bit Header;\n"
    "16-Bit Field 1 = {L1 = 1: DFCM1[1]};\n"
    "32-Bit Field 2 = {L1 = 1: LV[1]};\n"
    "PC = Field 1;\n";

inline constexpr std::string_view other_spec_text =
    "TCgen Trace Specification;\n"
    "32-Bit Header;\n"
    "16-Bit Field 1 = {L1 = 1: FCM1[1]};\n"
    "32-Bit Field 2 = {L1 = 1: LV[1]};\n"
    "PC = Field 1;\n";

// SpecVariant 0 is the normal spec, 1 a different spec of the same layout.
template <std::size_t HeaderBytes, std::size_t RecordsPerBlock, int SpecVariant = 0>
class DeltaCodecTemplate {
public:
    static constexpr std::string_view program_name = "delta_comp";
    static constexpr std::string_view spec_text = SpecVariant == 0 ? delta_spec_text : other_spec_text;
    static constexpr std::uint64_t fingerprint = tcgen_runtime::fingerprint64(spec_text);
    static constexpr std::size_t header_bytes = HeaderBytes;
    static constexpr std::size_t record_bytes = 6;
    static constexpr std::size_t records_per_block = RecordsPerBlock;
    static constexpr std::size_t stream_count = 2;
    static constexpr std::array<std::string_view, stream_count> stream_names = {"short_deltas", "word_xors"};
    static constexpr std::array<std::uint64_t, stream_count> stream_bytes_per_record = {2, 4};
    static constexpr std::uint64_t table_bytes = 0;  // its state is two members

    void encode(const std::uint8_t* records, std::size_t count, tcgen_runtime::StreamWriter* streams) {
        for (std::size_t index = 0; index < count; ++index) {
            const std::uint8_t* record = records + index * record_bytes;
            const std::uint16_t short_value = tcgen_runtime::load_le<std::uint16_t>(record);
            const std::uint32_t word_value = tcgen_runtime::load_le<std::uint32_t>(record + 2);
            streams[0].put<std::uint16_t>(static_cast<std::uint16_t>(short_value - previous_short_));
            streams[1].put<std::uint32_t>(word_value ^ previous_word_);
            if (short_value == previous_short_) {
                repeated_shorts_ += 1;
            }
            previous_short_ = short_value;
            previous_word_ = word_value;
        }
        records_seen_ += count;
    }

    void decode(tcgen_runtime::StreamReader* streams, std::size_t count, std::uint8_t* records) {
        for (std::size_t index = 0; index < count; ++index) {
            std::uint8_t* record = records + index * record_bytes;
            const std::uint16_t short_value =
                static_cast<std::uint16_t>(previous_short_ + streams[0].get<std::uint16_t>());
            const std::uint32_t word_value = previous_word_ ^ streams[1].get<std::uint32_t>();
            tcgen_runtime::store_le(record, short_value);
            tcgen_runtime::store_le(record + 2, word_value);
            previous_short_ = short_value;
            previous_word_ = word_value;
        }
        records_seen_ += count;
    }

    void write_report(std::FILE* out) const {
        std::fprintf(out, "field 1: %llu of %llu records repeat the previous value\n",
                     static_cast<unsigned long long>(repeated_shorts_), static_cast<unsigned long long>(records_seen_));
    }

    void restart() {
        previous_short_ = 0;
        previous_word_ = 0;
    }

    // No tables of pages to mark; switching it on empties the state, as it
    // empties a generated codec's tables. Kept for the tests.
    void restart_touched_pages_only(bool on) {
        if (on && !touched_pages_only_) {
            restart();
        }
        touched_pages_only_ = on;
    }
    bool touched_pages_only() const { return touched_pages_only_; }

    void learn_every_record(bool) {}  // no whole-record runs: nothing to choose
    void estimate_streams_with(tcgen_runtime::StreamCostEstimate) {}

    // The delta codec's "prediction" is a repeat of the previous short.
    bool mostly_missed() const { return repeated_shorts_ < records_seen_ / 2; }

private:
    bool touched_pages_only_ = false;
    std::uint16_t previous_short_ = 0;
    std::uint32_t previous_word_ = 0;
    std::uint64_t repeated_shorts_ = 0;
    std::uint64_t records_seen_ = 0;
};

using DeltaCodec = DeltaCodecTemplate<4, 5>;

// One record of DeltaCodec's layout, as a RecordReader/RecordWriter record.
struct TestRecord {
    std::uint16_t counter = 0;
    std::uint32_t word = 0;
    static constexpr std::size_t bytes = 6;
    static TestRecord load(const std::uint8_t* record) {
        return {tcgen_runtime::load_le<std::uint16_t>(record), tcgen_runtime::load_le<std::uint32_t>(record + 2)};
    }
    void store(std::uint8_t* record) const {
        tcgen_runtime::store_le(record, counter);
        tcgen_runtime::store_le(record + 2, word);
    }
};

}  // namespace tcgen_test
