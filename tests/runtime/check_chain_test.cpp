// The check chain (runtime/check_chain.hpp): each check seeded with the one
// before, so that sections of two files cannot be mixed, dropped, repeated or
// swapped.

#include "runtime/check_chain.hpp"

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "tests/runtime/container_files.hpp"

namespace tcgen_runtime {
namespace {

// Each check is the XXH64 of what it covers, seeded with the check before
// (the first with 0); a hash of pieces, started from the chain, ends where
// next() would; advance() goes on from a check computed elsewhere.
TEST(CheckChain, SeedsEachCheckWithTheOneBefore) {
    const Bytes first = text_bytes("first section");
    const Bytes second = text_bytes("second section");
    CheckChain chain;
    const std::uint64_t first_check = chain.next(first.data(), first.size());
    EXPECT_EQ(first_check, xxh64(first.data(), first.size(), 0));
    Xxh64 pieces = chain.start();
    pieces.update(second.data(), 6);
    pieces.update(second.data() + 6, second.size() - 6);
    const std::uint64_t second_check = chain.next(second.data(), second.size());
    EXPECT_EQ(second_check, xxh64(second.data(), second.size(), first_check));
    EXPECT_EQ(pieces.digest(), second_check);
    EXPECT_EQ(chain.last(), second_check);
    CheckChain resumed;
    resumed.advance(first_check);
    EXPECT_EQ(resumed.next(second.data(), second.size()), second_check);
}

// Two files of the same spec and shape, different in every section but the
// preamble, cut into their sections.
std::vector<Bytes> file_sections(const Bytes& file) {
    const Sections sections = find_sections(file);
    std::vector<std::size_t> starts = {0, sections.header_section};
    starts.insert(starts.end(), sections.blocks.begin(), sections.blocks.end());
    starts.push_back(sections.trailer);
    starts.push_back(file.size());
    std::vector<Bytes> pieces;
    for (std::size_t index = 0; index + 1 < starts.size(); ++index) {
        pieces.emplace_back(file.begin() + static_cast<std::ptrdiff_t>(starts[index]),
                            file.begin() + static_cast<std::ptrdiff_t>(starts[index + 1]));
    }
    return pieces;
}

Contents other_contents() {
    Contents contents;
    contents.header = text_bytes("HDR2");
    contents.blocks.push_back({3, {pattern_bytes(30, 7), pattern_bytes(12, 8)}});
    contents.blocks.push_back({3, {pattern_bytes(25, 9), Bytes()}});
    contents.blocks.push_back({2, {pattern_bytes(9, 10), pattern_bytes(40, 11)}});
    contents.tail = text_bytes("TAIL?");
    return with_totals(contents);
}

Bytes joined(const std::vector<Bytes>& pieces) {
    Bytes file;
    for (const Bytes& piece : pieces) {
        file.insert(file.end(), piece.begin(), piece.end());
    }
    return file;
}

// Sections are tied to their file and their place: any mix of the sections
// of two files, and any file with sections dropped, repeated or swapped, is
// refused (unless it is byte for byte one of the two files, or several
// whole files concatenated).
TEST(ContainerSplicing, EveryMixOfTwoFilesIsRefused) {
    const Bytes first = write_file(typical_contents());
    const Bytes second = write_file(other_contents());
    const std::vector<Bytes> first_pieces = file_sections(first);
    const std::vector<Bytes> second_pieces = file_sections(second);
    ASSERT_EQ(first_pieces.size(), 6u);
    ASSERT_EQ(second_pieces.size(), 6u);
    // A file followed by a whole file is a valid concatenation.
    auto is_whole_files = [&](const Bytes& file) {
        std::size_t offset = 0;
        while (offset < file.size()) {
            bool matched = false;
            for (const Bytes* whole : {&first, &second}) {
                if (file.size() - offset >= whole->size() &&
                    std::equal(whole->begin(), whole->end(), file.begin() + static_cast<std::ptrdiff_t>(offset))) {
                    offset += whole->size();
                    matched = true;
                    break;
                }
            }
            if (!matched) {
                return false;
            }
        }
        return true;
    };
    auto expect_refused = [&](const Bytes& file, const std::string& what) {
        if (!is_whole_files(file)) {
            EXPECT_NE(read_error(file), "no error") << what;
        }
    };
    std::size_t tried = 0;
    for (unsigned mask = 0; mask < (1u << first_pieces.size()); ++mask) {
        std::vector<Bytes> pieces;
        for (std::size_t index = 0; index < first_pieces.size(); ++index) {
            pieces.push_back(((mask >> index) & 1u) != 0 ? second_pieces[index] : first_pieces[index]);
        }
        expect_refused(joined(pieces), "sections from the second file: mask " + std::to_string(mask));
        ++tried;
    }
    // A prefix of one file and a suffix of either, cut at section boundaries.
    for (const std::vector<Bytes>* suffix_file : {&first_pieces, &second_pieces}) {
        for (std::size_t prefix = 0; prefix <= first_pieces.size(); ++prefix) {
            for (std::size_t suffix = 0; suffix <= suffix_file->size(); ++suffix) {
                std::vector<Bytes> pieces(first_pieces.begin(), first_pieces.begin() + static_cast<std::ptrdiff_t>(prefix));
                pieces.insert(pieces.end(), suffix_file->begin() + static_cast<std::ptrdiff_t>(suffix),
                              suffix_file->end());
                expect_refused(joined(pieces), "first " + std::to_string(prefix) + " sections, then from section " +
                                                   std::to_string(suffix));
                ++tried;
            }
        }
    }
    std::vector<Bytes> swapped = first_pieces;
    std::swap(swapped[2], swapped[3]);
    EXPECT_EQ(read_error(joined(swapped)), "checksum mismatch in block 1 (section header)");
    EXPECT_GT(tried, 100u);
}

}  // namespace
}  // namespace tcgen_runtime
