// libtcgen_wet_c: the C interface of the WET object (<tcgen/tcgen_wet.h>),
// a thin layer over libtcgen_wet and the queries it shares with the `wet`
// command (<tcgen/wet/queries.hpp>), so that both answer and refuse alike.
// Every call catches what the library throws: no exception crosses the
// interface.

#include <tcgen/tcgen_wet.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <new>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <tcgen/wet/queries.hpp>
#include <tcgen/wet/whole_execution_trace.hpp>

using tcgen::wet::WholeExecutionTrace;

// The columns of the latest query: the arrays the result structures point into.
struct QueryColumns {
    std::vector<std::uint32_t> t, id, other_t;
    std::vector<char> kind;
    std::vector<std::uint8_t> slot, other_slot;
    std::vector<std::uint64_t> pc, value, address, executions;

    void clear() { *this = QueryColumns(); }
};

struct tcgen_wet {
    std::string path;
    // Shared by the handles tcgen_wet_share made from one open: its queries
    // are const and safe from several threads; what each handle moves
    // (columns, error) is its own.
    std::shared_ptr<const WholeExecutionTrace> trace;
    std::string error;
    QueryColumns columns;
};

namespace {

// A mistake of the caller's: "wet: error: WHAT" on the command line.
class ArgumentError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// Runs `query` on an open handle, turning what it throws into a status and
// the line `wet` prints after "wet: " (common/command_line.hpp's run_subcommands).
template <typename Query>
int guarded(tcgen_wet* wet, int file_status, Query query) {
    if (wet == nullptr) {
        return TCGEN_WET_ERROR_ARGUMENT;
    }
    wet->error.clear();
    const auto fail = [&](int status, const std::string& line) {
        wet->error = line;
        return status;
    };
    try {
        query(*wet);
        return TCGEN_WET_OK;
    } catch (const ArgumentError& error) {
        return fail(TCGEN_WET_ERROR_ARGUMENT, std::string("error: ") + error.what());
    } catch (const tcgen::FileError& error) {
        return fail(file_status, error.what());
    } catch (const std::bad_alloc&) {
        return fail(TCGEN_WET_ERROR_OUT_OF_MEMORY, wet->path + ": error: out of memory");
    } catch (const std::length_error&) {
        return fail(TCGEN_WET_ERROR_OUT_OF_MEMORY,
                    wet->path + ": error: out of memory: a size past what this machine can hold");
    } catch (const std::exception& error) {  // the streams throw without naming the WET
        return fail(file_status, wet->path + ": error: " + error.what());
    } catch (...) {
        return fail(TCGEN_WET_ERROR_INTERNAL, wet->path + ": error: internal error: an unknown exception");
    }
}

const WholeExecutionTrace& trace_of(tcgen_wet& wet) {
    if (!wet.trace) {
        throw ArgumentError("the WET handle holds no trace: its open failed");
    }
    return *wet.trace;
}

void need(const void* pointer, const char* what) {
    if (pointer == nullptr) {
        throw ArgumentError(std::string(what) + " is NULL");
    }
}

// The start of a def or a slice, as `wet` parses INSTANCE and --at.
tcgen::wet::QueryStart start_of(const WholeExecutionTrace& trace, std::uint64_t pc, std::uint64_t instance,
                                std::uint64_t at) {
    if ((instance == TCGEN_WET_NONE) == (at == TCGEN_WET_NONE)) {
        throw ArgumentError(instance == TCGEN_WET_NONE ? "give INSTANCE or --at=T"
                                                       : "give INSTANCE or --at=T, not both");
    }
    if (at != TCGEN_WET_NONE) {
        return tcgen::wet::start_at(trace, pc, at, "--at=" + std::to_string(at));
    }
    tcgen::wet::QueryStart start;
    start.pc = pc;
    start.instance = instance;
    return start;
}

// A slice's window as `wet slice --from --until --count` gives it.
tcgen::wet::SliceWindow slice_window(std::uint64_t from, std::uint64_t until, std::uint64_t count) {
    for (const auto& [option, t] : {std::pair{"--from", from}, std::pair{"--until", until}}) {
        if (t != TCGEN_WET_NONE && (t == 0 || t > UINT32_MAX)) {  // as `wet slice` refuses it
            throw ArgumentError(std::string(option) + "=" + std::to_string(t) + " is not a timestamp (1 or more)");
        }
    }
    tcgen::wet::SliceWindow window;
    window.from = from == TCGEN_WET_NONE ? UINT32_MAX : static_cast<std::uint32_t>(from);
    window.until = until == TCGEN_WET_NONE ? 1 : static_cast<std::uint32_t>(until);
    window.count = static_cast<std::size_t>(std::min<std::uint64_t>(count, SIZE_MAX));
    return window;
}

void add_slice_rows(QueryColumns& columns, const tcgen::wet::SliceItem* items, std::size_t count) {
    for (const tcgen::wet::SliceItem* item = items; item != items + count; ++item) {
        columns.t.push_back(item->t);
        columns.kind.push_back(item->kind);
        columns.pc.push_back(item->pc);
        columns.slot.push_back(item->slot);
        columns.id.push_back(item->id);
    }
}

tcgen_wet_slice_rows slice_rows(const QueryColumns& columns) {
    return {columns.t.size(), columns.t.data(), columns.kind.data(), columns.pc.data(), columns.slot.data(),
            columns.id.data()};
}

}  // namespace

