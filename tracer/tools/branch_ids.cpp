// tcgen-branch-ids: a branch trace (tcgen-tracer --branches, BRA1) as a
// block-id stream plus a side table, and back, byte for byte
// (docs/branch-ids.md).
//
//   split BRANCHES IDS TABLE   IDS: one u32 id per branch record, bare, no
//                              header (what `wpp build --raw` and
//                              examples/branch_ids.tcg read); an id numbers a
//                              distinct (pc, target, taken) outcome, in order
//                              of first appearance.
//                              TABLE: "BIT1", then outcome 0, 1, ... as BRA1
//                              records (u64 pc, u64 target, u8 taken).
//   join IDS TABLE             the branch trace, on standard output.
//
// The id stream is what a context predictor reads well: one 32-bit symbol a
// branch instead of 17 bytes of which the pc and target repeat together.
// Memory is the table's (the distinct outcomes, a program's code size), never
// the trace's: both directions stream the trace.

#include <CLI/CLI.hpp>

#include <sys/stat.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "common/branch_outcomes.hpp"
#include "common/command_line.hpp"
#include "common/files.hpp"
#include "common/output.hpp"
#include "common/record_reader.hpp"

namespace {

using tcgen::BranchOutcomes;
using tcgen::FileError;
using tcgen::FilePtr;
using tcgen::open_input;
using tcgen::Output;
using tcgen::RecordReader;

constexpr char program[] = "tcgen-branch-ids";
constexpr const char (&branch_magic)[4] = tcgen::branch_trace_magic;
constexpr char table_magic[4] = {'B', 'I', 'T', '1'};
constexpr std::size_t record_size = tcgen::branch_record_bytes;
constexpr std::size_t id_size = 4;
constexpr std::uint64_t max_outcomes = std::uint64_t{1} << 32;  // ids are u32

void read_magic(std::FILE* file, const std::string& path, const char (&magic)[4], const char* what) {
    char got[4];
    if (std::fread(got, 1, sizeof got, file) != sizeof got || std::memcmp(got, magic, sizeof got) != 0) {
        throw FileError(path, std::string("not ") + what + " (no " + std::string(magic, sizeof magic) + " header)");
    }
}

int run_split(const std::string& branches, const std::string& ids_path, const std::string& table_path) {
    FilePtr input = open_input(branches);
    read_magic(input.get(), branches, branch_magic, "a branch trace of tcgen-tracer --branches");
    Output ids(ids_path);
    BranchOutcomes outcomes(max_outcomes);
    std::vector<std::uint8_t> out;
    out.reserve(id_size * 65536);
    RecordReader reader(input.get(), branches, record_size, "branch record");
    while (const std::uint8_t* record = reader.next()) {
        const std::optional<std::uint32_t> id = outcomes.id(record);
        if (!id) {
            throw FileError(branches, "more than 2^32 distinct branch outcomes: ids are 32-bit");
        }
        const std::uint8_t le[id_size] = {static_cast<std::uint8_t>(*id), static_cast<std::uint8_t>(*id >> 8),
                                          static_cast<std::uint8_t>(*id >> 16), static_cast<std::uint8_t>(*id >> 24)};
        out.insert(out.end(), le, le + id_size);
        if (out.size() >= id_size * 65536) {
            ids.write(out.data(), out.size());
            out.clear();
        }
    }
    ids.write(out.data(), out.size());
    Output table_file(table_path);
    table_file.write(table_magic, sizeof table_magic);
    table_file.write(outcomes.table().data(), outcomes.table().size());
    ids.close();
    table_file.close();
    ids.commit();
    table_file.commit();
    return 0;
}

// The table's entries, checked: the magic, whole entries, ids 32-bit.
std::vector<std::uint8_t> read_table(const std::string& table_path) {
    FilePtr table_input = open_input(table_path);
    read_magic(table_input.get(), table_path, table_magic, "a side table of tcgen-branch-ids split");
    std::vector<std::uint8_t> table;
    RecordReader reader(table_input.get(), table_path, record_size, "table entry");
    while (const std::uint8_t* entry = reader.next()) {
        if (table.size() / record_size == max_outcomes) {
            throw FileError(table_path, "more than 2^32 entries: ids are 32-bit");
        }
        table.insert(table.end(), entry, entry + record_size);
    }
    return table;
}

// Calls take(id) for each id of the stream, checked against the table.
template <typename Take>
void for_each_id(std::FILE* ids_input, const std::string& ids_path, std::uint64_t entries,
                 const std::string& table_path, Take take) {
    RecordReader reader(ids_input, ids_path, id_size, "id");
    std::uint64_t position = 0;
    while (const std::uint8_t* le = reader.next()) {
        const std::uint32_t id = std::uint32_t{le[0]} | std::uint32_t{le[1]} << 8 | std::uint32_t{le[2]} << 16 |
                                 std::uint32_t{le[3]} << 24;
        if (id >= entries) {
            throw FileError(ids_path, "id " + std::to_string(id) + " at position " + std::to_string(position) +
                                          " is not in " + table_path + " (" + std::to_string(entries) + " entries)");
        }
        take(id);
        ++position;
    }
}

// A stream that can be read twice (a regular file) is checked whole before
// the first byte goes out, as the generated decompressors do: a bad id never
// leaves a partial trace on standard output. A pipe is read once, written
// as it comes.
int run_join(const std::string& ids_path, const std::string& table_path, bool force) {
    tcgen::cli::refuse_binary_on_terminal(force);
    const std::vector<std::uint8_t> table = read_table(table_path);
    const std::uint64_t entries = table.size() / record_size;
    FilePtr ids_input = open_input(ids_path);
    struct stat status {};
    if (::fstat(::fileno(ids_input.get()), &status) == 0 && S_ISREG(status.st_mode)) {
        for_each_id(ids_input.get(), ids_path, entries, table_path, [](std::uint32_t) {});
        if (std::fseek(ids_input.get(), 0, SEEK_SET) != 0) {
            throw FileError(ids_path, std::string("cannot read: ") + std::strerror(errno));
        }
    }
    const std::unique_ptr<Output> out = Output::standard_output();
    out->write(branch_magic, sizeof branch_magic);
    for_each_id(ids_input.get(), ids_path, entries, table_path, [&](std::uint32_t id) {
        out->write(table.data() + std::size_t{id} * record_size, record_size);
    });
    out->commit();
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    CLI::App app{"tcgen-branch-ids: a branch trace (tcgen-tracer --branches) as a block-id stream and a side table, "
                 "and back byte for byte",
                 program};
    std::string branches;
    std::string ids;
    std::string table;
    CLI::App* split = app.add_subcommand("split", "Write BRANCHES as IDS (bare u32 ids) and TABLE (the outcomes)");
    split->add_option("BRANCHES", branches, "A branch trace of tcgen-tracer --branches (BRA1)")->required();
    split->add_option("IDS", ids, "The id stream to write: one little-endian u32 a branch, no header")->required();
    split->add_option("TABLE", table, "The side table to write: BIT1, then each id's branch record")->required();
    CLI::App* join = app.add_subcommand("join", "Write the branch trace of IDS and TABLE to standard output");
    join->add_option("IDS", ids, "An id stream of tcgen-branch-ids split")->required();
    join->add_option("TABLE", table, "Its side table")->required();
    bool force = false;
    join->add_flag("-f,--force", force, "Write to standard output even when it is a terminal");

    return tcgen::cli::run_subcommands(app, argc, argv, program, [&] {
        return split->parsed() ? run_split(branches, ids, table) : run_join(ids, table, force);
    });
}
