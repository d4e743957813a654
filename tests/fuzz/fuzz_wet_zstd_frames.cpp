// The reader of raw files kept as zstd frames (`wet run`'s temporaries,
// which `wet build` reads too; wet/format/zstd_frames.hpp) on any bytes:
// either a refusal (a WetError) or the bytes zstd's own streaming decoder
// gives for the same file, whichever way they are read (from the start, or
// in pieces from places the input chooses). Never a crash, a sanitizer
// report, another exception, or more memory than two frames' worth: the
// frames a few bytes can claim reach gigabytes, so only the first
// `compared` bytes are compared.

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include <tcgen/wet/raw_trace.hpp>

#include "fuzz_support.hpp"
#include "runtime/files.hpp"
#include "wet/format/zstd_frames.hpp"

namespace {

constexpr std::size_t compared = std::size_t{1} << 22;

// Up to `most` bytes of what zstd's streaming decoder makes of `data`, and
// whether it refused them first.
std::vector<std::uint8_t> zstd_decoded(const std::uint8_t* data, std::size_t size, std::size_t most, bool& refused) {
    std::vector<std::uint8_t> out(most);
    ZSTD_DStream* stream = ZSTD_createDStream();
    // The reader decodes a frame in one call, which has no window limit; the
    // stream's buffer is bounded by the frame's size (at most 64 MiB) anyway.
    ZSTD_DCtx_setParameter(stream, ZSTD_d_windowLogMax, ZSTD_WINDOWLOG_MAX_64);
    ZSTD_inBuffer in{data, size, 0};
    ZSTD_outBuffer got{out.data(), out.size(), 0};
    refused = false;
    while (got.pos < got.size && in.pos < in.size) {
        const std::size_t before = in.pos + got.pos;
        const std::size_t result = ZSTD_decompressStream(stream, &got, &in);
        if (ZSTD_isError(result)) {
            refused = true;
            break;
        }
        if (in.pos + got.pos == before) {
            break;  // the input ends inside a frame
        }
    }
    ZSTD_freeDStream(stream);
    out.resize(got.pos);
    return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    return tcgen_fuzz::run_input([&] {
        tcgen_runtime::Descriptor file(::memfd_create("frames", MFD_CLOEXEC));
        tcgen_fuzz::check(file.get() >= 0, "memfd_create failed");
        tcgen_fuzz::check(::write(file.get(), data, size) == static_cast<ssize_t>(size), "cannot write the input");
        try {
            const tcgen::wet::ZstdFramesReader reader("frames", std::move(file));
            const std::size_t first = static_cast<std::size_t>(std::min<std::uint64_t>(reader.size(), compared));
            std::vector<std::uint8_t> read(first);
            reader.read(0, first, read.data());
            bool refused = false;
            const std::vector<std::uint8_t> expected = zstd_decoded(data, size, first, refused);
            tcgen_fuzz::check(!refused && expected == read, "frames read are not what zstd decodes");
            // Pieces from places the input's last bytes choose.
            for (std::size_t at = 0; at + 8 <= std::min<std::size_t>(size, 64) && reader.size() > 0; at += 8) {
                std::uint64_t offset = 0;
                for (int byte = 0; byte < 6; ++byte) {
                    offset = offset << 8 | data[size - 1 - at - static_cast<std::size_t>(byte)];
                }
                offset %= reader.size();
                const std::size_t count = static_cast<std::size_t>(
                    std::min<std::uint64_t>(reader.size() - offset, 1 + data[size - 1 - at - 6] * 512));
                std::vector<std::uint8_t> piece(count);
                reader.read(offset, count, piece.data());
                if (offset + count <= first) {
                    tcgen_fuzz::check(
                        std::equal(piece.begin(), piece.end(), read.begin() + static_cast<std::ptrdiff_t>(offset)),
                        "a piece read differs from the same bytes read from the start");
                }
            }
        } catch (const tcgen::wet::WetError&) {
            // refused: fine
        }
    });
}
