#include "generator/frontend/spec_reader.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace tcgen {

std::optional<SourceFile> read_spec_file(const std::string& path, std::string& error) {
    bool is_stdin = path == "-";
    std::string name = is_stdin ? "<stdin>" : path;
    std::FILE* file = is_stdin ? stdin : std::fopen(path.c_str(), "rb");
    if (file == nullptr) {
        error = "cannot read '" + name + "': " + std::strerror(errno);
        return std::nullopt;
    }
    std::string text;
    char buffer[65536];
    std::size_t got = 0;
    while ((got = std::fread(buffer, 1, sizeof buffer, file)) > 0) {
        text.append(buffer, got);
    }
    bool failed = std::ferror(file) != 0;
    int saved_errno = errno;
    if (!is_stdin) {
        std::fclose(file);
    }
    if (failed) {
        error = "cannot read '" + name + "': " + std::strerror(saved_errno);
        return std::nullopt;
    }
    return SourceFile(name, std::move(text));
}

}  // namespace tcgen
