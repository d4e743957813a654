#pragma once
// Named files for the command line and the in-process Reader and Writer: an
// input opened by path, and an output that appears under its name only when
// complete. A regular (or new) output file is written to a fresh temporary
// beside it and renamed over the name on commit(); if the run fails first,
// the temporary is removed, so no partial file is ever left behind. A device
// or FIFO named explicitly is written straight through, never replaced. A
// new file gets mode 0666 less the umask, as any program's new file; an
// output that may not replace a file claims its name atomically on commit,
// so of two runs writing the same new name exactly one succeeds.

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <optional>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include "error.hpp"
#include "io.hpp"

namespace tcgen_runtime {

// Owns a file descriptor.
class Descriptor {
public:
    Descriptor() = default;
    explicit Descriptor(int descriptor) : descriptor_(descriptor) {}
    Descriptor(const Descriptor&) = delete;
    Descriptor& operator=(const Descriptor&) = delete;
    Descriptor(Descriptor&& other) noexcept : descriptor_(std::exchange(other.descriptor_, -1)) {}
    Descriptor& operator=(Descriptor&& other) noexcept {
        if (this != &other) {
            close_quietly();
            descriptor_ = std::exchange(other.descriptor_, -1);
        }
        return *this;
    }
    ~Descriptor() { close_quietly(); }

    int get() const { return descriptor_; }

    // Closes, reporting the error a full disk or a network file system may
    // only give here.
    void close(const std::string& what) {
        const int descriptor = std::exchange(descriptor_, -1);
        if (descriptor >= 0 && ::close(descriptor) != 0 && errno != EINTR) {
            fail("write error on " + what + ": " + errno_text(errno));
        }
    }

private:
    void close_quietly() {
        if (descriptor_ >= 0) {
            ::close(descriptor_);
            descriptor_ = -1;
        }
    }

