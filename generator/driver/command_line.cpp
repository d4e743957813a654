#include "generator/driver/command_line.hpp"

#include <iostream>

namespace tcgen {

std::optional<int> parse_command_line(CLI::App& app, int argc, char** argv, const std::string& error_prefix,
                                      const std::string& help_hint) {
    constexpr int exit_user_error = 1;
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

}  // namespace tcgen
