#pragma once
// Zeroed memory for predictor tables, as the paper's tables start: the one
// allocation path of both predictor families.
//
// A large table is mapped straight from the kernel, whose pages are zeroed
// lazily when first touched, so a table of many megabytes costs no start-up
// time and its untouched lines no memory. Clearing it (a restart point) hands
// its pages back the same way, so a restart costs what the block before it
// touched, not the table's size: with a restart every block, tiny blocks
// would otherwise spend their time zeroing megabytes.
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

#include <sys/mman.h>

// AddressSanitizer defines this; a weak declaration leaves it null elsewhere.
extern "C" [[gnu::weak]] void* __asan_region_is_poisoned(void* begin, std::size_t size);

namespace tcgen_runtime {

// AddressSanitizer guards calloc's blocks with red zones, not a mapping of
// our own, so under it every table comes from calloc and has its bounds
// checked (found at run time: generated code has no preprocessor conditions).
inline bool under_address_sanitizer() {
    return __asan_region_is_poisoned != nullptr;
}

// Whether clear() on this thread empties a mapped table in place (memset)
// rather than handing its pages back (madvise, the default: a restart then
// costs what the group before it touched, not the table's size). Threads
// that restart tables side by side in one process set it (GroupDecoder's
// workers, for groups large enough to fill the tables): there every
// madvise interrupts the other threads to flush their address translations,
// and the page faults after it queue in the kernel (docs/design/log.md,
// "Restart groups decoded on several threads").
inline bool& clear_tables_in_place() {
    thread_local bool in_place = false;
    return in_place;
}

class ZeroedMemory {
public:
    ZeroedMemory() = default;

    explicit ZeroedMemory(std::size_t bytes) : bytes_(bytes) {
        if (bytes == 0) {
            return;
        }
        mapped_ = bytes >= mapped_bytes && !under_address_sanitizer();
        if (mapped_) {
            void* mapped = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
            if (mapped == MAP_FAILED) {
                throw std::bad_alloc();
            }
            data_ = mapped;
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
          mapped_(std::exchange(other.mapped_, false)) {}

    ZeroedMemory& operator=(ZeroedMemory&& other) noexcept {
        if (this != &other) {
            release();
            data_ = std::exchange(other.data_, nullptr);
            bytes_ = std::exchange(other.bytes_, 0);
            mapped_ = std::exchange(other.mapped_, false);
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

    // Back to all zeros: a mapped table's pages are dropped (the next touch
    // of one maps a zeroed page), a small one is overwritten.
    void clear() {
        if (bytes_ == 0) {
            return;
        }
        if (mapped_ && !clear_tables_in_place() && ::madvise(data_, bytes_, MADV_DONTNEED) == 0) {
            return;
        }
        std::memset(data_, 0, bytes_);
    }

private:
    // From this size on a table has its own mapping (whole pages, which
    // madvise can drop); below it calloc packs tables together.
    static constexpr std::size_t mapped_bytes = std::size_t{1} << 16;

    void release() {
        if (data_ == nullptr) {
            return;
        }
        if (mapped_) {
            ::munmap(data_, bytes_);
        } else {
            std::free(data_);
        }
        data_ = nullptr;
    }

    void* data_ = nullptr;
    std::size_t bytes_ = 0;
    bool mapped_ = false;  // its own mapping, else from calloc
};

}  // namespace tcgen_runtime
