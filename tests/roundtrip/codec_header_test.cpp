// The in-process API, tcgen --emit=header: two generated headers (vpc3 and
// champsim) in one program, reading the .tcz goldens that the generated
// programs wrote, writing byte-identical files, skipping and seeking, and
// refusing what the programs refuse, with their messages; records as
// columns, which give what the records give.

#include <gtest/gtest.h>

#include <algorithm>
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

// Columns: what read_columns and read_block_columns give is what next()
// gives, one record after the other.

// The records of vpc3's golden trace in blocks of 100 (31 blocks, the
// predictors restarting every 4), written by columns in pieces that cross
// blocks; the same bytes as the Writer's record append.
Bytes vpc3_in_small_blocks(const Trace& trace) {
    const tcgen_runtime::WriteOptions options{4, 100 * vpc3::Record::bytes, tcgen_runtime::Backend::zstd};
    tcgen_runtime::MemorySink by_records;
    vpc3::Writer record_writer(by_records, trace.header(), options);
    vpc3::Columns columns(vpc3::fields, trace.records());
    columns.resize(trace.records());
    for (std::size_t index = 0; index < trace.records(); ++index) {
        const vpc3::Record record = trace.record(index);
        record_writer.append(record);
        columns.values<std::uint32_t>("field_1")[index] = record.field1;
        columns.values<std::uint64_t>("field_2")[index] = record.field2;
    }
    record_writer.close();
    tcgen_runtime::MemorySink by_columns;
    vpc3::Writer column_writer(by_columns, trace.header(), options);
    for (std::size_t done = 0, piece = 1; done < trace.records(); piece = piece * 3 + 1) {
        const std::size_t step = std::min(piece, trace.records() - done);
        const void* const arrays[] = {columns.values<std::uint32_t>(0) + done, columns.values<std::uint64_t>(1) + done};
        column_writer.append_columns(vpc3::fields.data(), vpc3::fields.size(), arrays, step);
        done += step;
    }
    EXPECT_EQ(column_writer.records(), trace.records());
    column_writer.close();
    EXPECT_EQ(by_columns.bytes(), by_records.bytes());
    return by_columns.bytes();
}

// Columns of records first, first + 1, ... of the trace (modulo its
// length, for a concatenation).
void expect_columns(const vpc3::Columns& columns, const Trace& trace, std::size_t first) {
    const std::uint32_t* pcs = columns.values<std::uint32_t>("field_1");
    const std::uint64_t* values = columns.values<std::uint64_t>("field_2");
    for (std::size_t k = 0; k < columns.size(); ++k) {
        const vpc3::Record expected = trace.record((first + k) % trace.records());
        ASSERT_EQ(pcs[k], expected.field1) << "record " << first + k;
        ASSERT_EQ(values[k], expected.field2) << "record " << first + k;
    }
}

TEST(CodecHeader, TheHeaderDescribesTheFields) {
    ASSERT_EQ(vpc3::fields.size(), 2u);
    EXPECT_EQ(vpc3::fields[0].name, "field_1");
    EXPECT_EQ(vpc3::fields[0].bits, 32u);
    EXPECT_EQ(vpc3::fields[0].offset, 0u);
    EXPECT_EQ(vpc3::fields[1].name, "field_2");
    EXPECT_EQ(vpc3::fields[1].bytes(), 8u);
    EXPECT_EQ(vpc3::fields[1].offset, 4u);
    ASSERT_EQ(champsim::fields.size(), 15u);
    std::size_t offset = 0;
    for (const tcgen_runtime::FieldLayout& field : champsim::fields) {
        EXPECT_EQ(field.offset, offset) << field.name;
        offset += field.bytes();
    }
    EXPECT_EQ(offset, champsim::Record::bytes);
    EXPECT_EQ(champsim::fields[0].name, "ip");
    EXPECT_EQ(champsim::fields[5].name, "source_registers[0]");
    EXPECT_EQ(champsim::fields[5].bits, 8u);
    EXPECT_EQ(champsim::fields[14].name, "source_memory[3]");
}

TEST(CodecHeader, ColumnsGiveWhatTheProgramWroteUpToTheTail) {
    const Trace trace;
    for (const std::size_t capacity : {std::size_t{1}, std::size_t{777}, std::size_t{3000}, std::size_t{5000}}) {
        vpc3::Reader reader(golden_dir + "/vpc3.tcz");
        vpc3::Columns columns(vpc3::fields, capacity);
        std::size_t position = 0;
        while (reader.read_columns(columns) > 0) {
            expect_columns(columns, trace, position);
            position += columns.size();
        }
        EXPECT_EQ(position, trace.records()) << capacity;
        EXPECT_EQ(reader.position(), trace.records());
        EXPECT_EQ(reader.tail(), Bytes(trace.bytes.end() - 5, trace.bytes.end()));
        EXPECT_EQ(reader.header(), trace.header());
    }
}

