#include "generator/backend/codegen.hpp"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <set>
#include <sstream>

#include "generator/backend/canonical_printer.hpp"
#include "generator/backend/context_layout.hpp"
#include "generator/backend/encoding.hpp"
#include "generator/text/field_names.hpp"
#include "generator/text/code_text.hpp"
#include "generator/backend/runtime_source.hpp"
#include "generator/text/template_renderer.hpp"
#include "generator/kinds/kind_code.hpp"
#include "generator/version.hpp"
#include "generator/plan/number_text.hpp"
#include "generator/plan/passes/pass.hpp"

namespace tcgen {
namespace {

// Standard headers the generated part itself uses, beyond the runtime's.
const char* const generated_code_includes[] = {"array", "cstddef", "cstdint", "cstdio", "string", "string_view"};

// The roles (runtime/manifest.txt) of the runtime the code of a spec is
// written in; they come before it in the generated file, the rest of the
// runtime after main(). None of their headers may depend on one of the rest.
// A spec that codes records as ids also takes the ids' role.
std::vector<std::string_view> runtime_before_spec(const CodePlan& plan) {
    std::vector<std::string_view> roles = {"core", "primitives"};
    if (plan.record_ids()) {
        roles.push_back("ids");
    }
    return roles;
}

// The rest of the compressor program's runtime. It reads a .tcz only from
// start to end (concatenations included): no seeking.
const std::vector<std::string_view> program_runtime_after_main = {
    "checksum", "io", "container", "backends", "codec", "container-write", "container-read", "driver", "cli"};

// The rest of the in-process header's runtime: its Reader seeks; no command
// line.
const std::vector<std::string_view> header_runtime_after_spec = {
    "checksum", "io", "container", "backends", "codec", "container-write", "container-read", "driver", "seek",
    "records"};

std::string hex(std::uint64_t value) {
    char text[32];
    std::snprintf(text, sizeof text, "0x%llx", static_cast<unsigned long long>(value));
    return text;
}

// The predictor whose own table is `table`, or null for a table the
// planner shares out (a history, a last value), which is plain.
const PlanPredictor* owner_of(const PlanField& field, const PlanTable& table) {
    return table.role == TableRole::lines ? &field.predictors[table.owner] : nullptr;
}

// The runtime classes that the kinds of a plan's predictors name, beyond
// those every program uses.
std::set<std::string> kind_runtime_classes(const CodePlan& plan) {
    std::set<std::string> classes;
    for (const PlanField& field : plan.fields) {
        for (const PlanPredictor& predictor : field.predictors) {
            std::string_view name = predictor.spec.kind->code().runtime_class();
            if (!name.empty()) {
                classes.emplace(name);
            }
        }
    }
    return classes;
}

std::string code_summary(const PlanField& field, const FieldNames& names) {
    std::string summary;
    for (std::size_t i = 0; i < field.predictors.size(); ++i) {
        const PlanPredictor& predictor = field.predictors[i];
        unsigned last = predictor.first_slot + predictor.spec.entries - 1;
        summary += (summary.empty() ? "" : ", ") + std::to_string(predictor.first_slot) +
                   (last == predictor.first_slot ? "" : "-" + std::to_string(last)) + " " + names.predictor(i);
    }
    return summary;
}

// Works out the values that fill templates/field.mustache for one field.
// What differs between predictor kinds comes from the kinds themselves.
class FieldCode {
public:
    FieldCode(const CodePlan& plan, const PlanField& field)
        : plan_(plan), field_(field), names_(field), context_(context_layout(field)) {}

