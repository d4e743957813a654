// The spec front end and planner on any bytes as a spec. Asserts: the result
// is either a plan and no error, or at least one error and no plan; the
// diagnostics print; a plan's canonical text compiles back, without errors,
// to the same canonical text (the fixed point tcgen --canonical promises);
// and code generation accepts every plan the front end accepts. A crash, a
// sanitizer report or any exception is a bug: tcgen reports each as an
// internal error.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <sstream>
#include <string>

#include "fuzz_support.hpp"
#include "generator/backend/canonical_printer.hpp"
#include "generator/backend/codegen.hpp"
#include "generator/frontend/diagnostics.hpp"
#include "generator/plan/planner.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    return tcgen_fuzz::run_input([&] {
        const tcgen::SourceFile file("fuzz.tcg", std::string(reinterpret_cast<const char*>(data), size));
        tcgen::DiagnosticSink sink(file);
        const std::optional<tcgen::CodePlan> plan = tcgen::compile_to_plan(file, sink);
        // Rendering quotes the user's bytes back, so it is part of what is fuzzed.
        std::ostringstream rendered;
        sink.print(rendered);
        if (!plan) {
            tcgen_fuzz::check(sink.has_errors(), "no plan and no error");
            return;
        }
        tcgen_fuzz::check(!sink.has_errors(), "a plan despite errors");

        const std::string canonical = tcgen::canonical_text(*plan);
        const tcgen::SourceFile canonical_file("canonical.tcg", canonical);
        tcgen::DiagnosticSink canonical_sink(canonical_file);
        const std::optional<tcgen::CodePlan> again = tcgen::compile_to_plan(canonical_file, canonical_sink);
        if (!again || canonical_sink.has_errors()) {
            std::ostringstream diagnostics;
            canonical_sink.print(diagnostics);
            tcgen_fuzz::report_bug("the canonical text is refused", (canonical + diagnostics.str()).c_str());
        }
        if (tcgen::canonical_text(*again) != canonical) {
            tcgen_fuzz::report_bug("the canonical text is not a fixed point", canonical.c_str());
        }

        const std::string source = tcgen::generate_compressor(*plan);
        tcgen_fuzz::check(!source.empty(), "an empty compressor source");
    });
}
