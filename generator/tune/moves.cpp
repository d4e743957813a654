#include "generator/tune/moves.hpp"

#include <algorithm>
#include <cstdint>

namespace tcgen::tune {

namespace {

constexpr unsigned max_order = 8;
constexpr unsigned max_entries = 8;
constexpr std::uint64_t min_l2 = 1024;
constexpr std::uint64_t max_l2 = std::uint64_t{1} << 22;
constexpr std::uint64_t max_l1 = std::uint64_t{1} << 22;

std::string field_name(std::size_t index) {
    return "field " + std::to_string(index + 1);
}

// A predictor's use: the share of the field's values written with one of
// its slots, and with its last slot.
struct Use {
    double share = 0;
    double last_slot_share = 0;
};

std::vector<Use> predictor_uses(const FieldChoice& field, const std::vector<std::uint64_t>& hits) {
    std::vector<Use> uses(field.predictors.size());
    std::uint64_t total = 0;
    for (std::uint64_t count : hits) {
        total += count;
    }
    unsigned slot = 0;
    for (std::size_t index = 0; index < field.predictors.size(); ++index) {
        const unsigned entries = field.predictors[index].entries;
        if (total == 0 || hits.size() != field.prediction_count() + 1) {
            uses[index] = {1.0, 1.0};  // no report: no preference
        } else {
            std::uint64_t sum = 0;
            for (unsigned entry = 0; entry < entries; ++entry) {
                sum += hits[slot + entry];
            }
            uses[index].share = static_cast<double>(sum) / static_cast<double>(total);
            uses[index].last_slot_share = static_cast<double>(hits[slot + entries - 1]) / static_cast<double>(total);
        }
        slot += entries;
    }
    return uses;
}

bool has_predictor(const FieldChoice& field, const PredictorKind* kind, unsigned order) {
    return std::any_of(field.predictors.begin(), field.predictors.end(), [&](const PredictorChoice& predictor) {
        return predictor.kind == kind && predictor.order == order;
    });
}

// The kinds the search adds to a field that lacks them, in the PC field's
// slot order.
std::vector<const PredictorKind*> kinds_to_add() {
    std::vector<const PredictorKind*> kinds;
    for (const PredictorKind* kind : predictor_kinds()) {
        if (kind->tuning().added) {
            kinds.push_back(kind);
        }
    }
    std::stable_sort(kinds.begin(), kinds.end(), [](const PredictorKind* a, const PredictorKind* b) {
        return a->tuning().place_on_pc_field < b->tuning().place_on_pc_field;
    });
    return kinds;
}

// A move ranked for sorting within its group: lower rank first, ties in
// generation order.
struct RankedMove {
    double rank;
    Move move;
};

std::vector<Move> sorted_moves(std::vector<RankedMove> ranked, Phase phase) {
    std::stable_sort(ranked.begin(), ranked.end(),
                     [](const RankedMove& a, const RankedMove& b) { return a.rank < b.rank; });
    std::vector<Move> moves;
    for (RankedMove& entry : ranked) {
        entry.move.phase = phase;
        moves.push_back(std::move(entry.move));
    }
    return moves;
}

}  // namespace

Candidate wide_candidate(const Candidate& layout) {
    Candidate wide = layout;
    for (std::size_t index = 0; index < wide.fields.size(); ++index) {
        FieldChoice& field = wide.fields[index];
        const bool is_pc = index + 1 == wide.pc_field;
        field.l2 = field.bits == 8 ? 4096 : 131072;
        field.l1 = is_pc || wide.fields.size() == 1 ? 1 : 65536;
        field.predictors.clear();
        for (const PredictorKind* kind : predictor_kinds()) {
            const KindTuning& tuning = kind->tuning();
            for (const KindTuning::Use& use : is_pc ? tuning.wide_pc_field : tuning.wide_other_fields) {
                field.predictors.push_back({kind, use.order, use.entries});
            }
        }
        sort_predictors(field, is_pc);
    }
    return wide;
}

bool shrink_tables(Candidate& candidate) {
    bool shrunk = false;
    for (FieldChoice& field : candidate.fields) {
        if (field.l2 > min_l2) {
            field.l2 /= 2;
            shrunk = true;
        }
    }
    if (shrunk) {
        return true;
    }
    for (FieldChoice& field : candidate.fields) {
        if (field.l1 > 1) {
            field.l1 /= 2;
            shrunk = true;
        }
    }
    return shrunk;
}

std::vector<Move> neighbour_moves(const Candidate& current, const UsageCounts& usage, const Candidate& floor,
                                  Phase first) {
    std::vector<RankedMove> prune, grow, reorder;
    std::vector<Move> sizes;
    for (std::size_t index = 0; index < current.fields.size(); ++index) {
        const FieldChoice& field = current.fields[index];
        const bool is_pc = index + 1 == current.pc_field;
        const std::vector<std::uint64_t> no_hits;
        const std::vector<Use> uses = predictor_uses(field, index < usage.size() ? usage[index] : no_hits);
        auto changed = [&](const std::string& change, FieldChoice new_field) {
            sort_predictors(new_field, is_pc);
            Move move{field_name(index) + ": " + change, current};
            move.candidate.fields[index] = new_field;
            return move;
        };
        for (std::size_t slot = 0; slot < field.predictors.size(); ++slot) {
            const PredictorChoice& predictor = field.predictors[slot];
            const std::string name = predictor_text(predictor);
            if (field.predictors.size() > 1) {
                FieldChoice without = field;
                without.predictors.erase(without.predictors.begin() + static_cast<std::ptrdiff_t>(slot));
                prune.push_back({uses[slot].share, changed("drop " + name, without)});
            }
            if (predictor.entries > 1) {
                FieldChoice fewer = field;
                fewer.predictors[slot].entries -= 1;
                // After a drop of equal use: a whole predictor goes first.
                prune.push_back({uses[slot].last_slot_share + 1e-9, changed(name + " -> " + predictor_text(fewer.predictors[slot]), fewer)});
            }
            if (predictor.entries < max_entries && !predictor.kind->makes_one_prediction() &&
                uses[slot].last_slot_share >= 0.01) {
                FieldChoice more = field;
                more.predictors[slot].entries += 1;
                grow.push_back({-uses[slot].last_slot_share, changed(name + " -> " + predictor_text(more.predictors[slot]), more)});
            }
            if (predictor.kind->has_order()) {
                for (int step : {-1, +1}) {
                    const unsigned order = predictor.order + static_cast<unsigned>(step);
                    if (order < 1 || order > max_order || has_predictor(field, predictor.kind, order)) {
                        continue;
                    }
                    PredictorChoice neighbour{predictor.kind, order, predictor.kind->makes_one_prediction() ? 1u : 2u};
                    FieldChoice added = field;
                    added.predictors.push_back(neighbour);
                    grow.push_back({-uses[slot].share, changed("add " + predictor_text(neighbour), added)});
                    FieldChoice moved = field;
                    moved.predictors[slot].order = order;
                    reorder.push_back({-uses[slot].share,
                                       changed(name + " -> " + predictor_text(moved.predictors[slot]), moved)});
                }
            }
        }
        const PredictorChoice* movable = find_movable(field);
        if (movable != nullptr && field.predictors.size() > 1) {
            FieldChoice placed = field;
            placed.movable_last = !field.movable_last;
            const std::size_t slot = static_cast<std::size_t>(movable - field.predictors.data());
            reorder.push_back({-uses[slot].share,
                               changed(predictor_text(*movable) + (placed.movable_last ? " last" : " first"), placed)});
        }
        for (const PredictorKind* kind : kinds_to_add()) {
            if (find_kind(field, kind) == nullptr) {
                PredictorChoice missing{kind, kind->tuning().added->order, kind->tuning().added->entries};
                FieldChoice added = field;
                added.predictors.push_back(missing);
                grow.push_back({0.0, changed("add " + predictor_text(missing), added)});
            }
        }
        auto sized = [&](const std::string& change, std::uint64_t l1, std::uint64_t l2) {
            FieldChoice resized = field;
            resized.l1 = l1;
            resized.l2 = l2;
            sizes.push_back(changed(change, resized));
            sizes.back().phase = Phase::sizes;
        };
        const FieldChoice& least = floor.fields[index];
        if (field.l2 > min_l2 && field.l2 / 2 >= least.l2) {
            sized("L2 = " + std::to_string(field.l2 / 2), field.l1, field.l2 / 2);
        }
        if (field.l2 < max_l2) {
            sized("L2 = " + std::to_string(field.l2 * 2), field.l1, field.l2 * 2);
        }
        if (!is_pc && field.l1 > 1 && field.l1 / 4 >= least.l1) {
            sized("L1 = " + std::to_string(field.l1 / 4 > 0 ? field.l1 / 4 : 1), field.l1 / 4 > 0 ? field.l1 / 4 : 1,
                  field.l2);
        }
        if (!is_pc && field.l1 < max_l1) {
            sized("L1 = " + std::to_string(field.l1 * 4), field.l1 * 4, field.l2);
        }
    }
    std::vector<Move> groups[phase_count] = {sorted_moves(std::move(prune), Phase::prune), sizes,
                                             sorted_moves(std::move(grow), Phase::grow),
                                             sorted_moves(std::move(reorder), Phase::reorder)};
    std::vector<Move> moves;
    for (unsigned step = 0; step < phase_count; ++step) {
        std::vector<Move>& group = groups[(static_cast<unsigned>(first) + step) % phase_count];
        moves.insert(moves.end(), group.begin(), group.end());
    }
    // A field makes at most 255 predictions (codes are bytes).
    moves.erase(std::remove_if(moves.begin(), moves.end(),
                               [](const Move& move) {
                                   return std::any_of(move.candidate.fields.begin(), move.candidate.fields.end(),
                                                      [](const FieldChoice& field) {
                                                          return field.prediction_count() > 255;
                                                      });
                               }),
                moves.end());
    return moves;
}

}  // namespace tcgen::tune
