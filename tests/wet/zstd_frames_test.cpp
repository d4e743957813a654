// Raw files kept as zstd frames (`wet run`'s, wet/format/zstd_frames.hpp):
// bytes written in any pieces read back from anywhere, the file a plain
// .zst that zstd itself decompresses; a raw trace whose files are frames
// reads and builds as the raw files do, refusals word for word; and
// corrupt, truncated or forged frames refused in one line.

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include <fcntl.h>
#include <gtest/gtest.h>

#include <tcgen/wet/raw_trace.hpp>
#include <tcgen/wet/whole_execution_trace.hpp>
#include "common/files.hpp"
#include "synthetic_wet.hpp"
#include "test_directory.hpp"
#include "wet/format/zstd_frames.hpp"
#include "wet_error_of.hpp"

namespace {

using tcgen::wet::RawTrace;
using tcgen::wet::WholeExecutionTrace;
using tcgen::wet::ZstdFramesReader;
using tcgen::wet::ZstdFramesWriter;
using tcgen_test::Directory;
using tcgen_test::wet_error_of;

// Bytes that compress some: runs of a few values, with noise.
std::vector<std::uint8_t> sample_bytes(std::size_t size, std::uint32_t seed) {
    std::mt19937 random(seed);
    std::vector<std::uint8_t> bytes(size);
    for (std::size_t at = 0; at < size; ++at) {
        bytes[at] = random() % 16 == 0 ? static_cast<std::uint8_t>(random()) : static_cast<std::uint8_t>(at / 64);
    }
    return bytes;
}

void write_frames(const std::string& name, const std::vector<std::uint8_t>& bytes) {
    ZstdFramesWriter writer(name);
    writer.write(bytes.data(), bytes.size());
    writer.finish();
}

ZstdFramesReader open_frames(const std::string& name) {
    return ZstdFramesReader(name, tcgen_runtime::Descriptor(::open(name.c_str(), O_RDONLY | O_CLOEXEC)));
}

std::vector<std::uint8_t> file_bytes(const std::string& name) {
    return tcgen::read_whole_file(name);
}

void put_file(const std::string& name, const std::vector<std::uint8_t>& bytes) {
    synthetic_wet::write_file(name, std::string(bytes.begin(), bytes.end()));
}

// A one-frame zstd file of `bytes`, as ZSTD_compress writes it (its size
// said) or as a stream whose size was not known (not said).
std::vector<std::uint8_t> one_frame(const std::vector<std::uint8_t>& bytes, bool size_said) {
    std::vector<std::uint8_t> packed(ZSTD_compressBound(bytes.size()));
    std::size_t size = 0;
    if (size_said) {
        size = ZSTD_compress(packed.data(), packed.size(), bytes.data(), bytes.size(), 1);
    } else {
        ZSTD_CStream* stream = ZSTD_createCStream();
        // Given in two parts, the first not the end: the size is not known.
        ZSTD_inBuffer first{bytes.data(), bytes.size() / 2, 0};
        ZSTD_inBuffer rest{bytes.data() + bytes.size() / 2, bytes.size() - bytes.size() / 2, 0};
        ZSTD_outBuffer out{packed.data(), packed.size(), 0};
        ZSTD_compressStream2(stream, &out, &first, ZSTD_e_continue);
        std::size_t left = 0;
        do {
            left = ZSTD_compressStream2(stream, &out, &rest, ZSTD_e_end);
        } while (left != 0 && !ZSTD_isError(left));
        ZSTD_freeCStream(stream);
        size = out.pos;
    }
    EXPECT_FALSE(ZSTD_isError(size));
    packed.resize(size);
    return packed;
}

TEST(ZstdFrames, BytesWrittenInAnyPiecesAreReadFromAnywhere) {
    const Directory directory("zstd_frames_read");
    const std::string name = directory.path + "bytes.zst";
    const std::vector<std::uint8_t> bytes = sample_bytes(3 * ZstdFramesWriter::frame_bytes + 12345, 7);
    std::mt19937 random(3);
    {
        ZstdFramesWriter writer(name);
        for (std::size_t at = 0; at < bytes.size();) {
            const std::size_t piece = std::min<std::size_t>(bytes.size() - at, random() % 300000);
            writer.write(bytes.data() + at, piece);
            at += piece;
        }
        writer.finish();
        EXPECT_EQ(writer.size(), bytes.size());
    }
    const std::vector<std::uint8_t> packed = file_bytes(name);
    EXPECT_LT(packed.size(), bytes.size() / 2);
    // A plain .zst: zstd decompresses it whole, frame after frame.
    std::vector<std::uint8_t> unpacked(bytes.size());
    EXPECT_EQ(ZSTD_decompress(unpacked.data(), unpacked.size(), packed.data(), packed.size()), bytes.size());
    EXPECT_EQ(unpacked, bytes);

    const ZstdFramesReader reader = open_frames(name);
    ASSERT_EQ(reader.size(), bytes.size());
    for (int round = 0; round < 200; ++round) {
        const std::size_t from = random() % bytes.size();
        const std::size_t count = std::min<std::size_t>(bytes.size() - from, random() % (3 << 20));
        std::vector<std::uint8_t> read(count);
        reader.read(from, count, read.data());
        ASSERT_TRUE(std::equal(read.begin(), read.end(), bytes.begin() + static_cast<std::ptrdiff_t>(from)))
            << count << " bytes from " << from;
    }
    EXPECT_EQ(tcgen::wet::read_raw_bytes(name), bytes);
    put_file(name, bytes);  // not frames: read as they are
    EXPECT_EQ(tcgen::wet::read_raw_bytes(name), bytes);

    // An empty file, and one frame written by zstd itself.
    write_frames(name, {});
    const ZstdFramesReader empty = open_frames(name);
    EXPECT_EQ(empty.size(), 0U);
    empty.read(0, 0, nullptr);  // no bytes to read, no frame to find
    put_file(name, one_frame(bytes, true));
    EXPECT_EQ(tcgen::wet::read_raw_bytes(name), bytes);
}

// A raw trace whose files are all zstd frames reads, checks and builds as
// the raw files do (a piece at a time, `wet build`'s way, and whole), and
// is refused with the same words.
TEST(ZstdFrames, RawFilesAsFramesBuildTheSameWet) {
    const Directory directory("zstd_frames_raw");
    const std::string plain = directory.path + "plain";
    const std::string framed = directory.path + "framed";
    const RawTrace raw = synthetic_wet::make_trace(20000, 11);
    ASSERT_GT(raw.events.size() * 24, 2 * ZstdFramesWriter::frame_bytes) << "events in one frame";
    synthetic_wet::write_trace(raw, plain);
    synthetic_wet::write_trace(raw, framed);
    for (const char* kind : {".blocks", ".flow", ".nodes", ".events", ".edges", ".regs", ".syms"}) {
        const std::string name = framed + kind;
        if (std::filesystem::exists(name)) {
            write_frames(name, file_bytes(name));
        }
    }
    const std::vector<std::uint8_t> wet =
        WholeExecutionTrace::build_from_files(plain, directory.path + "p.wet").to_bytes();
    EXPECT_EQ(WholeExecutionTrace::build_from_files(framed, directory.path + "f.wet").to_bytes(), wet);
    EXPECT_EQ(WholeExecutionTrace::build(tcgen::wet::read_raw_trace(framed)).to_bytes(), wet);

    const synthetic_wet::RawFileBytes files = synthetic_wet::raw_file_bytes(raw);
    for (const std::string& bad : {std::string("WTE1") + files.events.substr(4),
                                   files.events.substr(0, files.events.size() - 5), std::string("WT")}) {
        synthetic_wet::write_file(plain + ".events", bad);
        write_frames(framed + ".events", std::vector<std::uint8_t>(bad.begin(), bad.end()));
        const std::string expected =
            wet_error_of([&] { WholeExecutionTrace::build_from_files(plain, directory.path + "p.wet"); });
        ASSERT_FALSE(expected.empty());
        const std::size_t name_end = expected.find(": error: ");
        ASSERT_NE(name_end, std::string::npos) << expected;
        EXPECT_EQ(wet_error_of([&] { WholeExecutionTrace::build_from_files(framed, directory.path + "f.wet"); }),
                  framed + expected.substr(plain.size()));
    }
}

TEST(ZstdFrames, CorruptTruncatedOrForgedFramesAreRefusedInOneLine) {
    const Directory directory("zstd_frames_bad");
    const std::string name = directory.path + "bytes.zst";
    const std::vector<std::uint8_t> bytes = sample_bytes(2 * ZstdFramesWriter::frame_bytes + 999, 5);
    write_frames(name, bytes);
    const std::vector<std::uint8_t> good = file_bytes(name);
    const auto refusal = [&](const std::vector<std::uint8_t>& file) {
        put_file(name, file);
        return wet_error_of([&] {
            const ZstdFramesReader reader = open_frames(name);
            std::vector<std::uint8_t> read(reader.size());
            reader.read(0, read.size(), read.data());
        });
    };
    const std::string start = name + ": error: truncated or corrupt zstd frames: ";
    EXPECT_EQ(refusal(good), "");

    // A byte changed inside the second frame's compressed blocks: zstd's
    // checksum or its structure.
    std::vector<std::uint8_t> changed = good;
    const std::size_t first_frame = ZSTD_findFrameCompressedSize(good.data(), good.size());
    changed[first_frame + (good.size() - first_frame) / 4] ^= 0x40;
    const std::string corrupt = refusal(changed);
    EXPECT_EQ(corrupt.rfind(start, 0), 0U) << corrupt;
    EXPECT_EQ(corrupt.find('\n'), std::string::npos) << corrupt;

    // Cut anywhere inside a frame.
    for (const std::size_t cut :
         {std::size_t{2}, std::size_t{7}, first_frame - 1, first_frame + 100, good.size() - 3}) {
        const std::string truncated =
            refusal(std::vector<std::uint8_t>(good.begin(), good.begin() + static_cast<std::ptrdiff_t>(cut)));
        EXPECT_EQ(truncated.rfind(start, 0), 0U) << "cut at " << cut << ": " << truncated;
    }

    // Frames zstd writes that wet does not read: a size not said, a frame
    // over 64 MiB, a small frame before another.
    EXPECT_EQ(
        refusal(one_frame(bytes, false)),
        start + "at byte 0, a frame that does not say its size (wet reads frames that do, as wet run writes them)");
    std::vector<std::uint8_t> small = one_frame(std::vector<std::uint8_t>(100, 1), true);
    std::vector<std::uint8_t> two = small;
    two.insert(two.end(), good.begin(), good.end());
    EXPECT_EQ(refusal(two), start + "at byte 0, a frame of 100 bytes before the last (at least 65536)");
    std::vector<std::uint8_t> huge =
        one_frame(std::vector<std::uint8_t>(ZstdFramesReader::max_frame_bytes + 1, 0), true);
    EXPECT_EQ(refusal(huge), start + "at byte 0, a frame of 67108865 bytes (at most 67108864)");

    // A frame whose header says more bytes than it holds.
    std::vector<std::uint8_t> lying = one_frame(std::vector<std::uint8_t>(1000, 3), true);
    ZSTD_frameHeader header{};
    ASSERT_EQ(ZSTD_getFrameHeader(&header, lying.data(), lying.size()), 0U);
    ++lying[header.headerSize - 1];  // the size, last in the header: its high byte
    ASSERT_EQ(ZSTD_getFrameHeader(&header, lying.data(), lying.size()), 0U);
    ASSERT_GT(header.frameContentSize, 1000U);
    const std::string said = refusal(lying);
    EXPECT_EQ(said.rfind(start + "the frame at byte 0 ", 0), 0U) << said;
}

}  // namespace
