// The in-process API, tcgen --emit=header: two generated headers (vpc3 and
// champsim) in one program, reading the .tcz goldens that the generated
// programs wrote, writing byte-identical files, skipping and seeking, and
// refusing what the programs refuse, with their messages.

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <functional>
#include <iterator>
#include <string>
#include <vector>

#include <unistd.h>

#include "champsim.hpp"
#include "vpc3.hpp"

namespace {

using Bytes = std::vector<std::uint8_t>;

Bytes read_bytes(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return Bytes(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

const std::string golden_dir = TCGEN_GOLDEN_DIR;

// The load-value slice vpc3.tcz was made of: a 4-byte header, 3000 records,
// a 5-byte partial record.
struct Trace {
    Bytes bytes = read_bytes(golden_dir + "/inputs/load_values.trace");
    Bytes header() const { return Bytes(bytes.begin(), bytes.begin() + 4); }
    std::size_t records() const { return (bytes.size() - 4) / vpc3::Record::bytes; }
    vpc3::Record record(std::size_t index) const { return vpc3::Record::load(bytes.data() + 4 + index * 12); }
};

void expect_same(const vpc3::Record& found, const vpc3::Record& expected, std::size_t index) {
    EXPECT_EQ(found.field1, expected.field1) << "record " << index;
    EXPECT_EQ(found.field2, expected.field2) << "record " << index;
}

std::string error_of(const std::function<void()>& action) {
    try {
        action();
    } catch (const tcgen_runtime::Error& error) {
        return error.what();
    }
    return "no error";
}

TEST(CodecHeader, ReadsWhatTheProgramWrote) {
    const Trace trace;
    ASSERT_EQ(trace.records(), 3000u);
    vpc3::Reader reader(golden_dir + "/vpc3.tcz");
    EXPECT_EQ(reader.header(), trace.header());
    vpc3::Record record;
    std::size_t index = 0;
    while (reader.next(record)) {
        ASSERT_LT(index, trace.records());
        expect_same(record, trace.record(index), index);
        ++index;
    }
    EXPECT_EQ(index, trace.records());
    EXPECT_EQ(reader.position(), trace.records());
    EXPECT_EQ(reader.tail(), Bytes(trace.bytes.end() - 5, trace.bytes.end()));
    EXPECT_FALSE(reader.next(record));
}

TEST(CodecHeader, WritesWhatTheProgramWrites) {
    const Trace trace;
    tcgen_runtime::MemorySink sink;
    vpc3::Writer writer(sink, trace.header());
    for (std::size_t index = 0; index < trace.records(); ++index) {
        writer.append(trace.record(index));
    }
    EXPECT_EQ(writer.records(), trace.records());
    writer.close();
    // The program given the same bytes (without the partial record) writes the same file.
    const Bytes whole(trace.bytes.begin(), trace.bytes.end() - 5);
    tcgen_runtime::MemorySource source(whole);
    tcgen_runtime::MemorySink program;
    tcgen_runtime::compress<vpc3::Codec>(source, program);
    EXPECT_EQ(sink.bytes(), program.bytes());
}

TEST(CodecHeader, AFileAppearsOnlyWhenClosed) {
    const Trace trace;
    const std::string path = ::testing::TempDir() + "codec_header_writer.tcz";
    std::remove(path.c_str());
    {
        vpc3::Writer abandoned(path, trace.header());
        abandoned.append(trace.record(0));
    }
    EXPECT_NE(::access(path.c_str(), F_OK), 0) << "an unclosed writer left " << path;
    {
        tcgen_runtime::WriteOptions options;
        options.backend = tcgen_runtime::Backend::zstd;
        vpc3::Writer writer(path, trace.header(), options);
        for (std::size_t index = 0; index < 100; ++index) {
            writer.append(trace.record(index));
        }
        writer.close();
    }
    vpc3::Reader reader(path);
    vpc3::Record record;
    std::size_t index = 0;
    while (reader.next(record)) {
        expect_same(record, trace.record(index), index);
        ++index;
    }
    EXPECT_EQ(index, 100u);
    std::remove(path.c_str());
}

TEST(CodecHeader, SkipsAndSeeks) {
    const Trace trace;
    vpc3::Reader reader(golden_dir + "/vpc3.tcz");
    vpc3::Record record;
    EXPECT_EQ(reader.skip(1234), 1234u);
    ASSERT_TRUE(reader.next(record));
    expect_same(record, trace.record(1234), 1234);
    ASSERT_TRUE(reader.seek(10));
    ASSERT_TRUE(reader.next(record));
    expect_same(record, trace.record(10), 10);
    ASSERT_TRUE(reader.seek(2999));
    ASSERT_TRUE(reader.next(record));
    expect_same(record, trace.record(2999), 2999);
    EXPECT_EQ(reader.skip(5), 0u);
    EXPECT_FALSE(reader.seek(3001));
    ASSERT_TRUE(reader.seek(0));
    EXPECT_EQ(reader.skip(5000), 3000u);

    const Bytes file = read_bytes(golden_dir + "/vpc3.tcz");
    tcgen_runtime::MemorySource source(file);
    // Memory has random access: back to the start of the block index's
    // restart point, without a file name to reopen.
    vpc3::Reader in_memory(source);
    EXPECT_EQ(in_memory.skip(100), 100u);
    ASSERT_TRUE(in_memory.seek(5));
    ASSERT_TRUE(in_memory.next(record));
    expect_same(record, trace.record(5), 5);
}

TEST(CodecHeader, ReadsConcatenatedFiles) {
    Bytes both = read_bytes(golden_dir + "/vpc3.tcz");
    const Bytes once = both;
    both.insert(both.end(), once.begin(), once.end());
    tcgen_runtime::MemorySource source(both);
    vpc3::Reader reader(source);
    EXPECT_EQ(reader.skip(10000), 6000u);
}

TEST(CodecHeader, RefusesWhatTheProgramRefuses) {
    EXPECT_EQ(error_of([] { vpc3::Reader reader("/nonexistent.tcz"); }),
              "cannot open '/nonexistent.tcz': No such file or directory");
    const std::string other = error_of([] { vpc3::Reader reader(golden_dir + "/champsim.tcz"); });
    EXPECT_EQ(other.rfind("this .tcz was made by a different spec (fingerprint ", 0), 0u) << other;
    Bytes damaged = read_bytes(golden_dir + "/vpc3.tcz");
    damaged[damaged.size() / 2] ^= 0x10;
    tcgen_runtime::MemorySource source(damaged);
    const std::string message = error_of([&] {
        vpc3::Reader reader(source);
        vpc3::Record record;
        while (reader.next(record)) {
        }
    });
    EXPECT_EQ(message.rfind("checksum mismatch in block 1", 0), 0u) << message;
    tcgen_runtime::MemorySink sink;
    EXPECT_EQ(error_of([&] { vpc3::Writer writer(sink, Bytes{1, 2}); }),
              "the header has 2 bytes, the spec's has 4");
}

// The little-endian integer of `size` bytes at `at`, read independently of
// the generated Record::load.
std::uint64_t little_endian(const Bytes& raw, std::size_t at, std::size_t size) {
    std::uint64_t value = 0;
    for (std::size_t byte = size; byte-- > 0;) {
        value = value << 8 | raw[at + byte];
    }
    return value;
}

// ChampSim's records through the second header in the same program, by the
// names examples/champsim.tcg gives its fields (ChampSim's own: an array
// member per array), from a .tcz written before the spec had names.
TEST(CodecHeader, TwoSpecsInOneProgram) {
    const Bytes raw = read_bytes(golden_dir + "/inputs/champsim.trace");
    champsim::Reader reader(golden_dir + "/champsim.tcz");
    EXPECT_TRUE(reader.header().empty());
    champsim::Record record;
    std::size_t index = 0;
    while (reader.next(record)) {
        const std::size_t at = index * champsim::Record::bytes;
        ASSERT_EQ(record.ip, little_endian(raw, at, 8)) << index;
        ASSERT_EQ(record.is_branch, raw[at + 8]) << index;
        ASSERT_EQ(record.branch_taken, raw[at + 9]) << index;
        for (std::size_t k = 0; k < 2; ++k) {
            ASSERT_EQ(record.destination_registers[k], raw[at + 10 + k]) << index;
            ASSERT_EQ(record.destination_memory[k], little_endian(raw, at + 16 + 8 * k, 8)) << index;
        }
        for (std::size_t k = 0; k < 4; ++k) {
            ASSERT_EQ(record.source_registers[k], raw[at + 12 + k]) << index;
            ASSERT_EQ(record.source_memory[k], little_endian(raw, at + 32 + 8 * k, 8)) << index;
        }
        std::uint8_t bytes[champsim::Record::bytes];
        record.store(bytes);
        ASSERT_TRUE(std::equal(bytes, bytes + sizeof bytes, raw.begin() + static_cast<std::ptrdiff_t>(index * 64)));
        ++index;
    }
    EXPECT_EQ(index * champsim::Record::bytes, raw.size());
}

// A codec owns its state: two compressions in one process give the same
// bytes. (With tables at namespace scope, the second compression started
// from the first one's tables.)
TEST(CodecHeader, TwoCompressionsShareNoState) {
    const Trace trace;
    Bytes outputs[2];
    for (Bytes& output : outputs) {
        tcgen_runtime::MemorySource source(trace.bytes);
        tcgen_runtime::MemorySink sink;
        tcgen_runtime::compress<vpc3::Codec>(source, sink);
        output = sink.bytes();
    }
    EXPECT_EQ(outputs[0], outputs[1]);
    EXPECT_EQ(outputs[0], read_bytes(golden_dir + "/vpc3.tcz"));
}

}  // namespace
