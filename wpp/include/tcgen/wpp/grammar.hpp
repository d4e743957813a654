#pragma once
// libtcgen_wpp: whole program paths (Larus, PLDI 1999) over 32-bit symbols,
// such as the block ids of `tcgen-tracer --wet=PREFIX` (PREFIX.flow).
//
// A sequence of symbols becomes a SEQUITUR grammar: rules whose bodies are
// terminals (the input's symbols) and references to other rules, with
//   - digram uniqueness: no pair of adjacent symbols occurs twice in the
//     grammar (two overlapping occurrences, as in "aaa", count as one);
//   - rule utility: every rule but the start rule is used at least twice.
// The grammar is a DAG that is analysed without expanding it: the most
// frequent length-L subpaths (hot subpaths), and a cursor that walks the
// expanded sequence forward or backward (Wang and Roychoudhury's traversal of
// a compressed trace) from a stack of (rule, position) frames.
//
//   tcgen::wpp::GrammarBuilder builder;
//   for (std::uint32_t block : flow) builder.append(block);
//   tcgen::wpp::Grammar grammar = builder.finish();
//   std::vector<std::uint8_t> saved = grammar.to_bytes();          // the .wpp file
//   auto loaded = tcgen::wpp::Grammar::from_bytes(saved.data(), saved.size(), "run.wpp");
//   for (const auto& hot : tcgen::wpp::hot_subpaths(loaded, 8, 10)) ...  // hot.count, hot.symbols
//   tcgen::wpp::Cursor cursor(loaded, loaded.length());            // after the last symbol
//   std::uint32_t block;
//   while (cursor.previous(block)) ...                              // the sequence, last symbol first
//
// Determinism: the builder keys its digram table on the symbols' values
// (terminals, and rules by number), never on addresses, and the finished
// grammar numbers its rules canonically (in post-order from the start rule),
// so the same input gives the same grammar and the same saved bytes on every
// run and every machine.
//
// Costs. Building is linear in the input (amortised). The builder holds the
// grammar being built, not the input: 16 bytes per grammar symbol, 8 per rule
// and at most 16 per digram in its hash table (half full at most), with
// vectors' growth slack; so at most about 48 bytes per input symbol when the
// input has no repetition at all, and in proportion to the grammar (far less)
// on a trace (`wpp build` of 4 M distinct symbols peaked at 44 bytes a
// symbol, the finished grammar and its saved bytes included; of a 2.3 M-block
// bzip2 flow, at 12 MB). A Grammar holds 8 bytes per body symbol and 16 per
// rule.
// Hot subpaths of length L cost O(L) per window that crosses a rule's
// boundary, O(grammar size x L x L) in all, and memory for 2(L-1) symbols
// per rule plus the distinct windows. A cursor holds one frame per level of
// the grammar; each step costs O(1) amortised over a walk, and placing it at
// a position costs O(depth x body length).
//
// Errors: every failure a caller can cause (a forged or truncated file, an
// input too long for 32-bit indices, a hot-subpath table over its memory
// limit) throws WppError, whose what() is one line, "FILE: error: WHAT".

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <tcgen/file_error.hpp>

namespace tcgen::wpp {

// Every error of the library: what() is one line, "FILE: error: WHAT".
using WppError = tcgen::FileError;

// A symbol of a rule's body: a terminal (below 2^32) or a reference to rule
// r (rule_base + r).
using Symbol = std::uint64_t;
constexpr Symbol rule_base = std::uint64_t{1} << 32;
constexpr bool is_rule(Symbol symbol) { return symbol >= rule_base; }
constexpr std::uint32_t rule_of(Symbol symbol) { return static_cast<std::uint32_t>(symbol - rule_base); }
constexpr std::uint32_t terminal_of(Symbol symbol) { return static_cast<std::uint32_t>(symbol); }

// A finished grammar, immutable. Rules are numbered 0 .. rule_count()-1 so
// that a rule's body refers only to rules numbered below it; the start rule,
// whose expansion is the whole sequence, is the last. Every other rule has at
// least two symbols.
class Grammar {
public:
    Grammar();

    // The expanded sequence's length in symbols.
    std::uint64_t length() const { return lengths_.empty() ? 0 : lengths_.back(); }
    std::uint32_t rule_count() const { return static_cast<std::uint32_t>(lengths_.size()); }
    std::uint32_t start_rule() const { return rule_count() - 1; }
    // The grammar's size: the symbols of all rule bodies.
    std::uint64_t body_symbols() const { return symbols_.size(); }

    // Rule `rule`'s body: body_size(rule) symbols from body(rule).
    const Symbol* body(std::uint32_t rule) const { return symbols_.data() + offsets_[rule]; }
    std::size_t body_size(std::uint32_t rule) const { return offsets_[rule + 1] - offsets_[rule]; }
    // How many terminals rule `rule` expands to.
    std::uint64_t expanded_length(std::uint32_t rule) const { return lengths_[rule]; }

    // The expanded sequence, in order, handed to `sink` in pieces of at most
    // 65536 symbols; iterative, so any depth of grammar is fine.
    void expand(const std::function<void(const std::uint32_t* symbols, std::size_t count)>& sink) const;
    std::vector<std::uint32_t> expand() const;

