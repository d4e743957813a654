#include "generator/frontend/semantic_check.hpp"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>
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
        check_ids(syntax.ids, spec);
        if (syntax.fields.empty()) {
            SourceSpan where = syntax.pc ? syntax.pc->span : sink_.file().end_span();
            sink_.error(where, "the spec declares no fields; a record needs at least one");
        }
        count_elements(syntax.fields);
        check_numbering(syntax.fields);
        check_names(syntax.fields);
        std::size_t predictions = 0;
        bool too_many_predictions = too_many_fields_;  // reported as that already
        for (std::size_t i = 0; i < syntax.fields.size(); ++i) {
            const ast::Field& field = syntax.fields[i];
            Field checked = check_field(field);
            for (unsigned k = 0; k < counts_[i]; ++k) {
                spec.fields.push_back(checked);
                Field& element = spec.fields.back();
                element.number = static_cast<unsigned>(std::min<std::uint64_t>(firsts_[i] + k, 1u << 30));
                element.name = field.name ? field.name->text : "";
                if (field.array_size) {
                    element.element = element_offsets_[i] + k;
                }
                predictions += checked.prediction_count();
            }
            if (predictions > max_predictions_in_all && !too_many_predictions) {
                too_many_predictions = true;
                sink_.error(field.span, "too many predictions: the fields up to " +
                                            field_label(firsts_[i] + counts_[i] - 1) + " make " +
                                            std::to_string(predictions) + " in all; at most " +
                                            std::to_string(max_predictions_in_all));
            }
        }
        for (Field& field : spec.fields) {
            if (field.element) {
                field.array_size = array_sizes_[field.name];
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

    // "32-Bit Ids;": once, before the fields, and 32 bits (the ids' width in
    // the format).
    void check_ids(const std::vector<ast::Ids>& ids, Spec& spec) {
        for (std::size_t i = 0; i < ids.size(); ++i) {
            if (i > 0) {
                sink_.error(ids[i].span, "ids given twice (first on line " + std::to_string(ids[0].span.line) + ")");
            } else if (ids[i].follows_field) {
                sink_.error(ids[i].span, "the ids statement must come before the fields");
            }
        }
        if (ids.empty()) {
            return;
        }
        if (ids.front().bits.value != 32) {
            sink_.error(ids.front().bits.span, "record ids are 32 bits wide: write '32-Bit Ids;', not " +
                                                   std::to_string(ids.front().bits.value));
        }
        spec.record_ids = true;
        spec.ids_span = ids.front().span;
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

    // How many fields each statement declares (an array's size, else one)
    // and the number its first should have; the total is checked against
    // the limit once.
    void count_elements(const std::vector<ast::Field>& fields) {
        std::uint64_t total = 0;
        for (const ast::Field& field : fields) {
            unsigned count = 1;
            if (field.array_size) {
                const ast::Number& size = *field.array_size;
                if (size.value == 0) {
                    sink_.error(size.span, "an array has at least one field, not [0]");
                } else if (size.value > max_fields) {
                    sink_.error(size.span, "an array of " + std::to_string(size.value) +
                                               " fields is too large; a spec has at most " +
                                               std::to_string(max_fields) + " fields");
                } else {
                    count = static_cast<unsigned>(size.value);
                }
            }
            firsts_.push_back(total + 1);
            counts_.push_back(count);
            total += count;
            if (total > max_fields && !too_many_fields_) {
                too_many_fields_ = true;
                sink_.error(field.span, "too many fields: " + std::to_string(total_fields(fields)) + "; at most " +
                                            std::to_string(max_fields));
            }
        }
    }

    static std::uint64_t total_fields(const std::vector<ast::Field>& fields) {
        std::uint64_t total = 0;
        for (const ast::Field& field : fields) {
            std::uint64_t size = field.array_size ? field.array_size->value : 1;
            total += size == 0 || size > max_fields ? 1 : size;
        }
        return total;
    }

    // Fields must be numbered 1, 2, 3, ... in record order; an array of N
    // takes N numbers, so the statement after it goes on from there. Only
    // the first numbering problem is reported: after one, every later
    // number is off too.
    void check_numbering(const std::vector<ast::Field>& fields) {
        for (std::size_t i = 0; i < fields.size(); ++i) {
            const ast::Number& number = fields[i].number;
            std::uint64_t expected = firsts_[i];
            if (number.value == expected) {
                continue;
            }
            auto declared_in = [&](std::size_t j) {
                return number.value >= firsts_[j] && number.value < firsts_[j] + counts_[j];
            };
            std::size_t earlier = 0;
            while (earlier < i && !declared_in(earlier)) {
                ++earlier;
            }
            auto later = std::find_if(fields.begin() + static_cast<std::ptrdiff_t>(i), fields.end(),
                                      [&](const ast::Field& f) { return f.number.value == expected; });
            const ast::Field* array_before = i > 0 && counts_[i - 1] > 1 ? &fields[i - 1] : nullptr;
            if (number.value == 0) {
                sink_.error(number.span, "field numbers start at 1");
            } else if (array_before != nullptr && (earlier == i - 1 || later == fields.end())) {
                sink_.error(number.span, field_label(number.value) + " does not follow on: " +
                                             array_before->name->text + "[" + std::to_string(counts_[i - 1]) +
                                             "] takes fields " + std::to_string(firsts_[i - 1]) + " to " +
                                             std::to_string(expected - 1) + "; expected " + field_label(expected) +
                                             " here");
            } else if (earlier < i) {
                sink_.error(number.span, "duplicate field number " + std::to_string(number.value) +
                                             " (first declared on line " +
                                             std::to_string(fields[earlier].number.span.line) + ")");
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

    // Every name once, each a C++ identifier the generated Record can take
    // as a member. An array may be declared in pieces, one statement after
    // the other, when its elements need different predictors:
    // "a[1] = {...}; a[3] = {...};" is the array a[4].
    void check_names(const std::vector<ast::Field>& fields) {
        struct Declared {
            const ast::Field* first = nullptr;
            std::size_t last_statement = 0;
            unsigned size = 0;
        };
        std::map<std::string, Declared> declared;
        for (std::size_t i = 0; i < fields.size(); ++i) {
            element_offsets_.push_back(0);
            const ast::Field& field = fields[i];
            if (!field.name) {
                continue;
            }
            const ast::Name& name = *field.name;
            if (!check_name(name)) {
                continue;
            }
            auto found = declared.find(name.text);
            if (found == declared.end()) {
                declared[name.text] = Declared{&field, i, counts_[i]};
                array_sizes_[name.text] = counts_[i];
                continue;
            }
            Declared& earlier = found->second;
            bool continues = field.array_size && earlier.first->array_size && earlier.last_statement + 1 == i;
            if (!continues) {
                sink_.error(name.span, "duplicate field name '" + name.text + "' (first declared on line " +
                                           std::to_string(earlier.first->name->span.line) + ")");
            } else if (field.bits.value != earlier.first->bits.value) {
                sink_.error(field.bits.span, "array '" + name.text + "' continues with " +
                                                 std::to_string(field.bits.value) + "-bit fields; its first are " +
                                                 std::to_string(earlier.first->bits.value) + "-bit");
            } else {
                element_offsets_[i] = earlier.size;
                earlier.size += counts_[i];
                earlier.last_statement = i;
                array_sizes_[name.text] = earlier.size;
            }
        }
    }

    // Whether `name` can be a member of the generated Record; says why not.
    bool check_name(const ast::Name& name) {
        const std::string& text = name.text;
        std::string why;
        if (is_spec_keyword(text)) {
            why = "it is a keyword of the spec language";
        } else if (is_cpp_keyword(text)) {
            why = "it is a C++ keyword";
        } else if (text.find("__") != std::string::npos ||
                   (text.size() >= 2 && text[0] == '_' && std::isupper(static_cast<unsigned char>(text[1])))) {
            why = "C++ reserves names with '__' or starting with '_' and a capital";
        } else if (is_record_name(text) || (text.size() > 5 && text.rfind("field", 0) == 0 &&
                                             text.find_first_not_of("0123456789", 5) == std::string::npos)) {
            why = "the generated Record uses that name";
        }
        if (why.empty()) {
            return true;
        }
        sink_.error(name.span, "'" + text + "' cannot name a field: " + why);
        return false;
    }

    // What templates/codec.hpp.mustache's Record already names: its members,
    // the parameters and locals of load() and store(), which a member would
    // shadow, and the namespaces they qualify types and functions with.
    static bool is_record_name(const std::string& text) {
        static const std::set<std::string> names = {"Record", "bytes", "load", "store", "record",
                                                    "loaded", "std", "tcgen_runtime"};
        return names.count(text) != 0;
    }

    static bool is_spec_keyword(const std::string& text) {
        static const std::set<std::string> keywords = {
            "TCgen", "Trace", "Specification", "Bit", "Header", "Ids", "Field", "PC", "L1", "L2"};
        return keywords.count(text) != 0;
    }

    static bool is_cpp_keyword(const std::string& text) {
        static const std::set<std::string> keywords = {
            "alignas",   "alignof",      "and",          "and_eq",      "asm",          "auto",
            "bitand",    "bitor",        "bool",         "break",       "case",         "catch",
            "char",      "char8_t",      "char16_t",     "char32_t",    "class",        "compl",
            "concept",   "const",        "consteval",    "constexpr",   "constinit",    "const_cast",
            "continue",  "co_await",     "co_return",    "co_yield",    "decltype",     "default",
            "delete",    "do",           "double",       "dynamic_cast", "else",        "enum",
            "explicit",  "export",       "extern",       "false",       "float",        "for",
            "friend",    "goto",         "if",           "inline",      "int",          "long",
            "mutable",   "namespace",    "new",          "noexcept",    "not",          "not_eq",
            "nullptr",   "operator",     "or",           "or_eq",       "private",      "protected",
            "public",    "register",     "reinterpret_cast", "requires", "return",      "short",
            "signed",    "sizeof",       "static",       "static_assert", "static_cast", "struct",
            "switch",    "template",     "this",         "thread_local", "throw",       "true",
            "try",       "typedef",      "typeid",       "typename",    "union",        "unsigned",
            "using",     "virtual",      "void",         "volatile",    "wchar_t",      "while",
            "xor",       "xor_eq"};
        return keywords.count(text) != 0;
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
        std::uint64_t pc_number = 0;
        if (syntax.pc->name) {
            const ast::Name& name = *syntax.pc->name;
            auto field = std::find_if(spec.fields.begin(), spec.fields.end(),
                                      [&](const Field& f) { return f.name == name.text; });
            if (field == spec.fields.end()) {
                sink_.error(name.span, "no field is named '" + name.text + "'");
                return;
            }
            if (field->element) {
                sink_.error(name.span, "'" + name.text + "' is an array; the PC is one field: write its number");
                return;
            }
            pc_number = field->number;
        } else {
            const ast::Number& number = syntax.pc->field;
            if (number.value < 1 || number.value > spec.fields.size()) {
                sink_.error(number.span, "PC field " + std::to_string(number.value) + " does not exist; the spec has " +
                                             std::to_string(spec.fields.size()) +
                                             (spec.fields.size() == 1 ? " field" : " fields"));
                return;
            }
            pc_number = number.value;
        }
        spec.pc_field = static_cast<unsigned>(pc_number);
        std::size_t statement = 0;
        while (statement + 1 < firsts_.size() && firsts_[statement + 1] <= pc_number) {
            ++statement;
        }
        const ast::Field& pc = syntax.fields[statement];
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
    // By statement: the number of its first field, how many it declares, and
    // for a piece of an array the index of its first element.
    std::vector<std::uint64_t> firsts_;
    std::vector<unsigned> counts_;
    std::vector<unsigned> element_offsets_;
    std::map<std::string, unsigned> array_sizes_;  // by name, an array's whole size
    bool too_many_fields_ = false;
};

}  // namespace

std::optional<Spec> check_spec(const ast::Spec& syntax, DiagnosticSink& sink) {
    return Checker(sink).run(syntax);
}

}  // namespace tcgen
