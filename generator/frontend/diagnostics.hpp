#pragma once
// Diagnostics in gcc's format, each followed by the source line and a caret:
//
//   spec.tcg:3:14: error: field width must be 8, 16, 32 or 64 bits, not 12
//       12-Bit Field 1 = {: LV[1]};
//       ^~
//
// Every stage reports through one DiagnosticSink, so syntax errors from the
// parser and semantic errors look the same.

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

class DiagnosticSink {
public:
    explicit DiagnosticSink(const SourceFile& file) : file_(file) {}

    void error(const SourceSpan& span, std::string message);
    void note(const SourceSpan& span, std::string message);

    bool has_errors() const { return error_count_ > 0; }
    int error_count() const { return error_count_; }
    const std::vector<Diagnostic>& diagnostics() const { return diagnostics_; }
    const SourceFile& file() const { return file_; }

    // Writes every diagnostic, in the order reported.
    void print(std::ostream& out) const;

private:
    const SourceFile& file_;
    std::vector<Diagnostic> diagnostics_;
    int error_count_ = 0;
};

// The one-line "FILE:LINE:COL: error: MESSAGE" form, without source excerpt.
std::string format_headline(const SourceFile& file, const Diagnostic& diagnostic);

// The headline, the source line and a caret line marking the span.
std::string format_diagnostic(const SourceFile& file, const Diagnostic& diagnostic);

}  // namespace tcgen
