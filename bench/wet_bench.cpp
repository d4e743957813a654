// wet-bench: measures one libtcgen_wet stream built from a raw file. Builds
// the compressed stream of KIND from RAW_FILE (little-endian records of the
// spec specs/wet/KIND.tcg), checks that a walk to the end and back yields the
// file's records, then times full walks in both directions and seeks to
// random records, and prints one line of tab-separated key=value pairs
// (bench/README.md lists the keys; bench/wet.py reads them).
//
//   wet-bench KIND RAW_FILE [--runs=N] [--seeks=N]
//
// Speeds are the median of N runs (default 5). A run walks the stream
// start -> end and end -> start as often as it takes to yield at least 2^20
// values each way, so that short streams are not timed at the clock's grain.
// seek() steps record by record, so a seek costs the distance it moves; the
// seeks go from wherever the last one ended to a random record (fixed seed),
// each timed on its own. Times are taken with std::chrono::steady_clock and,
// as the *_cpu_* keys, with the thread's CPU clock, which a busy machine
// disturbs less. Exit status 1 with a one-line error on a bad
// argument, an unreadable file, or a walk that does not give back the file.

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <iostream>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include <time.h>

#include <tcgen/wet.hpp>

#include "common/files.hpp"

#ifndef WET_BENCH_BUILD_TYPE
#define WET_BENCH_BUILD_TYPE "unknown"
#endif

