// The events grouped by node (events_by_node.hpp), in memory or in a temporary file.

#include "wet/labels/events_by_node.hpp"

#include <algorithm>
#include <cstring>

#include "wet/labels/grouping.hpp"

namespace tcgen::wet {
namespace {

constexpr std::size_t record_bytes = 20;  // t (4), address (8), value (8), in this machine's order

void encode(const RawEvent& event, std::uint8_t* record) {
    std::memcpy(record, &event.t, 4);
    std::memcpy(record + 4, &event.address, 8);
    std::memcpy(record + 12, &event.value, 8);
}

NodeEvent decode(const std::uint8_t* record) {
    NodeEvent event;
    std::memcpy(&event.t, record, 4);
    std::memcpy(&event.address, record + 4, 8);
    std::memcpy(&event.value, record + 12, 8);
    return event;
}

}  // namespace

EventsByNode EventsByNode::in_memory(const std::vector<RawEvent>& events, std::size_t node_count,
                                     const std::string& temporaries_beside) {
    Grouping<std::uint32_t> by_node = group_items<std::uint32_t>(
        events.size(), node_count, [&](std::size_t event) { return events[event].node; });
    EventsByNode grouped;
    grouped.first_.assign(by_node.first.begin(), by_node.first.end());
    grouped.order_ = std::move(by_node.order);
    grouped.events_ = &events;
    grouped.beside_ = temporaries_beside;
    return grouped;
}

std::vector<NodeEvent> EventsByNode::read(std::size_t node, std::uint64_t from, std::uint64_t count) const {
    std::vector<NodeEvent> run(count);
    if (!file_) {
        const std::uint32_t* order = order_.data() + first_[node] + from;
        for (std::uint64_t index = 0; index < count; ++index) {
            const RawEvent& event = (*events_)[order[index]];
            run[index] = NodeEvent{event.address, event.value, event.t};
        }
        return run;
    }
    std::vector<std::uint8_t> bytes(count * record_bytes);
    file_->read((first_[node] + from) * record_bytes, bytes.data(), bytes.size());
    for (std::uint64_t index = 0; index < count; ++index) {
        run[index] = decode(bytes.data() + index * record_bytes);
    }
    return run;
}

EventsByNode::Scatter::Scatter(const std::string& beside, const std::vector<std::uint64_t>& counts) {
    events_.first_.assign(counts.size() + 1, 0);
    for (std::size_t node = 0; node < counts.size(); ++node) {
        events_.first_[node + 1] = events_.first_[node] + counts[node];
    }
    fill_.assign(events_.first_.begin(), events_.first_.end() - 1);
    events_.beside_ = beside;
    events_.file_ = std::make_unique<TemporaryFile>(beside, "events", "the events grouped by node");
}

void EventsByNode::Scatter::add(const RawEvent* events, std::size_t count) {
    // The piece's events by node, each node's run written at its place.
    std::vector<std::uint32_t> order(count);
    for (std::size_t index = 0; index < count; ++index) {
        order[index] = static_cast<std::uint32_t>(index);
    }
    std::stable_sort(order.begin(), order.end(),
                     [&](std::uint32_t a, std::uint32_t b) { return events[a].node < events[b].node; });
    std::vector<std::uint8_t> bytes(count * record_bytes);
    for (std::size_t index = 0; index < count; ++index) {
        encode(events[order[index]], bytes.data() + index * record_bytes);
    }
    for (std::size_t begin = 0; begin < count;) {
        const std::uint32_t node = events[order[begin]].node;
        std::size_t end = begin + 1;
        while (end < count && events[order[end]].node == node) {
            ++end;
        }
        if (node >= fill_.size() || fill_[node] + (end - begin) > events_.first_[node + 1]) {
            throw WetError(events_.file_->name(), "more events of node " + std::to_string(node) + " than were counted");
        }
        events_.file_->write(fill_[node] * record_bytes, bytes.data() + begin * record_bytes,
                             (end - begin) * record_bytes);
        fill_[node] += end - begin;
        begin = end;
    }
}

EventsByNode EventsByNode::Scatter::finish() {
    for (std::size_t node = 0; node < fill_.size(); ++node) {
        if (fill_[node] != events_.first_[node + 1]) {
            throw WetError(events_.file_->name(), "fewer events of node " + std::to_string(node) + " than were counted");
        }
    }
    return std::move(events_);
}

}  // namespace tcgen::wet
