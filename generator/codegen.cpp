#include "generator/codegen.hpp"

#include <cstdio>
#include <set>
#include <sstream>

#include "generator/canonical_printer.hpp"
#include "generator/embedded_files.hpp"
#include "generator/table_layout.hpp"
#include "generator/template_renderer.hpp"
#include "generator/version.hpp"
#include "runtime/checksum.hpp"

namespace tcgen {
namespace {

// Standard headers the generated part itself uses, beyond the runtime's.
const char* const generated_code_includes[] = {"array", "cstddef", "cstdint", "cstdio", "string", "string_view"};

std::string hex(std::uint64_t value) {
    char text[32];
    std::snprintf(text, sizeof text, "0x%llx", static_cast<unsigned long long>(value));
    return text;
}

std::string hex64(std::uint64_t value) {
    char text[32];
    std::snprintf(text, sizeof text, "0x%016llx", static_cast<unsigned long long>(value));
    return text;
}

std::string unsigned_type(unsigned bytes) {
    return "std::uint" + std::to_string(bytes * 8) + "_t";
}

std::string low_bits_mask(unsigned bits) {
    return hex(bits >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << bits) - 1);
}

// A predictor table's member in the Lines struct: "fcm3" for "fcm3_table".
std::string line_member(const Table& table) {
    const std::string suffix = "_table";
    std::size_t at = table.name.find(suffix);
    if (table.role != TableRole::predictor || at == std::string::npos) {
        return table.name;
    }
    return table.name.substr(0, at) + table.name.substr(at + suffix.size());
}

// The shift of the select-fold-shift-xor hash (paper §5.3). Folded values
// have min(width, b) bits, where b = log2(L2) indexes the order-1 table; the
// order-x index needs b + x − 1 bits. Each older value is shifted s more bits,
// so s is chosen to let the oldest reach the top bit: wide fields need s = 1,
// small fields a larger s, or most of the table would be unreachable.
unsigned hash_shift(const Field& field, unsigned order) {
    unsigned index_bits = hash_index_bits(field, order);
    unsigned folded_bits = std::min(field.bits, hash_index_bits(field, 1));
    if (order < 2 || folded_bits + (order - 1) >= index_bits) {
        return 1;
    }
    unsigned gap = index_bits - folded_bits;
    return (gap + order - 2) / (order - 1);
}

// The shifts that fold a value into the b index bits of the order-1 tables:
// xor of its b-bit chunks. Empty when the value already fits, or when b = 0
// (L2 = 1) and every value folds to 0.
std::vector<unsigned> fold_shifts(const Field& field) {
    unsigned bits = hash_index_bits(field, 1);
    std::vector<unsigned> shifts;
    if (bits == 0) {
        return shifts;
    }
    for (unsigned shift = bits; shift < field.bits; shift += bits) {
        shifts.push_back(shift);
    }
    return shifts;
}

std::string slot_label(const Predictor& predictor, unsigned entry) {
    std::string name = predictor_name(predictor);
    return predictor.entries == 1 ? name : name + " #" + std::to_string(entry + 1);
}

std::string code_summary(const Field& field) {
    std::string summary;
    unsigned slot = 0;
    for (const Predictor& predictor : field.predictors) {
        if (!summary.empty()) {
            summary += ", ";
        }
        unsigned last = slot + predictor.entries - 1;
        summary +=
            std::to_string(slot) + (last == slot ? "" : "-" + std::to_string(last)) + " " + predictor_name(predictor);
        slot = last + 1;
    }
    return summary;
}

const Table* find_role(const std::vector<Table>& tables, TableRole role) {
    for (const Table& table : tables) {
        if (table.role == role) {
            return &table;
        }
    }
    return nullptr;
}

class FieldData {
public:
    FieldData(const Spec& spec, const Field& field, unsigned offset)
        : spec_(spec), field_(field), offset_(offset), tables_(field_tables(field)) {}

    TemplateData build() {
        TemplateData data;
        unsigned predictions = prediction_count(field_);
        bool is_pc = field_.number == spec_.pc_field;
        data.set("number", std::to_string(field_.number));
        data.set("bits", std::to_string(field_.bits));
        data.set("offset", std::to_string(offset_));
        data.set("is_pc", is_pc);
        data.set("l1", std::to_string(field_.l1));
        data.set("l2", std::to_string(field_.l2));
        data.set("l1_mask", hex(field_.l1 - 1));
        data.set("uses_pc", field_.l1 > 1);
        data.set("pc_type", unsigned_type(spec_.pc().bytes()));
        data.set("value_type", unsigned_type(field_.bytes()));
        data.set("code_summary", code_summary(field_));
        data.set("miss_code", std::to_string(predictions));
        data.set("code_count", std::to_string(predictions + 1));
        data.set("report_title", "Field " + std::to_string(field_.number) + " (" + std::to_string(field_.bits) +
                                     "-bit" + (is_pc ? ", PC" : "") + ")");
        add_tables(data);
        add_slots(data);
        add_lines(data);
        add_predictions(data);
        add_updates(data);
        add_hashing(data);
        return data;
    }

private:
    void add_tables(TemplateData& data) {
        TemplateData tables = template_list();
        for (const Table& table : tables_) {
            TemplateData item;
            item.set("name", table.name);
            item.set("element_type", unsigned_type(table.element_bytes));
            item.set("size", std::to_string(table.lines * table.entries_per_line));
            item.set("comment", with_thousands_separators(table.lines) + (table.lines == 1 ? " line" : " lines") +
                                    " of " + std::to_string(table.entries_per_line));
            tables.push_back(item);
        }
        data.set("tables", tables);
    }

