#pragma once
// What every stream back-end's decoder shares: the output buffer grows as
// output arrives (doubling, never beyond the size the file claims), so that
// memory follows what the data really holds, not what a header says; and the
// checks, with their messages, that the data decodes to exactly the claimed
// size with nothing left over on either side.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "error.hpp"

namespace tcgen_runtime {

// Zero compressed bytes always mean an empty buffer, in every back-end.
// Returns true when both sides are empty and there is nothing to decode.
inline bool check_empty_buffers(std::size_t input_size, std::size_t expected_size, const std::string& name) {
    if (input_size == 0 && expected_size == 0) {
        return true;
    }
    if (input_size == 0) {
        fail("corrupt input: " + name + " is empty but should hold " + std::to_string(expected_size) + " bytes");
    }
    if (expected_size == 0) {
        fail("corrupt input: " + name + " should be empty but has " + std::to_string(input_size) + " compressed bytes");
    }
    return false;
}

// Runs `decoder` until its stream ends, into `out` (replacing its contents),
// which must come to exactly expected_size bytes. The decoder has
//   bool step(std::uint8_t* output, std::size_t room, std::size_t& written)
// which decodes into at most `room` bytes and returns whether the stream has
// ended (throwing on invalid data); it stops short of filling the room only
// at the end of the stream or of its input. Its
//   std::size_t input_left() const
// tells how many input bytes it has not consumed. `format` names the format
// in messages ("bzip2"), `name` the data ("stream 'codes' of block 3").
template <class Decoder>
void decode_growing(Decoder& decoder, std::vector<std::uint8_t>& out, std::size_t expected_size,
                    const std::string& name, std::string_view format) {
    constexpr std::size_t first_size = std::size_t{1} << 16;
    out.clear();
    std::size_t produced = 0;
    bool ended = false;
    while (!ended) {
        if (produced == expected_size) {
            // The output is full but the stream has not ended: either more
            // output follows or the input stops short. One spare byte tells.
            std::uint8_t spare = 0;
            std::size_t written = 0;
            ended = decoder.step(&spare, 1, written);
            if (written != 0) {
                fail("corrupt input: " + name + " decompresses to more than " + std::to_string(expected_size) +
                     " bytes");
            }
            break;
        }
        if (produced == out.size()) {
            out.resize(std::min(expected_size, std::max(first_size, 2 * out.size())));
        }
        std::size_t written = 0;
        const std::size_t room = out.size() - produced;
        ended = decoder.step(out.data() + produced, room, written);
        produced += written;
        if (!ended && written < room) {
            break;  // all input consumed, output not full: the stream stops short
        }
    }
    if (!ended) {
        fail("corrupt input: " + name + " ends in the middle of the " + std::string(format) + " stream");
    }
    if (produced != expected_size) {
        fail("corrupt input: " + name + " decompresses to " + std::to_string(produced) + " bytes instead of " +
             std::to_string(expected_size));
    }
    out.resize(produced);
    if (decoder.input_left() != 0) {
        fail("corrupt input: " + name + " has " + std::to_string(decoder.input_left()) + " bytes after the end of its " +
             std::string(format) + " stream");
    }
}

}  // namespace tcgen_runtime
