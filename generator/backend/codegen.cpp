#include "generator/backend/codegen.hpp"

#include <algorithm>
#include <cstdio>
#include <set>
#include <sstream>

#include "generator/backend/canonical_printer.hpp"
#include "generator/backend/embedded_files.hpp"
#include "generator/plan/passes/pass.hpp"
#include "generator/plan/table_layout.hpp"
#include "generator/backend/template_renderer.hpp"
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

std::string unsigned_type(unsigned bits) {
    return "std::uint" + std::to_string(bits) + "_t";
}

std::string low_bits_mask(unsigned bits) {
    return hex(bits >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << bits) - 1);
}

std::string spec_predictor_name(const PlanPredictor& predictor) {
    return predictor_name(Predictor{predictor.kind, predictor.order, predictor.entries});
}

std::string code_summary(const PlanField& field) {
    std::string summary;
    for (const PlanPredictor& predictor : field.predictors) {
        unsigned last = predictor.first_slot + predictor.entries - 1;
        summary += (summary.empty() ? "" : ", ") + std::to_string(predictor.first_slot) +
                   (last == predictor.first_slot ? "" : "-" + std::to_string(last)) + " " +
                   spec_predictor_name(predictor);
    }
    return summary;
}

// A table's member in the Lines struct: "fcm3" for "fcm3_table".
std::string line_member(const PlanTable& table) {
    const std::string suffix = "_table";
    bool ends_with_suffix = table.name.size() > suffix.size() &&
                            table.name.compare(table.name.size() - suffix.size(), suffix.size(), suffix) == 0;
    return ends_with_suffix ? table.name.substr(0, table.name.size() - suffix.size()) : table.name;
}

// Works out the values that fill templates/field.mustache for one field.
class FieldData {
public:
    FieldData(const CodePlan& plan, const PlanField& field) : plan_(plan), field_(field) {}

    TemplateData build() const {
        TemplateData data;
        unsigned predictions = field_.prediction_count();
        data.set("number", std::to_string(field_.number));
        data.set("bits", std::to_string(field_.bits));
        data.set("offset", std::to_string(field_.offset));
        data.set("is_pc", field_.is_pc);
        data.set("l1", std::to_string(field_.l1));
        data.set("l2", std::to_string(field_.l2));
        data.set("l1_mask", hex(field_.l1 - 1));
        data.set("pc_parameter", field_.pc_parameter);
        data.set("pc_type", unsigned_type(plan_.fields[plan_.pc_field - 1].bits));
        data.set("value_type", unsigned_type(field_.bits));
        data.set("work_type", unsigned_type(field_.work_bits));
        data.set("widens", field_.work_bits != field_.bits);
        data.set("code_type", unsigned_type(field_.code_bits));
        data.set("code_summary", code_summary(field_));
        data.set("miss_code", std::to_string(predictions));
        data.set("code_count", std::to_string(predictions + 1));
        data.set("report_title", "Field " + std::to_string(field_.number) + " (" + std::to_string(field_.bits) +
                                     "-bit" + (field_.is_pc ? ", PC" : "") + ")");
        data.set("tables", tables());
        data.set("slot_names", slot_names());
        data.set("lines", lines());
        data.set("first_level", first_level());
        data.set("second_level", second_level());
        data.set("predictions", predictions_list());
        data.set("strides", strides());
        data.set("updates", updates());
        data.set("histories", histories());
        data.set("has_hashing", !field_.histories.empty());
        data.set("fold_bits", std::to_string(field_.hash.fold_bits));
        data.set("folds_chunks", field_.work_bits > field_.hash.fold_bits);
        data.set("fold_mask", low_bits_mask(field_.hash.fold_bits));
        TemplateData fold_shifts = template_list();
        for (unsigned shift : field_.hash.fold_shifts) {
            fold_shifts.push_back(TemplateData(std::to_string(shift)));
        }
        data.set("fold_shifts", fold_shifts);
        return data;
    }

private:
    TemplateData tables() const {
        TemplateData list = template_list();
        for (const PlanTable& table : field_.tables) {
            TemplateData item;
            item.set("name", table.name);
            item.set("element_type", unsigned_type(table.element_bits));
            item.set("size", std::to_string(table.lines * table.entries));
            item.set("comment", with_thousands_separators(table.lines) + (table.lines == 1 ? " line" : " lines") +
                                    " of " + std::to_string(table.entries));
            list.push_back(item);
        }
        return list;
    }

