// tcgen-threads: the traces of a multi-threaded run (tcgen-tracer) as one
// file per thread, by the run's thread log (--threads, THR1), and back, byte
// for byte (docs/threads.md).
//
//   split LOG OUTDIR KIND=FILE...   OUTDIR/KIND.tTHREAD per kind and thread:
//                                   the kind's header, then that thread's
//                                   records in order; OUTDIR/index.tsv lists
//                                   them (file, kind, thread, records).
//   join LOG DIR KIND OUT           OUT: the interleaved trace again, from
//                                   DIR/KIND.tTHREAD and the log.
//
// The log alone says where each thread's runs go: run i of thread t holds the
// kind's records from the log's count at run i to its count at run i + 1
// (the last run: to the end of the file). So a per-thread file needs nothing
// beyond its records, and each thread's coder sees only its own history.
//
// Memory is one buffer per open file, never a trace: both directions stream
// the log and the traces; split holds one open file per thread and kind (a
// thread number is the run's: one per thread it started).

#include <CLI/CLI.hpp>

#include <dirent.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "common/command_line.hpp"
#include "common/files.hpp"
#include "common/output.hpp"

namespace {

using tcgen::FileError;
using tcgen::FilePtr;
using tcgen::open_input;
using tcgen::Output;

constexpr char program[] = "tcgen-threads";
constexpr char log_magic[4] = {'T', 'H', 'R', '1'};
constexpr std::size_t log_columns = 8;
constexpr std::size_t log_record_size = 4 + 8 * log_columns;  // u32 thread, u64 count per column
constexpr std::size_t buffer_bytes = 1 << 16;                  // per open file

// A trace kind: its name, the log column that counts it, its header and its
// record size (tracer/README.md).
struct Kind {
    const char* name;
    std::size_t column;
    const char* header;  // "" for ChampSim, whose files are bare records
    std::size_t record_size;
};

constexpr Kind kinds[] = {
    {"stores", 0, "STA1", 12},   {"misses", 1, "CMA1", 12},   {"loads", 2, "LDV1", 12},
    {"champsim", 3, "", 64},     {"branches", 4, "BRA1", 17}, {"wet-flow", 5, "WTF1", 4},
    {"wet-events", 6, "WTE2", 24}, {"wet-edges", 7, "WTD2", 16},
};

const Kind& find_kind(const std::string& name, const std::string& where) {
    std::string known;
    for (const Kind& kind : kinds) {
        if (name == kind.name) {
            return kind;
        }
        known += (known.empty() ? "" : ", ") + std::string(kind.name);
    }
    throw FileError(where, "unknown kind '" + name + "' (known: " + known + ")");
}

std::string thread_file(const std::string& directory, const Kind& kind, std::uint32_t thread) {
    return directory + "/" + kind.name + ".t" + std::to_string(thread);
}

// Reads up to `size` bytes; fewer only at the end of the file.
std::size_t read_fully(std::FILE* file, const std::string& path, std::uint8_t* data, std::size_t size) {
    std::size_t have = 0;
    while (have < size) {
        const std::size_t got = std::fread(data + have, 1, size - have, file);
        if (got == 0) {
            break;
        }
        have += got;
    }
    if (std::ferror(file)) {
        throw FileError(path, std::string("cannot read: ") + std::strerror(errno));
    }
    return have;
}

// One run of the log: the thread that ran and, per column, how many records
// of that kind had been written when it started.
struct Run {
    std::uint32_t thread = 0;
    std::uint64_t counts[log_columns] = {};
};

// Streams the log's runs, checked: the header, whole records, at least one
// run, the first at record 0 of every kind, no count going back.
class LogReader {
public:
    explicit LogReader(const std::string& path) : path_(path), file_(open_input(path)) {
        char got[sizeof log_magic];
        if (std::fread(got, 1, sizeof got, file_.get()) != sizeof got ||
            std::memcmp(got, log_magic, sizeof got) != 0) {
            throw FileError(path_, "not a thread log of tcgen-tracer --threads (no THR1 header)");
        }
        std::setvbuf(file_.get(), nullptr, _IOFBF, buffer_bytes);
    }

