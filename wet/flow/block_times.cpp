// Every block's timestamps, held for lookups (block_times.hpp).

#include "wet/flow/block_times.hpp"

#include <algorithm>
#include <utility>

namespace tcgen::wet {
namespace {

std::uint32_t read_varint(const std::uint8_t*& at) {
    std::uint32_t value = 0;
    for (unsigned shift = 0;; shift += 7) {
        const std::uint8_t byte = *at++;
        value |= static_cast<std::uint32_t>(byte & 0x7F) << shift;
        if (byte < 0x80) {
            return value;
        }
    }
}

}  // namespace

void BlockTimes::place() {
    const std::size_t blocks = counts_.size();
    for (std::size_t block = 0; block < blocks; ++block) {
        first_sample_[block + 1] = first_sample_[block] + (counts_[block] + sample_every - 1) / sample_every;
        first_byte_[block + 1] += first_byte_[block];  // it held the block's own bytes
    }
    samples_.resize(first_sample_[blocks]);
    bytes_.resize(first_byte_[blocks]);
    next_byte_.assign(first_byte_.begin(), first_byte_.end() - 1);
    written_.assign(blocks, 0);
    std::fill(last_.begin(), last_.end(), 0);
}

void BlockTimes::finish() {
    if (written_ != counts_) {
        throw std::logic_error("block times: the second walk visits fewer than the first");
    }
    last_ = std::vector<std::uint32_t>();
    written_ = std::vector<std::uint32_t>();
    next_byte_ = std::vector<std::size_t>();
}

std::uint64_t BlockTimes::count_below(std::uint32_t block, std::uint64_t t) const {
    const Sample* begin = samples_.data() + first_sample_[block];
    const Sample* end = samples_.data() + first_sample_[block + 1];
    // The last sample below t; none: no execution is.
    const Sample* sample =
        std::lower_bound(begin, end, t, [](const Sample& s, std::uint64_t value) { return s.t < value; });
    if (sample == begin) {
        return 0;
    }
    --sample;
    std::uint64_t index = static_cast<std::uint64_t>(sample - begin) * sample_every;
    const std::uint64_t last = std::min<std::uint64_t>(index + sample_every, counts_[block]);
    const std::uint8_t* at = bytes_.data() + first_byte_[block] + sample->offset;
    std::uint64_t time = sample->t;
    for (++index; index < last; ++index) {
        time += read_varint(at);
        if (time >= t) {
            break;
        }
    }
    return index;
}

std::uint32_t BlockTimes::at(std::uint32_t block, std::uint64_t index) const {
    const Sample& sample = samples_[first_sample_[block] + index / sample_every];
    const std::uint8_t* at = bytes_.data() + first_byte_[block] + sample.offset;
    std::uint32_t time = sample.t;
    for (std::uint64_t step = index % sample_every; step > 0; --step) {
        time += read_varint(at);
    }
    return time;
}

std::optional<std::uint64_t> BlockTimes::find(std::uint32_t block, std::uint64_t t) const {
    const std::uint64_t index = count_below(block, t);
    if (index < counts_[block] && at(block, index) == t) {
        return index;
    }
    return std::nullopt;
}

std::vector<std::uint32_t> BlockTimes::times(std::uint32_t block) const {
    std::vector<std::uint32_t> result(counts_[block]);
    const std::uint8_t* at = bytes_.data() + first_byte_[block];
    for (std::size_t index = 0; index < result.size(); ++index) {
        result[index] = index % sample_every == 0 ? samples_[first_sample_[block] + index / sample_every].t
                                                  : result[index - 1] + read_varint(at);
    }
    return result;
}

std::size_t BlockTimes::memory_bytes() const {
    return sizeof(*this) + counts_.capacity() * 4 +
           (first_sample_.capacity() + first_byte_.capacity()) * sizeof(std::size_t) +
           samples_.capacity() * sizeof(Sample) + bytes_.capacity();
}

}  // namespace tcgen::wet
