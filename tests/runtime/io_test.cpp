#include "runtime/io.hpp"

#include <csignal>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include <fcntl.h>
#include <unistd.h>

#include <gtest/gtest.h>

namespace tcgen_runtime {
namespace {

TEST(MemoryIo, SourceAndSink) {
    const std::vector<std::uint8_t> bytes = {1, 2, 3, 4, 5};
    MemorySource source(bytes);
    std::uint8_t buffer[3];
    EXPECT_EQ(source.read_up_to(buffer, 3), 3u);
    EXPECT_EQ(source.read_up_to(buffer, 3), 2u);
    EXPECT_EQ(buffer[1], 5);
    EXPECT_EQ(source.read_up_to(buffer, 3), 0u);
    MemorySink sink;
    sink.write(bytes.data(), 2);
    sink.write(bytes.data() + 4, 1);
    sink.flush();
    EXPECT_EQ(sink.bytes(), std::vector<std::uint8_t>({1, 2, 5}));
}

TEST(MemoryIo, ALookAheadSourceReadsItsFirstBytesAgain) {
    const std::vector<std::uint8_t> bytes = {1, 2, 3, 4, 5, 6, 7};
    MemorySource source(bytes);
    LookAheadSource ahead(source, 3);
    EXPECT_EQ(ahead.ahead(), std::vector<std::uint8_t>({1, 2, 3}));
    std::uint8_t buffer[5];
    EXPECT_EQ(ahead.read_up_to(buffer, 2), 2u);
    EXPECT_EQ(buffer[1], 2);
    EXPECT_EQ(ahead.read_up_to(buffer, 5), 5u);  // across the end of what was read ahead
    EXPECT_EQ(std::vector<std::uint8_t>(buffer, buffer + 5), std::vector<std::uint8_t>({3, 4, 5, 6, 7}));
    EXPECT_EQ(ahead.read_up_to(buffer, 5), 0u);
    MemorySource short_source(bytes.data(), 2);
    LookAheadSource short_ahead(short_source, 3);
    EXPECT_EQ(short_ahead.ahead().size(), 2u);
    EXPECT_EQ(short_ahead.read_up_to(buffer, 5), 2u);
}

TEST(FileIo, WritesThroughTheBufferAndReadsBack) {
    std::FILE* file = std::tmpfile();
    ASSERT_NE(file, nullptr);
    const int descriptor = fileno(file);
    std::vector<std::uint8_t> expected;
    {
        OutputFile output(descriptor);
        for (std::size_t round = 0; round < 50; ++round) {
            // Mix of small writes and writes larger than the buffer.
            const std::size_t size = round % 10 == 0 ? OutputFile::buffer_capacity + round : round * 1000;
            std::vector<std::uint8_t> chunk(size, static_cast<std::uint8_t>(round));
            output.write(chunk.data(), chunk.size());
            expected.insert(expected.end(), chunk.begin(), chunk.end());
        }
        output.flush();
    }
    ASSERT_EQ(::lseek(descriptor, 0, SEEK_SET), 0);
    InputFile input(descriptor);
    std::vector<std::uint8_t> actual(expected.size() + 10);
    EXPECT_EQ(input.read_up_to(actual.data(), actual.size()), expected.size());
    actual.resize(expected.size());
    EXPECT_EQ(actual, expected);
    std::fclose(file);
}

TEST(FileIo, ReadsAcrossPipeChunks) {
    int ends[2];
    ASSERT_EQ(::pipe(ends), 0);
    const std::uint8_t first[] = {1, 2, 3};
    ASSERT_EQ(::write(ends[1], first, 3), 3);
    ASSERT_EQ(::write(ends[1], first, 2), 2);
    ::close(ends[1]);
    InputFile input(ends[0]);
    std::uint8_t buffer[10];
    EXPECT_EQ(input.read_up_to(buffer, 4), 4u);
    EXPECT_EQ(input.read_up_to(buffer, 4), 1u);
    EXPECT_EQ(input.read_up_to(buffer, 4), 0u);
    ::close(ends[0]);
}

TEST(FileIo, ReadErrorIsReported) {
    const int descriptor = ::open("/", O_RDONLY);
    ASSERT_GE(descriptor, 0);
    InputFile input(descriptor);
    std::uint8_t buffer[4];
    try {
        input.read_up_to(buffer, 4);
        FAIL() << "no error";
    } catch (const Error& error) {
        EXPECT_STREQ(error.what(), "read error: Is a directory");
    }
    ::close(descriptor);
}

TEST(FileIo, BrokenPipeIsAnErrorNotASignal) {
    std::signal(SIGPIPE, SIG_IGN);
    int ends[2];
    ASSERT_EQ(::pipe(ends), 0);
    ::close(ends[0]);
    OutputFile output(ends[1]);
    const std::uint8_t byte = 0;
    output.write(&byte, 1);
    try {
        output.flush();
        FAIL() << "no error";
    } catch (const Error& error) {
        EXPECT_STREQ(error.what(), "write error: Broken pipe");
    }
    ::close(ends[1]);
}

TEST(FileIo, FullDiskIsReported) {
    const int descriptor = ::open("/dev/full", O_WRONLY);
    if (descriptor < 0) {
        GTEST_SKIP() << "no /dev/full";
    }
    OutputFile output(descriptor);
    const std::uint8_t byte = 0;
    output.write(&byte, 1);
    EXPECT_THROW(output.flush(), Error);
    ::close(descriptor);
}

}  // namespace
}  // namespace tcgen_runtime
