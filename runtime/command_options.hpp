#pragma once
// The options of every generated program, as xz and zstd spell theirs: the
// table of them (command_options(), one row each: its spellings, how it
// takes a value, what it does and the help's line), the help and usage text
// made from the table, and the parser that walks the arguments by it
// (parse_command_line). What the program then does with the options is
// command_line.hpp's.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "backends.hpp"
#include "checksum.hpp"
#include "container_layout.hpp"
#include "error.hpp"
#include "levels.hpp"
#include "trace_reader.hpp"
#include "trace_writer.hpp"

namespace tcgen_runtime {

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

// What parse_command_line found: options to run with, or text to print.
struct ParsedCommand {
    CommandOptions options;
    std::optional<std::string> text;  // --help, --version, --spec
};

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
        {"c", "--stdout", "--to-stdout", OptionValue::none, "", "", "write to standard output and keep the input files",
         set_flag<&CommandOptions::to_console>},
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
        {"0123456789", "", "", OptionValue::own_letters, "", "", levels_help(),
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
             std::to_string(tcz_default_block_bytes >> 20) + "MiB, " + std::to_string(tcz_ids_block_bytes >> 20) +
             "MiB where the spec codes records as ids; at most " + std::to_string(tcz_max_block_bytes >> 20) +
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

}  // namespace tcgen_runtime
