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
// are still processed.

#include <cerrno>
#include <chrono>
#include <csignal>
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
#include "container.hpp"
#include "driver.hpp"
#include "error.hpp"
#include "files.hpp"
#include "io.hpp"
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

enum class Operation { compress, decompress, test, list };

struct CommandOptions {
    Operation operation = Operation::compress;
    bool to_console = false;  // -c
    bool keep = false;        // -k
    bool force = false;       // -f
    bool quiet = false;       // -q
    bool verbose = false;     // -v
    std::optional<std::string> output_path;  // -o
    WriteOptions write;  // -0 .. -9, --restart-blocks, --block-size, --backend
    // -T, as xz and zstd take it: 0 (the default) lets the program choose,
    // 1 keeps to one thread. Decompression uses two threads unless it is 1
    // (TraceReader's ReadAhead); compression uses one whatever it says.
    std::uint32_t threads = 0;
    std::vector<std::string> files;

    ReadAhead read_ahead() const { return threads == 1 ? ReadAhead::off : ReadAhead::on; }
};

// What parse_command_line found: options to run with, or text to print.
struct ParsedCommand {
    CommandOptions options;
    std::optional<std::string> text;  // --help, --version, --spec
};

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

inline std::string usage_text(const std::string& name) {
    return "usage: " + name +
           " [OPTION]... [FILE]...\n"
           "Compresses each FILE to FILE.tcz, or decompresses FILE.tcz to FILE, removing FILE\n"
           "once the output is complete (keep it with -k). With no FILE, or when FILE is -,\n"
           "reads standard input and writes standard output. Compressing reports how often\n"
           "each predictor was right and the bytes of each stream on standard error.\n"
           "  -z, --compress     compress (the default)\n"
           "  -d, --decompress   decompress; concatenated .tcz files give the concatenation\n"
           "                     of their traces\n"
           "  -t, --test         decompress and verify, writing nothing\n"
           "  -l, --list         print the spec, records and bytes of each stream of each\n"
           "                     .tcz FILE, without decompressing\n"
           "  -c, --stdout       write to standard output and keep the input files\n"
           "  -o, --output=FILE  write to FILE (one input at most) and keep the input\n"
           "  -k, --keep         keep the input files\n"
           "  -f, --force        overwrite output files, write to a terminal\n"
           "  -q, --quiet        print no report, only errors\n"
           "  -v, --verbose      name each file and what became of it\n"
           "  -0 .. -9           compression level (default " +
           std::to_string(default_level) +
           "): below 6 LZMA searches\n"
           "                     less (-1: ~5x faster, 3-17 % larger); 7, 8 and 9 put\n"
           "                     32, 48 and 64 MiB in a block and follow LZMA's matches\n"
           "                     to their end: more ratio, memory and time\n"
           "  --fast, --best     the same as -0 and -9\n"
           "  --backend=NAME     compress every stream with lzma, zstd (fastest to\n"
           "                     decompress) or bzip2 (the TCgen paper's); by default each\n"
           "                     stream of each block gets the smaller of lzma and bzip2\n"
           "  --restart-blocks=N restart the predictors every N blocks (default " +
           std::to_string(default_restart_blocks) +
           ", 0: never),\n"
           "                     where an in-process Reader can seek to without decoding\n"
           "                     the blocks before\n"
           "  --block-size=SIZE  put SIZE bytes of records in each block (K, M, G suffixes;\n"
           "                     default " + std::to_string(tcz_default_block_bytes >> 20) + "MiB, at most " +
           std::to_string(tcz_max_block_bytes >> 20) +
           "MiB): the back-ends find\n"
           "                     repeats within a block, so larger blocks compress better\n"
           "                     and take more memory\n"
           "  -T, --threads=N    decompress on N threads: 1 reads and decodes on one, any\n"
           "                     other number (0, the default: choose) reads the next\n"
           "                     block on a second thread; compression uses one\n"
           "  --spec             print the trace specification this program was made from\n"
           "  -V, --version      print the version and the spec's fingerprint\n"
           "  -h, --help         print this help\n"
           "Exit status: 0 success, 1 an error (bad input or arguments, I/O), 2 an internal error.\n";
}

