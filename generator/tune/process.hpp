#pragma once
// Running the programs the tuner needs (the C++ compiler, each candidate's
// compressor) with files on their standard streams, and timing them.

#include <optional>
#include <string>
#include <vector>

namespace tcgen::tune {

struct ProcessResult {
    bool started = false;    // false: the program could not be run at all (see error)
    int exit_status = -1;    // meaningful when started and not signalled
    int signal = 0;          // non-zero when a signal ended it
    double cpu_seconds = 0;  // user + system time of the child
    std::string error;       // why it did not start: "No such file or directory"
};

// Runs argv[0] (looked up in PATH) with standard input from `stdin_path`
// (empty: /dev/null), standard output to `stdout_path` and standard error to
// `stderr_path` (both truncated; empty: /dev/null). Waits for it.
ProcessResult run_process(const std::vector<std::string>& argv, const std::string& stdin_path,
                          const std::string& stdout_path, const std::string& stderr_path);

// After this, SIGINT, SIGTERM and SIGHUP no longer end tcgen at once: the
// program running is stopped and run_process reports "interrupted", so that
// the caller can clean up (the tuner removes its work directory).
void catch_interruptions();
bool interrupted();

// Splits a command such as $CXX ("ccache g++ -m64") on blanks.
std::vector<std::string> split_command(const std::string& command);

}  // namespace tcgen::tune
