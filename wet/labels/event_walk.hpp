#pragma once
// A node's events (events_by_node.hpp) walked in time order a piece at a
// time, for the defs' steps, which walk each store's executions up to each
// ask's horizon: the piece before the one walked stays held, so that the
// def an edge names, nearly always among the store's latest executions
// before the load, is found there; an older one is searched for in the
// node's run, an event read a probe.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "wet/labels/events_by_node.hpp"

namespace tcgen::wet {

class EventWalk {
public:
    static constexpr std::uint64_t piece_events = std::uint64_t{1} << 16;

    EventWalk(const EventsByNode& events, std::size_t node)
        : events_(events), node_(node), count_(events.count(node)) {}

    std::uint64_t size() const { return count_; }

    // Walks past the events before timestamp `horizon` (no earlier than
    // the last asked), visit(event) each; returns how many there are.
    template <class Visit>
    std::uint64_t walk_to(std::uint64_t horizon, const Visit& visit) {
        for (; next_ < count_; ++next_) {
            if (next_ == held_first_ + held_.size()) {
                read_on();
            }
            const NodeEvent& event = held_[static_cast<std::size_t>(next_ - held_first_)];
            if (event.t >= horizon) {
                break;
            }
            visit(event);
        }
        return next_;
    }
    std::uint64_t walk_to(std::uint64_t horizon) {
        return walk_to(horizon, [](const NodeEvent&) {});
    }

    // The place of the node's first event at or after timestamp t (size()
    // when there is none).
    std::uint64_t lower_bound(std::uint32_t t) const {
        if (!held_.empty() && t >= held_.front().t && t <= held_.back().t) {
            const auto found =
                std::lower_bound(held_.begin(), held_.end(), t,
                                 [](const NodeEvent& event, std::uint32_t value) { return event.t < value; });
            return held_first_ + static_cast<std::uint64_t>(found - held_.begin());
        }
        std::uint64_t low = 0;
        std::uint64_t high = count_;
        if (!held_.empty() && t < held_.front().t) {
            high = held_first_;
        } else if (!held_.empty()) {
            low = held_first_ + held_.size();
        }
        while (low < high) {
            const std::uint64_t middle = low + (high - low) / 2;
            if (at(middle).t < t) {
                low = middle + 1;
            } else {
                high = middle;
            }
        }
        return low;
    }

    // The node's index-th event (index below size()).
    NodeEvent at(std::uint64_t index) const {
        if (index >= held_first_ && index - held_first_ < held_.size()) {
            return held_[static_cast<std::size_t>(index - held_first_)];
        }
        return events_.read(node_, index, 1)[0];
    }

private:
    // The piece after those held; the one before it stays.
    void read_on() {
        held_.erase(held_.begin(), held_.begin() + static_cast<std::ptrdiff_t>(previous_size_));
        held_first_ += previous_size_;
        previous_size_ = held_.size();
        const std::uint64_t first = held_first_ + held_.size();
        const std::vector<NodeEvent> piece = events_.read(node_, first, std::min(piece_events, count_ - first));
        held_.insert(held_.end(), piece.begin(), piece.end());
    }

    const EventsByNode& events_;
    std::size_t node_;
    std::uint64_t count_;
    std::vector<NodeEvent> held_;  // the node's events from its held_first_-th
    std::uint64_t held_first_ = 0;
    std::size_t previous_size_ = 0;  // of them, the piece before the one walked
    std::uint64_t next_ = 0;         // the first event not walked past
};

}  // namespace tcgen::wet
