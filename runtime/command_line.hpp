#pragma once
// The command line of every generated program, modelled on xz and zstd:
//
//   comp [OPTION]... [FILE]...
//
// compresses each FILE to FILE.tcz (or decompresses FILE.tcz to FILE with -d),
// removing the input once the output is complete unless -k, -c or -o is
// given; with no FILE, or FILE "-", it filters standard input to standard
// output. An output file appears only when complete; an existing one is
// replaced only with -f. Errors are one line, "comp: error: ...", and make
// the exit status 1 (2 for an internal error); with several files, the others
// are still processed. Other messages are few (MessagePlan): a line per file
// on a terminal, the predictor report only when asked for, -l on standard
// output.
// The options and their parser are in command_options.hpp.

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <memory>
#include <new>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <sys/stat.h>
#include <unistd.h>

#include "backends.hpp"
#include "codec.hpp"
#include "command_options.hpp"
#include "container_layout.hpp"
#include "driver.hpp"
#include "error.hpp"
#include "files.hpp"
#include "io.hpp"
#include "levels.hpp"
#include "listing.hpp"
#include "trace_reader.hpp"
#include "trace_writer.hpp"

namespace tcgen_runtime {

inline constexpr std::string_view tcz_suffix = ".tcz";

// Where the command line reads, writes and reports when no file is named;
// run_main uses the process's own, the tests memory buffers.
struct Console {
    ByteSource& input;
    ByteSink& output;
    std::FILE* messages;
    bool output_is_terminal = false;
    bool input_is_terminal = false;
    bool messages_is_terminal = false;
};

// What a run prints on standard error besides its errors, chosen as zstd
// chooses: on a terminal one summary line per file and the progress line,
// but not when the output is standard output, where the program is likely a
// filter feeding another (`comp -dc trace.tcz | simulator`) whose own output
// shares the terminal; elsewhere only warnings, so that scripts and logs stay
// clean (xz prints nothing either). -v prints the summary wherever standard
// error goes; --report (or -v) adds the predictor report after compressing;
// -q leaves only errors, whatever else is asked.
struct MessagePlan {
    bool warnings = false;  // an input that does not fit the spec
    bool progress = false;  // the line a long run rewrites once a second
    bool summary = false;   // one line per file: bytes in and out, ratio, records
    bool report = false;    // each predictor's hits and each stream's bytes
};

inline MessagePlan plan_messages(const CommandOptions& options, bool messages_is_terminal, bool output_is_console) {
    MessagePlan plan;
    if (options.quiet) {
        return plan;
    }
    plan.warnings = true;
    plan.report = (options.verbose || options.report) && options.operation == Operation::compress;
    plan.summary = options.verbose || plan.report || (messages_is_terminal && !output_is_console);
    plan.progress = messages_is_terminal && (options.verbose || !output_is_console);
    return plan;
}

inline std::string program_basename(const char* argv0, std::string_view fallback) {
    if (argv0 == nullptr || *argv0 == '\0') {
        return std::string(fallback);
    }
    const std::string path(argv0);
    const std::size_t slash = path.find_last_of('/');
    const std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
    return name.empty() ? std::string(fallback) : name;
}

inline void write_text(ByteSink& sink, const std::string& text) {
    sink.write(reinterpret_cast<const std::uint8_t*>(text.data()), text.size());
    sink.flush();
}

// Shows how far a long run has got, on a terminal only, at most once a second.
class ProgressLine {
public:
    ProgressLine(std::FILE* messages, bool enabled, std::string name, std::uint64_t input_size)
        : messages_(messages), enabled_(enabled), name_(std::move(name)), input_size_(input_size),
          last_(std::chrono::steady_clock::now()) {}

    void update(std::uint64_t in, std::uint64_t out) {
        if (!enabled_) {
            return;
        }
        const auto now = std::chrono::steady_clock::now();
        if (now - last_ < std::chrono::seconds(1)) {
            return;
        }
        last_ = now;
        shown_ = true;
        const double mib = 1024.0 * 1024.0;
        if (input_size_ > 0) {
            std::fprintf(messages_, "\r%s: %5.1f%%  %.1f MiB -> %.1f MiB ", name_.c_str(), percent_of(in, input_size_),
                         static_cast<double>(in) / mib, static_cast<double>(out) / mib);
        } else {
            std::fprintf(messages_, "\r%s: %.1f MiB -> %.1f MiB ", name_.c_str(), static_cast<double>(in) / mib,
                         static_cast<double>(out) / mib);
        }
        std::fflush(messages_);
    }

