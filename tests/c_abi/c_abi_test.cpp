// The C interface of a generated codec (<tcgen/tcgen_codec.h>), through the
// shared library tcgen --emit=c-library makes of examples/vpc3.tcg: what it
// says of the spec, columns written and read back (from a file and from
// memory, a block at a time), and every failure a status and the one-line
// message of the command line, never a crash: a truncated file, a damaged
// one, calls made wrong.

#include <tcgen/tcgen_codec.h>

#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace {

namespace fs = std::filesystem;

const std::vector<std::uint8_t> header = {1, 2, 3, 4};

class CAbi : public ::testing::Test {
protected:
    void SetUp() override {
        std::string pattern = (fs::temp_directory_path() / "c_abi_test_XXXXXX").string();
        ASSERT_NE(mkdtemp(pattern.data()), nullptr);
        work_ = pattern;
        // Records whose PCs repeat and whose values stride, as a trace's do.
        for (std::uint32_t index = 0; index < records; ++index) {
            pcs_.push_back(0x400000 + 4 * (index % 37));
            values_.push_back(0x7ff000000000ull + 8ull * index * (index % 5));
        }
    }
    void TearDown() override { fs::remove_all(work_); }

    // Writes the records to `path` through the C interface.
    void write(const fs::path& path, int level = 1) {
        // Blocks of 87381 records: several of them.
        const std::uint64_t block_bytes = 1 << 20;
        tcgen_writer* writer = nullptr;
        ASSERT_EQ(tcgen_writer_create(path.c_str(), level, block_bytes, header.data(), header.size(), &writer), TCGEN_OK)
            << tcgen_writer_error(writer);
        const void* columns[] = {pcs_.data(), values_.data()};
        // In two calls, the second across block boundaries.
        ASSERT_EQ(tcgen_writer_append_columns(writer, columns, 1000), TCGEN_OK) << tcgen_writer_error(writer);
        const void* rest[] = {pcs_.data() + 1000, values_.data() + 1000};
        ASSERT_EQ(tcgen_writer_append_columns(writer, rest, records - 1000), TCGEN_OK);
        EXPECT_EQ(tcgen_writer_records(writer), records);
        ASSERT_EQ(tcgen_writer_close(writer), TCGEN_OK) << tcgen_writer_error(writer);
        tcgen_writer_free(writer);
    }

    // Reads every record of `reader` a block at a time, checking them.
    void expect_records(tcgen_reader* reader) {
        std::vector<std::uint32_t> pcs;
        std::vector<std::uint64_t> values;
        for (;;) {
            std::uint64_t block = 0;
            ASSERT_EQ(tcgen_reader_block_records(reader, &block), TCGEN_OK) << tcgen_reader_error(reader);
            if (block == 0) {
                break;
            }
            const std::size_t at = pcs.size();
            pcs.resize(at + block);
            values.resize(at + block);
            void* columns[] = {pcs.data() + at, values.data() + at};
            std::size_t read = 0;
            ASSERT_EQ(tcgen_reader_read_columns(reader, columns, block, &read), TCGEN_OK) << tcgen_reader_error(reader);
            ASSERT_EQ(read, block);
            // Mid-file, while the next block is read ahead: the trailer is
            // read without disturbing it.
            std::uint64_t count = 0;
            ASSERT_EQ(tcgen_reader_record_count(reader, &count), TCGEN_OK) << tcgen_reader_error(reader);
            EXPECT_EQ(count, records);
        }
        EXPECT_EQ(pcs, pcs_);
        EXPECT_EQ(values, values_);
        EXPECT_EQ(tcgen_reader_position(reader), records);
    }

    std::vector<std::uint8_t> bytes_of(const fs::path& path) const {
        std::ifstream in(path, std::ios::binary);
        return std::vector<std::uint8_t>(std::istreambuf_iterator<char>(in), {});
    }

    void save(const fs::path& path, const std::vector<std::uint8_t>& bytes) const {
        std::ofstream out(path, std::ios::binary);
        out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
    }

    // The status and message of reading all of `path`.
    std::pair<int, std::string> read_all(const fs::path& path) const {
        tcgen_reader* reader = nullptr;
        int status = tcgen_reader_open(path.c_str(), &reader);
        std::vector<std::uint32_t> pcs(4096);
        void* columns[] = {pcs.data(), nullptr};
        std::size_t read = 1;
        while (status == TCGEN_OK && read > 0) {
            status = tcgen_reader_read_columns(reader, columns, pcs.size(), &read);
        }
        std::pair<int, std::string> result{status, tcgen_reader_error(reader)};
        tcgen_reader_free(reader);
        return result;
    }

