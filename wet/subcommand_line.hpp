#pragma once
// The command line of a program made of subcommands (`wet`, `wpp`), parsed
// by CLI11 with the project's messages: an unknown command is named with the
// known ones (CLI11 would call it a missing one), a parse error is one line
// "PROGRAM: error: WHAT (try PROGRAM --help)", --help prints help.

#include <CLI/CLI.hpp>

#include <iostream>
#include <optional>
#include <string>

namespace tcgen::cli {

// nullopt when the command line parsed, else the status to exit with.
inline std::optional<int> parse_subcommands(CLI::App& app, int argc, char** argv, const std::string& program) {
    constexpr int exit_user_error = 1;
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
    try {
        app.parse(argc, argv);
    } catch (const CLI::CallForHelp& help) {
        return app.exit(help);
    } catch (const CLI::CallForAllHelp& help) {
        return app.exit(help);
    } catch (const CLI::ParseError& error) {
        std::cerr << program << ": error: " << error.what() << " (try " << program << " --help)\n";
        return exit_user_error;
    }
    return std::nullopt;
}

}  // namespace tcgen::cli
