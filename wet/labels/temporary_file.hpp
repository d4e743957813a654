#pragma once
// A temporary file of `wet build`: its tables that are too large to hold,
// written at places and read back. It is made beside another file (the
// build's output: a disk the user chose, where a tmpfs `$TMPDIR` would
// hold it in memory again) and unlinked as soon as it is open, so that no
// way out of the program, a kill included, leaves it behind; until it is
// unlinked it is on the list of pending temporaries that a signal removes
// (runtime/files.hpp). A failed creation, write or read throws WetError
// naming the file, one line.

#include <cstddef>
#include <cstdint>
#include <string>

namespace tcgen::wet {

class TemporaryFile {
public:
    // BESIDE.KIND.PID.N.tmp, the first N not taken; `holds` ("the events
    // grouped by node") names its contents in messages.
    TemporaryFile(const std::string& beside, const std::string& kind, std::string holds);
    TemporaryFile(const TemporaryFile&) = delete;
    TemporaryFile& operator=(const TemporaryFile&) = delete;
    ~TemporaryFile();

    const std::string& name() const { return name_; }
    void write(std::uint64_t offset, const void* data, std::size_t size) const;
    void read(std::uint64_t offset, void* data, std::size_t size) const;

private:
    std::string name_;
    std::string holds_;
    int descriptor_ = -1;
};

}  // namespace tcgen::wet
