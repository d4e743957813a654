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

#include "generator/backend/bidirectional_codegen.hpp"
#include "generator/backend/canonical_printer.hpp"
#include "generator/backend/codegen.hpp"
#include "generator/driver/output_file.hpp"
#include "generator/backend/plan_dump.hpp"
#include "generator/backend/encoding.hpp"
#include "generator/driver/spec_input.hpp"
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
    bool canonical = false;
    bool dump_ir = false;
    std::vector<std::string> disabled_passes;
    std::string emit = "compressor";  // or header, bidirectional-header, bidirectional-source
    std::string name;                 // the stem of a bidirectional stream's names; default: the spec's file name
    std::string cpp_namespace;        // default: the spec's file name (header), tcgen_streams (bidirectional)
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
    std::string text;
    if (options.emit == "compressor") {
        text = options.canonical ? tcgen::canonical_text(*plan)
               : options.dump_ir ? tcgen::dump_code_plan(*plan)
                                 : tcgen::generate_compressor(*plan);
    } else if (options.emit == "header") {
        std::string cpp_namespace = options.cpp_namespace.empty() ? file_stem(options.spec_path) : options.cpp_namespace;
        if (!tcgen::is_namespace_name(cpp_namespace)) {
            std::cerr << "tcgen: error: '" << cpp_namespace << "' cannot name the codec's C++ namespace; give "
                      << "--namespace=NAME (identifiers joined by '::')\n";
            return exit_user_error;
        }
        std::string header_name = options.output_path.empty() ? file_stem(options.spec_path) + ".hpp"
                                                               : options.output_path.substr(
                                                                     options.output_path.find_last_of('/') + 1);
        text = tcgen::generate_codec_header(*plan, cpp_namespace, header_name);
    } else {
        if (!tcgen::check_bidirectional(plan->spec, sink)) {
            sink.print(std::cerr);
            return exit_user_error;
        }
        std::string stem = options.name.empty() ? file_stem(options.spec_path) : options.name;
        if (!tcgen::is_identifier(stem)) {
            std::cerr << "tcgen: error: '" << stem << "' cannot name a C++ stream type; give --name=NAME "
                      << "(letters, digits and '_')\n";
            return exit_user_error;
        }
        std::string cpp_namespace = options.cpp_namespace.empty() ? "tcgen_streams" : options.cpp_namespace;
        if (!tcgen::is_namespace_name(cpp_namespace)) {
            std::cerr << "tcgen: error: --namespace='" << cpp_namespace
                      << "' is not a C++ namespace name (identifiers joined by '::')\n";
            return exit_user_error;
        }
        tcgen::BidirectionalNames names = tcgen::bidirectional_names(stem, cpp_namespace);
        text = options.emit == "bidirectional-header" ? tcgen::generate_bidirectional_header(*plan, names)
                                                      : tcgen::generate_bidirectional_source(*plan, names);
    }
    if (!tcgen::write_output(options.output_path, text, {options.spec_path}, error)) {
        std::cerr << "tcgen: error: " << error << "\n";
        return exit_user_error;
    }
    return 0;
}

// The file run() writes for `spec` in --output-dir: the spec's file name
// with the extension of what is emitted.
std::string output_in_directory(const Options& options, const std::string& spec) {
    std::string extension = options.emit == "compressor" && !options.canonical && !options.dump_ir ? ".cpp"
                            : options.emit == "bidirectional-source"                                ? ".cpp"
                            : options.canonical                                                     ? ".tcg"
                            : options.dump_ir                                                       ? ".ir.txt"
                                                                                                    : ".hpp";
    std::string stem = options.emit.rfind("bidirectional", 0) == 0 && !options.name.empty() ? options.name
                                                                                            : file_stem(spec);
    return options.output_dir + "/" + stem + extension;
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
                       "Write each SPEC's output into DIR, named after the spec (a.tcg -> DIR/a.cpp, or a.hpp "
                       "for a header)");
        app.add_flag("--canonical", options.canonical,
                     "Print the spec in canonical form with per-field table sizes instead of code");
        app.add_flag("--dump-ir", options.dump_ir,
                     "Print the code plan after the optimisation passes (tables, types, sharing, hashing) instead of "
                     "code");
        // One argument per occurrence, split on commas by disabled_set().
        app.add_option("--disable", options.disabled_passes, passes_help())
            ->expected(1)
            ->allow_extra_args(false)
            ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
        app.add_option("--emit", options.emit,
                       "What to write: compressor (a standalone compressor program, the default), header (a "
                       "header for reading and writing .tcz files in-process: Reader, Writer, Record), "
                       "bidirectional-header or bidirectional-source (a stream type whose cursor walks the "
                       "compressed records both ways; see docs/bidirectional.md)")
            ->check(CLI::IsMember({"compressor", "header", "bidirectional-header", "bidirectional-source"}));
        app.add_option("--name", options.name,
                       "The stem of a bidirectional stream's names: NAME.hpp, NAME.cpp, class Name (default: the "
                       "spec's file name)");
        app.add_option("--namespace", options.cpp_namespace,
                       "The C++ namespace of a header's codec (default: the spec's file name) or of a "
                       "bidirectional stream (default: tcgen_streams)");
        app.set_version_flag("--version", "tcgen " + std::string(tcgen::version));
        try {
            app.parse(argc, argv);
        } catch (const CLI::CallForHelp& help) {
            return app.exit(help);
        } catch (const CLI::CallForAllHelp& help) {
            return app.exit(help);
        } catch (const CLI::CallForVersion& version) {
            return app.exit(version);
        } catch (const CLI::ParseError& parse_error) {
            std::cerr << "tcgen: error: " << parse_error.what() << " (try --help)\n";
            return exit_user_error;
        }
        return run_all(options);
    } catch (const std::exception& bug) {
        std::cerr << "tcgen: internal error: " << bug.what() << "\n";
        return exit_internal_error;
    }
}