TEST(CodecHeader, ColumnsAcrossBlocksABlockAtATimeAfterSkipsAndSeeks) {
    const Trace trace;
    const Bytes file = vpc3_in_small_blocks(trace);
    tcgen_runtime::MemorySource source(file);
    vpc3::Reader reader(source);
    vpc3::Columns block(vpc3::fields);
    std::size_t position = 0;
    std::size_t blocks = 0;
    while (reader.read_block_columns(block) > 0) {
        EXPECT_EQ(block.size(), std::min<std::size_t>(100, trace.records() - position));
        expect_columns(block, trace, position);
        position += block.size();
        blocks += 1;
    }
    EXPECT_EQ(position, trace.records());
    EXPECT_EQ(blocks, 30u);
    EXPECT_EQ(block.capacity(), 100u);

    vpc3::Columns columns(vpc3::fields, 250);
    for (const std::size_t index : {std::size_t{2950}, std::size_t{5}, std::size_t{1234}, std::size_t{399},
                                    std::size_t{2999}, std::size_t{0}}) {
        ASSERT_TRUE(reader.seek(index));
        ASSERT_EQ(reader.read_columns(columns), std::min<std::size_t>(250, trace.records() - index));
        expect_columns(columns, trace, index);
        if (reader.skip(150) == 150) {
            EXPECT_EQ(reader.block_records_left(), 100 - (index + 400) % 100);
            ASSERT_EQ(reader.read_block_columns(block), 100 - (index + 400) % 100);
            expect_columns(block, trace, index + 400);
        }
    }
}

TEST(CodecHeader, ColumnsOfConcatenatedFiles) {
    const Trace trace;
    Bytes both = read_bytes(golden_dir + "/vpc3.tcz");
    const Bytes small_blocks = vpc3_in_small_blocks(trace);
    both.insert(both.end(), small_blocks.begin(), small_blocks.end());
    tcgen_runtime::MemorySource source(both);
    vpc3::Reader reader(source);
    vpc3::Columns columns(vpc3::fields, 1234);
    std::size_t position = 0;
    while (reader.read_columns(columns) > 0) {
        expect_columns(columns, trace, position);
        position += columns.size();
    }
    EXPECT_EQ(position, 2 * trace.records());
    EXPECT_TRUE(reader.tail().empty());  // the second file's: the Writer wrote whole records
}

// Every column of ChampSim's records, by the names the spec gives, against
// the records next() gives; then the columns written back make the
// program's file byte for byte.
TEST(CodecHeader, ChampSimColumnsByTheirNames) {
    champsim::Reader by_records(golden_dir + "/champsim.tcz");
    champsim::Reader by_columns(golden_dir + "/champsim.tcz");
    champsim::Columns columns(champsim::fields, 128);  // 600 records: 5 batches
    tcgen_runtime::MemorySink sink;
    champsim::Writer writer(sink);
    champsim::Record record;
    std::size_t position = 0;
    while (by_columns.read_columns(columns) > 0) {
        const std::uint64_t* ips = columns.values<std::uint64_t>("ip");
        const std::uint8_t* taken = columns.values<std::uint8_t>("branch_taken");
        const std::uint8_t* registers = columns.values<std::uint8_t>("source_registers[2]");
        const std::uint64_t* loads = columns.values<std::uint64_t>("source_memory[3]");
        for (std::size_t k = 0; k < columns.size(); ++k) {
            ASSERT_TRUE(by_records.next(record));
            ASSERT_EQ(ips[k], record.ip) << position + k;
            ASSERT_EQ(taken[k], record.branch_taken) << position + k;
            ASSERT_EQ(registers[k], record.source_registers[2]) << position + k;
            ASSERT_EQ(loads[k], record.source_memory[3]) << position + k;
        }
        writer.append_columns(columns);
        position += columns.size();
    }
    EXPECT_FALSE(by_records.next(record));
    const Bytes raw = read_bytes(golden_dir + "/inputs/champsim.trace");
    EXPECT_EQ(position * champsim::Record::bytes, raw.size());
    writer.close();
    tcgen_runtime::MemorySource source(raw);
    tcgen_runtime::MemorySink program;
    tcgen_runtime::compress<champsim::Codec>(source, program);
    EXPECT_EQ(sink.bytes(), program.bytes());
}

}  // namespace
