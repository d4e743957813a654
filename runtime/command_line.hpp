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

enum class Operation { compress, decompress, test, list };

struct CommandOptions {
    Operation operation = Operation::compress;
    bool to_console = false;  // -c
    bool keep = false;        // -k
    bool force = false;       // -f
    bool quiet = false;       // -q
    bool verbose = false;     // -v
    bool report = false;      // --report
    std::optional<std::string> output_path;  // -o
    WriteOptions write;  // -0 .. -9, --restart-blocks, --block-size, --backend
    // -T, as xz and zstd take it: 0 (the default) lets the program choose,
    // 1 keeps to one thread. Decompression decodes restart groups on N
    // threads (decompress_on_threads); compression uses N (write.threads).
    std::uint32_t threads = 0;
    std::vector<std::string> files;

    ReadAhead read_ahead() const { return threads == 1 ? ReadAhead::off : ReadAhead::on; }
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

template <class Codec>
std::string version_text(const std::string& name) {
    return name + " (tcgen runtime, .tcz format version " + std::to_string(tcz_format_version) + ", spec " +
           hex64(Codec::fingerprint) + ")\n";
}

// What the options' actions need of the program they parse for: its facts,
// gathered once so that the option table needs no Codec.
struct ProgramFacts {
    std::string name;
    std::string_view spec_text;
    std::string version;
    std::size_t record_bytes;
};

// An option's action works on the command parsed so far.
struct OptionTarget {
    ParsedCommand parsed;
    const ProgramFacts& program;
};

// How an option takes its value.
enum class OptionValue {
    none,        // -k, --keep
    argument,    // -o FILE, -oFILE, --output=FILE, --output FILE
    own_letters  // -0 .. -9: the run of its letters in the group, so -19 is one (bad) level, not -1 -9
};

// What --backend's error says it needs: "a back-end name (bzip2, lzma or
// zstd)", kept for the option table's string_view.
inline const std::string& backend_name_needed() {
    static const std::string text = "a back-end name (" + backend_names() + ")";
    return text;
}

// One row of the command line: what the parser accepts and the help shows.
struct CommandOption {
    std::string_view short_names;  // its letters: "d"; "0123456789" for the levels; "" for none
    std::string_view long_name;    // "--decompress"; "" for none
    std::string_view long_alias;   // gzip's spelling, accepted but not in the help ("--uncompress"); "" for none
    OptionValue value;
    std::string_view value_name;    // as the help shows it: "FILE" in --output=FILE
    std::string_view value_needed;  // as its error says it: "a file name" in "option '-o' needs a file name"
    std::string help;               // one paragraph; the help wraps it
    // Sets what the option means; `option` is its long name, which the
    // errors about its value name whichever spelling was given.
    void (*apply)(OptionTarget& target, const std::string& value, std::string_view option);
};

// A count in 0 .. 2^32 - 1, written in decimal, or a one-line error.
inline std::uint32_t parse_count(const std::string& text, std::string_view option, const std::string& unit) {
    std::size_t used = 0;
    unsigned long count = 0;
    try {
        count = std::stoul(text, &used);
    } catch (const std::exception&) {
        used = 0;
    }
    if (used == 0 || used != text.size() || text[0] == '-' || count > 0xFFFFFFFFul) {
        fail(std::string(option) + " needs a number of " + unit + " (0 .. 4294967295), not '" + text + "'");
    }
    return static_cast<std::uint32_t>(count);
}

// A size in bytes, written in decimal with an optional binary suffix (K or
// KiB, M or MiB, G or GiB), as xz takes --block-size: at least one record,
// at most the format's largest block.
inline std::uint64_t parse_block_size(const std::string& text, std::string_view option, std::size_t record_bytes) {
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
        fail(std::string(option) + " needs a size in bytes, with K, M or G (KiB, MiB, GiB) if wanted, not '" + text +
             "'");
    }
    const std::uint64_t count = std::stoull(number);  // at most 12 digits: no overflow
    if (count > tcz_max_block_bytes >> shift || count << shift < record_bytes) {
        fail(std::string(option) + " needs a size from " + size_text(record_bytes) + " bytes (one record) to " +
             std::to_string(tcz_max_block_bytes >> 20) + "MiB, not '" + text + "'");
    }
    return count << shift;
}

// The actions the rows share.
template <Operation operation>
void set_operation(OptionTarget& target, const std::string&, std::string_view) {
    target.parsed.options.operation = operation;
}