// A slice's walk: its own columns, so that a walk's rows stay valid while
// the handle answers other queries.
struct tcgen_wet_slice_walk {
    tcgen_wet* wet;
    WholeExecutionTrace::SliceWalk walk;
    std::vector<tcgen::wet::SliceItem> items;  // the walk's latest timestamp's
    std::size_t handed;                        // of them
    QueryColumns columns;
};

extern "C" {

unsigned tcgen_wet_abi_version(void) {
    return TCGEN_WET_ABI_VERSION;
}

const char* tcgen_wet_status_name(int status) {
    switch (status) {
        case TCGEN_WET_OK:
            return "TCGEN_WET_OK";
        case TCGEN_WET_ERROR_INPUT:
            return "TCGEN_WET_ERROR_INPUT";
        case TCGEN_WET_ERROR_ARGUMENT:
            return "TCGEN_WET_ERROR_ARGUMENT";
        case TCGEN_WET_ERROR_OUT_OF_MEMORY:
            return "TCGEN_WET_ERROR_OUT_OF_MEMORY";
        case TCGEN_WET_ERROR_INTERNAL:
            return "TCGEN_WET_ERROR_INTERNAL";
        case TCGEN_WET_ERROR_QUERY:
            return "TCGEN_WET_ERROR_QUERY";
        default:
            return "unknown status";
    }
}

int tcgen_wet_open(const char* path, tcgen_wet** wet) {
    if (wet == nullptr) {
        return TCGEN_WET_ERROR_ARGUMENT;
    }
    *wet = new (std::nothrow) tcgen_wet();
    if (*wet == nullptr) {
        return TCGEN_WET_ERROR_OUT_OF_MEMORY;
    }
    return guarded(*wet, TCGEN_WET_ERROR_INPUT, [&](tcgen_wet& handle) {
        need(path, "path");
        handle.path = path;
        handle.trace = std::make_shared<const WholeExecutionTrace>(WholeExecutionTrace::load(path));
    });
}

int tcgen_wet_share(tcgen_wet* wet, tcgen_wet** shared) {
    if (shared == nullptr) {
        return TCGEN_WET_ERROR_ARGUMENT;
    }
    *shared = new (std::nothrow) tcgen_wet();
    if (*shared == nullptr) {
        return TCGEN_WET_ERROR_OUT_OF_MEMORY;
    }
    return guarded(*shared, TCGEN_WET_ERROR_ARGUMENT, [&](tcgen_wet& handle) {
        need(wet, "wet");
        trace_of(*wet);  // refuses a handle whose open failed
        handle.path = wet->path;
        handle.trace = wet->trace;
    });
}

const char* tcgen_wet_error(const tcgen_wet* wet) {
    return wet == nullptr ? "out of memory" : wet->error.c_str();
}

void tcgen_wet_free(tcgen_wet* wet) {
    delete wet;
}

int tcgen_wet_get_stats(tcgen_wet* wet, tcgen_wet_stats* stats) {
    return guarded(wet, TCGEN_WET_ERROR_QUERY, [&](tcgen_wet& handle) {
        need(stats, "stats");
        const WholeExecutionTrace& trace = trace_of(handle);
        stats->executed = trace.executed();
        stats->blocks = trace.block_count();
        stats->nodes = trace.node_count();
        stats->events = trace.events();
        stats->defs = trace.edges();
    });
}

int tcgen_wet_cf(tcgen_wet* wet, uint64_t start, size_t count, uint32_t* blocks, uint64_t* pcs, size_t* written) {
    return guarded(wet, TCGEN_WET_ERROR_QUERY, [&](tcgen_wet& handle) {
        need(written, "written");
        *written = 0;
        const WholeExecutionTrace& trace = trace_of(handle);
        if (start == 0 || start > trace.executed()) {  // as `wet cf --from` refuses it
            throw tcgen::wet::WetError(
                trace.name(), "--from=" + std::to_string(start) + " is outside 1.." + std::to_string(trace.executed()));
        }
        auto cursor = trace.control_flow(static_cast<std::uint32_t>(start - 1));
        tcgen::wet::FlowStep step;
        while (*written < count && cursor.next(step)) {
            if (blocks != nullptr) {
                blocks[*written] = step.block;
            }
            if (pcs != nullptr) {
                pcs[*written] = trace.block(step.block).pc;
            }
            ++*written;
        }
    });
}

int tcgen_wet_top(tcgen_wet* wet, uint64_t count, tcgen_wet_top_rows* top) {
    return guarded(wet, TCGEN_WET_ERROR_QUERY, [&](tcgen_wet& handle) {
        need(top, "top");
        QueryColumns& columns = handle.columns;
        columns.clear();
        for (const tcgen::wet::TopRow& row : tcgen::wet::top(trace_of(handle), count)) {
            columns.kind.push_back(row.kind);
            columns.executions.push_back(row.executions);
            columns.pc.push_back(row.pc);
            columns.id.push_back(row.id);
        }
        *top = {columns.kind.size(), columns.kind.data(), columns.executions.data(), columns.pc.data(),
                columns.id.data()};
    });
}

int tcgen_wet_accesses(tcgen_wet* wet, uint64_t pc, tcgen_wet_access_rows* accesses) {
    return guarded(wet, TCGEN_WET_ERROR_QUERY, [&](tcgen_wet& handle) {
        need(accesses, "accesses");
        QueryColumns& columns = handle.columns;
        columns.clear();
        for (const tcgen::wet::Access& access : trace_of(handle).accesses(pc)) {
            columns.t.push_back(access.t);
            columns.kind.push_back(access.access);
            columns.slot.push_back(access.slot);
            columns.value.push_back(access.value);
            columns.address.push_back(access.address);
        }
        *accesses = {columns.t.size(),    columns.t.data(),     columns.kind.data(),
                     columns.slot.data(), columns.value.data(), columns.address.data()};
    });
}

int tcgen_wet_def(tcgen_wet* wet, uint64_t pc, uint64_t instance, uint64_t at, tcgen_wet_def_rows* defs) {
    return guarded(wet, TCGEN_WET_ERROR_QUERY, [&](tcgen_wet& handle) {
        need(defs, "defs");
        const WholeExecutionTrace& trace = trace_of(handle);
        QueryColumns& columns = handle.columns;
        columns.clear();
        for (const tcgen::wet::LoadDef& load : tcgen::wet::load_defs(trace, start_of(trace, pc, instance, at))) {
            columns.t.push_back(load.t);
            columns.slot.push_back(load.slot);
            columns.other_t.push_back(load.def ? load.def->t : 0);
            columns.other_slot.push_back(load.def ? trace.node(load.def->node).slot : 0);
            columns.pc.push_back(load.def ? trace.node(load.def->node).pc : 0);
        }
        *defs = {columns.t.size(),       columns.t.data(),          columns.slot.data(),
                 columns.other_t.data(), columns.other_slot.data(), columns.pc.data()};
    });
}

int tcgen_wet_slice(tcgen_wet* wet, uint64_t pc, uint64_t instance, uint64_t at, uint64_t from, uint64_t count,
                    tcgen_wet_slice_rows* slice) {
    return guarded(wet, TCGEN_WET_ERROR_QUERY, [&](tcgen_wet& handle) {
        need(slice, "slice");
        const WholeExecutionTrace& trace = trace_of(handle);
        WholeExecutionTrace::SliceWalk walk = tcgen::wet::slice_walk(
            trace, start_of(trace, pc, instance, at), slice_window(from, TCGEN_WET_NONE, count));
        QueryColumns& columns = handle.columns;
        columns.clear();
        std::vector<tcgen::wet::SliceItem> items;
        while (walk.next(items)) {
            add_slice_rows(columns, items.data(), items.size());
        }
        *slice = slice_rows(columns);
    });
}

int tcgen_wet_slice_walk_open(tcgen_wet* wet, uint64_t pc, uint64_t instance, uint64_t at, uint64_t from,
                              uint64_t until, uint64_t count, tcgen_wet_slice_walk** walk) {
    if (walk != nullptr) {
        *walk = nullptr;
    }
    return guarded(wet, TCGEN_WET_ERROR_QUERY, [&](tcgen_wet& handle) {
        need(walk, "walk");
        const WholeExecutionTrace& trace = trace_of(handle);
        *walk = new tcgen_wet_slice_walk{
            &handle, tcgen::wet::slice_walk(trace, start_of(trace, pc, instance, at), slice_window(from, until, count)),
            {}, 0, {}};
    });
}

int tcgen_wet_slice_walk_next(tcgen_wet_slice_walk* walk, size_t max_rows, tcgen_wet_slice_rows* rows) {
    if (walk == nullptr) {
        return TCGEN_WET_ERROR_ARGUMENT;
    }
    return guarded(walk->wet, TCGEN_WET_ERROR_QUERY, [&](tcgen_wet&) {
        need(rows, "rows");
        if (max_rows == 0) {
            throw ArgumentError("max_rows is 0");
        }
        QueryColumns& columns = walk->columns;
        columns.clear();
        // The walk hands out a timestamp's items at once; what does not fit
        // waits in `items` for the next call.
        while (columns.t.size() < max_rows) {
            if (walk->handed == walk->items.size()) {
                walk->handed = 0;
                if (!walk->walk.next(walk->items)) {
                    break;
                }
            }
            const std::size_t take = std::min(max_rows - columns.t.size(), walk->items.size() - walk->handed);
            add_slice_rows(columns, walk->items.data() + walk->handed, take);
            walk->handed += take;
        }
        *rows = slice_rows(columns);
    });
}

void tcgen_wet_slice_walk_free(tcgen_wet_slice_walk* walk) {
    delete walk;
}

}  // extern "C"