    TemplateData build() const {
        TemplateData data;
        unsigned predictions = field_.miss_code;
        data.set("number", std::to_string(field_.number));
        data.set("first", &field_ == &plan_.fields.front());
        data.set("bits", std::to_string(field_.bits));
        data.set("offset", std::to_string(field_.offset));
        data.set("is_pc", field_.is_pc);
        data.set("l1", std::to_string(field_.l1));
        data.set("l2", std::to_string(field_.l2));
        data.set("l1_mask", hex(field_.l1 - 1));
        data.set("pc_parameter", field_.pc_parameter);
        data.set("pc_type", unsigned_type(plan_.pc().bits));
        data.set("value_type", unsigned_type(field_.bits));
        data.set("work_type", unsigned_type(field_.work_bits));
        data.set("code_type", unsigned_type(plan_.streams[field_.codes_stream].element_bits));
        data.set("miss_type", unsigned_type(plan_.streams[field_.misses_stream].element_bits));
        data.set("code_summary", code_summary(field_, names_));
        data.set("miss_code", std::to_string(predictions));
        data.set("table_bytes", std::to_string(allocated_table_bytes(field_)));
        const Field& spec_field = plan_.spec.fields[field_.number - 1];
        std::string label = spec_field.label();
        data.set("label", label.empty() ? "" : " " + label);
        data.set("member", spec_field.member());
        // "Field 12 (source_memory[0], 64-bit)": the number first, as scripts
        // read it.
        data.set("report_title", "Field " + std::to_string(field_.number) + " (" + (label.empty() ? "" : label + ", ") +
                                     std::to_string(field_.bits) + "-bit" + (field_.is_pc ? ", PC" : "") + ")");
        data.set("slot_names", slot_names());
        data.set("tables", tables());
        data.set("lines", lines());
        set_context(data);
        data.set("select", select());
        TemplateData prefetch_lines = prefetches();
        data.set("has_prefetches", !prefetch_lines.is_empty_list());
        data.set("prefetches", prefetch_lines);
        data.set("predictions", predictions_list());
        set_named_predictions(data);
        data.set("strides", strides());
        data.set("updates", updates());
        set_member_updates(data);
        data.set("histories", histories());
        set_hash(data);
        return data;
    }

private:
    // The code of the kind that owns `table`, or null for a plain table.
    const KindCode* code_of(std::size_t table) const {
        const PlanPredictor* owner = owner_of(field_, field_.tables[table]);
        return owner == nullptr ? nullptr : &owner->spec.kind->code();
    }

    // update() is static unless a kind's table learns through its member
    // (the comment above it says why), and reads the lines unless every
    // table learns so.
    void set_member_updates(TemplateData& data) const {
        TemplateData reasons = template_list();
        std::set<std::string_view> seen;
        bool reads_lines = false;
        for (std::size_t i = 0; i < field_.tables.size(); ++i) {
            const KindCode* code = code_of(i);
            std::string_view reason = code == nullptr ? std::string_view() : code->member_update_reason();
            reads_lines = reads_lines || reason.empty();
            if (!reason.empty() && seen.insert(reason).second) {
                reasons.push_back(TemplateData("reason", std::string(reason)));
            }
        }
        data.set("updates_members", !reasons.is_empty_list());
        data.set("member_update_reasons", reasons);
        data.set("update_reads_lines", reads_lines);
    }

    void set_hash(TemplateData& data) const {
        data.set("has_hashing", !field_.histories.empty());
        data.set("fold_bits", std::to_string(field_.hash.fold_bits));
        // A value wider than an order-1 index folds (and is masked, even with
        // no chunks to xor in, as when L2 = 1).
        data.set("folds_chunks", field_.work_bits > field_.hash.fold_bits);
        TemplateData fold_shifts = template_list();
        for (unsigned shift : field_.hash.fold_shifts) {
            fold_shifts.push_back(TemplateData(std::to_string(shift)));
        }
        data.set("fold_shifts", fold_shifts);
        std::string shift_constants;
        bool from_scratch = false;
        for (Sequence sequence : {Sequence::values, Sequence::strides}) {
            // A shift is used by a hash step: one of order 2 or more, or any
            // hash from scratch, which passes it on.
            bool used = false;
            for (const PlanHistory& history : field_.histories) {
                used = used || (history.sequence == sequence &&
                                (!history.stores_hashes || field_.tables[history.table].entries >= 2));
                from_scratch = from_scratch || !history.stores_hashes;
            }
            if (used) {
                shift_constants += std::string(shift_constants.empty() ? "" : "\n") +
                                   "    static constexpr unsigned " + FieldNames::shift(sequence) + " = " +
                                   std::to_string(field_.hash.shift(sequence)) + ";";
            }
        }
        data.set("shift_constants", shift_constants);
        data.set("hashes_from_scratch", from_scratch);
    }

    TemplateData slot_names() const {
        TemplateData list = template_list();
        for (std::size_t i = 0; i < field_.predictors.size(); ++i) {
            unsigned entries = field_.predictors[i].spec.entries;
            for (unsigned entry = 0; entry < entries; ++entry) {
                std::string name = names_.predictor(i);
                list.push_back(TemplateData("name", entries == 1 ? name : name + " #" + std::to_string(entry + 1)));
            }
        }
        list.push_back(TemplateData("name", "miss"));
        return list;
    }

