#pragma once
// What the two halves of a bidirectional stream (--emit=bidirectional-header
// and bidirectional-source) share: the names they read (--name, the stem of
// the files and the class; --namespace, by default tcgen_streams) and the
// checks of what such a stream cannot honour, so that both halves accept and
// refuse the same specs with the same messages.

#include "generator/backend/bidirectional_codegen.hpp"
#include "generator/emitters/emitter.hpp"

namespace tcgen {

// One half of a stream: its declarations and the generator of its text.
// Before the names, check() reports at the spec's places what a stream
// cannot honour: a header; L1 > 1, which needs a PC that a walk in either
// direction does not have; a predictor kind without a bidirectional form.
class BidirectionalStreamEmitter final : public Emitter {
public:
    using Generate = std::string (*)(const CodePlan& plan, const BidirectionalNames& names);

    BidirectionalStreamEmitter(std::string_view name, std::string_view summary, std::string_view extension,
                               Generate generate)
        : Emitter(name, summary, extension), generate_(generate) {}

    bool uses_name() const override { return true; }
    bool uses_namespace() const override { return true; }
    std::string file_stem(const EmitRequest& request) const override;

    bool check(const CodePlan& plan, const EmitRequest& request, DiagnosticSink& sink,
               std::string& error) const override;
    std::string generate(const CodePlan& plan, const EmitRequest& request) const override;

private:
    Generate generate_;
};

}  // namespace tcgen
