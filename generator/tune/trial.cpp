#include "generator/tune/trial.hpp"

#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>

#include "generator/backend/canonical_printer.hpp"
#include "generator/backend/codegen.hpp"
#include "generator/backend/context_layout.hpp"
#include "generator/backend/encoding.hpp"
#include "generator/backend/runtime_source.hpp"
#include "generator/frontend/diagnostics.hpp"
#include "generator/plan/planner.hpp"
#include "generator/tune/process.hpp"
#include "runtime/checksum.hpp"

namespace tcgen::tune {

namespace {

std::optional<std::string> read_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        return std::nullopt;
    }
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// The first line of a tool's messages, for a one-line error.
std::string first_line(const std::string& path) {
    std::optional<std::string> text = read_file(path);
    if (!text || text->empty()) {
        return "no messages";
    }
    std::string line = text->substr(0, text->find('\n'));
    return line.size() > 200 ? line.substr(0, 200) + "..." : line;
}

// Adds one sample's usage counts to the sum over the samples.
void add_usage(UsageCounts& total, const UsageCounts& sample) {
    if (total.size() < sample.size()) {
        total.resize(sample.size());
    }
    for (std::size_t field = 0; field < sample.size(); ++field) {
        std::vector<std::uint64_t>& hits = total[field];
        if (hits.size() < sample[field].size()) {
            hits.resize(sample[field].size(), 0);
        }
        for (std::size_t code = 0; code < sample[field].size(); ++code) {
            hits[code] += sample[field][code];
        }
    }
}

std::string failure_text(const ProcessResult& result) {
    return result.signal != 0 ? "killed by signal " + std::to_string(result.signal)
                              : "exit status " + std::to_string(result.exit_status);
}

// The plan tcgen makes of a candidate, or nothing (and why, as an error that
// rules the candidate out) when tcgen refuses it.
std::optional<CodePlan> plan_candidate(const Candidate& candidate, TrialError& error) {
    SourceFile file("candidate.tcg", spec_text(candidate));
    DiagnosticSink sink(file);
    std::optional<CodePlan> code_plan = compile_to_plan(file, sink);
    if (!code_plan) {
        std::vector<Diagnostic> diagnostics = sink.diagnostics();
        error = {false, diagnostics.empty() ? "refused" : diagnostics.front().message};
    }
    return code_plan;
}

// What the search knows of a candidate before it is measured.
Measurement planned_measurement(const CodePlan& code_plan) {
    Measurement measurement;
    measurement.spec = tcgen::spec_text(code_plan.spec);
    measurement.fingerprint = encoding_fingerprint(code_plan);
    measurement.table_bytes = allocated_table_bytes(code_plan);  // as the program allocates them
    return measurement;
}

}  // namespace

Figures figures_of(const Measurement& measurement) {
    return {measurement.sample_compressed_bytes, measurement.sample_decode_ns, measurement.sample_records};
}

std::string Trials::path(std::uint64_t fingerprint, const std::string& suffix) const {
    std::string hex = fingerprint_text(fingerprint);
    return settings_.work_dir + "/" + hex.substr(2) + suffix;
}

std::string Trials::run_path(std::uint64_t fingerprint, std::size_t sample, const std::string& suffix) const {
    return path(fingerprint, "." + std::to_string(sample + 1) + "." + suffix);
}

std::optional<Measurement> Trials::plan(const Candidate& candidate, TrialError& error) const {
    std::optional<CodePlan> code_plan = plan_candidate(candidate, error);
    if (!code_plan) {
        return std::nullopt;
    }
    return planned_measurement(*code_plan);
}

std::string Trials::cache_path(const std::string& source_text, const std::vector<std::string>& flags) const {
    std::string key = settings_.compiler_identity;
    for (const std::string& word : flags) {
        key += '\0' + word;
    }
    key += '\0' + source_text;
    return settings_.cache_dir + "/" + fingerprint_text(tcgen_runtime::fingerprint64(key)).substr(2);
}

bool Trials::build(const std::string& source_text, std::uint64_t fingerprint, TrialError& error) const {
    const std::string source = path(fingerprint, ".cpp");
    const std::string binary = path(fingerprint, "");
    const std::string log = path(fingerprint, ".log");
    std::vector<std::string> flags = settings_.compiler;
    flags.insert(flags.end(), settings_.compiler_flags.begin(), settings_.compiler_flags.end());
    flags.emplace_back("-pthread");
    const std::vector<std::string> link_flags = backend_link_flags();
    flags.insert(flags.end(), link_flags.begin(), link_flags.end());
    const std::string cached = settings_.cache_dir.empty() ? "" : cache_path(source_text, flags);
    std::error_code failed;
    if (!cached.empty() && std::filesystem::copy_file(cached, binary, failed)) {
        return true;
    }
    {
        std::ofstream out(source, std::ios::binary);
        out << source_text;
        if (!out.flush()) {
            error = {true, "cannot write '" + source + "'"};
            return false;
        }
    }
    std::vector<std::string> command = flags;
    // The sources before the libraries that they need.
    command.insert(command.begin() + static_cast<std::ptrdiff_t>(flags.size() - link_flags.size()),
                   {"-o", binary, source});
    ProcessResult compiled = run_process(command, "", log, log);
    if (interrupted()) {
        error = {true, "interrupted"};
        return false;
    }
    if (!compiled.started) {
        error = {true, "cannot run the C++ compiler '" + settings_.compiler.front() + "': " + compiled.error +
                           " (set CXX or --cxx)"};
        return false;
    }
    if (compiled.exit_status != 0) {
        error = {true, "the C++ compiler '" + settings_.compiler.front() + "' failed on a generated compressor (" +
                           failure_text(compiled) + "): " + first_line(log)};
        return false;
    }
    if (!cached.empty()) {
        // Under a name of its own first, then renamed: a tuner running
        // beside this one never takes a half-written compressor. A cache
        // that cannot be written only costs the next run a build.
        const std::string partial = path(fingerprint, ".cached");
        if (std::filesystem::copy_file(binary, partial, failed)) {
            std::filesystem::rename(partial, cached, failed);
            if (failed) {
                std::filesystem::remove(partial, failed);
            }
        }
    }
    return true;
}

