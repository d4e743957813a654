#include "generator/tune/usage_report.hpp"

#include <sstream>

namespace tcgen::tune {

namespace {

bool is_number(const std::string& word) {
    return !word.empty() && word.size() <= 19 && word.find_first_not_of("0123456789") == std::string::npos;
}

}  // namespace

UsageCounts parse_usage_report(const std::string& text, std::size_t field_count) {
    UsageCounts counts(field_count);
    std::istringstream lines(text);
    std::string line;
    std::size_t field = 0;  // 1-based; 0: not inside a field's table
    while (std::getline(lines, line)) {
        std::istringstream words_in(line);
        std::vector<std::string> words;
        for (std::string word; words_in >> word;) {
            words.push_back(word);
        }
        if (words.size() >= 2 && words[0] == "Field" && line.rfind("Field", 0) == 0) {
            std::string number = words[1].substr(0, words[1].find_first_not_of("0123456789"));
            field = is_number(number) ? std::stoul(number) : 0;
            if (field > field_count) {
                field = 0;
            }
            continue;
        }
        if (field == 0 || line.empty() || line[0] != ' ' || words.empty() || !is_number(words[0])) {
            if (!line.empty() && line[0] != ' ') {
                field = 0;
            }
            continue;
        }
        // The hits are the number just before the first percentage.
        for (std::size_t index = 1; index < words.size(); ++index) {
            if (words[index].back() == '%') {
                if (is_number(words[index - 1])) {
                    const std::size_t code = std::stoul(words[0]);
                    std::vector<std::uint64_t>& hits = counts[field - 1];
                    if (code < 256) {
                        if (hits.size() <= code) {
                            hits.resize(code + 1, 0);
                        }
                        hits[code] = std::stoull(words[index - 1]);
                    }
                }
                break;
            }
        }
    }
    return counts;
}

}  // namespace tcgen::tune