    void add_slots(TemplateData& data) {
        TemplateData names = template_list();
        for (const Predictor& predictor : field_.predictors) {
            for (unsigned entry = 0; entry < predictor.entries; ++entry) {
                names.push_back(TemplateData("name", slot_label(predictor, entry)));
            }
        }
        names.push_back(TemplateData("name", "miss"));
        data.set("slot_names", names);
    }

    void add_lines(TemplateData& data) {
        TemplateData lines = template_list();
        TemplateData first_level = template_list();
        TemplateData second_level = template_list();
        for (const Table& table : tables_) {
            TemplateData line;
            line.set("name", line_member(table));
            line.set("element_type", unsigned_type(table.element_bytes));
            lines.push_back(line);
            bool hashed = table.role == TableRole::predictor &&
                          field_.predictors[table.predictor].kind != PredictorKind::last_value;
            TemplateData select;
            select.set("name", line_member(table));
            select.set("table", table.name);
            select.set("entries", std::to_string(table.entries_per_line));
            if (hashed) {
                const Predictor& predictor = field_.predictors[table.predictor];
                TableRole history =
                    predictor.kind == PredictorKind::fcm ? TableRole::fcm_history : TableRole::dfcm_history;
                select.set("history", find_role(tables_, history)->name);
                select.set("history_index", std::to_string(predictor.order - 1));
                second_level.push_back(select);
            } else {
                first_level.push_back(select);
            }
        }
        data.set("lines", lines);
        data.set("first_level", first_level);
        data.set("second_level", second_level);
    }

    // Where DFCMs find the last value: an LV's first entry when the field has
    // an LV (shared, paper §5.2), else the field's own last-value table.
    std::string last_value_line() const {
        for (const Table& table : tables_) {
            if (table.role == TableRole::predictor &&
                field_.predictors[table.predictor].kind == PredictorKind::last_value) {
                return line_member(table);
            }
        }
        return "last_value";
    }

    void add_predictions(TemplateData& data) {
        bool has_dfcm = max_order(field_, PredictorKind::dfcm) > 0;
        data.set("has_dfcm", has_dfcm);
        data.set("last_value_line", last_value_line());
        data.set("separate_last_value", find_role(tables_, TableRole::last_value) != nullptr);
        TemplateData predictions = template_list();
        unsigned slot = 0;
        for (const Table& table : tables_) {
            if (table.role != TableRole::predictor) {
                continue;
            }
            const Predictor& predictor = field_.predictors[table.predictor];
            for (unsigned entry = 0; entry < predictor.entries; ++entry) {
                TemplateData item;
                item.set("slot", std::to_string(slot++));
                item.set("is_stride", predictor.kind == PredictorKind::dfcm);
                item.set("line", line_member(table));
                item.set("entry", std::to_string(entry));
                predictions.push_back(item);
            }
        }
        data.set("predictions", predictions);
    }

    void add_updates(TemplateData& data) {
        TemplateData updates = template_list();
        for (const Table& table : tables_) {
            if (table.role != TableRole::predictor) {
                continue;
            }
            TemplateData item;
            item.set("entries", std::to_string(table.entries_per_line));
            item.set("line", line_member(table));
            bool stride = field_.predictors[table.predictor].kind == PredictorKind::dfcm;
            item.set("operand", stride ? "stride" : "value");
            updates.push_back(item);
        }
        data.set("updates", updates);
    }

