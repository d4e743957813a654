// wet: builds a Whole Execution Trace from the raw files of
// `tcgen-tracer --wet=PREFIX` and queries it (docs/wet.md). The output of
// each query is pinned (one item per line, fields separated by one space,
// hex with 0x, decimal otherwise) so that scripts and the reference
// implementation in tests/wet compare it byte for byte.

#include <CLI/CLI.hpp>

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <iterator>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <tcgen/wet.hpp>
#include <tcgen/wet/queries.hpp>

#include "common/command_line.hpp"
#include "common/output.hpp"
#include "common/text_output.hpp"
#include "wet/tools/report.hpp"
#include "wet/tools/traced_run.hpp"

namespace {

using tcgen::cli::UsageError;
using tcgen::wet::WetError;
using tcgen::wet::WholeExecutionTrace;

using Output = tcgen::TextOutput;
using tcgen::hex_text;

// A PC as 0x-hex or decimal.
std::uint64_t parse_number(const std::string& text, const char* what) {
    const bool is_hex = text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X');
    const std::string digits = is_hex ? text.substr(2) : text;
    const char* allowed = is_hex ? "0123456789abcdefABCDEF" : "0123456789";
    if (digits.empty() || digits.find_first_not_of(allowed) != std::string::npos ||
        digits.size() > (is_hex ? 16u : 20u)) {
        throw UsageError(std::string(what) + " '" + text + "' is not a number (0x-hex or decimal)");
    }
    errno = 0;
    const unsigned long long value = std::strtoull(digits.c_str(), nullptr, is_hex ? 16 : 10);
    if (errno == ERANGE) {
        throw UsageError(std::string(what) + " '" + text + "' is too large");
    }
    return value;
}

// A size of memory: a decimal number of bytes, or of KiB, MiB or GiB with
// a suffix K, M or G ("512M", "2G").
std::uint64_t parse_size(const std::string& text, const char* what) {
    std::string digits = text;
    unsigned shift = 0;
    if (!digits.empty()) {
        switch (digits.back()) {
            case 'K':
            case 'k':
                shift = 10;
                break;
            case 'M':
            case 'm':
                shift = 20;
                break;
            case 'G':
            case 'g':
                shift = 30;
                break;
            default:
                break;
        }
    }
    if (shift != 0) {
        digits.pop_back();
    }
    if (digits.empty() || digits.find_first_not_of("0123456789") != std::string::npos || digits.size() > 19) {
        throw UsageError(std::string(what) + " '" + text + "' is not a size (bytes, or a number and K, M or G)");
    }
    const std::uint64_t value = std::stoull(digits);
    if (value > (UINT64_MAX >> shift)) {
        throw UsageError(std::string(what) + " '" + text + "' is too large");
    }
    return value << shift;
}

// --symbols: after a pc, what the WET's symbols say of it ("main+26
// (histogram.c:16)"); nothing when off.
class SymbolColumn {
public:
    SymbolColumn(WholeExecutionTrace& wet, const std::string& file, bool on) : wet_(wet), on_(on) {
        if (on && !wet.has_symbols()) {
            throw WetError(file, "--symbols: this WET has none (its trace has no PREFIX.syms)");
        }
    }
    void append(Output& out, std::uint64_t pc) {
        if (on_) {
            const std::optional<tcgen::wet::Symbol> symbol = wet_.symbol(pc);
            out.ch(' ').text(symbol ? symbol->text() : "?");
        }
    }

private:
    WholeExecutionTrace& wet_;
    bool on_;
};

// A PC as 0x-hex or decimal, or a name the WET's symbols know: a function
// ("tally") or a source line ("histogram.c:24") with exactly one
// instruction that accesses memory (for a slice, when none does, exactly
// one instruction).
std::uint64_t parse_pc(WholeExecutionTrace& wet, const std::string& file, const std::string& text,
                       bool memory_access_only) {
    if (!text.empty() && text[0] >= '0' && text[0] <= '9') {
        return parse_number(text, "PC");
    }
    if (!wet.has_symbols()) {
        throw WetError(file, "PC '" + text + "' is not a number, and this WET has no symbols to look it up in");
    }
    const std::vector<std::uint64_t> named = wet.pcs_named(text);
    if (named.empty()) {
        throw WetError(file, "no function or source line '" + text + "' in the symbols (a function by its whole "
                             "name, a line as FILE:LINE)");
    }
    std::vector<std::uint64_t> pcs;
    std::copy_if(named.begin(), named.end(), std::back_inserter(pcs),
                 [&](std::uint64_t pc) { return !wet.nodes_at_pc(pc).empty(); });
    if (pcs.empty() && !memory_access_only) {
        pcs = named;
    }
    if (pcs.size() != 1) {
        std::string listed;
        for (std::size_t i = 0; i < pcs.size() && i < 4; ++i) {
            const std::optional<tcgen::wet::Symbol> symbol = wet.symbol(pcs[i]);
            listed += (i == 0 ? ": " : ", ") + hex_text(pcs[i]) + (symbol ? " " + symbol->text() : "");
        }
        throw WetError(file, "'" + text + "' has " + std::to_string(pcs.size()) + " instructions" +
                                 (pcs.empty() || memory_access_only || named.size() != pcs.size()
                                      ? " that access memory"
                                      : "") +
                                 (pcs.size() > 4 ? listed + ", ..." : listed) +
                                 (pcs.empty() ? "" : "; give one by its pc"));
    }
    return pcs.front();
}

void print_progress(std::string_view step, std::uint64_t done, std::uint64_t total) {
    std::fprintf(stderr, "\rwet: %-20.*s %3llu%%", static_cast<int>(step.size()), step.data(),
                 static_cast<unsigned long long>(total == 0 ? 100 : done * 100 / total));
    std::fflush(stderr);
}

// `wet build`'s and `wet run`'s options, as given.
struct BuildSettings {
    std::string checkpoint;
    std::string threads;
    std::string memory;
};

// `wet build` and `wet run`: the WET that build(progress, checkpoint,
// threads, memory) makes, saved.
template <typename Build>
int build_wet(const Build& build, const std::string& output, const BuildSettings& settings) {
    std::uint64_t checkpoint = WholeExecutionTrace::default_checkpoint_records;
    if (!settings.checkpoint.empty()) {
        checkpoint = parse_number(settings.checkpoint, "--checkpoint-every");
        if (checkpoint == 0) {
            throw UsageError("--checkpoint-every: 0 records; give 1 or more");
        }
    }
    // More threads than a machine runs at once gain nothing: a bound keeps
    // a mistyped count from asking for thousands.
    constexpr std::uint64_t most_threads = 1024;
    std::uint64_t threads = 1;
    if (!settings.threads.empty()) {
        threads = parse_number(settings.threads, "--threads");
        if (threads > most_threads) {
            throw UsageError("--threads: " + settings.threads + " threads; give 0 (one per core) to " +
                             std::to_string(most_threads));
        }
    }
    std::uint64_t memory = 0;
    if (!settings.memory.empty()) {
        memory = parse_size(settings.memory, "--memory");
        // (A size in bytes where MB were meant would spill every label for nothing.)
        if (memory < WholeExecutionTrace::least_build_memory) {
            throw UsageError("--memory '" + settings.memory + "' is below the least cap, " +
                             std::to_string(WholeExecutionTrace::least_build_memory >> 20) +
                             "M (a size is in bytes, or a number and K, M or G)");
        }
    }
    const auto started = std::chrono::steady_clock::now();
    const bool terminal = isatty(STDERR_FILENO) != 0;
    WholeExecutionTrace wet =
        build(terminal ? print_progress : nullptr, checkpoint, static_cast<unsigned>(threads), memory);
    if (terminal) {
        std::fprintf(stderr, "\r%40s\r", "");
    }
    wet.save(output);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    const tcgen::wet::LabelStats total = wet.stats().back();
    // This process's own CPU time and peak (not the tracer's, under `wet run`).
    struct rusage usage {};
    ::getrusage(RUSAGE_SELF, &usage);
    const auto cpu_seconds = [](const timeval& time) { return double(time.tv_sec) + double(time.tv_usec) / 1e6; };
    std::fprintf(stderr,
                 "wet: %s: %u timestamps, %zu blocks, %zu nodes, %llu events, %llu defs; %llu raw label bytes -> "
                 "%llu bytes (%.1fx) in %.2f s, CPU %.2f s, peak memory %.0f MB\n",
                 output.c_str(), wet.executed(), wet.block_count(), wet.node_count(),
                 static_cast<unsigned long long>(wet.events()), static_cast<unsigned long long>(wet.edges()),
                 static_cast<unsigned long long>(total.raw_bytes),
                 static_cast<unsigned long long>(total.compressed_bytes),
                 total.compressed_bytes == 0 ? 0.0 : double(total.raw_bytes) / double(total.compressed_bytes), seconds,
                 cpu_seconds(usage.ru_utime) + cpu_seconds(usage.ru_stime), double(usage.ru_maxrss) * 1024 / 1e6);
    return 0;
}

int run_build(const std::string& prefix, const std::string& output, const BuildSettings& settings) {
    // The events never all in memory, nor the edges after they are read:
    // through temporary files beside the output
    // (WholeExecutionTrace::build_from_files).
    return build_wet(
        [&](const WholeExecutionTrace::Progress& progress, std::uint64_t checkpoint, unsigned threads,
            std::uint64_t memory) {
            if (progress) {
                progress("reading and checking", 0, 1);
            }
            return WholeExecutionTrace::build_from_files(prefix, output, progress, checkpoint, threads, memory);
        },
        output, settings);
}

int run_traced(const std::string& output, const std::vector<std::string>& command, const BuildSettings& settings) {
    return build_wet(
        [&](const WholeExecutionTrace::Progress& progress, std::uint64_t checkpoint, unsigned threads,
            std::uint64_t memory) {
            // The run's raw files, kept compressed while it ran, built from
            // as `wet build` builds from files.
            std::optional<WholeExecutionTrace> wet;
            tcgen::wet::tools::traced_run(output, command, [&](const std::string& prefix) {
                wet.emplace(
                    WholeExecutionTrace::build_from_files(prefix, output, progress, checkpoint, threads, memory));
            });
            return std::move(*wet);
        },
        output, settings);
}

int run_stats(const std::string& file) {
    WholeExecutionTrace wet = WholeExecutionTrace::load(file);
    std::printf("%-20s %12s %14s %14s %8s %14s\n", "labels", "count", "raw bytes", "compressed", "ratio", "memory bytes");
    for (const tcgen::wet::LabelStats& row : wet.stats()) {
        char ratio[32] = "-";
        if (row.compressed_bytes != 0 && row.raw_bytes != 0) {
            std::snprintf(ratio, sizeof ratio, "%.2f", double(row.raw_bytes) / double(row.compressed_bytes));
        }
        std::printf("%-20s %12llu %14llu %14llu %8s %14llu\n", row.name.c_str(),
                    static_cast<unsigned long long>(row.labels), static_cast<unsigned long long>(row.raw_bytes),
                    static_cast<unsigned long long>(row.compressed_bytes), ratio,
                    static_cast<unsigned long long>(row.memory_bytes));
    }
    return 0;
}

// The hottest blocks, loads and stores: "B COUNT 0xPC ID" (a block's
// executions, its first pc, its id as wpp and `cf --ids` print it), then
// "L COUNT 0xPC" and "S COUNT 0xPC" (an instruction's executions: its
// distinct timestamps); most executed first, ties by pc; `count` of each.
int run_top(const std::string& file, const std::string& count_text, bool symbols) {
    WholeExecutionTrace wet = WholeExecutionTrace::load(file);
    SymbolColumn symbol(wet, file, symbols);
    const std::uint64_t count = count_text.empty() ? 10 : parse_number(count_text, "--count");
    Output out;
    for (const tcgen::wet::TopRow& row : tcgen::wet::top(wet, count)) {
        out.ch(row.kind).ch(' ').dec(row.executions).ch(' ').hex(row.pc);
        if (row.kind == 'B') {
            out.ch(' ').dec(row.id);
        }
        symbol.append(out, row.pc);
        out.ch('\n');
    }
    return 0;
}

int run_cf(const std::string& file, const std::string& from_text, bool backward, const std::string& count_text,
           bool ids, bool symbols) {
    WholeExecutionTrace wet = WholeExecutionTrace::load(file);
    SymbolColumn symbol(wet, file, symbols);
    std::uint64_t count = count_text.empty() ? UINT64_MAX : parse_number(count_text, "--count");
    std::uint64_t from = 0;
    if (!from_text.empty()) {
        from = parse_number(from_text, "--from");
        if (from == 0 || from > wet.executed()) {
            throw WetError(file, "--from=" + from_text + " is outside 1.." + std::to_string(wet.executed()));
        }
    } else if (wet.executed() == 0) {
        return 0;
    } else {
        from = backward ? wet.executed() : 1;
    }
    auto cursor = wet.control_flow(static_cast<std::uint32_t>(backward ? from : from - 1));
    Output out;
    tcgen::wet::FlowStep step;
    for (; count > 0 && (backward ? cursor.prev(step) : cursor.next(step)); --count) {
        out.dec(step.t).ch(' ').hex(wet.block(step.block).pc);
        if (ids) {
            out.ch(' ').dec(step.block);
        }
        symbol.append(out, wet.block(step.block).pc);
        out.ch('\n');
    }
    return 0;
}

// A timestamp option (--from, --until): 1 or more.
std::uint32_t parse_timestamp(const std::string& text, const char* option) {
    const std::uint64_t t = parse_number(text, option);
    if (t == 0 || t > UINT32_MAX) {
        throw UsageError(std::string(option) + "=" + text + " is not a timestamp (1 or more)");
    }
    return static_cast<std::uint32_t>(t);
}

// The lines of a query that fit: from timestamp --from on, at most --count.
struct Window {
    std::uint32_t from = 0;  // 0: the query's own start
    std::uint64_t count = UINT64_MAX;
};

Window parse_window(const std::string& from_text, const std::string& count_text) {
    Window window;
    if (!from_text.empty()) {
        window.from = parse_timestamp(from_text, "--from");
    }
    if (!count_text.empty()) {
        window.count = parse_number(count_text, "--count");
    }
    return window;
}

int run_accesses(const std::string& file, const std::string& pc_text, bool addresses, const Window& window) {
    WholeExecutionTrace wet = WholeExecutionTrace::load(file);
    const std::uint64_t pc = parse_pc(wet, file, pc_text, true);
    Output out;
    std::uint64_t left = window.count;
    for (const tcgen::wet::Access& access : wet.accesses(pc)) {
        if (left == 0) {
            break;
        }
        if (access.t < window.from) {
            continue;
        }
        --left;
        out.dec(access.t).ch(' ').ch(access.access).ch(' ').dec(access.slot).ch(' ');
        out.hex(addresses ? access.address : access.value).ch('\n');
    }
    return 0;
}

// Where a def or a slice starts: pc's INSTANCE-th distinct timestamp, or the
// timestamp --at gives. Exactly one of them.
tcgen::wet::QueryStart parse_start(WholeExecutionTrace& wet, const std::string& file, const std::string& pc_text,
                                   const std::string& instance_text, const std::string& at_text,
                                   bool memory_access_only) {
    const std::uint64_t pc = parse_pc(wet, file, pc_text, memory_access_only);
    if (instance_text.empty() == at_text.empty()) {
        throw UsageError(instance_text.empty() ? "give INSTANCE or --at=T" : "give INSTANCE or --at=T, not both");
    }
    if (!instance_text.empty()) {
        tcgen::wet::QueryStart start;
        start.pc = pc;
        start.instance = parse_number(instance_text, "INSTANCE");
        return start;
    }
    return tcgen::wet::start_at(wet, pc, parse_number(at_text, "--at"), "--at=" + at_text);
}

int run_def(const std::string& file, const std::string& pc_text, const std::string& instance_text,
            const std::string& at_text, bool symbols) {
    WholeExecutionTrace wet = WholeExecutionTrace::load(file);
    SymbolColumn symbol(wet, file, symbols);
    const tcgen::wet::QueryStart start = parse_start(wet, file, pc_text, instance_text, at_text, true);
    Output out;
    for (const tcgen::wet::LoadDef& load : tcgen::wet::load_defs(wet, start)) {
        out.dec(load.t).text(" L ").dec(load.slot).text(" <- ");
        if (load.def) {
            out.dec(load.def->t).text(" S ").dec(wet.node(load.def->node).slot).ch(' ');
            out.hex(wet.node(load.def->node).pc);
            symbol.append(out, wet.node(load.def->node).pc);
            out.ch('\n');
        } else {
            out.text("none\n");
        }
    }
    return 0;
}

// One HTML page about the run (report.hpp), written as every output is:
// complete under its name or not at all.
int run_report(const std::string& file, const std::string& page_path) {
    WholeExecutionTrace wet = WholeExecutionTrace::load(file);
    const std::size_t slash = file.find_last_of('/');
    const std::string page = tcgen::wet::report::html(wet, slash == std::string::npos ? file : file.substr(slash + 1));
    tcgen::Output out(page_path);
    out.write(page.data(), page.size());
    out.close();
    out.commit();
    return 0;
}

// The slice's lines are printed as the walk finds them, a timestamp at a
// time, so that a slice of any size takes the walk's memory, not its own.
int run_slice(const std::string& file, const std::string& pc_text, const std::string& instance_text,
              const std::string& at_text, const Window& window, const std::string& until_text, bool symbols) {
    WholeExecutionTrace wet = WholeExecutionTrace::load(file);
    SymbolColumn symbol(wet, file, symbols);
    const tcgen::wet::QueryStart start = parse_start(wet, file, pc_text, instance_text, at_text, false);
    tcgen::wet::SliceWindow slice_window;
    slice_window.from = window.from == 0 ? UINT32_MAX : window.from;
    slice_window.until = until_text.empty() ? 1 : parse_timestamp(until_text, "--until");
    slice_window.count = static_cast<std::size_t>(std::min<std::uint64_t>(window.count, SIZE_MAX));
    tcgen::wet::WholeExecutionTrace::SliceWalk walk = tcgen::wet::slice_walk(wet, start, slice_window);
    {
        Output out;
        std::vector<tcgen::wet::SliceItem> items;
        while (walk.next(items)) {
            for (const tcgen::wet::SliceItem& item : items) {
                out.dec(item.t).ch(' ').ch(item.kind).ch(' ').hex(item.pc).ch(' ');
                if (item.kind == 'B' || item.kind == 'R') {  // no slot: a branch, an instruction writing registers
                    out.ch('-');
                } else {
                    out.dec(item.slot);
                }
                symbol.append(out, item.pc);
                out.ch('\n');
            }
        }
    }
    std::fflush(stdout);
    const bool windowed = window.from != 0 || window.count != UINT64_MAX || !until_text.empty();
    std::fprintf(stderr, windowed ? "slice: %llu items shown\n" : "slice: %llu items\n",
                 static_cast<unsigned long long>(walk.items_found()));
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    CLI::App app{"wet: builds a Whole Execution Trace from the raw files of tcgen-tracer --wet=PREFIX and queries it "
                 "(docs/wet.md).",
                 "wet"};
    std::string prefix, file, pc, instance, at, from, count, checkpoint;
    bool backward = false;
    CLI::App* build =
        app.add_subcommand("build", "Reads PREFIX.blocks/.flow/.nodes/.events/.edges (and .regs), writes OUT.wet");
    build->add_option("PREFIX", prefix, "The prefix given to tcgen-tracer --wet=")->required();
    build->add_option("OUT", file, "The WET file to write")->required();
    std::vector<std::string> command;
    CLI::App* run = app.add_subcommand(
        "run", "Runs PROGRAM under tcgen-tracer --wet and builds OUT.wet from what it writes, no raw file on disk");
    run->add_option("OUT", file, "The WET file to write")->required();
    run->add_option("COMMAND", command, "[TRACER OPTIONS] PROGRAM [ARGS...], after --")->required();
    std::string threads;
    std::string memory;
    for (CLI::App* command_line : {build, run}) {
        command_line->add_option("--checkpoint-every", checkpoint,
                                 "Records between two checkpoints of a stream (default 4096): a seek walks fewer")
            ->type_name("N");
        command_line
            ->add_option("-T,--threads", threads,
                         "Make the labels and compress the frames on N threads (default 1; 0: one per core): "
                         "the same file whatever N")
            ->type_name("N");
        command_line
            ->add_option("--memory", memory,
                         "Hold what grows with the run near SIZE (bytes, or K, M, G): the labels made go to "
                         "temporary files beside OUT as they are made; the same file whatever SIZE")
            ->type_name("SIZE");
    }
    CLI::App* stats = app.add_subcommand("stats", "Raw, compressed and resident bytes per kind of label");
    stats->add_option("WET", file, "A file written by wet build")->required();
    CLI::App* cf = app.add_subcommand("cf", "The executed blocks, 'T 0xPC' per line");
    cf->add_option("WET", file, "A file written by wet build")->required();
    cf->add_option("--from", from, "First timestamp (default 1, or the last with --backward)")->type_name("T");
    cf->add_flag("--backward", backward, "Walk from --from back to 1");
    cf->add_option("--count", count, "At most N lines")->type_name("N");
    bool ids = false;
    cf->add_flag("--ids", ids, "Print each block's id too ('T 0xPC ID'), as wpp and `top` name blocks");
    bool symbols = false;
    CLI::App* top = app.add_subcommand(
        "top", "The most executed blocks, loads and stores: 'B COUNT 0xPC ID', 'L COUNT 0xPC', 'S COUNT 0xPC'");
    top->add_option("WET", file, "A file written by wet build")->required();
    top->add_option("--count", count, "N of each (default 10)")->type_name("N");
    CLI::App* values = app.add_subcommand("values", "Every execution of PC's accesses: 'T KIND SLOT 0xVALUE'");
    CLI::App* addresses = app.add_subcommand("addresses", "Every execution of PC's accesses: 'T KIND SLOT 0xADDRESS'");
    for (CLI::App* command : {values, addresses}) {
        command->add_option("WET", file, "A file written by wet build")->required();
        command->add_option("PC", pc, "The instruction's address, 0x-hex or decimal, or a FUNCTION or FILE:LINE "
                                      "with one instruction that accesses memory")
            ->required();
        command->add_option("--from", from, "Only executions at timestamp T or later")->type_name("T");
        command->add_option("--count", count, "At most N lines")->type_name("N");
    }
    CLI::App* def = app.add_subcommand(
        "def", "The store each load of PC read from, at PC's INSTANCE-th timestamp or at timestamp --at");
    CLI::App* slice = app.add_subcommand(
        "slice", "The backward dynamic slice from PC at its INSTANCE-th timestamp or at timestamp --at");
    for (CLI::App* command : {def, slice}) {
        command->add_option("WET", file, "A file written by wet build")->required();
        command->add_option("PC", pc, "The instruction's address, 0x-hex or decimal, or a FUNCTION or FILE:LINE "
                                      "with one instruction that accesses memory")
            ->required();
        command->add_option("INSTANCE", instance, "1 for the first timestamp at which PC executed, 2 the second...");
        command->add_option("--at", at, "PC's execution at timestamp T (as `values` and `cf` print it)")
            ->type_name("T");
    }
    std::string page;
    CLI::App* report = app.add_subcommand(
        "report", "One self-contained HTML page about the run: hottest functions, blocks and loads, control flow, a slice");
    report->add_option("WET", file, "A file written by wet build")->required();
    report->add_option("OUT", page, "The page to write (replaced if it exists), e.g. report.html")->required();
    for (CLI::App* command : {cf, top, def, slice}) {
        command->add_flag("-s,--symbols", symbols,
                          "After each pc, what the debug information says of it: 'FUNCTION+N (FILE:LINE)'");
    }
    slice->add_option("--from", from, "Only items at timestamp T or earlier")->type_name("T");
    std::string until;
    slice->add_option("--until", until, "Only items at timestamp T or later (the walk stops there)")->type_name("T");
    slice->add_option("--count", count, "At most N items (the walk stops there)")->type_name("N");
    // The streams throw without naming the WET they belong to: it is `file`,
    // the one a query reads (never build's output: its inputs name themselves).
    std::string queried;
    return tcgen::cli::run_subcommands(
        app, argc, argv, "wet",
        [&] {
            queried = build->parsed() || run->parsed() ? "" : file;
            return build->parsed()       ? run_build(prefix, file, BuildSettings{checkpoint, threads, memory})
                   : run->parsed()       ? run_traced(file, command, BuildSettings{checkpoint, threads, memory})
                   : stats->parsed()     ? run_stats(file)
                   : cf->parsed()        ? run_cf(file, from, backward, count, ids, symbols)
                   : top->parsed()       ? run_top(file, count, symbols)
                   : values->parsed()    ? run_accesses(file, pc, false, parse_window(from, count))
                   : addresses->parsed() ? run_accesses(file, pc, true, parse_window(from, count))
                   : def->parsed()       ? run_def(file, pc, instance, at, symbols)
                   : report->parsed()    ? run_report(file, page)
                                         : run_slice(file, pc, instance, at, parse_window(from, count), until, symbols);
        },
        &queried);
}
