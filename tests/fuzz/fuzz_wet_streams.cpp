// libtcgen_wet's stream types on any bytes. The first byte picks the type
// (its low three bits, of tcgen::wet::kinds) and the mode:
//  - 0x40 set: the rest are raw records; built, walked end to end both ways
//    with a save and load in the middle, every record must come back exact;
//  - otherwise the rest is a saved stream to load, resealed with a fresh
//    XXH64 when 0x80 is set so that forgeries reach the parser behind the
//    checksum. Loading either succeeds or throws std::runtime_error; a
//    loaded stream is walked (at most 50000 steps each way), each step
//    yielding a record or throwing std::runtime_error.
// Never a crash or a sanitizer report.

#include <cstdint>
#include <cstring>
#include <iterator>
#include <stdexcept>
#include <string_view>
#include <type_traits>
#include <vector>

#include <tcgen/wet.hpp>

#include "fuzz_support.hpp"
#include "runtime/checksum.hpp"

namespace {

template <class Stream>
bool same(const typename Stream::Record& a, const std::uint8_t* raw) {
    std::vector<std::uint8_t> bytes(Stream::record_bytes);
    const auto* values = &a.field1;
    for (std::size_t field = 0; field < Stream::field_count; ++field) {
        for (std::size_t byte = 0; byte < sizeof(a.field1); ++byte) {
            bytes[field * sizeof(a.field1) + byte] =
                static_cast<std::uint8_t>(static_cast<std::uint64_t>(values[field]) >> (8 * byte));
        }
    }
    return std::memcmp(bytes.data(), raw, bytes.size()) == 0;
}

template <class Stream>
void round_trip(const std::uint8_t* data, std::size_t size) {
    size -= size % Stream::record_bytes;
    Stream stream = Stream::from_bytes(data, size);
    typename Stream::Record record{};
    const std::uint64_t count = size / Stream::record_bytes;
    for (std::uint64_t index = 0; index < count; ++index) {
        tcgen_fuzz::check(stream.next(record) && same<Stream>(record, data + index * Stream::record_bytes),
                          "a forward walk differs from the records");
        if (index == count / 2) {
            const std::vector<std::uint8_t> saved = stream.save();
            stream = Stream::load(saved.data(), saved.size());
        }
    }
    tcgen_fuzz::check(!stream.next(record), "a walk goes past the end");
    for (std::uint64_t index = count; index-- > 0;) {
        tcgen_fuzz::check(stream.prev(record) && same<Stream>(record, data + index * Stream::record_bytes),
                          "a backward walk differs from the records");
    }
    tcgen_fuzz::check(!stream.prev(record), "a walk goes past the beginning");
}

template <class Stream>
void load_and_walk(const std::uint8_t* data, std::size_t size, bool reseal) {
    std::vector<std::uint8_t> bytes(data, data + size);
    if (reseal && bytes.size() >= 8) {
        const std::uint64_t check = tcgen_runtime::xxh64(bytes.data(), bytes.size() - 8, 0);
        for (int byte = 0; byte < 8; ++byte) {
            bytes[bytes.size() - 8 + static_cast<std::size_t>(byte)] = static_cast<std::uint8_t>(check >> (8 * byte));
        }
    }
    try {
        Stream stream = Stream::load(bytes.data(), bytes.size());
        typename Stream::Record record{};
        for (int step = 0; step < 50000 && stream.next(record); ++step) {
        }
        for (int step = 0; step < 100000 && stream.prev(record); ++step) {
        }
    } catch (const std::runtime_error&) {
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size == 0) {
        return 0;
    }
    return tcgen_fuzz::run_input([&] {
        const std::uint8_t mode = data[0];
        const std::string_view kind = tcgen::wet::kinds[(mode & 7) % std::size(tcgen::wet::kinds)];
        tcgen::wet::visit_kind(kind, [&](auto* type) {
            using Stream = std::remove_pointer_t<decltype(type)>;
            if (mode & 0x40) {
                round_trip<Stream>(data + 1, size - 1);
            } else {
                load_and_walk<Stream>(data + 1, size - 1, (mode & 0x80) != 0);
            }
        });
    });
}
