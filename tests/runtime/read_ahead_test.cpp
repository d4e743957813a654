// Reading ahead (BlockPrefetcher under TraceReader and RecordReader) against
// the sequential reader: the same output, the same error at the same point
// (what was written before it included), through concatenations, seeks and
// the block index; and no thread left behind by a reader destroyed
// mid-file or after an error.

#include "runtime/command_line.hpp"
#include "runtime/driver.hpp"
#include "runtime/record_io.hpp"

#include <cstdint>
#include <cstdio>
#include <dirent.h>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "tests/runtime/stream_only.hpp"
#include "tests/runtime/tcz_sections.hpp"
#include "tests/runtime/test_codec.hpp"
#include "tests/runtime/test_command.hpp"

namespace tcgen_runtime {
namespace {

using tcgen_test::DeltaCodec;
using tcgen_test::DeltaCodecTemplate;
using Bytes = std::vector<std::uint8_t>;

Bytes structured_trace(std::size_t record_count, std::size_t extra_bytes, std::uint32_t seed = 1) {
    std::mt19937 random(seed);
    Bytes bytes = {'H', 'D', 'R', '1'};
    for (std::size_t index = 0; index < record_count; ++index) {
        std::uint8_t record[6];
        store_le<std::uint16_t>(record, static_cast<std::uint16_t>(index * 3 + random() % 4));
        store_le<std::uint32_t>(record + 2, static_cast<std::uint32_t>(0x1000 + index / 7));
        bytes.insert(bytes.end(), record, record + 6);
    }
    bytes.insert(bytes.end(), extra_bytes, 0xEE);
    return bytes;
}

template <class Codec = DeltaCodec>
Bytes compress_bytes(const Bytes& input, std::uint32_t restart_blocks = default_restart_blocks) {
    MemorySource source(input);
    MemorySink sink;
    TraceWriter<Codec> writer(sink, {restart_blocks, 0, Backend::zstd});
    compress_with(source, writer, [](const TraceWriter<Codec>&) {});
    return sink.bytes();
}

// What a decompression did: everything written before it stopped, the error
// that stopped it ("" if none) and bytes_read() after each block.
struct Outcome {
    Bytes written;
    std::string error;
    std::vector<std::uint64_t> bytes_read;

