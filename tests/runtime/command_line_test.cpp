// The generated program's command line: its option table, the help made
// from it, the README's list of the options, and the parser driven by it.

#include "runtime/command_line.hpp"

#include <algorithm>
#include <cstdint>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "tests/runtime/test_codec.hpp"

namespace tcgen_runtime {
namespace {

using tcgen_test::DeltaCodec;
using Spellings = std::set<std::string>;

ParsedCommand parse(std::vector<std::string> arguments) {
    arguments.insert(arguments.begin(), "comp");
    std::vector<char*> argv;
    for (std::string& argument : arguments) {
        argv.push_back(argument.data());
    }
    return parse_command_line<DeltaCodec>(static_cast<int>(argv.size()), argv.data(), "comp");
}

std::string parse_error(const std::vector<std::string>& arguments) {
    try {
        parse(arguments);
    } catch (const Error& error) {
        return error.what();
    }
    return "no error";
}

// Every spelling the help shows, as its rows show them ("-o", "--output=FILE", "-0 .. -9").
Spellings spellings_of_the_table() {
    Spellings spellings;
    for (const CommandOption& option : command_options()) {
        for (const std::string& spelling : help_spellings(option)) {
            spellings.insert(spelling);
        }
    }
    return spellings;
}

// The long names the parser accepts but the help does not show.
Spellings aliases_of_the_table() {
    Spellings aliases;
    for (const CommandOption& option : command_options()) {
        if (!option.long_alias.empty()) {
            aliases.insert(std::string(option.long_alias));
        }
    }
    return aliases;
}

// The spellings at the start of a line of an option list, "- `-d`,
// `--decompress`: ...", or of the help, "  -d, --decompress   ...".
Spellings spellings_of_readme_line(const std::string& line) {
    Spellings spellings;
    std::size_t position = 2;  // after "- "
    while (position < line.size() && line[position] == '`') {
        const std::size_t end = line.find('`', position + 1);
        if (end == std::string::npos) {
            break;
        }
        spellings.insert(line.substr(position + 1, end - position - 1));
        position = end + 1;
        if (line.compare(position, 2, ", ") == 0) {
            position += 2;
        }
    }
    return spellings;
}

Spellings spellings_of_help_line(const std::string& line) {
    Spellings spellings;
    const std::string column = line.substr(2, line.find("  ", 2) - 2);
    std::size_t start = 0;
    while (start <= column.size()) {
        const std::size_t comma = std::min(column.find(", ", start), column.size());
        spellings.insert(column.substr(start, comma - start));
        start = comma + 2;
    }
    return spellings;
}

std::string listed(const Spellings& spellings) {
    std::string text;
    for (const std::string& spelling : spellings) {
        text += " '" + spelling + "'";
    }
    return text.empty() ? " none" : text;
}

// What `shown` has that `known` lacks.
Spellings missing_from(const Spellings& known, const Spellings& shown) {
    Spellings missing;
    for (const std::string& spelling : shown) {
        if (known.count(spelling) == 0) {
            missing.insert(spelling);
        }
    }
    return missing;
}

TEST(CommandLine, TheHelpShowsEveryRowOfTheTable) {
    const ParsedCommand help = parse({"--help"});
    ASSERT_TRUE(help.text.has_value());
    std::istringstream lines(*help.text);
    Spellings shown;
    std::size_t rows_shown = 0;
    for (std::string line; std::getline(lines, line);) {
        EXPECT_LE(line.size(), 86u) << line;  // the Exit status line is the longest
        if (line.rfind("  -", 0) == 0) {
            const Spellings spellings = spellings_of_help_line(line);
            shown.insert(spellings.begin(), spellings.end());
            rows_shown += 1;
        }
    }
    EXPECT_EQ(rows_shown, command_options().size());
    EXPECT_EQ(shown, spellings_of_the_table());
    EXPECT_NE(help.text->find("  -o, --output=FILE   write to FILE (one input at most) and keep the input\n"),
              std::string::npos)
        << *help.text;
    EXPECT_NE(help.text->find("  -0 .. -9            compression level (default 6): -0: bzip2 alone for every\n"
                              "                      stream, as the TCgen paper; -1 .. -5: code streams go to\n"),
              std::string::npos)
        << *help.text;
}

// Every spelling of every row, given with a value where it takes one,
// parses: the table the help is made from is the table the parser reads.
TEST(CommandLine, EverySpellingOfTheTableParses) {
    const std::map<std::string, std::string> sample_values = {
        {"FILE", "out"}, {"NAME", "lzma"}, {"N", "2"}, {"SIZE", "1MiB"}};
    for (const CommandOption& option : command_options()) {
        std::string value;
        if (option.value == OptionValue::argument) {
            ASSERT_EQ(sample_values.count(std::string(option.value_name)), 1u)
                << "no sample value for " << option.value_name << " of " << joined_spellings(option);
            value = sample_values.at(std::string(option.value_name));
        }
        const bool takes_value = !value.empty();
        for (const char letter : option.short_names) {
            const std::string spelling = "-" + std::string(1, letter);
            EXPECT_EQ(parse_error(takes_value ? std::vector<std::string>{spelling, value}
                                              : std::vector<std::string>{spelling}),
                      "no error")
                << spelling;
        }
        for (const std::string_view name : {option.long_name, option.long_alias}) {
            if (!name.empty()) {
                const std::string spelling = std::string(name) + (takes_value ? "=" + value : "");
                EXPECT_EQ(parse_error({spelling}), "no error") << spelling;
            }
        }
    }
}

// Each spelling, and each alias, does what its row says.
TEST(CommandLine, EverySpellingDoesWhatItsRowSays) {
    EXPECT_EQ(parse({"-d"}).options.operation, Operation::decompress);
    EXPECT_EQ(parse({"--decompress"}).options.operation, Operation::decompress);
    EXPECT_EQ(parse({"--uncompress"}).options.operation, Operation::decompress);
    EXPECT_EQ(parse({"-d", "-z"}).options.operation, Operation::compress);
    EXPECT_EQ(parse({"-d", "--compress"}).options.operation, Operation::compress);
    EXPECT_EQ(parse({"-t"}).options.operation, Operation::test);
    EXPECT_EQ(parse({"--test"}).options.operation, Operation::test);
    EXPECT_EQ(parse({"-l"}).options.operation, Operation::list);
    EXPECT_EQ(parse({"--list"}).options.operation, Operation::list);
    for (const char* spelling : {"-c", "--stdout", "--to-stdout"}) {
        EXPECT_TRUE(parse({spelling}).options.to_console) << spelling;
    }
    EXPECT_TRUE(parse({"-k"}).options.keep && parse({"--keep"}).options.keep);
    EXPECT_TRUE(parse({"-f"}).options.force && parse({"--force"}).options.force);
    EXPECT_TRUE(parse({"-q"}).options.quiet && parse({"--quiet"}).options.quiet);
    EXPECT_TRUE(parse({"-v"}).options.verbose && parse({"--verbose"}).options.verbose);
    EXPECT_TRUE(parse({"--report"}).options.report);
    for (const std::vector<std::string>& output :
         {std::vector<std::string>{"-oout"}, {"-o", "out"}, {"--output=out"}, {"--output", "out"}}) {
        EXPECT_EQ(parse(output).options.output_path, std::optional<std::string>("out")) << output[0];
    }
    for (unsigned level = 0; level <= max_level; ++level) {
        EXPECT_EQ(parse({"-" + std::to_string(level)}).options.write.level, level);
    }
    EXPECT_EQ(parse({"--fast"}).options.write.level, 0u);
    EXPECT_EQ(parse({"--best"}).options.write.level, max_level);
    EXPECT_EQ(parse({"--backend=zstd"}).options.write.backend.only(), std::optional<Backend>(Backend::zstd));
    EXPECT_EQ(parse({"--backend", "bzip2"}).options.write.backend.only(), std::optional<Backend>(Backend::bzip2));
    EXPECT_EQ(parse({"--restart-blocks=5"}).options.write.restart_blocks, 5u);
    EXPECT_EQ(parse({"--block-size=64K"}).options.write.block_bytes, 65536u);
    EXPECT_EQ(parse({"--block-size", "2MiB"}).options.write.block_bytes, 2097152u);
    EXPECT_EQ(parse({"-T3"}).options.threads, 3u);
    EXPECT_EQ(parse({"--threads=4"}).options.threads, 4u);
    EXPECT_EQ(parse({"--spec"}).text, std::optional<std::string>(DeltaCodec::spec_text));
    EXPECT_EQ(parse({"-V"}).text, std::optional<std::string>(version_text<DeltaCodec>("comp")));
    EXPECT_EQ(parse({"--version"}).text, parse({"-V"}).text);
    EXPECT_EQ(parse({"-h"}).text, std::optional<std::string>(usage_text("comp")));
    EXPECT_EQ(parse({"--help"}).text, parse({"-h"}).text);
}

// What each run prints besides errors, for every operation, option, kind of
// output and kind of standard error: as zstd, a line per file on a terminal
// unless the output is standard output; -v and --report print wherever
// standard error goes; -q silences all but errors.
TEST(CommandLine, PlansTheMessagesAsZstdDoes) {
    struct Case {
        std::vector<std::string> arguments;
        bool messages_is_terminal;
        bool output_is_console;
        bool warnings, progress, summary, report;
    };
    const std::vector<Case> cases = {
        // By default: warnings only, off a terminal or when writing standard output.
        {{}, false, false, true, false, false, false},
        {{}, false, true, true, false, false, false},
        {{}, true, true, true, false, false, false},
        {{"-d"}, true, true, true, false, false, false},
        // On a terminal, writing a file: the summary line and the progress line.
        {{}, true, false, true, true, true, false},
        {{"-d"}, true, false, true, true, true, false},
        {{"-t"}, true, false, true, true, true, false},
        // -v: the summary anywhere, the report after compressing, progress on a terminal.
        {{"-v"}, false, true, true, false, true, true},
        {{"-v"}, true, true, true, true, true, true},
        {{"-v", "-d"}, false, true, true, false, true, false},
        {{"-v", "-t"}, false, false, true, false, true, false},
        // --report: the report and its summary line after compressing, nothing more.
        {{"--report"}, false, true, true, false, true, true},
        {{"--report"}, true, true, true, false, true, true},
        {{"--report", "-d"}, false, false, true, false, false, false},
        // -q: nothing but errors, whatever else is asked.
        {{"-q"}, true, false, false, false, false, false},
        {{"-q", "-v", "--report"}, true, false, false, false, false, false},
        {{"-v", "-q"}, false, true, false, false, false, false},
    };
    for (const Case& expected : cases) {
        const CommandOptions options = parse(expected.arguments).options;
        const MessagePlan plan = plan_messages(options, expected.messages_is_terminal, expected.output_is_console);
        std::string arguments;
        for (const std::string& argument : expected.arguments) {
            arguments += argument + " ";
        }
        const std::string where = arguments + (expected.messages_is_terminal ? "stderr a terminal" : "stderr a file") +
                                  (expected.output_is_console ? ", writing stdout" : ", writing a file");
        EXPECT_EQ(plan.warnings, expected.warnings) << where;
        EXPECT_EQ(plan.progress, expected.progress) << where;
        EXPECT_EQ(plan.summary, expected.summary) << where;
        EXPECT_EQ(plan.report, expected.report) << where;
    }
}

TEST(CommandLine, ShortOptionsGroupAndDashDashEndsTheOptions) {
    const CommandOptions grouped = parse({"-dkcfqv", "a"}).options;
    EXPECT_EQ(grouped.operation, Operation::decompress);
    EXPECT_TRUE(grouped.keep && grouped.to_console && grouped.force && grouped.quiet && grouped.verbose);
    EXPECT_EQ(grouped.files, std::vector<std::string>{"a"});
    const CommandOptions output_in_group = parse({"-dofile"}).options;
    EXPECT_EQ(output_in_group.operation, Operation::decompress);
    EXPECT_EQ(output_in_group.output_path, std::optional<std::string>("file"));
    EXPECT_EQ(parse({"-dT1"}).options.threads, 1u);
    const CommandOptions level_then_keep = parse({"-9k"}).options;
    EXPECT_EQ(level_then_keep.write.level, 9u);
    EXPECT_TRUE(level_then_keep.keep);
    EXPECT_EQ(parse({"-k9"}).options.write.level, 9u);
    EXPECT_EQ(parse({"--", "-d", "--x"}).options.files, (std::vector<std::string>{"-d", "--x"}));
    EXPECT_EQ(parse({"--", "-d"}).options.operation, Operation::compress);
    EXPECT_EQ(parse({"-", "", "a"}).options.files, (std::vector<std::string>{"-", "", "a"}));
    // An option that prints a text ends the parsing: what follows is not looked at.
    EXPECT_EQ(parse({"-dVx"}).text, parse({"-V"}).text);
    EXPECT_EQ(parse({"--spec", "-x"}).text, parse({"--spec"}).text);
    EXPECT_EQ(parse({"-o", "x", "a", "b", "-h"}).text, parse({"-h"}).text);
}

TEST(CommandLine, ErrorsSayWhatIsWrongWithTheArguments) {
    EXPECT_EQ(parse_error({"-x"}), "unknown option '-x' (try -h)");
    EXPECT_EQ(parse_error({"-dx"}), "unknown option '-x' (try -h)");
    EXPECT_EQ(parse_error({"-1-2"}), "unknown option '--' (try -h)");
    EXPECT_EQ(parse_error({"--bogus"}), "unknown option '--bogus' (try -h)");
    EXPECT_EQ(parse_error({"---x"}), "unknown option '---x' (try -h)");
    EXPECT_EQ(parse_error({"-x", "--help"}), "unknown option '-x' (try -h)");
    EXPECT_EQ(parse_error({"--bogus=1"}), "option '--bogus' takes no value");
    for (const char* option : {"--keep", "--fast", "--help", "--spec", "--version", "--uncompress"}) {
        EXPECT_EQ(parse_error({std::string(option) + "=1"}), "option '" + std::string(option) + "' takes no value");
    }
    EXPECT_EQ(parse_error({"-o"}), "option '-o' needs a file name");
    EXPECT_EQ(parse_error({"-do"}), "option '-o' needs a file name");
    EXPECT_EQ(parse_error({"--output"}), "option '--output' needs a file name");
    EXPECT_EQ(parse_error({"--backend"}), "option '--backend' needs a back-end name (bzip2, lzma, zstd, cm or grammar)");
    EXPECT_EQ(parse_error({"--restart-blocks"}), "option '--restart-blocks' needs a number");
    EXPECT_EQ(parse_error({"--block-size"}), "option '--block-size' needs a size");
    EXPECT_EQ(parse_error({"-T"}), "option '-T' needs a number");
    EXPECT_EQ(parse_error({"--threads"}), "option '--threads' needs a number");
    EXPECT_EQ(parse_error({"-19"}), "compression level 19 is not in 0..9 (try -h)");
    EXPECT_EQ(parse_error({"--backend=gzip"}), "unknown back-end 'gzip' (bzip2, lzma, zstd, cm or grammar)");
    EXPECT_EQ(parse_error({"--restart-blocks=-1"}),
              "--restart-blocks needs a number of blocks (0 .. 4294967295), not '-1'");
    EXPECT_EQ(parse_error({"--restart-blocks=4294967296"}),
              "--restart-blocks needs a number of blocks (0 .. 4294967295), not '4294967296'");
    EXPECT_EQ(parse_error({"-Tx"}), "--threads needs a number of threads (0 .. 4294967295), not 'x'");
    EXPECT_EQ(parse_error({"--block-size=1X"}),
              "--block-size needs a size in bytes, with K, M or G (KiB, MiB, GiB) if wanted, not '1X'");
    EXPECT_EQ(parse_error({"--block-size=5"}),
              "--block-size needs a size from 6 bytes (one record) to 256MiB, not '5'");
    EXPECT_EQ(parse_error({"--block-size=1GiB"}),
              "--block-size needs a size from 6 bytes (one record) to 256MiB, not '1GiB'");
    EXPECT_EQ(parse_error({"-o", "x", "a", "b"}), "-o names one output, but 2 input files were given");
    EXPECT_EQ(parse_error({"-c", "-o", "x"}), "-o and -c both name the output; give one");
    EXPECT_EQ(parse_error({"--output="}), "-o needs a file name");
    EXPECT_EQ(parse_error({"-o", ""}), "-o needs a file name");
}

// The README's section on the generated program lists every option of the
// table, one line each, starting with the spellings the help shows in
// backticks; it may also name an alias the help leaves out.
TEST(CommandLine, TheReadmeListsTheOptionsOfTheTable) {
    const std::string heading = "### Options of the generated program";
    std::ifstream readme(std::string(TCGEN_SOURCE_DIR) + "/README.md");
    ASSERT_TRUE(readme.good()) << "cannot read README.md";
    bool in_section = false;
    bool found = false;
    Spellings listed_in_readme;
    for (std::string line; std::getline(readme, line);) {
        if (line.rfind("#", 0) == 0) {
            in_section = line == heading;
            found = found || in_section;
        } else if (in_section && line.rfind("- ", 0) == 0) {
            const Spellings spellings = spellings_of_readme_line(line);
            EXPECT_FALSE(spellings.empty()) << "a line of the list names no option in backticks: " << line;
            listed_in_readme.insert(spellings.begin(), spellings.end());
        }
    }
    ASSERT_TRUE(found) << "README.md has no section '" << heading << "'";
    const Spellings table = spellings_of_the_table();
    Spellings accepted = table;
    const Spellings aliases = aliases_of_the_table();
    accepted.insert(aliases.begin(), aliases.end());
    EXPECT_EQ(missing_from(listed_in_readme, table), Spellings())
        << "options of the table that README.md does not list:" << listed(missing_from(listed_in_readme, table));
    EXPECT_EQ(missing_from(accepted, listed_in_readme), Spellings())
        << "options README.md lists that the table does not know:" << listed(missing_from(accepted, listed_in_readme));
}

// The README's lines are read as the test above reads them.
TEST(CommandLine, ReadsTheSpellingsOfAListLine) {
    EXPECT_EQ(spellings_of_readme_line("- `-o`, `--output=FILE`: write to FILE"),
              (Spellings{"-o", "--output=FILE"}));
    EXPECT_EQ(spellings_of_readme_line("- `-0 .. -9`: compression level"), Spellings{"-0 .. -9"});
    EXPECT_EQ(spellings_of_readme_line("- `--spec`: print the spec"), Spellings{"--spec"});
    EXPECT_EQ(spellings_of_readme_line("- plain text, no option"), Spellings());
    EXPECT_EQ(spellings_of_help_line("  -T, --threads=N     decompress"), (Spellings{"-T", "--threads=N"}));
    EXPECT_EQ(spellings_of_help_line("  --fast              the same as -0"), Spellings{"--fast"});
}

}  // namespace
}  // namespace tcgen_runtime
