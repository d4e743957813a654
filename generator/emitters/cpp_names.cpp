#include "generator/emitters/cpp_names.hpp"

#include <algorithm>
#include <cctype>

namespace tcgen {

bool is_identifier(const std::string& text) {
    if (text.empty() || std::isdigit(static_cast<unsigned char>(text[0]))) {
        return false;
    }
    return std::all_of(text.begin(), text.end(),
                       [](char c) { return c == '_' || std::isalnum(static_cast<unsigned char>(c)); });
}

bool is_namespace_name(const std::string& text) {
    std::size_t begin = 0;
    for (;;) {
        const std::size_t end = text.find("::", begin);
        if (!is_identifier(text.substr(begin, end == std::string::npos ? std::string::npos : end - begin))) {
            return false;
        }
        if (end == std::string::npos) {
            return true;
        }
        begin = end + 2;
    }
}

}  // namespace tcgen
