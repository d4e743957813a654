#pragma once
// How tcgen and tcgen tune end a command line that does not parse: CLI11's
// --help, --help-all and --version print and exit 0; anything else is one
// line "PREFIXWHAT (try HINT)" on standard error and exit 1.

#include <optional>
#include <string>

#include <CLI/CLI.hpp>

namespace tcgen {

// nullopt when the command line parsed, else the status to exit with.
// `error_prefix` starts the error line ("tcgen: error: "), `help_hint` names
// the help to try ("--help").
std::optional<int> parse_command_line(CLI::App& app, int argc, char** argv, const std::string& error_prefix,
                                      const std::string& help_hint);

}  // namespace tcgen