    static constexpr std::uint32_t records = 200000;
    fs::path work_;
    std::vector<std::uint32_t> pcs_;
    std::vector<std::uint64_t> values_;
};

TEST_F(CAbi, DescribesTheSpec) {
    EXPECT_EQ(tcgen_codec_abi_version(), unsigned{TCGEN_CODEC_ABI_VERSION});
    EXPECT_STRNE(tcgen_codec_tcgen_version(), "");
    EXPECT_NE(std::string(tcgen_codec_spec_text()).find("64-Bit Field 2"), std::string::npos);
    EXPECT_NE(tcgen_codec_fingerprint(), 0u);
    EXPECT_EQ(tcgen_codec_record_bytes(), 12u);
    EXPECT_EQ(tcgen_codec_header_bytes(), 4u);
    ASSERT_EQ(tcgen_codec_field_count(), 2u);
    EXPECT_STREQ(tcgen_codec_field_name(0), "field_1");
    EXPECT_STREQ(tcgen_codec_field_name(1), "field_2");
    EXPECT_EQ(tcgen_codec_field_name(2), nullptr);
    EXPECT_EQ(tcgen_codec_field_bits(0), 32u);
    EXPECT_EQ(tcgen_codec_field_bits(1), 64u);
    EXPECT_EQ(tcgen_codec_field_bits(2), 0u);
    EXPECT_EQ(tcgen_codec_field_offset(1), 4u);
    EXPECT_STREQ(tcgen_codec_status_name(TCGEN_ERROR_INPUT), "TCGEN_ERROR_INPUT");
}

TEST_F(CAbi, ColumnsWrittenReadBackFromAFileAndFromMemory) {
    const fs::path path = work_ / "t.tcz";
    write(path);
    tcgen_reader* reader = nullptr;
    ASSERT_EQ(tcgen_reader_open(path.c_str(), &reader), TCGEN_OK) << tcgen_reader_error(reader);
    const std::uint8_t* bytes = nullptr;
    std::size_t size = 0;
    ASSERT_EQ(tcgen_reader_header(reader, &bytes, &size), TCGEN_OK);
    EXPECT_EQ(std::vector<std::uint8_t>(bytes, bytes + size), header);
    std::uint64_t count = 0;
    ASSERT_EQ(tcgen_reader_record_count(reader, &count), TCGEN_OK);
    EXPECT_EQ(count, records);
    expect_records(reader);
    ASSERT_EQ(tcgen_reader_record_count(reader, &count), TCGEN_OK);
    EXPECT_EQ(count, records);
    EXPECT_STREQ(tcgen_reader_error(reader), "");
    tcgen_reader_free(reader);

    const std::vector<std::uint8_t> file = bytes_of(path);
    ASSERT_EQ(tcgen_reader_open_memory(file.data(), file.size(), &reader), TCGEN_OK) << tcgen_reader_error(reader);
    expect_records(reader);
    tcgen_reader_free(reader);

    // Cut short, or two files one after the other: a count the trailer
    // at the end cannot vouch for.
    std::vector<std::uint8_t> twice = file;
    twice.insert(twice.end(), file.begin(), file.end());
    for (std::size_t size : {file.size() - 1, twice.size()}) {
        ASSERT_EQ(tcgen_reader_open_memory(twice.data(), size, &reader), TCGEN_OK) << tcgen_reader_error(reader);
        ASSERT_EQ(tcgen_reader_record_count(reader, &count), TCGEN_OK) << tcgen_reader_error(reader);
        EXPECT_EQ(count, TCGEN_UNKNOWN_RECORD_COUNT) << size;
        tcgen_reader_free(reader);
    }
}

TEST_F(CAbi, ReadsOnlyTheColumnsAskedFor) {
    const fs::path path = work_ / "t.tcz";
    write(path);
    tcgen_reader* reader = nullptr;
    ASSERT_EQ(tcgen_reader_open(path.c_str(), &reader), TCGEN_OK);
    std::vector<std::uint64_t> values(records + 10);
    void* columns[] = {nullptr, values.data()};
    std::size_t read = 0;
    ASSERT_EQ(tcgen_reader_read_columns(reader, columns, values.size(), &read), TCGEN_OK);
    EXPECT_EQ(read, records);
    values.resize(read);
    EXPECT_EQ(values, values_);
    tcgen_reader_free(reader);
}

