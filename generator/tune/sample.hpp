#pragma once
// The sample the candidates run on: the user's file, or, when it is larger
// than the cap, its header followed by `chunk_count` runs of whole records
// taken at evenly spaced places from its start to its end, so that one
// phase of a long program does not decide alone. Fields stay aligned: every
// run starts at a record boundary.

#include <cstdint>
#include <optional>
#include <string>

namespace tcgen::tune {

constexpr unsigned sample_chunk_count = 8;

struct SampleInfo {
    std::uint64_t file_bytes = 0;    // the user's file
    std::uint64_t sample_bytes = 0;  // what the candidates compress
    bool whole_file = true;
};

// Writes the sample of `path` to `sample_path`. Refuses (nothing returned,
// `error` a one-line reason) an unreadable file and one shorter than the
// header and one record.
std::optional<SampleInfo> make_sample(const std::string& path, unsigned header_bytes, unsigned record_bytes,
                                      std::uint64_t cap_bytes, const std::string& sample_path,
                                      std::string& error);

}  // namespace tcgen::tune
