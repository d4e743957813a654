#include "generator/text/code_text.hpp"

#include <algorithm>
#include <sstream>

namespace tcgen {

std::string unsigned_type(unsigned bits) {
    return "std::uint" + std::to_string(bits) + "_t";
}

TemplateData text_lines(const std::string& text) {
    TemplateData lines = template_list();
    std::istringstream stream(text);
    std::string line;
    while (std::getline(stream, line)) {
        lines.push_back(TemplateData("text", line));
    }
    return lines;
}

std::string comment_safe(std::string_view text) {
    static const char digits[] = "0123456789abcdef";
    std::string safe;
    for (char c : text) {
        const auto byte = static_cast<unsigned char>(c);
        if (c == '\\' || c == '"') {
            safe += '\\';
            safe += c;
        } else if (byte < 0x20 || byte >= 0x7f) {
            safe += "\\x";
            safe += digits[byte >> 4];
            safe += digits[byte & 0xf];
        } else {
            safe += c;
        }
    }
    return safe;
}

std::size_t line_of(const std::string& text, const std::string& prefix) {
    std::size_t at = text.find("\n" + prefix);
    return static_cast<std::size_t>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(at + 1), '\n')) +
           1;
}

}  // namespace tcgen
