// What the debug information says of the instructions (PREFIX.syms and the
// saved WET's SYMS): parsed and checked, found by pc and by name, saved and
// loaded again, and a forged section refused.

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include <tcgen/wet/whole_execution_trace.hpp>

#include "synthetic_wet.hpp"
#include <tcgen/wet/symbols.hpp>
#include "wet_file_bytes.hpp"

namespace {

using tcgen::wet::Symbol;
using tcgen::wet::SymbolTable;
using tcgen::wet::WetError;
using tcgen::wet::WholeExecutionTrace;

// Two functions of the synthetic program (synthetic_wet.hpp: main at 0x1000,
// f at 0x2000), one pc twice (it starts two blocks), one with nothing known.
const std::string lines =
    "0x1000\t/bin/toy\t0x1000\tmain\ttoy.c\t3\n"
    "0x1004\t/bin/toy\t0x1004\tmain+4\ttoy.c\t4\n"
    "0x2000\t/bin/toy\t0x2000\tf\ttoy.c\t9\n"
    "0x2008\t/bin/toy\t0x2008\tf+8\ttoy.c\t4\n"
    "0x1004\t/bin/toy\t0x1004\tmain+4\ttoy.c\t4\n"
    "0x3000\t/lib/libc.so.6\t0x13000\t-\t-\t-\n";

std::string message_of(const std::string& text) {
    try {
        SymbolTable::parse(text, "run.syms");
    } catch (const WetError& error) {
        return error.what();
    }
    return "accepted";
}

TEST(WetSymbols, ParsedByPcOnceEach) {
    const SymbolTable table = SymbolTable::parse(lines, "run.syms");
    EXPECT_EQ(table.size(), 5u);
    const std::optional<Symbol> symbol = table.at(0x2008);
    ASSERT_TRUE(symbol);
    EXPECT_EQ(symbol->object, "/bin/toy");
    EXPECT_EQ(symbol->offset, 0x2008u);
    EXPECT_EQ(symbol->function, "f");
    EXPECT_EQ(symbol->function_offset, 8u);
    EXPECT_EQ(symbol->file, "toy.c");
    EXPECT_EQ(symbol->line, 4u);
    EXPECT_EQ(symbol->text(), "f+8 (toy.c:4)");
    EXPECT_EQ(table.at(0x1000)->text(), "main (toy.c:3)");
    EXPECT_EQ(table.at(0x3000)->text(), "0x3000");
    EXPECT_FALSE(table.at(0x1001));
    // lines() is what parse() reads back: the same table.
    EXPECT_EQ(SymbolTable::parse(table.lines(), "again").lines(), table.lines());
}

TEST(WetSymbols, NamesAreFunctionsAndSourceLines) {
    const SymbolTable table = SymbolTable::parse(lines, "run.syms");
    EXPECT_EQ(table.pcs_named("main"), (std::vector<std::uint64_t>{0x1000, 0x1004}));
    EXPECT_EQ(table.pcs_named("toy.c:4"), (std::vector<std::uint64_t>{0x1004, 0x2008}));
    EXPECT_TRUE(table.pcs_named("toy.c:5").empty());
    EXPECT_TRUE(table.pcs_named("ma").empty());  // a function by its whole name
    // "operator+" ends in '+' with no digits: its name, not an offset.
    const SymbolTable plus = SymbolTable::parse("0x10\to\t0x10\toperator+\ta.cc\t1\n"
                                                "0x14\to\t0x14\toperator++4\ta.cc\t1\n",
                                                "run.syms");
    EXPECT_EQ(plus.pcs_named("operator+"), (std::vector<std::uint64_t>{0x10, 0x14}));
    EXPECT_EQ(plus.at(0x14)->text(), "operator++4 (a.cc:1)");
}

TEST(WetSymbols, BadLinesAreRefusedWithTheirNumber) {
    EXPECT_EQ(message_of("0x10\to\t0x10\tf\ta.c\t1\n0x14\to\t0x14\tf+4\ta.c\n"),
              "run.syms: error: line 2 of the symbols: not '0xPC, OBJECT, 0xOFFSET, FUNCTION+N, FILE, LINE' "
              "separated by tabs");
    EXPECT_EQ(message_of("0x10\to\t0x10\tf\ta.c\t1"),
              "run.syms: error: line 1 of the symbols: no newline at its end (the file is cut short)");
    EXPECT_EQ(message_of("10\to\t0x10\tf\ta.c\t1\n"),
              "run.syms: error: line 1 of the symbols: not '0xPC, OBJECT, 0xOFFSET, FUNCTION+N, FILE, LINE' "
              "separated by tabs");
    EXPECT_EQ(message_of("0x10\to\t0x10\tf\ta.c\tx\n"),
              "run.syms: error: line 1 of the symbols: not '0xPC, OBJECT, 0xOFFSET, FUNCTION+N, FILE, LINE' "
              "separated by tabs");
    EXPECT_EQ(message_of("0x10\to\t0x10\tf\ta.c\t1\n0x10\to\t0x10\tg\ta.c\t1\n"),
              "run.syms: error: the symbols describe pc 0x10 twice, differently");
    EXPECT_EQ(message_of(""), "accepted");
}

TEST(WetSymbols, SavedAndLoadedWithTheWet) {
    tcgen::wet::RawTrace raw = synthetic_wet::make_trace(5, 4);
    EXPECT_FALSE(WholeExecutionTrace::build(raw).has_symbols());
    raw.symbols = lines;
    WholeExecutionTrace built = WholeExecutionTrace::build(raw);
    ASSERT_TRUE(built.has_symbols());
    const std::vector<std::uint8_t> bytes = built.to_bytes();
    WholeExecutionTrace loaded = WholeExecutionTrace::from_bytes(bytes.data(), bytes.size(), "run.wet");
    ASSERT_TRUE(loaded.has_symbols());
    EXPECT_EQ(loaded.symbol(0x2008)->text(), "f+8 (toy.c:4)");
    EXPECT_EQ(loaded.pcs_named("toy.c:4"), (std::vector<std::uint64_t>{0x1004, 0x2008}));
    WholeExecutionTrace plain = WholeExecutionTrace::build(synthetic_wet::make_trace(5, 4));
    EXPECT_FALSE(plain.symbol(0x1000));
    EXPECT_TRUE(plain.pcs_named("main").empty());
}

// A SYMS whose text claims more than its frame can hold is refused on load;
// a frame that decodes to other bytes when a query first asks.
TEST(WetSymbols, AForgedSectionIsRefused) {
    tcgen::wet::RawTrace raw = synthetic_wet::make_trace(5, 4);
    raw.symbols = lines;
    const std::vector<std::uint8_t> good = WholeExecutionTrace::build(raw).to_bytes();
    const std::size_t payload = wet_file_bytes::payload_of(good, "SYMS");
    ASSERT_NE(payload, 0u);

    std::vector<std::uint8_t> claims = good;
    claims[payload + 7] = 0x7F;  // the text's size, u64: now past any bound
    wet_file_bytes::reseal(claims);
    try {
        WholeExecutionTrace::from_bytes(claims.data(), claims.size(), "forged.wet");
        ADD_FAILURE() << "a size past the bound was accepted";
    } catch (const WetError& error) {
        EXPECT_NE(std::string(error.what()).find("forged.wet: error: section SYMS"), std::string::npos)
            << error.what();
    }

    std::vector<std::uint8_t> damaged = good;
    damaged[wet_file_bytes::payload_end(good, "SYMS") - 3] ^= 0x5A;  // inside the frame's data or checksum
    wet_file_bytes::reseal(damaged);
    try {
        WholeExecutionTrace wet = WholeExecutionTrace::from_bytes(damaged.data(), damaged.size(), "forged.wet");
        wet.symbol(0x1000);
        ADD_FAILURE() << "a damaged frame was accepted";
    } catch (const WetError& error) {
        EXPECT_NE(std::string(error.what()).find("forged.wet: error:"), std::string::npos) << error.what();
    }
}

}  // namespace
