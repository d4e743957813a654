// Every block's timestamps, held for lookups (block_times.hpp).

#include "wet/flow/block_times.hpp"

#include <algorithm>
#include <utility>

#include "wet/labels/grouping.hpp"

namespace tcgen::wet {
namespace {

std::size_t varint_bytes(std::uint32_t value) {
    std::size_t bytes = 1;
    for (; value >= 0x80; value >>= 7) {
        ++bytes;
    }
    return bytes;
}

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

BlockExecutions group_by_block(const std::uint32_t* flow, std::size_t executed, std::size_t blocks) {
    Grouping<std::uint32_t> by_block =
        group_items<std::uint32_t>(executed, blocks, [&](std::size_t index) { return flow[index]; });
    for (std::uint32_t& position : by_block.order) {
        ++position;  // the timestamp
    }
    return BlockExecutions{std::move(by_block.first), std::move(by_block.order)};
}

std::vector<std::uint32_t> BlockExecutions::times(std::size_t block) const {
    return std::vector<std::uint32_t>(order.begin() + static_cast<std::ptrdiff_t>(first[block]),
                                      order.begin() + static_cast<std::ptrdiff_t>(first[block + 1]));
}

BlockTimes::BlockTimes(const BlockExecutions& executions) {
    const std::size_t blocks = executions.first.size() - 1;
    counts_.resize(blocks);
    first_sample_.assign(blocks + 1, 0);
    first_byte_.assign(blocks + 1, 0);
    // Sizes first, then the bytes in place.
    for (std::size_t block = 0; block < blocks; ++block) {
        const std::size_t count = executions.first[block + 1] - executions.first[block];
        counts_[block] = static_cast<std::uint32_t>(count);
        std::size_t bytes = 0;
        for (std::size_t at = executions.first[block] + 1; at < executions.first[block + 1]; ++at) {
            bytes += varint_bytes(executions.order[at] - executions.order[at - 1]);
        }
        first_sample_[block + 1] = first_sample_[block] + (count + sample_every - 1) / sample_every;
        first_byte_[block + 1] = first_byte_[block] + bytes;
    }
    samples_.resize(first_sample_[blocks]);
    bytes_.resize(first_byte_[blocks]);
    for (std::size_t block = 0; block < blocks; ++block) {
        std::uint8_t* out = bytes_.data() + first_byte_[block];
        const std::uint8_t* const start = out;
        Sample* sample = samples_.data() + first_sample_[block];
        for (std::size_t at = executions.first[block]; at < executions.first[block + 1]; ++at) {
            const std::size_t index = at - executions.first[block];
            if (index % sample_every == 0) {
                *sample++ = Sample{executions.order[at], static_cast<std::uint32_t>(out - start)};
                continue;
            }
            for (std::uint32_t value = executions.order[at] - executions.order[at - 1];; value >>= 7) {
                if (value < 0x80) {
                    *out++ = static_cast<std::uint8_t>(value);
                    break;
                }
                *out++ = static_cast<std::uint8_t>(value | 0x80);
            }
        }
    }
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
