#pragma once
// Records coded as ids (a spec's "32-Bit Ids;"): each record becomes the
// 32-bit id of its value among the distinct records seen so far, numbered
// 0, 1, 2, ... in order of first appearance, and only a record's first
// appearance is coded by the fields. A branch trace holds a few hundred to a
// few thousand distinct (pc, target, taken) records in millions, so its ids
// are the program's path through its blocks, which the back-ends (their
// grammar, bzip2) code 27-62 % smaller than the fields' predictors code the
// records (docs/design/log.md, "Control flow as ids in the
// container").
//
// A block's ids go to their own stream, one little-endian u32 a record; the
// records seen for the first time in the block are coded by the fields in
// their order, as a block of that many records (record_runs.hpp and all).
// An id is at most the number of distinct records before it, and equal to
// it exactly for a first appearance, so the decoder reads the ids first,
// counts the new ones, decodes that many records through the fields and
// copies the rest from its table.
//
// The table carries from block to block, as the fields' tables do, and is
// emptied at a restart. So that it stays bounded whatever the trace, it is
// also emptied at the start of a block once its records take max_kept_bytes
// or more (both sides do so at the same block): memory is at most that plus
// a block's records, and ids stay far below 2^32.

#include <cinttypes>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "runtime/byte_order.hpp"
#include "runtime/error.hpp"
#include "runtime/record_runs.hpp"
#include "runtime/streams.hpp"

namespace tcgen_runtime {

// The bytes an id adds to the ids stream.
inline constexpr std::uint64_t record_id_bytes = 4;

// `max_kept_bytes`: the distinct records' bytes after which a block starts
// with an empty table (a parameter for the tests' sake).
template <std::size_t record_bytes, std::uint64_t max_kept_bytes = std::uint64_t{64} << 20>
class RecordIds {
public:
    // Writes the ids of `count` records to `ids` and puts the block's first
    // appearances, in order, into `fresh` (emptied first).
    void encode(const std::uint8_t* records, std::size_t count, StreamWriter& ids, std::vector<std::uint8_t>& fresh) {
        start_block();
        fresh.clear();
        ids.reserve(count * record_id_bytes);
        for (std::size_t index = 0; index < count; ++index) {
            const std::uint8_t* record = records + index * record_bytes;
            std::uint32_t& entry = find(record);
            if (entry == 0) {
                entry = static_cast<std::uint32_t>(distinct() + 1);
                remember(record);
                fresh.insert(fresh.end(), record, record + record_bytes);
                if (2 * distinct() > index_.size()) {
                    grow_index();
                }
                ids.put<std::uint32_t>(static_cast<std::uint32_t>(distinct() - 1));
            } else {
                ids.put<std::uint32_t>(entry - 1);
            }
        }
        records_ += count;
    }

    // Reads the ids of `count` records and returns how many are first
    // appearances: the records the fields decode next, for write_records.
    std::size_t read_ids(StreamReader& ids, std::size_t count) {
        start_block();
        block_ids_.resize(count);
        std::uint64_t next = distinct();
        const std::uint64_t before = next;
        for (std::size_t index = 0; index < count; ++index) {
            const std::uint32_t id = ids.get<std::uint32_t>();
            if (id > next) {
                fail("corrupt input: record " + std::to_string(index) + " of the block has id " + std::to_string(id) +
                     ", beyond the " + std::to_string(next) + " distinct records before it");
            }
            next += id == next ? 1 : 0;
            block_ids_[index] = id;
        }
        return static_cast<std::size_t>(next - before);
    }

    // Writes the block's records: the first appearances from `fresh` (as
    // many as read_ids returned, decoded by the fields), the others from
    // the table.
    void write_records(const std::uint8_t* fresh, std::uint8_t* records) {
        for (std::size_t index = 0; index < block_ids_.size(); ++index) {
            const std::uint32_t id = block_ids_[index];
            if (id == distinct()) {
                remember(fresh);
                fresh += record_bytes;
            }
            std::memcpy(records + index * record_bytes, kept_.data() + std::size_t{id} * record_bytes, record_bytes);
        }
        records_ += block_ids_.size();
    }

    // Empties the table, as at the start of the trace.
    void restart() {
        kept_.clear();
        kept_.shrink_to_fit();
        index_.clear();
        index_.shrink_to_fit();
    }

    std::uint64_t distinct() const { return kept_.size() / record_bytes; }

    // Whether most records so far were first appearances: ids then buy
    // nothing, the sign of an input not in the spec's format.
    bool mostly_new() const { return 2 * first_appearances_ > records_; }

    // The report's line: records coded as ids so far, and how many distinct
    // records the fields coded.
    void write_report(std::FILE* out) const {
        std::fprintf(out, "record ids: %" PRIu64 " records as ids, %" PRIu64 " first appearances coded by the fields\n",
                     records_, first_appearances_);
    }

private:
    void start_block() {
        if (kept_.size() >= max_kept_bytes) {
            restart();
        }
    }

    void remember(const std::uint8_t* record) {
        kept_.insert(kept_.end(), record, record + record_bytes);
        ++first_appearances_;
    }

    // The index's entry for `record`: 1 + its id, or 0 where it is not
    // there (the slot to set). Open addressing, linear probing; at most
    // half full.
    std::uint32_t& find(const std::uint8_t* record) {
        if (index_.empty()) {
            index_bits_ = min_index_bits;
            index_.assign(std::size_t{1} << index_bits_, 0);
        }
        const std::size_t mask = index_.size() - 1;
        std::size_t slot = RecordRuns<record_bytes>::slot_of(record, index_bits_);
        while (index_[slot] != 0 &&
               std::memcmp(kept_.data() + std::size_t{index_[slot] - 1} * record_bytes, record, record_bytes) != 0) {
            slot = (slot + 1) & mask;
        }
        return index_[slot];
    }

    void grow_index() {
        std::vector<std::uint32_t> old;
        old.swap(index_);
        ++index_bits_;
        index_.assign(std::size_t{1} << index_bits_, 0);
        for (const std::uint32_t entry : old) {
            if (entry != 0) {
                find(kept_.data() + std::size_t{entry - 1} * record_bytes) = entry;
            }
        }
    }

    static constexpr unsigned min_index_bits = 10;

    std::vector<std::uint8_t> kept_;        // the distinct records by id
    std::vector<std::uint32_t> index_;      // the writer's: 1 + id by a hash of the record, 0 empty
    unsigned index_bits_ = 0;               // log2 of its size
    std::vector<std::uint32_t> block_ids_;  // the reader's: the block's ids
    std::uint64_t records_ = 0;
    std::uint64_t first_appearances_ = 0;
};

}  // namespace tcgen_runtime
