// The driver and the container, end to end in memory, with the test codec.

#include "runtime/command_line.hpp"
#include "runtime/driver.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <new>
#include <random>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "tests/runtime/random_bytes.hpp"
#include "tests/runtime/tcz_sections.hpp"
#include "tests/runtime/test_codec.hpp"
#include "tests/runtime/test_command.hpp"
#include "tests/test_scale.hpp"

namespace tcgen_runtime {
namespace {

using tcgen_test::DeltaCodec;
using tcgen_test::DeltaCodecTemplate;
using Bytes = std::vector<std::uint8_t>;

using tcgen_test::random_bytes;

// A trace the delta codec compresses well: a header, then records whose
// short counts up and whose word repeats in runs.
Bytes structured_trace(std::size_t record_count, std::size_t extra_bytes) {
    Bytes bytes = {'H', 'D', 'R', '1'};
    for (std::size_t index = 0; index < record_count; ++index) {
        std::uint8_t record[6];
        store_le<std::uint16_t>(record, static_cast<std::uint16_t>(index * 3));
        store_le<std::uint32_t>(record + 2, static_cast<std::uint32_t>(0x1000 + index / 7));
        bytes.insert(bytes.end(), record, record + 6);
    }
    bytes.insert(bytes.end(), extra_bytes, 0xEE);
    return bytes;
}

template <class Codec = DeltaCodec>
Bytes compress_bytes(const Bytes& input, RunTotals* totals = nullptr, const WriteOptions& options = {}) {
    MemorySource source(input);
    MemorySink sink;
    const RunTotals result = compress<Codec>(source, sink, options);
    if (totals != nullptr) {
        *totals = result;
    }
    return sink.bytes();
}

template <class Codec = DeltaCodec>
Bytes decompress_bytes(const Bytes& input) {
    MemorySource source(input);
    MemorySink sink;
    decompress<Codec>(source, sink);
    return sink.bytes();
}

template <class Codec = DeltaCodec>
std::string decompress_error(const Bytes& input) {
    try {
        decompress_bytes<Codec>(input);
    } catch (const Error& error) {
        return error.what();
    }
    return "no error";
}

TEST(Driver, RoundTripsEveryShortLength) {
    for (std::size_t size = 0; size <= 100; ++size) {
        const Bytes input = random_bytes(size, static_cast<std::uint32_t>(size));
        EXPECT_EQ(decompress_bytes(compress_bytes(input)), input) << "length " << size;
    }
}

TEST(Driver, RoundTripsManyBlocksAndCountsThem) {
    // Blocks of 5 records, each through the back-ends: under the sanitizers
    // 202 blocks, not 2002.
    const std::size_t records = tcgen_test::under_sanitizers ? 1007 : 10007;
    const Bytes input = structured_trace(records, 5);
    RunTotals totals;
    const Bytes compressed = compress_bytes(input, &totals);
    EXPECT_EQ(totals.input_bytes, input.size());
    EXPECT_EQ(totals.output_bytes, compressed.size());
    EXPECT_EQ(totals.records, records);
    EXPECT_EQ(totals.blocks, (records + 4) / 5);
    EXPECT_EQ(decompress_bytes(compressed), input);
    const Bytes random_input = random_bytes(60001, 3);
    EXPECT_EQ(decompress_bytes(compress_bytes(random_input)), random_input);
}

TEST(Driver, RoundTripsWithOtherLayouts) {
    using Headerless = DeltaCodecTemplate<0, 5>;
    using BigBlocks = DeltaCodecTemplate<4, 65536>;
    using LongHeader = DeltaCodecTemplate<1000, 3>;
    // The longest input crosses hundreds of the small layouts' blocks (a
    // thousand; under the sanitizers two hundred).
    const std::size_t longest = tcgen_test::under_sanitizers ? 6000u : 30000u;
    for (const std::size_t size : {std::size_t{0}, std::size_t{1}, std::size_t{5}, std::size_t{6}, std::size_t{7},
                                   std::size_t{999}, std::size_t{1000}, std::size_t{1001}, std::size_t{1006}, longest}) {
        const Bytes input = size == longest ? structured_trace(size / 6, 3) : random_bytes(size, 11);
        EXPECT_EQ(decompress_bytes<Headerless>(compress_bytes<Headerless>(input)), input) << size;
        EXPECT_EQ(decompress_bytes<BigBlocks>(compress_bytes<BigBlocks>(input)), input) << size;
        EXPECT_EQ(decompress_bytes<LongHeader>(compress_bytes<LongHeader>(input)), input) << size;
    }
    // Blocks as large as a real spec's, a little over one. (The small-block
    // layouts take thousands of blocks here, each through the back-ends:
    // their round trips above cross many blocks already.)
    const Bytes large = structured_trace(400000 / 6, 3);
    EXPECT_EQ(decompress_bytes<BigBlocks>(compress_bytes<BigBlocks>(large)), large);
}

TEST(Driver, TheFileIsTheSameWhateverTheThreads) {
    using BigBlocks = DeltaCodecTemplate<4, 4096>;
    for (const unsigned level : {1u, 6u, 9u}) {
        // Level 9 tries context mixing on every stream, at a tenth of the
        // others' speed: five blocks of records, not twelve.
        const Bytes input = structured_trace(level == 9 ? 20000 : 50000, 3);
        WriteOptions options;
        options.level = level;
        options.threads = 1;
        const Bytes one_thread = compress_bytes<BigBlocks>(input, nullptr, options);
        EXPECT_EQ(decompress_bytes<BigBlocks>(one_thread), input);
        for (const unsigned threads : {0u, 2u, 3u, 8u}) {
            options.threads = threads;
            RunTotals totals;
            EXPECT_EQ(compress_bytes<BigBlocks>(input, &totals, options), one_thread)
                << "level " << level << ", " << threads << " threads";
            EXPECT_EQ(totals.output_bytes, one_thread.size());
        }
    }
}

// DeltaCodec as if it had 3840 bytes of tables: restart groups of 40
// records (240 bytes, a sixteenth of that) or more fill them.
struct TabledDeltaCodec : DeltaCodec {
    static constexpr std::uint64_t table_bytes = 3840;
};

TEST(Driver, OnlyGroupsSmallAgainstTheTablesMarkTheirPages) {
    using tcgen_runtime::restarts_touched_pages_only;
    EXPECT_FALSE(restarts_touched_pages_only<TabledDeltaCodec>(0, 1));  // no restart points
    EXPECT_TRUE(restarts_touched_pages_only<TabledDeltaCodec>(1, 39));
    EXPECT_FALSE(restarts_touched_pages_only<TabledDeltaCodec>(1, 40));
    EXPECT_TRUE(restarts_touched_pages_only<TabledDeltaCodec>(7, 5));
    EXPECT_FALSE(restarts_touched_pages_only<TabledDeltaCodec>(8, 5));
    // No tables: every group fills them.
    EXPECT_FALSE(restarts_touched_pages_only<DeltaCodec>(1, 1));
}

// The writer of a file with small restart groups has its codec clear only
// the pages a group touched (the readers do the same from the preamble); a
// file without restart points, or with groups that fill the tables, pays
// nothing for marking pages.
TEST(Driver, OnlyAFileWithSmallRestartGroupsMarksTheTablesPages) {
    for (const std::uint32_t restart_blocks : {0u, 1u, 7u, 8u, 16u}) {
        MemorySink sink;
        WriteOptions options;
        options.restart_blocks = restart_blocks;
        options.block_bytes = 5 * TabledDeltaCodec::record_bytes;
        TraceWriter<TabledDeltaCodec> writer(sink, options);
        EXPECT_EQ(writer.codec().touched_pages_only(), restart_blocks == 1 || restart_blocks == 7) << restart_blocks;
    }
}

TEST(Driver, CompressesStructuredTraces) {
    using BigBlocks = DeltaCodecTemplate<4, 65536>;
    const Bytes input = structured_trace(200000, 0);
    const Bytes compressed = compress_bytes<BigBlocks>(input);
    EXPECT_LT(compressed.size() * 50, input.size());
}

TEST(Driver, ReadsFilesWrittenWithAnotherBlockSize) {
    const Bytes input = structured_trace(103, 2);
    EXPECT_EQ((decompress_bytes<DeltaCodecTemplate<4, 7>>(compress_bytes(input))), input);
}

TEST(Driver, EveryFlippedByteIsAnError) {
    const Bytes input = random_bytes(4 + 6 * 23 + 3, 5);
    const Bytes compressed = compress_bytes(input);
    ASSERT_EQ(find_sections(compressed).blocks.size(), 5u);
    for (std::size_t position = 0; position < compressed.size(); ++position) {
        for (const std::uint8_t mask : {std::uint8_t{0x01}, std::uint8_t{0x80}, std::uint8_t{0xFF}}) {
            Bytes damaged = compressed;
            damaged[position] = static_cast<std::uint8_t>(damaged[position] ^ mask);
            EXPECT_NE(decompress_error(damaged), "no error") << "byte " << position << " mask " << int(mask);
        }
    }
}

TEST(Driver, EveryTruncationIsAnError) {
    const Bytes input = random_bytes(4 + 6 * 23 + 3, 6);
    const Bytes compressed = compress_bytes(input);
    EXPECT_EQ(decompress_error(Bytes()), "not a .tcz file (empty input)");
    for (std::size_t size = 1; size < compressed.size(); ++size) {
        const std::string message =
            decompress_error(Bytes(compressed.begin(), compressed.begin() + static_cast<std::ptrdiff_t>(size)));
        EXPECT_EQ(message.rfind("truncated input: ", 0), 0u) << "length " << size << ": " << message;
    }
}

TEST(Driver, SampledDamageToALargerFileIsAnError) {
    using MidBlocks = DeltaCodecTemplate<4, 64>;
    const Bytes input = structured_trace(5000, 1);
    const Bytes compressed = compress_bytes<MidBlocks>(input);
    std::mt19937 random(17);
    for (int trial = 0; trial < 1500; ++trial) {
        Bytes damaged = compressed;
        const std::size_t position = random() % damaged.size();
        damaged[position] = static_cast<std::uint8_t>(damaged[position] ^ (1u << (random() % 8)));
        if (trial % 3 == 0) {
            damaged[random() % damaged.size()] = static_cast<std::uint8_t>(random());
        }
        EXPECT_NE(decompress_error<MidBlocks>(damaged), "no error") << "trial " << trial;
    }
}

TEST(Driver, ArbitraryBytesAreAnError) {
    std::mt19937 random(23);
    for (int trial = 0; trial < 2000; ++trial) {
        Bytes bytes = random_bytes(random() % 200, static_cast<std::uint32_t>(trial));
        if (trial % 2 == 0) {
            bytes.insert(bytes.begin(), tcz_magic.begin(), tcz_magic.end());
        }
        EXPECT_NE(decompress_error(bytes), "no error");
    }
}

TEST(Driver, NamesTheDamagedPart) {
    const Bytes input = random_bytes(4 + 6 * 23, 8);
    const Bytes compressed = compress_bytes(input);
    const TczSections layout = find_sections(compressed);
    ASSERT_EQ(layout.blocks.size(), 5u);
    auto flip = [&](std::size_t position) {
        Bytes damaged = compressed;
        damaged[position] ^= 1;
        return decompress_error(damaged);
    };
    const std::size_t block_2 = layout.blocks[1];
    const std::size_t block_2_end = layout.blocks[2];
    EXPECT_EQ(flip(block_2_end - 1), "checksum mismatch in block 2");
    EXPECT_EQ(flip(block_2_end - 9), "checksum mismatch in block 2 (compressed data)");
    EXPECT_EQ(flip(block_2_end - 17), "checksum mismatch in block 2 (compressed data)");
    EXPECT_EQ(flip(block_2 + 5), "checksum mismatch in block 2 (section header)");
    EXPECT_EQ(flip(block_2), "corrupt input: unknown section tag 0x425a4355 after block 1");
    EXPECT_EQ(flip(layout.header_section + 40), "checksum mismatch in header section (compressed data)");
    EXPECT_EQ(flip(layout.trailer + 6), "checksum mismatch in trailer");
    EXPECT_EQ(flip(20), "checksum mismatch in preamble");
    EXPECT_EQ(flip(8), "unsupported .tcz format version " + std::to_string(tcz_format_version ^ 1) +
                           " (this program reads version " + std::to_string(tcz_format_version) + ")");
    EXPECT_EQ(flip(0), "not a .tcz file (bad magic: the file looks mangled, e.g. by a text-mode transfer)");
    EXPECT_EQ(flip(1), "not a .tcz file (bad magic)");
    const Bytes cut_in_lengths(compressed.begin(),
                               compressed.begin() + static_cast<std::ptrdiff_t>(layout.blocks[2] + 30));
    EXPECT_EQ(decompress_error(cut_in_lengths), "truncated input: block 3 ends after 30 of at least 54 bytes");
    const Bytes cut_in_data(compressed.begin(),
                            compressed.begin() + static_cast<std::ptrdiff_t>(layout.blocks[2] + 60));
    EXPECT_EQ(decompress_error(cut_in_data), "truncated input: block 3 ends after 60 of " +
                                                 std::to_string(layout.blocks[3] - layout.blocks[2]) + " bytes");
    const Bytes no_trailer(compressed.begin(), compressed.begin() + static_cast<std::ptrdiff_t>(layout.trailer));
    EXPECT_EQ(decompress_error(no_trailer), "truncated input: the file ends after block 5 without a trailer");
}

TEST(Driver, RefusesTrailingGarbage) {
    Bytes compressed = compress_bytes(random_bytes(50, 1));
    compressed.push_back(0);
    EXPECT_EQ(decompress_error(compressed), "trailing garbage after the trailer");
    Bytes garbage_after_magic = compress_bytes(random_bytes(50, 1));
    garbage_after_magic.insert(garbage_after_magic.end(), tcz_magic.begin(), tcz_magic.begin() + 3);
    garbage_after_magic.push_back('!');
    EXPECT_EQ(decompress_error(garbage_after_magic), "trailing garbage after the trailer");
}

// As with gzip, xz and zstd: concatenated files decompress to the
// concatenation of their traces, each with predictor state of its own.
TEST(Driver, ConcatenatedFilesGiveTheConcatenatedTraces) {
    const Bytes first = structured_trace(3000, 5);
    const Bytes second = random_bytes(777, 3);
    Bytes both = compress_bytes(first);
    const Bytes second_compressed = compress_bytes(second);
    both.insert(both.end(), second_compressed.begin(), second_compressed.end());
    Bytes expected = first;
    expected.insert(expected.end(), second.begin(), second.end());
    EXPECT_EQ(decompress_bytes(both), expected);
    // A second file cut short, or of another spec, is an error as it would be alone.
    const Bytes cut(both.begin(), both.end() - 5);
    EXPECT_EQ(decompress_error(cut).rfind("truncated input: ", 0), 0u) << decompress_error(cut);
    Bytes other = compress_bytes(first);
    const Bytes other_spec = compress_bytes<DeltaCodecTemplate<4, 5, 1>>(second);
    other.insert(other.end(), other_spec.begin(), other_spec.end());
    EXPECT_EQ(decompress_error(other).rfind("this .tcz was made by a different spec", 0), 0u);
}

TEST(Driver, DetectsTextModeMangling) {
    const Bytes compressed = compress_bytes(random_bytes(50, 1));
    Bytes mangled;
    for (std::size_t index = 0; index < compressed.size(); ++index) {
        const bool carriage_return_before_newline =
            compressed[index] == '\r' && index + 1 < compressed.size() && compressed[index + 1] == '\n';
        if (!carriage_return_before_newline) {
            mangled.push_back(compressed[index]);
        }
    }
    EXPECT_EQ(decompress_error(mangled),
              "not a .tcz file (bad magic: the file looks mangled, e.g. by a text-mode transfer)");
}

TEST(Driver, RefusesAnotherSpec) {
    using OtherSpec = DeltaCodecTemplate<4, 5, 1>;
    const Bytes compressed = compress_bytes(random_bytes(50, 1));
    try {
        decompress_bytes<OtherSpec>(compressed);
        FAIL() << "no error";
    } catch (const SpecMismatchError& error) {
        EXPECT_EQ(std::string(error.what()), "this .tcz was made by a different spec (fingerprint " +
                                                 hex64(DeltaCodec::fingerprint) + ", expected " +
                                                 hex64(OtherSpec::fingerprint) + "); it was made by:");
        EXPECT_EQ(error.spec_text(), DeltaCodec::spec_text);
    }
    EXPECT_EQ((decompress_error<DeltaCodecTemplate<0, 5>>(compressed)),
              "header size mismatch: this .tcz has a 4-byte header, this program expects 0");
}

// A whole .tcz of DeltaCodec's layout (a header, no records) whose preamble
// stores `spec_text` under `fingerprint`, with every check right.
Bytes file_with_spec(const std::string& spec_text, std::uint64_t fingerprint) {
    Preamble preamble = codec_preamble<DeltaCodec>();
    preamble.spec_text = spec_text;
    preamble.fingerprint = fingerprint;
    MemorySink sink;
    ContainerWriter writer(sink);
    writer.write_preamble(preamble);
    const std::uint8_t header[] = {'H', 'D', 'R', '1'};
    writer.write_header(header, sizeof header);
    writer.write_trailer(0, sizeof header, nullptr, 0);
    return sink.bytes();
}

TEST(Driver, SaysWhatIsWrongWithADamagedStoredSpec) {
    const std::string spec(DeltaCodec::spec_text);
    ASSERT_EQ(decompress_error(file_with_spec(spec, DeltaCodec::fingerprint)), "no error");
    EXPECT_EQ(decompress_error(file_with_spec("", DeltaCodec::fingerprint)),
              "corrupt input: the preamble stores no spec text");
    EXPECT_EQ(decompress_error(file_with_spec("", fingerprint64(""))), "corrupt input: the preamble stores no spec text");
    std::string altered = spec;
    altered[altered.find("DFCM1")] = 'X';
    EXPECT_EQ(decompress_error(file_with_spec(altered, DeltaCodec::fingerprint)),
              "corrupt input: the stored spec text does not match its fingerprint");
    // Another fingerprint is another spec, whatever the text.
    EXPECT_EQ(decompress_error(file_with_spec(spec, fingerprint64(altered))),
              "this .tcz was made by a different spec (fingerprint " + hex64(fingerprint64(altered)) + ", expected " +
                  hex64(DeltaCodec::fingerprint) + "); it was made by:");
}

// Writes one byte more than it reads back, within the limit it declares:
// the driver must notice the byte left over.
class SloppyCodec : public DeltaCodec {
public:
    static constexpr std::array<std::uint64_t, stream_count> stream_bytes_per_record = {2, 5};
    void encode(const std::uint8_t* records, std::size_t count, StreamWriter* streams) {
        DeltaCodec::encode(records, count, streams);
        streams[1].put<std::uint8_t>(0);
    }
};

TEST(Driver, RefusesUnusedStreamBytes) {
    const Bytes compressed = compress_bytes<SloppyCodec>(random_bytes(40, 1));
    EXPECT_EQ(decompress_error<SloppyCodec>(compressed),
              "corrupt input: stream 'word_xors' of block 1 has 1 unused bytes");
    // The codec that reads it knows a record adds at most 4 bytes to that
    // stream, and refuses the claim before decompressing anything.
    EXPECT_EQ(decompress_error(compressed),
              "corrupt input: stream 'word_xors' of block 1 claims 21 bytes, more than its 5 records can hold (20)");
}

// run_command with memory input and output and a temporary file for messages.
using tcgen_test::CommandResult;

template <class Codec = DeltaCodec>
CommandResult run(std::vector<std::string> arguments, const Bytes& input, bool terminal = false,
                  bool messages_terminal = false) {
    return tcgen_test::run_in_memory<Codec>("/usr/local/bin/comp", std::move(arguments), input, terminal,
                                            messages_terminal);
}

TEST(Command, CompressesAndDecompresses) {
    const Bytes input = structured_trace(100, 0);
    const CommandResult compressed = run({}, input);
    EXPECT_EQ(compressed.status, 0);
    EXPECT_EQ(compressed.messages, "");
    const CommandResult restored = run({"-d"}, compressed.output);
    EXPECT_EQ(restored.status, 0);
    EXPECT_EQ(restored.messages, "");
    EXPECT_EQ(restored.output, input);
    const CommandResult tested = run({"-t"}, compressed.output);
    EXPECT_EQ(tested.status, 0);
    EXPECT_EQ(tested.messages, "");
    EXPECT_TRUE(tested.output.empty());
}

// Off a terminal and without -v a run prints only warnings and errors.
TEST(Command, WarnsOfAnInputThatDoesNotFitEvenWhenQuietOtherwise) {
    const CommandResult compressed = run({}, structured_trace(100, 1));
    EXPECT_EQ(compressed.status, 0);
    EXPECT_EQ(compressed.messages,
              "comp: warning: the input is not a whole number of 6-byte records after its header: 1 bytes left "
              "over, kept verbatim (is this the right spec?)\n");
    EXPECT_EQ(run({"-q"}, structured_trace(100, 1)).messages, "");
}

std::string summary_of_compression(std::size_t input_bytes, std::size_t output_bytes) {
    char ratio[32];
    std::snprintf(ratio, sizeof ratio, "%.3f", static_cast<double>(input_bytes) / static_cast<double>(output_bytes));
    return "comp: " + std::to_string(input_bytes) + " bytes in, " + std::to_string(output_bytes) +
           " bytes out, ratio " + ratio + " (100 records in 20 blocks)\n";
}

// --report and -v print the codec's report, the stream table and the
// summary line; -v also names what became of a decompressed or tested file.
TEST(Command, ReportsWithReportOrVerbose) {
    const Bytes input = structured_trace(100, 0);
    for (const std::string option : {"--report", "-v"}) {
        const CommandResult compressed = run({option}, input);
        EXPECT_EQ(compressed.status, 0);
        const std::string& messages = compressed.messages;
        EXPECT_EQ(messages.rfind("field 1: 1 of 100 records repeat the previous value\n"
                                 "  stream                    raw bytes     compressed    share\n"
                                 "  short_deltas ",
                                 0),
                  0u)
            << option << ":\n"
            << messages;
        EXPECT_NE(messages.find("\n  word_xors "), std::string::npos) << messages;
        EXPECT_NE(messages.find("\n  (spec, header, checks) "), std::string::npos) << messages;
        const std::string summary = summary_of_compression(input.size(), compressed.output.size());
        ASSERT_GE(messages.size(), summary.size());
        EXPECT_EQ(messages.substr(messages.size() - summary.size()), summary) << option << ":\n" << messages;
    }
    const Bytes compressed = run({}, input).output;
    EXPECT_EQ(run({"-v", "-d"}, compressed).messages,
              "comp: (stdin) -> (stdout): " + std::to_string(compressed.size()) + " bytes in, " +
                  std::to_string(input.size()) + " bytes out (100 records)\n");
    EXPECT_EQ(run({"-v", "-t"}, compressed).messages,
              "comp: (stdin): ok, 100 records, " + std::to_string(input.size()) + " bytes\n");
    // Only compression has a report.
    EXPECT_EQ(run({"--report", "-d"}, compressed).messages, "");
    // -q wins over both.
    EXPECT_EQ(run({"-q", "-v", "--report"}, input).messages, "");
    EXPECT_EQ(run({"-v", "-q", "-d"}, compressed).messages, "");
}

// A terminal on standard error alone does not make a filter talk: its output
// (standard output here) may be feeding a program whose own output shares
// that terminal.
TEST(Command, StaysQuietOnATerminalWhenWritingStandardOutput) {
    const Bytes input = structured_trace(100, 0);
    const CommandResult compressed = run({}, input, false, true);
    EXPECT_EQ(compressed.status, 0);
    EXPECT_EQ(compressed.messages, "");
    EXPECT_EQ(run({"-d"}, compressed.output, false, true).messages, "");
    EXPECT_EQ(run({"-v", "-d"}, compressed.output, false, true).messages,
              "comp: (stdin) -> (stdout): " + std::to_string(compressed.output.size()) + " bytes in, " +
                  std::to_string(input.size()) + " bytes out (100 records)\n");
}

// -l prints on standard output, as xz -l and zstd -l do, and nothing else.
// Its stream table, read from the file's section headers, is the one the
// writer's report gives.
TEST(Command, ListsOnStandardOutput) {
    const Bytes input = structured_trace(100, 0);
    const CommandResult compressed = run({"--report"}, input);
    const std::string& report = compressed.messages;
    const std::size_t table_start = report.find("  stream ");
    const std::size_t table_end = report.rfind("comp: ");
    ASSERT_LT(table_start, table_end) << report;
    std::string indented_spec;
    for (std::size_t begin = 0; begin < DeltaCodec::spec_text.size();) {
        const std::size_t end = DeltaCodec::spec_text.find('\n', begin);
        indented_spec += "    " + std::string(DeltaCodec::spec_text.substr(begin, end - begin)) + "\n";
        begin = end + 1;
    }
    char ratio[32];
    std::snprintf(ratio, sizeof ratio, "%.3f",
                  static_cast<double>(input.size()) / static_cast<double>(compressed.output.size()));
    const std::string expected = "(stdin): 100 records of 6 bytes in 20 blocks, " + std::to_string(input.size()) +
                                 " bytes in " + std::to_string(compressed.output.size()) + " bytes, ratio " + ratio +
                                 "\n"
                                 "  blocks of 5 records (30 bytes); the predictors never restart\n"
                                 "  spec (fingerprint " +
                                 hex64(DeltaCodec::fingerprint) + "):\n" + indented_spec +
                                 report.substr(table_start, table_end - table_start);
    const CommandResult listed = run({"-l"}, compressed.output);
    EXPECT_EQ(listed.status, 0);
    EXPECT_EQ(listed.messages, "");
    EXPECT_EQ(std::string(listed.output.begin(), listed.output.end()), expected);
    // A file that is not a .tcz: the error on standard error, nothing listed.
    const CommandResult bad = run({"-l"}, {'h', 'e', 'l', 'l', 'o'});
    EXPECT_EQ(bad.status, 1);
    EXPECT_EQ(bad.messages, "comp: error: not a .tcz file (bad magic)\n");
    EXPECT_TRUE(bad.output.empty());
}

TEST(Command, EveryBackendRoundTripsAndIsRecorded) {
    const Bytes input = structured_trace(3000, 2);
    for (const std::string name : {"bzip2", "lzma", "zstd"}) {
        const CommandResult compressed = run({"--backend=" + name}, input);
        ASSERT_EQ(compressed.status, 0) << compressed.messages;
        const TczSections sections = find_sections(compressed.output);
        const std::uint8_t id = TczBlockLayout::backend(0).load(compressed.output.data() + sections.blocks[0]);
        EXPECT_EQ(backend_name(*backend_from_id(id)), name);
        // The decompressor needs no option: the file says.
        const CommandResult restored = run({"-d"}, compressed.output);
        EXPECT_EQ(restored.status, 0) << restored.messages;
        EXPECT_EQ(restored.output, input) << name;
    }
    const CommandResult unknown = run({"--backend=gzip"}, input);
    EXPECT_EQ(unknown.status, 1);
    EXPECT_EQ(unknown.messages, "comp: error: unknown back-end 'gzip' (bzip2, lzma, zstd, cm or grammar)\n");
    EXPECT_TRUE(unknown.output.empty());
}

TEST(Command, HelpAndBadArguments) {
    const CommandResult help = run({"--help"}, {});
    EXPECT_EQ(help.status, 0);
    EXPECT_EQ(std::string(help.output.begin(), help.output.end()).rfind("usage: comp [OPTION]... [FILE]...", 0), 0u);
    EXPECT_EQ(run({"-h"}, {}).status, 0);
    const CommandResult spec = run({"--spec"}, {});
    EXPECT_EQ(std::string(spec.output.begin(), spec.output.end()), DeltaCodec::spec_text);
    const CommandResult unknown = run({"-x"}, {});
    EXPECT_EQ(unknown.status, 1);
    EXPECT_EQ(unknown.messages, "comp: error: unknown option '-x' (try -h)\n");
    const CommandResult missing = run({"/nonexistent/trace.bin"}, {});
    EXPECT_EQ(missing.status, 1);
    EXPECT_EQ(missing.messages,
              "comp: /nonexistent/trace.bin: error: cannot open '/nonexistent/trace.bin': No such file or directory\n");
    EXPECT_EQ(run({"--keep=yes"}, {}).messages, "comp: error: option '--keep' takes no value\n");
    EXPECT_EQ(run({"-o"}, {}).messages, "comp: error: option '-o' needs a file name\n");
    EXPECT_EQ(run({"-o", "x", "a", "b"}, {}).messages,
              "comp: error: -o names one output, but 2 input files were given\n");
}

TEST(Command, ReportsErrorsOnOneLine) {
    const CommandResult result = run({"-d"}, {'h', 'e', 'l', 'l', 'o'});
    EXPECT_EQ(result.status, 1);
    EXPECT_EQ(result.messages, "comp: error: not a .tcz file (bad magic)\n");
    EXPECT_TRUE(result.output.empty());
}

TEST(Command, PrintsTheSpecOfAnotherSpecsFile) {
    const Bytes compressed = compress_bytes(random_bytes(30, 2));
    const CommandResult result = run<DeltaCodecTemplate<4, 5, 1>>({"-d"}, compressed);
    EXPECT_EQ(result.status, 1);
    const std::string first_line = "comp: error: this .tcz was made by a different spec (fingerprint " +
                                   hex64(DeltaCodec::fingerprint) + ", expected " +
                                   hex64(DeltaCodecTemplate<4, 5, 1>::fingerprint) + "); it was made by:\n";
    EXPECT_EQ(result.messages, first_line + std::string(DeltaCodec::spec_text));
    EXPECT_TRUE(result.output.empty());
}

// A forged file may store a megabyte of spec: the message quotes its start.
TEST(Command, QuotesOnlyTheStartOfAHugeStoredSpec) {
    std::string spec;
    for (int line = 0; line < 5000; ++line) {
        spec += "32-Bit Field " + std::to_string(line + 1) + " = {: LV[1]};\n";
    }
    const CommandResult result = run({"-d"}, file_with_spec(spec, fingerprint64(spec)));
    EXPECT_EQ(result.status, 1);
    const std::size_t shown = result.messages.find("... (");
    ASSERT_NE(shown, std::string::npos) << result.messages.substr(0, 300);
    std::string quoted = result.messages.substr(result.messages.find('\n') + 1);
    quoted = quoted.substr(0, quoted.find("... ("));
    EXPECT_EQ(quoted, spec.substr(0, quoted.size()));
    EXPECT_EQ(std::count(quoted.begin(), quoted.end(), '\n'), 40);
    EXPECT_NE(result.messages.find("more bytes of the spec not shown)\n"), std::string::npos);
    EXPECT_LT(result.messages.size(), 5000u);
    // One line of a megabyte is cut too.
    const std::string one_line(1 << 19, 'x');
    const CommandResult cut = run({"-d"}, file_with_spec(one_line, fingerprint64(one_line)));
    EXPECT_LT(cut.messages.size(), 5000u);
    EXPECT_NE(cut.messages.find("(" + std::to_string((1 << 19) - 4096) + " more bytes of the spec not shown)"),
              std::string::npos);
}

TEST(Command, RefusesToWriteCompressedDataToATerminal) {
    const CommandResult refused = run({}, {1, 2, 3}, true);
    EXPECT_EQ(refused.status, 1);
    EXPECT_EQ(refused.messages,
              "comp: error: refusing to write compressed data to a terminal (redirect standard output, or use -f)\n");
    EXPECT_TRUE(refused.output.empty());
    EXPECT_EQ(run({"-f"}, {1, 2, 3}, true).status, 0);
}

TEST(Command, RefusesToWriteDecompressedDataToATerminal) {
    const Bytes input = structured_trace(20, 1);
    const Bytes compressed = compress_bytes(input);
    const CommandResult refused = run({"-d"}, compressed, true);
    EXPECT_EQ(refused.status, 1);
    EXPECT_EQ(refused.messages,
              "comp: error: refusing to write decompressed data to a terminal (redirect standard output, or use -f)\n");
    EXPECT_TRUE(refused.output.empty());
    for (const std::vector<std::string>& arguments : {std::vector<std::string>{"-d", "-f"}, {"-f", "-d"}}) {
        const CommandResult forced = run(arguments, compressed, true);
        EXPECT_EQ(forced.status, 0) << forced.messages;
        EXPECT_EQ(forced.output, input);
    }
}

TEST(Command, ReportsADamagedStoredSpecOnOneLine) {
    const CommandResult empty = run({"-d"}, file_with_spec("", DeltaCodec::fingerprint));
    EXPECT_EQ(empty.status, 1);
    EXPECT_EQ(empty.messages, "comp: error: corrupt input: the preamble stores no spec text\n");
    EXPECT_TRUE(empty.output.empty());
    const CommandResult altered = run({"-d"}, file_with_spec("TCgen Trace Specification;\n", DeltaCodec::fingerprint));
    EXPECT_EQ(altered.status, 1);
    EXPECT_EQ(altered.messages, "comp: error: corrupt input: the stored spec text does not match its fingerprint\n");
    EXPECT_TRUE(altered.output.empty());
}

// A codec whose tables do not fit in memory: constructing it fails the way
// the generated tables' calloc does.
struct UnallocatableCodec : DeltaCodec {
    static constexpr std::uint64_t table_bytes = std::uint64_t{3} << 40;
    UnallocatableCodec() { throw std::bad_alloc(); }
};

TEST(Command, TablesThatDoNotFitAreAnErrorOnlyWhenWorkStarts) {
    EXPECT_EQ(run<UnallocatableCodec>({"-h"}, {}).status, 0);
    EXPECT_EQ(run<UnallocatableCodec>({"--spec"}, {}).status, 0);
    // Decompression allocates once the file proved to be of this spec.
    const Bytes compressed = compress_bytes(structured_trace(3, 0));
    for (const char* mode : {"-d", "-f"}) {
        const CommandResult result = run<UnallocatableCodec>({mode}, std::string(mode) == "-d" ? compressed : Bytes{1, 2, 3});
        EXPECT_EQ(result.status, 1);
        EXPECT_EQ(result.messages, "comp: error: cannot allocate 3298534883328 bytes of predictor tables\n");
        EXPECT_TRUE(result.output.empty());
    }
}

// A bug (any exception that is not the runtime's Error) exits 2, as documented.
struct BuggyCodec : DeltaCodec {
    void encode(const std::uint8_t*, std::size_t, StreamWriter*) { throw std::logic_error("a bug"); }
};

TEST(Command, AnInternalErrorExitsTwo) {
    const CommandResult result = run<BuggyCodec>({}, structured_trace(10, 0));
    EXPECT_EQ(result.status, 2);
    EXPECT_EQ(result.messages, "comp: internal error: a bug\n");
}

TEST(Command, ControlCharactersInAStoredSpecAreNotPrinted) {
    EXPECT_EQ(printable_text("a\x1b[31mb\n\tc"), "a?[31mb\n\tc\n");
}

}  // namespace
}  // namespace tcgen_runtime
