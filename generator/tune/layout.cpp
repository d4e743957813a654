#include "generator/tune/layout.hpp"

#include <ostream>

#include "generator/frontend/frontend.hpp"

namespace tcgen::tune {

namespace {

// A decimal number of at most 4 digits, so that nothing overflows.
std::optional<unsigned> small_number(const std::string& digits) {
    if (digits.empty() || digits.size() > 4 || digits.find_first_not_of("0123456789") != std::string::npos) {
        return std::nullopt;
    }
    return static_cast<unsigned>(std::stoul(digits));
}

}  // namespace

std::optional<Candidate> parse_record_layout(const std::string& text, std::string& error) {
    Candidate candidate;
    bool has_pc = false;
    std::size_t begin = 0;
    bool first = true;
    while (begin <= text.size()) {
        std::size_t end = std::min(text.find(',', begin), text.size());
        const std::string item = text.substr(begin, end - begin);
        begin = end + 1;
        const std::string quoted = "--record: '" + item + "'";
        if (!item.empty() && item[0] == 'h') {
            std::optional<unsigned> bits = small_number(item.substr(1));
            if (!first) {
                error = quoted + ": the header (hN) can only be the first item";
                return std::nullopt;
            }
            if (!bits || *bits % 8 != 0) {
                error = quoted + ": a header is hN with N a multiple of 8 (h32: a 4-byte header)";
                return std::nullopt;
            }
            candidate.header_bits = *bits;
            first = false;
            continue;
        }
        first = false;
        const bool is_pc = item.rfind("pc", 0) == 0;
        std::optional<unsigned> bits = small_number(is_pc ? item.substr(2) : item);
        if (!bits || (*bits != 8 && *bits != 16 && *bits != 32 && *bits != 64)) {
            error = quoted + " is not a field: N or pcN with N = 8, 16, 32 or 64 (e.g. --record=h32,pc32,64)";
            return std::nullopt;
        }
        if (is_pc && has_pc) {
            error = quoted + ": only one field can be the PC";
            return std::nullopt;
        }
        FieldChoice field;
        field.bits = *bits;
        candidate.fields.push_back(field);
        if (is_pc) {
            has_pc = true;
            candidate.pc_field = static_cast<unsigned>(candidate.fields.size());
        }
    }
    if (candidate.fields.empty()) {
        error = "--record: no fields (e.g. --record=h32,pc32,64)";
        return std::nullopt;
    }
    if (candidate.fields.size() > 255) {
        error = "--record: more than 255 fields";
        return std::nullopt;
    }
    if (!has_pc) {
        error = "--record: no PC field; mark one field pcN (e.g. --record=h32,pc32,64)";
        return std::nullopt;
    }
    return candidate;
}

std::optional<Candidate> spec_candidate(const SourceFile& file, std::ostream& diagnostics) {
    DiagnosticSink sink(file);
    std::optional<Spec> spec = compile_spec(file, sink);
    sink.print(diagnostics);
    if (!spec) {
        return std::nullopt;
    }
    Candidate candidate;
    candidate.header_bits = spec->header_bits;
    candidate.pc_field = spec->pc_field;
    candidate.record_ids = spec->record_ids;
    for (const Field& field : spec->fields) {
        FieldChoice choice;
        choice.bits = field.bits;
        choice.l1 = field.l1;
        choice.l2 = field.l2;
        for (const Predictor& predictor : field.predictors) {
            // A kind that may go last, anywhere but first, is kept last (sort_predictors).
            choice.movable_last =
                choice.movable_last || (predictor.kind->tuning().may_go_last && !choice.predictors.empty());
            choice.predictors.push_back(PredictorChoice{predictor.kind, predictor.order, predictor.entries});
        }
        candidate.fields.push_back(choice);
    }
    return candidate;
}

std::string layout_text(const Candidate& candidate) {
    std::string text = candidate.header_bits == 0 ? "" : "h" + std::to_string(candidate.header_bits);
    for (std::size_t index = 0; index < candidate.fields.size(); ++index) {
        text += text.empty() ? "" : ",";
        text += (index + 1 == candidate.pc_field ? "pc" : "") + std::to_string(candidate.fields[index].bits);
    }
    return text;
}

}  // namespace tcgen::tune