    // The struct of one context (context_layout.hpp), if the field has one.
    void set_context(TemplateData& data) const {
        data.set("has_context", !context_.empty());
        data.set("context_alignment", std::to_string(context_.alignment));
        data.set("context_bytes", std::to_string(context_.context_bytes));
        data.set("context_line_bytes", std::to_string(context_.line_bytes));
        TemplateData members = template_list();
        for (std::size_t table : context_.tables) {
            TemplateData member;
            member.set("name", names_.name(table));
            member.set("element_type", unsigned_type(field_.tables[table].element_bits));
            member.set("entries", std::to_string(field_.tables[table].entries));
            members.push_back(member);
        }
        data.set("context_members", members);
    }

    // The tables' members, the contexts' in place of the first of the
    // tables they hold.
    TemplateData tables() const {
        TemplateData list = template_list();
        for (std::size_t i = 0; i < field_.tables.size(); ++i) {
            const PlanTable& table = field_.tables[i];
            if (context_.holds(i)) {
                if (i == *std::min_element(context_.tables.begin(), context_.tables.end())) {
                    TemplateData item;
                    item.set("member", std::string(context_member));
                    item.set("type", "ZeroedTable<Context>");
                    item.set("initializer", "{" + std::to_string(context_.contexts) + "}");
                    item.set("comment", with_thousands_separators(context_.contexts) +
                                            (context_.contexts == 1 ? " context" : " contexts") + " of " +
                                            std::to_string(context_.context_bytes) + " bytes");
                    list.push_back(item);
                }
                continue;
            }
            const KindCode* code = code_of(i);
            TableMember member = code == nullptr ? zeroed_table_member(table) : code->table_member(field_, table);
            TemplateData item;
            item.set("member", names_.table(i));
            item.set("type", member.type);
            item.set("initializer", member.initializer);
            item.set("comment", member.comment);
            list.push_back(item);
        }
        return list;
    }

    TemplateData lines() const {
        TemplateData list = template_list();
        for (std::size_t i = 0; i < field_.tables.size(); ++i) {
            TemplateData item;
            item.set("name", names_.name(i));
            item.set("element_type", unsigned_type(field_.tables[i].element_bits));
            list.push_back(item);
        }
        return list;
    }

    // The line of `table` at `index`, as its kind's code takes it for `use`.
    TemplateData line_at(std::size_t table, const std::string& index, LineUse use) const {
        TemplateData item;
        item.set("name", names_.name(table));
        const PlanPredictor* owner = owner_of(field_, field_.tables[table]);
        item.set("line", owner == nullptr ? zeroed_table_line(names_.table(table), field_.tables[table], index, use)
                                          : owner->spec.kind->code().line_at(field_, *owner, names_, index, use));
        return item;
    }

    // Each predictor's second-level line, at the index its kind computes
    // from the first-level lines; to be prefetched, only those worth it.
    void add_second_level_lines(TemplateData& list, LineUse use) const {
        for (const PlanPredictor& predictor : field_.predictors) {
            const KindCode& code = predictor.spec.kind->code();
            if (!field_.tables[predictor.table].first_level &&
                (use == LineUse::selected || code.prefetchable())) {
                list.push_back(line_at(predictor.table, code.line_index(field_, predictor, names_), use));
            }
        }
    }

    // First-level lines first, at the PC's L1 line; then the second-level
    // lines.
    TemplateData select() const {
        TemplateData list = template_list();
        for (std::size_t i = 0; i < field_.tables.size(); ++i) {
            if (context_.holds(i)) {
                TemplateData item;
                item.set("name", names_.name(i));
                item.set("line", "context->" + names_.name(i));
                list.push_back(item);
            } else if (field_.tables[i].first_level) {
                list.push_back(line_at(i, "line", LineUse::selected));
            }
        }
        add_second_level_lines(list, LineUse::selected);
        return list;
    }

    // The second-level lines the next value of the same context will read,
    // prefetched right after update() stored their hashes. Not when the
    // hashes are computed from scratch (fast hashing off): prefetching would
    // compute each twice, and that variant exists to measure the hashing.
    TemplateData prefetches() const {
        TemplateData list = template_list();
        bool stored = true;
        for (const PlanHistory& history : field_.histories) {
            stored = stored && history.stores_hashes;
        }
        if (stored) {
            add_second_level_lines(list, LineUse::prefetched);
        }
        return list;
    }