namespace {

using Clock = std::chrono::steady_clock;

struct Options {
    std::string kind;
    std::string path;
    unsigned runs = 5;
    unsigned seeks = 101;
};

// At least this many values per timed walk direction and run.
constexpr std::uint64_t min_values_per_run = std::uint64_t{1} << 20;

[[noreturn]] void fail(const std::string& message) {
    throw std::runtime_error(message);
}

unsigned parse_count(const std::string& argument, const std::string& text) {
    if (text.empty() || text.size() > 9 || text.find_first_not_of("0123456789") != std::string::npos ||
        std::stoul(text) == 0) {
        fail("bad " + argument + ": expected a whole number >= 1");
    }
    return static_cast<unsigned>(std::stoul(text));
}

Options parse_options(int argc, char** argv) {
    Options options;
    std::vector<std::string> positional;
    for (int i = 1; i < argc; ++i) {
        const std::string argument = argv[i];
        if (argument.rfind("--runs=", 0) == 0) {
            options.runs = parse_count(argument, argument.substr(7));
        } else if (argument.rfind("--seeks=", 0) == 0) {
            options.seeks = parse_count(argument, argument.substr(8));
        } else if (argument.rfind("--", 0) == 0) {
            fail("unknown option '" + argument + "'");
        } else {
            positional.push_back(argument);
        }
    }
    if (positional.size() != 2) {
        std::string kinds;
        for (std::string_view kind : tcgen::wet::kinds) {
            kinds += (kinds.empty() ? "" : ", ") + std::string(kind);
        }
        fail("usage: wet-bench KIND RAW_FILE [--runs=N] [--seeks=N]   (KIND: " + kinds + ")");
    }
    options.kind = positional[0];
    options.path = positional[1];
    return options;
}

double seconds(Clock::duration duration) {
    return std::chrono::duration<double>(duration).count();
}

// CPU time of this thread, in seconds: on a shared machine the steady clock
// also counts the time other processes had the core, this does not.
double cpu_seconds() {
    timespec now{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
    return static_cast<double>(now.tv_sec) + static_cast<double>(now.tv_nsec) * 1e-9;
}

double median(std::vector<double> samples) {
    if (samples.empty()) {
        return 0;
    }
    std::sort(samples.begin(), samples.end());
    const std::size_t middle = samples.size() / 2;
    return samples.size() % 2 ? samples[middle] : (samples[middle - 1] + samples[middle]) / 2;
}

double quantile(std::vector<double> samples, double q) {
    if (samples.empty()) {
        return 0;
    }
    std::sort(samples.begin(), samples.end());
    return samples[static_cast<std::size_t>(q * static_cast<double>(samples.size() - 1) + 0.5)];
}

// The generated records are plain structs of unsigned fields, field1 first;
// the bench reads them as an array, so they must all be one width.
template <class Stream>
constexpr bool uniform_fields() {
    using Record = typename Stream::Record;
    constexpr std::size_t width = sizeof(Record::field1);
    return sizeof(Record) == Stream::record_bytes && Stream::record_bytes == Stream::field_count * width;
}

template <class Record>
const auto* fields_of(const Record& record) {
    return &record.field1;
}

// Record `index` of the raw file, field by field, little-endian.
template <class Stream>
typename Stream::Record raw_record(const std::vector<std::uint8_t>& raw, std::uint64_t index) {
    typename Stream::Record record{};
    using Field = std::remove_reference_t<decltype(record.field1)>;
    Field* fields = &record.field1;
    const std::uint8_t* bytes = raw.data() + index * Stream::record_bytes;
    for (std::size_t f = 0; f < Stream::field_count; ++f) {
        Field value = 0;
        for (std::size_t b = sizeof(Field); b-- > 0;) {
            value = static_cast<Field>((static_cast<std::uint64_t>(value) << 8) | bytes[f * sizeof(Field) + b]);
        }
        fields[f] = value;
    }
    return record;
}

template <class Record>
bool same(const Record& a, const Record& b) {
    return std::memcmp(&a, &b, sizeof(Record)) == 0;
}

// A walk each way, compared with the file.
template <class Stream>
void verify(Stream& stream, const std::vector<std::uint8_t>& raw) {
    typename Stream::Record record{};
    for (std::uint64_t i = 0; i < stream.size(); ++i) {
        if (!stream.next(record) || !same(record, raw_record<Stream>(raw, i))) {
            fail("forward walk: record " + std::to_string(i) + " differs from the file");
        }
    }
    if (stream.next(record)) {
        fail("forward walk: a record after the end");
    }
    for (std::uint64_t i = stream.size(); i-- > 0;) {
        if (!stream.prev(record) || !same(record, raw_record<Stream>(raw, i))) {
            fail("backward walk: record " + std::to_string(i) + " differs from the file");
        }
    }
    if (stream.prev(record)) {
        fail("backward walk: a record before the beginning");
    }
}

// Keeps the walks from being optimised away.
volatile std::uint64_t sink;

template <class Stream>
void bench(const Options& options, const std::vector<std::uint8_t>& raw) {
    static_assert(uniform_fields<Stream>(), "wet-bench reads a record's fields as an array of one width");
    using Record = typename Stream::Record;
    if (raw.size() % Stream::record_bytes != 0) {
        fail("'" + options.path + "' has " + std::to_string(raw.size()) + " bytes, not a multiple of the " +
             std::to_string(Stream::record_bytes) + "-byte records of " + options.kind);
    }

    const Clock::time_point build_start = Clock::now();
    Stream stream = Stream::from_bytes(raw.data(), raw.size());
    const double build_s = seconds(Clock::now() - build_start);

    const std::uint64_t records = stream.size();
    const std::uint64_t values = records * Stream::field_count;
    const std::vector<std::uint8_t> saved = stream.save();
    const Clock::time_point load_start = Clock::now();
    Stream loaded = Stream::load(saved.data(), saved.size());
    const double load_s = seconds(Clock::now() - load_start);
    if (loaded.size() != records || loaded.compressed_bits() != stream.compressed_bits()) {
        fail("the loaded stream differs from the saved one");
    }
    verify(stream, raw);
    verify(loaded, raw);

    // Full walks, forward then backward, `repeats` times per run.
    const std::uint64_t repeats =
        values == 0 ? 0 : std::max<std::uint64_t>(1, (min_values_per_run + values - 1) / values);
    std::vector<double> forward_speeds;
    std::vector<double> backward_speeds;
    std::vector<double> forward_cpu_speeds;
    std::vector<double> backward_cpu_speeds;
    Record record{};
    std::uint64_t checksum = 0;
    for (unsigned run = 0; run < options.runs && repeats > 0; ++run) {
        Clock::duration forward{};
        Clock::duration backward{};
        double forward_cpu = 0;
        double backward_cpu = 0;
        for (std::uint64_t r = 0; r < repeats; ++r) {
            const double cpu_start = cpu_seconds();
            const Clock::time_point start = Clock::now();
            while (stream.next(record)) {
                checksum += fields_of(record)[0];
            }
            const Clock::time_point middle = Clock::now();
            const double cpu_middle = cpu_seconds();
            while (stream.prev(record)) {
                checksum += fields_of(record)[0];
            }
            backward += Clock::now() - middle;
            backward_cpu += cpu_seconds() - cpu_middle;
            forward += middle - start;
            forward_cpu += cpu_middle - cpu_start;
        }
        const double walked = static_cast<double>(values * repeats);
        forward_speeds.push_back(walked / seconds(forward) / 1e6);
        backward_speeds.push_back(walked / seconds(backward) / 1e6);
        forward_cpu_speeds.push_back(walked / forward_cpu / 1e6);
        backward_cpu_speeds.push_back(walked / backward_cpu / 1e6);
    }
    sink = checksum;

    // Seeks from where the last one ended to a random record.
    std::mt19937_64 random(20050101);
    std::uniform_int_distribution<std::uint64_t> target(0, records);
    std::vector<double> seek_us;
    std::vector<double> seek_cpu_us;
    double distance = 0;
    for (unsigned i = 0; i < options.seeks; ++i) {
        const std::uint64_t to = target(random);
        const std::uint64_t from = stream.position();
        const double cpu_start = cpu_seconds();
        const Clock::time_point start = Clock::now();
        stream.seek(to);
        seek_us.push_back(seconds(Clock::now() - start) * 1e6);
        seek_cpu_us.push_back((cpu_seconds() - cpu_start) * 1e6);
        distance += static_cast<double>(to > from ? to - from : from - to);
        if (stream.position() != to) {
            fail("seek to " + std::to_string(to) + " ended at " + std::to_string(stream.position()));
        }
    }
    if (records > 0) {
        stream.seek(records - 1);
        if (!stream.next(record) || !same(record, raw_record<Stream>(raw, records - 1))) {
            fail("after the seeks, the last record differs from the file");
        }
    }

    const double forward = median(forward_speeds);
    const double backward = median(backward_speeds);
    const double value_bytes = static_cast<double>(Stream::record_bytes) / Stream::field_count;
    auto per_value = [&](double bits) { return values ? bits / static_cast<double>(values) : 0.0; };
    std::ostringstream line;
    line.setf(std::ios::fixed);
    line.precision(3);
    line << "kind=" << options.kind << "\tfile=" << options.path << "\trecords=" << records
         << "\tfields=" << Stream::field_count << "\tvalues=" << values << "\traw_bytes=" << raw.size()
         << "\tsaved_bytes=" << saved.size() << "\tcompressed_bits=" << stream.compressed_bits()
         << "\tmemory_bytes=" << stream.memory_bytes()
         << "\tbits_per_value=" << per_value(static_cast<double>(saved.size()) * 8)
         << "\tcompressed_bits_per_value=" << per_value(static_cast<double>(stream.compressed_bits()))
         << "\tbuild_s=" << build_s << "\tload_s=" << load_s << "\truns=" << forward_speeds.size()
         << "\twalks_per_run=" << repeats << "\tforward_mvalues_s=" << forward
         << "\tbackward_mvalues_s=" << backward << "\tforward_mb_s=" << forward * value_bytes
         << "\tbackward_mb_s=" << backward * value_bytes
         << "\tforward_cpu_mvalues_s=" << median(forward_cpu_speeds)
         << "\tbackward_cpu_mvalues_s=" << median(backward_cpu_speeds) << "\tseeks=" << seek_us.size()
         << "\tseek_median_us=" << median(seek_us) << "\tseek_p90_us=" << quantile(seek_us, 0.9)
         << "\tseek_max_us=" << quantile(seek_us, 1.0) << "\tseek_cpu_median_us=" << median(seek_cpu_us)
         << "\tseek_mean_distance=" << (seek_us.empty() ? 0.0 : distance / static_cast<double>(seek_us.size()))
         << "\tverified=yes\tbuild_type=" << WET_BENCH_BUILD_TYPE << "\tdescription=" << stream.description()
         << '\n';
    std::cout << line.str();
}

}  // namespace

int main(int argc, char** argv) {
    try {
        const Options options = parse_options(argc, argv);
        const std::vector<std::uint8_t> raw = tcgen::read_whole_file(options.path, tcgen::FileNamed::in_message);
        const bool known = tcgen::wet::visit_kind(
            options.kind, [&](auto* type) { bench<std::remove_pointer_t<decltype(type)>>(options, raw); });
        if (!known) {
            fail("unknown kind '" + options.kind + "'");
        }
        std::cout.flush();
        return std::cout ? 0 : 1;
    } catch (const std::exception& error) {
        std::cerr << "wet-bench: error: " << error.what() << "\n";
        return 1;
    }
}
