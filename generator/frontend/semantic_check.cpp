#include "generator/frontend/semantic_check.hpp"

#include <algorithm>
#include <string>


namespace tcgen {
namespace {

bool is_power_of_two(std::uint64_t value) {
    return value != 0 && (value & (value - 1)) == 0;
}

std::string field_label(std::uint64_t number) {
    return "field " + std::to_string(number);
}

class Checker {
public:
    explicit Checker(DiagnosticSink& sink) : sink_(sink) {}

    std::optional<Spec> run(const ast::Spec& syntax) {
        Spec spec;
        check_header_placement(syntax.headers);
        if (!syntax.headers.empty()) {
            spec.header_bits = check_header(syntax.headers.front());
            spec.header_span = syntax.headers.front().span;
        }
        if (syntax.fields.empty()) {
            SourceSpan where = syntax.pc ? syntax.pc->span : sink_.file().end_span();
            sink_.error(where, "the spec declares no fields; a record needs at least one");
        }
        if (syntax.fields.size() > max_fields) {
            sink_.error(syntax.fields[max_fields].span, "too many fields: " + std::to_string(syntax.fields.size()) +
                                                            "; at most " + std::to_string(max_fields));
        }
        check_numbering(syntax.fields);
        std::size_t predictions = 0;
        bool too_many_predictions = syntax.fields.size() > max_fields;  // reported as that already
        for (const ast::Field& field : syntax.fields) {
            spec.fields.push_back(check_field(field));
            predictions += spec.fields.back().prediction_count();
            if (predictions > max_predictions_in_all && !too_many_predictions) {
                too_many_predictions = true;
                sink_.error(field.span, "too many predictions: the fields up to " + field_label(field.number.value) +
                                            " make " + std::to_string(predictions) + " in all; at most " +
                                            std::to_string(max_predictions_in_all));
            }
        }
        check_pc(syntax, spec);
        check_encoding(syntax.encodings, spec);
        if (sink_.has_errors()) {
            return std::nullopt;
        }
        return spec;
    }

private:
    void check_header_placement(const std::vector<ast::Header>& headers) {
        for (std::size_t i = 0; i < headers.size(); ++i) {
            if (i > 0) {
                sink_.error(headers[i].span,
                            "header given twice (first on line " + std::to_string(headers[0].span.line) + ")");
            } else if (headers[i].follows_field) {
                sink_.error(headers[i].span, "the header statement must come before the fields");
            }
        }
    }

    unsigned check_header(const ast::Header& header) {
        std::uint64_t bits = header.bits.value;
        if (bits % 8 != 0) {
            sink_.error(header.bits.span, "header width must be a multiple of 8 bits, not " + std::to_string(bits));
            return 0;
        }
        if (bits > max_header_bits) {
            sink_.error(header.bits.span, "header of " + std::to_string(bits) + " bits is too large; at most " +
                                              std::to_string(max_header_bits) + " bits");
            return 0;
        }
        return static_cast<unsigned>(bits);
    }

    // Fields must be numbered 1, 2, 3, ... in record order. Only the first
    // numbering problem is reported: after one, every later number is off too.
    void check_numbering(const std::vector<ast::Field>& fields) {
        for (std::size_t i = 0; i < fields.size(); ++i) {
            const ast::Number& number = fields[i].number;
            std::uint64_t expected = i + 1;
            if (number.value == expected) {
                continue;
            }
            auto earlier = std::find_if(fields.begin(), fields.begin() + static_cast<std::ptrdiff_t>(i),
                                        [&](const ast::Field& f) { return f.number.value == number.value; });
            auto later = std::find_if(fields.begin() + static_cast<std::ptrdiff_t>(i), fields.end(),
                                      [&](const ast::Field& f) { return f.number.value == expected; });
            if (number.value == 0) {
                sink_.error(number.span, "field numbers start at 1");
            } else if (earlier != fields.begin() + static_cast<std::ptrdiff_t>(i)) {
                sink_.error(number.span, "duplicate field number " + std::to_string(number.value) +
                                             " (first declared on line " + std::to_string(earlier->number.span.line) +
                                             ")");
            } else if (later != fields.end()) {
                sink_.error(number.span, field_label(number.value) + " is out of order; expected " +
                                             field_label(expected) + " here");
            } else {
                sink_.error(number.span, "missing " + field_label(expected) + "; found " + field_label(number.value) +
                                             " (fields are numbered 1, 2, 3, ... in record order)");
            }
            return;
        }
    }

