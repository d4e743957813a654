#pragma once
// A raw trace's events grouped by node, each node's in time order: what the
// label build reads of the events (each node's run, or a piece of it), from
// one of two places.
// - in memory: a RawTrace's events, through their order by node (4 bytes an
//   event beside the events): WholeExecutionTrace::build() of a raw trace;
// - in a temporary file: `wet build`'s, filled by an external sort (the
//   events counted per node on a first read of PREFIX.events, each then
//   added to its node's run on a second: NodeRuns), so that the events are
//   never all in memory. The file is made beside another (the build's output),
//   and so are the build's other temporaries (temporary_file.hpp).
// 20 bytes an event (t, address, value) before the file's compression
// (framed_runs.hpp); a write or read error (a full disk) throws WetError
// naming the file.

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include <tcgen/wet/raw_trace.hpp>
#include "wet/labels/node_runs.hpp"

namespace tcgen::wet {

// One event of a node: what the labels are made of.
struct NodeEvent {
    std::uint64_t address = 0;
    std::uint64_t value = 0;
    std::uint32_t t = 0;
};

// An event's 20 bytes in the temporary file: t (4), address (8), value (8),
// in this machine's order.
struct NodeEventCodec {
    using Record = NodeEvent;
    static constexpr std::size_t bytes = 20;
    static void encode(const NodeEvent& event, std::uint8_t* record) {
        std::memcpy(record, &event.t, 4);
        std::memcpy(record + 4, &event.address, 8);
        std::memcpy(record + 12, &event.value, 8);
    }
    static NodeEvent decode(const std::uint8_t* record) {
        NodeEvent event;
        std::memcpy(&event.t, record, 4);
        std::memcpy(&event.address, record + 4, 8);
        std::memcpy(&event.value, record + 12, 8);
        return event;
    }
};

class EventsByNode {
public:
    // `events` grouped by node, read where they are (kept by the caller);
    // the build's other temporaries as `temporaries` says.
    static EventsByNode in_memory(const std::vector<RawEvent>& events, std::size_t node_count,
                                  const BuildTemporaries& temporaries = {});

    // The writer of a temporary file's events, made from the events' counts per node.
    class Scatter;

    EventsByNode(EventsByNode&& other) noexcept = default;
    EventsByNode& operator=(EventsByNode&&) = delete;
    EventsByNode(const EventsByNode&) = delete;

    // Where the build's other temporaries are made, and their limits.
    const BuildTemporaries& temporaries() const { return temporaries_; }

    std::size_t node_count() const { return first_.size() - 1; }
    std::uint64_t size() const { return first_.back(); }
    // Node n's events are the run first(n) .. first(n + 1) - 1.
    std::uint64_t first(std::size_t node) const { return first_[node]; }
    std::uint64_t count(std::size_t node) const { return first_[node + 1] - first_[node]; }

    // Node `node`'s events from its from-th, `count` of them.
    std::vector<NodeEvent> read(std::size_t node, std::uint64_t from, std::uint64_t count) const;
    std::vector<NodeEvent> read(std::size_t node) const { return read(node, 0, count(node)); }

private:
    EventsByNode() = default;

    std::vector<std::uint64_t> first_;
    // In memory:
    const std::vector<RawEvent>* events_ = nullptr;
    std::vector<std::uint32_t> order_;
    // In a file:
    BuildTemporaries temporaries_;
    std::unique_ptr<NodeRuns<NodeEventCodec>> file_;
};

class EventsByNode::Scatter {
public:
    // A temporary file (`temporaries`) for counts[n] events of each node n.
    Scatter(const BuildTemporaries& temporaries, const std::vector<std::uint64_t>& counts);
    Scatter(const Scatter&) = delete;
    Scatter& operator=(const Scatter&) = delete;

    // The next events in execution order (of the counts' run).
    void add(const RawEvent* events, std::size_t count);
    // Every event added: the file, read by node.
    EventsByNode finish();

private:
    EventsByNode events_;
};

}  // namespace tcgen::wet