    // What the sequence was read from, kept in the saved form so that
    // `wpp expand` gives back the input's very bytes: bare symbols, a
    // PREFIX.flow of tcgen-tracer --wet (magic WTF1, then the symbols), or a
    // branch trace of tcgen-tracer --branches (magic BRA1, then 17-byte
    // records), whose symbols are its outcome ids and whose outcomes() give
    // each id's record.
    enum class Origin : std::uint32_t { symbols = 0, flow = 1, branches = 2 };
    Origin origin() const { return origin_; }
    void set_origin(Origin origin) { origin_ = origin; }

    // A branch trace's outcomes (Origin::branches): the 17-byte records of
    // ids 0, 1, ... side by side (tcgen::BranchOutcomes' table). Every
    // terminal of the grammar is an id of the table.
    static constexpr std::size_t outcome_bytes = 17;
    const std::vector<std::uint8_t>& outcomes() const { return outcomes_; }
    std::uint64_t outcome_count() const { return outcomes_.size() / outcome_bytes; }
    void set_outcomes(std::vector<std::uint8_t> records) { outcomes_ = std::move(records); }

    // The saved form (docs/wpp.md, "The .wpp file").
    std::vector<std::uint8_t> to_bytes() const;
    // Loads a saved grammar; `name` names the file in messages. Every size is
    // checked against the bytes present before anything is allocated for it,
    // the checksum before the rules are read, and every rule's expansion
    // length (computed in order, each rule referring only to rules before
    // it, so a cycle cannot be written) before anything expands. Throws
    // WppError.
    static Grammar from_bytes(const std::uint8_t* data, std::size_t size, const std::string& name);

    // From rule bodies in the numbering above (the builder's and the
    // loader's way in). Throws WppError naming `name` when a body refers to
    // itself or a later rule, a rule other than the start has fewer than
    // two symbols, or a length overflows 64 bits.
    static Grammar from_rules(std::vector<std::uint64_t> offsets, std::vector<Symbol> symbols,
                              const std::string& name);

private:
    std::vector<std::uint64_t> offsets_;  // rule r's body is symbols_[offsets_[r], offsets_[r + 1])
    std::vector<Symbol> symbols_;
    std::vector<std::uint64_t> lengths_;
    Origin origin_ = Origin::symbols;
    std::vector<std::uint8_t> outcomes_;
};

// SEQUITUR, one symbol at a time: the grammar of everything appended so far
// is kept digram-unique and rule-useful after every append().
class GrammarBuilder {
public:
    GrammarBuilder();
    ~GrammarBuilder();
    GrammarBuilder(GrammarBuilder&&) noexcept;
    GrammarBuilder& operator=(GrammarBuilder&&) noexcept;

    // Throws WppError("input", ...) past 2^32 - 2 grammar symbols.
    void append(std::uint32_t symbol);
    void append(const std::uint32_t* symbols, std::size_t count);
    // The grammar of the symbols appended so far, canonically numbered. The
    // builder can go on appending afterwards.
    Grammar finish() const;

private:
    struct State;
    std::unique_ptr<State> state_;
};

// The grammar of `count` symbols.
Grammar build_grammar(const std::uint32_t* symbols, std::size_t count);

// A subpath of the expanded sequence and how many times it occurs there
// (overlapping occurrences each count).
struct Subpath {
    std::uint64_t count = 0;
    std::vector<std::uint32_t> symbols;
};

// The `top` most frequent subpaths of exactly `length` symbols (length >= 1),
// most frequent first, ties in increasing order of their symbols (top 0:
// all). Counted on the grammar: each rule's windows that cross the
// boundaries of its body's symbols, weighted by how many times the rule
// occurs in the expansion. Every distinct window is held (4 x length bytes
// and about 24 more), as are the first and last length-1 symbols of every
// rule: when the most that can take exceeds `memory_limit` bytes, throws
// WppError("hot", ...) before allocating (a long L on a big grammar).
constexpr std::uint64_t default_hot_memory_limit = std::uint64_t{4} << 30;
std::vector<Subpath> hot_subpaths(const Grammar& grammar, std::size_t length, std::size_t top,
                                  std::uint64_t memory_limit = default_hot_memory_limit);

// The same table counted on an expanded sequence (for comparison and
// measurement: same order, same ties, the same limit).
std::vector<Subpath> hot_subpaths_of_sequence(const std::uint32_t* symbols, std::size_t count, std::size_t length,
                                              std::size_t top,
                                              std::uint64_t memory_limit = default_hot_memory_limit);

// A position between two symbols of the expanded sequence (0 before the
// first, length() after the last), moved forward or backward one symbol at
// a time without expanding anything. The grammar must outlive the cursor.
class Cursor {
public:
    Cursor(const Grammar& grammar, std::uint64_t position = 0);

    std::uint64_t position() const { return position_; }
    // Places the cursor at `position` (clamped to length()).
    void seek(std::uint64_t position);
    // The symbol after the cursor, which moves past it; false at the end.
    bool next(std::uint32_t& symbol);
    // The symbol before the cursor, which moves back over it; false at 0.
    bool previous(std::uint32_t& symbol);

private:
    struct Frame {
        std::uint32_t rule;
        std::uint64_t index;  // into the rule's body
    };
    void descend(std::uint64_t position);
    void descend_leftmost();
    void descend_rightmost();

    const Grammar* grammar_;
    std::uint64_t position_ = 0;
    // Frames from the start rule down to the terminal at position_; empty
    // when position_ == length().
    std::vector<Frame> frames_;
};

}  // namespace tcgen::wpp