    // The next run, or nullopt after the last.
    std::optional<Run> next() {
        std::uint8_t record[log_record_size];
        const std::size_t got = read_fully(file_.get(), path_, record, sizeof record);
        if (got == 0) {
            if (runs_ == 0) {
                throw FileError(path_, "no thread runs");
            }
            return std::nullopt;
        }
        if (got != sizeof record) {
            throw FileError(path_, "truncated: ends " + std::to_string(got) + " bytes into run " +
                                       std::to_string(runs_ + 1) + " (a run is " +
                                       std::to_string(log_record_size) + " bytes)");
        }
        Run run;
        run.thread = little_endian(record, 4);
        for (std::size_t column = 0; column < log_columns; ++column) {
            run.counts[column] = little_endian(record + 4 + 8 * column, 8);
            const std::uint64_t before = runs_ == 0 ? 0 : previous_.counts[column];
            if (run.counts[column] < before || (runs_ == 0 && run.counts[column] != 0)) {
                throw FileError(path_, "run " + std::to_string(runs_ + 1) + ": the " + kinds[column].name +
                                           " count goes from " + std::to_string(before) + " to " +
                                           std::to_string(run.counts[column]));
            }
        }
        previous_ = run;
        ++runs_;
        return run;
    }

    const std::string& path() const { return path_; }

private:
    static std::uint64_t little_endian(const std::uint8_t* bytes, std::size_t size) {
        std::uint64_t value = 0;
        for (std::size_t i = size; i-- > 0;) {
            value = value << 8 | bytes[i];
        }
        return value;
    }

    std::string path_;
    FilePtr file_;
    Run previous_;
    std::uint64_t runs_ = 0;
};

// A trace of one kind, read a record count at a time.
class TraceInput {
public:
    TraceInput(std::string path, const Kind& kind)
        : path_(std::move(path)), kind_(kind), file_(open_input(path_)),
          buffer_(buffer_bytes / kind.record_size * kind.record_size) {
        const std::size_t header_size = std::strlen(kind.header);
        char got[4];
        if (read_fully(file_.get(), path_, reinterpret_cast<std::uint8_t*>(got), header_size) != header_size ||
            std::memcmp(got, kind.header, header_size) != 0) {
            throw FileError(path_, std::string("not a ") + kind.name + " trace (no " + kind.header + " header)");
        }
    }

    // Copies up to `wanted` records to `out`; fewer only at the end of the
    // file. Returns how many it copied.
    std::uint64_t copy_to(Output& out, std::uint64_t wanted) {
        const std::size_t size = kind_.record_size;
        std::uint64_t copied = 0;
        while (copied < wanted) {
            const std::uint64_t left = wanted - copied;
            const std::size_t bytes = left < buffer_.size() / size ? left * size : buffer_.size();
            const std::size_t got = read_fully(file_.get(), path_, buffer_.data(), bytes);
            if (got % size != 0) {
                throw FileError(path_, "truncated: ends " + std::to_string(got % size) + " bytes into a " +
                                           std::to_string(size) + "-byte " + kind_.name + " record, after record " +
                                           std::to_string(records_ + got / size));
            }
            out.write(buffer_.data(), got);
            copied += got / size;
            records_ += got / size;
            if (got < bytes) {
                break;
            }
        }
        return copied;
    }

    bool at_end() {
        const int c = std::fgetc(file_.get());
        if (c == EOF) {
            return true;
        }
        std::ungetc(c, file_.get());
        return false;
    }

