#pragma once
// Decompression on several threads: the blocks from one restart point to the
// next (a restart group: the predictors start from zeroed tables there, so
// nothing carries into it) are decoded by one worker with a codec of its
// own, while other workers decode the groups after it. The output is the
// sequential decoder's (TraceReader), byte for byte and in order; every block
// is verified before its records are written; an error is thrown after
// every block before the bad one was written, with the sequential decoder's
// text, and nothing after it is written.
//
// Threads: a reader that reads the file in order (sections checked, streams
// left compressed), `threads` workers that back-end-decompress and decode,
// and the calling thread, which writes. A file without restart points is
// one group per .tcz: its reader then back-end-decompresses the streams too,
// as TraceReader's read ahead does, so that one worker predicts while the
// reader decompresses the next block.
//
// Memory: at most `threads` codecs (tables of the spec's size each), made
// as groups need them; at most `threads` groups in flight, each holding at
// most read_queue_blocks blocks read and group_buffer_bytes of decoded
// records (at least two blocks), whatever the file claims. A group after the
// one being written can only get ahead as far as that buffer holds, so
// groups of up to group_buffer_bytes decode fully in parallel; longer ones
// partly. A worker clears its tables in place for groups large enough to
// fill them (clears_tables_in_place), so they are then wholly resident.
// Threads meet once per block (a block is thousands of records); decoding a
// record takes no lock and shares nothing.

#include <algorithm>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <exception>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "codec.hpp"
#include "container_layout.hpp"
#include "container_reader.hpp"
#include "error.hpp"
#include "io.hpp"
#include "streams.hpp"
#include "task_pool.hpp"
#include "zeroed_memory.hpp"

namespace tcgen_runtime {

template <class Codec>
class GroupDecoder {
public:
    // Blocks read ahead for a group's worker: enough that it rarely waits.
    static constexpr std::size_t read_queue_blocks = 2;
    // Decoded records a group holds for the writer: as much as its worker
    // can get ahead of the writer.
    static constexpr std::uint64_t group_buffer_bytes = std::uint64_t{64} << 20;

    // The blocks a group holds for the writer, with blocks of
    // `records_per_block` records: group_buffer_bytes' worth, at least two
    // and no more than a group has.
    static std::size_t decoded_queue_blocks(const Preamble& preamble) {
        const std::uint64_t block_bytes = std::max<std::uint64_t>(1, preamble.records_per_block * Codec::record_bytes);
        std::uint64_t blocks = std::max<std::uint64_t>(2, group_buffer_bytes / block_bytes);
        if (preamble.restart_blocks != 0) {
            blocks = std::min<std::uint64_t>(blocks, std::max<std::uint32_t>(2, preamble.restart_blocks));
        }
        return static_cast<std::size_t>(blocks);
    }

    // Restart groups of fewer bytes of records than this are decoded on one
    // thread, without read-ahead: handing them between threads costs more
    // than decoding them. Measured on load values in one-block groups of
    // 1-1024 KiB (docs/design/log.md, "Restarts that clear only what the
    // group touched"): one thread wins up to 4 KiB, threads from 16 KiB.
    static constexpr std::uint64_t min_group_bytes = std::uint64_t{8} << 10;

    // Whether a file whose first bytes are `start` (at least the preamble's
    // fixed fields) has restart groups worth threads: no where its preamble
    // says they hold fewer than min_group_bytes of records; yes where it has
    // none (one group) or the start is no preamble of this format (the
    // decoder then reports that as one thread would).
    static bool groups_pay_for_threads(const std::vector<std::uint8_t>& start) {
        using Layout = TczPreambleLayout;
        if (start.size() < Layout::spec_text ||
            !std::equal(tcz_magic.begin(), tcz_magic.end(), start.begin() + Layout::magic.offset) ||
            Layout::version.load(start.data()) != tcz_format_version) {
            return true;
        }
        const std::uint32_t restart_blocks = Layout::restart_blocks.load(start.data());
        const std::uint64_t records_per_block = Layout::records_per_block.load(start.data());
        if (restart_blocks == 0) {
            return true;
        }
        const std::uint64_t group_records = min_group_bytes / Codec::record_bytes / restart_blocks;
        return records_per_block > group_records ||
               records_per_block * restart_blocks * Codec::record_bytes >= min_group_bytes;
    }

