// `wet run`: the tracer's raw WET files read through named pipes while it
// runs (traced_run.hpp).
//
// The pipes are opened for reading, without blocking, before the tracer
// starts, so that its opens for writing never wait; then one thread polls
// them all and reads whatever comes, whichever file the tracer writes at
// the moment (reading the files one after another would stall it as soon
// as one pipe filled). On Linux a pipe that no writer has opened yet polls
// as quiet, and one whose writer closed polls as hung up: a pipe is done
// when it hangs up or when the tracer has exited and it is drained. What
// comes through a pipe is kept compressed, as zstd frames, in a file beside
// it, which the build reads as it reads raw files: the run's raw labels are
// never held in memory, and on disk they take a fraction of their size. The
// symbols, which the tracer opens anew for each write, go to a plain file.

#include "wet/tools/traced_run.hpp"

#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <tcgen/wet/raw_trace.hpp>

#include "common/command_line.hpp"
#include "common/files.hpp"
#include "runtime/files.hpp"
#include "wet/format/zstd_frames.hpp"

extern char** environ;

namespace tcgen::wet::tools {
namespace {

constexpr const char* tracer_name = "tcgen-tracer";

// The raw files the tracer keeps open while it runs: read through pipes.
constexpr std::array<const char*, 6> piped_files = {".blocks", ".flow", ".nodes", ".events", ".edges", ".regs"};

std::string tracer_path() {
    if (const char* named = std::getenv("TCGEN_TRACER"); named != nullptr && *named != '\0') {
        return named;
    }
    std::error_code error;
    const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", error);
    if (!error) {
        for (const std::filesystem::path& candidate :
             {self.parent_path() / tracer_name, self.parent_path().parent_path() / "tracer" / tracer_name}) {
            if (::access(candidate.c_str(), X_OK) == 0) {
                return candidate.string();
            }
        }
    }
    return tracer_name;  // looked up on PATH
}

// A file of the run beside OUT, removed when the run ends or a signal ends
// this program.
class RunFile {
public:
    explicit RunFile(std::string path) : pending_{std::move(path)} { tcgen_runtime::add_pending_temporary(pending_); }
    RunFile(const RunFile&) = delete;
    RunFile& operator=(const RunFile&) = delete;
    ~RunFile() {
        ::unlink(pending_.path.c_str());
        tcgen_runtime::remove_pending_temporary(pending_);
    }

    const std::string& path() const { return pending_.path; }

private:
    tcgen_runtime::PendingTemporary pending_;
};

// One raw file the tracer writes while it runs: a named pipe, read without
// waiting, its bytes kept as zstd frames in a file of the same kind beside
// it (a fraction of the raw bytes, read by the build as raw files are).
class PipedFile {
public:
    PipedFile(const std::string& pipe, const std::string& packed) : pipe_(pipe), packed_(packed), writer_(packed) {
        if (::mkfifo(pipe.c_str(), 0600) != 0) {
            throw WetError(pipe, std::string("cannot make a named pipe: ") + std::strerror(errno));
        }
        descriptor_ = ::open(pipe.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
        if (descriptor_ < 0) {
            throw WetError(pipe, std::string("cannot open the named pipe: ") + std::strerror(errno));
        }
    }
    PipedFile(const PipedFile&) = delete;
    PipedFile& operator=(const PipedFile&) = delete;
    ~PipedFile() {
        if (descriptor_ >= 0) {
            ::close(descriptor_);
        }
    }

    const std::string& path() const { return pipe_.path(); }
    int descriptor() const { return descriptor_; }
    bool done() const { return descriptor_ < 0; }

    // Reads what the pipe holds now; closes it at its end. `ended`: the
    // tracer has exited, so an empty pipe is at its end too.
    void read_available(bool ended) {
        std::uint8_t buffer[1 << 16];
        for (;;) {
            const ssize_t got = ::read(descriptor_, buffer, sizeof buffer);
            if (got > 0) {
                writer_.write(buffer, static_cast<std::size_t>(got));
                continue;
            }
            if (got < 0 && errno == EINTR) {
                continue;
            }
            if (got < 0 && errno != EAGAIN) {
                throw WetError(path(), std::string("read error: ") + std::strerror(errno));
            }
            // 0 with a writer gone (or never there once the tracer ended):
            // the end; EAGAIN: a writer that has not written more yet.
            if ((got == 0 && (connected_ || ended)) || (got < 0 && ended)) {
                ::close(descriptor_);
                descriptor_ = -1;
            }
            return;
        }
    }
    // The pipe polled as hung up: its writer came and went.
    void saw_writer() { connected_ = true; }

    // After the pipe's end: its frames written. A required file the tracer
    // wrote nothing to is refused; an optional one is not there.
    void finish(bool required) {
        writer_.finish();
        if (writer_.size() == 0 && required) {
            throw WetError(path(), "the tracer wrote nothing to it");
        }
        if (writer_.size() == 0) {
            ::unlink(packed_.path().c_str());  // a tracer that does not write it
        }
    }

private:
    RunFile pipe_;
    RunFile packed_;
    ZstdFramesWriter writer_;
    bool connected_ = false;
    int descriptor_ = -1;
};

// The running tracer's pid (0: none), for a signal that ends this program
// to end it first: left running, it would make the files it writes (regular
// files, once their pipes are removed) beside OUT after the run's files
// were removed.
std::atomic<pid_t> running_tracer{0};

// Async-signal-safe (kill, waitpid): the traced program goes with the run.
void end_running_tracer() {
    const pid_t pid = running_tracer.exchange(0);
    if (pid > 0) {
        ::kill(pid, SIGKILL);
        while (::waitpid(pid, nullptr, 0) < 0 && errno == EINTR) {
        }
    }
}

// The tracer as a child process; its exit status once it has ended.
class Tracer {
public:
    explicit Tracer(std::vector<std::string> argv) : argv_(std::move(argv)) {
        std::vector<char*> pointers;
        for (std::string& argument : argv_) {
            pointers.push_back(argument.data());
        }
        pointers.push_back(nullptr);
        tcgen_runtime::before_removing_temporaries.store(end_running_tracer);
        // The handled signals blocked from the spawn until its pid is known,
        // so that none ends this program with the tracer unknown to the
        // handler; the tracer starts with the mask this program had.
        sigset_t mask;
        ::pthread_sigmask(SIG_SETMASK, nullptr, &mask);
        posix_spawnattr_t attributes;
        ::posix_spawnattr_init(&attributes);
        ::posix_spawnattr_setsigmask(&attributes, &mask);
        ::posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSIGMASK);
        int error = 0;
        {
            const tcgen_runtime::TemporarySignalsBlocked blocked;
            error = ::posix_spawnp(&pid_, pointers[0], nullptr, &attributes, pointers.data(), environ);
            if (error == 0) {
                running_tracer.store(pid_);
            }
        }
        ::posix_spawnattr_destroy(&attributes);
        if (error != 0) {
            throw WetError(argv_[0], std::string("cannot run it: ") + std::strerror(error));
        }
    }
    Tracer(const Tracer&) = delete;
    Tracer& operator=(const Tracer&) = delete;
    ~Tracer() {
        if (!status_) {  // an error before it ended: it has no reader any more
            running_tracer.store(0);
            ::kill(pid_, SIGTERM);
            int status = 0;
            while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
            }
        }
    }