    Field check_field(const ast::Field& syntax) {
        Field field;
        field.span = syntax.span;
        field.l1_span = syntax.span;
        field.number = static_cast<unsigned>(std::min<std::uint64_t>(syntax.number.value, 1u << 30));
        std::uint64_t bits = syntax.bits.value;
        if (bits == 8 || bits == 16 || bits == 32 || bits == 64) {
            field.bits = static_cast<unsigned>(bits);
        } else {
            sink_.error(syntax.bits.span, "field width must be 8, 16, 32 or 64 bits, not " + std::to_string(bits));
        }
        check_level_sizes(syntax, field);
        if (syntax.predictors.empty()) {
            sink_.error(syntax.predictors_span,
                        field_label(syntax.number.value) + " has no predictors; list at least one");
        }
        for (const ast::Predictor& predictor : syntax.predictors) {
            field.predictors.push_back(check_predictor(predictor));
        }
        unsigned predictions = field.prediction_count();
        if (predictions > max_predictions_per_field && !syntax.predictors.empty()) {
            sink_.error(syntax.span, field_label(syntax.number.value) + " makes " + std::to_string(predictions) +
                                         " predictions; at most " + std::to_string(max_predictions_per_field) +
                                         " are supported (a prediction code is one byte)");
        }
        return field;
    }

    void check_level_sizes(const ast::Field& syntax, Field& field) {
        const ast::LevelSize* seen_l1 = nullptr;
        const ast::LevelSize* seen_l2 = nullptr;
        for (const ast::LevelSize& size : syntax.level_sizes) {
            bool is_l1 = size.kind == ast::LevelKind::l1;
            const char* name = is_l1 ? "L1" : "L2";
            const ast::LevelSize*& seen = is_l1 ? seen_l1 : seen_l2;
            if (seen != nullptr) {
                sink_.error(size.span, std::string(name) + " is given twice in " + field_label(syntax.number.value));
                continue;
            }
            seen = &size;
            std::uint64_t value = size.value.value;
            if (!is_power_of_two(value)) {
                sink_.error(size.value.span,
                            std::string(name) + " must be a power of two, not " + std::to_string(value));
                continue;
            }
            if (value > max_level_size) {
                sink_.error(size.value.span, std::string(name) + " = " + std::to_string(value) +
                                                 " is too large; at most " + std::to_string(max_level_size));
                continue;
            }
            (is_l1 ? field.l1 : field.l2) = value;
            if (is_l1) {
                field.l1_span = size.span;
            }
        }
    }

    Predictor check_predictor(const ast::Predictor& syntax) {
        Predictor predictor;
        predictor.span = syntax.span;
        predictor.kind = find_predictor_kind(syntax.name);
        if (predictor.kind == nullptr) {
            sink_.error(syntax.name_span, "unknown predictor '" + syntax.name + "'; tcgen knows " + kind_names());
            predictor.kind = predictor_kinds().front();  // keeps the model whole for the checks that follow
        } else if (predictor.kind->has_order() && !syntax.order) {
            sink_.error(syntax.name_span, syntax.name + " needs an order, as in " + syntax.name + "1[" +
                                              std::to_string(syntax.entries.value) + "]");
        } else if (!predictor.kind->has_order() && syntax.order) {
            sink_.error(syntax.order->span, syntax.name + " takes no order; write " + syntax.name + "[" +
                                                std::to_string(syntax.entries.value) + "]");
        }
        if (syntax.order && predictor.kind->has_order()) {
            std::uint64_t order = syntax.order->value;
            if (order == 0) {
                sink_.error(syntax.order->span, "predictor order must be at least 1");
            } else if (order > max_predictor_order) {
                sink_.error(syntax.order->span, "predictor order " + std::to_string(order) + " is too large; at most " +
                                                    std::to_string(max_predictor_order));
            } else {
                predictor.order = static_cast<unsigned>(order);
            }
        }
        if (predictor.kind->has_order() && predictor.order == 0) {
            predictor.order = 1;  // keep the model consistent for the checks that follow
        }
        std::uint64_t entries = syntax.entries.value;
        if (entries == 0) {
            sink_.error(syntax.entries.span, "a predictor must make at least one prediction, not [0]");
        } else if (entries > max_predictions_per_field) {
            sink_.error(syntax.entries.span, "[" + std::to_string(entries) + "] is too many predictions; at most " +
                                                 std::to_string(max_predictions_per_field));
        } else if (entries > 1 && predictor.kind->makes_one_prediction()) {
            sink_.error(syntax.entries.span, syntax.name + " makes one prediction; write " + syntax.name +
                                                 std::to_string(predictor.order) + "[1]");
        } else {
            predictor.entries = static_cast<unsigned>(entries);
        }
        return predictor;
    }

