#pragma once
// Records of one kind grouped by node, for `wet build`'s tables that are made
// in one order (a store at a time, a load at a time) and read in another (a
// node at a time): node n's run is at places first[n] .. first[n + 1] - 1 of
// a compressed temporary file beside the build's output (framed_runs.hpp)
// or, with no file, of memory. add() takes a piece of records, each with its node,
// and writes each node's records after those it holds already, in the
// piece's order; check_full() then checks that every node got the records
// counted for it. A node's records may come as several runs, each in an
// order of its own (a load's defs, a run a store, each in time order):
// start_run() marks where one begins, and runs() gives them back, for a
// reader that merges them a piece at a time rather than sorting a node's
// records whole. The records' bytes in the file are the codec's:
// Codec::Record, Codec::bytes a record, Codec::encode(record, bytes) and
// Codec::decode(bytes).

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <tcgen/wet/raw_trace.hpp>
#include "wet/labels/build_temporaries.hpp"
#include "wet/labels/framed_runs.hpp"

namespace tcgen::wet {

template <typename Codec>
class NodeRuns {
public:
    using Record = typename Codec::Record;

    // first[n] .. first[n + 1] - 1: node n's places. In a temporary file
    // beside temporaries.beside (BESIDE.KIND.PID.N.tmp, `holds` naming its
    // contents in messages), or in memory when that is empty. `noun` names a node's
    // records in messages ("more questions of node 3 than were counted").
    NodeRuns(std::vector<std::uint64_t> first, const BuildTemporaries& temporaries, const std::string& kind,
             const std::string& holds, std::string noun)
        : first_(std::move(first)), fill_(first_.begin(), first_.end() - 1), kind_(kind), noun_(std::move(noun)) {
        if (temporaries.beside.empty()) {
            memory_.resize(first_.back());
        } else {
            file_ =
                std::make_unique<FramedRuns>(Codec::bytes, first_, temporaries.beside, kind, holds, temporaries.limits);
        }
    }

    std::size_t nodes() const { return first_.size() - 1; }
    std::uint64_t first(std::size_t node) const { return first_[node]; }
    std::uint64_t count(std::size_t node) const { return first_[node + 1] - first_[node]; }

    // The next records, each with its node (sorted by node here, stably).
    void add(std::vector<std::pair<std::uint32_t, Record>>& records) {
        std::stable_sort(records.begin(), records.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
        std::vector<Record> run;
        for (std::size_t begin = 0; begin < records.size();) {
            const std::uint32_t node = records[begin].first;
            run.clear();
            std::size_t end = begin;
            for (; end < records.size() && records[end].first == node; ++end) {
                run.push_back(records[end].second);
            }
            if (node >= fill_.size() || fill_[node] + run.size() > first_[node + 1]) {
                throw WetError(name(), "more " + noun_ + " of node " + std::to_string(node) + " than were counted");
            }
            append(node, run.data(), run.size());
            begin = end;
        }
    }

    // The next records added to node `node` begin a run of their own.
    void start_run(std::size_t node) {
        if (node < fill_.size() && fill_[node] != first_[node]) {
            later_starts_.push_back(fill_[node]);
        }
    }

    // Every record added (nothing can be added after).
    void check_full() {
        for (std::size_t node = 0; node < fill_.size(); ++node) {
            if (fill_[node] != first_[node + 1]) {
                throw WetError(name(), "fewer " + noun_ + " of node " + std::to_string(node) + " than were counted");
            }
        }
        fill_ = {};
        if (file_) {
            file_->finish();
        }
        // The places of the runs' starts, every node's, in order (a run is
        // marked once its node has records, so none is empty).
        std::sort(later_starts_.begin(), later_starts_.end());
        later_starts_.erase(std::unique(later_starts_.begin(), later_starts_.end()), later_starts_.end());
    }

    // Node `node`'s runs, after check_full(): places [begin, end) of each,
    // in the order they were added; none when it has no records.
    std::vector<std::pair<std::uint64_t, std::uint64_t>> runs(std::size_t node) const {
        std::vector<std::pair<std::uint64_t, std::uint64_t>> runs;
        const std::uint64_t end = first_[node + 1];
        std::uint64_t begin = first_[node];
        for (auto start = std::upper_bound(later_starts_.begin(), later_starts_.end(), begin);
             start != later_starts_.end() && *start < end; ++start) {
            runs.emplace_back(begin, *start);
            begin = *start;
        }
        if (begin != end) {
            runs.emplace_back(begin, end);
        }
        return runs;
    }

    // Node `node`'s records, in the order they were added.
    std::vector<Record> read(std::size_t node) const {
        return get(first_[node], static_cast<std::size_t>(count(node)));
    }

    // The records at places at .. at + count - 1, after check_full().
    std::vector<Record> get(std::uint64_t at, std::size_t count) const {
        if (!file_) {
            const auto begin = memory_.begin() + static_cast<std::ptrdiff_t>(at);
            return std::vector<Record>(begin, begin + static_cast<std::ptrdiff_t>(count));
        }
        std::vector<std::uint8_t> bytes(count * Codec::bytes);
        file_->read(at, count, bytes.data());
        std::vector<Record> records(count);
        for (std::size_t index = 0; index < count; ++index) {
            records[index] = Codec::decode(bytes.data() + index * Codec::bytes);
        }
        return records;
    }

private:
    const std::string& name() const { return file_ ? file_->name() : kind_; }

    // Node `node`'s next records (its room checked).
    void append(std::size_t node, const Record* records, std::size_t count) {
        if (!file_) {
            std::copy(records, records + count, memory_.begin() + static_cast<std::ptrdiff_t>(fill_[node]));
        } else {
            std::vector<std::uint8_t> bytes(count * Codec::bytes);
            for (std::size_t index = 0; index < count; ++index) {
                Codec::encode(records[index], bytes.data() + index * Codec::bytes);
            }
            file_->append(node, bytes.data(), count);
        }
        fill_[node] += count;
    }

    std::vector<std::uint64_t> first_;
    std::vector<std::uint64_t> fill_;
    std::vector<std::uint64_t> later_starts_;  // where a node's second and later runs begin
    std::string kind_;
    std::string noun_;
    std::unique_ptr<FramedRuns> file_;
    std::vector<Record> memory_;  // when there is no file
};

// first[n] .. first[n + 1] - 1 for nodes of counts[n] records each.
inline std::vector<std::uint64_t> node_places(const std::vector<std::uint64_t>& counts) {
    std::vector<std::uint64_t> first(counts.size() + 1, 0);
    for (std::size_t node = 0; node < counts.size(); ++node) {
        first[node + 1] = first[node] + counts[node];
    }
    return first;
}

}  // namespace tcgen::wet
