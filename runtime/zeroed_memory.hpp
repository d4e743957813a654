#pragma once
// Zeroed memory for predictor tables, as the paper's tables start: the one
// allocation path of both predictor families.
//
// calloc maps a large table straight from the kernel, whose pages are zeroed
// lazily when first touched, so a table of many megabytes costs no start-up
// time and its untouched lines no memory.
//
// Transparent huge pages (MADV_HUGEPAGE on a 2 MiB-aligned mapping) were
// measured and dropped (docs/design/log.md, "Huge pages for the tables"):
// they take 6-12 % off decompression's user time, but every huge page a
// table touches is a fixed cost that 4 KiB pages do not pay where the host
// takes freed memory back (a virtual machine with free page reporting, such
// as the one the benchmarks run on: up to 0.2 s a run, break-even near
// 400 MB of trace) or where the kernel must compact memory to find one; and
// a touched huge page is 2 MiB resident, which tiny traces pay for.

#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <new>
#include <utility>

namespace tcgen_runtime {

class ZeroedMemory {
public:
    ZeroedMemory() = default;

    explicit ZeroedMemory(std::size_t bytes) : bytes_(bytes) {
        if (bytes == 0) {
            return;
        }
        data_ = std::calloc(bytes, 1);
        if (data_ == nullptr) {
            throw std::bad_alloc();
        }
    }

    ~ZeroedMemory() {
        std::free(data_);
    }

    ZeroedMemory(ZeroedMemory&& other) noexcept
        : data_(std::exchange(other.data_, nullptr)), bytes_(std::exchange(other.bytes_, 0)) {}

    ZeroedMemory& operator=(ZeroedMemory&& other) noexcept {
        if (this != &other) {
            std::free(data_);
            data_ = std::exchange(other.data_, nullptr);
            bytes_ = std::exchange(other.bytes_, 0);
        }
        return *this;
    }

    ZeroedMemory(const ZeroedMemory&) = delete;
    ZeroedMemory& operator=(const ZeroedMemory&) = delete;

    void* data() const {
        return data_;
    }
    std::size_t bytes() const {
        return bytes_;
    }

    // Back to all zeros.
    void clear() {
        if (bytes_ > 0) {
            std::memset(data_, 0, bytes_);
        }
    }

private:
    void* data_ = nullptr;
    std::size_t bytes_ = 0;
};

}  // namespace tcgen_runtime
