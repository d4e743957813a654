#pragma once
// PackedLabels<Stream>: the labels of one kind (every node's values, every
// block's control parents, ...) held as their saved forms end to end in one
// buffer, with an offset per owner; a label is made into a Label object,
// with its cursor, only while queries use it.
//
// Why: a real run has tens of thousands of nodes, most of whose labels are
// a constant or a few records; as Label objects (32 bytes each, a stream's
// chunk table and buffers besides) they held 1.4-1.7 times the bytes of the
// saved file on the programs with the most code. Packed, a label at rest
// costs its saved bytes and an offset.
//
// The labels open at a time are kept in a cache, least recently used out: a
// query that walks one label step by step, or a slice that returns to the
// same nodes, finds its cursor where it left it. A reference that open()
// returns stays valid until `open_limit` other labels of the kind have been
// opened since. The default limit keeps the largest slices of the corpus
// runs as fast as when every label was an object (a python3 slice touches
// tens of thousands of nodes; 1024 open labels made its median slice 43 %
// slower, 8192 within noise), and bounds what queries hold: before, every
// label walked kept its cursor for good.
//
// Bytes are checked whole when packed from a file (Label::load); reopening
// them only reads their framing.

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "common/byte_io.hpp"
#include "runtime/byte_order.hpp"
#include "wet/labels/held_bytes.hpp"
#include "wet/labels/label.hpp"
#include "wet/labels/label_offsets.hpp"
#include "wet/labels/lru_cache.hpp"
#include "wet/labels/shared_frames.hpp"

namespace tcgen::wet {

template <class Stream>
class PackedLabels {
public:
    static constexpr std::size_t default_open_limit = 8192;

    // `what`: the kind, as messages name it ("values of node ").
    // `increasing`: labels of increasing first fields (timestamps).
    explicit PackedLabels(std::string what = "label ", bool increasing = false,
                          std::size_t open_limit = default_open_limit)
        : what_(std::move(what)), increasing_(increasing), open_(open_limit) {}

    // The kind's shared frames, which its labels' chunks may name; set before
    // the labels are added.
    void set_frames(std::shared_ptr<SharedFrames> frames) { frames_ = std::move(frames); }
    const std::shared_ptr<SharedFrames>& frames() const { return frames_; }

    // From now on, the saved labels but the last few added are kept in a
    // temporary file (held_bytes.hpp), not in memory.
    void spill(const HeldBytes::Spill& to) {
        saved_->bytes.spill(to, "the labels made");
        if (!saved_->bytes.spills()) {
            return;
        }
        // records() then answers from memory: a pread of its header per
        // call would cost every query that counts a node's executions.
        saved_->spilled_records.clear();
        for (std::size_t owner = 0; owner < size(); ++owner) {
            saved_->spilled_records.push_back(records_saved(owner));
        }
        saved_->spilled = true;
    }

    // Adds the next owner's label, built in memory.
    void add(const Label<Stream>& label) {
        ByteWriter writer;
        label.save(writer);
        add_saved(writer.data().data(), writer.data().size());
    }
    // Adds the next owner's label, as Label::save() wrote it.
    void add_saved(const std::uint8_t* data, std::size_t size) {
        saved_->offsets.push_back(saved_->bytes.size());
        saved_->bytes.append(data, size);
        if (saved_->spilled) {
            saved_->spilled_records.push_back(records_in(data, size));
        }
    }
    // Adds the next owner's label, read from a file and checked whole there.
    void add(ByteReader& reader) {
        const std::uint8_t* start = reader.here();
        Label<Stream>::load(reader, what_ + std::to_string(size()), increasing_, frames_);
        add_saved(start, static_cast<std::size_t>(reader.here() - start));
    }
    // Adds an owner with no label.
    void add_absent() { add(Label<Stream>{}); }
    // Every label of `labels`, in order, each freed once added.
    void add_all(std::vector<Label<Stream>>&& labels) {
        for (Label<Stream>& label : labels) {
            add(label);
            label = Label<Stream>{};
        }
        labels = std::vector<Label<Stream>>();
        shrink();
    }
    static PackedLabels pack(std::vector<Label<Stream>>&& labels, std::string what, bool increasing = false,
                             std::shared_ptr<SharedFrames> frames = nullptr,
                             std::size_t open_limit = default_open_limit) {
        PackedLabels packed(std::move(what), increasing, open_limit);
        packed.set_frames(std::move(frames));
        packed.add_all(std::move(labels));
        return packed;
    }
    // Room for `owners` more owners and `bytes` more saved bytes (a bound
    // known before a section is read): one allocation, not a series of
    // copies that leave the heap fragmented.
    void reserve(std::size_t owners, std::size_t bytes) {
        saved_->offsets.reserve(saved_->offsets.size() + owners);
        saved_->bytes.reserve(bytes);
    }
    // Once every owner is added: no spare capacity worth a copy.
    void shrink() {
        saved_->bytes.shrink();
        saved_->offsets.shrink_to_fit();
        saved_->spilled_records.shrink_to_fit();
    }

