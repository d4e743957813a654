// wet-query-bench: the WET paper's query timings (its Tables V-VIII) on one
// saved WET. Loads OUT.wet, then times, each on the thread's CPU clock:
// - the whole control-flow trace, forward from t = 1 and backward from the
//   end (Table V);
// - the first query after the load that needs a block's timestamps (one
//   pc's executions), which derives them from the control flow;
// - every instruction's access trace, one instruction at a time: the
//   values, addresses and timestamps of all its executions, loads then
//   stores (Tables VI and VII; the WET keeps a node's values and addresses
//   side by side, so one query yields both);
// - seeks of the control flow to random timestamps, each followed by one
//   step (the "seek anywhere" goal);
// - backward dynamic slices from random load executions (Table VIII).
// - with --threads=N, the same slices again, on one new thread and then
//   shared out among N threads querying the one WET at once (thread k
//   walks slices k, k + N, ...), each twice: a first round in which each
//   thread makes its own cursors and caches, a second that finds them; the
//   wall-clock and CPU seconds of each round.
// Prints tab-separated `key=value` pairs on one line (bench/wet.py reads them):
//
//   wet-query-bench OUT.wet [--slices=N] [--seeks=N] [--no-traces] [--trace-pcs=N] [--slice-items=N] [--threads=N]
//
// --no-traces skips the access traces, so the slices run on a WET whose
// blocks' timestamps are not all derived (as right after a load).
// For a run too long to query whole in a bench's time: --trace-pcs=N times
// the access traces of N instructions of each kind, taken at random, rather
// than of every one (the rates are what the tables show), and
// --slice-items=N stops each slice once it has found N items (as `wet slice
// --count=N`). Both are printed with the figures they bound.
//
// Random choices come from a fixed seed, so two runs on one file time the
// same queries. Exit status 1 with one line on a bad argument or file.

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <iostream>
#include <map>
#include <mutex>
#include <random>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <time.h>

#include <tcgen/wet/whole_execution_trace.hpp>

