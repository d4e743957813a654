#pragma once
// The envelope of a saved bidirectional stream (docs/bidirectional.md): a
// magic, the format version, the fingerprint of the spec it was made for,
// the record count and the cursor's position; then each field; then an
// XXH64 of everything before it. A stream is refused, with the reason, when
// it is not one, is of another version or another spec, is corrupt, or has
// bytes after its end.

#include <cstdint>
#include <string>
#include <vector>

#include "runtime/bidirectional/saved_form.hpp"
#include "runtime/checksum.hpp"
#include "runtime/error.hpp"

namespace tcgen_runtime::bidirectional {

inline constexpr std::uint8_t saved_magic[4] = {'T', 'C', 'G', 'B'};
inline constexpr std::uint8_t saved_version = 1;
inline constexpr std::size_t saved_envelope_bytes = 4 + 1 + 8 + 8 + 8 + 8;

struct SavedPlace {
    std::uint64_t count = 0;
    std::uint64_t position = 0;
};

inline void begin_saved(ByteWriter& out, std::uint64_t fingerprint, SavedPlace place) {
    for (std::uint8_t byte : saved_magic) {
        out.put(byte);
    }
    out.put(saved_version);
    out.put(fingerprint);
    out.put(place.count);
    out.put(place.position);
}

inline std::vector<std::uint8_t> finish_saved(ByteWriter& out) {
    std::vector<std::uint8_t>& bytes = out.bytes();
    const std::uint64_t check = xxh64(bytes.data(), bytes.size(), 0);
    out.put(check);
    return std::move(bytes);
}

// Checks the envelope of `size` bytes for the spec `spec_name`, leaving
// `in` at the first field; the caller reads the fields and calls
// end_saved().
inline SavedPlace open_saved(const std::uint8_t* data, std::size_t size, std::uint64_t fingerprint,
                             const std::string& spec_name, ByteReader& in) {
    if (size < saved_envelope_bytes) {
        fail("not a bidirectional stream: " + std::to_string(size) + " bytes is too short");
    }
    for (std::size_t i = 0; i < 4; ++i) {
        if (data[i] != saved_magic[i]) {
            fail("not a bidirectional stream (no TCGB magic)");
        }
    }
    if (data[4] != saved_version) {
        fail("bidirectional stream format version " + std::to_string(data[4]) + "; this code reads version " +
             std::to_string(saved_version));
    }
    const std::uint64_t check = load_le64(data + size - 8);
    if (xxh64(data, size - 8, 0) != check) {
        fail("checksum mismatch: the stream is corrupt");
    }
    in = ByteReader(data, size - 8);
    in.get<std::uint32_t>();
    in.get<std::uint8_t>();
    const std::uint64_t stream_fingerprint = in.get<std::uint64_t>();
    if (stream_fingerprint != fingerprint) {
        fail("a stream of another spec (fingerprint " + hex64(stream_fingerprint) + "), not of " + spec_name +
             " (fingerprint " + hex64(fingerprint) + ")");
    }
    SavedPlace place;
    place.count = in.get<std::uint64_t>();
    place.position = in.get<std::uint64_t>();
    if (place.position > place.count) {
        fail("corrupt stream: position " + std::to_string(place.position) + " past its " +
             std::to_string(place.count) + " records");
    }
    return place;
}

inline void end_saved(const ByteReader& in) {
    if (in.remaining() != 0) {
        fail("corrupt stream: " + std::to_string(in.remaining()) + " bytes after its fields");
    }
}

}  // namespace tcgen_runtime::bidirectional
