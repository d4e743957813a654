#pragma once
// The command lines of tcgen's programs, parsed by CLI11 with the project's
// messages, and the main() of a program made of subcommands (wet, wpp,
// tcgen-branch-ids, tcgen-threads), so that all of them speak alike: --help,
// --help-all and --version print and exit 0; an unknown command is named
// with the known ones (CLI11 would call it a missing one); any other
// mistake, or a failure of the command, is one line on standard error
// ("PROGRAM: error: WHAT (try PROGRAM --help)", "PROGRAM: FILE: error:
// WHAT") and exit status 1.

#include <CLI/CLI.hpp>

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <new>
#include <optional>
#include <stdexcept>
#include <string>

#include <tcgen/file_error.hpp>

#include "runtime/files.hpp"

namespace tcgen::cli {

constexpr int exit_user_error = 1;

// A mistake on the command line that only the command sees (a number out of
// range, a position past the end): "PROGRAM: error: WHAT".
class UsageError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// A validator for an unsigned number given on the command line: decimal
// digits only. Without it "-1" would be read as 2^64 - 1 and "+5" or " 5"
// as 5, so that a typo runs a different query instead of being refused.
inline CLI::Validator unsigned_number() {
    return CLI::Validator(
        [](std::string& text) -> std::string {
            if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos) {
                return "'" + text + "' is not an unsigned decimal number";
            }
            if (text.size() > 20 || (text.size() == 20 && text > "18446744073709551615")) {
                return "'" + text + "' is more than 2^64 - 1";
            }
            return std::string();
        },
        "", "unsigned number");  // no text of its own in the help: the option's type says UINT
}

// Binary output is refused on a terminal, as the generated programs refuse
// it, unless -f/--force says so: it would garble the terminal and helps no
// one.
inline void refuse_binary_on_terminal(bool force) {
    if (!force && ::isatty(STDOUT_FILENO) == 1) {
        throw UsageError("refusing to write binary data to a terminal (redirect standard output, or use -f)");
    }
}

// nullopt when the command line parsed, else the status to exit with.
// `error_prefix` starts the error line ("tcgen: error: "), `help_hint` names
// the help to try ("--help").
inline std::optional<int> parse_command_line(CLI::App& app, int argc, char** argv, const std::string& error_prefix,
                                             const std::string& help_hint) {
    try {
        app.parse(argc, argv);
    } catch (const CLI::CallForHelp& help) {
        return app.exit(help);
    } catch (const CLI::CallForAllHelp& help) {
        return app.exit(help);
    } catch (const CLI::CallForVersion& version) {
        return app.exit(version);
    } catch (const CLI::ParseError& parse_error) {
        std::cerr << error_prefix << parse_error.what() << " (try " << help_hint << ")\n";
        return exit_user_error;
    }
    return std::nullopt;
}

// parse_command_line for a program whose first argument names a command.
inline std::optional<int> parse_subcommands(CLI::App& app, int argc, char** argv, const std::string& program) {
    const std::string first = argc > 1 ? argv[1] : "";
    std::string commands;
    bool known = false;
    for (const CLI::App* command : app.get_subcommands([](CLI::App*) { return true; })) {
        commands += (commands.empty() ? "" : ", ") + command->get_name();
        known = known || command->get_name() == first;
    }
    if (!first.empty() && first[0] != '-' && !known) {
        std::cerr << program << ": error: unknown command '" << first << "' (" << commands << "; try " << program
                  << " --help)\n";
        return exit_user_error;
    }
    return parse_command_line(app, argc, argv, program + ": error: ", program + " --help");
}

// Parses the command line of `app`, which must name one of its subcommands,
// and runs `command` (int()), whose status is the exit status. What it
// throws becomes one line on standard error, after what it printed: a
// FileError as "PROGRAM: FILE: error: WHAT", a UsageError as "PROGRAM:
// error: WHAT". Anything else names no file of its own: it is "PROGRAM:
// error: WHAT" ("out of memory" for a failed allocation) or, where the
// program says which file such failures are about (`file_of_other_errors`:
// wet's WET, whose streams throw without naming it), "PROGRAM: FILE: error:
// WHAT".
template <typename Command>
int run_subcommands(CLI::App& app, int argc, char** argv, const std::string& program, Command command,
                    const std::string* file_of_other_errors = nullptr) {
    app.require_subcommand(1);
    // A positional names itself ("INSTANCE"); CLI11 would add "TEXT".
    for (CLI::App* command : app.get_subcommands([](CLI::App*) { return true; })) {
        for (CLI::Option* option : command->get_options([](CLI::Option* option) { return option->get_positional(); })) {
            if (option->get_type_name() == "TEXT") {
                option->type_name("");
            }
        }
    }
    app.set_version_flag("--version", program + " " TCGEN_VERSION);  // TCGEN_VERSION: common/CMakeLists.txt
    if (const std::optional<int> status = parse_subcommands(app, argc, argv, program)) {
        return *status;
    }
    // A kill or ^C while an output is written removes its temporary, as in
    // the generated programs (common/output.hpp).
    tcgen_runtime::remove_temporaries_on_signals();
    const auto fail = [&](const std::string& line) {
        std::fflush(stdout);
        std::cerr << program << ": " << line << "\n";
        return exit_user_error;
    };
    const auto fail_naming_no_file = [&](const std::string& what) {
        const bool named = file_of_other_errors != nullptr && !file_of_other_errors->empty();
        return fail((named ? *file_of_other_errors + ": " : "") + "error: " + what);
    };
    try {
        const int status = command();
        // A full disk or a closed pipe shows only here: never exit 0 with
        // the output cut short.
        if (std::fflush(stdout) != 0 || std::ferror(stdout)) {
            std::cerr << program << ": error: write error on standard output: " << std::strerror(errno) << "\n";
            return exit_user_error;
        }
        return status;
    } catch (const UsageError& error) {
        return fail(std::string("error: ") + error.what());
    } catch (const FileError& error) {
        return fail(error.what());
    } catch (const std::bad_alloc&) {
        return fail_naming_no_file("out of memory");
    } catch (const std::length_error&) {
        // A size past what a vector may hold ("vector::reserve"): a claim
        // no check caught, never the library's words.
        return fail_naming_no_file("out of memory: a size past what this machine can hold");
    } catch (const std::exception& error) {
        return fail_naming_no_file(error.what());
    }
}

}  // namespace tcgen::cli
