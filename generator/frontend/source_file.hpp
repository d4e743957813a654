#pragma once
// A spec's text together with its name, so that diagnostics can quote lines.

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace tcgen {

// A 1-based position range within one line of a source file. end_column is
// one past the last character, so a one-character token spans [c, c + 1).
struct SourceSpan {
    int line = 0;
    int column = 0;
    int end_column = 0;
};

class SourceFile {
public:
    SourceFile(std::string name, std::string text);

    const std::string& name() const { return name_; }
    const std::string& text() const { return text_; }

    // The text of a 1-based line without its line terminator; empty when the
    // line does not exist.
    std::string_view line(int line_number) const;
    int line_count() const { return static_cast<int>(line_starts_.size()); }

    // The span of the position just past the last character, where "missing
    // statement" errors point.
    SourceSpan end_span() const;

private:
    std::string name_;
    std::string text_;
    std::vector<std::size_t> line_starts_;
};

}  // namespace tcgen