std::optional<Measurement> Trials::measure(const Candidate& candidate, bool& fresh, TrialError& error) {
    fresh = false;
    // The compressor is generated from this one plan, so that a candidate
    // tcgen refuses is ruled out here, never dereferenced below.
    std::optional<CodePlan> code_plan = plan_candidate(candidate, error);
    if (!code_plan) {
        return std::nullopt;
    }
    std::optional<Measurement> measurement = planned_measurement(*code_plan);
    auto known = measured_.find(measurement->fingerprint);
    if (known != measured_.end()) {
        return known->second;
    }
    fresh = true;
    const std::uint64_t fingerprint = measurement->fingerprint;
    const std::string binary = path(fingerprint, "");
    if (!build(generate_compressor(*code_plan), fingerprint, error)) {
        return std::nullopt;
    }
    // --report: the usage report the moves are chosen from, on stderr.
    std::vector<std::string> run = {binary, "--report"};
    if (!settings_.backend.empty()) {
        run.push_back("--backend=" + settings_.backend);
    }
    for (std::size_t sample = 0; sample < settings_.sample_paths.size(); ++sample) {
        const std::string packed = run_path(fingerprint, sample, "tcz");
        const std::string report = run_path(fingerprint, sample, "report");
        ProcessResult ran = run_process(run, settings_.sample_paths[sample], packed, report);
        if (interrupted()) {
            error = {true, "interrupted"};
            return std::nullopt;
        }
        if (!ran.started || ran.exit_status != 0) {
            error = {false, "its compressor failed on the sample '" + settings_.sample_paths[sample] + "' (" +
                                (ran.started ? failure_text(ran) : ran.error) + "): " + first_line(report)};
            return std::nullopt;
        }
        std::optional<std::string> packed_bytes = read_file(packed);
        std::optional<std::string> report_text = read_file(report);
        if (!packed_bytes || !report_text) {
            error = {true, "cannot read the output of a candidate in '" + settings_.work_dir + "'"};
            return std::nullopt;
        }
        measurement->compressed_bytes += packed_bytes->size();
        measurement->sample_compressed_bytes.push_back(packed_bytes->size());
        measurement->cpu_seconds += ran.cpu_seconds;
        add_usage(measurement->usage, parse_usage_report(*report_text, candidate.fields.size()));
        // Decoding its own output, to nowhere: the CPU time of the
        // decompressor alone, the median of a few runs.
        std::vector<double> decode_seconds;
        const std::string decode_log = run_path(fingerprint, sample, "dlog");
        for (unsigned repetition = 0; repetition < decode_repetitions; ++repetition) {
            ProcessResult decoded = run_process({binary, "-d"}, packed, "", decode_log);
            if (interrupted()) {
                error = {true, "interrupted"};
                return std::nullopt;
            }
            if (!decoded.started || decoded.exit_status != 0) {
                error = {true, "a candidate's decompressor failed on its own output (" +
                                   (decoded.started ? failure_text(decoded) : decoded.error) +
                                   "): " + first_line(decode_log)};
                return std::nullopt;
            }
            decode_seconds.push_back(decoded.cpu_seconds);
        }
        const std::uint64_t records = sample < settings_.sample_records.size() ? settings_.sample_records[sample] : 0;
        measurement->sample_records.push_back(records);
        measurement->sample_decode_ns.push_back(
            records == 0 ? 0.0 : median(decode_seconds) * 1e9 / static_cast<double>(records));
    }
    measurement->decode_ns = decode_ns_per_record(figures_of(*measurement));
    measured_[fingerprint] = *measurement;
    return measurement;
}

bool Trials::round_trips(const Measurement& measurement, TrialError& error) const {
    for (std::size_t sample = 0; sample < settings_.sample_paths.size(); ++sample) {
        const std::string unpacked = run_path(measurement.fingerprint, sample, "out");
        const std::string log = run_path(measurement.fingerprint, sample, "dlog");
        ProcessResult ran = run_process({path(measurement.fingerprint, ""), "-d"},
                                        run_path(measurement.fingerprint, sample, "tcz"), unpacked, log);
        if (!ran.started || ran.exit_status != 0) {
            error = {true, "the best candidate's decompressor failed (" +
                               (ran.started ? failure_text(ran) : ran.error) + "): " + first_line(log)};
            return false;
        }
        std::optional<std::string> original = read_file(settings_.sample_paths[sample]);
        std::optional<std::string> back = read_file(unpacked);
        if (!original || !back || *original != *back) {
            error = {true, "the best candidate's decompressor did not give the sample '" +
                               settings_.sample_paths[sample] + "' back byte for byte"};
            return false;
        }
    }
    return true;
}

}  // namespace tcgen::tune