    // "DFCM, FCM, LV or MATCH"
    static std::string kind_names() {
        std::vector<std::string> names;
        for (const PredictorKind* kind : predictor_kinds()) {
            names.emplace_back(kind->keyword());
        }
        return word_list(names, "or");
    }

    void check_pc(const ast::Spec& syntax, Spec& spec) {
        if (syntax.fields.empty()) {
            return;  // already reported; any PC statement would be a follow-on error
        }
        if (!syntax.pc) {
            sink_.error(sink_.file().end_span(), "missing 'PC = Field N;' statement at the end of the spec");
            return;
        }
        const ast::Number& number = syntax.pc->field;
        if (number.value < 1 || number.value > syntax.fields.size()) {
            sink_.error(number.span, "PC field " + std::to_string(number.value) + " does not exist; the spec has " +
                                         std::to_string(syntax.fields.size()) +
                                         (syntax.fields.size() == 1 ? " field" : " fields"));
            return;
        }
        spec.pc_field = static_cast<unsigned>(number.value);
        const ast::Field& pc = syntax.fields[number.value - 1];
        for (const ast::LevelSize& size : pc.level_sizes) {
            if (size.kind == ast::LevelKind::l1 && size.value.value != 1) {
                sink_.error(size.span,
                            "the PC field must have L1 = 1: it is predicted first, "
                            "before any PC is known to index its tables");
                break;
            }
        }
    }

    // "# Encoding: tcgen --disable=a,b": names of letters and hyphens,
    // separated by commas; which names are allowed is the planner's to say.
    void check_encoding(const std::vector<ast::EncodingLine>& lines, Spec& spec) {
        for (std::size_t i = 0; i < lines.size(); ++i) {
            const ast::EncodingLine& line = lines[i];
            if (i > 0) {
                sink_.error(line.span, "encoding line given twice (first on line " + std::to_string(lines[0].span.line) +
                                           ")");
                continue;
            }
            std::string text = line.text;
            while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) {
                text.pop_back();
            }
            EncodingLine encoding{{}, line.span};
            bool well_formed = text.rfind(encoding_line_prefix, 0) == 0 && text.size() > encoding_line_prefix.size();
            std::size_t begin = encoding_line_prefix.size();
            while (well_formed && begin <= text.size()) {
                std::size_t end = std::min(text.find(',', begin), text.size());
                std::string name = text.substr(begin, end - begin);
                well_formed = !name.empty() && name.find_first_not_of("abcdefghijklmnopqrstuvwxyz-") == std::string::npos;
                encoding.disabled_passes.push_back(name);
                begin = end + 1;
            }
            if (!well_formed) {
                sink_.error(line.span, "malformed encoding line; tcgen writes it as '" +
                                           std::string(encoding_line_prefix) + "NAME,...'");
                continue;
            }
            spec.encoding = encoding;
        }
    }

    DiagnosticSink& sink_;
};

}  // namespace

std::optional<Spec> check_spec(const ast::Spec& syntax, DiagnosticSink& sink) {
    return Checker(sink).run(syntax);
}

}  // namespace tcgen