    int descriptor_ = -1;
};

// The temporary files being written, for a signal handler to remove: a
// program killed by ^C must not leave them behind either, however many it
// has open (tcgen-threads writes one per thread and kind). Each OutputPath
// owns its node; the list is changed only with the handled signals blocked
// in the changing thread (and under a mutex against other threads), so that
// a handler, which only reads it, never sees it half-changed in the thread
// it interrupts. (The tools deliver such signals to their one thread; a
// signal taken by another thread at the very moment a file opens or
// closes may miss that one temporary, as the single slot before could.)
struct PendingTemporary {
    std::string path;
    PendingTemporary* next = nullptr;
    PendingTemporary* previous = nullptr;
};

struct PendingTemporaries {
    PendingTemporary* volatile first = nullptr;
    std::mutex changing;
};

inline PendingTemporaries& pending_temporaries() {
    static PendingTemporaries pending;
    return pending;
}

constexpr int signals_that_remove_temporaries[] = {SIGINT, SIGTERM, SIGHUP, SIGPIPE};

// Blocks those signals in this thread while the list changes.
class TemporarySignalsBlocked {
public:
    TemporarySignalsBlocked() {
        sigset_t blocked;
        sigemptyset(&blocked);
        for (const int signal_number : signals_that_remove_temporaries) {
            sigaddset(&blocked, signal_number);
        }
        ::pthread_sigmask(SIG_BLOCK, &blocked, &before_);
    }
    TemporarySignalsBlocked(const TemporarySignalsBlocked&) = delete;
    TemporarySignalsBlocked& operator=(const TemporarySignalsBlocked&) = delete;
    ~TemporarySignalsBlocked() { ::pthread_sigmask(SIG_SETMASK, &before_, nullptr); }

private:
    sigset_t before_;
};

inline void add_pending_temporary(PendingTemporary& node) {
    PendingTemporaries& pending = pending_temporaries();
    const TemporarySignalsBlocked blocked;
    const std::lock_guard<std::mutex> lock(pending.changing);
    node.previous = nullptr;
    node.next = pending.first;
    if (node.next != nullptr) {
        node.next->previous = &node;
    }
    pending.first = &node;
}

inline void remove_pending_temporary(PendingTemporary& node) {
    PendingTemporaries& pending = pending_temporaries();
    const TemporarySignalsBlocked blocked;
    const std::lock_guard<std::mutex> lock(pending.changing);
    if (node.previous != nullptr) {
        node.previous->next = node.next;
    } else {
        pending.first = node.next;
    }
    if (node.next != nullptr) {
        node.next->previous = node.previous;
    }
    node.next = nullptr;
    node.previous = nullptr;
}

// A program's own step before its temporaries are removed on a signal,
// async-signal-safe: `wet run` ends the tracer it runs there, which would
// otherwise go on making files beside OUT after they were removed.
inline std::atomic<void (*)()> before_removing_temporaries{nullptr};

// Removes the pending temporaries, then dies of the signal as if unhandled.
extern "C" inline void remove_pending_temporary_and_die(int signal_number) {
    if (void (*const step)() = before_removing_temporaries.load()) {
        step();
    }
    for (const PendingTemporary* node = pending_temporaries().first; node != nullptr; node = node->next) {
        ::unlink(node->path.c_str());
    }
    std::signal(signal_number, SIG_DFL);
    std::raise(signal_number);
}

// For programs (not libraries, whose host owns its signals): ^C, a hangup,
// a kill or a closed pipe while an output file is being written removes its
// temporary, and the program dies of the signal as xz does. SIGPIPE is
// caught and unblocked even if the parent ignored or blocked it, so that a
// reader going away ends the program quietly (exit status 141 in a shell)
// instead of turning into a "Broken pipe" write error.
inline void remove_temporaries_on_signals() {
    for (const int signal_number : signals_that_remove_temporaries) {
        std::signal(signal_number, remove_pending_temporary_and_die);
    }
    sigset_t closed_pipe;
    sigemptyset(&closed_pipe);
    sigaddset(&closed_pipe, SIGPIPE);
    ::pthread_sigmask(SIG_UNBLOCK, &closed_pipe, nullptr);
}

inline std::string quoted_path(const std::string& path) {
    return "'" + path + "'";
}

// A file opened for reading by name, with what stat said of it.
class InputPath final : public ByteSource {
public:
    explicit InputPath(const std::string& path) : path_(path) {
        descriptor_ = Descriptor(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
        if (descriptor_.get() < 0) {
            fail("cannot open " + quoted_path(path) + ": " + errno_text(errno));
        }
        if (::fstat(descriptor_.get(), &status_) != 0) {
            fail("cannot read " + quoted_path(path) + ": " + errno_text(errno));
        }
        if (S_ISDIR(status_.st_mode)) {
            fail(quoted_path(path) + " is a directory");
        }
        reader_ = InputFile(descriptor_.get());
    }

    std::size_t read_up_to(std::uint8_t* buffer, std::size_t size) override {
        return reader_.read_up_to(buffer, size);
    }

    std::optional<std::uint64_t> size() const override { return reader_.size(); }

    void seek(std::uint64_t offset) override { reader_.seek(offset); }

    const struct stat& status() const { return status_; }

    bool is_regular() const { return S_ISREG(status_.st_mode); }

    const std::string& path() const { return path_; }

private:
    std::string path_;
    Descriptor descriptor_;
    struct stat status_ {};
    InputFile reader_;
};

// An output file by name; see the top of this file.
class OutputPath final : public ByteSink {
public:
    // Whether an existing regular file or symlink of that name may be
    // replaced (-f); and whether an existing device or FIFO may be written
    // to (an output named with -o, such as /dev/null). `buffer_capacity`:
    // the bytes buffered before a write (smaller for a program that keeps
    // many outputs open).
    OutputPath(const std::string& path, bool replace_existing, bool allow_special,
               std::size_t buffer_capacity = OutputFile::buffer_capacity)
        : path_(path), buffer_capacity_(buffer_capacity) {
        struct stat existing {};
        if (::lstat(path.c_str(), &existing) == 0) {
            const bool replaceable = S_ISREG(existing.st_mode) || S_ISLNK(existing.st_mode);
            if (!replaceable) {
                if (!allow_special || S_ISDIR(existing.st_mode)) {
                    fail(quoted_path(path) + " exists and is not a regular file");
                }
                open_straight_through();
                return;
            }
            if (!replace_existing) {
                fail(quoted_path(path) + " already exists (use -f to overwrite it)");
            }
        } else if (errno != ENOENT) {
            fail("cannot write " + quoted_path(path) + ": " + errno_text(errno));
        }
        descriptor_ = create_temporary_beside(path, temporary_);
        replace_existing_ = replace_existing;
        writer_ = OutputFile(descriptor_.get(), buffer_capacity);
        pending_.path = temporary_;
        add_pending_temporary(pending_);
        registered_ = true;
    }