    std::size_t size() const { return saved_->offsets.size(); }

    // The same saved labels, opened through a cache of their own (and their
    // shared frames through one of their own): another thread's, which
    // walks its labels while this one walks its own. Once every owner is added.
    PackedLabels fork() const {
        PackedLabels forked(what_, increasing_, open_.budget());
        forked.frames_ = frames_ ? frames_->fork() : nullptr;
        forked.saved_ = saved_;
        return forked;
    }

    // Owner's records, read from its saved form's header.
    std::uint64_t records(std::size_t owner) const {
        return saved_->spilled ? saved_->spilled_records[owner] : records_saved(owner);
    }
    bool empty(std::size_t owner) const { return records(owner) == 0; }

    // Owner's label, opened for a walk.
    Label<Stream>& open(std::size_t owner) {
        if (Label<Stream>* label = open_.find(owner)) {
            return *label;
        }
        const std::string name = what_ + std::to_string(owner);
        std::vector<std::uint8_t> scratch;
        const std::size_t size = static_cast<std::size_t>(saved_bytes(owner));
        ByteReader reader(saved_->bytes.view(saved_->offsets[owner], size, scratch), size, "WET", name);
        return open_.insert(owner, Label<Stream>::load(reader, name, increasing_, frames_, true), 1);
    }

    // Owner's saved form, as added.
    void save(ByteWriter& writer, std::size_t owner) const {
        saved_->bytes.write_to(writer, saved_->offsets[owner], saved_bytes(owner));
    }
    void save(ByteWriter& writer) const { saved_->bytes.write_to(writer, 0, saved_->bytes.size()); }
    std::uint64_t saved_bytes(std::size_t owner) const {
        return (owner + 1 < size() ? saved_->offsets[owner + 1] : saved_->bytes.size()) - saved_->offsets[owner];
    }
    std::uint64_t saved_bytes() const { return saved_->bytes.size(); }

    std::size_t memory_bytes() const {
        return sizeof(*this) + saved_->bytes.memory_bytes() + saved_->offsets.memory_bytes() +
               8 * saved_->spilled_records.capacity() +
               open_.memory_bytes([](const Label<Stream>& label) { return label.memory_bytes(); });
    }

private:
    // The records of a label saved as `saved` (`size` bytes): every form but
    // "absent" starts with its u64 count of records.
    static std::uint64_t records_in(const std::uint8_t* saved, std::uint64_t size) {
        return size < 9 || saved[0] == 0 ? 0 : tcgen_runtime::load_le64(saved + 1);
    }
    std::uint64_t records_saved(std::size_t owner) const {
        std::vector<std::uint8_t> scratch;  // only when spilled
        const std::uint64_t size = saved_bytes(owner);
        return records_in(saved_->bytes.view(saved_->offsets[owner], std::min<std::uint64_t>(9, size), scratch), size);
    }

    std::string what_;
    bool increasing_ = false;
    std::shared_ptr<SharedFrames> frames_;
    struct Saved {
        HeldBytes bytes;       // every owner's saved label, in order
        LabelOffsets offsets;  // where each owner's starts in bytes
        bool spilled = false;  // bytes in a file: records() from spilled_records
        std::vector<std::uint64_t> spilled_records;
    };
    // Written while owners are added, then shared by every fork().
    std::shared_ptr<Saved> saved_ = std::make_shared<Saved>();
    LruCache<Label<Stream>> open_;  // at most open_limit labels, each costing 1
};

}  // namespace tcgen::wet
