// tcgen: compiles a trace-format spec into a standalone C++ compressor.
//
// Exit status: 0 success, 1 a user error (bad spec, bad option, unreadable
// file), 2 an internal bug.

#include <exception>
#include <iostream>
#include <string>

#include <CLI/CLI.hpp>

#include "generator/canonical_printer.hpp"
#include "generator/frontend.hpp"
#include "generator/spec_reader.hpp"
#include "generator/version.hpp"

namespace {

constexpr int exit_user_error = 1;
constexpr int exit_internal_error = 2;

struct Options {
    std::string spec_path;
    bool canonical = false;
};

int run(const Options& options) {
    std::string error;
    std::optional<tcgen::SourceFile> file = tcgen::read_spec_file(options.spec_path, error);
    if (!file) {
        std::cerr << "tcgen: error: " << error << "\n";
        return exit_user_error;
    }
    tcgen::DiagnosticSink sink(*file);
    std::optional<tcgen::Spec> spec = tcgen::compile_spec(*file, sink);
    sink.print(std::cerr);
    if (!spec) {
        return exit_user_error;
    }
    if (options.canonical) {
        std::cout << tcgen::canonical_text(*spec);
        return 0;
    }
    std::cerr << "tcgen: error: code generation is not available in this build yet; "
                 "use --canonical to check and print the spec\n";
    return exit_user_error;
}

}  // namespace

int main(int argc, char** argv) {
    try {
        Options options;
        CLI::App app{"tcgen: compiles a trace-format spec into a standalone C++ compressor.\n"
                     "Writes the compressor's C++ source to standard output.",
                     "tcgen"};
        app.add_option("SPEC", options.spec_path, "The spec file, or - for standard input")->required();
        app.add_flag("--canonical", options.canonical,
                     "Print the spec in canonical form with per-field table sizes instead of code");
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
        int status = run(options);
        std::cout.flush();
        if (!std::cout) {
            std::cerr << "tcgen: error: cannot write to standard output\n";
            return exit_user_error;
        }
        return status;
    } catch (const std::exception& bug) {
        std::cerr << "tcgen: internal error: " << bug.what() << "\n";
        return exit_internal_error;
    }
}
