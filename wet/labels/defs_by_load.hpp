#pragma once
// Each edge's def as a load's labels keep it: its LoadDefs record and the
// load's predicted value (the value its def stored, as the load reads it).
// They are made a store node at a time, as the defs' inference walks the
// stores, and read a load node at a time, as the node labels are made, so
// they go through a temporary file beside the events' when those are in one
// (temporary_file.hpp; 20 bytes an edge), else through memory. Each load's
// edges are first written as one run per store (stores in increasing id,
// each run in time order), then put in time order by finish().

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <tcgen/wet/load_defs.hpp>
#include "wet/labels/temporary_file.hpp"

namespace tcgen::wet {

struct EdgeDef {
    std::uint32_t t_use = 0;  // the load's execution
    LoadDefs::Record record{0, 0};
    std::uint64_t predicted = 0;
};

class DefsByLoad {
public:
    // first[n] .. first[n + 1] - 1: load node n's places; a temporary file
    // beside `beside`, or memory when it is empty.
    DefsByLoad(std::vector<std::uint64_t> first, const std::string& beside);

    // The defs of the next store node's edges (stores in increasing id), each
    // with its load node, in time order.
    void add_store(std::vector<std::pair<std::uint32_t, EdgeDef>>& defs);
    // Every store added: each load's defs put in time order.
    void finish();

    std::uint64_t count(std::size_t load) const { return first_[load + 1] - first_[load]; }
    // Load node `load`'s defs of its executions at t_first .. t_last, in time order.
    std::vector<EdgeDef> read(std::size_t load, std::uint32_t t_first, std::uint32_t t_last) const;

private:
    void put(std::uint64_t at, const EdgeDef* defs, std::size_t count);
    std::vector<EdgeDef> get(std::uint64_t at, std::size_t count) const;

    std::vector<std::uint64_t> first_;
    std::vector<std::uint64_t> fill_;
    std::unique_ptr<TemporaryFile> file_;
    std::vector<EdgeDef> memory_;  // when there is no file
};

}  // namespace tcgen::wet
