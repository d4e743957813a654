// The fields of a block without runs decoded on two threads (FieldThreads,
// CodeColumn) against the same fields decoded record by record: the same
// records, and the same error where the codes or a field's values are bad.
// The two "fields" here stand in for a generated codec's: a leading one
// whose value the trailing one reads back from the record, as the fields
// after the PC do.

#include "runtime/field_threads.hpp"

#include <cstddef>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace tcgen_runtime {
namespace {

using Bytes = std::vector<std::uint8_t>;

constexpr std::size_t record_bytes = 6;  // a 2-byte leading field, then a 4-byte one
constexpr std::uint8_t bad_code = 0xFF;  // a code no field accepts

// The leading field: its code xor its previous value.
struct LeadField {
    std::uint16_t previous = 0;

    template <class Codes>
    std::uint16_t decode(Codes& codes) {
        const std::uint8_t code = codes.template get<std::uint8_t>();
        if (code == bad_code) {
            fail("corrupt input: invalid prediction code 255 for field 1");
        }
        previous = static_cast<std::uint16_t>(previous ^ code);
        return previous;
    }
};

// The trailing field: depends on the leading field's value in its record,
// and reads a value of its own stream where the code says so.
struct TrailField {
    std::uint32_t previous = 0;

    template <class Codes>
    std::uint32_t decode(std::uint16_t lead, Codes& codes, StreamReader& misses) {
        const std::uint8_t code = codes.template get<std::uint8_t>();
        if (code == bad_code) {
            fail("corrupt input: invalid prediction code 255 for field 2");
        }
        previous = code == 0 ? misses.get<std::uint32_t>() : previous * 31u + lead + code;
        return previous;
    }
};

struct Outcome {
    Bytes records;
    std::string error;
    std::size_t codes_left = 0;
    std::size_t misses_left = 0;
};

Outcome sequential(const Bytes& codes, const Bytes& misses, std::size_t count) {
    Outcome outcome;
    outcome.records.assign(count * record_bytes, 0);
    StreamReader code_reader("codes", codes.data(), codes.size());
    StreamReader miss_reader("field_2_misses", misses.data(), misses.size());
    LeadField lead;
    TrailField trail;
    try {
        for (std::size_t index = 0; index < count; ++index) {
            std::uint8_t* record = outcome.records.data() + index * record_bytes;
            const std::uint16_t lead_value = lead.decode(code_reader);
            store_le(record, lead_value);
            store_le(record + 2, trail.decode(lead_value, code_reader, miss_reader));
        }
    } catch (const Error& error) {
        outcome.error = error.what();
    }
    outcome.codes_left = code_reader.remaining();
    outcome.misses_left = miss_reader.remaining();
    return outcome;
}

Outcome on_threads(const Bytes& codes, const Bytes& misses, std::size_t count) {
    Outcome outcome;
    outcome.records.assign(count * record_bytes, 0);
    StreamReader code_reader("codes", codes.data(), codes.size());
    StreamReader miss_reader("field_2_misses", misses.data(), misses.size());
    CodeColumn<std::uint8_t> lead_codes(code_reader, 0, 2);
    CodeColumn<std::uint8_t> trail_codes(code_reader, 1, 2);
    LeadField lead;
    TrailField trail;
    std::uint8_t* records = outcome.records.data();
    try {
        FieldThreads::run(
            count,
            [&](std::size_t& index, std::size_t end) {
                for (; index < end; ++index) {
                    store_le(records + index * record_bytes, lead.decode(lead_codes));
                }
            },
            [&](std::size_t& index, std::size_t end) {
                for (; index < end; ++index) {
                    std::uint8_t* record = records + index * record_bytes;
                    store_le(record + 2, trail.decode(load_le<std::uint16_t>(record), trail_codes, miss_reader));
                }
            });
        code_reader.skip(count * 2);
    } catch (const Error& error) {
        outcome.error = error.what();
    }
    outcome.codes_left = code_reader.remaining();
    outcome.misses_left = miss_reader.remaining();
    return outcome;
}

struct Streams {
    Bytes codes;
    Bytes misses;
};

Streams random_streams(std::size_t count, unsigned seed) {
    std::mt19937 random(seed);
    Streams streams;
    for (std::size_t index = 0; index < count; ++index) {
        streams.codes.push_back(static_cast<std::uint8_t>(random() % 200));
        const std::uint8_t trail_code = static_cast<std::uint8_t>(random() % 4);
        streams.codes.push_back(trail_code);
        if (trail_code == 0) {
            for (int byte = 0; byte < 4; ++byte) {
                streams.misses.push_back(static_cast<std::uint8_t>(random()));
            }
        }
    }
    return streams;
}

void expect_alike(const Streams& streams, std::size_t count, const std::string& what) {
    const Outcome expected = sequential(streams.codes, streams.misses, count);
    const Outcome got = on_threads(streams.codes, streams.misses, count);
    EXPECT_EQ(got.error, expected.error) << what;
    if (expected.error.empty()) {
        EXPECT_EQ(got.records, expected.records) << what;
        EXPECT_EQ(got.codes_left, expected.codes_left) << what;
        EXPECT_EQ(got.misses_left, expected.misses_left) << what;
    }
}

TEST(FieldThreads, DecodeAsRecordByRecord) {
    const std::size_t batch = FieldThreads::column_batch;
    for (std::size_t count : {std::size_t{1}, batch - 1, batch, batch + 1, 37 * batch + 5}) {
        expect_alike(random_streams(count, static_cast<unsigned>(count)), count,
                     std::to_string(count) + " records");
    }
}

TEST(FieldThreads, StopAtTheFirstBadRecordOfEitherField) {
    const std::size_t count = 20 * FieldThreads::column_batch + 3;
    const Streams good = random_streams(count, 5);
    // A bad code of the leading field, of the trailing field, of both (the
    // earlier wins, and the leading one in the same record), in the first
    // batch, in the middle, in the last record.
    const std::vector<std::vector<std::size_t>> damages = {
        {0},     {1},     {2 * 5000},          {2 * 5000 + 1},          {2 * 5000, 2 * 7000 + 1},
        {2 * 7000, 2 * 5000 + 1}, {2 * 5000, 2 * 5000 + 1}, {2 * (count - 1)}, {2 * (count - 1) + 1},
    };
    for (const std::vector<std::size_t>& places : damages) {
        Streams bad = good;
        std::string what = "bad codes at";
        for (std::size_t place : places) {
            bad.codes[place] = bad_code;
            what += " " + std::to_string(place);
        }
        expect_alike(bad, count, what);
    }
}

TEST(FieldThreads, StopWhereAStreamEndsEarly) {
    const std::size_t count = 9 * FieldThreads::column_batch;
    const Streams good = random_streams(count, 6);
    for (std::size_t cut : {std::size_t{0}, std::size_t{1}, std::size_t{4001}, 2 * count - 1}) {
        Streams short_codes = good;
        short_codes.codes.resize(cut);
        expect_alike(short_codes, count, "codes cut to " + std::to_string(cut));
    }
    Streams short_misses = good;
    short_misses.misses.resize(short_misses.misses.size() / 2);
    expect_alike(short_misses, count, "misses cut by half");
}

}  // namespace
}  // namespace tcgen_runtime
