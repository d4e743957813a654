#include "wpp/symbol_names.hpp"

#include <cstddef>
#include <cstring>

#include <tcgen/file_error.hpp>

#include "common/files.hpp"
#include "common/text_output.hpp"
#include "runtime/byte_order.hpp"

namespace tcgen::wpp {
namespace {

// The record layouts the tracer and tcgen-branch-ids write (docs/wet.md's
// raw files, docs/branch-ids.md's side table).
constexpr std::size_t block_record = 24;  // u32 id, u16, u8 end, u8, u32 bytes, u32, u64 pc
constexpr std::size_t branch_record = 17;  // u64 pc, u64 target, u8 taken

}  // namespace

SymbolNames::SymbolNames(const std::string& path) : path_(path) {
    const std::vector<std::uint8_t> bytes = read_whole_file(path);
    const bool blocks = bytes.size() >= 4 && std::memcmp(bytes.data(), "WTB1", 4) == 0;
    const bool branches = bytes.size() >= 4 && std::memcmp(bytes.data(), "BIT1", 4) == 0;
    if (!blocks && !branches) {
        throw FileError(path, "not a PREFIX.blocks of tcgen-tracer --wet (WTB1) or a side table of "
                              "tcgen-branch-ids split (BIT1)");
    }
    const std::size_t record = blocks ? block_record : branch_record;
    if ((bytes.size() - 4) % record != 0) {
        throw FileError(path, "truncated: " + std::to_string(bytes.size()) + " bytes is not 4 + a multiple of " +
                                  std::to_string(record));
    }
    const std::size_t count = (bytes.size() - 4) / record;
    names_.reserve(count);
    pcs_.reserve(count);
    for (std::size_t i = 0; i < count; ++i) {
        const std::uint8_t* at = bytes.data() + 4 + i * record;
        if (blocks) {
            if (tcgen_runtime::load_le32(at) != i) {
                throw FileError(path, "corrupt: block record " + std::to_string(i) + " has id " +
                                          std::to_string(tcgen_runtime::load_le32(at)));
            }
            pcs_.push_back(tcgen_runtime::load_le64(at + 16));
            names_.push_back(hex_text(pcs_.back()));
        } else {
            add_branch(at);
        }
    }
}

SymbolNames SymbolNames::of_branch_outcomes(const std::vector<std::uint8_t>& records, const std::string& source) {
    SymbolNames names;
    names.path_ = source;
    for (std::size_t at = 0; at + branch_record <= records.size(); at += branch_record) {
        names.add_branch(records.data() + at);
    }
    return names;
}

void SymbolNames::add_branch(const std::uint8_t* record) {
    pcs_.push_back(tcgen_runtime::load_le64(record));
    names_.push_back(hex_text(pcs_.back()) + (record[16] != 0 ? "+" : "-"));
}

std::size_t SymbolNames::checked(std::uint32_t symbol) const {
    if (symbol >= names_.size()) {
        throw FileError(path_, "has no entry for symbol " + std::to_string(symbol) + " (" +
                                   std::to_string(names_.size()) + " entries): not the run of this grammar");
    }
    return symbol;
}

const std::string& SymbolNames::operator()(std::uint32_t symbol) const {
    return names_[checked(symbol)];
}

std::uint64_t SymbolNames::pc(std::uint32_t symbol) const {
    return pcs_[checked(symbol)];
}

}  // namespace tcgen::wpp
