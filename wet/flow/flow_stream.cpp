// The control flow as successor ranks in zstd frames (flow_stream.hpp).

#include "wet/flow/flow_stream.hpp"

#include <cstring>
#include <optional>
#include <stdexcept>
#include <unordered_map>
#include <utility>

#include "runtime/byte_order.hpp"
#include "runtime/task_pool.hpp"
#include "runtime/zstd_codec.hpp"
#include "wet/flow/flow_pass.hpp"
#include "wet/labels/byte_planes.hpp"

namespace tcgen::wet {

namespace {

// The rank byte that says "this block is given in full, as an exception".
constexpr std::uint8_t exception_rank = 255;
constexpr std::size_t max_successors = exception_rank;

void append_u32(std::vector<std::uint8_t>& bytes, std::uint32_t value) {
    for (int k = 0; k < 4; ++k) {
        bytes.push_back(static_cast<std::uint8_t>(value >> (8 * k)));
    }
}

std::uint64_t checkpoints_in(std::uint64_t records, std::uint64_t checkpoint_records) {
    return (records + checkpoint_records - 1) / checkpoint_records;
}

}  // namespace

std::uint32_t FlowStream::Decoded::checkpoint_block(std::size_t index) const {
    return tcgen_runtime::load_le32(bytes.data() + 4 * index);
}
std::uint32_t FlowStream::Decoded::exception_position(std::size_t index) const {
    return tcgen_runtime::load_le32(bytes.data() + 4 * checkpoints + 4 + 8 * index);
}
std::uint32_t FlowStream::Decoded::exception_block(std::size_t index) const {
    return tcgen_runtime::load_le32(bytes.data() + 4 * checkpoints + 8 + 8 * index);
}

FlowStream FlowStream::build(const std::uint32_t* flow, std::uint64_t count, std::size_t blocks,
                             std::uint64_t checkpoint_records, std::uint64_t frame_records) {
    return build(flow_pass(flow, count), count, blocks, checkpoint_records, frame_records);
}

FlowStream FlowStream::build(const FlowPass& flow, std::uint64_t count, std::size_t blocks,
                             std::uint64_t checkpoint_records, std::uint64_t frame_records,
                             tcgen_runtime::TaskPool* pool) {
    FlowStream stream;
    stream.count_ = count;
    stream.blocks_ = blocks;
    stream.checkpoint_records_ = std::clamp<std::uint64_t>(checkpoint_records, 1, max_frame_records);
    const std::uint64_t spans = (std::min(frame_records, max_frame_records) + stream.checkpoint_records_ - 1) /
                                stream.checkpoint_records_;
    stream.frame_records_ = stream.checkpoint_records_ * std::max<std::uint64_t>(spans, 1);

    // The successor table: each block's successors by how often they follow
    // it (ties by id, so that a build is deterministic), the first 255 kept.
    std::unordered_map<std::uint64_t, std::uint64_t> transitions;
    std::uint32_t previous = 0;
    each_block(flow, [&](std::uint64_t t, std::uint32_t block) {
        // A flow read again from its file must be the one checked.
        if (t > count || block >= blocks) {
            throw std::invalid_argument("the flow changed while it was read");
        }
        if (t >= 2) {
            ++transitions[std::uint64_t{previous} << 32 | block];
        }
        previous = block;
    });
    std::vector<std::vector<std::pair<std::uint64_t, std::uint32_t>>> followers(blocks);
    for (const auto& [pair, times] : transitions) {
        followers[pair >> 32].push_back({times, static_cast<std::uint32_t>(pair)});
    }
    std::unordered_map<std::uint64_t, std::uint8_t> rank_of;
    rank_of.reserve(transitions.size());
    stream.first_.assign(blocks + 1, 0);
    std::vector<std::uint8_t> table;
    for (std::size_t block = 0; block < blocks; ++block) {
        auto& list = followers[block];
        std::sort(list.begin(), list.end(), [](const auto& a, const auto& b) {
            return a.first != b.first ? a.first > b.first : a.second < b.second;
        });
        list.resize(std::min(list.size(), max_successors));
        append_u32(table, static_cast<std::uint32_t>(list.size()));
        for (std::size_t rank = 0; rank < list.size(); ++rank) {
            rank_of[std::uint64_t{block} << 32 | list[rank].second] = static_cast<std::uint8_t>(rank);
            stream.successors_.push_back(list[rank].second);
            append_u32(table, list[rank].second);
        }
        stream.first_[block + 1] = static_cast<std::uint32_t>(stream.successors_.size());
    }
    stream.saved_table_ = tcgen_runtime::zstd_frame(table, level);

    // The frames, each of frame_records_ records (the last of the rest): its
    // checkpoints' blocks, its exceptions and its ranks, made as the flow
    // passes, compressed a batch of frames at a time.
    std::vector<std::uint8_t> checkpoints;
    std::vector<std::uint8_t> exceptions;
    std::vector<std::uint8_t> ranks;
    std::uint32_t exception_count = 0;
    const std::size_t batch_frames = pool != nullptr ? 4 * std::size_t{pool->threads()} : 1;
    std::vector<std::vector<std::uint8_t>> batch;  // frames' bytes, not yet compressed
    const auto compress_batch = [&] {
        const std::size_t first = stream.frames_->size();
        stream.frames_->resize(first + batch.size());
        const auto compress = [&](std::size_t index) {
            std::vector<std::uint8_t>& frame = (*stream.frames_)[first + index];
            frame = tcgen_runtime::zstd_frame(batch[index], level);
            frame.shrink_to_fit();  // kept: not at its bound's size (byte_planes::compress)
        };
        tcgen_runtime::TaskPool::run(pool, batch.size(), compress);
        batch.clear();
    };
    const auto end_frame = [&] {
        std::vector<std::uint8_t> bytes = std::move(checkpoints);
        append_u32(bytes, exception_count);
        bytes.insert(bytes.end(), exceptions.begin(), exceptions.end());
        bytes.insert(bytes.end(), ranks.begin(), ranks.end());
        batch.push_back(std::move(bytes));
        if (batch.size() == batch_frames) {
            compress_batch();
        }
        checkpoints.clear();
        exceptions.clear();
        ranks.clear();
        exception_count = 0;
    };
    each_block(flow, [&](std::uint64_t t, std::uint32_t block) {
        if (t > count || block >= blocks) {
            throw std::invalid_argument("the flow changed while it was read");
        }
        const std::uint64_t at = (t - 1) % stream.frame_records_;
        if (at % stream.checkpoint_records_ == 0) {
            append_u32(checkpoints, block);
            ranks.push_back(0);
        } else {
            const auto found = rank_of.find(std::uint64_t{previous} << 32 | block);
            if (found != rank_of.end()) {
                ranks.push_back(found->second);
            } else {
                ranks.push_back(exception_rank);
                append_u32(exceptions, static_cast<std::uint32_t>(at));
                append_u32(exceptions, block);
                ++exception_count;
            }
        }
        previous = block;
        if (at + 1 == stream.frame_records_ || t == count) {
            end_frame();
        }
    });
    compress_batch();
    if (stream.frames_->size() != (count + stream.frame_records_ - 1) / stream.frame_records_) {
        throw std::invalid_argument("the flow changed while it was read");
    }
    return stream;
}

void FlowStream::save(ByteWriter& writer) const {
    writer.u64(count_);
    writer.u64(checkpoint_records_);
    writer.u64(frame_records_);
    writer.blob(saved_table_);
    for (const auto& frame : *frames_) {
        writer.blob(frame);
    }
}

std::uint64_t FlowStream::saved_bytes() const {
    std::uint64_t bytes = 32 + saved_table_.size();
    for (const auto& frame : *frames_) {
        bytes += 8 + frame.size();
    }
    return bytes;
}

FlowStream FlowStream::load(ByteReader& reader, std::size_t blocks) {
    FlowStream stream;
    stream.blocks_ = blocks;
    stream.count_ = reader.u64();
    stream.checkpoint_records_ = reader.u64();
    stream.frame_records_ = reader.u64();
    if (stream.count_ == 0 || stream.checkpoint_records_ == 0 || stream.frame_records_ == 0 ||
        stream.frame_records_ % stream.checkpoint_records_ != 0 || stream.frame_records_ > max_frame_records) {
        reader.fail("control flow: " + std::to_string(stream.count_) + " timestamps in frames of " +
                    std::to_string(stream.frame_records_) + " with a checkpoint every " +
                    std::to_string(stream.checkpoint_records_));
    }

    // The successor table: no more than 255 successors per block.
    const std::uint64_t table_size = reader.u64();
    const std::uint8_t* table_bytes = reader.bytes(table_size);
    const std::optional<std::uint64_t> stated_size =
        tcgen_runtime::zstd_frame_content_size(table_bytes, static_cast<std::size_t>(table_size));
    const std::uint64_t most = 4 * std::uint64_t{blocks} * (1 + max_successors);
    if (!stated_size || *stated_size > most) {
        reader.fail("control flow: a successor table that does not state a size up to " + std::to_string(most));
    }
    const std::uint64_t stated = *stated_size;
    std::vector<std::uint8_t> table(static_cast<std::size_t>(stated));
    if (!tcgen_runtime::zstd_unframe(table_bytes, static_cast<std::size_t>(table_size), table.data(), stated)) {
        reader.fail("control flow: the successor table is corrupt");
    }
    stream.saved_table_.assign(table_bytes, table_bytes + table_size);
    stream.first_.assign(blocks + 1, 0);
    std::size_t at = 0;
    for (std::size_t block = 0; block < blocks; ++block) {
        const std::uint32_t successors =
            at + 4 <= table.size() ? tcgen_runtime::load_le32(table.data() + at) : UINT32_MAX;
        if (successors > max_successors || at + 4 + 4 * std::size_t{successors} > table.size()) {
            reader.fail("control flow: the successor table ends in block " + std::to_string(block));
        }
        at += 4;
        for (std::uint32_t rank = 0; rank < successors; ++rank, at += 4) {
            const std::uint32_t successor = tcgen_runtime::load_le32(table.data() + at);
            if (successor >= blocks) {
                reader.fail("control flow: block " + std::to_string(block) + "'s successor " +
                            std::to_string(successor) + " is no block");
            }
            stream.successors_.push_back(successor);
        }
        stream.first_[block + 1] = static_cast<std::uint32_t>(stream.successors_.size());
    }
    if (at != table.size()) {
        reader.fail("control flow: " + std::to_string(table.size() - at) + " bytes after the successor table");
    }

    // Each frame takes 9 bytes at least: no more frames than the bytes left hold.
    const std::uint64_t frames = (stream.count_ - 1) / stream.frame_records_ + 1;
    if (frames > reader.remaining() / 9) {
        reader.fail("control flow: " + std::to_string(frames) + " frames claimed, " +
                    std::to_string(reader.remaining()) + " bytes are left");
    }
    stream.frames_->resize(static_cast<std::size_t>(frames));
    Decoded decoded;
    for (std::size_t frame = 0; frame < stream.frames_->size(); ++frame) {
        const std::uint64_t size = reader.u64();
        const std::uint8_t* bytes = reader.bytes(size);
        (*stream.frames_)[frame].assign(bytes, bytes + size);
        try {
            stream.decode(frame, decoded);
        } catch (const std::runtime_error& error) {
            reader.fail(std::string("control flow: ") + error.what());
        }
    }
    return stream;
}

FlowStream FlowStream::fork() const {
    FlowStream forked;
    forked.count_ = count_;
    forked.checkpoint_records_ = checkpoint_records_;
    forked.frame_records_ = frame_records_;
    forked.blocks_ = blocks_;
    forked.first_ = first_;
    forked.successors_ = successors_;
    forked.saved_table_ = saved_table_;
    forked.frames_ = frames_;
    return forked;
}

std::uint64_t FlowStream::frame_length(std::size_t frame) const {
    return std::min(frame_records_, count_ - frame * frame_records_);
}

void FlowStream::decode(std::size_t frame, Decoded& decoded) const {
    decoded.frame = SIZE_MAX;  // until it is whole
    const std::string where = "frame " + std::to_string(frame);
    const std::uint64_t records = frame_length(frame);
    const std::uint64_t checkpoints = checkpoints_in(records, checkpoint_records_);
    const std::vector<std::uint8_t>& saved = (*frames_)[frame];
    const std::optional<std::uint64_t> stated_size = tcgen_runtime::zstd_frame_content_size(saved.data(), saved.size());
    const std::uint64_t fixed = 4 * checkpoints + 4 + records;
    if (!stated_size || *stated_size < fixed || *stated_size > fixed + 8 * records || (*stated_size - fixed) % 8 != 0) {
        throw std::runtime_error(where + " does not state the size of " + std::to_string(records) + " timestamps");
    }
    const std::uint64_t stated = *stated_size;
    decoded.bytes.resize(static_cast<std::size_t>(stated));
    if (!tcgen_runtime::zstd_unframe(saved.data(), saved.size(), decoded.bytes.data(), stated)) {
        throw std::runtime_error(where + " is corrupt");
    }
    decoded.records = records;
    decoded.checkpoints = static_cast<std::size_t>(checkpoints);
    decoded.exceptions = static_cast<std::size_t>((stated - fixed) / 8);
    if (tcgen_runtime::load_le32(decoded.bytes.data() + 4 * checkpoints) != decoded.exceptions) {
        throw std::runtime_error(where + " miscounts its exceptions");
    }
    for (std::size_t index = 0; index < decoded.checkpoints; ++index) {
        if (decoded.checkpoint_block(index) >= blocks_) {
            throw std::runtime_error(where + ": checkpoint " + std::to_string(index) + " names block " +
                                     std::to_string(decoded.checkpoint_block(index)));
        }
    }
    // Every rank byte 255 off a checkpoint has its exception, in order.
    const std::uint8_t* ranks = decoded.ranks();
    const std::uint8_t* end = ranks + records;
    std::size_t next = 0;
    for (const std::uint8_t* found = ranks;
         (found = static_cast<const std::uint8_t*>(std::memchr(found, exception_rank, static_cast<std::size_t>(end - found)))) != nullptr;
         ++found) {
        const auto at = static_cast<std::uint64_t>(found - ranks);
        if (at % checkpoint_records_ == 0) {
            continue;
        }
        if (next == decoded.exceptions || decoded.exception_position(next) != at ||
            decoded.exception_block(next) >= blocks_) {
            throw std::runtime_error(where + ": the block at position " + std::to_string(at) + " is missing");
        }
        ++next;
    }
    if (next != decoded.exceptions) {
        throw std::runtime_error(where + " has " + std::to_string(decoded.exceptions - next) + " exceptions too many");
    }
    decoded.frame = frame;
}

void FlowStream::walk_span(const Decoded& decoded, std::size_t index, std::vector<std::uint32_t>& span) const {
    const std::uint64_t start = index * checkpoint_records_;
    const std::uint64_t end = std::min(start + checkpoint_records_, decoded.records);
    span.resize(static_cast<std::size_t>(end - start));
    // The first exception past the checkpoint (positions increase).
    std::size_t low = 0;
    std::size_t high = decoded.exceptions;
    while (low < high) {
        const std::size_t middle = low + (high - low) / 2;
        if (decoded.exception_position(middle) < start) {
            low = middle + 1;
        } else {
            high = middle;
        }
    }
    std::size_t exception = low;
    const std::uint8_t* ranks = decoded.ranks();
    std::uint32_t block = decoded.checkpoint_block(index);
    span[0] = block;
    for (std::uint64_t at = start + 1; at < end; ++at) {
        const std::uint8_t rank = ranks[at];
        if (rank == exception_rank) {
            block = decoded.exception_block(exception++);
        } else {
            const std::uint32_t first = first_[block];
            if (rank >= first_[block + 1] - first) {
                throw std::runtime_error("frame " + std::to_string(decoded.frame) + ": rank " + std::to_string(rank) +
                                         " after block " + std::to_string(block) + ", which has " +
                                         std::to_string(first_[block + 1] - first) + " successors");
            }
            block = successors_[first + rank];
        }
        span[static_cast<std::size_t>(at - start)] = block;
    }
}

void FlowStream::enter(std::size_t frame, std::size_t index) {
    cursor_.entered = false;
    if (cursor_.decoded.frame != frame) {
        decode(frame, cursor_.decoded);
    }
    walk_span(cursor_.decoded, index, cursor_.span);
    cursor_.frame = frame;
    cursor_.index = index;
    cursor_.span_start = frame * frame_records_ + index * checkpoint_records_;
    cursor_.at = 0;
    cursor_.entered = true;
}

void FlowStream::seek(std::uint64_t position) {
    if (position > count_) {
        throw std::runtime_error("seek to record " + std::to_string(position) + " of a flow of " +
                                 std::to_string(count_));
    }
    if (frames_->empty()) {
        return;
    }
    const std::size_t frame =
        static_cast<std::size_t>(std::min<std::uint64_t>(position / frame_records_, frames_->size() - 1));
    const std::uint64_t local = position - frame * frame_records_;
    const std::uint64_t last = checkpoints_in(frame_length(frame), checkpoint_records_) - 1;
    const auto index = static_cast<std::size_t>(std::min(local / checkpoint_records_, last));
    // A slice asks for the blocks of nearby timestamps one after another:
    // within the span the cursor holds, a seek moves the cursor only.
    if (!cursor_.entered || cursor_.frame != frame || cursor_.index != index) {
        enter(frame, index);
    }
    cursor_.at = static_cast<std::size_t>(position - cursor_.span_start);
}

bool FlowStream::next(std::uint32_t& block) {
    if (frames_->empty()) {
        return false;
    }
    if (!cursor_.entered) {
        enter(0, 0);
    }
    if (cursor_.at == cursor_.span.size()) {
        if (cursor_.index + 1 < checkpoints_in(frame_length(cursor_.frame), checkpoint_records_)) {
            enter(cursor_.frame, cursor_.index + 1);
        } else if (cursor_.frame + 1 < frames_->size()) {
            enter(cursor_.frame + 1, 0);
        } else {
            return false;
        }
    }
    block = cursor_.span[cursor_.at++];
    return true;
}

bool FlowStream::prev(std::uint32_t& block) {
    if (frames_->empty()) {
        return false;
    }
    if (!cursor_.entered) {
        enter(0, 0);
    }
    if (cursor_.at == 0) {
        if (cursor_.index > 0) {
            enter(cursor_.frame, cursor_.index - 1);
        } else if (cursor_.frame > 0) {
            const std::size_t frame = cursor_.frame - 1;
            enter(frame, static_cast<std::size_t>(checkpoints_in(frame_length(frame), checkpoint_records_) - 1));
        } else {
            return false;
        }
        cursor_.at = cursor_.span.size();
    }
    block = cursor_.span[--cursor_.at];
    return true;
}

std::size_t FlowStream::memory_bytes() const {
    std::size_t bytes = sizeof(*this) + first_.capacity() * 4 + successors_.capacity() * 4 + saved_table_.capacity() +
                        frames_->capacity() * sizeof(std::vector<std::uint8_t>) + cursor_.decoded.bytes.capacity() +
                        cursor_.span.capacity() * 4;
    for (const auto& frame : *frames_) {
        bytes += frame.capacity();
    }
    return bytes;
}

}  // namespace tcgen::wet
