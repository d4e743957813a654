#include "generator/tune/process.hpp"

#include <cerrno>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sstream>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>

extern char** environ;

namespace tcgen::tune {

namespace {

volatile std::sig_atomic_t interruption = 0;

void note_interruption(int) {
    interruption = 1;
}

double seconds(const timeval& time) {
    return static_cast<double>(time.tv_sec) + static_cast<double>(time.tv_usec) / 1e6;
}

}  // namespace

void catch_interruptions() {
    struct sigaction action {};
    action.sa_handler = note_interruption;
    sigemptyset(&action.sa_mask);
    action.sa_flags = 0;  // no SA_RESTART: wait4 returns EINTR
    for (int signal_number : {SIGINT, SIGTERM, SIGHUP}) {
        sigaction(signal_number, &action, nullptr);
    }
}

bool interrupted() {
    return interruption != 0;
}

ProcessResult run_process(const std::vector<std::string>& argv, const std::string& stdin_path,
                          const std::string& stdout_path, const std::string& stderr_path) {
    ProcessResult result;
    std::vector<char*> arguments;
    for (const std::string& argument : argv) {
        arguments.push_back(const_cast<char*>(argument.c_str()));
    }
    arguments.push_back(nullptr);
    const std::string null_device = "/dev/null";
    const std::string& input = stdin_path.empty() ? null_device : stdin_path;
    const std::string& output = stdout_path.empty() ? null_device : stdout_path;
    const std::string& messages = stderr_path.empty() ? null_device : stderr_path;
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 0, input.c_str(), O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&actions, 1, output.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_addopen(&actions, 2, messages.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    pid_t pid = 0;
    int spawn_error = posix_spawnp(&pid, arguments[0], &actions, nullptr, arguments.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    if (spawn_error != 0) {
        result.error = std::strerror(spawn_error);
        return result;
    }
    int status = 0;
    rusage usage{};
    while (wait4(pid, &status, 0, &usage) < 0) {
        if (errno == EINTR && interrupted()) {
            kill(pid, SIGTERM);
            while (wait4(pid, &status, 0, &usage) < 0 && errno == EINTR) {
            }
            result.error = "interrupted";
            return result;
        }
        if (errno != EINTR) {
            result.error = std::strerror(errno);
            return result;
        }
    }
    result.cpu_seconds = seconds(usage.ru_utime) + seconds(usage.ru_stime);
    if (WIFSIGNALED(status)) {
        result.started = true;
        result.signal = WTERMSIG(status);
        return result;
    }
    // posix_spawnp of glibc reports a missing program as exit status 127
    // of the child when it cannot tell earlier.
    if (WEXITSTATUS(status) == 127) {
        result.error = "cannot run it (exit status 127: not found?)";
        return result;
    }
    result.started = true;
    result.exit_status = WEXITSTATUS(status);
    return result;
}

std::vector<std::string> split_command(const std::string& command) {
    std::vector<std::string> words;
    std::istringstream in(command);
    std::string word;
    while (in >> word) {
        words.push_back(word);
    }
    return words;
}

}  // namespace tcgen::tune