    // Starts the workers (0: one per core) and the reader on `source`. If no
    // thread can be had, started() is false and nothing has been read.
    GroupDecoder(ByteSource& source, unsigned threads) : source_(source) {
        const unsigned wanted = threads == 0 ? hardware_threads() : threads;
        try {
            for (unsigned index = 0; index < wanted; ++index) {
                workers_.emplace_back([this] { work(); });
            }
        } catch (...) {
            // std::system_error or no memory for a thread: as many workers as
            // there are.
        }
        // Set before the reader, which reads it, starts.
        worker_count_ = workers_.size();
        try {
            if (!workers_.empty()) {
                reader_ = std::thread([this] { read_all(); });
            }
        } catch (...) {
            // No reader: nothing is read, and the caller decodes alone.
        }
        if (!reader_.joinable()) {
            stop();
        }
    }

    GroupDecoder(const GroupDecoder&) = delete;
    GroupDecoder& operator=(const GroupDecoder&) = delete;

    // Stops the threads, waiting for the block each is on (a read is never
    // abandoned half-way: it holds the source).
    ~GroupDecoder() { stop(); }

    bool started() const { return reader_.joinable(); }

    // Writes the trace to `output` (flushed), calling progress(totals) after
    // each block; throws the first error in file order.
    template <class Progress>
    RunTotals run(ByteSink& output, Progress&& progress) {
        RunTotals totals;
        while (true) {
            std::shared_ptr<Group> group;
            {
                std::unique_lock<std::mutex> lock(mutex_);
                changed_.wait(lock, [this] { return !groups_.empty(); });
                group = groups_.front();
                if (group->kind != Group::Kind::blocks) {
                    groups_.pop_front();
                }
            }
            changed_.notify_all();
            if (group->kind == Group::Kind::error) {
                std::rethrow_exception(group->error);
            }
            if (group->kind == Group::Kind::end) {
                break;
            }
            if (group->kind == Group::Kind::bytes) {
                output.write(group->bytes.data(), group->bytes.size());
                totals.output_bytes += group->bytes.size();
                continue;
            }
            while (std::unique_ptr<Piece> piece = take_decoded(*group)) {
                if (piece->error) {
                    std::rethrow_exception(piece->error);
                }
                output.write(piece->records.data(), piece->records.size());
                totals.output_bytes += piece->records.size();
                totals.records += piece->block.record_count;
                totals.blocks += 1;
                totals.input_bytes = piece->bytes_read;
                progress(static_cast<const RunTotals&>(totals));
            }
        }
        output.flush();
        totals.input_bytes = end_bytes_read_;
        return totals;
    }

private:
    // One block on its way from the reader through a worker to the writer.
    struct Piece {
        BlockData block;
        std::vector<std::uint8_t> records;
        std::uint64_t bytes_read = 0;  // the container's, just after this block
        std::exception_ptr error;      // its decoding's: written in its place
    };

    // What the writer writes next: bytes as they are (a header or a
    // partial record), the blocks of a restart group, the reader's error,
    // or the end.
    struct Group {
        enum class Kind { bytes, blocks, error, end };
        Kind kind = Kind::bytes;
        std::vector<std::uint8_t> bytes;
        std::exception_ptr error;
        bool streams_decompressed = false;  // by the reader (a file without restart points)
        std::size_t decoded_capacity = 2;   // decoded_queue_blocks
        bool clears_in_place = false;       // clears_tables_in_place
        bool touched_pages_only = false;    // restarts_touched_pages_only: Codec::restart_touched_pages_only
        std::deque<std::unique_ptr<Piece>> read;     // for its worker
        std::deque<std::unique_ptr<Piece>> decoded;  // for the writer
        bool assigned = false;   // a worker took it
        bool all_read = false;   // the reader put its last block
        bool finished = false;   // its worker is done with it
    };

