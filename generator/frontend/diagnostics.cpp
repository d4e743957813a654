#include "generator/frontend/diagnostics.hpp"

#include <algorithm>
#include <ostream>
#include <string_view>
#include <utility>

namespace tcgen {
namespace {

// The source line shown under a headline is cut to this many columns, and the
// span starts this many columns into the window when the line is cut, so the
// reader sees what leads up to it.
constexpr std::size_t max_excerpt_columns = 120;
constexpr std::size_t columns_before_span = 40;

// A longer unbroken run of characters in a message (a huge token the parser
// quotes) is cut to this many.
constexpr std::size_t max_message_run = 60;

const char* const cut_mark = "...";

// How one character of the user's text is shown.
struct Glyph {
    std::size_t size = 1;   // bytes in the user's text
    std::size_t width = 1;  // columns on screen
    bool escaped = false;   // written as \xHH
};

// The length of the valid UTF-8 sequence of two to four bytes that starts at
// `at`, or 0 when there is none. Overlong forms, surrogates and code points
// above U+10FFFF are not valid (RFC 3629), so they are escaped byte by byte.
std::size_t utf8_sequence_length(std::string_view text, std::size_t at) {
    auto byte = [&](std::size_t i) -> unsigned char {
        return at + i < text.size() ? static_cast<unsigned char>(text[at + i]) : 0;
    };
    unsigned char lead = byte(0);
    std::size_t length = 0;
    unsigned char second_low = 0x80;
    unsigned char second_high = 0xbf;
    if (lead >= 0xc2 && lead <= 0xdf) {
        length = 2;
    } else if (lead >= 0xe0 && lead <= 0xef) {
        length = 3;
        second_low = lead == 0xe0 ? 0xa0 : 0x80;
        second_high = lead == 0xed ? 0x9f : 0xbf;
    } else if (lead >= 0xf0 && lead <= 0xf4) {
        length = 4;
        second_low = lead == 0xf0 ? 0x90 : 0x80;
        second_high = lead == 0xf4 ? 0x8f : 0xbf;
    } else {
        return 0;
    }
    if (byte(1) < second_low || byte(1) > second_high) {
        return 0;
    }
    for (std::size_t i = 2; i < length; ++i) {
        if (byte(i) < 0x80 || byte(i) > 0xbf) {
            return 0;
        }
    }
    return length;
}

// U+0080 to U+009F are valid UTF-8 but control characters: some terminals
// act on them (U+009B starts an escape sequence), so they are escaped too.
bool is_c1_control(std::string_view text, std::size_t at) {
    return static_cast<unsigned char>(text[at]) == 0xc2 && static_cast<unsigned char>(text[at + 1]) < 0xa0;
}

Glyph glyph_at(std::string_view text, std::size_t at, bool keep_tab) {
    unsigned char c = static_cast<unsigned char>(text[at]);
    if ((c >= 0x20 && c < 0x7f) || (c == '\t' && keep_tab)) {
        return Glyph{};
    }
    if (c >= 0x80) {
        std::size_t length = utf8_sequence_length(text, at);
        if (length > 0 && !is_c1_control(text, at)) {
            return Glyph{length, 1, false};
        }
    }
    return Glyph{1, 4, true};
}

void append_glyph(std::string& out, std::string_view text, std::size_t at, const Glyph& glyph) {
    if (!glyph.escaped) {
        out.append(text.substr(at, glyph.size));
        return;
    }
    static const char digits[] = "0123456789abcdef";
    unsigned char c = static_cast<unsigned char>(text[at]);
    out += "\\x";
    out += digits[c >> 4];
    out += digits[c & 0xf];
}

// Text from the user's file that goes into the headline, escaped so that it
// stays on one line (tabs too). Every unbroken run of more than `max_run`
// characters is cut to its start and "..."; spaces and quotes end a run, so a
// huge quoted token keeps its closing quote and the words after it.
std::string printable_inline(std::string_view text, std::size_t max_run) {
    std::string out;
    std::size_t run = 0;
    for (std::size_t at = 0; at < text.size();) {
        Glyph glyph = glyph_at(text, at, false);
        run = text[at] == ' ' || text[at] == '\'' ? 0 : run + 1;
        if (run <= max_run) {
            append_glyph(out, text, at, glyph);
        } else if (run == max_run + 1) {
            out += cut_mark;
        }
        at += glyph.size;
    }
    return out;
}

// The screen column, from 0, where the byte at `offset` of the line is shown.
// Offsets past the end count one column per byte, as the caret of an error at
// the end of the file sits just past the line.
std::size_t display_column(std::string_view line, std::size_t offset) {
    std::size_t column = 0;
    for (std::size_t at = 0; at < line.size();) {
        Glyph glyph = glyph_at(line, at, true);
        if (at + glyph.size > offset) {
            break;
        }
        column += glyph.width;
        at += glyph.size;
    }
    return offset > line.size() ? column + (offset - line.size()) : column;
}

// The screen columns [begin, end) of the line that are shown: all of a line
// that fits, otherwise a window that starts a little before the span and
// stays within the line.
std::pair<std::size_t, std::size_t> excerpt_window(std::string_view line, std::size_t span_begin) {
    std::size_t total = display_column(line, line.size());
    if (total <= max_excerpt_columns) {
        return {0, total};
    }
    std::size_t start = display_column(line, span_begin);
    std::size_t begin = start > columns_before_span ? start - columns_before_span : 0;
    begin = std::min(begin, total - max_excerpt_columns);
    return {begin, begin + max_excerpt_columns};
}

struct Excerpt {
    std::string text;
    std::string caret;
};

// The source line cut to its window, and the caret line under it. The caret
// line repeats each tab before the span and has one space per column of
// anything else, so the caret stays aligned whatever the terminal's tab width
// and however wide an escaped byte is; it marks each column of the span.
Excerpt make_excerpt(std::string_view line, std::size_t span_begin, std::size_t span_end) {
    auto [window_begin, window_end] = excerpt_window(line, span_begin);
    Excerpt excerpt;
    std::size_t marked = 0;
    bool cut_before = false;
    bool cut_after = false;
    std::size_t column = 0;
    for (std::size_t at = 0; at < line.size();) {
        Glyph glyph = glyph_at(line, at, true);
        if (column + glyph.width > window_end) {
            cut_after = true;
            break;
        }
        if (column < window_begin) {
            cut_before = true;
        } else {
            append_glyph(excerpt.text, line, at, glyph);
            if (at + glyph.size <= span_begin) {
                excerpt.caret.append(line[at] == '\t' ? std::string("\t") : std::string(glyph.width, ' '));
            } else if (at < span_end) {
                marked += glyph.width;
            }
        }
        column += glyph.width;
        at += glyph.size;
    }
    if (!cut_after && span_end > std::max(span_begin, line.size())) {
        marked += span_end - std::max(span_begin, line.size());
    }
    if (cut_before) {
        excerpt.text.insert(0, cut_mark);
        excerpt.caret.insert(0, std::string(std::string_view(cut_mark).size(), ' '));
    }
    if (cut_after) {
        excerpt.text += cut_mark;
    }
    excerpt.caret += '^';
    excerpt.caret.append(std::clamp<std::size_t>(marked, 1, max_excerpt_columns) - 1, '~');
    return excerpt;
}

}  // namespace

void DiagnosticSink::error(const SourceSpan& span, std::string message) {
    ++error_count_;
    dropping_ = error_count_ > max_errors;
    if (!dropping_) {
        reported_.push_back(Diagnostic{Severity::error, span, std::move(message)});
    }
}

void DiagnosticSink::note(const SourceSpan& span, std::string message) {
    if (!dropping_) {
        reported_.push_back(Diagnostic{Severity::note, span, std::move(message)});
    }
}

std::vector<Diagnostic> DiagnosticSink::diagnostics() const {
    // An error and the notes reported after it move as one unit, placed by
    // the error's position. A note reported before any error is a unit alone.
    struct Unit {
        std::size_t begin;
        std::size_t end;
    };
    std::vector<Unit> units;
    for (std::size_t i = 0; i < reported_.size(); ++i) {
        if (units.empty() || reported_[i].severity == Severity::error) {
            units.push_back(Unit{i, i + 1});
        } else {
            units.back().end = i + 1;
        }
    }
    auto position = [&](const Unit& unit) {
        const SourceSpan& span = reported_[unit.begin].span;
        return std::make_pair(span.line, span.column);
    };
    std::stable_sort(units.begin(), units.end(),
                     [&](const Unit& a, const Unit& b) { return position(a) < position(b); });
    std::vector<Diagnostic> sorted;
    sorted.reserve(reported_.size());
    for (const Unit& unit : units) {
        auto first = reported_.begin() + static_cast<std::ptrdiff_t>(unit.begin);
        auto last = reported_.begin() + static_cast<std::ptrdiff_t>(unit.end);
        sorted.insert(sorted.end(), first, last);
    }
    // After the sort, so that it is the last line printed.
    if (error_count_ > max_errors) {
        sorted.push_back(Diagnostic{Severity::error, SourceSpan{},
                                    "too many errors (" + std::to_string(error_count_) + "); only the first " +
                                        std::to_string(max_errors) + " are shown"});
    }
    return sorted;
}

void DiagnosticSink::print(std::ostream& out) const {
    for (const Diagnostic& diagnostic : diagnostics()) {
        out << format_diagnostic(file_, diagnostic);
    }
}

std::string format_headline(const SourceFile& file, const Diagnostic& diagnostic) {
    const char* severity = diagnostic.severity == Severity::error ? "error" : "note";
    std::string position;
    if (diagnostic.span.line >= 1) {
        position = ":" + std::to_string(diagnostic.span.line) + ":" + std::to_string(diagnostic.span.column);
    }
    return printable_inline(file.name(), std::string::npos) + position + ": " + severity + ": " +
           printable_inline(diagnostic.message, max_message_run);
}

std::string format_diagnostic(const SourceFile& file, const Diagnostic& diagnostic) {
    std::string text = format_headline(file, diagnostic) + "\n";
    if (diagnostic.span.line < 1 || diagnostic.span.column < 1) {
        return text;
    }
    std::size_t span_begin = static_cast<std::size_t>(diagnostic.span.column - 1);
    std::size_t span_end = std::max(span_begin, static_cast<std::size_t>(std::max(diagnostic.span.end_column - 1, 0)));
    Excerpt excerpt = make_excerpt(file.line(diagnostic.span.line), span_begin, span_end);
    text += "    " + excerpt.text + "\n    " + excerpt.caret + "\n";
    return text;
}

std::string word_list(const std::vector<std::string>& words, const std::string& conjunction) {
    std::string list;
    for (std::size_t i = 0; i < words.size(); ++i) {
        if (i > 0) {
            list += i + 1 == words.size() ? " " + conjunction + " " : ", ";
        }
        list += words[i];
    }
    return list;
}

}  // namespace tcgen
