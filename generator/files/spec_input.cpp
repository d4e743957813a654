#include "generator/files/spec_input.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <string>
#include <vector>

#include "runtime/container_reader.hpp"
#include "runtime/io.hpp"

namespace tcgen {
namespace {

// Gives back the bytes read to recognise the input before the rest of it.
class PrefixedSource final : public tcgen_runtime::ByteSource {
public:
    PrefixedSource(std::vector<std::uint8_t> prefix, tcgen_runtime::ByteSource& rest)
        : prefix_(std::move(prefix)), rest_(rest) {}

    std::size_t read_up_to(std::uint8_t* buffer, std::size_t size) override {
        std::size_t from_prefix = std::min(size, prefix_.size() - used_);
        std::copy_n(prefix_.begin() + static_cast<std::ptrdiff_t>(used_), from_prefix, buffer);
        used_ += from_prefix;
        return from_prefix + (from_prefix < size ? rest_.read_up_to(buffer + from_prefix, size - from_prefix) : 0);
    }

private:
    std::vector<std::uint8_t> prefix_;
    std::size_t used_ = 0;
    tcgen_runtime::ByteSource& rest_;
};

// Closes what it opened, whatever happens.
struct Descriptor {
    int fd = -1;
    bool owned = false;
    ~Descriptor() {
        if (owned && fd >= 0) {
            ::close(fd);
        }
    }
};

// Specs are a few hundred bytes. Anything much larger is the wrong file (a
// trace, a binary): it is refused after reading one byte past the limit,
// rather than read whole and parsed up to its first syntax error.
constexpr std::size_t max_spec_bytes = std::size_t{1} << 20;
const char* const max_spec_text = "1 MiB";

std::string too_large_error(const std::string& name, int fd) {
    // A pipe has no size, and only one byte past the limit was read from it.
    struct stat status {};
    std::string size = ::fstat(fd, &status) == 0 && S_ISREG(status.st_mode)
                           ? std::to_string(status.st_size) + " bytes"
                           : "more than " + std::string(max_spec_text);
    return "'" + name + "' is " + size + "; a spec is at most " + max_spec_text + " (is it the right file?)";
}

std::optional<SpecInput> read_input(const std::string& name, int fd, std::string& error) {
    tcgen_runtime::InputFile input(fd);
    const auto& magic = tcgen_runtime::tcz_magic;
    std::vector<std::uint8_t> prefix(magic.size());
    prefix.resize(input.read_up_to(prefix.data(), prefix.size()));
    PrefixedSource source(prefix, input);
    if (std::equal(prefix.begin(), prefix.end(), magic.begin(), magic.end())) {
        // The container limits the spec it stores.
        tcgen_runtime::Preamble preamble = tcgen_runtime::ContainerReader(source).read_preamble();
        return SpecInput{SourceFile(name + " (its spec)", preamble.spec_text), preamble.fingerprint};
    }
    std::string text(max_spec_bytes + 1, '\0');
    text.resize(source.read_up_to(reinterpret_cast<std::uint8_t*>(text.data()), text.size()));
    if (text.size() > max_spec_bytes) {
        error = too_large_error(name, fd);
        return std::nullopt;
    }
    return SpecInput{SourceFile(name, std::move(text)), std::nullopt};
}

}  // namespace

std::optional<SpecInput> read_spec_input(const std::string& path, std::string& error) {
    bool is_stdin = path == "-";
    std::string name = is_stdin ? "<stdin>" : path;
    Descriptor descriptor{is_stdin ? STDIN_FILENO : ::open(path.c_str(), O_RDONLY | O_CLOEXEC), !is_stdin};
    struct stat status {};
    if (descriptor.fd >= 0 && ::fstat(descriptor.fd, &status) == 0 && S_ISDIR(status.st_mode)) {
        error = "cannot read '" + name + "': " + std::strerror(EISDIR);
        return std::nullopt;
    }
    if (descriptor.fd < 0) {
        error = "cannot read '" + name + "': " + std::strerror(errno);
        return std::nullopt;
    }
    try {
        return read_input(name, descriptor.fd, error);
    } catch (const tcgen_runtime::Error& failure) {
        // A read error, or a .tcz whose preamble is damaged.
        error = "cannot read '" + name + "': " + failure.what();
        return std::nullopt;
    }
}

}  // namespace tcgen
