// The defs' inference's questions grouped by node (asks_by_node.hpp).

#include "wet/labels/asks_by_node.hpp"

#include <algorithm>
#include <cstring>

#include <tcgen/wet/raw_trace.hpp>

namespace tcgen::wet {
namespace {

// edge, use, t_use, def, t_def (4 each), address (8), in this machine's order
constexpr std::size_t record_bytes = 28;

void encode(const DefAsk& ask, std::uint8_t* record) {
    std::memcpy(record, &ask.edge, 4);
    std::memcpy(record + 4, &ask.use, 4);
    std::memcpy(record + 8, &ask.t_use, 4);
    std::memcpy(record + 12, &ask.def, 4);
    std::memcpy(record + 16, &ask.t_def, 4);
    std::memcpy(record + 20, &ask.address, 8);
}

DefAsk decode(const std::uint8_t* record) {
    DefAsk ask;
    std::memcpy(&ask.edge, record, 4);
    std::memcpy(&ask.use, record + 4, 4);
    std::memcpy(&ask.t_use, record + 8, 4);
    std::memcpy(&ask.def, record + 12, 4);
    std::memcpy(&ask.t_def, record + 16, 4);
    std::memcpy(&ask.address, record + 20, 8);
    return ask;
}

}  // namespace

AsksByNode::AsksByNode(const std::vector<std::uint64_t>& counts, const std::string& beside)
    : first_(counts.size() + 1, 0) {
    for (std::size_t store = 0; store < counts.size(); ++store) {
        first_[store + 1] = first_[store] + counts[store];
    }
    fill_.assign(first_.begin(), first_.end() - 1);
    if (beside.empty()) {
        memory_.resize(first_.back());
    } else {
        file_ = std::make_unique<TemporaryFile>(beside, "asks", "the defs' questions grouped by store");
    }
}

void AsksByNode::put(std::uint64_t at, const DefAsk* asks, std::size_t count) {
    if (!file_) {
        std::copy(asks, asks + count, memory_.begin() + static_cast<std::ptrdiff_t>(at));
        return;
    }
    std::vector<std::uint8_t> bytes(count * record_bytes);
    for (std::size_t index = 0; index < count; ++index) {
        encode(asks[index], bytes.data() + index * record_bytes);
    }
    file_->write(at * record_bytes, bytes.data(), bytes.size());
}

std::vector<DefAsk> AsksByNode::get(std::uint64_t at, std::size_t count) const {
    if (!file_) {
        const auto begin = memory_.begin() + static_cast<std::ptrdiff_t>(at);
        return std::vector<DefAsk>(begin, begin + static_cast<std::ptrdiff_t>(count));
    }
    std::vector<std::uint8_t> bytes(count * record_bytes);
    file_->read(at * record_bytes, bytes.data(), bytes.size());
    std::vector<DefAsk> asks(count);
    for (std::size_t index = 0; index < count; ++index) {
        asks[index] = decode(bytes.data() + index * record_bytes);
    }
    return asks;
}

void AsksByNode::add(std::vector<std::pair<std::uint32_t, DefAsk>>& asks) {
    // One write per node: its run, at the node's fill.
    std::stable_sort(asks.begin(), asks.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    std::vector<DefAsk> run;
    for (std::size_t begin = 0; begin < asks.size();) {
        const std::uint32_t store = asks[begin].first;
        run.clear();
        std::size_t end = begin;
        for (; end < asks.size() && asks[end].first == store; ++end) {
            run.push_back(asks[end].second);
        }
        if (store >= fill_.size() || fill_[store] + run.size() > first_[store + 1]) {
            throw WetError(file_ ? file_->name() : std::string("asks"),
                           "more questions of node " + std::to_string(store) + " than were counted");
        }
        put(fill_[store], run.data(), run.size());
        fill_[store] += run.size();
        begin = end;
    }
}

void AsksByNode::finish() const {
    for (std::size_t store = 0; store < fill_.size(); ++store) {
        if (fill_[store] != first_[store + 1]) {
            throw WetError(file_ ? file_->name() : std::string("asks"),
                           "fewer questions of node " + std::to_string(store) + " than were counted");
        }
    }
}

std::vector<DefAsk> AsksByNode::read(std::size_t node) const {
    return get(first_[node], static_cast<std::size_t>(first_[node + 1] - first_[node]));
}

}  // namespace tcgen::wet
