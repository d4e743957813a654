// The events grouped by node (events_by_node.hpp), in memory or in a temporary file.

#include "wet/labels/events_by_node.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>

#include <fcntl.h>
#include <unistd.h>

#include "runtime/files.hpp"
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

std::string failure(const char* what) {
    return std::string(what) + ": " + std::strerror(errno);
}

}  // namespace

EventsByNode EventsByNode::in_memory(const std::vector<RawEvent>& events, std::size_t node_count) {
    Grouping<std::uint32_t> by_node = group_items<std::uint32_t>(
        events.size(), node_count, [&](std::size_t event) { return events[event].node; });
    EventsByNode grouped;
    grouped.first_.assign(by_node.first.begin(), by_node.first.end());
    grouped.order_ = std::move(by_node.order);
    grouped.events_ = &events;
    return grouped;
}

EventsByNode::EventsByNode(EventsByNode&& other) noexcept
    : first_(std::move(other.first_)),
      events_(other.events_),
      order_(std::move(other.order_)),
      name_(std::move(other.name_)),
      descriptor_(other.descriptor_) {
    other.descriptor_ = -1;
}

EventsByNode::~EventsByNode() {
    if (descriptor_ >= 0) {
        ::close(descriptor_);
    }
}

std::vector<NodeEvent> EventsByNode::read(std::size_t node, std::uint64_t from, std::uint64_t count) const {
    std::vector<NodeEvent> run(count);
    if (descriptor_ < 0) {
        const std::uint32_t* order = order_.data() + first_[node] + from;
        for (std::uint64_t index = 0; index < count; ++index) {
            const RawEvent& event = (*events_)[order[index]];
            run[index] = NodeEvent{event.address, event.value, event.t};
        }
        return run;
    }
    std::vector<std::uint8_t> bytes(count * record_bytes);
    std::size_t done = 0;
    const off_t offset = static_cast<off_t>((first_[node] + from) * record_bytes);
    while (done < bytes.size()) {
        const ssize_t got = ::pread(descriptor_, bytes.data() + done, bytes.size() - done,
                                    offset + static_cast<off_t>(done));
        if (got < 0 && errno == EINTR) {
            continue;
        }
        if (got <= 0) {
            throw WetError(name_, got == 0 ? std::string("read error: the file is shorter than was written")
                                           : failure("read error"));
        }
        done += static_cast<std::size_t>(got);
    }
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
    // A name of this process's, taken exclusively; on the signals' list
    // until it is unlinked, a moment later.
    tcgen_runtime::PendingTemporary pending;
    for (unsigned attempt = 0;; ++attempt) {
        pending.path = beside + ".events." + std::to_string(::getpid()) + "." + std::to_string(attempt) + ".tmp";
        tcgen_runtime::add_pending_temporary(pending);
        events_.descriptor_ = ::open(pending.path.c_str(), O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
        const int error = errno;
        if (events_.descriptor_ >= 0) {
            ::unlink(pending.path.c_str());
        }
        tcgen_runtime::remove_pending_temporary(pending);
        errno = error;
        if (events_.descriptor_ >= 0) {
            break;
        }
        if (errno != EEXIST || attempt == 99) {
            throw WetError(pending.path, failure("cannot create the temporary file of the events grouped by node"));
        }
    }
    events_.name_ = pending.path;
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
            throw WetError(events_.name_, "more events of node " + std::to_string(node) + " than were counted");
        }
        const std::uint8_t* data = bytes.data() + begin * record_bytes;
        std::size_t left = (end - begin) * record_bytes;
        off_t offset = static_cast<off_t>(fill_[node] * record_bytes);
        while (left > 0) {
            const ssize_t written = ::pwrite(events_.descriptor_, data, left, offset);
            if (written < 0 && errno == EINTR) {
                continue;
            }
            if (written <= 0) {
                throw WetError(events_.name_, failure("cannot write the events grouped by node"));
            }
            data += written;
            left -= static_cast<std::size_t>(written);
            offset += written;
        }
        fill_[node] += end - begin;
        begin = end;
    }
}

EventsByNode EventsByNode::Scatter::finish() {
    for (std::size_t node = 0; node < fill_.size(); ++node) {
        if (fill_[node] != events_.first_[node + 1]) {
            throw WetError(events_.name_, "fewer events of node " + std::to_string(node) + " than were counted");
        }
    }
    return std::move(events_);
}

}  // namespace tcgen::wet