template <bool CommandOptions::*flag>
void set_flag(OptionTarget& target, const std::string&, std::string_view) {
    target.parsed.options.*flag = true;
}

template <unsigned level>
void set_level(OptionTarget& target, const std::string&, std::string_view) {
    target.parsed.options.write.level = level;
}

inline std::string usage_text(const std::string& name);

// Every option of the generated program, in the order the help lists them.
inline const std::vector<CommandOption>& command_options() {
    static const std::vector<CommandOption> options = {
        {"z", "--compress", "", OptionValue::none, "", "", "compress (the default)",
         set_operation<Operation::compress>},
        {"d", "--decompress", "--uncompress", OptionValue::none, "", "",
         "decompress; concatenated .tcz files give the concatenation of their traces",
         set_operation<Operation::decompress>},
        {"t", "--test", "", OptionValue::none, "", "", "decompress and verify, writing nothing",
         set_operation<Operation::test>},
        {"l", "--list", "", OptionValue::none, "", "",
         "print the spec, records and bytes of each stream of each .tcz FILE on standard output, without "
         "decompressing",
         set_operation<Operation::list>},
        {"c", "--stdout", "--to-stdout", OptionValue::none, "", "",
         "write to standard output and keep the input files", set_flag<&CommandOptions::to_console>},
        {"o", "--output", "", OptionValue::argument, "FILE", "a file name",
         "write to FILE (one input at most) and keep the input",
         [](OptionTarget& target, const std::string& value, std::string_view) {
             target.parsed.options.output_path = value;
         }},
        {"k", "--keep", "", OptionValue::none, "", "", "keep the input files", set_flag<&CommandOptions::keep>},
        {"f", "--force", "", OptionValue::none, "", "", "overwrite output files, write to a terminal",
         set_flag<&CommandOptions::force>},
        {"q", "--quiet", "", OptionValue::none, "", "",
         "print only errors: no warning, summary, report or progress, whatever else is asked",
         set_flag<&CommandOptions::quiet>},
        {"v", "--verbose", "", OptionValue::none, "", "",
         "print a line of what became of each file wherever standard error goes (by default only on a "
         "terminal, and not when writing standard output), and the report of --report",
         set_flag<&CommandOptions::verbose>},
        {"", "--report", "", OptionValue::none, "", "",
         "after compressing, print how often each predictor was right and the bytes of each stream",
         set_flag<&CommandOptions::report>},
        {"0123456789", "", "", OptionValue::own_letters, "", "",
         levels_help(),
         [](OptionTarget& target, const std::string& digits, std::string_view) {
             if (digits.size() > 1) {
                 fail("compression level " + digits + " is not in 0.." + std::to_string(max_level) + " (try -h)");
             }
             target.parsed.options.write.level = static_cast<unsigned>(digits[0] - '0');
         }},
        {"", "--fast", "", OptionValue::none, "", "", "the same as -0", set_level<0>},
        {"", "--best", "", OptionValue::none, "", "", "the same as -" + std::to_string(max_level),
         set_level<max_level>},
        {"", "--backend", "", OptionValue::argument, "NAME", backend_name_needed(),
         "compress every stream with " + backend_names(true) +
             "; by default the level chooses for each stream of each block (the levels above)",
         [](OptionTarget& target, const std::string& value, std::string_view) {
             const std::optional<Backend> chosen = backend_from_name(value);
             if (!chosen) {
                 fail("unknown back-end '" + value + "' (" + backend_names() + ")");
             }
             target.parsed.options.write.backend = *chosen;
         }},
        {"", "--restart-blocks", "", OptionValue::argument, "N", "a number",
         "restart the predictors every N blocks (default " + std::to_string(default_restart_blocks) +
             ", 0: never), where an in-process Reader can seek to without decoding the blocks before and "
             "which -T decodes in parallel; restarts cost ratio",
         [](OptionTarget& target, const std::string& value, std::string_view option) {
             target.parsed.options.write.restart_blocks = parse_count(value, option, "blocks");
         }},
        {"", "--block-size", "", OptionValue::argument, "SIZE", "a size",
         "put SIZE bytes of records in each block (K, M, G suffixes; default " +
             std::to_string(tcz_default_block_bytes >> 20) + "MiB, at most " +
             std::to_string(tcz_max_block_bytes >> 20) +
             "MiB): the back-ends find repeats within a block, so larger blocks compress better and take more "
             "memory",
         [](OptionTarget& target, const std::string& value, std::string_view option) {
             target.parsed.options.write.block_bytes = parse_block_size(value, option, target.program.record_bytes);
         }},
        {"T", "--threads", "", OptionValue::argument, "N", "a number",
         "use N threads (0, the default: one per core): compression runs the back-ends of a block's streams on N "
         "threads while it predicts the next block; decompression of a file with restart points (--restart-blocks) "
         "decodes up to N restart groups at once, each thread with predictor tables of its own (the spec's "
         "table size each), and of a file without them reads the next block on a second thread; 1: one thread",
         [](OptionTarget& target, const std::string& value, std::string_view option) {
             target.parsed.options.threads = parse_count(value, option, "threads");
             target.parsed.options.write.threads = target.parsed.options.threads;
         }},
        {"", "--spec", "", OptionValue::none, "", "", "print the trace specification this program was made from",
         [](OptionTarget& target, const std::string&, std::string_view) {
             target.parsed.text = std::string(target.program.spec_text);
         }},
        {"V", "--version", "", OptionValue::none, "", "", "print the version and the spec's fingerprint",
         [](OptionTarget& target, const std::string&, std::string_view) {
             target.parsed.text = target.program.version;
         }},
        {"h", "--help", "", OptionValue::none, "", "", "print this help",
         [](OptionTarget& target, const std::string&, std::string_view) {
             target.parsed.text = usage_text(target.program.name);
         }},
    };
    return options;
}

