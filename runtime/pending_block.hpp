#pragma once
// A block between the codec and the file (ContainerWriter): its streams,
// taken from the codec's writers, compressed by every candidate back-end on
// a TaskPool, one task per stream and candidate, the largest streams first
// so that no thread is left with a big one at the end. finish() keeps the
// smallest output of each stream (BackendChoice's rule, applied exactly as
// its sequential compress() applies it, so the file does not depend on the
// threads).

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "backends.hpp"
#include "streams.hpp"
#include "task_pool.hpp"

namespace tcgen_runtime {

class PendingBlock {
public:
    // The streams of the block, which the file lists in this order.
    std::vector<StreamWriter> streams;
    std::uint64_t record_count = 0;
    // Each stream's back-end, once finish() has chosen.
    std::vector<Backend> chosen;
    // Between take() and finish().
    bool waiting = false;

    // Takes the contents of from[0..stream_count) (each is left empty) and
    // the block's records: `records` itself if the caller keeps them until
    // finish(), else a copy.
    void take(const std::uint8_t* records, std::uint64_t count, StreamWriter* from, std::size_t stream_count,
              std::size_t record_bytes, bool copy_records) {
        streams.resize(stream_count);
        for (std::size_t stream = 0; stream < stream_count; ++stream) {
            std::swap(streams[stream], from[stream]);
            from[stream].clear();
        }
        record_count = count;
        if (copy_records) {
            record_copy_.assign(records, records + static_cast<std::size_t>(count) * record_bytes);
            records_ = record_copy_.data();
        } else {
            records_ = records;
        }
        waiting = true;
    }

    // Starts the back-ends on `tasks`; contents[stream] says what each
    // stream holds.
    void start(TaskPool& tasks, const BackendChoice& backend, unsigned level, const StreamContent* contents) {
        contents_ = contents;
        outputs_.resize(streams.size() * slots_per_stream);
        order_.clear();
        for (std::size_t stream = 0; stream < streams.size(); ++stream) {
            for (std::size_t candidate = 0; candidate < backend.candidate_count(contents[stream], level); ++candidate) {
                order_.push_back({stream, candidate});
            }
        }
        std::stable_sort(order_.begin(), order_.end(), [this](const Task& a, const Task& b) {
            return streams[a.stream].size() > streams[b.stream].size();
        });
        tasks.start(order_.size(), [this, backend, level](std::size_t index) {
            const Task task = order_[index];
            backend_compress(backend.candidate(contents_[task.stream], level, task.candidate),
                             streams[task.stream].data(), streams[task.stream].size(),
                             output(task.stream, task.candidate), level);
        });
    }

    // Waits for the back-ends, keeps each stream's smallest output and runs
    // the longer search where BackendChoice::searches_longer says.
    void finish(TaskPool& tasks, const BackendChoice& backend, unsigned level) {
        tasks.wait();
        chosen.resize(streams.size());
        kept_.resize(streams.size());
        longer_.clear();
        for (std::size_t stream = 0; stream < streams.size(); ++stream) {
            std::size_t best = 0;
            for (std::size_t candidate = 1; candidate < backend.candidate_count(contents_[stream], level); ++candidate) {
                if (output(stream, candidate).size() < output(stream, best).size()) {
                    best = candidate;
                }
            }
            kept_[stream] = best;
            chosen[stream] = backend.candidate(contents_[stream], level, best);
            if (BackendChoice::searches_longer(chosen[stream], streams[stream].size(),
                                               output(stream, best).size(), level)) {
                longer_.push_back(stream);
            }
        }
        tasks.run(longer_.size(), [this](std::size_t index) {
            const std::size_t stream = longer_[index];
            BackendChoice::compress_longer(chosen[stream], streams[stream].data(), streams[stream].size(),
                                           output(stream, kept_[stream]), output(stream, scratch_slot));
        });
        waiting = false;
    }

    // The output kept for `stream` (after finish()).
    const std::vector<std::uint8_t>& compressed(std::size_t stream) const {
        return outputs_[stream * slots_per_stream + kept_[stream]];
    }

    const std::uint8_t* records() const { return records_; }

private:
    // Per stream: one output per candidate (two at most), then the scratch
    // of the longer search.
    static constexpr std::size_t scratch_slot = 2;
    static constexpr std::size_t slots_per_stream = 3;

    struct Task {
        std::size_t stream;
        std::size_t candidate;
    };

    std::vector<std::uint8_t>& output(std::size_t stream, std::size_t slot) {
        return outputs_[stream * slots_per_stream + slot];
    }

    const StreamContent* contents_ = nullptr;
    std::vector<std::vector<std::uint8_t>> outputs_;
    std::vector<Task> order_;           // the tasks, largest stream first
    std::vector<std::size_t> kept_;     // per stream: the candidate kept
    std::vector<std::size_t> longer_;   // the streams of the longer search
    std::vector<std::uint8_t> record_copy_;
    const std::uint8_t* records_ = nullptr;
};

}  // namespace tcgen_runtime
