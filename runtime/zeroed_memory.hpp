#pragma once
// Zeroed memory for predictor tables, as the paper's tables start.
//
// The tables are megabytes read at hashed, effectively random places, a few
// lines a record. With 4 KiB pages that touches a new page every few records
// while the tables fill (tens of thousands of page faults a trace, which the
// reading thread's faults contend with) and misses the TLB on most reads. A
// table of 2 MiB or more therefore gets a mapping of its own, aligned to
// 2 MiB and marked for transparent huge pages, which Debian's kernel grants
// on request (its default policy is "madvise"; MADV_HUGEPAGE makes this file
// Linux-only). The hint changes no value, and where huge pages are off or
// none is free the kernel ignores it. Measured on a virtual machine
// (docs/benchmarks.md, "Huge pages for the tables"): decompression took
// 4-26 % less CPU in back-to-back runs, but up to 30 % more for the largest
// specs in a whole bench/run, where fresh huge pages had first to be backed
// by the host; and a touched huge page is 2 MiB resident, which tiny traces
// pay for. Whether to keep the hint is open.
// Smaller tables come from calloc, and so does every table under
// AddressSanitizer, whose allocator then keeps checking the bounds of table
// accesses.
//
// Either way the pages are zeroed lazily, when first touched, so a large
// table costs no start-up time.

#include <sys/mman.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <new>
#include <utility>

// Defined only when AddressSanitizer's runtime is linked in (GCC's and
// Clang's alike); a weak reference is null otherwise. The generated code uses
// no preprocessor, so this is how it asks.
extern "C" __attribute__((weak)) void __asan_init();

namespace tcgen_runtime {

inline bool address_sanitizer_present() {
    return &__asan_init != nullptr;
}

class ZeroedMemory {
public:
    ZeroedMemory() = default;

    explicit ZeroedMemory(std::size_t bytes) : bytes_(bytes) {
        if (bytes == 0) {
            return;
        }
        if (bytes >= huge_page && bytes <= max_mapped && !address_sanitizer_present()) {
            map_huge(bytes);
            return;
        }
        data_ = std::calloc(bytes, 1);
        if (data_ == nullptr) {
            throw std::bad_alloc();
        }
    }

    ~ZeroedMemory() {
        release();
    }

    ZeroedMemory(ZeroedMemory&& other) noexcept
        : data_(std::exchange(other.data_, nullptr)),
          bytes_(std::exchange(other.bytes_, 0)),
          mapping_(std::exchange(other.mapping_, nullptr)),
          mapped_bytes_(std::exchange(other.mapped_bytes_, 0)) {}

    ZeroedMemory& operator=(ZeroedMemory&& other) noexcept {
        if (this != &other) {
            release();
            data_ = std::exchange(other.data_, nullptr);
            bytes_ = std::exchange(other.bytes_, 0);
            mapping_ = std::exchange(other.mapping_, nullptr);
            mapped_bytes_ = std::exchange(other.mapped_bytes_, 0);
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
    static constexpr std::size_t huge_page = std::size_t{1} << 21;
    // Beyond this the rounding below could overflow; calloc reports it.
    static constexpr std::size_t max_mapped = ~std::size_t{0} / 2;

    // Maps one huge page more than the table needs, so that the table can
    // start on a 2 MiB boundary; the slack is address space, never touched.
    void map_huge(std::size_t bytes) {
        const std::size_t rounded = (bytes + huge_page - 1) / huge_page * huge_page;
        mapped_bytes_ = rounded + huge_page;
        void* mapping = mmap(nullptr, mapped_bytes_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (mapping == MAP_FAILED) {
            mapped_bytes_ = 0;
            throw std::bad_alloc();
        }
        mapping_ = mapping;
        const std::uintptr_t start = reinterpret_cast<std::uintptr_t>(mapping);
        data_ = reinterpret_cast<void*>((start + huge_page - 1) & ~(huge_page - 1));
        madvise(data_, rounded, MADV_HUGEPAGE);  // a hint: its failure only costs speed
    }

    void release() {
        if (mapping_ != nullptr) {
            munmap(mapping_, mapped_bytes_);
        } else {
            std::free(data_);
        }
        data_ = nullptr;
        mapping_ = nullptr;
    }

    void* data_ = nullptr;
    std::size_t bytes_ = 0;
    void* mapping_ = nullptr;  // the mmap'd region holding data_, or null when calloc'd
    std::size_t mapped_bytes_ = 0;
};

}  // namespace tcgen_runtime
