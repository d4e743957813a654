#pragma once
// What a grammar's symbols stand for, for `wpp hot` and `wpp walk --pcs=FILE`:
// the symbols of a flow are block ids, and the run's PREFIX.blocks (WTB1)
// gives each block's first pc; the symbols of tcgen-branch-ids split are
// branch ids, and its side table (BIT1) gives each branch's pc and outcome.
// A name is "0xPC" for a block, "0xPC+" for a taken branch and "0xPC-" for
// one not taken.

#include <cstdint>
#include <string>
#include <vector>

namespace tcgen::wpp {

class SymbolNames {
public:
    // Reads and checks FILE (its magic, whole records, ids in order); throws
    // FileError naming it.
    explicit SymbolNames(const std::string& path);
    // The names of a branch trace's outcomes, as a grammar of the trace
    // keeps them (Grammar::outcomes(): 17-byte records of ids 0, 1, ...);
    // errors name `source`.
    static SymbolNames of_branch_outcomes(const std::vector<std::uint8_t>& records, const std::string& source);

    // The name of `symbol`; FileError when FILE has no entry for it.
    const std::string& operator()(std::uint32_t symbol) const;
    // Its pc: the block's first, or the branch's.
    std::uint64_t pc(std::uint32_t symbol) const;

private:
    SymbolNames() = default;
    std::size_t checked(std::uint32_t symbol) const;
    void add_branch(const std::uint8_t* record);  // u64 pc, u64 target, u8 taken

    std::string path_;
    std::vector<std::string> names_;
    std::vector<std::uint64_t> pcs_;
};

}  // namespace tcgen::wpp
