#include "generator/frontend/source_file.hpp"

namespace tcgen {

SourceFile::SourceFile(std::string name, std::string text) : name_(std::move(name)), text_(std::move(text)) {
    line_starts_.push_back(0);
    for (std::size_t i = 0; i < text_.size(); ++i) {
        if (text_[i] == '\n') {
            line_starts_.push_back(i + 1);
        }
    }
}

std::string_view SourceFile::line(int line_number) const {
    if (line_number < 1 || line_number > line_count()) {
        return {};
    }
    std::size_t begin = line_starts_[static_cast<std::size_t>(line_number - 1)];
    std::size_t end = text_.find('\n', begin);
    if (end == std::string::npos) {
        end = text_.size();
    }
    if (end > begin && text_[end - 1] == '\r') {
        --end;
    }
    return std::string_view(text_).substr(begin, end - begin);
}

SourceSpan SourceFile::end_span() const {
    // Point after the last non-empty line rather than at an empty final line,
    // so the caret sits under something the reader can see.
    int last = line_count();
    while (last > 1 && line(last).empty()) {
        --last;
    }
    int column = static_cast<int>(line(last).size()) + 1;
    return SourceSpan{last, column, column + 1};
}

}  // namespace tcgen
