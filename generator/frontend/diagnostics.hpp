#pragma once
// Diagnostics in gcc's format, each followed by the source line and a caret:
//
//   spec.tcg:3:14: error: field width must be 8, 16, 32 or 64 bits, not 12
//       12-Bit Field 1 = {: LV[1]};
//       ^~
//
// Every stage reports through one DiagnosticSink, so syntax errors from the
// parser and semantic errors look the same.
//
// Everything printed from the user's file (its name, the source line, tokens
// quoted in messages) is made safe for a terminal: printable ASCII and valid
// UTF-8 stay as they are, a tab stays a tab in the source line, and every
// other byte is written as \xHH. The source line is cut to a window of about
// 120 columns around the span, "..." marking each cut, and an unbroken run of
// more than 60 characters in a message is cut the same way, so that a binary
// or huge spec still gives short, readable diagnostics.

#include <iosfwd>
#include <string>
#include <vector>

#include "generator/frontend/source_file.hpp"

namespace tcgen {

enum class Severity { error, note };

struct Diagnostic {
    Severity severity = Severity::error;
    SourceSpan span;
    std::string message;
};

// Keeps the first max_errors errors reported (and their notes) and only
// counts the rest, as gcc's -fmax-errors does, so that memory and output stay
// small whatever the spec.
class DiagnosticSink {
public:
    static constexpr int max_errors = 20;

    explicit DiagnosticSink(const SourceFile& file) : file_(file) {}

    void error(const SourceSpan& span, std::string message);
    // A note belongs to the error reported just before it, and is dropped
    // with it.
    void note(const SourceSpan& span, std::string message);

    bool has_errors() const { return error_count_ > 0; }
    // Every error reported, kept or dropped.
    int error_count() const { return error_count_; }
    const SourceFile& file() const { return file_; }

    // Every diagnostic kept, in source order (line, then column), whatever
    // order the stages reported them in. Each error is followed by its notes,
    // and diagnostics at the same place keep the order they were reported in.
    // When errors were dropped, one last error without a position says so:
    //
    //   spec.tcg: error: too many errors (137); only the first 20 are shown
    std::vector<Diagnostic> diagnostics() const;

    // Writes every diagnostic, in source order.
    void print(std::ostream& out) const;

private:
    const SourceFile& file_;
    std::vector<Diagnostic> reported_;
    int error_count_ = 0;
    bool dropping_ = false;  // the last error was dropped, so are its notes
};

// The one-line "FILE:LINE:COL: error: MESSAGE" form, without source excerpt;
// "FILE: error: MESSAGE" for a diagnostic without a position (line 0).
std::string format_headline(const SourceFile& file, const Diagnostic& diagnostic);

// The headline, the source line and a caret line marking the span.
std::string format_diagnostic(const SourceFile& file, const Diagnostic& diagnostic);

// A list in a message: "a", "a or b", "a, b or c" (conjunction "or").
std::string word_list(const std::vector<std::string>& words, const std::string& conjunction);

}  // namespace tcgen