    TemplateData predictions_list() const {
        TemplateData list = template_list();
        for (const PlanPredictor& predictor : field_.predictors) {
            for (unsigned entry = 0; entry < predictor.spec.entries; ++entry) {
                TemplateData item;
                item.set("slot", std::to_string(predictor.first_slot + entry));
                item.set("expression", predictor.spec.kind->code().prediction(field_, predictor, names_, entry));
                list.push_back(item);
            }
        }
        return list;
    }

    // The predictors whose decoder computes their prediction only where the
    // code names it, and the encoder's role of their tables.
    void set_named_predictions(TemplateData& data) const {
        TemplateData named = template_list();
        TemplateData roles = template_list();
        bool learn_finds_code = false;
        for (const PlanPredictor& predictor : field_.predictors) {
            const KindCode& code = predictor.spec.kind->code();
            const std::string decode = code.decode_named(predictor, names_);
            if (!decode.empty()) {
                learn_finds_code = learn_finds_code || predictor.first_slot > 0;
                TemplateData item;
                item.set("learn_after_slots", predictor.first_slot > 0);
                item.set("slot", std::to_string(predictor.first_slot));
                item.set("encode", code.encode_named(predictor, names_));
                item.set("decode", decode);
                item.set("learn", code.learn_named(predictor, names_));
                named.push_back(item);
            }
            const std::string role = code.encoder_role(predictor, names_);
            if (!role.empty()) {
                roles.push_back(TemplateData("statement", role));
            }
        }
        data.set("named_predictions", named);
        data.set("learn_finds_code", learn_finds_code);
        data.set("has_encoder_roles", !roles.is_empty_list());
        data.set("encoder_roles", roles);
    }

    TemplateData strides() const {
        TemplateData list = template_list();
        for (std::size_t i = 0; i < field_.strides.size(); ++i) {
            TemplateData item;
            item.set("name", names_.stride(i));
            item.set("last_value", names_.line(field_.strides[i].last_value_table));
            list.push_back(item);
        }
        return list;
    }

    // A predictor's own table learns as its kind says, a last-value table
    // takes the value.
    TemplateData updates() const {
        TemplateData list = template_list();
        for (std::size_t i = 0; i < field_.tables.size(); ++i) {
            const PlanTable& table = field_.tables[i];
            if (table.role == TableRole::history) {
                continue;  // histories always shift, below
            }
            const PlanPredictor* owner = owner_of(field_, table);
            list.push_back(TemplateData("statement", owner == nullptr
                                                         ? line_update_statement(field_, table, names_.line(i), "value")
                                                         : owner->spec.kind->code().update(field_, *owner, names_)));
        }
        return list;
    }

    TemplateData histories() const {
        TemplateData list = template_list();
        for (const PlanHistory& history : field_.histories) {
            const PlanTable& table = field_.tables[history.table];
            TemplateData item;
            item.set("name", names_.name(history.table));
            item.set("line", names_.line(history.table));
            item.set("operand", history.stride == no_index ? std::string("value") : names_.stride(history.stride));
            item.set("element_type", unsigned_type(table.element_bits));
            item.set("entries", std::to_string(table.entries));
            item.set("stores_hashes", history.stores_hashes);
            TemplateData steps = template_list();
            // Highest order first: each step reads the lower-order index of the
            // previous value before it is overwritten.
            for (unsigned k = table.entries; k >= 2; --k) {
                TemplateData step;
                step.set("index", std::to_string(k - 1));
                step.set("previous", std::to_string(k - 2));
                step.set("order", std::to_string(k));
                step.set("shift", FieldNames::shift(history.sequence));
                steps.push_back(step);
            }
            item.set("steps", steps);
            list.push_back(item);
        }
        return list;
    }

    static constexpr std::string_view context_member = "contexts_";

