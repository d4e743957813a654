#pragma once
// What tcgen-branch-ids and tcgen-threads share: an error about one file,
// opening an input, and their main() after the command line is declared, so
// that both speak alike: a command line as wet's and wpp's
// (wet/subcommand_line.hpp), a failure as one line "PROGRAM: FILE: error:
// WHAT" or "PROGRAM: error: WHAT" and exit status 1.

#include <CLI/CLI.hpp>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <memory>
#include <new>
#include <optional>
#include <stdexcept>
#include <string>

#include "subcommand_line.hpp"

namespace tcgen::file_tool {

constexpr int exit_user_error = 1;

// An error about one file: "FILE: error: WHAT".
class FileError : public std::runtime_error {
public:
    FileError(const std::string& file, const std::string& what) : std::runtime_error(file + ": error: " + what) {}
};

using FilePtr = std::unique_ptr<std::FILE, int (*)(std::FILE*)>;

inline FilePtr open_input(const std::string& path) {
    std::FILE* file = std::fopen(path.c_str(), "rb");
    if (file == nullptr) {
        throw FileError(path, std::string("cannot open: ") + std::strerror(errno));
    }
    return FilePtr(file, std::fclose);
}

// Parses the command line of `app` and runs `command` (int()), whose status
// is the exit status; what it throws becomes one line on standard error.
template <typename Command>
int run(CLI::App& app, int argc, char** argv, const char* program, Command command) {
    app.require_subcommand(1);
    if (const std::optional<int> status = tcgen::cli::parse_subcommands(app, argc, argv, program)) {
        return *status;
    }
    try {
        const int status = command();
        // A full disk or a closed pipe shows only here: never exit 0 with
        // the output cut short.
        if (std::fflush(stdout) != 0 || std::ferror(stdout)) {
            std::cerr << program << ": error: write error on standard output: " << std::strerror(errno) << "\n";
            return exit_user_error;
        }
        return status;
    } catch (const FileError& error) {
        std::fflush(stdout);
        std::cerr << program << ": " << error.what() << "\n";
        return exit_user_error;
    } catch (const std::bad_alloc&) {
        std::cerr << program << ": error: out of memory\n";
        return exit_user_error;
    } catch (const std::exception& error) {
        std::fflush(stdout);
        std::cerr << program << ": error: " << error.what() << "\n";
        return exit_user_error;
    }
}

}  // namespace tcgen::file_tool
