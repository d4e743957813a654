#pragma once
// The options that choose what tcgen writes, made from the emitter registry
// (generator/emitters/): --emit=NAME with every output's name, extension and
// summary in its help, a flag for each output that has a shorthand
// (--canonical), and --name and --namespace, which only some outputs read.

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "generator/emitters/emitter.hpp"

namespace tcgen {

class OutputChoice {
public:
    // Adds the options to `app`.
    explicit OutputChoice(CLI::App& app);

    // After parsing: the output asked for (--emit's default when none was),
    // or nullptr, having said why on standard error, when the command line
    // asks for two different outputs or gives an option the output does not
    // read.
    const Emitter* chosen() const;

    const std::string& name() const { return name_; }
    const std::string& cpp_namespace() const { return cpp_namespace_; }

private:
    // A flag that asks for an output as --emit=NAME does.
    struct Shorthand {
        const Emitter* emitter;
        const CLI::Option* flag;
    };

    std::string emit_name_;
    const CLI::Option* emit_ = nullptr;
    std::vector<Shorthand> shorthands_;
    std::string name_;
    const CLI::Option* name_option_ = nullptr;
    std::string cpp_namespace_;
    const CLI::Option* cpp_namespace_option_ = nullptr;
};

}  // namespace tcgen
