#pragma once
// An output of tcgen, chosen with --emit=NAME, in the spirit of LLVM
// TableGen's backends: each output is one object that names itself, says
// which options it reads, checks what only it needs and writes its text from
// the plan. The driver finds one by name and knows none of them.
//
// Adding an output: one file in this folder defining its Emitter (a
// PlanOnlyEmitter when it is one function of the plan) and an accessor,
// listed in registry.cpp. --emit's choices and help text, the
// file names of --output-dir and the refusal of options an output does not
// read all come from that list.

#include <string>
#include <string_view>
#include <vector>

#include "generator/frontend/diagnostics.hpp"
#include "generator/plan/code_plan.hpp"

namespace tcgen {

// How the user asked for one output of one spec.
struct EmitRequest {
    std::string spec_stem;      // the spec's file name without folders and extension: "vpc3"
    std::string output_path;    // as -o gave it or --output-dir made it; empty or "-": standard output
    std::string name;           // --name, empty when not given
    std::string cpp_namespace;  // --namespace, empty when not given
};

class Emitter {
public:
    // `name`: its spelling in --emit=NAME. `summary`: what it writes, for
    // --help ("a standalone compressor program"). `extension`: of its file in
    // --output-dir (".cpp"). `shorthand`: a flag that asks for it as
    // --emit=NAME does ("--canonical"), kept for the users of older tcgens;
    // empty when it has none. All four view literals.
    Emitter(std::string_view name, std::string_view summary, std::string_view extension,
            std::string_view shorthand = {})
        : name_(name), summary_(summary), extension_(extension), shorthand_(shorthand) {}
    virtual ~Emitter() = default;

    std::string_view name() const { return name_; }
    std::string_view summary() const { return summary_; }
    std::string_view extension() const { return extension_; }
    std::string_view shorthand() const { return shorthand_; }

    // Whether it reads --name and --namespace; the driver refuses them for
    // an output that does not.
    virtual bool uses_name() const { return false; }
    virtual bool uses_namespace() const { return false; }

    // The stem of its file in --output-dir: the spec's, unless the output
    // names itself.
    virtual std::string file_stem(const EmitRequest& request) const { return request.spec_stem; }

    // What this output cannot honour of a plan or a request: reported at the
    // spec's places into `sink`, or as a one-line message (without the
    // "tcgen: error: " prefix) in `error`. Returns false when it found any.
    virtual bool check(const CodePlan& /*plan*/, const EmitRequest& /*request*/, DiagnosticSink& /*sink*/,
                       std::string& /*error*/) const {
        return true;
    }

    // Its text; called only after check() passed.
    virtual std::string generate(const CodePlan& plan, const EmitRequest& request) const = 0;

private:
    std::string_view name_;
    std::string_view summary_;
    std::string_view extension_;
    std::string_view shorthand_;
};

// An output written by one function of the plan alone: it reads no option
// and checks nothing beyond what the front end and the planner check.
class PlanOnlyEmitter final : public Emitter {
public:
    using Generate = std::string (*)(const CodePlan& plan);

    PlanOnlyEmitter(std::string_view name, std::string_view summary, std::string_view extension, Generate generate,
                    std::string_view shorthand = {})
        : Emitter(name, summary, extension, shorthand), generate_(generate) {}

    std::string generate(const CodePlan& plan, const EmitRequest&) const override { return generate_(plan); }

private:
    Generate generate_;
};

// Every output tcgen writes, in the order --help lists them; the first is
// the default.
const std::vector<const Emitter*>& emitters();

// The output spelled `name` in --emit=NAME, or nullptr.
const Emitter* find_emitter(std::string_view name);

}  // namespace tcgen