TEST_F(CAbi, ATruncatedFileIsAnInputErrorWithTheCommandLinesMessage) {
    const fs::path path = work_ / "t.tcz";
    write(path);
    std::vector<std::uint8_t> bytes = bytes_of(path);
    for (std::size_t keep : {std::size_t{0}, std::size_t{5}, std::size_t{60}, bytes.size() / 2, bytes.size() - 1}) {
        std::vector<std::uint8_t> part(bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(keep));
        save(work_ / "cut.tcz", part);
        const auto [status, message] = read_all(work_ / "cut.tcz");
        EXPECT_EQ(status, TCGEN_ERROR_INPUT) << keep;
        if (keep == 0) {
            EXPECT_EQ(message, "not a .tcz file (empty input)");
        } else {
            EXPECT_EQ(message.rfind("truncated input: ", 0), 0u) << keep << ": " << message;
        }
        EXPECT_EQ(message.find('\n'), std::string::npos) << message;
    }
}

TEST_F(CAbi, ADamagedFileIsAnInputError) {
    const fs::path path = work_ / "t.tcz";
    write(path);
    std::vector<std::uint8_t> bytes = bytes_of(path);
    bytes[bytes.size() / 2] ^= 0x40;
    save(work_ / "bad.tcz", bytes);
    const auto [status, message] = read_all(work_ / "bad.tcz");
    EXPECT_EQ(status, TCGEN_ERROR_INPUT);
    EXPECT_NE(message.find("checksum mismatch"), std::string::npos) << message;

    const auto [missing_status, missing] = read_all(work_ / "missing.tcz");
    EXPECT_EQ(missing_status, TCGEN_ERROR_INPUT);
    EXPECT_EQ(missing.rfind("cannot open ", 0), 0u) << missing;
}

TEST_F(CAbi, CallsMadeWrongAreArgumentErrors) {
    tcgen_writer* writer = nullptr;
    EXPECT_EQ(tcgen_writer_create((work_ / "a.tcz").c_str(), 12, 0, header.data(), header.size(), &writer),
              TCGEN_ERROR_ARGUMENT);
    EXPECT_NE(std::string(tcgen_writer_error(writer)).find("level"), std::string::npos);
    tcgen_writer_free(writer);
    EXPECT_EQ(tcgen_writer_create((work_ / "a.tcz").c_str(), -1, 0, header.data(), 3, &writer), TCGEN_ERROR_ARGUMENT);
    EXPECT_STREQ(tcgen_writer_error(writer), "the header has 3 bytes, the spec's has 4");
    tcgen_writer_free(writer);
    EXPECT_FALSE(fs::exists(work_ / "a.tcz"));

    ASSERT_EQ(tcgen_writer_create((work_ / "a.tcz").c_str(), -1, 0, header.data(), header.size(), &writer), TCGEN_OK);
    ASSERT_EQ(tcgen_writer_close(writer), TCGEN_OK);
    const void* columns[] = {pcs_.data(), values_.data()};
    EXPECT_EQ(tcgen_writer_append_columns(writer, columns, 1), TCGEN_ERROR_ARGUMENT);
    tcgen_writer_free(writer);
    EXPECT_TRUE(fs::exists(work_ / "a.tcz"));

    EXPECT_EQ(tcgen_reader_open(nullptr, nullptr), TCGEN_ERROR_ARGUMENT);
    EXPECT_EQ(tcgen_reader_block_records(nullptr, nullptr), TCGEN_ERROR_ARGUMENT);
    EXPECT_STREQ(tcgen_reader_error(nullptr), "out of memory");
    tcgen_reader_free(nullptr);
    tcgen_writer_free(nullptr);
}

TEST_F(CAbi, AWriterFreedBeforeItsCloseLeavesNoFile) {
    tcgen_writer* writer = nullptr;
    ASSERT_EQ(tcgen_writer_create((work_ / "a.tcz").c_str(), 1, 0, header.data(), header.size(), &writer), TCGEN_OK);
    const void* columns[] = {pcs_.data(), nullptr};
    ASSERT_EQ(tcgen_writer_append_columns(writer, columns, 100), TCGEN_OK);
    tcgen_writer_free(writer);
    EXPECT_FALSE(fs::exists(work_ / "a.tcz"));
}

}  // namespace
