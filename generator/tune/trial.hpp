#pragma once
// One candidate measured for real: its spec compiled in-process into the
// compressor tcgen would generate, that C++ built with the user's compiler,
// run on each sample; the compressed sizes, the CPU times and the usage
// reports, summed over the samples, and the time its decompressor takes on
// its own output (the median of a few runs per sample) are what the search
// sees. With samples
// of equal size, the smallest total is the best harmonic mean of the
// ratios, the paper's average: a change must help on the samples together,
// not on one program alone. Binaries, outputs and results are kept per
// encoding fingerprint in the work directory, so a candidate reached twice
// is measured once; with a build cache, a compressor built once (the same
// generated code, compiler and flags) is never built again, in this run or
// a later one.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "generator/tune/candidate.hpp"
#include "generator/tune/objective.hpp"
#include "generator/tune/usage_report.hpp"

namespace tcgen::tune {

struct Measurement {
    std::string spec;  // canonical statements (tcgen's spec_text)
    std::uint64_t fingerprint = 0;
    std::uint64_t table_bytes = 0;
    std::uint64_t compressed_bytes = 0;  // all samples
    std::vector<std::uint64_t> sample_compressed_bytes;  // each sample's
    double cpu_seconds = 0;              // compressing all samples
    UsageCounts usage;                   // summed over the samples
    // Decoding: CPU ns per record of each sample (the median of
    // decode_repetitions runs, the program's start included), the samples'
    // records, and ns per record over all of them.
    std::vector<double> sample_decode_ns;
    std::vector<std::uint64_t> sample_records;
    double decode_ns = 0;
};

// What the search compares of a measurement (objective.hpp).
Figures figures_of(const Measurement& measurement);

// -O1: the sizes a candidate writes do not depend on the optimisation level,
// and building dominates a trial; -O1 builds a third faster than -O2 and the
// compressor runs about as fast.
// When decode speed counts (an objective other than ratio, or a target),
// -O2: the speed measured is then that of an optimised build, which decodes
// 10-15 % faster than -O1.
inline unsigned default_candidate_opt_level(bool speed_counts = false) {
    return speed_counts ? 2 : 1;
}

// The flags a candidate is built with, at -O`opt_level` (0 to 3).
inline std::vector<std::string> candidate_compiler_flags(unsigned opt_level = default_candidate_opt_level()) {
    return {"-std=c++17", "-O" + std::to_string(opt_level)};
}

struct TrialSettings {
    std::string work_dir;                // exists; the trials' files go there
    std::vector<std::string> compiler;   // $CXX split into words
    std::vector<std::string> compiler_flags = candidate_compiler_flags();
    std::string backend;                 // empty: the compressor's default
    std::vector<std::string> sample_paths;  // one or more
    std::vector<std::uint64_t> sample_records;  // records of each sample
    // Where built compressors are kept for later runs (exists), or empty.
    std::string cache_dir;
    // What `compiler --version` printed: part of a cached build's key, so
    // that another compiler behind the same name builds afresh.
    std::string compiler_identity;
};

// Why a trial failed. `fatal` errors end the tuning (the compiler is missing
// or rejects generated code); others only rule the candidate out (the
// planner refuses it, its tables do not fit in memory).
struct TrialError {
    bool fatal = false;
    std::string message;  // one line
};

// What the search asks of its trials; the tests give it measurements of
// their own.
class Measurer {
public:
    virtual ~Measurer() = default;

    // The canonical spec and fingerprint of a candidate, or nothing (and
    // `error`) when tcgen refuses it.
    virtual std::optional<Measurement> plan(const Candidate& candidate, TrialError& error) const = 0;

    // Measures the candidate, or returns the earlier measurement of the same
    // encoding. `fresh` tells which.
    virtual std::optional<Measurement> measure(const Candidate& candidate, bool& fresh, TrialError& error) = 0;
};

class Trials : public Measurer {
public:
    explicit Trials(TrialSettings settings) : settings_(std::move(settings)) {}

    std::optional<Measurement> plan(const Candidate& candidate, TrialError& error) const override;
    std::optional<Measurement> measure(const Candidate& candidate, bool& fresh, TrialError& error) override;

    // Decompresses the measured candidate's outputs and compares them with
    // the samples byte for byte.
    bool round_trips(const Measurement& measurement, TrialError& error) const;

private:
    // Builds the compressor of `source_text` as path(fingerprint, ""), or
    // takes it from the build cache (and keeps a fresh build there).
    bool build(const std::string& source_text, std::uint64_t fingerprint, TrialError& error) const;
    // Where the cache keeps the build of `source_text` by the compiler
    // command `flags` (the compiler, its options, the libraries).
    std::string cache_path(const std::string& source_text, const std::vector<std::string>& flags) const;
    std::string path(std::uint64_t fingerprint, const std::string& suffix) const;
    // The file of one sample's run: "<fingerprint>.<sample>.<suffix>".
    std::string run_path(std::uint64_t fingerprint, std::size_t sample, const std::string& suffix) const;

    TrialSettings settings_;
    std::map<std::uint64_t, Measurement> measured_;
};

}  // namespace tcgen::tune