    void stop() {
        {
            std::lock_guard<std::mutex> lock(mutex_);
            stopping_ = true;
        }
        changed_.notify_all();
        if (reader_.joinable()) {
            reader_.join();
        }
        for (std::thread& worker : workers_) {
            if (worker.joinable()) {
                worker.join();
            }
        }
    }

    // The writer's next block of `group`, or nullptr once it has none left.
    std::unique_ptr<Piece> take_decoded(Group& group) {
        std::unique_ptr<Piece> piece;
        {
            std::unique_lock<std::mutex> lock(mutex_);
            changed_.wait(lock, [&] { return !group.decoded.empty() || group.finished; });
            if (group.decoded.empty()) {
                groups_.pop_front();
            } else {
                piece = std::move(group.decoded.front());
                group.decoded.pop_front();
            }
        }
        changed_.notify_all();
        return piece;
    }

    // The reader's thread: every section in file order, as groups.
    void read_all() {
        std::shared_ptr<Group> current;
        bool made_spare_codec = false;
        ContainerReader container(source_);
        try {
            container.limit_stream_bytes(Codec::stream_bytes_per_record.data(), Codec::stream_count);
            do {
                const Preamble preamble = container.read_preamble();
                check_preamble_matches(preamble, codec_preamble<Codec>());
                std::vector<std::uint8_t> header;
                container.read_header(header);
                if (!made_spare_codec) {
                    // Before the header is written, as TraceReader allocates.
                    std::unique_ptr<Codec> codec = make_codec<Codec>();
                    std::lock_guard<std::mutex> lock(mutex_);
                    spare_codec_ = std::move(codec);
                    made_spare_codec = true;
                }
                if (!push_bytes(std::move(header))) {
                    return;
                }
                const bool has_groups = preamble.restart_blocks != 0;
                Trailer trailer;
                while (true) {
                    auto piece = std::make_unique<Piece>();
                    if (!container.read_next(piece->block, trailer, Codec::stream_names.data(), !has_groups)) {
                        break;
                    }
                    piece->bytes_read = container.bytes_read();
                    if (current == nullptr || tcz_restarts_at(piece->block.number, preamble.restart_blocks)) {
                        close(current);
                        current = open_group(has_groups, decoded_queue_blocks(preamble),
                                             clears_tables_in_place(preamble),
                                             restarts_touched_pages_only<Codec>(preamble.restart_blocks,
                                                                                preamble.records_per_block));
                        if (current == nullptr) {
                            return;
                        }
                    }
                    if (!push_read(*current, std::move(piece))) {
                        return;
                    }
                }
                close(current);
                current = nullptr;
                if (!push_bytes(std::move(trailer.tail))) {
                    return;
                }
            } while (container.next_member());
            end_bytes_read_ = container.bytes_read();
            push_last(Group::Kind::end, nullptr);
        } catch (...) {
            close(current);
            push_last(Group::Kind::error, std::current_exception());
        }
    }

    // The most groups queued for the writer: those in flight and the
    // headers and partial records between them.
    std::size_t most_groups() const { return 2 * worker_count_ + 4; }

    bool push_bytes(std::vector<std::uint8_t> bytes) {
        auto group = std::make_shared<Group>();
        group->bytes = std::move(bytes);
        std::unique_lock<std::mutex> lock(mutex_);
        changed_.wait(lock, [this] { return stopping_ || groups_.size() < most_groups(); });
        if (stopping_) {
            return false;
        }
        groups_.push_back(std::move(group));
        lock.unlock();
        changed_.notify_all();
        return true;
    }