template <class Codec>
std::string version_text(const std::string& name) {
    return name + " (tcgen runtime, .tcz format version " + std::to_string(tcz_format_version) + ", spec " +
           hex64(Codec::fingerprint) + ")\n";
}

// Parses the arguments, xz-style: short options may be grouped (-dkc), -o
// and -T take the next argument or the rest of their group, "--" ends the
// options.
template <class Codec>
ParsedCommand parse_command_line(int argc, char** argv, const std::string& name) {
    ParsedCommand parsed;
    CommandOptions& options = parsed.options;
    bool options_ended = false;
    auto set_backend = [&](const std::string& requested) {
        const std::optional<Backend> chosen = backend_from_name(requested);
        if (!chosen) {
            fail("unknown back-end '" + requested + "' (bzip2, lzma or zstd)");
        }
        options.write.backend = *chosen;
    };
    auto take_value = [&](int& index, const std::string& option, const char* what = "a file name") {
        if (index + 1 >= argc) {
            fail("option '" + option + "' needs " + what);
        }
        index += 1;
        return std::string(argv[index]);
    };
    // A count in 0 .. 2^32 - 1, written in decimal, or a one-line error.
    auto take_count = [](const std::string& text, const std::string& option, const std::string& unit) {
        std::size_t used = 0;
        unsigned long count = 0;
        try {
            count = std::stoul(text, &used);
        } catch (const std::exception&) {
            used = 0;
        }
        if (used == 0 || used != text.size() || text[0] == '-' || count > 0xFFFFFFFFul) {
            fail(option + " needs a number of " + unit + " (0 .. 4294967295), not '" + text + "'");
        }
        return static_cast<std::uint32_t>(count);
    };
    // A size in bytes, written in decimal with an optional binary suffix
    // (K or KiB, M or MiB, G or GiB), as xz takes --block-size; checked
    // against the record size when the writer is made.
    auto take_size = [](const std::string& text, const std::string& option) {
        const std::size_t digits = text.find_first_not_of("0123456789");
        const std::string suffix = digits == std::string::npos ? "" : text.substr(digits);
        int shift = -1;
        if (suffix.empty()) {
            shift = 0;
        } else if (suffix == "K" || suffix == "KiB") {
            shift = 10;
        } else if (suffix == "M" || suffix == "MiB") {
            shift = 20;
        } else if (suffix == "G" || suffix == "GiB") {
            shift = 30;
        }
        const std::string number = text.substr(0, digits);
        if (shift < 0 || number.empty() || number.size() > 12) {
            fail(option + " needs a size in bytes, with K, M or G (KiB, MiB, GiB) if wanted, not '" + text + "'");
        }
        const std::uint64_t count = std::stoull(number);  // at most 12 digits: no overflow
        if (count > tcz_max_block_bytes >> shift || count << shift < Codec::record_bytes) {
            fail(option + " needs a size from " + size_text(Codec::record_bytes) + " bytes (one record) to " +
                 std::to_string(tcz_max_block_bytes >> 20) + "MiB, not '" + text + "'");
        }
        return count << shift;
    };
    auto set_threads = [&](const std::string& text) { options.threads = take_count(text, "--threads", "threads"); };
    for (int index = 1; index < argc; ++index) {
        const std::string argument = argv[index];
        if (options_ended || argument == "-" || argument.empty() || argument[0] != '-') {
            options.files.push_back(argument);
        } else if (argument == "--") {
            options_ended = true;
        } else if (argument.rfind("--", 0) == 0) {
            const std::size_t equals = argument.find('=');
            const std::string option = argument.substr(0, equals);
            const std::optional<std::string> value =
                equals == std::string::npos ? std::nullopt : std::optional<std::string>(argument.substr(equals + 1));
            const bool takes_value = option == "--backend" || option == "--output" || option == "--restart-blocks" ||
                                     option == "--block-size" || option == "--threads";
            if (value && !takes_value) {
                fail("option '" + option + "' takes no value");
            }
            if (option == "--compress") {
                options.operation = Operation::compress;
            } else if (option == "--decompress" || option == "--uncompress") {
                options.operation = Operation::decompress;
            } else if (option == "--test") {
                options.operation = Operation::test;
            } else if (option == "--list") {
                options.operation = Operation::list;
            } else if (option == "--stdout" || option == "--to-stdout") {
                options.to_console = true;
            } else if (option == "--fast") {
                options.write.level = 0;
            } else if (option == "--best") {
                options.write.level = max_level;
            } else if (option == "--keep") {
                options.keep = true;
            } else if (option == "--force") {
                options.force = true;
            } else if (option == "--quiet") {
                options.quiet = true;
            } else if (option == "--verbose") {
                options.verbose = true;
            } else if (option == "--backend") {
                set_backend(value ? *value : take_value(index, option));
            } else if (option == "--restart-blocks") {
                options.write.restart_blocks =
                    take_count(value ? *value : take_value(index, option), option, "blocks");
            } else if (option == "--block-size") {
                options.write.block_bytes = take_size(value ? *value : take_value(index, option, "a size"), option);
            } else if (option == "--threads") {
                set_threads(value ? *value : take_value(index, option, "a number"));
            } else if (option == "--output") {
                options.output_path = value ? *value : take_value(index, option);
            } else if (option == "--spec") {
                parsed.text = std::string(Codec::spec_text);
                return parsed;
            } else if (option == "--version") {
                parsed.text = version_text<Codec>(name);
                return parsed;
            } else if (option == "--help") {
                parsed.text = usage_text(name);
                return parsed;
            } else {
                fail("unknown option '" + argument + "' (try -h)");
            }
        } else {
            for (std::size_t position = 1; position < argument.size(); ++position) {
                const char letter = argument[position];
                if (letter >= '0' && letter <= '9') {
                    // A level, as xz and zstd take it; -19 is zstd's
                    // habit, not a level here.
                    const std::size_t digits_end = argument.find_first_not_of("0123456789", position);
                    const std::string digits = argument.substr(position, digits_end - position);
                    if (digits.size() > 1) {
                        fail("compression level " + digits + " is not in 0.." + std::to_string(max_level) +
                             " (try -h)");
                    }
                    options.write.level = static_cast<unsigned>(letter - '0');
                    continue;
                }
                switch (letter) {
                    case 'z': options.operation = Operation::compress; break;
                    case 'd': options.operation = Operation::decompress; break;
                    case 't': options.operation = Operation::test; break;
                    case 'l': options.operation = Operation::list; break;
                    case 'c': options.to_console = true; break;
                    case 'k': options.keep = true; break;
                    case 'f': options.force = true; break;
                    case 'q': options.quiet = true; break;
                    case 'v': options.verbose = true; break;
                    case 'h': parsed.text = usage_text(name); return parsed;
                    case 'V': parsed.text = version_text<Codec>(name); return parsed;
                    case 'o':
                        options.output_path = position + 1 < argument.size() ? argument.substr(position + 1)
                                                                              : take_value(index, "-o");
                        position = argument.size();
                        break;
                    case 'T':
                        set_threads(position + 1 < argument.size() ? argument.substr(position + 1)
                                                                   : take_value(index, "-T", "a number"));
                        position = argument.size();
                        break;
                    default:
                        fail("unknown option '-" + std::string(1, letter) + "' (try -h)");
                }
            }
        }
    }
    if (options.output_path && options.files.size() > 1) {
        fail("-o names one output, but " + std::to_string(options.files.size()) + " input files were given");
    }
    if (options.output_path && options.to_console) {
        fail("-o and -c both name the output; give one");
    }
    if (options.output_path && options.output_path->empty()) {
        fail("-o needs a file name");
    }
    return parsed;
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
                std::fputs(printable_text(error.spec_text()).c_str(), console_.messages);
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
            for (const TczListing& listing : list_tcz(input, Codec::fingerprint, Codec::stream_names.data())) {
                print_listing(console_.messages, shown, listing);
            }
            return;
        }
        if (options_.operation == Operation::test) {
            DiscardSink discard;
            TraceReader<Codec> reader(input, options_.read_ahead());
            const RunTotals totals = decompress_with(reader, discard, progress_of<TraceReader<Codec>>(shown, input_file.get()));
            if (options_.verbose) {
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
        if (options_.operation == Operation::compress) {
            TraceWriter<Codec> writer(output, options_.write);
            ProgressLine progress(console_.messages, progress_enabled(), shown, input_size(input_file.get()));
            compress_with(input, writer, [&](const TraceWriter<Codec>& current) {
                progress.update(current.totals().input_bytes, current.bytes_written());
            });
            progress.clear();
            finish_output(output_file.get(), input_file.get());
            if (!options_.quiet) {
                write_compression_report(writer, shown, target);
            }
        } else {
            TraceReader<Codec> reader(input, options_.read_ahead());
            const RunTotals totals = decompress_with(reader, output, progress_of<TraceReader<Codec>>(shown, input_file.get()));
            finish_output(output_file.get(), input_file.get());
            if (options_.verbose) {
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

    bool progress_enabled() const { return console_.messages_is_terminal && !options_.quiet; }

    static std::uint64_t input_size(const InputPath* input) {
        return input != nullptr && input->is_regular() ? static_cast<std::uint64_t>(input->status().st_size) : 0;
    }

    // The decompression progress callback: a ProgressLine owned by the lambda.
    template <class Reader>
    auto progress_of(const std::string& shown, const InputPath* input) {
        auto line = std::make_shared<ProgressLine>(console_.messages, progress_enabled(), shown, input_size(input));
        return [line](const Reader&, const RunTotals& totals) { line->update(totals.input_bytes, totals.output_bytes); };
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

    void write_compression_report(const TraceWriter<Codec>& writer, const std::string& shown,
                                  const std::string& target) {
        std::FILE* out = console_.messages;
        const RunTotals& totals = writer.totals();
        writer.codec().write_report(out);
        std::vector<StreamListing> streams;
        for (std::size_t stream = 0; stream < Codec::stream_count; ++stream) {
            const bool written = stream < writer.stream_bytes().size();
            streams.push_back({std::string(Codec::stream_names[stream]), written ? writer.stream_raw_bytes()[stream] : 0,
                               written ? writer.stream_bytes()[stream] : 0});
        }
        print_stream_table(out, streams, totals.output_bytes);
        const std::string which = options_.files.empty() ? "" : shown + " -> " + target + ": ";
        std::fprintf(out, "%s: %s%llu bytes in, %llu bytes out, ratio %.3f (%llu records in %llu blocks)\n",
                     name_.c_str(), which.c_str(), static_cast<unsigned long long>(totals.input_bytes),
                     static_cast<unsigned long long>(totals.output_bytes),
                     ratio_of(totals.input_bytes, totals.output_bytes),
                     static_cast<unsigned long long>(totals.records), static_cast<unsigned long long>(totals.blocks));
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
        std::fflush(out);
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
    // A closed pipe must give "write error: Broken pipe" and exit status 1,
    // not a silent death by SIGPIPE.
    std::signal(SIGPIPE, SIG_IGN);
    remove_temporaries_on_signals();
    InputFile input(STDIN_FILENO);
    OutputFile output(STDOUT_FILENO);
    Console console{input, output, stderr, ::isatty(STDOUT_FILENO) == 1, ::isatty(STDIN_FILENO) == 1,
                    ::isatty(STDERR_FILENO) == 1};
    return run_command<Codec>(argc, argv, console);
}

}  // namespace tcgen_runtime