    bool operator==(const Outcome& other) const {
        return written == other.written && error == other.error && bytes_read == other.bytes_read;
    }
};

template <class Codec = DeltaCodec>
Outcome decompress_outcome(const Bytes& input, ReadAhead read_ahead) {
    Outcome outcome;
    MemorySource source(input);
    MemorySink sink;
    try {
        TraceReader<Codec> reader(source, read_ahead);
        decompress_with(reader, sink, [&](const TraceReader<Codec>& current, const RunTotals&) {
            outcome.bytes_read.push_back(current.bytes_read());
        });
    } catch (const Error& error) {
        outcome.error = error.what();
    }
    outcome.written = sink.bytes();
    return outcome;
}

// Both readers on the same input; the outcome must be the same.
template <class Codec = DeltaCodec>
Outcome same_outcome(const Bytes& input, const std::string& what) {
    const Outcome sequential = decompress_outcome<Codec>(input, ReadAhead::off);
    const Outcome read_ahead = decompress_outcome<Codec>(input, ReadAhead::on);
    EXPECT_EQ(read_ahead.error, sequential.error) << what;
    EXPECT_EQ(read_ahead.written.size(), sequential.written.size()) << what;
    EXPECT_TRUE(read_ahead == sequential) << what;
    return read_ahead;
}

// Threads of this process, from /proc (Linux).
std::size_t thread_count() {
    std::size_t count = 0;
    if (DIR* tasks = ::opendir("/proc/self/task")) {
        while (const dirent* entry = ::readdir(tasks)) {
            if (entry->d_name[0] != '.') {
                count += 1;
            }
        }
        ::closedir(tasks);
    }
    return count;
}

TEST(ReadAhead, RoundTripsLikeTheSequentialReader) {
    for (const std::size_t records : {0u, 1u, 4u, 5u, 6u, 499u, 500u, 10007u}) {
        const Bytes input = structured_trace(records, records % 5);
        const Outcome outcome = same_outcome(compress_bytes(input), std::to_string(records) + " records");
        EXPECT_EQ(outcome.error, "");
        EXPECT_EQ(outcome.written, input);
    }
}

// The point of carrying a read's error: block k+1 is read while block k is
// decoded, but a damaged block k+1 must be reported only once block k's
// records are out, with the sequential reader's message.
TEST(ReadAhead, ADamagedBlockIsReportedAfterTheBlocksBeforeIt) {
    const Bytes input = structured_trace(5 * 40, 0);
    const Bytes compressed = compress_bytes(input);
    const TczSections layout = find_sections(compressed);
    ASSERT_EQ(layout.blocks.size(), 40u);
    const std::size_t record_area = 5 * 6;
    for (const std::size_t block : {2u, 3u, 17u, 40u}) {
        const std::size_t start = layout.blocks[block - 1];
        const std::size_t end = block < 40 ? layout.blocks[block] : layout.trailer;
        const std::string name = "block " + std::to_string(block);
        // Found when reading (the section header, the compressed data, the
        // back-end's stream) or only once decoded (the records' check).
        const std::vector<std::pair<std::size_t, std::string>> damage = {
            {start + 5, "checksum mismatch in " + name + " (section header)"},
            {end - 17, "checksum mismatch in " + name + " (compressed data)"},
            {end - 1, "checksum mismatch in " + name},
        };
        for (const auto& [position, message] : damage) {
            Bytes damaged = compressed;
            damaged[position] ^= 0x10;
            const Outcome outcome = same_outcome(damaged, name + " at " + std::to_string(position));
            EXPECT_EQ(outcome.error, message);
            const std::size_t delivered = 4 + (block - 1) * record_area;
            EXPECT_EQ(outcome.written, Bytes(input.begin(), input.begin() + static_cast<std::ptrdiff_t>(delivered)))
                << name;
        }
        const Bytes cut(compressed.begin(), compressed.begin() + static_cast<std::ptrdiff_t>(start + 60));
        EXPECT_EQ(same_outcome(cut, "cut in " + name).error, "truncated input: " + name + " ends after 60 of " +
                                                                 std::to_string(end - start) + " bytes");
    }
}

TEST(ReadAhead, EveryFlippedByteAndEveryTruncationGivesTheSequentialOutcome) {
    const Bytes compressed = compress_bytes(structured_trace(5 * 9 + 2, 3));
    for (std::size_t position = 0; position < compressed.size(); ++position) {
        Bytes damaged = compressed;
        damaged[position] ^= 0x41;
        same_outcome(damaged, "byte " + std::to_string(position));
        same_outcome(Bytes(compressed.begin(), compressed.begin() + static_cast<std::ptrdiff_t>(position)),
                     "length " + std::to_string(position));
    }
}

TEST(ReadAhead, ConcatenatedFilesAndTheirErrors) {
    const Bytes first = structured_trace(503, 5, 1);
    const Bytes second = structured_trace(77, 0, 2);
    const Bytes third = structured_trace(0, 3, 3);
    Bytes all = compress_bytes(first);
    const Bytes second_compressed = compress_bytes(second);
    const Bytes third_compressed = compress_bytes(third);
    all.insert(all.end(), second_compressed.begin(), second_compressed.end());
    all.insert(all.end(), third_compressed.begin(), third_compressed.end());
    Bytes expected = first;
    expected.insert(expected.end(), second.begin(), second.end());
    expected.insert(expected.end(), third.begin(), third.end());
    EXPECT_EQ(same_outcome(all, "three files").written, expected);
    // Damage in the second file's third block, and trailing garbage.
    Bytes damaged = all;
    const std::size_t second_start = all.size() - third_compressed.size() - second_compressed.size();
    damaged[second_start + find_sections(second_compressed).blocks[2] + 5] ^= 1;
    EXPECT_EQ(same_outcome(damaged, "second file damaged").error, "checksum mismatch in block 3 (section header)");
    Bytes garbage = all;
    garbage.push_back(0);
    EXPECT_EQ(same_outcome(garbage, "garbage").error, "trailing garbage after the trailer");
}

// An error thrown by the source itself (an I/O error) on the read-ahead
// thread surfaces on the calling thread, in its place.
class FailingSource final : public ByteSource {
public:
    FailingSource(const Bytes& bytes, std::size_t fail_at) : memory_(bytes), fail_at_(fail_at) {}
    std::size_t read_up_to(std::uint8_t* buffer, std::size_t size) override {
        if (position_ + size > fail_at_) {
            fail("read error: Input/output error");
        }
        position_ += size;
        return memory_.read_up_to(buffer, size);
    }

private:
    MemorySource memory_;
    std::size_t fail_at_;
    std::size_t position_ = 0;
};

TEST(ReadAhead, ASourceErrorSurfacesInItsPlace) {
    const Bytes input = structured_trace(5 * 12, 0);
    const Bytes compressed = compress_bytes(input);
    const TczSections layout = find_sections(compressed);
    for (const ReadAhead read_ahead : {ReadAhead::off, ReadAhead::on}) {
        FailingSource source(compressed, layout.blocks[6] + 20);  // inside block 7
        MemorySink sink;
        try {
            TraceReader<DeltaCodec> reader(source, read_ahead);
            decompress_with(reader, sink, [](const TraceReader<DeltaCodec>&, const RunTotals&) {});
            ADD_FAILURE() << "no error";
        } catch (const Error& error) {
            EXPECT_STREQ(error.what(), "read error: Input/output error");
        }
        EXPECT_EQ(sink.bytes(), Bytes(input.begin(), input.begin() + 4 + 6 * 5 * 6));
    }
}

using tcgen_test::TestRecord;

using Reader = RecordReader<DeltaCodec, TestRecord>;

// The records at `indices`, each after a seek, read by a Reader on `source`;
// "error: ..." where it threw.
std::vector<std::string> seek_and_read(ByteSource& source, ReadAhead read_ahead,
                                       const std::vector<std::size_t>& indices) {
    std::vector<std::string> seen;
    try {
        Reader reader(source, read_ahead);
        for (const std::size_t index : indices) {
            TestRecord record;
            const bool found = reader.seek(index) && reader.next(record);
            seen.push_back(found ? std::to_string(record.counter) + "/" + std::to_string(record.word) : "end");
        }
    } catch (const Error& error) {
        seen.push_back(std::string("error: ") + error.what());
    }
    return seen;
}

TEST(ReadAhead, SeeksThroughTheIndexAndRestartPoints) {
    const Bytes input = structured_trace(1003, 1);
    std::vector<std::size_t> indices = {990, 0, 1002, 1003, 5, 6, 500, 499};
    std::mt19937 random(9);
    for (int step = 0; step < 200; ++step) {
        indices.push_back(random() % 1010);
    }
    for (const std::uint32_t restart_blocks : {0u, 1u, 3u}) {
        const Bytes file = compress_bytes(input, restart_blocks);
        Bytes both = file;
        both.insert(both.end(), file.begin(), file.end());
        std::vector<std::size_t> forward;
        for (std::size_t index = 0; index < 2006; index += 37) {
            forward.push_back(index);
        }
        MemorySource memory_off(file), memory_on(file);
        EXPECT_EQ(seek_and_read(memory_on, ReadAhead::on, indices), seek_and_read(memory_off, ReadAhead::off, indices));
        MemorySource both_off(both), both_on(both);
        EXPECT_EQ(seek_and_read(both_on, ReadAhead::on, indices), seek_and_read(both_off, ReadAhead::off, indices));
        // Without random access a resume_before() finds nothing and must
        // leave the block read ahead in place.
        StreamOnly stream_off(both), stream_on(both);
        EXPECT_EQ(seek_and_read(stream_on, ReadAhead::on, forward), seek_and_read(stream_off, ReadAhead::off, forward));
        const std::vector<std::size_t> every_record = [] {
            std::vector<std::size_t> all(1003);
            for (std::size_t index = 0; index < all.size(); ++index) {
                all[index] = index;
            }
            return all;
        }();
        MemorySource one_by_one(file);
        const std::vector<std::string> records = seek_and_read(one_by_one, ReadAhead::on, every_record);
        for (std::size_t index = 0; index < 1003; ++index) {
            const std::uint8_t* record = input.data() + 4 + index * 6;
            EXPECT_EQ(records[index], std::to_string(load_le<std::uint16_t>(record)) + "/" +
                                          std::to_string(load_le<std::uint32_t>(record + 2)));
        }
    }
}

TEST(ReadAhead, ADamagedIndexOrBlockGivesTheSequentialOutcome) {
    const Bytes file = compress_bytes(structured_trace(300, 0), 2);
    const std::vector<std::size_t> indices = {250, 20, 299, 0, 150, 151, 300};
    for (std::size_t back = 1; back < file.size(); back += 7) {
        Bytes damaged = file;
        damaged[damaged.size() - back] ^= 0x21;
        MemorySource off(damaged), on(damaged);
        EXPECT_EQ(seek_and_read(on, ReadAhead::on, indices), seek_and_read(off, ReadAhead::off, indices))
            << "byte " << damaged.size() - back;
    }
}

TEST(ReadAhead, AReaderDestroyedMidFileOrAfterAnErrorLeavesNoThread) {
    const Bytes input = structured_trace(5 * 50, 0);
    const Bytes compressed = compress_bytes(input);
    Bytes damaged = compressed;
    damaged[find_sections(compressed).blocks[9] + 5] ^= 1;
    const std::size_t before = thread_count();
    for (int round = 0; round < 20; ++round) {
        {
            MemorySource source(compressed);
            TraceReader<DeltaCodec> reader(source);
            for (int block = 0; block <= round % 4; ++block) {
                ASSERT_TRUE(reader.next_block());
            }
            // Destroyed with block 2..5 being read ahead.
        }
        {
            MemorySource source(damaged);
            TraceReader<DeltaCodec> reader(source);
            std::string error;
            try {
                while (reader.next_block()) {
                }
            } catch (const Error& caught) {
                error = caught.what();
            }
            EXPECT_EQ(error, "checksum mismatch in block 10 (section header)");
        }
        {
            MemorySource source(compressed);
            Reader reader(source);
            TestRecord record;
            for (int index = 0; index < round * 7; ++index) {
                ASSERT_TRUE(reader.next(record));
            }
        }
        {
            MemorySource source(compressed);
            TraceReader<DeltaCodec> never_read(source);
        }
    }
    EXPECT_EQ(thread_count(), before);
}

// The command line: -T1 / --threads=1 decompress on one thread, other
// numbers on two; the output is the same.
TEST(ReadAhead, ThreadsOption) {
    CommandOptions options;
    EXPECT_EQ(options.read_ahead(), ReadAhead::on);
    auto parse = [](std::vector<std::string> arguments) {
        arguments.insert(arguments.begin(), "comp");
        std::vector<char*> argv;
        for (std::string& argument : arguments) {
            argv.push_back(argument.data());
        }
        return parse_command_line<DeltaCodec>(static_cast<int>(argv.size()), argv.data(), "comp").options;
    };
    EXPECT_EQ(parse({"-dT1"}).read_ahead(), ReadAhead::off);
    EXPECT_EQ(parse({"-T", "1", "-d"}).read_ahead(), ReadAhead::off);
    EXPECT_EQ(parse({"--threads=1"}).read_ahead(), ReadAhead::off);
    EXPECT_EQ(parse({"--threads", "1"}).threads, 1u);
    EXPECT_EQ(parse({"-T0"}).read_ahead(), ReadAhead::on);
    EXPECT_EQ(parse({"-T2"}).read_ahead(), ReadAhead::on);
    EXPECT_EQ(parse({"-T16", "-d"}).threads, 16u);
    const std::vector<std::vector<std::string>> bad_arguments = {
        {"-Tx"}, {"--threads=-1"}, {"--threads="}, {"-T1.5"}, {"--threads=99999999999"}};
    for (const std::vector<std::string>& bad : bad_arguments) {
        try {
            parse(bad);
            ADD_FAILURE() << bad[0] << " accepted";
        } catch (const Error& error) {
            EXPECT_EQ(std::string(error.what()).rfind("--threads needs a number of threads (0 .. 4294967295), not '", 0),
                      0u)
                << error.what();
        }
    }
    try {
        parse({"-T"});
        ADD_FAILURE() << "-T without a number accepted";
    } catch (const Error& error) {
        EXPECT_STREQ(error.what(), "option '-T' needs a number");
    }
}

using tcgen_test::CommandResult;

CommandResult run(std::vector<std::string> arguments, const Bytes& input) {
    return tcgen_test::run_in_memory<DeltaCodec>("comp", std::move(arguments), input);
}

TEST(ReadAhead, TheCommandLineGivesTheSameOutputAndMessagesWithT1) {
    const Bytes input = structured_trace(5 * 30 + 2, 1);
    const Bytes compressed = compress_bytes(input);
    const TczSections layout = find_sections(compressed);
    Bytes damaged = compressed;
    damaged[layout.blocks[6] + 5] ^= 4;
    const Bytes cut(compressed.begin(), compressed.begin() + static_cast<std::ptrdiff_t>(layout.blocks[12] + 3));
    for (const Bytes& file : {compressed, damaged, cut}) {
        for (const char* operation : {"-d", "-t", "-dv"}) {
            const CommandResult one = run({operation, "-T1"}, file);
            const CommandResult two = run({operation}, file);
            EXPECT_EQ(two.status, one.status);
            EXPECT_EQ(two.messages, one.messages);
            EXPECT_EQ(two.output, one.output);
        }
    }
    EXPECT_EQ(run({"-d", "--threads=1"}, compressed).output, input);
    EXPECT_EQ(run({"-d", "-T2"}, compressed).output, input);
    EXPECT_EQ(run({"-d"}, damaged).messages, "comp: error: checksum mismatch in block 7 (section header)\n");
    // Compression ignores -T: the same file.
    EXPECT_EQ(run({"-T1", "-q"}, input).output, run({"-q"}, input).output);
}

}  // namespace
}  // namespace tcgen_runtime