    // The end or the reader's error: queued whatever the queue holds (one
    // group more at most), so that the writer always learns how it ended.
    void push_last(typename Group::Kind kind, std::exception_ptr error) {
        auto group = std::make_shared<Group>();
        group->kind = kind;
        group->error = std::move(error);
        {
            std::lock_guard<std::mutex> lock(mutex_);
            groups_.push_back(std::move(group));
        }
        changed_.notify_all();
    }

    // Whether a worker restarts its tables for a group of this file with
    // memset rather than madvise (clear_tables_in_place): where the group
    // fills the tables (restart_group_fills_tables), so that zeroing them
    // whole costs little beside decoding the group. Smaller groups of a file
    // with restart points zero only the pages they touched instead
    // (restarts_touched_pages_only).
    static bool clears_tables_in_place(const Preamble& preamble) {
        return restart_group_fills_tables<Codec>(preamble.restart_blocks, preamble.records_per_block);
    }

    // A new restart group of a file with restart points or not
    // (`has_groups`), once fewer than worker_count_ are in flight (a worker
    // is then free for it); nullptr if stopping or a block failed.
    std::shared_ptr<Group> open_group(bool has_groups, std::size_t decoded_capacity, bool clears_in_place,
                                      bool touched_pages_only) {
        auto group = std::make_shared<Group>();
        group->clears_in_place = clears_in_place;
        group->touched_pages_only = touched_pages_only;
        group->kind = Group::Kind::blocks;
        group->streams_decompressed = !has_groups;
        group->decoded_capacity = decoded_capacity;
        std::unique_lock<std::mutex> lock(mutex_);
        changed_.wait(lock, [this] {
            return stopping_ || failed_ || (groups_in_flight_ < worker_count_ && groups_.size() < most_groups());
        });
        if (stopping_ || failed_) {
            return nullptr;
        }
        groups_in_flight_ += 1;
        groups_.push_back(group);
        lock.unlock();
        changed_.notify_all();
        return group;
    }

    bool push_read(Group& group, std::unique_ptr<Piece> piece) {
        std::unique_lock<std::mutex> lock(mutex_);
        changed_.wait(lock, [&] { return stopping_ || failed_ || group.read.size() < read_queue_blocks; });
        if (stopping_ || failed_) {
            return false;
        }
        group.read.push_back(std::move(piece));
        lock.unlock();
        changed_.notify_all();
        return true;
    }

    void close(const std::shared_ptr<Group>& group) {
        if (group == nullptr) {
            return;
        }
        {
            std::lock_guard<std::mutex> lock(mutex_);
            group->all_read = true;
        }
        changed_.notify_all();
    }

    // A worker's thread: one group after another, each with this worker's
    // codec restarted (or fresh), its blocks decoded in order.
    void work() {
        std::unique_ptr<Codec> codec;
        std::vector<StreamReader> streams(Codec::stream_count);
        while (true) {
            std::shared_ptr<Group> group;
            bool fresh = false;
            {
                std::unique_lock<std::mutex> lock(mutex_);
                changed_.wait(lock, [this] { return stopping_ || unassigned_group() != nullptr; });
                if (stopping_) {
                    return;
                }
                group = unassigned_group();
                group->assigned = true;
                if (codec == nullptr && spare_codec_ != nullptr) {
                    codec = std::move(spare_codec_);
                    fresh = true;
                }
            }
            std::exception_ptr error;
            if (codec == nullptr) {
                try {
                    codec = make_codec<Codec>();
                    fresh = true;
                } catch (...) {
                    error = std::current_exception();
                }
            }
            if (codec != nullptr && !fresh) {
                clear_tables_in_place() = group->clears_in_place;
                codec->restart();
            }
            if (codec != nullptr) {
                // Changes nothing unless this group's file differs from the
                // last group's in having restart points.
                codec->restart_touched_pages_only(group->touched_pages_only);
            }
            if (!decode_group(*group, codec.get(), streams, error)) {
                return;
            }
        }
    }

