#include <stdexcept>
#include <string>

#include "generator/backend/embedded_files.hpp"

namespace tcgen {

std::string_view embedded_file(std::string_view path) {
    for (const EmbeddedFile& file : embedded_files()) {
        if (file.path == path) {
            return file.content;
        }
    }
    throw std::logic_error("no embedded file " + std::string(path));
}

}  // namespace tcgen
