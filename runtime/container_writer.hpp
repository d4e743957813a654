#pragma once
// Writing the .tcz container: the preamble, the header section, the blocks
// (each stream compressed by a back-end) and the trailer with its block
// index, every field where container_layout.hpp puts it and every byte
// covered by the check chain. This layer knows sections, lengths and checks
// but nothing of predictors: the driver hands it finished streams.

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "backends.hpp"
#include "byte_order.hpp"
#include "check_chain.hpp"
#include "checksum.hpp"
#include "container_layout.hpp"
#include "error.hpp"
#include "format_limits.hpp"
#include "io.hpp"
#include "pending_block.hpp"
#include "streams.hpp"
#include "task_pool.hpp"

namespace tcgen_runtime {

class ContainerWriter {
public:
    // Every buffer is compressed with the back-end `backend` picks for it,
    // at `level`, on `threads` threads (0: hardware_threads()). With more
    // than one, a block's streams are compressed while the caller goes on
    // to predict the next block: the block is written out by the next
    // write_block() or by write_trailer(), and its records are copied for
    // their check. The file is the same whatever the threads.
    explicit ContainerWriter(ByteSink& sink, BackendChoice backend = {}, unsigned level = default_level,
                             unsigned threads = 1)
        : sink_(sink), backend_(backend), level_(level),
          tasks_(threads == 0 ? hardware_threads() : threads), pipelined_(tasks_.threads() > 1) {}

    // What each stream of the blocks holds (one per stream of the preamble;
    // by default every stream holds values): the back-ends tried depend on
    // it (BackendChoice).
    void set_stream_contents(std::vector<StreamContent> contents) { stream_contents_ = std::move(contents); }

    void write_preamble(const Preamble& preamble) {
        using Layout = TczPreambleLayout;
        check_preamble_limits(preamble, "internal error: ");
        preamble_ = preamble;
        const std::size_t spec_size = preamble.spec_text.size();
        section_.assign(Layout::fixed_bytes + spec_size, 0);
        std::uint8_t* const fields = section_.data();
        std::copy(tcz_magic.begin(), tcz_magic.end(), fields + Layout::magic.offset);
        Layout::version.store(fields, tcz_format_version);
        Layout::flags.store(fields, 0);
        Layout::fingerprint.store(fields, preamble.fingerprint);
        Layout::record_bytes.store(fields, preamble.record_bytes);
        Layout::header_bytes.store(fields, preamble.header_bytes);
        Layout::stream_count.store(fields, preamble.stream_count);
        Layout::records_per_block.store(fields, preamble.records_per_block);
        Layout::restart_blocks.store(fields, preamble.restart_blocks);
        Layout::spec_size.store(fields, static_cast<std::uint32_t>(spec_size));
        const std::uint8_t* const spec = reinterpret_cast<const std::uint8_t*>(preamble.spec_text.data());
        std::copy(spec, spec + spec_size, fields + Layout::spec_text);
        const std::size_t spec_end = Layout::spec_text + spec_size;
        Layout::AfterSpec::check.store(fields + spec_end, chain_.next(fields, spec_end));
        emit(section_.data(), section_.size());
    }

    // The trace header: the first header_bytes bytes of the input, or all of
    // the input if it is shorter.
    void write_header(const std::uint8_t* header, std::size_t size) {
        using Layout = TczHeaderSectionLayout;
        if (size > preamble_.header_bytes) {
            fail("internal error: header of " + size_text(size) + " bytes, the spec says " +
                 size_text(preamble_.header_bytes));
        }
        std::vector<std::uint8_t>& compressed = header_compressed_;
        const Backend backend = backend_.compress(header, size, compressed, scratch_, level_);
        section_.assign(Layout::data, 0);
        Layout::tag.store(section_.data(), tcz_header_tag);
        Layout::raw_size.store(section_.data(), size);
        Layout::compressed_size.store(section_.data(), compressed.size());
        Layout::backend.store(section_.data(), static_cast<std::uint8_t>(backend));
        Layout::fields_check.store(section_.data(), chain_.next(section_.data(), Layout::fields_check.offset));
        emit(section_.data(), section_.size());
        emit(compressed.data(), compressed.size());
        std::array<std::uint8_t, Layout::AfterData::size> after_data{};
        Layout::AfterData::data_check.store(after_data.data(), chain_.next(compressed.data(), compressed.size()));
        Layout::AfterData::header_check.store(after_data.data(), chain_.next(header, size));
        emit(after_data.data(), after_data.size());
    }

    // `records` holds record_count whole records, and streams[0..stream_count)
    // what the codec wrote for them. The streams' contents are taken (each
    // is left empty) for the back-ends to compress.
    void write_block(const std::uint8_t* records, std::uint64_t record_count, StreamWriter* streams) {
        const std::size_t stream_count = preamble_.stream_count;
        if (record_count == 0 || record_count > preamble_.records_per_block) {
            fail("internal error: block of " + size_text(record_count) + " records");
        }
        std::uint64_t raw_total = 0;
        for (std::size_t stream = 0; stream < stream_count; ++stream) {
            raw_total += streams[stream].size();
        }
        if (raw_total > tcz_max_stream_bytes(record_count, preamble_.record_bytes)) {
            fail("internal error: the codec wrote " + size_text(raw_total) + " stream bytes for " +
                 size_text(record_count) + " records, more than the format allows");
        }
        if (stream_contents_.size() != stream_count) {
            stream_contents_.assign(stream_count, StreamContent::values);
        }
        finish_block();
        pending_.take(records, record_count, streams, stream_count, preamble_.record_bytes, pipelined_);
        pending_.start(tasks_, backend_, level_, stream_contents_.data());
        if (!pipelined_) {
            finish_block();
        }
    }

