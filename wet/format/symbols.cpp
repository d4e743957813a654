#include <tcgen/wet/symbols.hpp>

#include <algorithm>
#include <charconv>
#include <cstring>
#include <tuple>
#include <unordered_map>

#include "common/files.hpp"

namespace tcgen::wet {
namespace {

std::string hex(std::uint64_t value) {
    char text[24] = {'0', 'x'};
    return {text, static_cast<std::size_t>(std::to_chars(text + 2, text + sizeof text, value, 16).ptr - text)};
}

bool parse_number(std::string_view text, int base, std::uint64_t& value) {
    const char* end = text.data() + text.size();
    const auto [stop, error] = std::from_chars(text.data(), end, value, base);
    return !text.empty() && error == std::errc() && stop == end;
}

// "name+N" as the tracer writes it: N, when there, is the pc's distance
// from the function's start ("operator+" has no digits after its '+').
void split_offset(std::string_view function, std::string_view& name, std::uint64_t& offset) {
    name = function;
    offset = 0;
    const std::size_t plus = function.rfind('+');
    if (plus != std::string_view::npos && plus + 1 < function.size() &&
        parse_number(function.substr(plus + 1), 10, offset)) {
        name = function.substr(0, plus);
    }
}

}  // namespace

std::string read_symbols_file(const std::string& path) {
    return symbols_file_lines(read_whole_file(path), path);
}

std::string symbols_file_lines(const std::vector<std::uint8_t>& bytes, const std::string& path) {
    static constexpr char magic[] = "WTS1\n";
    if (bytes.size() < 5 || std::memcmp(bytes.data(), magic, 5) != 0) {
        throw WetError(path, "not a PREFIX.syms of tcgen-tracer --wet (no WTS1 line)");
    }
    return std::string(bytes.begin() + 5, bytes.end());
}

SymbolTable SymbolTable::read(const std::string& path) {
    return parse(read_symbols_file(path), path);
}

std::string Symbol::text() const {
    std::string text = function.empty() ? hex(pc) : function;
    if (!function.empty() && function_offset != 0) {
        text += "+" + std::to_string(function_offset);
    }
    if (!file.empty()) {
        text += " (" + file + (line != 0 ? ":" + std::to_string(line) : "") + ")";
    }
    return text;
}

SymbolTable SymbolTable::parse(std::string_view lines, const std::string& file) {
    SymbolTable table;
    std::unordered_map<std::string_view, std::uint32_t> interned;
    const auto intern = [&](std::string_view text) -> std::uint32_t {
        if (text == "-") {
            return 0;
        }
        const auto [at, added] = interned.emplace(text, static_cast<std::uint32_t>(table.strings_.size()));
        if (added) {
            table.strings_.emplace_back(text);
        }
        return at->second;
    };
    std::size_t number = 0;
    for (std::size_t start = 0; start < lines.size();) {
        ++number;
        const std::size_t end = lines.find('\n', start);
        const auto fail = [&](const std::string& what) {
            throw WetError(file, "line " + std::to_string(number) + " of the symbols: " + what);
        };
        if (end == std::string_view::npos) {
            fail("no newline at its end (the file is cut short)");
        }
        const std::string_view line = lines.substr(start, end - start);
        start = end + 1;
        std::string_view fields[6];
        std::size_t count = 0;
        for (std::size_t from = 0; count < 6;) {
            const std::size_t tab = line.find('\t', from);
            fields[count++] = line.substr(from, tab == std::string_view::npos ? std::string_view::npos : tab - from);
            if (tab == std::string_view::npos) {
                break;
            }
            from = tab + 1;
        }
        Entry entry;
        std::uint64_t line_number = 0;
        if (count != 6 || fields[0].substr(0, 2) != "0x" || fields[2].substr(0, 2) != "0x" ||
            !parse_number(fields[0].substr(2), 16, entry.pc) || !parse_number(fields[2].substr(2), 16, entry.offset) ||
            fields[1].empty() || fields[3].empty() || fields[4].empty() ||
            (fields[5] != "-" && (!parse_number(fields[5], 10, line_number) || line_number > UINT32_MAX))) {
            fail("not '0xPC, OBJECT, 0xOFFSET, FUNCTION+N, FILE, LINE' separated by tabs");
        }
        std::string_view function;
        split_offset(fields[3], function, entry.function_offset);
        entry.object = intern(fields[1]);
        entry.function = intern(function);
        entry.file = intern(fields[4]);
        entry.line = static_cast<std::uint32_t>(line_number);
        table.entries_.push_back(entry);
    }
    const auto fields_of = [](const Entry& e) {
        return std::tie(e.pc, e.offset, e.function_offset, e.object, e.function, e.file, e.line);
    };
    std::stable_sort(table.entries_.begin(), table.entries_.end(),
                     [](const Entry& a, const Entry& b) { return a.pc < b.pc; });
    const auto same_pc = std::adjacent_find(table.entries_.begin(), table.entries_.end(),
                                            [&](const Entry& a, const Entry& b) {
                                                return a.pc == b.pc && fields_of(a) != fields_of(b);
                                            });
    if (same_pc != table.entries_.end()) {
        throw WetError(file, "the symbols describe pc " + hex(same_pc->pc) + " twice, differently");
    }
    table.entries_.erase(std::unique(table.entries_.begin(), table.entries_.end(),
                                     [](const Entry& a, const Entry& b) { return a.pc == b.pc; }),
                         table.entries_.end());
    return table;
}

std::string SymbolTable::lines() const {
    std::string text;
    const auto field = [&](std::uint32_t index) { return index == 0 ? std::string("-") : strings_[index]; };
    for (const Entry& entry : entries_) {
        text += hex(entry.pc) + "\t" + field(entry.object) + "\t" + hex(entry.offset) + "\t" + field(entry.function);
        if (entry.function != 0 && entry.function_offset != 0) {
            text += "+" + std::to_string(entry.function_offset);
        }
        text += "\t" + field(entry.file) + "\t" + (entry.line == 0 ? std::string("-") : std::to_string(entry.line)) +
                "\n";
    }
    return text;
}

std::optional<Symbol> SymbolTable::at(std::uint64_t pc) const {
    const auto found = std::lower_bound(entries_.begin(), entries_.end(), pc,
                                        [](const Entry& entry, std::uint64_t key) { return entry.pc < key; });
    if (found == entries_.end() || found->pc != pc) {
        return std::nullopt;
    }
    Symbol symbol;
    symbol.pc = pc;
    symbol.object = strings_[found->object];
    symbol.offset = found->offset;
    symbol.function = strings_[found->function];
    symbol.function_offset = found->function_offset;
    symbol.file = strings_[found->file];
    symbol.line = found->line;
    return symbol;
}

std::vector<std::uint64_t> SymbolTable::pcs_named(std::string_view name) const {
    std::vector<std::uint64_t> pcs;
    const std::size_t colon = name.rfind(':');
    std::uint64_t line = 0;
    const bool is_line = colon != std::string_view::npos && parse_number(name.substr(colon + 1), 10, line);
    for (const Entry& entry : entries_) {
        const bool match = is_line ? entry.line == line && strings_[entry.file] == name.substr(0, colon)
                                   : entry.function != 0 && strings_[entry.function] == name;
        if (match) {
            pcs.push_back(entry.pc);
        }
    }
    return pcs;
}

}  // namespace tcgen::wet
