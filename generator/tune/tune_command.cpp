#include "generator/tune/tune_command.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <unistd.h>

#include "common/command_line.hpp"
#include "generator/files/output_file.hpp"
#include "generator/files/spec_input.hpp"
#include "generator/tune/candidate.hpp"
#include "generator/tune/layout.hpp"
#include "generator/tune/objective.hpp"
#include "generator/tune/process.hpp"
#include "generator/tune/sample.hpp"
#include "generator/tune/search.hpp"
#include "generator/tune/shipped_specs.hpp"
#include "generator/tune/trial.hpp"
#include "runtime/backends.hpp"

namespace tcgen::tune {

namespace {

constexpr int exit_user_error = 1;
constexpr int exit_internal_error = 2;

struct Options {
    std::vector<std::string> sample_paths;
    std::string record;
    std::string spec_path;
    std::string output_path;
    double budget_seconds = 300;
    std::uint64_t sample_bytes = 4000000;
    unsigned max_candidates = 0;
    double tolerance_percent = 0.1;
    std::uint64_t max_table_mb = 64;
    std::string backend;
    std::string cxx;
    std::string cache_dir;
    std::string objective = "ratio";
    double max_decode_ns = 0;  // 0: not given
    bool max_decode_ns_given = false;
    bool max_table_mb_given = false;
    unsigned opt_level = 0;  // given: --opt-level
    bool opt_level_given = false;
};

int fail(const std::string& message) {
    std::cerr << "tcgen: error: " << message << "\n";
    return exit_user_error;
}

// A directory of our own for the trials, removed when the run ends.
class WorkDir {
public:
    WorkDir() {
        const char* tmp = std::getenv("TMPDIR");
        std::string pattern = std::string(tmp && *tmp ? tmp : "/tmp") + "/tcgen-tune-XXXXXX";
        std::vector<char> name(pattern.begin(), pattern.end());
        name.push_back('\0');
        if (mkdtemp(name.data()) != nullptr) {
            path_ = name.data();
        }
    }
    ~WorkDir() {
        if (!path_.empty()) {
            std::error_code ignored;
            std::filesystem::remove_all(path_, ignored);
        }
    }
    WorkDir(const WorkDir&) = delete;
    WorkDir& operator=(const WorkDir&) = delete;
    const std::string& path() const { return path_; }

private:
    std::string path_;
};

// What the compiler says of its version (`--version`), or nothing when it
// says nothing: a cached build is kept under it.
std::string version_text(const std::vector<std::string>& compiler, const std::string& work_dir) {
    std::vector<std::string> command = compiler;
    command.emplace_back("--version");
    const std::string log = work_dir + "/compiler-version";
    run_process(command, "", log, log);
    std::ifstream in(log, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

std::string fixed(double value, int decimals) {
    char text[64];
    std::snprintf(text, sizeof text, "%.*f", decimals, value);
    return text;
}

// "a 4000000-byte sample" or "3 samples, 12000000 bytes in all".
std::string samples_text(std::size_t count, std::uint64_t bytes) {
    return count == 1 ? "a " + std::to_string(bytes) + "-byte sample"
                      : std::to_string(count) + " samples, " + std::to_string(bytes) + " bytes in all";
}

double ratio(std::uint64_t in, std::uint64_t out) {
    return out == 0 ? 0.0 : static_cast<double>(in) / static_cast<double>(out);
}

// A number as the user would write it: "40", "12.5".
std::string number_text(double value) {
    char text[64];
    std::snprintf(text, sizeof text, "%g", value);
    return text;
}

// "+0.96 %" or "-12.40 %": the change a factor makes.
std::string signed_percent(double factor) {
    const double percent = (factor - 1.0) * 100.0;
    return (percent >= 0 ? "+" : "") + fixed(percent, 2) + " %";
}

// "balanced" or "ratio, decode within 40 ns/record".
std::string goal_text(Objective objective, double max_decode_ns) {
    return std::string(objective_name(objective)) +
           (max_decode_ns > 0 ? ", decode within " + number_text(max_decode_ns) + " ns/record" : "");
}

// The measured candidate that decodes fastest.
const Measurement& fastest_step(const SearchResult& result) {
    const Measurement* fastest = &result.start_measurement;
    for (const Step& step : result.steps) {
        if (step.measurement.decode_ns < fastest->decode_ns) {
            fastest = &step.measurement;
        }
    }
    return *fastest;
}

int run(const Options& options) {
    if (options.record.empty() == options.spec_path.empty()) {
        return fail("tune needs the record layout: give --record=LAYOUT (e.g. h32,pc32,64) or --spec=FILE");
    }
    if (!(options.budget_seconds > 0)) {
        return fail("--budget must be a positive number of seconds");
    }
    if (options.sample_bytes == 0) {
        return fail("--sample-bytes must be positive");
    }
    if (options.max_table_mb == 0 || options.max_table_mb > 16384) {
        return fail("--max-table-mb must be from 1 to 16384 (16 GiB, the most tcgen accepts)");
    }
    if (!(options.tolerance_percent >= 0 && options.tolerance_percent <= 100)) {
        return fail("--tolerance must be a percentage from 0 to 100");
    }
    std::optional<Objective> objective = parse_objective(options.objective);
    if (!objective) {
        return fail("--objective must be ratio, balanced or speed, not '" + options.objective + "'");
    }
    if (options.max_decode_ns_given && !(options.max_decode_ns > 0 && options.max_decode_ns < 1e9)) {
        return fail("--max-decode-ns must be a positive number of nanoseconds per record");
    }
    std::string error;
    std::optional<Candidate> layout;
    std::vector<StartSpec> start_specs;
    if (!options.record.empty()) {
        layout = parse_record_layout(options.record, error);
        if (layout) {
            for (ShippedSpec& shipped : shipped_specs_for(*layout)) {
                start_specs.push_back(StartSpec{std::move(shipped.name), std::move(shipped.candidate)});
            }
        }
    } else {
        std::optional<SpecInput> input = read_spec_input(options.spec_path, error);
        if (!input) {
            return fail(error);
        }
        layout = spec_candidate(input->file, std::cerr);
        if (layout) {
            start_specs.push_back(StartSpec{options.spec_path, *layout});
        }
    }
    if (!layout) {
        return error.empty() ? exit_user_error : fail(error);
    }
    const std::string cxx = !options.cxx.empty()                            ? options.cxx
                            : std::getenv("CXX") && *std::getenv("CXX") ? std::getenv("CXX")
                                                                          : "c++";
    std::vector<std::string> compiler = split_command(cxx);
    if (compiler.empty()) {
        return fail("--cxx names no compiler");
    }
    // The budget counts from here: cutting the samples is part of it.
    const std::chrono::steady_clock::time_point started = std::chrono::steady_clock::now();
    catch_interruptions();
    WorkDir work;
    if (work.path().empty()) {
        return fail("cannot make a temporary directory for the candidates (TMPDIR)");
    }
    // Each file is cut to a sample of its own; the candidates run on all.
    std::vector<std::string> samples;
    std::vector<std::uint64_t> sample_records;
    std::uint64_t sample_bytes = 0;
    for (const std::string& file : options.sample_paths) {
        const std::string sample_path = work.path() + "/sample" + std::to_string(samples.size() + 1);
        std::optional<SampleInfo> sample = make_sample(file, layout->header_bits / 8, layout->record_bytes(),
                                                       options.sample_bytes, sample_path, error);
        if (!sample) {
            return fail(error);
        }
        std::cerr << "tcgen tune: sample '" << file << "': " << sample->sample_bytes << " bytes ("
                  << (sample->whole_file ? "the whole file"
                                         : "header and " + std::to_string(sample_chunk_count) +
                                               " evenly spaced runs of records of the " +
                                               std::to_string(sample->file_bytes) + "-byte file")
                  << ")\n";
        samples.push_back(sample_path);
        sample_records.push_back((sample->sample_bytes - layout->header_bits / 8) / layout->record_bytes());
        sample_bytes += sample->sample_bytes;
    }
    const bool speed_counts = *objective != Objective::ratio || options.max_decode_ns_given;
    const unsigned opt_level = options.opt_level_given ? options.opt_level : default_candidate_opt_level(speed_counts);
    std::cerr << "tcgen tune: record " << layout_text(*layout) << "; " << samples_text(samples.size(), sample_bytes)
              << ", budget " << options.budget_seconds << " s, compiler " << cxx
              << (speed_counts || options.opt_level_given ? " -O" + std::to_string(opt_level) : "")
              << (speed_counts ? "; objective " + goal_text(*objective, options.max_decode_ns) : "") << "\n";

    std::string compiler_identity;
    if (!options.cache_dir.empty()) {
        std::error_code failed;
        std::filesystem::create_directories(options.cache_dir, failed);
        if (failed) {
            return fail("cannot make the build cache '" + options.cache_dir + "': " + failed.message());
        }
        compiler_identity = version_text(compiler, work.path());
    }
    Trials trials({work.path(), compiler, candidate_compiler_flags(opt_level), options.backend, samples,
                   sample_records, options.cache_dir, compiler_identity});
    SearchSettings settings;
    settings.started = started;
    settings.budget_seconds = options.budget_seconds;
    settings.max_candidates = options.max_candidates;
    settings.tolerance = options.tolerance_percent / 100.0;
    settings.max_table_bytes = options.max_table_mb << 20;
    if (!options.max_table_mb_given) {
        // A start is never left out for the tables it was shipped (or given)
        // with: the default limit grows to the largest of them.
        for (const StartSpec& start : start_specs) {
            TrialError refused;  // said when the search plans it
            if (std::optional<Measurement> planned = trials.plan(start.candidate, refused)) {
                settings.max_table_bytes = std::max(settings.max_table_bytes, planned->table_bytes);
            }
        }
    }
    settings.sample_bytes = sample_bytes;
    settings.objective = *objective;
    settings.max_decode_ns = options.max_decode_ns;
    TrialError trial_error;
    std::optional<SearchResult> result = run_search(*layout, start_specs, trials, settings, std::cerr,
                                                    isatty(STDERR_FILENO) == 1, trial_error);
    if (!result) {
        return fail(trial_error.message);
    }
    if (!result->meets_target) {
        const Measurement& fastest = fastest_step(*result);
        return fail("no candidate decodes within --max-decode-ns=" + number_text(options.max_decode_ns) +
                    ": the fastest of the " + std::to_string(result->steps.size()) + " measured, " +
                    fixed(fastest.decode_ns, 1) + " ns/record (ratio " +
                    fixed(ratio(sample_bytes, fastest.compressed_bytes), 3) +
                    "); raise the target or the --budget");
    }
    if (!trials.round_trips(result->best_measurement, trial_error)) {
        std::cerr << "tcgen: internal error: " << trial_error.message << "\n";
        return exit_internal_error;
    }
    const Measurement& best = result->best_measurement;
    const double start_ratio = ratio(sample_bytes, result->start_measurement.compressed_bytes);
    const double best_ratio = ratio(sample_bytes, best.compressed_bytes);
    const double speed = static_cast<double>(sample_bytes) / 1e6 / std::max(best.cpu_seconds, 1e-6);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    const std::string start_text = "start: " + result->start_name + ", ratio " + fixed(start_ratio, 3) +
                                   ", decode " + fixed(result->start_measurement.decode_ns, 1) + " ns/record";
    const std::string best_text =
        "best: ratio " + fixed(best_ratio, 3) +
        (result->start_kept ? ", the start unchanged (no candidate beats it)"
                            : " (" + signed_percent(best_ratio / start_ratio) + ")") +
        ", decode " + fixed(best.decode_ns, 1) + " ns/record" +
        (result->start_kept ? ""
                            : " (" + signed_percent(best.decode_ns / result->start_measurement.decode_ns) + ")");
    const std::string run_text = std::to_string(result->steps.size()) +
                                 (result->steps.size() == 1 ? " candidate in " : " candidates in ") + fixed(seconds, 0) +
                                 " s (" + result->stop_reason + ")";
    const std::string goal = speed_counts ? " (objective " + goal_text(*objective, options.max_decode_ns) + ")" : "";
    std::string text = "# tcgen tune" + goal + " on " + samples_text(samples.size(), sample_bytes) + ": " + start_text +
                       ";\n# " + best_text + ", compressing at " + fixed(speed, 1) + " MB/s, tables " +
                       fixed(static_cast<double>(best.table_bytes) / 1e6, 1) + " MB; " + run_text + ".\n" +
                       best.spec;
    std::cerr << "tcgen tune: " << start_text << "\n";
    std::cerr << "tcgen tune: " << best_text << ", " << fixed(speed, 1) << " MB/s; " << run_text << "\n";
    if (!write_output(options.output_path, text, options.sample_paths, error)) {
        return fail(error);
    }
    return 0;
}

}  // namespace

int tune_main(int argc, char** argv) {
    Options options;
    CLI::App app{
        "tcgen tune: suggests predictors for a trace format by compiling and measuring candidate specs on a\n"
        "sample of a trace. Prints every candidate measured on standard error, the best spec on standard output;\n"
        "never one worse than the start (the given spec, the best shipped one of the layout, or a wide one).",
        "tcgen tune"};
    app.add_option("SAMPLE", options.sample_paths,
                   "Samples of the trace (files): with several, of different programs, the spec must do well "
                   "on all of them together (the smallest total output)")
        ->required();
    app.add_option("--record", options.record,
                   "The record layout: [hN,]F,F,... with F = N or pcN (the PC field), N = 8, 16, 32 or 64 bits; "
                   "hN an N-bit header. The paper's VPC format: h32,pc32,64. Starts from every shipped spec of "
                   "exactly this layout (for h32,pc32,64: examples/vpc3.tcg, tcgen_b.tcg and the x86 specs) "
                   "and goes on from the best");
    app.add_option("--spec", options.spec_path,
                   "Take the layout from this spec and start from it");
    app.add_option("-o,--output", options.output_path, "Write the best spec to FILE instead of standard output");
    app.add_option("--budget", options.budget_seconds,
                   "Seconds to spend, from start to end (cutting the samples and checking the result "
                   "included); no candidate starts that would end past it (default 300)");
    app.add_option("--sample-bytes", options.sample_bytes,
                   "Compress at most this many bytes of each sample: a larger file is cut to its header and 8 "
                   "evenly spaced runs of whole records (default 4000000)");
    app.add_option("--max-candidates", options.max_candidates, "Measure at most N candidates (default: no limit)");
    app.add_option("--tolerance", options.tolerance_percent,
                   "Take a simpler spec (fewer predictions, no larger tables) whose output is at most this many "
                   "percent larger than the smallest, and a larger one only if it gains more (default 0.1)");
    app.add_option("--max-table-mb", options.max_table_mb,
                   "Largest predictor tables of a candidate, in MiB (default 64, three times TCgen(A)'s, or the largest "
                   "start's tables where a start needs more; tables far beyond the last-level cache slow every record)");
    std::vector<std::string> backend_choices;
    for (const tcgen_runtime::BackendRow& row : tcgen_runtime::backend_table) {
        backend_choices.emplace_back(row.name);
    }
    app.add_option("--backend", options.backend,
                   "Force the compressors' stream back-end: " + tcgen_runtime::backend_names() +
                       " (default: theirs, what their level tries for each stream)")
        ->check(CLI::IsMember(backend_choices));
    app.add_option("--cxx", options.cxx, "C++ compiler for the candidates (default $CXX, else c++)");
    app.add_option("--opt-level", options.opt_level,
                   "Build the candidates with -ON, N from 0 to 3 (default 1, or 2 with balanced, speed or "
                   "--max-decode-ns). The bytes a compressor writes, and so the spec chosen for ratio, do not "
                   "depend on it; the build time and the decode times measured do (0 builds fastest)")
        ->check(CLI::Range(0u, 3u))
        ->type_name("N");
    app.add_option("--cache-dir", options.cache_dir,
                   "Keep the candidates' compressors, once built, in DIR (made if missing) and take them from "
                   "there when the same generated code, compiler and flags come again, in this run or a later one "
                   "(default: every run builds its own)")
        ->type_name("DIR");
    app.add_option("--objective", options.objective,
                   "What the best spec is best at: ratio (the smallest output, the default), speed (the fastest "
                   "decoding) or balanced (the smallest bytes x sqrt(decode ns/record): 10 % faster pays for "
                   "about 5 % larger). Each candidate's decode time is its decompressor's CPU time on its own "
                   "output, the median of 5 runs; with balanced or speed the candidates are built with -O2 (unless --opt-level)");
    app.add_option("--max-decode-ns", options.max_decode_ns,
                   "Decode speed to keep to, in CPU nanoseconds per record (as the candidates report them): "
                   "only a spec that decodes within it is a result, the smallest by the objective; the search "
                   "first walks towards it; fails if none measured does. Builds the candidates with -O2 (unless --opt-level)");
    if (const std::optional<int> status =
            cli::parse_command_line(app, argc, argv, "tcgen: error: tune: ", "tcgen tune --help")) {
        return *status;
    }
    options.max_decode_ns_given = app.count("--max-decode-ns") != 0;
    options.max_table_mb_given = app.count("--max-table-mb") != 0;
    options.opt_level_given = app.count("--opt-level") != 0;
    try {
        return run(options);
    } catch (const std::exception& bug) {
        std::cerr << "tcgen: internal error: " << bug.what() << "\n";
        return exit_internal_error;
    }
}

}  // namespace tcgen::tune
