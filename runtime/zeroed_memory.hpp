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
//
// Where the tables restart often (a file with restart points, whose groups
// may be a block of a few records), handing pages back is what costs: each
// page the group touched faults back in, zeroed, and on several threads
// every madvise flushes the other threads' address translations. There a
// table marks the 4 KiB pages its lines touch (mark(), a bit each) and
// clear() zeroes only those, in place (docs/design/log.md, "Restarts that
// clear only what the group touched"). The marks are off unless asked for
// (clear_touched_pages_only: a file with restart points whose groups are
// small against the tables, restarts_touched_pages_only), and the code that
// takes lines marks them only in the instantiation such a file runs
// (ZeroedTable::line), so that other files run no code of theirs.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <new>
#include <utility>
#include <vector>

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
// costs what the group before it touched, not the table's size). It is set
// for restart groups large enough to fill the tables, which mark no pages
// (restarts_touched_pages_only): by GroupDecoder's workers, which restart
// tables side by side in one process, where every madvise interrupts the
// other threads to flush their address translations and the page faults
// after it queue in the kernel (docs/design/log.md, "Restart groups decoded
// on several threads"), and on one thread by TablesClearedInPlace.
inline bool& clear_tables_in_place() {
    thread_local bool in_place = false;
    return in_place;
}

// clear_tables_in_place() set on this thread while it lives, and put back
// as it was after: the one-thread reader and the writer restart this way
// for groups large enough to fill the tables. There the pages a group
// touched, which are most of them, fault back in zeroed after madvise, at
// a cost in system time that zeroing them in place avoids (TCgen(A),
// 2-16 MiB groups, docs/design/log.md, "Restarts that clear only what the
// group touched").
class TablesClearedInPlace {
public:
    explicit TablesClearedInPlace(bool in_place) : before_(std::exchange(clear_tables_in_place(), in_place)) {}
    ~TablesClearedInPlace() { clear_tables_in_place() = before_; }
    TablesClearedInPlace(const TablesClearedInPlace&) = delete;
    TablesClearedInPlace& operator=(const TablesClearedInPlace&) = delete;

private:
    bool before_;
};

class ZeroedMemory {
public:
    ZeroedMemory() = default;