    // Clears the line before a report or an error is printed.
    void clear() {
        if (shown_) {
            std::fprintf(messages_, "\r\033[K");
            std::fflush(messages_);
            shown_ = false;
        }
    }

    ~ProgressLine() { clear(); }

private:
    std::FILE* messages_;
    bool enabled_;
    std::string name_;
    std::uint64_t input_size_;
    std::chrono::steady_clock::time_point last_;
    bool shown_ = false;
};

// Discards what is written: decompression for -t.
class DiscardSink final : public ByteSink {
public:
    void write(const std::uint8_t*, std::size_t) override {}
    void flush() override {}
};

template <class Codec>
class Command {
public:
    Command(const std::string& name, const CommandOptions& options, Console& console)
        : name_(name), options_(options), console_(console) {}

    // Runs the operation on every file (or the console); returns the exit
    // status.
    int run() {
        std::vector<std::string> files = options_.files;
        if (files.empty()) {
            files.push_back("-");
        }
        int status = 0;
        for (const std::string& file : files) {
            try {
                run_one(file);
            } catch (const SpecMismatchError& error) {
                report_error(file, error.what());
                std::fputs(spec_excerpt(error.spec_text()).c_str(), console_.messages);
                status = 1;
            } catch (const Error& error) {
                report_error(file, error.what());
                status = 1;
            } catch (const std::bad_alloc&) {
                report_error(file, "out of memory");
                status = 1;
            }
        }
        std::fflush(console_.messages);
        return status;
    }

private:
    void report_error(const std::string& file, const std::string& message) {
        const bool named = !options_.files.empty() && !(options_.files.size() == 1 && file == "-");
        std::fprintf(console_.messages, "%s: %s%serror: %s\n", name_.c_str(), named ? file.c_str() : "",
                     named ? ": " : "", message.c_str());
    }

    bool is_console(const std::string& file) const { return file == "-"; }

    // Where the output of `file` goes: the console (nullptr) or a file.
    std::unique_ptr<OutputPath> open_output(const std::string& file, const InputPath* input) {
        if (options_.output_path) {
            auto output = std::make_unique<OutputPath>(*options_.output_path, options_.force, true);
            check_not_the_input(*options_.output_path, input);
            return output;
        }
        if (options_.to_console || is_console(file)) {
            if (console_.output_is_terminal && !options_.force) {
                fail(std::string("refusing to write ") +
                     (options_.operation == Operation::decompress ? "decompressed" : "compressed") +
                     " data to a terminal (redirect standard output, or use -f)");
            }
            return nullptr;
        }
        const std::string output_name = derived_name(file);
        return std::make_unique<OutputPath>(output_name, options_.force, false);
    }

    std::string derived_name(const std::string& file) const {
        const bool has_suffix =
            file.size() > tcz_suffix.size() && file.compare(file.size() - tcz_suffix.size(), tcz_suffix.size(),
                                                            tcz_suffix.data(), tcz_suffix.size()) == 0;
        if (options_.operation == Operation::compress) {
            if (has_suffix) {
                fail("already has the " + std::string(tcz_suffix) + " suffix, skipped (use -c or -o to compress it)");
            }
            return file + std::string(tcz_suffix);
        }
        if (!has_suffix) {
            fail("has no " + std::string(tcz_suffix) + " suffix, skipped (use -c or -o to decompress it)");
        }
        return file.substr(0, file.size() - tcz_suffix.size());
    }

    static void check_not_the_input(const std::string& output_path, const InputPath* input) {
        struct stat output {};
        if (input != nullptr && ::stat(output_path.c_str(), &output) == 0 &&
            output.st_dev == input->status().st_dev && output.st_ino == input->status().st_ino) {
            fail("the output " + quoted_path(output_path) + " is the input file");
        }
    }