    const CodePlan& plan_;
    const PlanField& field_;
    FieldNames names_;
    ContextLayout context_;
};

// A runtime cut in two: the primitives the code of the spec is written in,
// and the machinery after it.
struct CompressorRuntime {
    RuntimeSource primitives;
    RuntimeSource machinery;
};

CompressorRuntime embedded_runtime(const CodePlan& plan, const std::vector<std::string_view>& machinery_roles) {
    return {runtime_of_roles(runtime_before_spec(plan), ", part 1 of 2"),
            runtime_of_roles(machinery_roles, ", part 2 of 2")};
}

// "codes", "field_2_misses", or after a named field "ip_misses". Names are
// only shown: the .tcz does not store them.
std::string stream_name(const CodePlan& plan, const PlanStream& stream) {
    if (stream.role == StreamRole::ids) {
        return "ids";  // runtime/backends.hpp's stream_content knows the name
    }
    if (stream.field == 0) {
        return "codes";  // the one stream of every field's codes
    }
    std::string label = plan.spec.fields[stream.field - 1].label();
    return (label.empty() ? "field_" + std::to_string(stream.field) : label) +
           (stream.role == StreamRole::codes ? "_codes" : "_misses");
}

// The members of the generated Record: one per field, one array per array.
TemplateData record_members(const CodePlan& plan) {
    TemplateData list = template_list();
    for (const PlanField& field : plan.fields) {
        const Field& spec_field = plan.spec.fields[field.number - 1];
        if (spec_field.element && *spec_field.element != 0) {
            continue;  // declared with element 0
        }
        TemplateData member;
        member.set("type", unsigned_type(field.bits));
        member.set("declarator", spec_field.element ? spec_field.name + "[" + std::to_string(spec_field.array_size) + "]"
                                                    : spec_field.member());
        member.set("initializer", spec_field.element ? "{}" : "0");
        unsigned last = field.number + (spec_field.element ? spec_field.array_size - 1 : 0);
        member.set("comment", (last == field.number ? "Field " + std::to_string(field.number)
                                                    : "Fields " + std::to_string(field.number) + " to " +
                                                          std::to_string(last)) +
                                  ": " + std::to_string(field.bits) + " bits at byte " + std::to_string(field.offset) +
                                  (last == field.number ? " of a record" : " on, each") +
                                  (field.is_pc ? ", the PC" : ""));
        list.push_back(member);
    }
    return list;
}

// The name of a field's column: "ip", "source_memory[0]", or "field_2" for
// field 2 without a name, as its streams are named.
std::string column_name(const Field& field) {
    const std::string label = field.label();
    return label.empty() ? "field_" + std::to_string(field.number) : label;
}

// The generated header's `fields`: each field's column name, width and
// offset, in record order.
TemplateData field_layouts(const CodePlan& plan) {
    TemplateData list = template_list();
    for (const PlanField& field : plan.fields) {
        TemplateData layout;
        layout.set("name", column_name(plan.spec.fields[field.number - 1]));
        layout.set("bits", std::to_string(field.bits));
        layout.set("offset", std::to_string(field.offset));
        list.push_back(layout);
    }
    return list;
}

// The values of the codec partial (templates/codec.mustache) and of the
// header comment, which the program and the in-process header share.
TemplateData codec_data(const CodePlan& plan) {
    TemplateData data;
    data.set("tcgen_version", std::string(version));
    std::string link_flags;
    for (const std::string& flag : backend_link_flags()) {
        link_flags += (link_flags.empty() ? "" : " ") + flag;
    }
    data.set("link_flags", link_flags);
    std::string identity = encoding_identity(plan);
    data.set("fingerprint", fingerprint_text(encoding_fingerprint(plan)));
    data.set("spec_comment_lines", text_lines(canonical_text(plan)));
    data.set("spec_lines", text_lines(identity));
    TemplateData skipped = template_list();
    for (const OptimisationPass& pass : optimisation_passes()) {
        if (std::find(plan.applied_passes.begin(), plan.applied_passes.end(), pass.name) == plan.applied_passes.end()) {
            skipped.push_back(TemplateData("name", std::string(pass.name)));
        }
    }
    data.set("has_disabled_passes", !skipped.is_empty_list());
    data.set("disabled_passes", skipped);

    data.set("header_bytes", std::to_string(plan.header_bytes));
    data.set("record_bytes", std::to_string(plan.record_bytes));
    data.set("records_per_block", std::to_string(plan.records_per_block));
    data.set("stream_count", std::to_string(plan.streams.size()));
    TemplateData streams = template_list();
    const std::vector<std::uint64_t> stream_bytes = plan.stream_bytes_per_record();
    for (std::size_t index = 0; index < plan.streams.size(); ++index) {
        TemplateData stream = TemplateData("name", stream_name(plan, plan.streams[index]));
        stream.set("bytes_per_record", std::to_string(stream_bytes[index]));
        streams.push_back(stream);
    }
    data.set("streams", streams);
    data.set("record_ids", plan.record_ids());
    if (plan.record_ids()) {
        data.set("ids_stream", std::to_string(plan.ids_stream()));
    }

    TemplateData fields = template_list();
    for (const PlanField& field : plan.fields) {
        fields.push_back(FieldCode(plan, field).build());
    }
    data.set("fields", fields);
    TemplateData runtime_classes = template_list();
    for (const std::string& name : kind_runtime_classes(plan)) {
        runtime_classes.push_back(TemplateData("name", name));
    }
    data.set("runtime_classes", runtime_classes);

    TemplateData coding_order = template_list();
    for (std::size_t index : plan.coding_order) {
        const PlanField& field = plan.fields[index];
        TemplateData step;
        step.set("number", std::to_string(field.number));
        step.set("value_type", unsigned_type(field.bits));
        step.set("offset", std::to_string(field.offset));
        step.set("pc_parameter", field.pc_parameter);
        step.set("pc_number", std::to_string(plan.pc_field));
        step.set("codes_stream", std::to_string(field.codes_stream));
        step.set("misses_stream", std::to_string(field.misses_stream));
        coding_order.push_back(step);
    }
    data.set("coding_order", coding_order);
    return data;
}

std::set<std::string> all_includes(const CompressorRuntime& runtime) {
    std::set<std::string> includes = runtime.primitives.system_includes;
    includes.insert(runtime.machinery.system_includes.begin(), runtime.machinery.system_includes.end());
    includes.insert(std::begin(generated_code_includes), std::end(generated_code_includes));
    return includes;
}

}  // namespace

std::string generate_compressor(const CodePlan& plan) {
    TemplateData data = codec_data(plan);
    CompressorRuntime runtime = embedded_runtime(plan, program_runtime_after_main);
    data.set("system_includes", include_lines(all_includes(runtime)));
    data.set("runtime_primitives", runtime.primitives.code);
    data.set("runtime_machinery", runtime.machinery.code);

    // The header points the reader at the code of the spec: render once to
    // learn its line numbers, then again with them (they do not move it).
    data.set("spec_code_line", "0");
    data.set("main_line", "0");
    std::string code = render_template("compressor.cpp", data);
    data.set("spec_code_line", std::to_string(line_of(code, "// ===== the compressor of this spec")));
    data.set("main_line", std::to_string(line_of(code, "int main(")));
    return render_template("compressor.cpp", data);
}

namespace {

// The values of templates/codec_api.mustache: the Record, its fields and the
// Reader and Writer, with the runtime they need, in namespace `cpp_namespace`.
TemplateData codec_api_data(const CodePlan& plan, const std::string& cpp_namespace) {
    TemplateData data = codec_data(plan);
    CompressorRuntime runtime = embedded_runtime(plan, header_runtime_after_spec);
    data.set("system_includes", include_lines(all_includes(runtime)));
    data.set("runtime", runtime.primitives.code + "\n" + runtime.machinery.code);
    data.set("namespace", cpp_namespace);
    data.set("has_header", plan.header_bytes > 0);
    data.set("record_members", record_members(plan));
    data.set("field_count", std::to_string(plan.fields.size()));
    data.set("field_layouts", field_layouts(plan));
    return data;
}

}  // namespace

std::string generate_codec_header(const CodePlan& plan, const std::string& cpp_namespace,
                                  const std::string& header_name) {
    TemplateData data = codec_api_data(plan, cpp_namespace);
    // One copy of the runtime per program, however many headers it includes.
    std::string guard = std::string(version);
    std::replace_if(guard.begin(), guard.end(), [](char c) { return !std::isalnum(static_cast<unsigned char>(c)); },
                    '_');
    data.set("runtime_guard", guard);
    data.set("header_name", comment_safe(header_name));
    data.set("first_member", plan.spec.fields.front().member());
    data.set("first_column", column_name(plan.spec.fields.front()));
    data.set("first_type", unsigned_type(plan.spec.fields.front().bits));
    data.set("table_bytes", with_thousands_separators(allocated_table_bytes(plan)));
    return render_template("codec.hpp", data);
}

std::string generate_c_library(const CodePlan& plan, const std::string& cpp_namespace, unsigned abi_version) {
    TemplateData data = codec_api_data(plan, cpp_namespace);
    data.set("abi_version", std::to_string(abi_version));
    return render_template("c_library.cpp", data);
}

}  // namespace tcgen
