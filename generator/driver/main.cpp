// tcgen: compiles a trace-format spec into a standalone C++ compressor.
//
// Exit status: 0 success, 1 a user error (bad spec, bad option, unreadable
// file), 2 an internal bug.

#include <algorithm>
#include <exception>
#include <iostream>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "common/command_line.hpp"
#include "generator/backend/encoding.hpp"
#include "generator/driver/output_choice.hpp"
#include "generator/files/output_file.hpp"
#include "generator/files/spec_input.hpp"
#include "generator/emitters/emitter.hpp"
#include "generator/plan/passes/pass.hpp"
#include "generator/plan/planner.hpp"
#include "generator/tune/tune_command.hpp"
#include "generator/version.hpp"

namespace {

constexpr int exit_user_error = 1;
constexpr int exit_internal_error = 2;

struct Options {
    std::vector<std::string> spec_paths;  // each run() takes one, in spec_path
    std::string spec_path;
    std::string output_path;  // empty: standard output
    std::string output_dir;   // empty: output_path
    std::vector<std::string> disabled_passes;
    const tcgen::Emitter* emitter = nullptr;  // what to write
    std::string name;                         // --name, for the emitters that read it
    std::string cpp_namespace;                // --namespace, likewise
};

// The file name of `path` without folders and extension: "specs/wet/a.tcg" -> "a".
std::string file_stem(const std::string& path) {
    std::size_t slash = path.find_last_of('/');
    std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
    std::size_t dot = name.find('.');
    return dot == std::string::npos ? name : name.substr(0, dot);
}

std::string pass_names() {
    std::string names;
    for (const tcgen::OptimisationPass& pass : tcgen::optimisation_passes()) {
        names += (names.empty() ? "" : ", ") + std::string(pass.name);
    }
    return names;
}

std::string passes_help() {
    std::string help = "Turn off optimisations (comma-separated; 'all' for every one):";
    for (const tcgen::OptimisationPass& pass : tcgen::optimisation_passes()) {
        help += "\n  " + std::string(pass.name) + ": " + std::string(pass.summary);
    }
    return help;
}

// What the chosen output is told of one spec.
tcgen::EmitRequest emit_request(const Options& options, const std::string& spec) {
    return {file_stem(spec), options.output_path, options.name, options.cpp_namespace};
}

// The names given to --disable, checked; "all" stands for every pass.
std::optional<std::set<std::string>> disabled_set(const std::vector<std::string>& arguments) {
    std::vector<std::string> names;
    for (const std::string& argument : arguments) {
        std::size_t begin = 0;
        while (begin <= argument.size()) {
            std::size_t end = std::min(argument.find(',', begin), argument.size());
            names.push_back(argument.substr(begin, end - begin));
            begin = end + 1;
        }
    }
    std::set<std::string> disabled;
    for (const std::string& name : names) {
        bool known = name == "all";
        for (const tcgen::OptimisationPass& pass : tcgen::optimisation_passes()) {
            known = known || pass.name == name;
            if (name == "all") {
                disabled.insert(std::string(pass.name));
            }
        }
        if (!known) {
            std::cerr << "tcgen: error: unknown optimisation '" << name << "' in --disable; known: " << pass_names()
                      << ", all\n";
            return std::nullopt;
        }
        disabled.insert(name);
    }
    disabled.erase("all");
    return disabled;
}

int run(const Options& options) {
    std::optional<std::set<std::string>> disabled = disabled_set(options.disabled_passes);
    if (!disabled) {
        return exit_user_error;
    }
    std::string error;
    std::optional<tcgen::SpecInput> input = tcgen::read_spec_input(options.spec_path, error);
    if (!input) {
        std::cerr << "tcgen: error: " << error << "\n";
        return exit_user_error;
    }
    tcgen::DiagnosticSink sink(input->file);
    std::optional<tcgen::CodePlan> plan = tcgen::compile_to_plan(input->file, sink, *disabled);
    sink.print(std::cerr);
    if (!plan) {
        return exit_user_error;
    }
    // A .tcz names the encoding it needs: regenerating anything else would
    // give a decompressor that refuses the very file it was made from.
    std::uint64_t fingerprint = tcgen::encoding_fingerprint(*plan);
    if (input->tcz_fingerprint && *input->tcz_fingerprint != fingerprint) {
        std::cerr << "tcgen: error: '" << options.spec_path << "' needs the encoding of fingerprint "
                  << tcgen::fingerprint_text(*input->tcz_fingerprint) << "; with these options its spec gives "
                  << tcgen::fingerprint_text(fingerprint) << " (leave out --disable of "
                  << "type-minimisation and smart-update)\n";
        return exit_user_error;
    }
    const tcgen::EmitRequest request = emit_request(options, options.spec_path);
    if (!options.emitter->check(*plan, request, sink, error)) {
        sink.print(std::cerr);
        if (!error.empty()) {
            std::cerr << "tcgen: error: " << error << "\n";
        }
        return exit_user_error;
    }
    const std::string text = options.emitter->generate(*plan, request);
    if (!tcgen::write_output(options.output_path, text, {options.spec_path}, error)) {
        std::cerr << "tcgen: error: " << error << "\n";
        return exit_user_error;
    }
    return 0;
}

// The file run() writes for `spec` in --output-dir: named as the output
// names its file, with its extension.
std::string output_in_directory(const Options& options, const std::string& spec) {
    const tcgen::Emitter& emitter = *options.emitter;
    return options.output_dir + "/" + emitter.file_stem(emit_request(options, spec)) + std::string(emitter.extension());
}

// Several specs need a directory to write into; each is compiled on its own,
// and the exit status is the worst of them.
int run_all(const Options& options) {
    if (options.spec_paths.size() > 1 && options.output_dir.empty()) {
        std::cerr << "tcgen: error: " << options.spec_paths.size()
                  << " specs need --output-dir=DIR to write their files into\n";
        return exit_user_error;
    }
    if (!options.output_dir.empty() && !options.output_path.empty()) {
        std::cerr << "tcgen: error: -o and --output-dir both name the output; give one\n";
        return exit_user_error;
    }
    int status = 0;
    for (const std::string& spec : options.spec_paths) {
        Options one = options;
        one.spec_path = spec;
        if (!options.output_dir.empty()) {
            one.output_path = output_in_directory(options, spec);
        }
        status = std::max(status, run(one));
    }
    return status;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc > 1 && std::string(argv[1]) == "tune") {
        return tcgen::tune::tune_main(argc - 1, argv + 1);
    }
    try {
        Options options;
        CLI::App app{
            "tcgen: compiles a trace-format spec into a standalone C++ compressor.\n"
            "Writes the compressor's C++ source to standard output.\n"
            "tcgen tune SAMPLE --record=LAYOUT suggests the predictors of a spec for a sample "
            "trace (tcgen tune --help).",
            "tcgen"};
        app.add_option("SPEC", options.spec_paths,
                       "The spec file, or a .tcz to regenerate the decompressor of, or - for standard input; "
                       "several with --output-dir")
            ->required();
        app.add_option("-o,--output", options.output_path, "Write to FILE instead of standard output");
        app.add_option("--output-dir", options.output_dir,
                       "Write each SPEC's output into DIR, named after the spec with the extension --emit gives "
                       "(a.tcg -> DIR/a.cpp)");
        // One argument per occurrence, split on commas by disabled_set().
        app.add_option("--disable", options.disabled_passes, passes_help())
            ->expected(1)
            ->allow_extra_args(false)
            ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
        tcgen::OutputChoice output_choice(app);
        app.set_version_flag("--version", "tcgen " + std::string(tcgen::version));
        if (const std::optional<int> status = tcgen::cli::parse_command_line(app, argc, argv, "tcgen: error: ", "--help")) {
            return *status;
        }
        options.emitter = output_choice.chosen();
        if (options.emitter == nullptr) {
            return exit_user_error;
        }
        options.name = output_choice.name();
        options.cpp_namespace = output_choice.cpp_namespace();
        return run_all(options);
    } catch (const std::exception& bug) {
        std::cerr << "tcgen: internal error: " << bug.what() << "\n";
        return exit_internal_error;
    }
}
