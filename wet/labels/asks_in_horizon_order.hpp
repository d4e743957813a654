#pragma once
// The asks a store node answers in the defs' inference (def_questions.hpp)
// in the order of their horizons (def_encoding.hpp's store_horizon): those
// kept under the store and those kept under each load it is a writer of,
// merged from their runs, each a load's asks in time order, as the store's
// executions are walked. Each run is read a piece at a time, its share of
// a bounded buffer, so that a store asked by a hot load, or by many, never
// has its asks held whole.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "wet/labels/def_encoding.hpp"
#include "wet/labels/def_questions.hpp"

namespace tcgen::wet {

class AsksInHorizonOrder {
public:
    AsksInHorizonOrder(const DefQuestions& questions, std::uint32_t store) : asks_(*questions.asks), store_(store) {
        std::vector<std::pair<std::uint64_t, std::uint64_t>> places = asks_.runs(store);
        for (const std::uint32_t load : questions.written_by[store]) {
            const auto more = asks_.runs(load);
            places.insert(places.end(), more.begin(), more.end());
        }
        piece_ = std::max<std::uint64_t>(least_piece, held_asks / std::max<std::size_t>(places.size(), 1));
        runs_.reserve(places.size());
        for (const auto& [begin, end] : places) {
            runs_.push_back(Run{begin, end, {}, 0});
            read_on(runs_.back());
            heads_.push_back(Head{horizon(runs_.back()), runs_.size() - 1});
        }
        std::make_heap(heads_.begin(), heads_.end(), later);
    }

    bool empty() const { return heads_.empty(); }

    // The next ask in `ask`; false once every ask was given. Of asks with
    // one horizon, a run's come before a later run's.
    bool next(DefAsk& ask) {
        if (heads_.empty()) {
            return false;
        }
        std::pop_heap(heads_.begin(), heads_.end(), later);
        Run& run = runs_[heads_.back().run];
        ask = run.piece[run.at++];
        if (run.at == run.piece.size() && !read_on(run)) {
            heads_.pop_back();
            return true;
        }
        heads_.back().horizon = horizon(run);
        std::push_heap(heads_.begin(), heads_.end(), later);
        return true;
    }

private:
    // The asks held of every run together, and the least of one run's.
    static constexpr std::uint64_t held_asks = std::uint64_t{1} << 18;
    static constexpr std::uint64_t least_piece = 256;

    struct Run {
        std::uint64_t next;  // the place of its first ask not read
        std::uint64_t end;
        std::vector<DefAsk> piece;
        std::size_t at;  // its next ask in `piece`
    };
    struct Head {
        std::uint64_t horizon;  // of its run's next ask
        std::size_t run;
    };
    static bool later(const Head& a, const Head& b) {
        return a.horizon != b.horizon ? a.horizon > b.horizon : a.run > b.run;
    }

    // The run's next piece, if it has asks left.
    bool read_on(Run& run) const {
        if (run.next == run.end) {
            return false;
        }
        const std::uint64_t count = std::min(piece_, run.end - run.next);
        run.piece = asks_.get(run.next, static_cast<std::size_t>(count));
        run.next += count;
        run.at = 0;
        return true;
    }
    std::uint64_t horizon(const Run& run) const {
        const DefAsk& ask = run.piece[run.at];
        return def_encoding::store_horizon(store_, ask.use, ask.t_use);
    }

    const AsksByNode& asks_;
    std::uint32_t store_;
    std::uint64_t piece_ = least_piece;
    std::vector<Run> runs_;
    std::vector<Head> heads_;  // a heap, the earliest horizon on top
};

}  // namespace tcgen::wet