// How the help spells a row: "-o", "--output=FILE"; "-0 .. -9" for a row of
// several letters.
inline std::vector<std::string> help_spellings(const CommandOption& option) {
    std::vector<std::string> spellings;
    const std::string_view letters = option.short_names;
    if (letters.size() == 1) {
        spellings.push_back("-" + std::string(letters));
    } else if (!letters.empty()) {
        spellings.push_back("-" + std::string(1, letters.front()) + " .. -" + std::string(1, letters.back()));
    }
    if (!option.long_name.empty()) {
        const bool named_value = option.value == OptionValue::argument;
        spellings.push_back(std::string(option.long_name) + (named_value ? "=" + std::string(option.value_name) : ""));
    } else if (option.value == OptionValue::argument && !spellings.empty()) {
        spellings.back() += " " + std::string(option.value_name);  // "-x VALUE"; no row is spelled so yet
    }
    return spellings;
}

inline std::string joined_spellings(const CommandOption& option) {
    std::string joined;
    for (const std::string& spelling : help_spellings(option)) {
        joined += (joined.empty() ? "" : ", ") + spelling;
    }
    return joined;
}

// `text` in lines of at most `width` characters, broken between words.
inline std::vector<std::string> wrapped_lines(std::string_view text, std::size_t width) {
    std::vector<std::string> lines(1);
    std::size_t start = text.find_first_not_of(' ');
    while (start != std::string_view::npos) {
        const std::size_t end = std::min(text.find(' ', start), text.size());
        const std::string_view word = text.substr(start, end - start);
        if (!lines.back().empty() && lines.back().size() + 1 + word.size() > width) {
            lines.emplace_back();
        }
        lines.back() += (lines.back().empty() ? "" : " ") + std::string(word);
        start = text.find_first_not_of(' ', end);
    }
    return lines;
}

// The help's option list: each row's spellings in a column as wide as the
// widest, its help wrapped beside them.
inline std::string option_list_text() {
    constexpr std::size_t indent = 2;
    constexpr std::size_t gap = 2;
    constexpr std::size_t line_width = 79;
    std::size_t column = 0;
    for (const CommandOption& option : command_options()) {
        column = std::max(column, joined_spellings(option).size());
    }
    const std::string margin(indent + column + gap, ' ');
    std::string text;
    for (const CommandOption& option : command_options()) {
        const std::string spellings = joined_spellings(option);
        text += std::string(indent, ' ') + spellings + std::string(column + gap - spellings.size(), ' ');
        const std::vector<std::string> lines = wrapped_lines(option.help, line_width - margin.size());
        for (std::size_t line = 0; line < lines.size(); ++line) {
            text += (line == 0 ? "" : margin) + lines[line] + "\n";
        }
    }
    return text;
}