    TemplateData slot_names() const {
        TemplateData list = template_list();
        for (const PlanPredictor& predictor : field_.predictors) {
            for (unsigned entry = 0; entry < predictor.entries; ++entry) {
                std::string name = spec_predictor_name(predictor);
                list.push_back(
                    TemplateData("name", predictor.entries == 1 ? name : name + " #" + std::to_string(entry + 1)));
            }
        }
        list.push_back(TemplateData("name", "miss"));
        return list;
    }

    TemplateData lines() const {
        TemplateData list = template_list();
        for (const PlanTable& table : field_.tables) {
            TemplateData item;
            item.set("name", line_member(table));
            item.set("element_type", unsigned_type(table.element_bits));
            list.push_back(item);
        }
        return list;
    }

    TemplateData first_level() const {
        TemplateData list = template_list();
        for (const PlanTable& table : field_.tables) {
            if (table.first_level) {
                TemplateData item;
                item.set("name", line_member(table));
                item.set("table", table.name);
                item.set("entries", std::to_string(table.entries));
                list.push_back(item);
            }
        }
        return list;
    }

    // The lines of the second-level tables, at the index their history gives:
    // read from a hashed history, or hashed now from the raw values, oldest
    // first, exactly as the incremental hash would have.
    TemplateData second_level() const {
        TemplateData list = template_list();
        for (const PlanPredictor& predictor : field_.predictors) {
            if (predictor.history == no_index) {
                continue;
            }
            const PlanHistory& history = field_.histories[predictor.history];
            const PlanTable& table = field_.tables[predictor.table];
            TemplateData item;
            item.set("name", line_member(table));
            item.set("table", table.name);
            item.set("entries", std::to_string(table.entries));
            item.set("history", line_member(field_.tables[history.table]));
            item.set("from_hashes", history.stores_hashes);
            item.set("history_index", std::to_string(predictor.order - 1));
            TemplateData steps = template_list();
            for (unsigned k = 2; k <= predictor.order; ++k) {
                TemplateData step = hash_step(k, history.kind);
                step.set("entry", std::to_string(predictor.order - k));
                steps.push_back(step);
            }
            item.set("steps", steps);
            list.push_back(item);
        }
        return list;
    }

    TemplateData predictions_list() const {
        TemplateData list = template_list();
        for (const PlanPredictor& predictor : field_.predictors) {
            for (unsigned entry = 0; entry < predictor.entries; ++entry) {
                TemplateData item;
                item.set("slot", std::to_string(predictor.first_slot + entry));
                item.set("is_stride", predictor.kind == PredictorKind::dfcm);
                item.set("line", line_member(field_.tables[predictor.table]));
                item.set("entry", std::to_string(entry));
                if (predictor.stride != no_index) {
                    item.set("last_value",
                             line_member(field_.tables[field_.strides[predictor.stride].last_value_table]));
                } else {
                    item.set("last_value", "");
                }
                list.push_back(item);
            }
        }
        return list;
    }

    TemplateData strides() const {
        TemplateData list = template_list();
        for (const PlanStride& stride : field_.strides) {
            TemplateData item;
            item.set("name", stride.name);
            item.set("last_value", line_member(field_.tables[stride.last_value_table]));
            list.push_back(item);
        }
        return list;
    }

    // What each table's line receives: a value or a stride; last-value tables
    // receive the value. Histories are updated separately.
    std::string operand_of(std::size_t table_index) const {
        const PlanTable& table = field_.tables[table_index];
        if (table.content == TableContent::strides) {
            for (const PlanPredictor& predictor : field_.predictors) {
                if (predictor.table == table_index) {
                    return field_.strides[predictor.stride].name;
                }
            }
        }
        return "value";
    }

    TemplateData updates() const {
        TemplateData list = template_list();
        for (std::size_t i = 0; i < field_.tables.size(); ++i) {
            const PlanTable& table = field_.tables[i];
            if (table.content == TableContent::history) {
                continue;
            }
            bool overwrite = table.entries == 1 && (!field_.smart_update || !field_.check_single_entry_lines);
            TemplateData item;
            item.set("line", line_member(table));
            item.set("entries", std::to_string(table.entries));
            item.set("operand", operand_of(i));
            item.set("overwrite", overwrite);
            item.set("smart", !overwrite && field_.smart_update);
            item.set("shift", !overwrite && !field_.smart_update);
            list.push_back(item);
        }
        return list;
    }