    void run_one(const std::string& file) {
        std::unique_ptr<InputPath> input_file;
        if (!is_console(file)) {
            input_file = std::make_unique<InputPath>(file);
        } else if (options_.operation != Operation::compress && console_.input_is_terminal && !options_.force) {
            fail("refusing to read compressed data from a terminal (redirect standard input, or use -f)");
        }
        ByteSource& input = input_file ? static_cast<ByteSource&>(*input_file) : console_.input;
        const std::string shown = is_console(file) ? "(stdin)" : file;
        if (options_.operation == Operation::list) {
            // On standard output, as xz -l and zstd -l print theirs: a
            // listing is what was asked for, not a message.
            for (const TczListing& listing : list_tcz(input, Codec::fingerprint, Codec::stream_names.data())) {
                write_text(console_.output, listing_text(shown, listing));
            }
            return;
        }
        if (options_.operation == Operation::test) {
            const MessagePlan plan = plan_messages(options_, console_.messages_is_terminal, false);
            DiscardSink discard;
            const RunTotals totals = decompress_on_threads<Codec>(input, discard, options_.threads,
                                                                  progress_of(plan, shown, input_file.get()));
            if (plan.summary) {
                std::fprintf(console_.messages, "%s: %s: ok, %llu records, %llu bytes\n", name_.c_str(), shown.c_str(),
                             static_cast<unsigned long long>(totals.records),
                             static_cast<unsigned long long>(totals.output_bytes));
            }
            return;
        }
        const bool removes_input = input_file && !options_.keep && !options_.to_console && !options_.output_path;
        if (removes_input && !input_file->is_regular()) {
            fail("is not a regular file, skipped (use -c or -o to read it)");
        }
        std::unique_ptr<OutputPath> output_file = open_output(file, input_file.get());
        ByteSink& output = output_file ? static_cast<ByteSink&>(*output_file) : console_.output;
        const std::string target = output_file ? output_file->path() : "(stdout)";
        const MessagePlan plan = plan_messages(options_, console_.messages_is_terminal, output_file == nullptr);
        if (options_.operation == Operation::compress) {
            TraceWriter<Codec> writer(output, options_.write);
            ProgressLine progress(console_.messages, plan.progress, shown, input_size(input_file.get()));
            compress_with(input, writer, [&](const TraceWriter<Codec>& current) {
                progress.update(current.totals().input_bytes, current.bytes_written());
            });
            progress.clear();
            finish_output(output_file.get(), input_file.get());
            write_compression_messages(plan, writer, shown, target);
        } else {
            const RunTotals totals = decompress_on_threads<Codec>(input, output, options_.threads,
                                                                  progress_of(plan, shown, input_file.get()));
            finish_output(output_file.get(), input_file.get());
            if (plan.summary) {
                std::fprintf(console_.messages, "%s: %s -> %s: %llu bytes in, %llu bytes out (%llu records)\n",
                             name_.c_str(), shown.c_str(), target.c_str(),
                             static_cast<unsigned long long>(totals.input_bytes),
                             static_cast<unsigned long long>(totals.output_bytes),
                             static_cast<unsigned long long>(totals.records));
            }
        }
        if (removes_input && ::unlink(file.c_str()) != 0) {
            fail("cannot remove the input: " + errno_text(errno));
        }
    }

    static std::uint64_t input_size(const InputPath* input) {
        return input != nullptr && input->is_regular() ? static_cast<std::uint64_t>(input->status().st_size) : 0;
    }

    // The decompression progress callback: a ProgressLine owned by the lambda.
    auto progress_of(const MessagePlan& plan, const std::string& shown, const InputPath* input) {
        auto line = std::make_shared<ProgressLine>(console_.messages, plan.progress, shown, input_size(input));
        return [line](const RunTotals& totals) { line->update(totals.input_bytes, totals.output_bytes); };
    }

    static void finish_output(OutputPath* output, const InputPath* input) {
        if (output == nullptr) {
            return;
        }
        if (input != nullptr && input->is_regular()) {
            output->copy_metadata(input->status());
        }
        output->commit();
    }

