// Bytes held in memory or spilled to a temporary file (held_bytes.hpp).

#include "wet/labels/held_bytes.hpp"

#include <algorithm>
#include <cstring>
#include <stdexcept>

namespace tcgen::wet {

void HeldBytes::reserve(std::size_t bytes) {
    if (!blocks_.empty() && blocks_.back().bytes.capacity() - blocks_.back().bytes.size() >= bytes) {
        return;
    }
    if (spills()) {
        write_out();
    }
    const std::size_t usual =
        spills() ? block_bytes_
                 : static_cast<std::size_t>(std::clamp<std::uint64_t>(size_, least_block_bytes, block_bytes_));
    blocks_.push_back(Block{size_, {}});
    blocks_.back().bytes.reserve(std::max(bytes, usual));
}

void HeldBytes::shrink() {
    if (blocks_.empty()) {
        return;
    }
    std::vector<std::uint8_t>& last = blocks_.back().bytes;
    if (last.capacity() - last.size() > last.size() / 8) {
        last.shrink_to_fit();
    }
}

void HeldBytes::append(const std::uint8_t* data, std::size_t size) {
    if (size == 0) {
        return;
    }
    reserve(size);
    std::vector<std::uint8_t>& last = blocks_.back().bytes;
    last.insert(last.end(), data, data + size);
    size_ += size;
}

void HeldBytes::write_out() {
    if (blocks_.empty()) {
        return;
    }
    if (!file_) {
        file_ = std::make_unique<TemporaryFile>(beside_, "labels", holds_);
    }
    // (Several blocks only when bytes were held before spill() was called.)
    for (const Block& block : blocks_) {
        file_->write(block.start, block.bytes.data(), block.bytes.size());
        written_ = block.start + block.bytes.size();
    }
    blocks_.clear();
}

const HeldBytes::Block* HeldBytes::block_at(std::uint64_t at) const {
    const auto after = std::upper_bound(blocks_.begin(), blocks_.end(), at,
                                        [](std::uint64_t place, const Block& block) { return place < block.start; });
    if (after == blocks_.begin()) {
        return nullptr;
    }
    const Block& block = *(after - 1);
    return at - block.start < block.bytes.size() ? &block : nullptr;
}

void HeldBytes::read(std::uint64_t at, std::size_t size, std::uint8_t* out) const {
    if (at > size_ || size > size_ - at) {
        throw std::out_of_range("HeldBytes::read past the bytes held");
    }
    if (at < written_) {
        const std::size_t from_file = static_cast<std::size_t>(std::min<std::uint64_t>(size, written_ - at));
        file_->read(at, out, from_file);
        at += from_file;
        out += from_file;
        size -= from_file;
    }
    while (size > 0) {
        const Block& block = *block_at(at);
        const std::size_t offset = static_cast<std::size_t>(at - block.start);
        const std::size_t piece = std::min(size, block.bytes.size() - offset);
        std::memcpy(out, block.bytes.data() + offset, piece);
        at += piece;
        out += piece;
        size -= piece;
    }
}

const std::uint8_t* HeldBytes::view(std::uint64_t at, std::size_t size, std::vector<std::uint8_t>& scratch) const {
    if (const Block* block = at >= written_ ? block_at(at) : nullptr) {
        const std::size_t offset = static_cast<std::size_t>(at - block->start);
        if (size <= block->bytes.size() - offset) {
            return block->bytes.data() + offset;
        }
    }
    scratch.resize(size);
    read(at, size, scratch.data());
    return scratch.data();
}

void HeldBytes::write_to(ByteWriter& writer, std::uint64_t at, std::uint64_t size) const {
    std::vector<std::uint8_t> scratch;
    while (size > 0) {
        const std::size_t piece = static_cast<std::size_t>(std::min<std::uint64_t>(size, most_block_bytes));
        writer.bytes(view(at, piece, scratch), piece);
        at += piece;
        size -= piece;
    }
}

std::size_t HeldBytes::memory_bytes() const {
    std::size_t bytes = blocks_.capacity() * sizeof(Block);
    for (const Block& block : blocks_) {
        bytes += block.bytes.capacity();
    }
    return bytes;
}

}  // namespace tcgen::wet