    TemplateData histories() const {
        TemplateData list = template_list();
        for (const PlanHistory& history : field_.histories) {
            const PlanTable& table = field_.tables[history.table];
            TemplateData item;
            item.set("history", line_member(table));
            item.set("operand",
                     history.stride == no_index ? std::string("value") : field_.strides[history.stride].name);
            item.set("element_type", unsigned_type(table.element_bits));
            item.set("entries", std::to_string(table.entries));
            item.set("stores_hashes", history.stores_hashes);
            TemplateData steps = template_list();
            // Highest order first: each step reads the lower-order index of the
            // previous value before it is overwritten.
            for (unsigned k = table.entries; k >= 2; --k) {
                TemplateData step = hash_step(k, history.kind);
                step.set("index", std::to_string(k - 1));
                step.set("previous", std::to_string(k - 2));
                steps.push_back(step);
            }
            item.set("steps", steps);
            list.push_back(item);
        }
        return list;
    }

    // The shift-xor step that extends an order-(k−1) index to order k.
    TemplateData hash_step(unsigned k, PredictorKind kind) const {
        unsigned shift = kind == PredictorKind::fcm ? field_.hash.fcm_shift : field_.hash.dfcm_shift;
        TemplateData step;
        step.set("shift", std::to_string(shift));
        step.set("mask", low_bits_mask(field_.hash.index_bits(k)));
        return step;
    }

    const CodePlan& plan_;
    const PlanField& field_;
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

TemplateData text_lines(const std::string& canonical) {
    TemplateData lines = template_list();
    std::istringstream text(canonical);
    std::string line;
    while (std::getline(text, line)) {
        lines.push_back(TemplateData("text", line));
    }
    return lines;
}

}  // namespace

std::string encoding_identity(const Spec& spec, const CodePlan& plan) {
    std::string text = canonical_text(spec, CanonicalComments::none);
    std::string disabled;
    for (const std::string& name : encoding_passes_disabled(plan)) {
        disabled += (disabled.empty() ? "" : ",") + name;
    }
    if (!disabled.empty()) {
        text += "# Encoding: tcgen --disable=" + disabled + "\n";
    }
    return text;
}

std::uint64_t spec_fingerprint(const Spec& spec) {
    return tcgen_runtime::fingerprint64(encoding_identity(spec, plan_code(spec)));
}

std::string generate_compressor(const Spec& spec, const CodePlan& plan) {
    TemplateData data;
    data.set("tcgen_version", std::string(version));
    std::string identity = encoding_identity(spec, plan);
    data.set("fingerprint", hex64(tcgen_runtime::fingerprint64(identity)));
    data.set("spec_comment_lines", text_lines(canonical_text(spec, CanonicalComments::costs)));
    data.set("spec_lines", text_lines(identity));
    TemplateData skipped = template_list();
    for (const OptimisationPass& pass : optimisation_passes()) {
        if (std::find(plan.applied_passes.begin(), plan.applied_passes.end(), pass.name) == plan.applied_passes.end()) {
            skipped.push_back(TemplateData("name", std::string(pass.name)));
        }
    }
    data.set("has_disabled_passes", !skipped.is_empty_list());
    data.set("disabled_passes", skipped);
    data.set("plan_table_bytes", with_thousands_separators(plan.table_bytes()));

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

    data.set("header_bytes", std::to_string(plan.header_bytes));
    data.set("record_bytes", std::to_string(plan.record_bytes));
    data.set("records_per_block", std::to_string(plan.records_per_block));
    data.set("stream_count", std::to_string(2 * plan.fields.size()));

    TemplateData fields = template_list();
    TemplateData streams = template_list();
    for (const PlanField& field : plan.fields) {
        fields.push_back(FieldData(plan, field).build());
        std::string prefix = "field_" + std::to_string(field.number);
        streams.push_back(TemplateData("name", prefix + "_codes"));
        streams.push_back(TemplateData("name", prefix + "_misses"));
    }
    data.set("fields", fields);
    data.set("streams", streams);

    // The PC is coded first, whatever its position: its value indexes the
    // L1 tables of the others.
    std::vector<const PlanField*> order = {&plan.fields[plan.pc_field - 1]};
    for (const PlanField& field : plan.fields) {
        if (!field.is_pc) {
            order.push_back(&field);
        }
    }
    TemplateData coding_order = template_list();
    for (const PlanField* field : order) {
        TemplateData step;
        step.set("number", std::to_string(field->number));
        step.set("value_type", unsigned_type(field->bits));
        step.set("offset", std::to_string(field->offset));
        step.set("pc_parameter", field->pc_parameter);
        step.set("pc_number", std::to_string(plan.pc_field));
        step.set("codes_stream", std::to_string(2 * (field->number - 1)));
        step.set("misses_stream", std::to_string(2 * (field->number - 1) + 1));
        coding_order.push_back(step);
    }
    data.set("coding_order", coding_order);
    return render_template("compressor.cpp", data);
}

std::string generate_compressor(const Spec& spec) {
    return generate_compressor(spec, plan_code(spec));
}

}  // namespace tcgen