    OutputPath(const OutputPath&) = delete;
    OutputPath& operator=(const OutputPath&) = delete;

    ~OutputPath() override {
        unregister();
        if (!temporary_.empty()) {
            ::unlink(temporary_.c_str());
        }
    }

    void write(const std::uint8_t* data, std::size_t size) override { writer_.write(data, size); }

    void flush() override { writer_.flush(); }

    // Gives the new file the permissions and modification time of `source`
    // (as gzip and xz do); a no-op for a device written straight through.
    void copy_metadata(const struct stat& source) {
        if (temporary_.empty()) {
            return;
        }
        ::fchmod(descriptor_.get(), source.st_mode & 07777);
        const struct timespec times[2] = {source.st_atim, source.st_mtim};
        ::futimens(descriptor_.get(), times);
    }

    // Flushes and closes the file, where a full disk shows, without giving
    // it the name yet: a program that writes several files closes them all
    // before it commits any.
    void close() {
        writer_.flush();
        descriptor_.close(quoted_path(path_));
    }

    // Completes the file: everything flushed and closed, then renamed over
    // the name. Until this returns, the name shows no partial output.
    void commit() {
        close();
        if (temporary_.empty()) {
            return;
        }
        if (replace_existing_) {
            if (::rename(temporary_.c_str(), path_.c_str()) != 0) {
                fail("cannot create " + quoted_path(path_) + ": " + errno_text(errno));
            }
        } else {
            claim_name();
        }
        unregister();
        temporary_.clear();
    }

    const std::string& path() const { return path_; }

private:
    // A new file beside `path`, named into `name`: exclusive (O_EXCL, no
    // symlink followed), with mode 0666 less the umask (mkstemp's 0600 would
    // hide the output from everyone else whatever the umask says).
    static Descriptor create_temporary_beside(const std::string& path, std::string& name) {
        static constexpr char letters[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
        std::random_device entropy;
        for (int attempt = 0; attempt < 100; ++attempt) {
            name = path + ".tmp";
            for (int i = 0; i < 6; ++i) {
                name += letters[entropy() % (sizeof letters - 1)];
            }
            Descriptor created(::open(name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666));
            if (created.get() >= 0) {
                return created;
            }
            if (errno != EEXIST) {
                break;
            }
        }
        const int error = errno;
        name.clear();
        fail("cannot create " + quoted_path(path) + ": " + errno_text(error));
    }

    // Gives the temporary the name only if nothing has it: a run that found
    // the name free at the start may have been overtaken by another since.
    // renameat2(RENAME_NOREPLACE) does it in one step; a file system without
    // it gets link() and unlink(), which fail the same way on a taken name.
    void claim_name() {
        if (::renameat2(AT_FDCWD, temporary_.c_str(), AT_FDCWD, path_.c_str(), RENAME_NOREPLACE) == 0) {
            return;
        }
        int error = errno;
        if (error == EINVAL || error == ENOSYS || error == ENOTSUP) {
            if (::link(temporary_.c_str(), path_.c_str()) == 0) {
                ::unlink(temporary_.c_str());
                return;
            }
            error = errno;
        }
        if (error == EEXIST) {
            fail(quoted_path(path_) + " already exists (use -f to overwrite it)");
        }
        fail("cannot create " + quoted_path(path_) + ": " + errno_text(error));
    }

    void open_straight_through() {
        descriptor_ = Descriptor(::open(path_.c_str(), O_WRONLY | O_CLOEXEC));
        if (descriptor_.get() < 0) {
            fail("cannot write " + quoted_path(path_) + ": " + errno_text(errno));
        }
        writer_ = OutputFile(descriptor_.get(), buffer_capacity_);
    }

    void unregister() {
        if (registered_) {
            remove_pending_temporary(pending_);
            registered_ = false;
        }
    }

    std::string path_;
    std::size_t buffer_capacity_;
    std::string temporary_;  // empty: writing straight through, or committed
    bool replace_existing_ = false;
    bool registered_ = false;
    PendingTemporary pending_;
    Descriptor descriptor_;
    OutputFile writer_{-1};
};

}  // namespace tcgen_runtime
