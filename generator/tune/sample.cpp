#include "generator/tune/sample.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <sys/stat.h>
#include <vector>

namespace tcgen::tune {

namespace {

struct FileCloser {
    void operator()(std::FILE* file) const { std::fclose(file); }
};
using File = std::unique_ptr<std::FILE, FileCloser>;

bool copy_range(std::FILE* in, std::FILE* out, std::uint64_t offset, std::uint64_t length) {
    if (fseeko(in, static_cast<off_t>(offset), SEEK_SET) != 0) {
        return false;
    }
    std::vector<char> buffer(1 << 20);
    while (length > 0) {
        std::size_t want = static_cast<std::size_t>(std::min<std::uint64_t>(length, buffer.size()));
        std::size_t got = std::fread(buffer.data(), 1, want, in);
        if (got != want || std::fwrite(buffer.data(), 1, got, out) != got) {
            return false;
        }
        length -= got;
    }
    return true;
}

}  // namespace

std::optional<SampleInfo> make_sample(const std::string& path, unsigned header_bytes, unsigned record_bytes,
                                      std::uint64_t cap_bytes, const std::string& sample_path,
                                      std::string& error) {
    const std::string quoted = "'" + path + "'";
    File in(std::fopen(path.c_str(), "rb"));
    struct stat status {};
    if (!in || fstat(fileno(in.get()), &status) != 0) {
        error = "cannot read the sample " + quoted + ": " + std::strerror(errno);
        return std::nullopt;
    }
    if (!S_ISREG(status.st_mode)) {
        error = "the sample " + quoted + " is not a regular file";
        return std::nullopt;
    }
    SampleInfo info;
    info.file_bytes = static_cast<std::uint64_t>(status.st_size);
    const std::uint64_t minimum = std::uint64_t{header_bytes} + record_bytes;
    if (info.file_bytes < minimum) {
        error = "the sample " + quoted + " has " + std::to_string(info.file_bytes) +
                " bytes, fewer than the header and one record (" + std::to_string(minimum) + ")";
        return std::nullopt;
    }
    File out(std::fopen(sample_path.c_str(), "wb"));
    if (!out) {
        error = "cannot write '" + sample_path + "': " + std::strerror(errno);
        return std::nullopt;
    }
    bool copied = true;
    if (info.file_bytes <= cap_bytes) {
        copied = copy_range(in.get(), out.get(), 0, info.file_bytes);
    } else {
        info.whole_file = false;
        const std::uint64_t records = (info.file_bytes - header_bytes) / record_bytes;
        const std::uint64_t wanted = std::max<std::uint64_t>(1, cap_bytes > header_bytes
                                                                    ? (cap_bytes - header_bytes) / record_bytes
                                                                    : 1);
        const std::uint64_t per_chunk = std::max<std::uint64_t>(1, wanted / sample_chunk_count);
        const std::uint64_t chunks = std::min<std::uint64_t>(sample_chunk_count, records / per_chunk);
        copied = copy_range(in.get(), out.get(), 0, header_bytes);
        for (std::uint64_t chunk = 0; copied && chunk < chunks; ++chunk) {
            // Evenly spaced starts, the first at record 0 and the last ending at the last record.
            const std::uint64_t start =
                chunks == 1 ? 0 : (records - per_chunk) * chunk / (chunks - 1);
            copied = copy_range(in.get(), out.get(), header_bytes + start * record_bytes, per_chunk * record_bytes);
        }
    }
    if (!copied || std::fflush(out.get()) != 0) {
        error = "cannot copy the sample " + quoted + " to '" + sample_path + "': " +
                (std::ferror(in.get()) ? std::strerror(errno) : "write failed");
        return std::nullopt;
    }
    info.sample_bytes = static_cast<std::uint64_t>(ftello(out.get()));
    return info;
}

}  // namespace tcgen::tune
