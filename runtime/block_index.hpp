#pragma once
// Random access to a .tcz: the block index in its trailer (where each restart
// point's block starts), and readers that move to a restart point with it,
// so that an in-process Reader seeks without decoding the blocks before.
// A program that only reads from start to end (the command line) needs none
// of this.

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <tuple>
#include <utility>
#include <vector>

#include "byte_order.hpp"
#include "checksum.hpp"
#include "container_layout.hpp"
#include "container_reader.hpp"
#include "error.hpp"
#include "io.hpp"
#include "trace_reader.hpp"
#include "zeroed_memory.hpp"

namespace tcgen_runtime {

// A ContainerReader that can read the block index and resume at a restart
// point.
class IndexedContainerReader : public ContainerReader {
public:
    using ContainerReader::ContainerReader;

    // Random access (a source with a size, reading its first .tcz): the
    // block index, read from the trailer at the end of the file and verified
    // there. Nothing if the source is a stream or the trailer at its end does
    // not verify as this file's (a concatenation of files, say); the reader
    // then reads on sequentially, where every check is made as usual. The
    // read position is kept.
    std::optional<std::vector<std::uint64_t>> read_block_index() {
        std::optional<TrailerAtEnd> trailer = read_trailer_at_end();
        if (!trailer) {
            return std::nullopt;
        }
        return std::move(trailer->index);
    }

    // The same condition: the file's record count, from its trailer.
    std::optional<std::uint64_t> read_total_records() {
        const std::optional<TrailerAtEnd> trailer = read_trailer_at_end();
        if (!trailer) {
            return std::nullopt;
        }
        return trailer->total_records;
    }

    // With random access: the latest restart point at or before `block` of
    // this .tcz that has been read past already (where the block index is
    // not available), as {block, offset}; {0, 0} if none.
    std::pair<std::uint64_t, std::uint64_t> known_restart_before(std::uint64_t block) const {
        std::pair<std::uint64_t, std::uint64_t> found{0, 0};
        if (!source().size()) {
            return found;
        }
        for (const ObservedRestart& known : known_restarts()) {
            if (known.block <= block) {
                found = {known.block, known.offset};
            }
        }
        return found;
    }

    // Continues reading at block `block`, a restart point, which starts
    // `offset` bytes into the file (an entry of the block index), as if the
    // blocks before it had been read: the chain goes on from the check
    // stored just before the block.
    void resume_at_block(std::uint64_t block, std::uint64_t offset) {
        if (!tcz_restarts_at(block, preamble().restart_blocks) || offset < 8) {
            fail("internal error: cannot resume at block " + size_text(block));
        }
        source().seek(member_start() + offset - 8);
        std::array<std::uint8_t, 8> seed{};
        if (source().read_up_to(seed.data(), seed.size()) != seed.size()) {
            fail("truncated input: the block index points past the end of the file");
        }
        continue_at_block(block, offset, load_le<std::uint64_t>(seed.data()));
    }

private:
    // What the verified trailer at the end of the file says.
    struct TrailerAtEnd {
        std::vector<std::uint64_t> index;
        std::uint64_t total_records = 0;
    };

    std::optional<TrailerAtEnd> read_trailer_at_end() {
        using Layout = TczTrailerLayout;
        const std::optional<std::uint64_t> size = source().size();
        if (!size || member_start() != 0 || *size < Layout::fixed_bytes + 8) {
            return std::nullopt;
        }
        const std::uint64_t resume_at = source_position();
        std::optional<TrailerAtEnd> trailer = trailer_at_end(*size);
        source().seek(resume_at);
        return trailer;
    }