    // Whether it has ended (waiting for it if `block`).
    bool wait(bool block) {
        while (!status_) {
            int status = 0;
            const pid_t got = ::waitpid(pid_, &status, block ? 0 : WNOHANG);
            if (got == pid_) {
                running_tracer.store(0);
                status_ = status;
            } else if (got == 0) {
                return false;
            } else if (errno != EINTR) {
                throw WetError(argv_[0], std::string("cannot wait for it: ") + std::strerror(errno));
            }
        }
        return true;
    }
    // Throws unless it exited with status 0.
    void check() const {
        if (WIFEXITED(*status_) && WEXITSTATUS(*status_) == 0) {
            return;
        }
        throw WetError(argv_[0], WIFSIGNALED(*status_)
                                     ? "killed by signal " + std::to_string(WTERMSIG(*status_))
                                     : "exited with status " + std::to_string(WEXITSTATUS(*status_)));
    }

private:
    std::vector<std::string> argv_;
    pid_t pid_ = -1;
    std::optional<int> status_;
};

}  // namespace

void traced_run(const std::string& out, const std::vector<std::string>& command,
                const std::function<void(const std::string& prefix)>& use) {
    for (const std::string& argument : command) {
        if (argument.rfind("--wet=", 0) == 0 || argument == "--wet") {
            throw cli::UsageError("wet run gives tcgen-tracer its --wet=PREFIX itself: leave " + argument + " out");
        }
        if (argument.empty() || argument[0] != '-') {
            break;  // the program: its own arguments follow
        }
    }
    const std::string prefix = out + ".run-" + std::to_string(::getpid());
    const std::string packed = prefix + ".zst";
    std::array<std::optional<PipedFile>, piped_files.size()> pipes;
    for (std::size_t at = 0; at < piped_files.size(); ++at) {
        pipes[at].emplace(prefix + piped_files[at], packed + piped_files[at]);
    }
    // The symbols, a plain file the tracer writes, join the packed files.
    RunFile symbols(prefix + ".syms");
    RunFile packed_symbols(packed + ".syms");

    std::vector<std::string> argv = {tracer_path(), "--wet=" + prefix};
    argv.insert(argv.end(), command.begin(), command.end());
    Tracer tracer(argv);
    for (bool ended = false;;) {
        std::vector<pollfd> polled;
        std::vector<PipedFile*> polled_files;
        for (std::optional<PipedFile>& pipe : pipes) {
            if (!pipe->done()) {
                polled.push_back(pollfd{pipe->descriptor(), POLLIN, 0});
                polled_files.push_back(&*pipe);
            }
        }
        if (polled.empty()) {
            tracer.wait(true);
            break;
        }
        if (::poll(polled.data(), polled.size(), ended ? 0 : 100) < 0 && errno != EINTR) {
            throw WetError(prefix, std::string("cannot wait for the tracer's output: ") + std::strerror(errno));
        }
        for (std::size_t at = 0; at < polled.size(); ++at) {
            if ((polled[at].revents & POLLHUP) != 0) {
                polled_files[at]->saw_writer();
            }
            if (ended || polled[at].revents != 0) {
                polled_files[at]->read_available(ended);
            }
        }
        // Once the tracer has ended, one more pass drains every pipe.
        ended = ended || tracer.wait(false);
    }
    tracer.check();
    for (std::size_t at = 0; at < piped_files.size(); ++at) {
        pipes[at]->finish(std::strcmp(piped_files[at], ".regs") != 0);  // traces of older tracers have no .regs
    }
    if (std::filesystem::exists(symbols.path())) {
        std::filesystem::rename(symbols.path(), packed_symbols.path());
    }
    use(packed);
}

}  // namespace tcgen::wet::tools
