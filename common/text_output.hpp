#pragma once
// Standard output through one buffer, for the tools whose queries print
// millions of lines (a control-flow walk, a large slice, a grammar's walk):
// numbers by std::to_chars, since printf's parsing of its format was a sixth
// of a large slice's run. Written out every 64 KiB and when destroyed;
// run_subcommands (command_line.hpp) checks that standard output took it.

#include <charconv>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

namespace tcgen {

class TextOutput {
public:
    TextOutput() = default;
    TextOutput(const TextOutput&) = delete;
    TextOutput& operator=(const TextOutput&) = delete;
    ~TextOutput() { flush(); }

    TextOutput& bytes(const void* data, std::size_t size) {
        buffer_.append(static_cast<const char*>(data), size);
        return spill();
    }
    TextOutput& text(std::string_view text) { return bytes(text.data(), text.size()); }
    TextOutput& ch(char c) {
        buffer_.push_back(c);
        return spill();
    }
    TextOutput& dec(std::uint64_t value) { return number(value, 10, 0); }
    TextOutput& hex(std::uint64_t value) { return number(value, 16, 2); }  // 0x...

    void flush() {
        std::fwrite(buffer_.data(), 1, buffer_.size(), stdout);
        buffer_.clear();
    }

private:
    TextOutput& number(std::uint64_t value, int base, std::size_t prefix) {
        char text[24] = {'0', 'x'};
        const char* end = std::to_chars(text + prefix, text + sizeof text, value, base).ptr;
        return bytes(text, static_cast<std::size_t>(end - text));
    }
    TextOutput& spill() {
        if (buffer_.size() > (std::size_t{1} << 16)) {
            flush();
        }
        return *this;
    }

    std::string buffer_;
};

// A number as TextOutput::hex writes it.
inline std::string hex_text(std::uint64_t value) {
    char text[24] = {'0', 'x'};
    return {text, static_cast<std::size_t>(std::to_chars(text + 2, text + sizeof text, value, 16).ptr - text)};
}

}  // namespace tcgen
