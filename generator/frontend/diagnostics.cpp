#include "generator/frontend/diagnostics.hpp"

#include <algorithm>
#include <ostream>

namespace tcgen {

void DiagnosticSink::error(const SourceSpan& span, std::string message) {
    diagnostics_.push_back(Diagnostic{Severity::error, span, std::move(message)});
    ++error_count_;
}

void DiagnosticSink::note(const SourceSpan& span, std::string message) {
    diagnostics_.push_back(Diagnostic{Severity::note, span, std::move(message)});
}

void DiagnosticSink::print(std::ostream& out) const {
    for (const Diagnostic& diagnostic : diagnostics_) {
        out << format_diagnostic(file_, diagnostic);
    }
}

std::string format_headline(const SourceFile& file, const Diagnostic& diagnostic) {
    const char* severity = diagnostic.severity == Severity::error ? "error" : "note";
    return file.name() + ":" + std::to_string(diagnostic.span.line) + ":" + std::to_string(diagnostic.span.column) +
           ": " + severity + ": " + diagnostic.message;
}

std::string format_diagnostic(const SourceFile& file, const Diagnostic& diagnostic) {
    std::string text = format_headline(file, diagnostic) + "\n";
    std::string_view line = file.line(diagnostic.span.line);
    if (diagnostic.span.line < 1 || diagnostic.span.column < 1) {
        return text;
    }
    // Tabs are kept in the caret line so the caret stays aligned whatever
    // the terminal's tab width.
    std::string caret;
    std::size_t column = static_cast<std::size_t>(diagnostic.span.column);
    for (std::size_t i = 0; i + 1 < column && i < line.size(); ++i) {
        caret += line[i] == '\t' ? '\t' : ' ';
    }
    caret += '^';
    int width = std::max(1, diagnostic.span.end_column - diagnostic.span.column);
    caret.append(static_cast<std::size_t>(width - 1), '~');
    text += "    ";
    text += line;
    text += "\n    ";
    text += caret;
    text += "\n";
    return text;
}

}  // namespace tcgen
