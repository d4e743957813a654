#pragma once
// The questions of the defs' inference, one an edge, grouped by node: an
// edge asks its own store (the def it names) or, when its load has
// writers, each of them (LabelStore's build, find_defs); it is kept under
// its store in the first case and under its load in the second, where
// every writer reads it. They are made a load node at a time, where an
// edge meets its load's address (def_questions.hpp), and read a node at a
// time, as the inference walks each store's executions, so they go through
// a temporary file beside the events' when those are in one
// (temporary_file.hpp; 28 bytes an edge), else through memory: the edges
// themselves are not needed once asked.

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "wet/labels/temporary_file.hpp"

namespace tcgen::wet {

// An edge, as the store nodes it asks see it.
struct DefAsk {
    std::uint32_t edge = 0;  // its index among the raw edges
    std::uint32_t use = 0;   // the load node
    std::uint32_t t_use = 0;
    std::uint32_t def = 0;   // the store node it names
    std::uint32_t t_def = 0;
    std::uint64_t address = 0;  // the load's
};

class AsksByNode {
public:
    // counts[n]: the asks node n will keep; a temporary file beside
    // `beside`, or memory when it is empty.
    AsksByNode(const std::vector<std::uint64_t>& counts, const std::string& beside);

    // The next asks, each with the node it is kept under.
    void add(std::vector<std::pair<std::uint32_t, DefAsk>>& asks);
    // Every ask added (checked against the counts).
    void finish() const;

    // The asks kept under node `node`, in the order they were added.
    std::vector<DefAsk> read(std::size_t node) const;

private:
    void put(std::uint64_t at, const DefAsk* asks, std::size_t count);
    std::vector<DefAsk> get(std::uint64_t at, std::size_t count) const;

    std::vector<std::uint64_t> first_;
    std::vector<std::uint64_t> fill_;
    std::unique_ptr<TemporaryFile> file_;
    std::vector<DefAsk> memory_;  // when there is no file
};

}  // namespace tcgen::wet
