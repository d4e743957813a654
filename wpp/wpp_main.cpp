// wpp: whole program paths (docs/wpp.md). Builds the SEQUITUR grammar of a
// block-id stream (a PREFIX.flow of tcgen-tracer --wet, a branch trace of
// its --branches as outcome ids, or bare u32 symbols) and answers from the grammar without expanding it: hot subpaths,
// and walks forward or backward. Output is pinned (decimal, one item a line,
// fields separated by one space) so that scripts compare it byte for byte.

#include <CLI/CLI.hpp>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <optional>
#include <memory>
#include <string>
#include <vector>

#include <tcgen/wet/symbols.hpp>
#include <tcgen/wpp/grammar.hpp>

#include "common/branch_outcomes.hpp"
#include "common/command_line.hpp"
#include "common/files.hpp"
#include "common/record_reader.hpp"
#include "common/text_output.hpp"
#include "wpp/symbol_names.hpp"

namespace {

using tcgen::wpp::Grammar;
using tcgen::cli::UsageError;
using tcgen::wpp::WppError;

constexpr char flow_magic[4] = {'W', 'T', 'F', '1'};

using Output = tcgen::TextOutput;

// `file_bytes`, when given, receives the file's size: what the grammar
// saves to, since a loaded grammar saves to the very bytes it was loaded
// from (saving again would cost a second coding of the payload).
Grammar load(const std::string& file, std::uint64_t* file_bytes = nullptr) {
    const std::vector<std::uint8_t> bytes = tcgen::read_whole_file(file);
    if (file_bytes != nullptr) {
        *file_bytes = bytes.size();
    }
    return Grammar::from_bytes(bytes.data(), bytes.size(), file);
}

// What a file starting with `magic` is, when it is one of the files tcgen and
// its tracer write (none of which is bare symbols); nullptr otherwise.
const char* known_file(const char* magic, std::size_t size) {
    static const struct {
        const char* magic;
        const char* what;
    } files[] = {
        {"WTF1", "a PREFIX.flow of tcgen-tracer --wet (WTF1 magic): give it without --raw"},
        {"BRA1", "a branch trace (BRA1 magic): give it without --raw"},
        {"BIT1", "a side table of tcgen-branch-ids split (BIT1 magic): give the ids it wrote"},
        {"STA1", "a store-address trace (STA1 magic)"},
        {"CMA1", "a cache-miss trace (CMA1 magic)"},
        {"LDV1", "a load-value trace (LDV1 magic)"},
        {"WTB1", "a PREFIX.blocks of tcgen-tracer --wet (WTB1 magic): give PREFIX.flow"},
        {"WTN2", "a PREFIX.nodes of tcgen-tracer --wet (WTN2 magic): give PREFIX.flow"},
        {"WTE2", "a PREFIX.events of tcgen-tracer --wet (WTE2 magic): give PREFIX.flow"},
        {"WTD2", "a PREFIX.edges of tcgen-tracer --wet (WTD2 magic): give PREFIX.flow"},
        {"TCGE", "a saved WET or grammar (TCGEN magic)"},
        {"\x89TCZ", "a .tcz (decompress it first)"},
    };
    if (size < 4) {
        return nullptr;
    }
    for (const auto& file : files) {
        if (std::memcmp(magic, file.magic, 4) == 0) {
            return file.what;
        }
    }
    return nullptr;
}

// Appends `symbols` to the builder; its error (a sequence too long for
// 32-bit indices) names INPUT.
void append(tcgen::wpp::GrammarBuilder& builder, const std::vector<std::uint32_t>& symbols, const std::string& input) {
    try {
        builder.append(symbols.data(), symbols.size());
    } catch (const WppError& error) {
        throw WppError(input, error.message());
    }
}

// The grammar of a branch trace's outcome ids (numbered as tcgen-branch-ids
// split numbers them), its outcomes kept in the file so that expanding
// gives the trace back.
int build_from_branches(const std::string& input, std::FILE* file, const std::string& output) {
    tcgen::BranchOutcomes outcomes;
    tcgen::wpp::GrammarBuilder builder;
    tcgen::RecordReader reader(file, input, tcgen::branch_record_bytes, "branch record");
    std::vector<std::uint32_t> ids;
    constexpr std::size_t piece = std::size_t{1} << 16;
    ids.reserve(piece);
    while (const std::uint8_t* record = reader.next()) {
        const std::optional<std::uint32_t> id = outcomes.id(record);
        if (!id) {
            throw WppError(input, "more than 2^32 distinct branch outcomes: ids are 32-bit");
        }
        ids.push_back(*id);
        if (ids.size() == piece) {
            append(builder, ids, input);
            ids.clear();
        }
    }
    append(builder, ids, input);
    Grammar grammar = builder.finish();
    grammar.set_origin(Grammar::Origin::branches);
    grammar.set_outcomes(outcomes.table());
    tcgen::write_whole_file(output, grammar.to_bytes());
    return 0;
}

// Reads INPUT piece by piece into the builder: memory is the grammar's, not
// the input's.
int run_build(const std::string& input, const std::string& output, bool raw) {
    const tcgen::FilePtr input_file = tcgen::open_input(input);
    std::FILE* file = input_file.get();
    char magic[4];
    const std::size_t magic_size = std::fread(magic, 1, sizeof magic, file);
    const auto has_magic = [&](const char (&expected)[4]) {
        return magic_size == sizeof magic && std::memcmp(magic, expected, sizeof magic) == 0;
    };
    if (!raw && has_magic(tcgen::branch_trace_magic)) {
        return build_from_branches(input, file, output);
    }
    if (!raw && !has_magic(flow_magic)) {
        throw WppError(input, "not a PREFIX.flow of tcgen-tracer --wet or a branch trace of its --branches (no WTF1 "
                              "or BRA1 magic; --raw reads bare u32 symbols)");
    }
    if (raw) {
        if (const char* known = known_file(magic, magic_size)) {
            throw WppError(input, std::string("--raw reads bare u32 symbols, but this is ") + known);
        }
    }
    tcgen::wpp::GrammarBuilder builder;
    std::vector<std::uint8_t> buffer(1 << 20);
    std::vector<std::uint32_t> symbols;
    std::size_t carried = 0;  // bytes of a symbol split between two reads
    if (raw) {  // the bytes read as a magic are symbols
        std::memcpy(buffer.data(), magic, magic_size);
        carried = magic_size;
    }
    for (;;) {
        const std::size_t got = std::fread(buffer.data() + carried, 1, buffer.size() - carried, file);
        if (got == 0 && carried < 4) {
            break;
        }
        const std::size_t have = carried + got;
        const std::size_t whole = have / 4;
        symbols.resize(whole);
        for (std::size_t i = 0; i < whole; ++i) {
            const std::uint8_t* at = buffer.data() + 4 * i;
            symbols[i] = std::uint32_t{at[0]} | std::uint32_t{at[1]} << 8 | std::uint32_t{at[2]} << 16 |
                         std::uint32_t{at[3]} << 24;
        }
        append(builder, symbols, input);
        carried = have - 4 * whole;
        std::memmove(buffer.data(), buffer.data() + 4 * whole, carried);
    }
    if (std::ferror(file)) {
        throw WppError(input, std::string("cannot read: ") + std::strerror(errno));
    }
    if (carried != 0) {
        throw WppError(input, "truncated: ends " + std::to_string(carried) + " bytes into a 4-byte symbol");
    }
    Grammar grammar = builder.finish();
    grammar.set_origin(raw ? Grammar::Origin::symbols : Grammar::Origin::flow);
    tcgen::write_whole_file(output, grammar.to_bytes());
    return 0;
}

int run_expand(const std::string& file, bool force) {
    tcgen::cli::refuse_binary_on_terminal(force);
    const Grammar grammar = load(file);
    Output out;
    if (grammar.origin() == Grammar::Origin::flow) {
        out.bytes(flow_magic, sizeof flow_magic);
    }
    if (grammar.origin() == Grammar::Origin::branches) {  // each id's record
        out.bytes(tcgen::branch_trace_magic, sizeof tcgen::branch_trace_magic);
        const std::uint8_t* records = grammar.outcomes().data();
        grammar.expand([&](const std::uint32_t* symbols, std::size_t count) {
            for (std::size_t i = 0; i < count; ++i) {
                out.bytes(records + std::size_t{symbols[i]} * Grammar::outcome_bytes, Grammar::outcome_bytes);
            }
        });
        return 0;
    }
    grammar.expand([&](const std::uint32_t* symbols, std::size_t count) {
        for (std::size_t i = 0; i < count; ++i) {
            const std::uint8_t le[4] = {static_cast<std::uint8_t>(symbols[i]), static_cast<std::uint8_t>(symbols[i] >> 8),
                                        static_cast<std::uint8_t>(symbols[i] >> 16),
                                        static_cast<std::uint8_t>(symbols[i] >> 24)};
            out.bytes(le, sizeof le);
        }
    });
    return 0;
}

int run_stats(const std::string& file) {
    std::uint64_t saved = 0;
    const Grammar grammar = load(file, &saved);
    std::uint32_t depth = 0;
    {
        // The longest chain of rules from the start rule: the cursor's stack.
        std::vector<std::uint32_t> level(grammar.rule_count(), 1);
        for (std::uint32_t rule = 0; rule < grammar.rule_count(); ++rule) {
            for (std::size_t i = 0; i < grammar.body_size(rule); ++i) {
                const tcgen::wpp::Symbol symbol = grammar.body(rule)[i];
                if (tcgen::wpp::is_rule(symbol)) {
                    level[rule] = std::max(level[rule], level[tcgen::wpp::rule_of(symbol)] + 1);
                }
            }
        }
        depth = level[grammar.start_rule()];
    }
    Output out;
    out.bytes("symbols ", 8).dec(grammar.length()).ch('\n');
    out.bytes("rules ", 6).dec(grammar.rule_count()).ch('\n');
    out.bytes("grammar symbols ", 16).dec(grammar.body_symbols()).ch('\n');
    out.bytes("start rule symbols ", 19).dec(grammar.body_size(grammar.start_rule())).ch('\n');
    out.bytes("depth ", 6).dec(depth).ch('\n');
    out.bytes("saved bytes ", 12).dec(saved).ch('\n');
    if (grammar.origin() == Grammar::Origin::branches) {
        out.bytes("branch outcomes ", 16).dec(grammar.outcome_count()).ch('\n');
    }
    return 0;
}

// `wpp hot` keeps the first and last L - 1 symbols of every rule: at most
// 1024 bytes a file byte for those (never less than 256 MiB), so that a
// small file of many rules cannot make the query take gigabytes (a 111 KB
// chain of a million rules once took 2 GB at L = 250). A grammar that wpp
// builds holds about 10 bytes a rule: L up to some 1300 stays inside. The
// table of distinct windows is what the query finds, capped by the
// library's 4 GiB (docs/wpp.md states both).
void check_rule_edges(const Grammar& grammar, std::uint64_t length, std::uint64_t file_bytes) {
    constexpr std::uint64_t floor = std::uint64_t{256} << 20;
    const std::uint64_t limit = std::max(floor, file_bytes > (UINT64_MAX >> 10) ? UINT64_MAX : file_bytes << 10);
    const std::uint64_t per_rule = 8 * (length - 1);
    const std::uint64_t rules = grammar.rule_count();
    if (length > 1 && rules > limit / per_rule) {
        throw WppError("hot", "L = " + std::to_string(length) + " keeps the first and last " +
                                  std::to_string(length - 1) + " symbols of each of " + std::to_string(rules) +
                                  " rules, more than the limit of " + std::to_string(limit >> 20) +
                                  " MiB for a file of " + std::to_string(file_bytes) +
                                  " bytes: choose a smaller length");
    }
}

// A symbol as wpp prints it: its id, or its name in --pcs=FILE (a grammar
// of a branch trace names its outcomes itself); and with
// --symbols=PREFIX.syms, what the debug information says of its pc.
class SymbolText {
public:
    SymbolText(const std::string& names_path, const std::string& symbols_path) {
        if (!names_path.empty()) {
            names_.emplace(names_path);
        }
        if (!symbols_path.empty()) {
            symbols_ = tcgen::wet::SymbolTable::read(symbols_path);
        }
    }
    // The names for `grammar`, read from `file`: its branch outcomes' unless
    // --pcs named others.
    void name_symbols_of(const Grammar& grammar, const std::string& file) {
        if (!names_ && grammar.origin() == Grammar::Origin::branches) {
            names_ = tcgen::wpp::SymbolNames::of_branch_outcomes(grammar.outcomes(), file);
        }
        if (symbols_ && !names_) {
            throw UsageError("--symbols requires --pcs, or a grammar of a branch trace");
        }
    }
    bool has_symbols() const { return symbols_.has_value(); }
    void print(Output& out, std::uint32_t symbol) const {
        if (names_) {
            out.text((*names_)(symbol));
        } else {
            out.dec(symbol);
        }
    }
    // The name, then "function+N (file:line)" where the symbols know the pc.
    void print_with_symbol(Output& out, std::uint32_t symbol) const {
        print(out, symbol);
        if (const std::optional<tcgen::wet::Symbol> found = symbols_->at(names_->pc(symbol))) {
            out.ch(' ').text(found->text());
        }
    }

private:
    std::optional<tcgen::wpp::SymbolNames> names_;
    std::optional<tcgen::wet::SymbolTable> symbols_;
};

int run_hot(const std::string& file, std::uint64_t length, std::uint64_t top, bool by_expanding,
            SymbolText symbols) {
    if (length == 0) {
        throw UsageError("L must be 1 or more");
    }
    std::uint64_t file_bytes = 0;
    const Grammar grammar = load(file, &file_bytes);
    symbols.name_symbols_of(grammar, file);
    std::vector<tcgen::wpp::Subpath> hot;
    try {
        if (by_expanding) {
            // The expansion is held whole: refused, as the table is, before
            // anything is allocated for a length past the limit.
            const std::uint64_t limit = tcgen::wpp::default_hot_memory_limit;
            if (grammar.length() > limit / 4) {
                throw WppError("hot", "--by-expanding holds the " + std::to_string(grammar.length()) +
                                          "-symbol sequence, more than the limit of " + std::to_string(limit >> 20) +
                                          " MiB: count on the grammar instead");
            }
            const std::vector<std::uint32_t> sequence = grammar.expand();
            hot = tcgen::wpp::hot_subpaths_of_sequence(sequence.data(), sequence.size(), length, top);
        } else {
            if (length <= grammar.length()) {
                check_rule_edges(grammar, length, file_bytes);
            }
            hot = tcgen::wpp::hot_subpaths(grammar, length, top);
        }
    } catch (const WppError& error) {
        throw WppError(file, error.message());  // the memory limit: name the grammar
    }
    Output out;
    for (const tcgen::wpp::Subpath& subpath : hot) {
        out.dec(subpath.count);
        for (const std::uint32_t symbol : subpath.symbols) {
            symbols.print(out.ch(' '), symbol);
        }
        out.ch('\n');
        if (symbols.has_symbols()) {  // then a line per symbol of the subpath
            for (const std::uint32_t symbol : subpath.symbols) {
                symbols.print_with_symbol(out.bytes("    ", 4), symbol);
                out.ch('\n');
            }
        }
    }
    return 0;
}

int run_walk(const std::string& file, bool backward, const std::uint64_t* from, const std::uint64_t* count,
             SymbolText symbols) {
    const Grammar grammar = load(file);
    symbols.name_symbols_of(grammar, file);
    const std::uint64_t start = from != nullptr ? *from : backward ? grammar.length() : 0;
    if (start > grammar.length()) {
        throw UsageError("--from=" + std::to_string(start) + " is past the end of the sequence (" +
                         std::to_string(grammar.length()) + " symbols)");
    }
    tcgen::wpp::Cursor cursor(grammar, start);
    std::uint64_t left = count != nullptr ? *count : grammar.length();
    Output out;
    std::uint32_t symbol = 0;
    while (left-- > 0 && (backward ? cursor.previous(symbol) : cursor.next(symbol))) {
        if (symbols.has_symbols()) {
            symbols.print_with_symbol(out, symbol);
        } else {
            symbols.print(out, symbol);
        }
        out.ch('\n');
    }
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    CLI::App app{"wpp: whole program paths: the SEQUITUR grammar of a block-id stream, queried without expanding it",
                 "wpp"};
    std::string input;
    std::string file;
    std::string output;
    bool raw = false;
    std::uint64_t length = 0;
    std::uint64_t top = 10;
    bool by_expanding = false;
    bool backward = false;
    std::uint64_t from = 0;
    std::uint64_t count = 0;

    CLI::App* build = app.add_subcommand(
        "build", "Build the grammar of INPUT (a PREFIX.flow, a branch trace, or --raw u32 symbols)");
    build->add_option("INPUT", input,
                      "PREFIX.flow of tcgen-tracer --wet=PREFIX, a branch trace of its --branches (its outcomes as "
                      "ids, kept in the grammar), or with --raw bare u32 LE symbols")
        ->required();
    build->add_option("OUT", output, "The grammar file to write (replaced if it exists)")->required();
    build->add_flag("--raw", raw, "INPUT is bare little-endian u32 symbols, no magic");
    CLI::App* expand = app.add_subcommand("expand", "Write the sequence to standard output, the input's very bytes");
    bool force = false;
    expand->add_flag("-f,--force", force, "Write to standard output even when it is a terminal");
    CLI::App* stats = app.add_subcommand("stats", "Symbols, rules, grammar size, depth and saved bytes");
    CLI::App* hot = app.add_subcommand("hot", "The most frequent subpaths of L symbols: 'COUNT SYMBOL...' a line");
    CLI::App* walk = app.add_subcommand("walk", "The symbols from a position on, one a line, forward or backward");
    for (CLI::App* command : {expand, stats, hot, walk}) {
        command->add_option("WPP", file, "A file written by wpp build")->required();
    }
    hot->add_option("L", length, "The subpaths' length in symbols")->required()->check(tcgen::cli::unsigned_number());
    hot->add_option("--top", top, "How many subpaths (0: all); most frequent first, ties by their symbols")
        ->check(tcgen::cli::unsigned_number());
    hot->add_flag("--by-expanding", by_expanding, "Count on the expanded sequence instead (for comparison)");
    std::string names;
    std::string symbol_file;
    for (CLI::App* command : {hot, walk}) {
        command
            ->add_option("--pcs", names,
                         "Print symbols as PCs: FILE is the run's PREFIX.blocks (a block's first pc) or the side table "
                         "of tcgen-branch-ids split (the branch's pc, + taken, - not); a branch trace's grammar prints "
                         "its own")
            ->type_name("FILE");
        command
            ->add_option("--symbols", symbol_file,
                         "With --pcs (or a branch trace's grammar), each PC's function+N (file:line) from the run's "
                         "PREFIX.syms (tcgen-tracer --wet)")
            ->type_name("FILE");
    }
    walk->add_flag("--backward", backward, "Walk toward the start: the symbol before the position first");
    CLI::Option* from_option =
        walk->add_option("--from", from, "The position between symbols to start at (default: 0, or the end with --backward)")
            ->check(tcgen::cli::unsigned_number());
    CLI::Option* count_option = walk->add_option("--count", count, "How many symbols at most (default: all)")
                                    ->check(tcgen::cli::unsigned_number());

    return tcgen::cli::run_subcommands(app, argc, argv, "wpp", [&] {
        return build->parsed()    ? run_build(input, output, raw)
               : expand->parsed() ? run_expand(file, force)
               : stats->parsed()  ? run_stats(file)
               : hot->parsed()    ? run_hot(file, length, top, by_expanding, SymbolText(names, symbol_file))
                                  : run_walk(file, backward, from_option->count() ? &from : nullptr,
                                             count_option->count() ? &count : nullptr, SymbolText(names, symbol_file));
    });
}
