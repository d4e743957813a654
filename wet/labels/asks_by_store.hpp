#pragma once
// The questions of the defs' inference, grouped by the store node asked:
// each edge asks its own store (the def it names) and, when its load has
// writers, each of them (LabelStore's build, find_defs). They are made a
// load node at a time, where an edge meets its load's address, and read a
// store node at a time, as the inference walks each store's executions, so
// they go through a temporary file beside the events' when those are in
// one (temporary_file.hpp; 28 bytes an ask), else through memory: the
// edges themselves are not needed once asked.

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "wet/labels/temporary_file.hpp"

namespace tcgen::wet {

// An edge, as the store node it asks sees it.
struct DefAsk {
    std::uint32_t edge = 0;  // its index among the raw edges
    std::uint32_t use = 0;   // the load node
    std::uint32_t t_use = 0;
    std::uint32_t def = 0;   // the store node it names
    std::uint32_t t_def = 0;
    std::uint64_t address = 0;  // the load's
};

class AsksByStore {
public:
    // counts[n]: the asks store node n will get; a temporary file beside
    // `beside`, or memory when it is empty.
    AsksByStore(const std::vector<std::uint64_t>& counts, const std::string& beside);

    // The next asks, each with the store node it asks.
    void add(std::vector<std::pair<std::uint32_t, DefAsk>>& asks);
    // Every ask added (checked against the counts).
    void finish() const;

    // Store node `store`'s asks, in the order they were added.
    std::vector<DefAsk> read(std::size_t store) const;

private:
    void put(std::uint64_t at, const DefAsk* asks, std::size_t count);
    std::vector<DefAsk> get(std::uint64_t at, std::size_t count) const;

    std::vector<std::uint64_t> first_;
    std::vector<std::uint64_t> fill_;
    std::unique_ptr<TemporaryFile> file_;
    std::vector<DefAsk> memory_;  // when there is no file
};

}  // namespace tcgen::wet