    // The predictor report, the summary line and the warnings, each as the
    // plan says.
    void write_compression_messages(const MessagePlan& plan, const TraceWriter<Codec>& writer, const std::string& shown,
                                    const std::string& target) {
        std::FILE* out = console_.messages;
        const RunTotals& totals = writer.totals();
        if (plan.report) {
            writer.codec().write_report(out);
            std::vector<StreamListing> streams;
            for (std::size_t stream = 0; stream < Codec::stream_count; ++stream) {
                const bool written = stream < writer.stream_bytes().size();
                streams.push_back({std::string(Codec::stream_names[stream]),
                                   written ? writer.stream_raw_bytes()[stream] : 0,
                                   written ? writer.stream_bytes()[stream] : 0});
            }
            std::fputs(stream_table_text(streams, totals.output_bytes).c_str(), out);
        }
        if (plan.summary) {
            const std::string which = options_.files.empty() ? "" : shown + " -> " + target + ": ";
            std::fprintf(out, "%s: %s%llu bytes in, %llu bytes out, ratio %.3f (%llu records in %llu blocks)\n",
                         name_.c_str(), which.c_str(), static_cast<unsigned long long>(totals.input_bytes),
                         static_cast<unsigned long long>(totals.output_bytes),
                         ratio_of(totals.input_bytes, totals.output_bytes),
                         static_cast<unsigned long long>(totals.records),
                         static_cast<unsigned long long>(totals.blocks));
        }
        if (plan.warnings) {
            write_fit_warnings(writer);
        }
        std::fflush(out);
    }

    // Warnings of an input that does not fit the spec.
    void write_fit_warnings(const TraceWriter<Codec>& writer) {
        std::FILE* out = console_.messages;
        const RunTotals& totals = writer.totals();
        const std::uint64_t header = totals.input_bytes < Codec::header_bytes ? totals.input_bytes : Codec::header_bytes;
        const std::uint64_t tail = (totals.input_bytes - header) % Codec::record_bytes;
        if (totals.input_bytes < Codec::header_bytes) {
            std::fprintf(out, "%s: warning: the input (%llu bytes) is shorter than the spec's %zu-byte header\n",
                         name_.c_str(), static_cast<unsigned long long>(totals.input_bytes), Codec::header_bytes);
        } else if (tail != 0) {
            std::fprintf(out,
                         "%s: warning: the input is not a whole number of %zu-byte records after its header: "
                         "%llu bytes left over, kept verbatim (is this the right spec?)\n",
                         name_.c_str(), Codec::record_bytes, static_cast<unsigned long long>(tail));
        }
        // Below a few thousand records the tables are still filling up.
        if (totals.records >= minimum_records_for_fit && writer.codec().mostly_missed()) {
            std::fprintf(out,
                         "%s: warning: every field's predictions missed more than half the time: is the input in "
                         "this spec's format?\n",
                         name_.c_str());
        }
    }

    static constexpr std::uint64_t minimum_records_for_fit = 4096;

    std::string name_;
    const CommandOptions& options_;
    Console& console_;
};

// The command line on a console; returns the exit status.
template <class Codec>
int run_command(int argc, char** argv, Console& console) {
    const std::string name = program_basename(argc > 0 ? argv[0] : nullptr, Codec::program_name);
    try {
        const ParsedCommand parsed = parse_command_line<Codec>(argc, argv, name);
        if (parsed.text) {
            write_text(console.output, *parsed.text);
            return 0;
        }
        return Command<Codec>(name, parsed.options, console).run();
    } catch (const Error& error) {
        std::fprintf(console.messages, "%s: error: %s\n", name.c_str(), error.what());
    } catch (const std::bad_alloc&) {
        std::fprintf(console.messages, "%s: error: out of memory\n", name.c_str());
    } catch (const std::exception& error) {
        std::fprintf(console.messages, "%s: internal error: %s\n", name.c_str(), error.what());
        std::fflush(console.messages);
        return 2;
    }
    std::fflush(console.messages);
    return 1;
}

// What a generated main() calls.
template <class Codec>
int run_main(int argc, char** argv) {
    // A reader that goes away (`comp -dc trace.tcz | head`) ends the program
    // quietly by SIGPIPE, as it ends xz and zstd: the handler (set even if
    // the parent ignored SIGPIPE) dies of it, so the shell sees 141, not an
    // error; a genuine write error, such as a full disk, is still one line
    // and exit status 1.
    remove_temporaries_on_signals();
    InputFile input(STDIN_FILENO);
    OutputFile output(STDOUT_FILENO);
    Console console{input, output, stderr, ::isatty(STDOUT_FILENO) == 1, ::isatty(STDIN_FILENO) == 1,
                    ::isatty(STDERR_FILENO) == 1};
    return run_command<Codec>(argc, argv, console);
}

}  // namespace tcgen_runtime
