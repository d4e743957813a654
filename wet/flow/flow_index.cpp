// The blocks' timestamps from the control flow, a segment at a time
// (flow_index.hpp).

#include "wet/flow/flow_index.hpp"

#include <algorithm>
#include <memory>
#include <utility>

namespace tcgen::wet {

std::shared_ptr<const FlowIndex::Table> FlowIndex::walk(const FlowStream& flow,
                                                        const std::vector<std::uint32_t>& counts,
                                                        const Corrupt& corrupt, std::uint64_t segment_records) {
    auto table = std::make_shared<Table>();
    table->counts = counts;
    table->segment_records =
        segment_records != 0 && segment_records % flow.frame_records() == 0 ? segment_records : flow.frame_records();
    // The walk: per segment, the blocks that ran in it (in order of first
    // run) and how often; then laid out per block.
    std::vector<std::uint32_t> ran(counts.size(), 0);  // executions so far
    std::vector<std::uint32_t> last_segment(counts.size(), UINT32_MAX);
    std::vector<std::pair<std::uint32_t, Entry>> pairs;  // (block, entry), segment order
    flow.walk_all([&](std::uint32_t block, std::uint64_t position) {
        if (block >= counts.size()) {
            corrupt("block " + std::to_string(block) + " in the control flow");
        }
        const auto number = static_cast<std::uint32_t>(position / table->segment_records);
        if (last_segment[block] != number) {
            last_segment[block] = number;
            pairs.push_back({block, Entry{number, ran[block]}});
        }
        if (++ran[block] > counts[block]) {
            corrupt("block " + std::to_string(block) + " runs more than its count, " + std::to_string(counts[block]) +
                    ", in the control flow");
        }
    });
    for (std::size_t block = 0; block < counts.size(); ++block) {
        if (ran[block] != counts[block]) {
            corrupt("block " + std::to_string(block) + " runs " + std::to_string(ran[block]) +
                    " times in the control flow, its count says " + std::to_string(counts[block]));
        }
    }
    std::vector<std::size_t>& first = table->first;
    first.assign(counts.size() + 1, 0);
    for (const auto& pair : pairs) {
        ++first[pair.first + 1];
    }
    for (std::size_t block = 0; block < counts.size(); ++block) {
        first[block + 1] += first[block];
    }
    table->entries.resize(pairs.size());
    std::vector<std::size_t> fill(first.begin(), first.end() - 1);
    for (const auto& pair : pairs) {
        table->entries[fill[pair.first]++] = pair.second;
    }
    return table;
}

FlowIndex::FlowIndex(const FlowStream& flow, std::shared_ptr<const Table> table, const Corrupt& corrupt)
    : flow_(flow), table_(std::move(table)), corrupt_(corrupt) {}

FlowIndex::Segment& FlowIndex::segment(std::uint32_t number) {
    for (auto place = cache_.begin(); place != cache_.end(); ++place) {
        if (place->number == number) {
            cache_.splice(cache_.begin(), cache_, place);
            return cache_.front();
        }
    }
    // The least recently used segment's buffers are reused: fresh ones
    // would cost their pages' zeroing on every decode.
    if (cache_.size() < cached_segments) {
        cache_.emplace_front();
    } else {
        cache_.splice(cache_.begin(), cache_, std::prev(cache_.end()));
    }
    Segment& decoded = cache_.front();
    decoded.number = UINT32_MAX;  // none until decoded whole (a corrupt frame throws)
    decoded.blocks.clear();
    decoded.ranks.clear();
    decoded.positions.clear();
    decoded.groups.clear();
    // A forged file can claim frames of any length: no more than the flow holds.
    decoded.blocks.reserve(static_cast<std::size_t>(std::min(segment_records_, flow_.size())));
    const std::uint64_t frames_per_segment = segment_records_ / flow_.frame_records();
    flow_.walk_frames(static_cast<std::size_t>(number * frames_per_segment),
                      static_cast<std::size_t>((number + 1) * frames_per_segment),
                      [&](std::uint32_t block, std::uint64_t) { decoded.blocks.push_back(block); });
    decoded.number = number;
    return decoded;
}

const FlowIndex::Segment& FlowIndex::grouped_segment(std::uint32_t number) {
    Segment& decoded = segment(number);
    if (!decoded.groups.empty()) {
        return decoded;
    }
    // The positions grouped by block: a counting sort over the blocks
    // present, numbered in order of first run, then the groups by block.
    const std::vector<std::uint32_t>& ids = decoded.blocks;
    if (group_of_.size() < counts_.size()) {
        group_of_.assign(counts_.size(), UINT32_MAX);
    }
    std::vector<std::uint32_t> present;  // blocks, in order of first run
    std::vector<std::uint32_t> fill(1, 0);
    std::vector<std::uint32_t> groups(ids.size());
    for (std::size_t position = 0; position < ids.size(); ++position) {
        std::uint32_t& group = group_of_[ids[position]];
        if (group == UINT32_MAX) {
            group = static_cast<std::uint32_t>(present.size());
            present.push_back(ids[position]);
            fill.push_back(0);
        }
        groups[position] = group;
        ++fill[group + 1];
    }
    std::vector<std::uint32_t> by_block(present.size());  // group numbers, by block
    for (std::uint32_t group = 0; group < present.size(); ++group) {
        by_block[group] = group;
    }
    std::sort(by_block.begin(), by_block.end(),
              [&](std::uint32_t a, std::uint32_t b) { return present[a] < present[b]; });
    // Each group's start, the groups laid out by block.
    std::vector<std::uint32_t> start(present.size());
    std::uint32_t at = 0;
    for (const std::uint32_t group : by_block) {
        start[group] = at;
        decoded.groups.push_back({present[group], at});
        at += fill[group + 1];
        group_of_[present[group]] = UINT32_MAX;  // ready for the next segment
    }
    decoded.groups.push_back({UINT32_MAX, at});
    decoded.positions.resize(ids.size());
    for (std::size_t position = 0; position < ids.size(); ++position) {
        decoded.positions[start[groups[position]]++] = static_cast<std::uint32_t>(position);
    }
    return decoded;
}

std::pair<const std::uint32_t*, const std::uint32_t*> FlowIndex::positions(std::uint32_t number, std::uint32_t block,
                                                                           std::uint64_t expected) {
    const Segment& decoded = grouped_segment(number);
    const auto group = std::lower_bound(decoded.groups.begin(), decoded.groups.end() - 1, block,
                                        [](const auto& entry, std::uint32_t value) { return entry.first < value; });
    if (group == decoded.groups.end() - 1 || group->first != block || (group + 1)->second - group->second != expected) {
        corrupt_("block " + std::to_string(block) + " in segment " + std::to_string(number) +
                 " of the control flow disagrees with the flow's index");
    }
    return {decoded.positions.data() + group->second, decoded.positions.data() + (group + 1)->second};
}

std::uint64_t FlowIndex::count_below(std::uint32_t block, std::uint64_t t) {
    const std::uint64_t position = t - 1;  // records before it have timestamps below t
    const std::uint64_t number = position / segment_records_;
    const Entry* end = entries_end(block);
    const Entry* entry = first_entry_from(block, number);
    if (entry == end) {
        return counts_[block];
    }
    if (entry->segment != number) {
        return entry->before;
    }
    const auto [first, after] = positions(entry->segment, block, runs_in(block, entry));
    const auto local = static_cast<std::uint32_t>(position - number * segment_records_);
    return entry->before + static_cast<std::uint64_t>(std::lower_bound(first, after, local) - first);
}

std::optional<std::uint64_t> FlowIndex::find(std::uint32_t block, std::uint64_t t) {
    if (t == 0) {
        return std::nullopt;
    }
    const std::uint64_t position = t - 1;
    const std::uint64_t number = position / segment_records_;
    const Entry* entry = first_entry_from(block, number);
    if (entry == entries_end(block) || entry->segment != number) {
        return std::nullopt;
    }
    const auto [first, after] = positions(entry->segment, block, runs_in(block, entry));
    const auto local = static_cast<std::uint32_t>(position - number * segment_records_);
    const std::uint32_t* found = std::lower_bound(first, after, local);
    if (found == after || *found != local) {
        return std::nullopt;
    }
    return entry->before + static_cast<std::uint64_t>(found - first);
}

const FlowIndex::Entry& FlowIndex::entry_of_execution(std::uint32_t block, std::uint64_t index) const {
    const Entry* begin = entries_begin(block);
    const Entry* end = entries_end(block);
    if (index >= counts_[block] || begin == end) {
        corrupt_("execution " + std::to_string(index) + " of block " + std::to_string(block) + ", which runs " +
                 std::to_string(counts_[block]) + " times");
    }
    // The last entry with `before` <= index.
    return *(std::upper_bound(begin, end, index, [](std::uint64_t value, const Entry& e) { return value < e.before; }) -
             1);
}

std::uint32_t FlowIndex::at(std::uint32_t block, std::uint64_t index) {
    return at(block, index, entry_of_execution(block, index));
}

std::optional<std::uint32_t> FlowIndex::held_at(std::uint32_t block, std::uint64_t index) {
    const Entry& entry = entry_of_execution(block, index);
    return holds(entry.segment) ? std::optional(at(block, index, entry)) : std::nullopt;
}

std::uint32_t FlowIndex::at(std::uint32_t block, std::uint64_t index, const Entry& entry) {
    const auto [first, after] = positions(entry.segment, block, runs_in(block, &entry));
    const std::uint64_t local = index - entry.before;
    if (local >= static_cast<std::uint64_t>(after - first)) {
        corrupt_("execution " + std::to_string(index) + " of block " + std::to_string(block) + " is not in its segment");
    }
    return static_cast<std::uint32_t>(std::uint64_t{entry.segment} * segment_records_ + first[local] + 1);
}

bool FlowIndex::holds(std::uint32_t number) const {
    return std::any_of(cache_.begin(), cache_.end(), [&](const Segment& decoded) { return decoded.number == number; });
}

bool FlowIndex::holds_time(std::uint64_t t) const {
    return t != 0 && t <= flow_.size() && holds(static_cast<std::uint32_t>((t - 1) / segment_records_));
}

std::vector<std::uint32_t> FlowIndex::times(std::uint32_t block) {
    std::vector<std::uint32_t> result;
    result.reserve(counts_[block]);
    for (const Entry* entry = entries_begin(block); entry != entries_end(block); ++entry) {
        const auto [first, after] = positions(entry->segment, block, runs_in(block, entry));
        const std::uint64_t start = std::uint64_t{entry->segment} * segment_records_ + 1;
        for (const std::uint32_t* position = first; position != after; ++position) {
            result.push_back(static_cast<std::uint32_t>(start + *position));
        }
    }
    return result;
}

std::pair<FlowIndex::Segment*, std::size_t> FlowIndex::segment_at(std::uint64_t t) {
    if (t == 0 || t > flow_.size()) {
        corrupt_("t " + std::to_string(t) + " is outside the control flow");
    }
    const std::uint64_t position = t - 1;
    Segment& decoded = segment(static_cast<std::uint32_t>(position / segment_records_));
    const std::uint64_t local = position % segment_records_;
    if (local >= decoded.blocks.size()) {
        corrupt_("segment " + std::to_string(decoded.number) + " of the control flow is short");
    }
    return {&decoded, static_cast<std::size_t>(local)};
}

std::uint32_t FlowIndex::block_at(std::uint64_t t) {
    const auto [decoded, local] = segment_at(t);
    return decoded->blocks[local];
}

const FlowIndex::Entry* FlowIndex::first_entry_from(std::uint32_t block, std::uint64_t number) const {
    return std::lower_bound(entries_begin(block), entries_end(block), number,
                            [](const Entry& e, std::uint64_t value) { return e.segment < value; });
}

const FlowIndex::Entry& FlowIndex::entry_in(std::uint32_t block, std::uint32_t number) const {
    const Entry* entry = first_entry_from(block, number);
    if (entry == entries_end(block) || entry->segment != number) {
        corrupt_("block " + std::to_string(block) + " in segment " + std::to_string(number) +
                 " of the control flow disagrees with the flow's index");
    }
    return *entry;
}

FlowIndex::Execution FlowIndex::execution_at(std::uint64_t t) {
    const auto [decoded, local] = segment_at(t);
    if (decoded->ranks.empty()) {
        // One pass counting each block's executions, one putting the counts back to 0.
        if (ran_.size() < counts_.size()) {
            ran_.assign(counts_.size(), 0);
        }
        decoded->ranks.resize(decoded->blocks.size());
        for (std::size_t position = 0; position < decoded->blocks.size(); ++position) {
            decoded->ranks[position] = ran_[decoded->blocks[position]]++;
        }
        for (const std::uint32_t block : decoded->blocks) {
            ran_[block] = 0;
        }
    }
    const std::uint32_t block = decoded->blocks[local];
    return Execution{block, entry_in(block, decoded->number).before + decoded->ranks[local]};
}

std::vector<std::uint32_t> FlowIndex::segments_of(std::uint32_t block) const {
    std::vector<std::uint32_t> numbers;
    for (const Entry* entry = entries_begin(block); entry != entries_end(block); ++entry) {
        numbers.push_back(entry->segment);
    }
    return numbers;
}

std::size_t FlowIndex::memory_bytes() const {
    std::size_t bytes = sizeof(*this) + counts_.capacity() * 4 + first_.capacity() * sizeof(std::size_t) +
                        entries_.capacity() * sizeof(Entry);
    for (const Segment& decoded : cache_) {
        bytes += sizeof(Segment) +
                 (decoded.positions.capacity() + decoded.blocks.capacity() + decoded.ranks.capacity()) * 4 +
                 decoded.groups.capacity() * 8;
    }
    return bytes + (group_of_.capacity() + ran_.capacity()) * 4;
}

}  // namespace tcgen::wet