namespace {

double cpu_seconds() {
    timespec now{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
    return static_cast<double>(now.tv_sec) + static_cast<double>(now.tv_nsec) * 1e-9;
}

// The process's resident pages, from /proc/self/status: anonymous ones (the
// heap, where a loaded WET lives) and file-backed ones (the code and
// read-only data of the program and its libraries, which a load touches the
// first time and a second WET would not add to).
struct Resident {
    std::uint64_t anonymous = 0;
    std::uint64_t file = 0;
};
Resident resident() {
    std::FILE* file = std::fopen("/proc/self/status", "r");
    if (file == nullptr) {
        throw std::runtime_error("cannot read /proc/self/status");
    }
    Resident pages;
    bool anonymous_seen = false;
    bool file_seen = false;
    char line[256];
    unsigned long long kilobytes = 0;
    while (std::fgets(line, sizeof line, file) != nullptr) {
        if (std::sscanf(line, "RssAnon: %llu kB", &kilobytes) == 1) {
            pages.anonymous = kilobytes * 1024;
            anonymous_seen = true;
        } else if (std::sscanf(line, "RssFile: %llu kB", &kilobytes) == 1) {
            pages.file = kilobytes * 1024;
            file_seen = true;
        }
    }
    std::fclose(file);
    if (!anonymous_seen || !file_seen) {
        throw std::runtime_error("no RssAnon and RssFile in /proc/self/status");
    }
    return pages;
}

double median(std::vector<double> values) {
    if (values.empty()) {
        return 0;
    }
    std::sort(values.begin(), values.end());
    const std::size_t middle = values.size() / 2;
    return values.size() % 2 == 1 ? values[middle] : (values[middle - 1] + values[middle]) / 2;
}

unsigned parse_count(const std::string& argument, const std::string& prefix) {
    try {
        std::size_t used = 0;
        const unsigned long value = std::stoul(argument.substr(prefix.size()), &used);
        if (used == argument.size() - prefix.size()) {
            return static_cast<unsigned>(value);
        }
    } catch (const std::exception&) {
    }
    throw std::runtime_error("bad count in " + argument);
}

using SliceStart = std::pair<std::uint64_t, std::uint64_t>;  // pc, instance

double process_cpu_seconds() {
    timespec now{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now);
    return static_cast<double>(now.tv_sec) + static_cast<double>(now.tv_nsec) * 1e-9;
}

// One round of slices on several threads: its wall-clock and CPU seconds
// (all the process's threads) and the items found.
struct Round {
    double wall_seconds = 0;
    double cpu_seconds = 0;
    std::uint64_t items = 0;
};

// The slices from `starts` shared out among `threads` threads querying
// `wet` at once (thread k walks slices k, k + threads, ...), twice on the
// same threads: the first round makes each thread's cursors and caches
// (its sweeps of loads, stores' columns, decoded frames), the second finds
// them made, as a pool of threads that keeps querying would.
std::pair<Round, Round> slices_on_threads(const tcgen::wet::WholeExecutionTrace& wet,
                                          const std::vector<SliceStart>& starts, const tcgen::wet::SliceWindow& window,
                                          unsigned threads) {
    std::vector<std::uint64_t> found(2 * std::size_t{threads}, 0);
    std::vector<std::string> errors(threads);
    std::mutex mutex;
    std::condition_variable changed;
    unsigned round = 0;     // the round the threads may run (0 or 1); 2: done
    unsigned finished = 0;  // threads done with the round
    const auto run_round = [&](unsigned worker, unsigned number) {
        std::vector<tcgen::wet::SliceItem> items;
        for (std::size_t index = worker; index < starts.size(); index += threads) {
            auto walk = wet.slice_walk(starts[index].first, starts[index].second, window);
            while (walk.next(items)) {
            }
            found[number * threads + worker] += walk.items_found();
        }
    };
    std::vector<std::thread> workers;
    for (unsigned worker = 0; worker < threads; ++worker) {
        workers.emplace_back([&, worker] {
            for (unsigned number = 0; number < 2; ++number) {
                {
                    std::unique_lock<std::mutex> lock(mutex);
                    changed.wait(lock, [&] { return round >= number; });
                }
                try {
                    run_round(worker, number);
                } catch (const std::exception& error) {
                    errors[worker] = error.what();
                }
                const std::lock_guard<std::mutex> lock(mutex);
                ++finished;
                changed.notify_all();
            }
        });
    }
    std::pair<Round, Round> rounds;
    for (unsigned number = 0; number < 2; ++number) {
        Round& timed = number == 0 ? rounds.first : rounds.second;
        const auto begin = std::chrono::steady_clock::now();
        const double cpu_begin = process_cpu_seconds();
        std::unique_lock<std::mutex> lock(mutex);
        round = number;
        changed.notify_all();
        changed.wait(lock, [&] { return finished == (number + 1) * threads; });
        timed.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
        timed.cpu_seconds = process_cpu_seconds() - cpu_begin;
        for (unsigned worker = 0; worker < threads; ++worker) {
            timed.items += found[number * threads + worker];
        }
    }
    for (std::thread& worker : workers) {
        worker.join();
    }
    for (const std::string& error : errors) {
        if (!error.empty()) {
            throw std::runtime_error(error);
        }
    }
    return rounds;
}

// What the options ask of run(); 0 for trace_pcs and slice_items: no bound.
struct Options {
    unsigned slices = 25;
    unsigned seeks = 101;
    bool traces = true;
    unsigned trace_pcs = 0;
    unsigned slice_items = 0;
    unsigned threads = 1;
};

void run(const std::string& path, const Options& options) {
    const unsigned slices = options.slices;
    const unsigned seeks = options.seeks;
    const unsigned threads = options.threads;
    using tcgen::wet::WholeExecutionTrace;
    const Resident before = resident();
    double start = cpu_seconds();
    WholeExecutionTrace wet = WholeExecutionTrace::load(path);
    const double load_seconds = cpu_seconds() - start;
    const Resident after = resident();
    std::cout << "load_s=" << load_seconds << "\tresident_bytes=" << after.anonymous - before.anonymous
              << "\tcode_pages_bytes=" << after.file - before.file << "\tmemory_bytes=" << wet.memory_bytes();

    // Seeks' and slices' random choices come from one generator, seeks
    // first: the same with or without a sample of the traces.
    std::mt19937_64 random(20051);
    std::vector<std::uint32_t> seek_ts;
    for (unsigned seek = 0; seek < seeks && wet.executed() > 0; ++seek) {
        seek_ts.push_back(static_cast<std::uint32_t>(1 + random() % wet.executed()));
    }

    // Control flow, both ways. The forward walk counts each block's
    // executions (the instructions executed are summed from them after the
    // clock stops): a count per block, not the run's every block, which
    // for a billion-instruction run is a GB.
    std::vector<std::uint64_t> block_executions(wet.block_count());
    std::uint64_t forward_steps = 0;
    tcgen::wet::FlowStep step;
    start = cpu_seconds();
    auto cursor = wet.control_flow(0);
    while (cursor.next(step)) {
        ++block_executions[step.block];
    }
    const double forward_seconds = cpu_seconds() - start;
    std::uint64_t backward_steps = 0;
    start = cpu_seconds();
    cursor = wet.control_flow(wet.executed());
    while (cursor.prev(step)) {
        ++backward_steps;
    }
    const double backward_seconds = cpu_seconds() - start;
    std::uint64_t instructions = 0;
    for (std::uint32_t block = 0; block < block_executions.size(); ++block) {
        forward_steps += block_executions[block];
        instructions += block_executions[block] * wet.block(block).instructions;
    }
    if (forward_steps != wet.executed() || backward_steps != wet.executed()) {
        throw std::runtime_error(path + ": a control-flow walk did not yield every timestamp");
    }
    std::cout << "\tinstructions=" << instructions << "\texecuted=" << wet.executed()
              << "\tcf_forward_s=" << forward_seconds << "\tcf_backward_s=" << backward_seconds;
    // The block at each seek's timestamp, which the seek must read, from
    // one more walk forward (not timed).
    std::map<std::uint32_t, std::uint32_t> block_at;
    for (const std::uint32_t t : seek_ts) {
        block_at.emplace(t, 0);
    }
    cursor = wet.control_flow(0);
    for (auto wanted = block_at.begin(); wanted != block_at.end() && cursor.next(step);) {
        if (step.t == wanted->first) {
            wanted->second = step.block;
            ++wanted;
        }
    }

    // Every instruction's access trace, loads first, then stores.
    std::vector<std::uint64_t> load_pcs;
    std::vector<std::uint64_t> store_pcs;
    for (std::uint32_t node = 0; node < wet.node_count(); ++node) {
        (wet.node(node).access == 'L' ? load_pcs : store_pcs).push_back(wet.node(node).pc);
    }
    for (auto* pcs : {&load_pcs, &store_pcs}) {
        std::sort(pcs->begin(), pcs->end());
        pcs->erase(std::unique(pcs->begin(), pcs->end()), pcs->end());
    }
    const auto time_accesses = [&](const std::vector<std::uint64_t>& pcs, const char* name) {
        std::uint64_t accesses = 0;
        const double begin = cpu_seconds();
        for (const std::uint64_t pc : pcs) {
            for (const auto& access : wet.accesses(pc)) {
                accesses += access.access == name[0] ? 1 : 0;
            }
        }
        std::cout << "\t" << name << "_accesses=" << accesses << "\t" << name << "_s=" << cpu_seconds() - begin;
    };
    // The first query that needs a block's timestamps after the load: one
    // pc's executions (the timestamps are derived from the control flow).
    if (!load_pcs.empty()) {
        const double begin = cpu_seconds();
        const std::size_t instances = wet.instances(load_pcs[load_pcs.size() / 2]).size();
        std::cout << "\tfirst_instances_s=" << cpu_seconds() - begin << "\tfirst_instances=" << instances;
    }
    if (options.traces) {
        std::mt19937_64 sampling(1127);
        const auto traced = [&](std::vector<std::uint64_t> pcs) {
            if (options.trace_pcs != 0 && pcs.size() > options.trace_pcs) {
                std::shuffle(pcs.begin(), pcs.end(), sampling);
                pcs.resize(options.trace_pcs);
                std::sort(pcs.begin(), pcs.end());
            }
            return pcs;
        };
        const std::vector<std::uint64_t> traced_loads = traced(load_pcs);
        const std::vector<std::uint64_t> traced_stores = traced(store_pcs);
        std::cout << "\tL_pcs=" << traced_loads.size() << "\tS_pcs=" << traced_stores.size();
        time_accesses(traced_loads, "L");
        time_accesses(traced_stores, "S");
    }

    // Seeks: the control flow at a random timestamp.
    std::vector<double> seek_times;
    for (const std::uint32_t t : seek_ts) {
        const double begin = cpu_seconds();
        auto place = wet.control_flow(t - 1);
        place.next(step);
        seek_times.push_back(cpu_seconds() - begin);
        if (step.t != t || step.block != block_at.at(t)) {
            throw std::runtime_error(path + ": a seek to t " + std::to_string(t) + " read the wrong block");
        }
    }
    std::cout << "\tseek_median_s=" << median(seek_times)
              << "\tseek_max_s=" << (seek_times.empty() ? 0 : *std::max_element(seek_times.begin(), seek_times.end()));

    // Slices from random executions of random loads.
    tcgen::wet::SliceWindow window;
    if (options.slice_items != 0) {
        window.count = options.slice_items;
    }
    std::vector<double> slice_times;
    std::vector<double> slice_items;
    std::vector<SliceStart> slice_starts;
    for (unsigned slice = 0; slice < slices && !load_pcs.empty(); ++slice) {
        const std::uint64_t pc = load_pcs[random() % load_pcs.size()];
        const std::size_t instances = static_cast<std::size_t>(wet.instance_count(pc));
        const std::uint64_t instance = 1 + random() % instances;
        slice_starts.emplace_back(pc, instance);
        const double begin = cpu_seconds();
        // Walked as `wet slice` walks it: the items handed out a timestamp
        // at a time, never all held.
        auto walk = wet.slice_walk(pc, instance, window);
        std::vector<tcgen::wet::SliceItem> items;
        while (walk.next(items)) {
        }
        slice_times.push_back(cpu_seconds() - begin);
        slice_items.push_back(static_cast<double>(walk.items_found()));
    }
    std::cout << "\tslices=" << slice_times.size() << "\tslice_items_cap=" << options.slice_items
              << "\tslice_median_s=" << median(slice_times) << "\tslice_max_s="
              << (slice_times.empty() ? 0 : *std::max_element(slice_times.begin(), slice_times.end()))
              << "\tslice_items_median=" << median(slice_items) << "\tslowest_slice_items="
              << (slice_times.empty()
                      ? 0
                      : slice_items[static_cast<std::size_t>(std::max_element(slice_times.begin(), slice_times.end()) -
                                                             slice_times.begin())]);

    if (threads > 1) {
        const auto [one_cold, one_warm] = slices_on_threads(wet, slice_starts, window, 1);
        const auto [cold, warm] = slices_on_threads(wet, slice_starts, window, threads);
        for (const Round* round : {&one_warm, &cold, &warm}) {
            if (round->items != one_cold.items) {
                throw std::runtime_error(path + ": a round of slices found " + std::to_string(round->items) +
                                         " items, one thread " + std::to_string(one_cold.items));
            }
        }
        std::cout << "\tthreads=" << threads << "\tround_items=" << one_cold.items;
        const auto print = [](const char* name, const Round& round) {
            std::cout << "\t" << name << "_wall_s=" << round.wall_seconds << "\t" << name
                      << "_cpu_s=" << round.cpu_seconds << "\t" << name
                      << "_items_per_s=" << static_cast<double>(round.items) / round.wall_seconds;
        };
        print("one_thread_cold", one_cold);
        print("one_thread_warm", one_warm);
        print("threads_cold", cold);
        print("threads_warm", warm);
    }
    std::cout << "\n";
}

}  // namespace

int main(int argc, char** argv) {
    try {
        std::string path;
        Options options;
        for (int index = 1; index < argc; ++index) {
            const std::string argument = argv[index];
            if (argument.rfind("--slices=", 0) == 0) {
                options.slices = parse_count(argument, "--slices=");
            } else if (argument.rfind("--seeks=", 0) == 0) {
                options.seeks = parse_count(argument, "--seeks=");
            } else if (argument.rfind("--trace-pcs=", 0) == 0) {
                options.trace_pcs = parse_count(argument, "--trace-pcs=");
            } else if (argument.rfind("--slice-items=", 0) == 0) {
                options.slice_items = parse_count(argument, "--slice-items=");
            } else if (argument.rfind("--threads=", 0) == 0) {
                options.threads = std::max(parse_count(argument, "--threads="), 1u);
            } else if (argument == "--no-traces") {
                options.traces = false;
            } else if (path.empty() && argument.rfind("-", 0) != 0) {
                path = argument;
            } else {
                throw std::runtime_error("unknown argument " + argument +
                                         " (usage: wet-query-bench OUT.wet [--slices=N] [--seeks=N] [--no-traces] "
                                         "[--trace-pcs=N] [--slice-items=N] [--threads=N])");
            }
        }
        if (path.empty()) {
            throw std::runtime_error(
                "usage: wet-query-bench OUT.wet [--slices=N] [--seeks=N] [--no-traces] [--trace-pcs=N] "
                "[--slice-items=N] [--threads=N]");
        }
        run(path, options);
    } catch (const std::exception& error) {
        std::cerr << "wet-query-bench: " << error.what() << "\n";
        return 1;
    }
    return 0;
}