inline std::string usage_text(const std::string& name) {
    return "usage: " + name +
           " [OPTION]... [FILE]...\n"
           "Compresses each FILE to FILE.tcz, or decompresses FILE.tcz to FILE, removing FILE\n"
           "once the output is complete (keep it with -k). With no FILE, or when FILE is -,\n"
           "reads standard input and writes standard output. On a terminal it prints a line\n"
           "per file on standard error; --report shows how often each predictor was right.\n" +
           option_list_text() +
           "Exit status: 0 success, 1 an error (bad input or arguments, I/O), 2 an internal error.\n";
}

inline const CommandOption* find_long_option(std::string_view spelling) {
    for (const CommandOption& option : command_options()) {
        if (!spelling.empty() && (spelling == option.long_name || spelling == option.long_alias)) {
            return &option;
        }
    }
    return nullptr;
}

inline const CommandOption* find_short_option(char letter) {
    for (const CommandOption& option : command_options()) {
        if (option.short_names.find(letter) != std::string_view::npos) {
            return &option;
        }
    }
    return nullptr;
}

// The arguments as the parser walks them: an option's value may be the next one.
class ArgumentCursor {
public:
    ArgumentCursor(int argc, char** argv) : argc_(argc), argv_(argv) {}

    bool done() const { return index_ >= argc_; }
    std::string current() const { return argv_[index_]; }
    void advance() { index_ += 1; }

    // The argument after the current one, as the value of `spelling`.
    std::string take_value(const std::string& spelling, const CommandOption& option) {
        if (index_ + 1 >= argc_) {
            fail("option '" + spelling + "' needs " + std::string(option.value_needed));
        }
        index_ += 1;
        return argv_[index_];
    }

private:
    int argc_;
    char** argv_;
    int index_ = 1;
};

// --name, --name=VALUE or --name VALUE.
inline void parse_long_option(ArgumentCursor& arguments, OptionTarget& target) {
    const std::string argument = arguments.current();
    const std::size_t equals = argument.find('=');
    const std::string spelling = argument.substr(0, equals);
    const CommandOption* option = find_long_option(spelling);
    const bool takes_value = option != nullptr && option->value == OptionValue::argument;
    if (equals != std::string::npos && !takes_value) {
        fail("option '" + spelling + "' takes no value");
    }
    if (option == nullptr) {
        fail("unknown option '" + argument + "' (try -h)");
    }
    std::string value;
    if (equals != std::string::npos) {
        value = argument.substr(equals + 1);
    } else if (takes_value) {
        value = arguments.take_value(spelling, *option);
    }
    option->apply(target, value, option->long_name);
}

// A group of short options (-dkc); one that takes a value takes the rest of
// the group (-oFILE) or, at its end, the next argument (-o FILE).
inline void parse_short_options(ArgumentCursor& arguments, OptionTarget& target) {
    const std::string argument = arguments.current();
    for (std::size_t position = 1; position < argument.size() && !target.parsed.text; ++position) {
        const char letter = argument[position];
        const CommandOption* option = find_short_option(letter);
        if (option == nullptr) {
            fail("unknown option '-" + std::string(1, letter) + "' (try -h)");
        }
        std::string value;
        if (option->value == OptionValue::argument) {
            value = position + 1 < argument.size() ? argument.substr(position + 1)
                                                    : arguments.take_value("-" + std::string(1, letter), *option);
            position = argument.size();
        } else if (option->value == OptionValue::own_letters) {
            const std::size_t end = argument.find_first_not_of(option->short_names, position);
            value = argument.substr(position, end - position);
            position += value.size() - 1;
        }
        option->apply(target, value, option->long_name);
    }
}

// Parses the arguments, xz-style, by the rows of command_options(): short
// options may be grouped (-dkc), "--" ends the options, and an option that
// prints a text (--help) ends the parsing.
template <class Codec>
ParsedCommand parse_command_line(int argc, char** argv, const std::string& name) {
    const ProgramFacts program{name, Codec::spec_text, version_text<Codec>(name), Codec::record_bytes};
    OptionTarget target{ParsedCommand{}, program};
    CommandOptions& options = target.parsed.options;
    bool options_ended = false;
    for (ArgumentCursor arguments(argc, argv); !arguments.done() && !target.parsed.text; arguments.advance()) {
        const std::string argument = arguments.current();
        if (options_ended || argument == "-" || argument.empty() || argument[0] != '-') {
            options.files.push_back(argument);
        } else if (argument == "--") {
            options_ended = true;
        } else if (argument.rfind("--", 0) == 0) {
            parse_long_option(arguments, target);
        } else {
            parse_short_options(arguments, target);
        }
    }
    if (target.parsed.text) {
        return target.parsed;
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
    return target.parsed;
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
