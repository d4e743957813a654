#pragma once
// The outputs of tcgen's tools, written as the generated programs write
// theirs (runtime/files.hpp): a file by name goes to an exclusive temporary
// beside it (O_EXCL, no symlink followed) that is renamed over the name on
// commit() and removed on an error or a signal (once the program called
// remove_temporaries_on_signals, as run_subcommands does); a device or FIFO
// named as the output is written straight through, never replaced. Standard
// output is the other kind of output, written as it comes. Failures are a
// FileError naming the output.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include <unistd.h>

#include <tcgen/file_error.hpp>

#include "runtime/error.hpp"
#include "runtime/files.hpp"
#include "runtime/io.hpp"

namespace tcgen {

class Output {
public:
    static constexpr std::size_t default_buffer = tcgen_runtime::OutputFile::buffer_capacity;

    // File `path`, replaced if it exists; `buffer` bytes are kept before a
    // write (a program with many outputs open keeps less).
    explicit Output(const std::string& path, std::size_t buffer = default_buffer) : name_(path) {
        guarded([&] { file_ = std::make_unique<tcgen_runtime::OutputPath>(path, true, true, buffer); });
    }

    // Standard output, named so in errors.
    static std::unique_ptr<Output> standard_output() { return std::unique_ptr<Output>(new Output()); }

    Output(const Output&) = delete;
    Output& operator=(const Output&) = delete;

    void write(const void* data, std::size_t size) {
        const auto* bytes = static_cast<const std::uint8_t*>(data);
        guarded([&] { sink().write(bytes, size); });
    }

    // Everything written out and the file closed, not yet under its name: a
    // program writing several files closes all before it commits any.
    void close() {
        guarded([&] {
            if (file_) {
                file_->close();
            } else {
                stdout_.flush();
            }
        });
    }

    // The file under its name (standard output: flushed). Until then the
    // name shows nothing of this run.
    void commit() {
        guarded([&] {
            if (file_) {
                file_->commit();
            } else {
                stdout_.flush();
            }
        });
    }

    const std::string& name() const { return name_; }

private:
    Output() : name_("standard output"), stdout_(STDOUT_FILENO) {}

    tcgen_runtime::ByteSink& sink() {
        if (file_) {
            return *file_;
        }
        return stdout_;
    }

    // The runtime's errors as a FileError naming the output once: "OUT:
    // error: cannot create: REASON", not "OUT: error: cannot create 'OUT':
    // REASON".
    template <typename Step>
    void guarded(Step step) {
        try {
            step();
        } catch (const tcgen_runtime::Error& error) {
            std::string message = error.what();
            const std::string quoted = tcgen_runtime::quoted_path(name_);
            if (message.compare(0, quoted.size() + 1, quoted + " ") == 0) {
                message.erase(0, quoted.size() + 1);
            } else if (const std::size_t on = message.find(" on " + quoted); on != std::string::npos) {
                message.erase(on, quoted.size() + 4);
            } else if (const std::size_t at = message.find(" " + quoted); at != std::string::npos) {
                message.erase(at, quoted.size() + 1);
            }
            throw FileError(name_, message);
        }
    }

    std::string name_;
    std::unique_ptr<tcgen_runtime::OutputPath> file_;
    tcgen_runtime::OutputFile stdout_{STDOUT_FILENO, 0};
};

}  // namespace tcgen
