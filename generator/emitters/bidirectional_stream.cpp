#include "generator/emitters/bidirectional_stream.hpp"

#include "generator/emitters/cpp_names.hpp"
#include "generator/frontend/model.hpp"
#include "generator/kinds/predictor_kind.hpp"

namespace tcgen {
namespace {

// "DFCM, FCM and LV": the kinds with a bidirectional form.
std::string bidirectional_kind_names() {
    std::vector<std::string> names;
    for (const PredictorKind* kind : predictor_kinds()) {
        if (!kind->bidirectional_kind().empty()) {
            names.emplace_back(kind->keyword());
        }
    }
    return word_list(names, "and");
}

std::string stream_namespace(const EmitRequest& request) {
    return request.cpp_namespace.empty() ? "tcgen_streams" : request.cpp_namespace;
}

// Reports what a stream cannot honour; returns false when it reported anything.
bool check_bidirectional(const Spec& spec, DiagnosticSink& sink) {
    int before = sink.error_count();
    if (spec.header_bits > 0) {
        sink.error(spec.header_span, "a bidirectional stream holds records only; it cannot keep a " +
                                         std::to_string(spec.header_bits) + "-bit header");
    }
    if (spec.record_ids) {
        sink.error(spec.ids_span,
                   "a bidirectional stream codes every record through its fields; it cannot code "
                   "records as ids");
    }
    for (const Field& field : spec.fields) {
        if (field.l1 > 1) {
            sink.error(field.l1_span, "L1 = " + std::to_string(field.l1) + " in field " + std::to_string(field.number) +
                                          ": a bidirectional stream is one sequence per field with no PC to index "
                                          "its tables; use L1 = 1");
        }
        for (const Predictor& predictor : field.predictors) {
            if (predictor.kind->bidirectional_kind().empty()) {
                sink.error(predictor.span, predictor_name(predictor) + " in field " + std::to_string(field.number) +
                                               " has no bidirectional form: a bidirectional stream takes " +
                                               bidirectional_kind_names());
            }
        }
    }
    return sink.error_count() == before;
}

}  // namespace

std::string BidirectionalStreamEmitter::file_stem(const EmitRequest& request) const {
    return request.name.empty() ? request.spec_stem : request.name;
}

std::string BidirectionalStreamEmitter::generate(const CodePlan& plan, const EmitRequest& request) const {
    return generate_(plan, bidirectional_names(file_stem(request), stream_namespace(request)));
}

bool BidirectionalStreamEmitter::check(const CodePlan& plan, const EmitRequest& request, DiagnosticSink& sink,
                                       std::string& error) const {
    if (!check_bidirectional(plan.spec, sink)) {
        return false;
    }
    const std::string stem = file_stem(request);
    if (!is_identifier(stem)) {
        error = "'" + stem + "' cannot name a C++ stream type; give --name=NAME (letters, digits and '_')";
        return false;
    }
    const std::string cpp_namespace = stream_namespace(request);
    if (!is_namespace_name(cpp_namespace)) {
        error = "--namespace='" + cpp_namespace + "' is not a C++ namespace name (identifiers joined by '::')";
        return false;
    }
    return true;
}

}  // namespace tcgen