    void add_hashing(TemplateData& data) {
        std::vector<unsigned> shifts = fold_shifts(field_);
        TemplateData fold_list = template_list();
        for (unsigned shift : shifts) {
            fold_list.push_back(TemplateData(std::to_string(shift)));
        }
        data.set("fold_shifts", fold_list);
        data.set("folds_chunks", field_.bits > hash_index_bits(field_, 1));
        data.set("fold_bits", std::to_string(hash_index_bits(field_, 1)));
        data.set("fold_mask", low_bits_mask(hash_index_bits(field_, 1)));

        TemplateData histories = template_list();
        for (TableRole role : {TableRole::fcm_history, TableRole::dfcm_history}) {
            const Table* history = find_role(tables_, role);
            if (history == nullptr) {
                continue;
            }
            unsigned order = history->entries_per_line;
            unsigned shift = hash_shift(field_, order);
            TemplateData item;
            item.set("history", history->name);
            item.set("operand", role == TableRole::fcm_history ? "value" : "stride");
            item.set("element_type", unsigned_type(history->element_bytes));
            TemplateData steps = template_list();
            // Highest order first: each step reads the previous value's
            // lower-order hash before that is overwritten.
            for (unsigned k = order; k >= 2; --k) {
                TemplateData step;
                step.set("index", std::to_string(k - 1));
                step.set("previous", std::to_string(k - 2));
                step.set("shift", std::to_string(shift));
                step.set("mask", low_bits_mask(hash_index_bits(field_, k)));
                steps.push_back(step);
            }
            item.set("steps", steps);
            histories.push_back(item);
        }
        data.set("has_hashing", !histories.is_empty_list());
        data.set("histories", histories);
    }

    const Spec& spec_;
    const Field& field_;
    unsigned offset_;
    std::vector<Table> tables_;
};

struct RuntimeSource {
    std::set<std::string> system_includes;
    std::string code;
};

// The runtime headers in dependency order, with their own include lines and
// include guards removed: what remains is ordinary C++ that follows the
// system includes the generated file gathers at its top.
RuntimeSource embedded_runtime() {
    RuntimeSource runtime;
    for (const EmbeddedFile& file : embedded_files()) {
        if (file.path.rfind("runtime/", 0) != 0) {
            continue;
        }
        runtime.code += "// ----- " + std::string(file.path) + " -----\n";
        std::istringstream lines{std::string(file.content)};
        std::string line;
        while (std::getline(lines, line)) {
            if (line.rfind("#pragma once", 0) == 0 || line.rfind("#include \"", 0) == 0) {
                continue;
            }
            if (line.rfind("#include <", 0) == 0) {
                std::size_t end = line.find('>');
                runtime.system_includes.insert(line.substr(10, end - 10));
                continue;
            }
            runtime.code += line + "\n";
        }
    }
    return runtime;
}

TemplateData spec_lines(const std::string& canonical) {
    TemplateData lines = template_list();
    std::istringstream text(canonical);
    std::string line;
    while (std::getline(text, line)) {
        lines.push_back(TemplateData("text", line));
    }
    return lines;
}

}  // namespace

std::uint64_t spec_fingerprint(const Spec& spec) {
    return tcgen_runtime::fingerprint64(canonical_text(spec));
}

std::string generate_compressor(const Spec& spec) {
    TemplateData data;
    std::string canonical = canonical_text(spec);
    data.set("tcgen_version", std::string(version));
    data.set("fingerprint", hex64(spec_fingerprint(spec)));
    data.set("spec_lines", spec_lines(canonical));

    RuntimeSource runtime = embedded_runtime();
    for (const char* header : generated_code_includes) {
        runtime.system_includes.insert(header);
    }
    TemplateData includes = template_list();
    for (const std::string& header : runtime.system_includes) {
        includes.push_back(TemplateData("header", header));
    }
    data.set("system_includes", includes);
    data.set("runtime_code", runtime.code);

    data.set("header_bytes", std::to_string(spec.header_bytes()));
    data.set("record_bytes", std::to_string(spec.record_bytes()));
    data.set("records_per_block", std::to_string(records_per_block(spec)));
    data.set("stream_count", std::to_string(2 * spec.fields.size()));

    TemplateData fields = template_list();
    TemplateData streams = template_list();
    std::vector<TemplateData> coding;
    unsigned offset = 0;
    for (const Field& field : spec.fields) {
        fields.push_back(FieldData(spec, field, offset).build());
        std::string prefix = "field_" + std::to_string(field.number);
        streams.push_back(TemplateData("name", prefix + "_codes"));
        streams.push_back(TemplateData("name", prefix + "_misses"));
        TemplateData step;
        step.set("number", std::to_string(field.number));
        step.set("value_type", unsigned_type(field.bytes()));
        step.set("offset", std::to_string(offset));
        step.set("uses_pc", field.l1 > 1);
        step.set("pc_number", std::to_string(spec.pc_field));
        step.set("codes_stream", std::to_string(2 * (field.number - 1)));
        step.set("misses_stream", std::to_string(2 * (field.number - 1) + 1));
        coding.push_back(std::move(step));
        offset += field.bytes();
    }
    data.set("fields", fields);
    data.set("streams", streams);

    // The PC is coded first, whatever its position: its value indexes the
    // L1 tables of the others.
    TemplateData coding_order = template_list();
    coding_order.push_back(coding[spec.pc_field - 1]);
    for (const Field& field : spec.fields) {
        if (field.number != spec.pc_field) {
            coding_order.push_back(coding[field.number - 1]);
        }
    }
    data.set("coding_order", coding_order);
    return render_template("compressor.cpp", data);
}

}  // namespace tcgen
