// The events grouped by node (events_by_node.hpp), in memory or in a temporary file.

#include "wet/labels/events_by_node.hpp"

#include "wet/labels/grouping.hpp"

namespace tcgen::wet {

EventsByNode EventsByNode::in_memory(const std::vector<RawEvent>& events, std::size_t node_count,
                                     const BuildTemporaries& temporaries) {
    Grouping<std::uint32_t> by_node = group_items<std::uint32_t>(
        events.size(), node_count, [&](std::size_t event) { return events[event].node; });
    EventsByNode grouped;
    grouped.first_.assign(by_node.first.begin(), by_node.first.end());
    grouped.order_ = std::move(by_node.order);
    grouped.events_ = &events;
    grouped.temporaries_ = temporaries;
    return grouped;
}

std::vector<NodeEvent> EventsByNode::read(std::size_t node, std::uint64_t from, std::uint64_t count) const {
    if (file_) {
        return file_->get(first_[node] + from, static_cast<std::size_t>(count));
    }
    std::vector<NodeEvent> run(count);
    const std::uint32_t* order = order_.data() + first_[node] + from;
    for (std::uint64_t index = 0; index < count; ++index) {
        const RawEvent& event = (*events_)[order[index]];
        run[index] = NodeEvent{event.address, event.value, event.t};
    }
    return run;
}

EventsByNode::Scatter::Scatter(const BuildTemporaries& temporaries, const std::vector<std::uint64_t>& counts) {
    events_.first_ = node_places(counts);
    events_.temporaries_ = temporaries;
    events_.file_ = std::make_unique<NodeRuns<NodeEventCodec>>(events_.first_, temporaries, "events",
                                                               "the events grouped by node", "events");
}

void EventsByNode::Scatter::add(const RawEvent* events, std::size_t count) {
    std::vector<std::pair<std::uint32_t, NodeEvent>> piece(count);
    for (std::size_t index = 0; index < count; ++index) {
        const RawEvent& event = events[index];
        piece[index] = {event.node, NodeEvent{event.address, event.value, event.t}};
    }
    events_.file_->add(piece);
}

EventsByNode EventsByNode::Scatter::finish() {
    events_.file_->check_full();
    return std::move(events_);
}

}  // namespace tcgen::wet
