// A test driver compiled with each variant spec's generated stream (class
// tcgen_streams::Variant, from tcgen --name=variant): builds streams of
// records of several shapes and lengths, walks them at random with saves and
// loads, and checks every record against what it was built from. The fields
// come in as TCGEN_TEST_FIELDS, "X(field1) X(field2) ...".
// Exit 0 when every walk was exact.

#include <cstdint>
#include <cstdio>
#include <random>
#include <vector>

#include "variant.hpp"

using Stream = tcgen_streams::Variant;
using Record = Stream::Record;

namespace {

bool equal(const Record& a, const Record& b) {
    bool same = true;
#define X(field) same = same && a.field == b.field;
    TCGEN_TEST_FIELDS
#undef X
    return same;
}

std::vector<Record> make(std::size_t count, int shape, std::mt19937_64& random) {
    std::vector<Record> records(count);
    std::uint64_t running = 0;
    for (std::size_t index = 0; index < count; ++index) {
        running += shape == 1 ? 5 : random() % 3;
#define X(field)                                                                                                   \
    records[index].field = static_cast<decltype(records[index].field)>(                                           \
        shape == 0 ? random() : shape == 1 ? running : shape == 2 ? index % 4 : random() % 2 == 0 ? 7 : random());
        TCGEN_TEST_FIELDS
#undef X
    }
    return records;
}

int walk(const std::vector<Record>& records, std::mt19937_64& random) {
    Stream stream = Stream::build(records.data(), records.size());
    Record record{};
    for (int step = 0; step < 3000; ++step) {
        const std::uint64_t p = stream.position();
        const unsigned choice = static_cast<unsigned>(random() % 10);
        if (choice < 4) {
            if (stream.next(record) != (p < records.size()) || (p < records.size() && !equal(record, records[p]))) {
                std::printf("forward at %llu of %zu: wrong\n", static_cast<unsigned long long>(p), records.size());
                return 1;
            }
        } else if (choice < 8) {
            if (stream.prev(record) != (p > 0) || (p > 0 && !equal(record, records[p - 1]))) {
                std::printf("backward at %llu of %zu: wrong\n", static_cast<unsigned long long>(p), records.size());
                return 1;
            }
        } else if (choice == 8) {
            stream.seek(random() % (records.size() + 1));
        } else {
            const std::vector<std::uint8_t> saved = stream.save();
            stream = Stream::load(saved.data(), saved.size());
        }
    }
    stream.seek(0);
    for (const Record& expected : records) {
        if (!stream.next(record) || !equal(record, expected)) {
            std::printf("full forward walk: wrong\n");
            return 1;
        }
    }
    return 0;
}

}  // namespace

int main() {
    std::mt19937_64 random(20261124);
    int failures = 0;
    const std::size_t counts[] = {0, 1, 2, 3, 7, 200, 6000};
    for (std::size_t count : counts) {
        for (int shape = 0; shape < 4; ++shape) {
            failures += walk(make(count, shape, random), random);
        }
    }
    std::printf("%s: %d failed walks\n", Stream::spec_name.data(), failures);
    return failures == 0 ? 0 : 1;
}
