#pragma once
// What the debug information says of the traced instructions: the tracer's
// PREFIX.syms (docs/wet-streams.md), checked, one entry per pc, by pc. The
// saved WET keeps the same lines (section SYMS), so one parser reads both;
// `wpp --symbols` reads the file with it too.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <tcgen/wet/whole_execution_trace.hpp>

namespace tcgen::wet {

// The lines of the PREFIX.syms file `path` after its magic line ("WTS1");
// WetError naming it when it is not one.
std::string read_symbols_file(const std::string& path);
// The same of the file's bytes, read elsewhere; `path` names it.
std::string symbols_file_lines(const std::vector<std::uint8_t>& bytes, const std::string& path);

class SymbolTable {
public:
    SymbolTable() = default;

    // The lines of PREFIX.syms after its magic line (or of section SYMS):
    // "0xPC\tOBJECT\t0xOFFSET\tFUNCTION+N\tFILE\tLINE\n" each. A pc may come
    // more than once, with the same fields. Throws WetError naming `file`
    // and the line of the first problem.
    static SymbolTable parse(std::string_view lines, const std::string& file);
    // PREFIX.syms itself: its magic line checked, then its lines parsed.
    static SymbolTable read(const std::string& path);

    // The entries as lines, by pc, each pc once: what parse() reads back.
    std::string lines() const;

    bool empty() const { return entries_.empty(); }
    std::size_t size() const { return entries_.size(); }
    std::optional<Symbol> at(std::uint64_t pc) const;
    // The pcs of a function ("tally", its whole name) or a source line
    // ("histogram.c:24"), increasing.
    std::vector<std::uint64_t> pcs_named(std::string_view name) const;

private:
    struct Entry {
        std::uint64_t pc = 0;
        std::uint64_t offset = 0;           // in the object's file
        std::uint64_t function_offset = 0;  // from the function's start
        std::uint32_t object = 0;           // indexes into strings_; 0: unknown ("")
        std::uint32_t function = 0;
        std::uint32_t file = 0;
        std::uint32_t line = 0;             // 0: unknown
    };

    std::vector<std::string> strings_{""};
    std::vector<Entry> entries_;  // by pc, each pc once
};

}  // namespace tcgen::wet