    // The trailer at the end of a file of `size` bytes, if it verifies as
    // the trailer of this file.
    std::optional<TrailerAtEnd> trailer_at_end(std::uint64_t size) {
        using Layout = TczTrailerLayout;
        std::array<std::uint8_t, Layout::AfterIndex::size> end{};
        source().seek(size - end.size());
        if (source().read_up_to(end.data(), end.size()) != end.size()) {
            return std::nullopt;
        }
        const std::uint64_t start = Layout::AfterIndex::trailer_offset.load(end.data());
        if (start < 8 || start > size - Layout::fixed_bytes) {
            return std::nullopt;
        }
        const std::uint64_t length = size - start;
        std::array<std::uint8_t, Layout::tail + 8> fixed{};  // the seed, then the fixed fields
        source().seek(start - 8);
        if (source().read_up_to(fixed.data(), fixed.size()) != fixed.size()) {
            return std::nullopt;
        }
        const std::uint8_t* const fields = fixed.data() + 8;
        const std::uint64_t tail_size = Layout::tail_size.load(fields);
        const std::uint64_t restart_count = Layout::restart_count.load(fields);
        if (Layout::tag.load(fields) != tcz_end_tag || tail_size >= preamble().record_bytes ||
            restart_count > length / Layout::restart_offset_bytes ||
            Layout::fixed_bytes + tail_size + restart_count * Layout::restart_offset_bytes != length) {
            return std::nullopt;
        }
        // The length is what the file really holds past `start`, so this
        // allocates no more than the file's size.
        std::vector<std::uint8_t> trailer(static_cast<std::size_t>(length));
        source().seek(start);
        if (source().read_up_to(trailer.data(), trailer.size()) != trailer.size()) {
            return std::nullopt;
        }
        const std::size_t check_offset = trailer.size() - Layout::AfterIndex::size + Layout::AfterIndex::check.offset;
        if (xxh64(trailer.data(), check_offset, load_le<std::uint64_t>(fixed.data())) !=
            load_le<std::uint64_t>(trailer.data() + check_offset)) {
            return std::nullopt;
        }
        TrailerAtEnd found;
        found.total_records = Layout::total_records.load(trailer.data());
        found.index.resize(static_cast<std::size_t>(restart_count));
        const std::uint8_t* entry = trailer.data() + Layout::tail + tail_size;
        for (std::uint64_t& offset : found.index) {
            offset = load_le<std::uint64_t>(entry);
            entry += Layout::restart_offset_bytes;
        }
        return found;
    }
};


// A TraceReader that also seeks: an in-process Reader's (record_io.hpp).
template <class Codec>
class SeekableTraceReader : public TraceReader<Codec, IndexedContainerReader> {
public:
    using TraceReader<Codec, IndexedContainerReader>::TraceReader;

    // Random access: positions the reader so that next_block() decodes the
    // latest restart point at or before block `block` (1-based), with the
    // predictors restarted, using the block index at the end of the file.
    // Returns that block's number, or 0 if the source has no random access
    // or the block is behind what this .tcz has known restart points for.
    std::uint64_t resume_before(std::uint64_t block) {
        if (this->prefetcher_) {
            // The container is this thread's until the next start(); what
            // was read ahead is kept in case the reader does not move.
            this->prefetcher_->wait_idle();
        }
        if (!index_loaded_ && this->member_number_ == 1) {
            index_ = this->container_.read_block_index();
            index_loaded_ = true;
        }
        const std::uint32_t restart_blocks = this->preamble_.restart_blocks;
        std::uint64_t start = tcz_restart_before(block, restart_blocks);
        const std::uint64_t point = restart_blocks == 0 ? 0 : (start - 1) / restart_blocks;
        std::uint64_t offset = 0;
        if (index_ && point < index_->size()) {
            offset = (*index_)[static_cast<std::size_t>(point)];
        } else {
            // No index (a later .tcz of a concatenation, say): a restart
            // point already read past will do.
            std::tie(start, offset) = this->container_.known_restart_before(block);
            if (start == 0) {
                return 0;
            }
        }
        if (this->prefetcher_) {
            this->prefetcher_->discard();
        }
        this->container_.resume_at_block(start, offset);
        const TablesClearedInPlace in_place(
            restart_group_fills_tables<Codec>(this->preamble_.restart_blocks, this->preamble_.records_per_block));
        this->codec_->restart();
        this->records_.clear();
        this->at_trailer_ = false;
        return start;
    }

    // With random access to a single .tcz: its record count, from the
    // trailer at the end of the file (verified by its check); nothing for
    // a stream, a file cut short or a concatenation. The read position is
    // kept.
    std::optional<std::uint64_t> total_records() {
        if (this->prefetcher_) {
            this->prefetcher_->wait_idle();  // the source is this thread's until the next block is asked for
        }
        if (this->member_number_ != 1) {
            return std::nullopt;
        }
        return this->container_.read_total_records();
    }

private:
    bool index_loaded_ = false;
    std::optional<std::vector<std::uint64_t>> index_;
};

}  // namespace tcgen_runtime