    void write_trailer(std::uint64_t total_records, std::uint64_t total_bytes, const std::uint8_t* tail,
                       std::size_t tail_size) {
        using Layout = TczTrailerLayout;
        finish_block();
        if (tail_size >= preamble_.record_bytes) {
            fail("internal error: tail of " + size_text(tail_size) + " bytes is a whole record");
        }
        const std::size_t index_bytes = restart_offsets_.size() * Layout::restart_offset_bytes;
        section_.assign(Layout::fixed_bytes + tail_size + index_bytes, 0);
        std::uint8_t* const fields = section_.data();
        Layout::tag.store(fields, tcz_end_tag);
        Layout::total_records.store(fields, total_records);
        Layout::total_bytes.store(fields, total_bytes);
        Layout::tail_size.store(fields, static_cast<std::uint32_t>(tail_size));
        Layout::restart_count.store(fields, restart_offsets_.size());
        std::copy(tail, tail + tail_size, fields + Layout::tail);
        std::uint8_t* index = fields + Layout::tail + tail_size;
        for (const std::uint64_t offset : restart_offsets_) {
            store_le<std::uint64_t>(index, offset);
            index += Layout::restart_offset_bytes;
        }
        const std::size_t index_end = Layout::tail + tail_size + index_bytes;
        Layout::AfterIndex::trailer_offset.store(fields + index_end, bytes_written_);
        const std::size_t check_offset = index_end + Layout::AfterIndex::check.offset;
        Layout::AfterIndex::check.store(fields + index_end, chain_.next(fields, check_offset));
        emit(section_.data(), section_.size());
    }

    // The bytes written so far (a block being compressed is not yet).
    std::uint64_t bytes_written() const { return bytes_written_; }

    // The compressed and the raw bytes of each stream so far, over all
    // blocks (empty before the first block).
    const std::vector<std::uint64_t>& stream_bytes() const { return stream_bytes_; }
    const std::vector<std::uint64_t>& stream_raw_bytes() const { return stream_raw_bytes_; }

private:
    // Waits for the block being compressed, if any, and writes it out.
    void finish_block() {
        if (!pending_.waiting) {
            return;
        }
        pending_.finish(tasks_, backend_, level_);
        write_pending_block();
    }

    void write_pending_block() {
        using Layout = TczBlockLayout;
        const std::size_t stream_count = preamble_.stream_count;
        stream_bytes_.resize(stream_count);
        stream_raw_bytes_.resize(stream_count);
        blocks_written_ += 1;
        if (tcz_restarts_at(blocks_written_, preamble_.restart_blocks)) {
            restart_offsets_.push_back(bytes_written_);
        }
        section_.assign(Layout::data(stream_count), 0);
        Layout::tag.store(section_.data(), tcz_block_tag);
        Layout::record_count.store(section_.data(), pending_.record_count);
        for (std::size_t stream = 0; stream < stream_count; ++stream) {
            const std::vector<std::uint8_t>& compressed = pending_.compressed(stream);
            const std::size_t raw_size = pending_.streams[stream].size();
            Layout::raw_size(stream).store(section_.data(), raw_size);
            Layout::compressed_size(stream).store(section_.data(), compressed.size());
            Layout::backend(stream).store(section_.data(), static_cast<std::uint8_t>(pending_.chosen[stream]));
            stream_bytes_[stream] += compressed.size();
            stream_raw_bytes_[stream] += raw_size;
        }
        const TczField<std::uint64_t> fields_check = Layout::fields_check(stream_count);
        fields_check.store(section_.data(), chain_.next(section_.data(), fields_check.offset));
        emit(section_.data(), section_.size());
        Xxh64 data_check = chain_.start();
        for (std::size_t stream = 0; stream < stream_count; ++stream) {
            const std::vector<std::uint8_t>& compressed = pending_.compressed(stream);
            emit(compressed.data(), compressed.size());
            data_check.update(compressed.data(), compressed.size());
        }
        chain_.advance(data_check.digest());
        std::array<std::uint8_t, Layout::AfterData::size> after_data{};
        Layout::AfterData::data_check.store(after_data.data(), chain_.last());
        const std::size_t record_area = static_cast<std::size_t>(pending_.record_count) * preamble_.record_bytes;
        Layout::AfterData::records_check.store(after_data.data(), chain_.next(pending_.records(), record_area));
        emit(after_data.data(), after_data.size());
    }

    void emit(const std::uint8_t* data, std::size_t size) {
        sink_.write(data, size);
        bytes_written_ += size;
    }

    ByteSink& sink_;
    BackendChoice backend_;
    unsigned level_;
    Preamble preamble_;
    CheckChain chain_;
    // The fixed fields of the section being written (and, for the preamble
    // and trailer, all of it).
    std::vector<std::uint8_t> section_;
    std::vector<std::uint8_t> header_compressed_;
    std::vector<std::uint8_t> scratch_;  // the output BackendChoice did not keep
    std::vector<StreamContent> stream_contents_;
    PendingBlock pending_;
    std::vector<std::uint64_t> stream_bytes_;
    std::vector<std::uint64_t> stream_raw_bytes_;
    std::uint64_t blocks_written_ = 0;
    // Where each block at which the predictors restart begins.
    std::vector<std::uint64_t> restart_offsets_;
    std::uint64_t bytes_written_ = 0;
    // Last, so that it is destroyed first: its tasks write into pending_.
    TaskPool tasks_;
    bool pipelined_;
};

}  // namespace tcgen_runtime
