// Many threads, one WET: 8 threads query one loaded WET at once (slices,
// slice walks, access traces, defs, control-flow cursors, block lookups,
// control parents, symbols), each in its own order, and every answer must
// be the one a single thread gave first. Run under ThreadSanitizer too
// (scripts/tsan.sh), which checks that the threads share no moving state.
//
// The WET is loaded from bytes, as a user's is: its lazily decoded parts
// (the register dataflow, the flow's index, the blocks' timestamps, the
// symbols) are then first made while the threads race for them.
//
// And one WET built on many threads (the nodes' labels, the shared frames'
// keys and compression): the bytes of the build on one.

#include <cstdint>
#include <filesystem>
#include <functional>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include <tcgen/wet/whole_execution_trace.hpp>

#include "synthetic_wet.hpp"

namespace {

using tcgen::wet::FlowStep;
using tcgen::wet::RawTrace;
using tcgen::wet::SliceItem;
using tcgen::wet::SliceWindow;
using tcgen::wet::WholeExecutionTrace;

constexpr unsigned thread_count = 8;

// One query and its answer as text, so that answers compare whole.
using Query = std::function<std::string(const WholeExecutionTrace&)>;

std::string text_of(const std::vector<SliceItem>& items) {
    std::ostringstream out;
    for (const SliceItem& item : items) {
        out << item.t << item.kind << int{item.slot} << ':' << item.id << '@' << item.pc << ' ';
    }
    return out.str();
}

// A run with a register dataflow and symbols, checkpoints every few records
// so that cursors cross chunks and seeks often.
std::vector<std::uint8_t> saved_wet() {
    RawTrace raw = synthetic_wet::make_trace(240, 11);
    raw.dataflow = synthetic_wet::random_dataflow(raw, 12);
    raw.symbols =
        "0x1000\t/bin/toy\t0x1000\tmain\ttoy.c\t3\n"
        "0x1004\t/bin/toy\t0x1004\tmain+4\ttoy.c\t4\n"
        "0x1048\t/bin/toy\t0x1048\tmain+72\ttoy.c\t7\n"
        "0x2000\t/bin/toy\t0x2000\tf\ttoy.c\t9\n"
        "0x2008\t/bin/toy\t0x2008\tf+8\ttoy.c\t4\n";
    return WholeExecutionTrace::build(raw, nullptr, 16).to_bytes();
}

std::vector<Query> queries(const WholeExecutionTrace& wet) {
    std::vector<Query> list;
    std::set<std::uint64_t> pcs;
    for (std::uint32_t node = 0; node < wet.node_count(); ++node) {
        pcs.insert(wet.node(node).pc);
    }
    const std::uint32_t executed = wet.executed();
    const std::uint32_t stride = std::max<std::uint32_t>(executed / 24, 1);
    for (const std::uint64_t pc : pcs) {
        list.push_back([pc](const WholeExecutionTrace& w) {
            std::ostringstream out;
            for (const auto& access : w.accesses(pc)) {
                out << access.t << access.access << int{access.slot} << ':' << access.value << '@' << access.address
                    << ' ';
            }
            out << "| " << w.instance_count(pc);
            for (const std::uint32_t t : w.instances(pc)) {
                out << ' ' << t;
            }
            return out.str();
        });
        // Slices from a few instances, whole and walked through a window.
        for (const std::uint64_t instance : {1u, 3u, 17u}) {
            list.push_back([pc, instance](const WholeExecutionTrace& w) {
                if (instance > w.instance_count(pc)) {
                    return std::string("none");
                }
                const std::uint32_t t = w.instance_time(pc, instance);
                std::string text = std::to_string(t) + " " + text_of(w.backward_slice(pc, instance)) + "| ";
                SliceWindow window;
                window.from = t > 5 ? t - 5 : t;
                window.count = 40;
                auto walk = w.slice_walk_at(pc, t, window);
                std::vector<SliceItem> items;
                while (walk.next(items)) {
                    text += text_of(items) + "/ ";
                }
                return text + std::to_string(walk.items_found());
            });
        }
    }
    // Every load's def at the timestamps it ran at, and where it did not.
    for (std::uint32_t node = 0; node < wet.node_count(); ++node) {
        list.push_back([node, stride](const WholeExecutionTrace& w) {
            std::ostringstream out;
            for (std::uint32_t t = 1; t <= w.executed(); t += stride % 7 + 1) {
                if (w.executed_at(node, t)) {
                    const auto def = w.def_of(node, t);
                    out << t << (def ? ":" + std::to_string(def->node) + "@" + std::to_string(def->t) : ":-") << ' ';
                }
            }
            return out.str() + "| " + std::to_string(w.node_executions(node));
        });
    }
    // Control-flow cursors from several places, forward then backward, and
    // blocks and control parents by timestamp.
    for (std::uint32_t position = 0; position <= executed; position += stride) {
        list.push_back([position](const WholeExecutionTrace& w) {
            std::ostringstream out;
            auto cursor = w.control_flow(position);
            FlowStep step;
            for (int walked = 0; walked < 40 && cursor.next(step); ++walked) {
                out << step.t << '>' << step.block << ' ';
            }
            for (int walked = 0; walked < 80 && cursor.prev(step); ++walked) {
                out << step.t << '<' << step.block << ' ';
            }
            out << "| " << cursor.position();
            for (std::uint32_t t = std::max<std::uint32_t>(position, 1); t <= w.executed() && t < position + 30; ++t) {
                out << ' ' << w.block_at(t) << '^' << w.control_parent(t);
            }
            return out.str();
        });
    }
    for (std::uint32_t block = 0; block < wet.block_count(); ++block) {
        list.push_back([block](const WholeExecutionTrace& w) { return std::to_string(w.block_executions(block)); });
    }
    // Symbols, by pc and by name.
    for (const std::uint64_t pc : {0x1000u, 0x1004u, 0x1048u, 0x2000u, 0x2008u, 0x3000u}) {
        list.push_back([pc](const WholeExecutionTrace& w) {
            const auto symbol = w.symbol(pc);
            return symbol ? symbol->text() : std::string("unknown");
        });
    }
    for (const char* name : {"main", "f", "toy.c:4", "toy.c:7"}) {
        list.push_back([name](const WholeExecutionTrace& w) {
            std::string text;
            for (const std::uint64_t pc : w.pcs_named(name)) {
                text += std::to_string(pc) + " ";
            }
            return text;
        });
    }
    return list;
}

// Every query's answer, each thread starting at its own place in the list
// and going round it `rounds` times, so that the threads ask different
// things at once and each finds its cursors where its own last query left them.
std::vector<std::vector<std::string>> answers_from_threads(const WholeExecutionTrace& wet,
                                                           const std::vector<Query>& list, unsigned rounds) {
    std::vector<std::vector<std::string>> answers(thread_count, std::vector<std::string>(list.size()));
    std::vector<std::string> errors(thread_count);
    std::vector<std::thread> threads;
    for (unsigned thread = 0; thread < thread_count; ++thread) {
        threads.emplace_back([&, thread] {
            try {
                for (std::size_t step = 0; step < rounds * list.size(); ++step) {
                    const std::size_t query = (step + thread * list.size() / thread_count) % list.size();
                    answers[thread][query] = list[query](wet);
                }
            } catch (const std::exception& error) {
                errors[thread] = error.what();
            }
        });
    }
    for (std::thread& thread : threads) {
        thread.join();
    }
    for (unsigned thread = 0; thread < thread_count; ++thread) {
        EXPECT_EQ(errors[thread], "") << "thread " << thread;
    }
    return answers;
}

void expect_answers(const std::vector<std::vector<std::string>>& answers, const std::vector<std::string>& expected) {
    std::size_t differing = 0;
    for (std::size_t thread = 0; thread < answers.size(); ++thread) {
        for (std::size_t query = 0; query < expected.size(); ++query) {
            if (answers[thread][query] != expected[query] && ++differing <= 5) {
                ADD_FAILURE() << "thread " << thread << ", query " << query << ":\n  " << answers[thread][query]
                              << "\nexpected\n  " << expected[query];
            }
        }
    }
    EXPECT_EQ(differing, 0u);
}

std::vector<std::string> answers_from_one_thread(const WholeExecutionTrace& wet, const std::vector<Query>& list) {
    std::vector<std::string> answers;
    for (const Query& query : list) {
        answers.push_back(query(wet));
    }
    return answers;
}

TEST(WetConcurrentQueries, EightThreadsOnAFreshLoadAnswerAsOneThread) {
    const std::vector<std::uint8_t> bytes = saved_wet();
    const WholeExecutionTrace alone = WholeExecutionTrace::from_bytes(bytes.data(), bytes.size(), "alone.wet");
    const std::vector<Query> list = queries(alone);
    const std::vector<std::string> expected = answers_from_one_thread(alone, list);
    ASSERT_GT(list.size(), 100u);
    // Non-trivial answers: slices with items, defs, symbols.
    EXPECT_NE(expected.back(), "");

    const WholeExecutionTrace shared = WholeExecutionTrace::from_bytes(bytes.data(), bytes.size(), "shared.wet");
    expect_answers(answers_from_threads(shared, list, 2), expected);
}

TEST(WetConcurrentQueries, EightThreadsAfterOneThreadAnswerAlike) {
    // The threads join a WET one thread has queried already: its lazily
    // made parts are there, its first thread's cursors wherever they are.
    const std::vector<std::uint8_t> bytes = saved_wet();
    const WholeExecutionTrace wet = WholeExecutionTrace::from_bytes(bytes.data(), bytes.size(), "run.wet");
    const std::vector<Query> list = queries(wet);
    const std::vector<std::string> expected = answers_from_one_thread(wet, list);
    expect_answers(answers_from_threads(wet, list, 1), expected);
    // And the first thread's own queries still answer alike afterwards.
    EXPECT_EQ(answers_from_one_thread(wet, list), expected);
}

TEST(WetConcurrentQueries, ABuiltWetIsSharedAlike) {
    // Built in memory rather than loaded: the dataflow is held decoded
    // from the start, the blocks' timestamps derived by the build.
    RawTrace raw = synthetic_wet::make_trace(120, 21);
    raw.dataflow = synthetic_wet::random_dataflow(raw, 22);
    const WholeExecutionTrace wet = WholeExecutionTrace::build(raw, nullptr, 16);
    const std::vector<std::uint8_t> bytes = wet.to_bytes();
    const WholeExecutionTrace loaded = WholeExecutionTrace::from_bytes(bytes.data(), bytes.size(), "run.wet");
    const std::vector<Query> list = queries(loaded);
    expect_answers(answers_from_threads(wet, list, 1), answers_from_one_thread(loaded, list));
}

// Long enough for nodes of many chunks and several shared frames, in
// memory and through temporary files beside an output.
TEST(WetConcurrentBuild, ThreadsBuildTheBytesOfOneThread) {
    const std::string directory = testing::TempDir() + "wet_threads_build_test/";
    std::filesystem::remove_all(directory);
    std::filesystem::create_directories(directory);
    const RawTrace raw = synthetic_wet::make_trace(3000, 13);
    constexpr std::uint64_t checkpoint = 64;
    const std::vector<std::uint8_t> one = WholeExecutionTrace::build(raw, nullptr, checkpoint, "", 1).to_bytes();
    for (const unsigned threads : {2U, 8U, 0U}) {
        EXPECT_EQ(WholeExecutionTrace::build(raw, nullptr, checkpoint, "", threads).to_bytes(), one)
            << threads << " threads";
        EXPECT_EQ(WholeExecutionTrace::build(raw, nullptr, checkpoint, directory + "out.wet", threads).to_bytes(), one)
            << threads << " threads, temporary files";
    }
    EXPECT_TRUE(std::filesystem::is_empty(directory));
    std::filesystem::remove_all(directory);
}

}  // namespace