    // The first group queued that no worker took yet (under the lock).
    std::shared_ptr<Group> unassigned_group() const {
        for (const std::shared_ptr<Group>& group : groups_) {
            if (group->kind == Group::Kind::blocks && !group->assigned) {
                return group;
            }
        }
        return nullptr;
    }

    // Decodes the blocks of `group` as the reader delivers them; after a
    // block that fails (or if `error` is set already: no codec), the group
    // ends with it. False if stopping.
    bool decode_group(Group& group, Codec* codec, std::vector<StreamReader>& streams, std::exception_ptr error) {
        while (true) {
            std::unique_ptr<Piece> piece;
            {
                std::unique_lock<std::mutex> lock(mutex_);
                changed_.wait(lock, [&] {
                    return stopping_ ||
                           (group.decoded.size() < group.decoded_capacity && (!group.read.empty() || group.all_read));
                });
                if (stopping_) {
                    return false;
                }
                if (group.read.empty()) {
                    group.finished = true;
                    groups_in_flight_ -= 1;
                    lock.unlock();
                    changed_.notify_all();
                    return true;
                }
                piece = std::move(group.read.front());
                group.read.pop_front();
            }
            changed_.notify_all();
            if (error) {
                piece->error = error;
            } else {
                decode(group, *codec, streams, *piece);
            }
            const bool failed = piece->error != nullptr;
            {
                std::lock_guard<std::mutex> lock(mutex_);
                group.decoded.push_back(std::move(piece));
                if (failed) {
                    // Nothing after this block is written: the reader stops
                    // and the group ends here.
                    failed_ = true;
                    group.read.clear();
                    group.finished = true;
                    groups_in_flight_ -= 1;
                }
            }
            changed_.notify_all();
            if (failed) {
                return true;
            }
        }
    }

    // What TraceReader::next_block does with a block, on this worker.
    static void decode(const Group& group, Codec& codec, std::vector<StreamReader>& streams, Piece& piece) {
        try {
            BlockData& block = piece.block;
            if (!group.streams_decompressed) {
                decompress_block_streams(block, Codec::stream_names.data());
            }
            const std::size_t record_count = static_cast<std::size_t>(block.record_count);
            piece.records.resize(record_count * Codec::record_bytes);
            for (std::size_t stream = 0; stream < Codec::stream_count; ++stream) {
                streams[stream] = StreamReader(Codec::stream_names[stream], block.streams[stream].data(),
                                               block.streams[stream].size());
            }
            codec.decode(streams.data(), record_count, piece.records.data());
            for (const StreamReader& stream : streams) {
                if (!stream.at_end()) {
                    fail("corrupt input: stream '" + std::string(stream.name()) + "' of " +
                         block_name(block.number) + " has " + size_text(stream.remaining()) + " unused bytes");
                }
            }
            verify_block_records(block, piece.records.data(), Codec::record_bytes);
        } catch (...) {
            piece.error = std::current_exception();
        }
        // The streams are not needed while the records wait for the writer.
        std::vector<std::vector<std::uint8_t>>().swap(piece.block.streams);
        std::vector<std::uint8_t>().swap(piece.block.compressed);
    }

    ByteSource& source_;

    // Everything below is shared, under mutex_.
    std::mutex mutex_;
    std::condition_variable changed_;
    std::deque<std::shared_ptr<Group>> groups_;  // in output order
    std::size_t groups_in_flight_ = 0;           // of kind blocks, not finished
    std::unique_ptr<Codec> spare_codec_;         // made by the reader, for the first worker
    bool failed_ = false;                        // a block failed: read no more
    bool stopping_ = false;
    std::uint64_t end_bytes_read_ = 0;  // set by the reader before it queues the end

    std::size_t worker_count_ = 0;
    // Last: joined (by stop()) before anything they use goes.
    std::vector<std::thread> workers_;
    std::thread reader_;
};

}  // namespace tcgen_runtime