    // `alignment`: a power of two, what the memory's start is aligned to (a
    // mapping's start is a page's; calloc's, max_align_t's).
    explicit ZeroedMemory(std::size_t bytes, std::size_t alignment = alignof(std::max_align_t))
        : bytes_(bytes), touched_pages_((page_count() + 63) / 64) {
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
        if (alignment > alignof(std::max_align_t)) {
            // aligned_alloc wants a multiple of the alignment.
            if (bytes > ~std::size_t{0} - alignment) {
                throw std::bad_alloc();
            }
            data_ = std::aligned_alloc(alignment, (bytes + alignment - 1) / alignment * alignment);
            if (data_ == nullptr) {
                throw std::bad_alloc();
            }
            std::memset(data_, 0, bytes);
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
          mapped_(std::exchange(other.mapped_, false)),
          touched_pages_(std::move(other.touched_pages_)),
          clears_touched_pages_only_(std::exchange(other.clears_touched_pages_only_, false)) {}

    ZeroedMemory& operator=(ZeroedMemory&& other) noexcept {
        if (this != &other) {
            release();
            data_ = std::exchange(other.data_, nullptr);
            bytes_ = std::exchange(other.bytes_, 0);
            mapped_ = std::exchange(other.mapped_, false);
            touched_pages_ = std::move(other.touched_pages_);
            clears_touched_pages_only_ = std::exchange(other.clears_touched_pages_only_, false);
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

    // The pages that mark() marks and clear() then zeroes alone: 4 KiB
    // from the start of the memory (a mapping's own pages where it is one).
    static constexpr unsigned page_bits = 12;
    static constexpr std::size_t page_bytes = std::size_t{1} << page_bits;

    // Whether clear() zeroes only the pages mark() marked since the last
    // clear, in place, rather than all of the memory. Switching it on
    // empties the memory, since what it holds was not marked.
    void clear_touched_pages_only(bool on) {
        if (on == clears_touched_pages_only_) {
            return;
        }
        clears_touched_pages_only_ = false;
        if (on) {
            clear();
            std::fill(touched_pages_.begin(), touched_pages_.end(), 0);
            clears_touched_pages_only_ = true;
        }
    }

    bool clears_touched_pages_only() const { return clears_touched_pages_only_; }

    // Marks the pages of the `size` bytes at `offset` as touched, for
    // clear() with the marks on; with them off, marking is harmless and
    // useless. `size` is at least 1 and at most a page (a table's line holds
    // at most 255 entries of 8 bytes), so two stores and no branch, inlined
    // into the lines a table gives out where the file has restart points.
    void mark(std::size_t offset, std::size_t size) {
        mark_page(offset >> page_bits);
        mark_page((offset + size - 1) >> page_bits);  // a line straddling two pages
    }

    // Whether mark() marked page `page` since the marks were switched on or
    // the last clear with them on (tests).
    bool touched(std::size_t page) const { return (touched_pages_[page / 64] >> (page % 64) & 1) != 0; }

    // Back to all zeros. With the marks on: the pages touched since the
    // last clear are overwritten and stay resident. Otherwise a mapped
    // table's pages are dropped (the next touch of one maps a zeroed page),
    // a small one is overwritten.
    void clear() {
        if (bytes_ == 0) {
            return;
        }
        if (clears_touched_pages_only_) {
            clear_touched_pages();
            return;
        }
        if (mapped_ && !clear_tables_in_place() && ::madvise(data_, bytes_, MADV_DONTNEED) == 0) {
            return;
        }
        std::memset(data_, 0, bytes_);
    }

    // Zeroes the first `bytes` (at most all), in place; the marks stay.
    void clear_first(std::size_t bytes) {
        if (bytes_ != 0) {
            std::memset(data_, 0, std::min(bytes, bytes_));
        }
    }

private:
    // From this size on a table has its own mapping (whole pages, which
    // madvise can drop); below it calloc packs tables together.
    static constexpr std::size_t mapped_bytes = std::size_t{1} << 16;

    std::size_t page_count() const { return (bytes_ + page_bytes - 1) >> page_bits; }

    void mark_page(std::size_t page) { touched_pages_[page / 64] |= std::uint64_t{1} << (page % 64); }

    // Zeroes each run of marked pages with one memset and clears the marks.
    void clear_touched_pages() {
        const std::size_t words = touched_pages_.size();
        for (std::size_t word_index = 0; word_index < words; ++word_index) {
            std::uint64_t word = touched_pages_[word_index];
            if (word == 0) {
                continue;
            }
            touched_pages_[word_index] = 0;
            while (word != 0) {
                const unsigned first = static_cast<unsigned>(__builtin_ctzll(word));
                const std::uint64_t from_first = word >> first;
                const unsigned run =
                    ~from_first == 0 ? 64 - first : static_cast<unsigned>(__builtin_ctzll(~from_first));
                zero_pages(word_index * 64 + first, run);
                word = first + run >= 64 ? 0 : word & ~((std::uint64_t{1} << (first + run)) - 1);
            }
        }
    }

    void zero_pages(std::size_t first, std::size_t count) {
        const std::size_t begin = first * page_bytes;
        if (begin >= bytes_) {
            return;
        }
        const std::size_t end = std::min(bytes_, (first + count) * page_bytes);
        std::memset(static_cast<char*>(data_) + begin, 0, end - begin);
    }

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
    // A bit per page marked since the last clear (or since the marks were
    // switched on), whether the marks are on or not: a 64 MiB table's are
    // 2 KiB, and mark() needs no test.
    std::vector<std::uint64_t> touched_pages_;
    bool clears_touched_pages_only_ = false;
};

}  // namespace tcgen_runtime
