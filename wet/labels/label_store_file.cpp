// The compressed labels in the saved WET (label_store.hpp): each section
// saved and loaded, and what was loaded checked against itself before any
// query trusts it.

#include "wet/labels/label_store.hpp"

#include <algorithm>
#include <array>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <type_traits>
#include <unordered_map>

#include "wet/labels/def_encoding.hpp"

namespace tcgen::wet {

using namespace def_encoding;

namespace {

void save_frames(ByteWriter& writer, const std::shared_ptr<SharedFrames>& frames) {
    if (frames) {
        frames->save(writer);
    } else {
        writer.u64(0);
    }
}

std::shared_ptr<SharedFrames> load_frames(ByteReader& reader, const std::string& what) {
    std::shared_ptr<SharedFrames> frames = SharedFrames::load(reader, what);
    return frames->size() != 0 ? frames : nullptr;
}

}  // namespace

void LabelStore::save_section(std::size_t section, ByteWriter& writer) const {
    switch (section) {
    case 0:
        flow_->save(writer);
        break;
    case 1:
        for (const std::uint32_t count : block_counts_) {
            writer.u32(count);
        }
        break;
    case 2:
        block_parents_.save(writer);
        break;
    case 3:
        for (std::size_t node = 0; node < node_mode_.size(); ++node) {
            writer.u8(node_mode_[node]);
            if (node_mode_[node] == static_cast<std::uint8_t>(Times::own)) {
                node_times_.save(writer, node);
            }
        }
        break;
    case 4:
        save_frames(writer, values_.frames());
        values_.save(writer);
        break;
    case 5:
        save_frames(writer, addresses_.frames());
        addresses_.save(writer);
        writer.u64(address_siblings_.size());
        for (const AddressSibling& pair : address_siblings_) {
            writer.u32(pair.node);
            writer.u32(pair.sibling);
        }
        break;
    default:
        defs_.save(writer);
        writer.u64(writer_loads_.size());
        for (std::size_t at = 0; at < writer_loads_.size(); ++at) {
            writer.u32(writer_loads_[at]);
            writer.u32(writer_first_[at + 1] - writer_first_[at]);
            for (std::uint32_t index = writer_first_[at]; index < writer_first_[at + 1]; ++index) {
                writer.u32(writers_[index]);
            }
        }
        break;
    }
}

void LabelStore::load_section(std::size_t section, ByteReader& reader) {
    const auto load_all = [&](auto& labels, std::size_t owners) {
        labels.reserve(owners, reader.remaining());
        for (std::size_t owner = 0; owner < owners; ++owner) {
            labels.add(reader);
        }
        labels.shrink();
    };
    switch (section) {
    case 0: {
        flow_ = FlowStream::load(reader, block_counts_.size());
        break;
    }
    case 1:
        for (std::uint32_t& count : block_counts_) {
            count = reader.u32();
        }
        break;
    case 2:
        load_all(block_parents_, block_counts_.size());
        break;
    case 3:
        node_times_.reserve(node_mode_.size(), reader.remaining());
        for (std::size_t node = 0; node < node_mode_.size(); ++node) {
            node_mode_[node] = reader.u8();
            if (node_mode_[node] > static_cast<std::uint8_t>(Times::own)) {
                reader.fail("node " + std::to_string(node) + ": unknown timestamp mode " +
                            std::to_string(node_mode_[node]));
            }
            if (node_mode_[node] != static_cast<std::uint8_t>(Times::own)) {
                node_times_.add_absent();
                continue;
            }
            node_times_.add(reader);
            if (node_times_.empty(node)) {
                reader.fail("node " + std::to_string(node) + ": its timestamps are missing");
            }
        }
        node_times_.shrink();
        break;
    case 4:
        values_.set_frames(load_frames(reader, "values"));
        load_all(values_, node_mode_.size());
        if (values_.frames()) {
            values_.frames()->check_referenced(reader, "values");
        }
        break;
    case 5:
        addresses_.set_frames(load_frames(reader, "addresses"));
        load_all(addresses_, node_mode_.size());
        if (addresses_.frames()) {
            addresses_.frames()->check_referenced(reader, "addresses");
        }
        address_siblings_.resize(reader.count(8));
        for (AddressSibling& pair : address_siblings_) {
            pair.node = reader.u32();
            pair.sibling = reader.u32();
        }
        mark_address_siblings();
        break;
    default:
        load_all(defs_, node_mode_.size());
        writer_loads_.resize(reader.count(12));  // node, count, one writer at least
        writer_first_.assign(1, 0);
        writers_.clear();
        for (std::uint32_t& load : writer_loads_) {
            load = reader.u32();
            const std::uint32_t count = reader.u32();
            if (count < 2 || count > max_load_writers) {
                reader.fail("load node " + std::to_string(load) + " has " + std::to_string(count) + " writers");
            }
            for (std::uint32_t index = 0; index < count; ++index) {
                writers_.push_back(reader.u32());
            }
            writer_first_.push_back(static_cast<std::uint32_t>(writers_.size()));
        }
        break;
    }
    reader.expect_end();
}

void LabelStore::check_loaded(const std::string& file, std::uint64_t events, std::uint64_t loads_with_a_def) const {
    const auto fail = [&](const std::string& what) { throw WetError(file, "inconsistent labels: " + what); };
    if (!flow_ || flow_->size() != executed_) {
        fail("the control flow does not hold " + std::to_string(executed_) + " timestamps");
    }
    std::uint64_t block_executions = 0;
    for (std::size_t block = 0; block < block_counts_.size(); ++block) {
        if (block_counts_[block] != block_parents_.records(block)) {
            fail("block " + std::to_string(block) + " has not as many executions as control parents");
        }
        block_executions += block_counts_[block];
    }
    if (block_executions != executed_) {
        fail("the blocks' counts do not add up to the " + std::to_string(executed_) + " executed blocks");
    }
    // META's counts are what `wet stats` reports; a block execution has one
    // control parent at most, a load execution one def at most.
    if (control_dependences_ > executed_) {
        fail("META counts " + std::to_string(control_dependences_) + " block executions with a control parent, of " +
             std::to_string(executed_) + " executed blocks");
    }
    for (std::size_t index = 0; index < address_siblings_.size(); ++index) {
        const AddressSibling& pair = address_siblings_[index];
        const auto every_execution = [&](std::uint32_t node) {
            return node < node_mode_.size() && times_of(node) == Times::block;
        };
        if ((index != 0 && pair.node <= address_siblings_[index - 1].node) || pair.sibling >= pair.node ||
            !every_execution(pair.node) || !every_execution(pair.sibling) ||
            shape_of(pair.node).block != shape_of(pair.sibling).block || address_sibling(pair.sibling)) {
            fail("address sibling " + std::to_string(index) + " (node " + std::to_string(pair.node) + ", sibling " +
                 std::to_string(pair.sibling) + ") is not an earlier node of the same block that keeps its own");
        }
    }
    for (std::size_t at = 0; at < writer_loads_.size(); ++at) {
        const std::uint32_t load = writer_loads_[at];
        if ((at != 0 && load <= writer_loads_[at - 1]) || load >= node_mode_.size() || defs_.empty(load)) {
            fail("writers " + std::to_string(at) + " are not of a load with defs, after the one before");
        }
        for (std::uint32_t index = writer_first_[at]; index < writer_first_[at + 1]; ++index) {
            const std::uint32_t store = writers_[index];
            if ((index != writer_first_[at] && store <= writers_[index - 1]) || store >= node_mode_.size() ||
                shape_of(store).access != 'S' || times_of(store) == Times::never ||
                shape_of(store).size > widest_inferred_store) {
                fail("writer " + std::to_string(store) + " of load node " + std::to_string(load) +
                     " is not a store that ran, after the one before");
            }
        }
    }
    std::uint64_t node_events = 0;
    std::uint64_t load_executions_with_defs = 0;
    for (std::size_t node = 0; node < node_mode_.size(); ++node) {
        const std::uint64_t count = node_executions(node);
        if (values_.records(node) != count || addresses_.records(node) != count ||
            (!defs_.empty(node) && defs_.records(node) != count) ||
            (node_mode_[node] != static_cast<std::uint8_t>(Times::never) && count == 0)) {
            fail("node " + std::to_string(node) + "'s labels differ in length");
        }
        if (!defs_.empty(node) && shape_of(node).access != 'L') {
            fail("node " + std::to_string(node) + " has defs but is not a load");
        }
        node_events += count;
        load_executions_with_defs += defs_.empty(node) ? 0 : count;
    }
    if (node_events != events) {
        fail("the nodes' executions are not " + std::to_string(events));
    }
    if (loads_with_a_def > load_executions_with_defs) {
        fail("META counts " + std::to_string(loads_with_a_def) + " loads with a def, the loads with defs ran " +
             std::to_string(load_executions_with_defs) + " times");
    }
}

}  // namespace tcgen::wet
