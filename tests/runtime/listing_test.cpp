// What -l prints of a .tcz, and the stream table the compression report
// shares with it, compared with the expected text.

#include "runtime/listing.hpp"

#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace tcgen_runtime {
namespace {

TczListing two_stream_listing(std::uint32_t restart_blocks) {
    TczListing listing;
    listing.preamble.fingerprint = 0x0123456789abcdefull;
    listing.preamble.spec_text = "TCgen Trace Specification;\n32-Bit Field 1 = {: LV[1]};\n";
    listing.preamble.record_bytes = 4;
    listing.preamble.stream_count = 2;
    listing.preamble.records_per_block = 1000;
    listing.preamble.restart_blocks = restart_blocks;
    listing.blocks = 3;
    listing.records = 2500;
    listing.trace_bytes = 10000;
    listing.file_bytes = 400;
    listing.streams = {{"codes", 2500, 100}, {"a_stream_name_longer_than_its_column", 7500, 200}};
    return listing;
}

TEST(Listing, PrintsTheSummaryTheSpecAndEachStream) {
    EXPECT_EQ(listing_text("trace.tcz", two_stream_listing(0)),
              "trace.tcz: 2500 records of 4 bytes in 3 blocks, 10000 bytes in 400 bytes, ratio 25.000\n"
              "  blocks of 1000 records (4000 bytes); the predictors never restart\n"
              "  spec (fingerprint 0x0123456789abcdef):\n"
              "    TCgen Trace Specification;\n"
              "    32-Bit Field 1 = {: LV[1]};\n"
              "  stream                    raw bytes     compressed    share\n"
              "  codes                          2500            100   25.00%\n"
              "  a_stream_name_longer_than_its_column           7500            200   50.00%\n"
              "  (spec, header, checks)                           100   25.00%\n");
}

TEST(Listing, SaysWhereTheRestartPointsAre) {
    const std::string text = listing_text("(stdin)", two_stream_listing(16));
    EXPECT_NE(text.find("\n  blocks of 1000 records (4000 bytes); the predictors restart every 16 blocks (seekable)\n"),
              std::string::npos)
        << text;
}

// A stored spec comes from an untrusted file: no control character reaches
// the terminal, and a spec without a final newline still ends its line.
TEST(Listing, ShowsTheStoredSpecWithoutControlCharacters) {
    TczListing listing = two_stream_listing(0);
    listing.preamble.spec_text = std::string("a\x1b[2Jb\nc", 8);
    const std::string text = listing_text("x.tcz", listing);
    EXPECT_NE(text.find("\n    a?[2Jb\n    c\n  stream "), std::string::npos) << text;
}

TEST(Listing, StreamTableOfNoStreams) {
    EXPECT_EQ(stream_table_text({}, 0),
              "  stream                    raw bytes     compressed    share\n"
              "  (spec, header, checks)                             0    0.00%\n");
}

}  // namespace
}  // namespace tcgen_runtime