    std::uint64_t records() const { return records_; }
    const std::string& path() const { return path_; }

private:
    std::string path_;
    const Kind& kind_;
    FilePtr file_;
    std::vector<std::uint8_t> buffer_;
    std::uint64_t records_ = 0;
};

// The runs of one kind, in order: calls take(thread, first record, records)
// per run, records = nullopt for the last (to the end of the file).
template <typename Take>
void for_each_run(const std::string& log_path, const Kind& kind, Take take) {
    LogReader log(log_path);
    std::optional<Run> run = log.next();
    while (run) {
        std::optional<Run> following = log.next();
        const std::uint64_t first = run->counts[kind.column];
        take(run->thread, first,
             following ? std::optional<std::uint64_t>(following->counts[kind.column] - first) : std::nullopt);
        run = following;
    }
}

struct SplitFile {
    std::string name;
    const Kind* kind;
    std::uint32_t thread;
    std::uint64_t records;
    std::unique_ptr<Output> output;
};

// One kind's trace into per-thread files (added to `files`, finished, not
// yet committed: the files of every kind appear together).
void split_kind(const std::string& log_path, const std::string& directory, const Kind& kind,
                const std::string& trace_path, std::vector<SplitFile>& files) {
    TraceInput trace(trace_path, kind);
    std::map<std::uint32_t, std::size_t> file_of_thread;
    for_each_run(log_path, kind, [&](std::uint32_t thread, std::uint64_t first, std::optional<std::uint64_t> records) {
        auto found = file_of_thread.find(thread);
        if (found == file_of_thread.end()) {
            const std::string name = std::string(kind.name) + ".t" + std::to_string(thread);
            auto output = std::make_unique<Output>(directory + "/" + name, buffer_bytes);
            output->write(kind.header, std::strlen(kind.header));
            files.push_back({name, &kind, thread, 0, std::move(output)});
            found = file_of_thread.emplace(thread, files.size() - 1).first;
        }
        SplitFile& file = files[found->second];
        const std::uint64_t copied = trace.copy_to(*file.output, records.value_or(UINT64_MAX));
        file.records += copied;
        if (records && copied < *records) {
            throw FileError(trace_path, "has " + std::to_string(trace.records()) + " records, but the log " +
                                            log_path + " counts at least " + std::to_string(first + *records));
        }
    });
    for (const auto& [thread, index] : file_of_thread) {
        files[index].output->close();
    }
}

// Whether `name` is KIND.tTHREAD of a known kind: a file split may write.
bool is_thread_file_name(const std::string& name) {
    for (const Kind& kind : kinds) {
        const std::string prefix = std::string(kind.name) + ".t";
        if (name.size() > prefix.size() && name.compare(0, prefix.size(), prefix) == 0 &&
            name.find_first_not_of("0123456789", prefix.size()) == std::string::npos) {
            return true;
        }
    }
    return false;
}

// Removes the KIND.tTHREAD files of an earlier split into the same
// directory that this split's index does not list: left there, they would
// pass for this run's threads (a `for f in DIR/KIND.t*` loop reads them).
void remove_stale_thread_files(const std::string& directory, const std::vector<SplitFile>& files) {
    std::unique_ptr<DIR, int (*)(DIR*)> listing(::opendir(directory.c_str()), ::closedir);
    if (!listing) {
        throw FileError(directory, std::string("cannot list: ") + std::strerror(errno));
    }
    std::vector<std::string> stale;
    while (const dirent* entry = ::readdir(listing.get())) {
        const std::string name = entry->d_name;
        if (!is_thread_file_name(name)) {
            continue;
        }
        bool listed = false;
        for (const SplitFile& file : files) {
            listed = listed || file.name == name;
        }
        if (!listed) {
            stale.push_back(name);
        }
    }
    for (const std::string& name : stale) {
        const std::string path = directory + "/" + name;
        if (::unlink(path.c_str()) != 0 && errno != ENOENT) {
            throw FileError(path, std::string("cannot remove (left by an earlier split): ") + std::strerror(errno));
        }
    }
}

int run_split(const std::string& log_path, const std::string& directory, const std::vector<std::string>& traces) {
    std::vector<std::pair<const Kind*, std::string>> inputs;
    for (const std::string& argument : traces) {
        const std::size_t equals = argument.find('=');
        if (equals == std::string::npos || equals == 0 || equals + 1 == argument.size()) {
            throw FileError(argument, "expected KIND=FILE");
        }
        const Kind& kind = find_kind(argument.substr(0, equals), argument);
        for (const auto& input : inputs) {
            if (input.first == &kind) {
                throw FileError(argument, std::string("a second ") + kind.name + " trace");
            }
        }
        inputs.emplace_back(&kind, argument.substr(equals + 1));
    }
    LogReader(log_path).next();  // a log that is no log is named before any trace
    const bool created = ::mkdir(directory.c_str(), 0777) == 0;
    if (!created && errno != EEXIST) {
        throw FileError(directory, std::string("cannot create: ") + std::strerror(errno));
    }
    try {
        std::vector<SplitFile> files;
        for (const auto& [kind, path] : inputs) {
            split_kind(log_path, directory, *kind, path, files);
        }
        Output index(directory + "/index.tsv", buffer_bytes);
        std::string text = "file\tkind\tthread\trecords\n";
        for (const SplitFile& file : files) {
            text += file.name + "\t" + file.kind->name + "\t" + std::to_string(file.thread) + "\t" +
                    std::to_string(file.records) + "\n";
        }
        index.write(text.data(), text.size());
        index.close();
        for (SplitFile& file : files) {
            file.output->commit();
        }
        index.commit();
        remove_stale_thread_files(directory, files);
    } catch (...) {
        if (created) {
            ::rmdir(directory.c_str());  // the temporaries are gone by now
        }
        throw;
    }
    return 0;
}

int run_join(const std::string& log_path, const std::string& directory, const std::string& kind_name,
             const std::string& out_path) {
    const Kind& kind = find_kind(kind_name, kind_name);
    LogReader(log_path).next();
    Output out(out_path, buffer_bytes);
    out.write(kind.header, std::strlen(kind.header));
    std::map<std::uint32_t, std::unique_ptr<TraceInput>> thread_inputs;
    for_each_run(log_path, kind, [&](std::uint32_t thread, std::uint64_t, std::optional<std::uint64_t> records) {
        std::unique_ptr<TraceInput>& input = thread_inputs[thread];
        if (!input) {
            input = std::make_unique<TraceInput>(thread_file(directory, kind, thread), kind);
        }
        const std::uint64_t copied = input->copy_to(out, records.value_or(UINT64_MAX));
        if (records && copied < *records) {
            throw FileError(input->path(), "ends after " + std::to_string(input->records()) +
                                               " records, but the log " + log_path + " gives thread " +
                                               std::to_string(thread) + " at least " +
                                               std::to_string(input->records() - copied + *records));
        }
    });
    for (const auto& [thread, input] : thread_inputs) {
        if (!input->at_end()) {
            throw FileError(input->path(), "more records than the log " + log_path + " gives thread " +
                                               std::to_string(thread) + " (" + std::to_string(input->records()) +
                                               ")");
        }
    }
    out.commit();
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    CLI::App app{"tcgen-threads: the traces of a multi-threaded run as one file per thread, by the run's thread "
                 "log (tcgen-tracer --threads), and back byte for byte",
                 program};
    std::string log;
    std::string directory;
    std::vector<std::string> traces;
    std::string kind;
    std::string out;
    CLI::App* split = app.add_subcommand("split", "Write DIR/KIND.tTHREAD per kind and thread, and DIR/index.tsv");
    split->add_option("LOG", log, "The run's thread log (tcgen-tracer --threads, THR1)")->required();
    split->add_option("DIR", directory, "The directory to write into (made if missing)")->required();
    split->add_option("KIND=FILE", traces,
                      "A trace of the run; KIND one of stores, misses, loads, champsim, branches, wet-flow, "
                      "wet-events, wet-edges")
        ->required();
    CLI::App* join = app.add_subcommand("join", "Write OUT, the KIND trace interleaved again, from DIR and LOG");
    join->add_option("LOG", log, "The run's thread log")->required();
    join->add_option("DIR", directory, "The directory of tcgen-threads split")->required();
    join->add_option("KIND", kind, "The kind to join")->required();
    join->add_option("OUT", out, "The trace to write")->required();

    return tcgen::cli::run_subcommands(app, argc, argv, program, [&] {
        return split->parsed() ? run_split(log, directory, traces) : run_join(log, directory, kind, out);
    });
}
