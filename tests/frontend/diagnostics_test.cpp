// The rendered form of diagnostics: headline, source line, caret under the
// span; several independent errors in one run; follow-on errors suppressed;
// bytes a terminal could act on escaped; huge lines and tokens cut; source
// order whatever the order reported; the first 20 errors, then one line
// saying how many there were.

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <sstream>

#include "test_support.hpp"

namespace tcgen::testing {
namespace {

// Renders one error directly, for spans and messages the front end would not
// produce on its own.
std::string render(const std::string& text, SourceSpan span, const std::string& message) {
    SourceFile file("spec.tcg", text);
    return format_diagnostic(file, Diagnostic{Severity::error, span, message});
}

// The source line of a rendered diagnostic.
std::string source_line(const std::string& text) {
    return "    " + text + "\n";
}

// The caret line of a rendered diagnostic: `column` spaces, then the marks.
std::string caret_line(std::size_t column, const std::string& marks) {
    return "    " + std::string(column, ' ') + marks + "\n";
}

// The length of the UTF-8 sequence at `at`: a lead byte and its continuation
// bytes, not a C1 control; 0 when there is none.
std::size_t utf8_length(const std::string& text, std::size_t at) {
    auto byte = [&](std::size_t i) -> unsigned { return static_cast<unsigned char>(text[at + i]); };
    std::size_t length = byte(0) >= 0xc2 && byte(0) <= 0xdf   ? 2
                         : byte(0) >= 0xe0 && byte(0) <= 0xef ? 3
                         : byte(0) >= 0xf0 && byte(0) <= 0xf4 ? 4
                                                              : 0;
    if (length == 0 || at + length > text.size() || (byte(0) == 0xc2 && byte(1) < 0xa0)) {
        return 0;
    }
    for (std::size_t i = 1; i < length; ++i) {
        if (byte(i) < 0x80 || byte(i) > 0xbf) {
            return 0;
        }
    }
    return length;
}

// No control byte but newline and tab, and no byte >= 0x80 outside UTF-8.
::testing::AssertionResult is_terminal_safe(const std::string& text) {
    for (std::size_t at = 0; at < text.size();) {
        unsigned char c = static_cast<unsigned char>(text[at]);
        if (c >= 0x80) {
            std::size_t length = utf8_length(text, at);
            if (length == 0) {
                return ::testing::AssertionFailure() << "raw byte " << unsigned{c} << " at " << at << " in\n" << text;
            }
            at += length;
            continue;
        }
        if ((c < 0x20 && c != '\n' && c != '\t') || c == 0x7f) {
            return ::testing::AssertionFailure() << "raw byte " << unsigned{c} << " at " << at << " in\n" << text;
        }
        ++at;
    }
    return ::testing::AssertionSuccess();
}

TEST(Diagnostics, RendersSourceLineAndCaretUnderTheSpan) {
    CompileResult result = compile_text(
        "TCgen Trace Specification;\n"
        "12-Bit Field 1 = {: LV[1]};\n"
        "PC = Field 1;\n");
    EXPECT_FALSE(result.spec);
    EXPECT_EQ(result.rendered,
              "spec.tcg:2:1: error: field width must be 8, 16, 32 or 64 bits, not 12\n"
              "    12-Bit Field 1 = {: LV[1]};\n"
              "    ^~\n");
}

TEST(Diagnostics, ReportsIndependentErrorsTogether) {
    CompileResult result = compile_text(
        "TCgen Trace Specification;\n"
        "12-Bit Header;\n"
        "24-Bit Field 1 = {L1 = 3: LV[0]};\n"
        "8-Bit Field 2 = {L2 = 1000: FCM0[1]};\n"
        "PC = Field 7;\n");
    EXPECT_FALSE(result.spec);
    std::vector<std::string> expected = {
        "2:1: error: header width must be a multiple of 8 bits, not 12",
        "3:1: error: field width must be 8, 16, 32 or 64 bits, not 24",
        "3:24: error: L1 must be a power of two, not 3",
        "3:30: error: a predictor must make at least one prediction, not [0]",
        "4:23: error: L2 must be a power of two, not 1000",
        "4:32: error: predictor order must be at least 1",
        "5:12: error: PC field 7 does not exist; the spec has 2 fields",
    };
    EXPECT_EQ(result.headlines, expected) << result.rendered;
}

TEST(Diagnostics, OnlyTheFirstSyntaxErrorIsReported) {
    CompileResult result = compile_text(
        "TCgen Trace Specification;\n"
        "8-Bit Field 1 = {: LV[1]}\n"
        "8-Bit Field 2 = {: LV[1] ;\n"
        "PC = Field 1\n");
    EXPECT_FALSE(result.spec);
    ASSERT_EQ(result.headlines.size(), 1u) << result.rendered;
    EXPECT_EQ(result.headlines[0], "3:1: error: unexpected '8'; expected ';'");
}

TEST(Diagnostics, TabsKeepTheCaretAligned) {
    CompileResult result = compile_text("TCgen Trace Specification;\n\t8-Bit Field 1 = {: LV[1]};\n\tPC = Field 2;\n");
    EXPECT_EQ(result.rendered,
              "spec.tcg:3:13: error: PC field 2 does not exist; the spec has 1 field\n"
              "    \tPC = Field 2;\n"
              "    \t           ^\n");
}

TEST(Diagnostics, TooManyFields) {
    std::string text = "TCgen Trace Specification;\n";
    for (int i = 1; i <= 4098; ++i) {
        text += "8-Bit Field " + std::to_string(i) + " = {: LV[1]};\n";
    }
    text += "PC = Field 1;\n";
    CompileResult result = compile_text(text);
    EXPECT_FALSE(result.spec);
    EXPECT_EQ(result.headlines, std::vector<std::string>{"4098:1: error: too many fields: 4098; at most 4096"});
}

TEST(Diagnostics, AValidSpecHasNone) {
    CompileResult result = compile_text("TCgen Trace Specification; 8-Bit Field 1 = {: LV[1]}; PC = Field 1;");
    EXPECT_TRUE(result.spec);
    EXPECT_TRUE(result.headlines.empty()) << result.rendered;
}

TEST(Diagnostics, AnEscapeSequenceIsEscapedAndTheCaretMovesPastIt) {
    EXPECT_EQ(render("TCgen \x1b[31mTrace;", SourceSpan{1, 12, 17}, "unexpected 'Trace'"),
              "spec.tcg:1:12: error: unexpected 'Trace'\n"
              "    TCgen \\x1b[31mTrace;\n" +
                  caret_line(14, "^~~~~"));
}

TEST(Diagnostics, AControlByteInTheSpecIsEscapedAndUnderlinedWhole) {
    CompileResult result =
        compile_text("TCgen Trace Specification;\n8-Bit \x1b[31mField 1 = {: LV[1]};\nPC = Field 1;\n");
    EXPECT_EQ(result.rendered,
              "spec.tcg:2:7: error: unexpected byte 0x1b in spec\n"
              "    8-Bit \\x1b[31mField 1 = {: LV[1]};\n" +
                  caret_line(6, "^~~~"));
}

TEST(Diagnostics, ANulByteIsEscaped) {
    std::string text = "TCgen Trace Specification;\n8-Bit Field 1 = {: LV[1]};";
    text += '\0';
    text += "PC = Field 1;\n";
    CompileResult result = compile_text(text);
    EXPECT_EQ(result.rendered,
              "spec.tcg:2:27: error: unexpected byte 0x00 in spec\n"
              "    8-Bit Field 1 = {: LV[1]};\\x00PC = Field 1;\n" +
                  caret_line(26, "^~~~"));
}

TEST(Diagnostics, AByteThatIsNotUtf8IsEscaped) {
    CompileResult result = compile_text("TCgen Trace Specification;\n8-Bit Field 1 = {: LV\xff[1]};\nPC = Field 1;\n");
    EXPECT_EQ(result.rendered,
              "spec.tcg:2:22: error: unexpected byte 0xff in spec\n"
              "    8-Bit Field 1 = {: LV\\xff[1]};\n" +
                  caret_line(21, "^~~~"));
}

TEST(Diagnostics, MalformedUtf8AndC1ControlsAreEscapedByteByByte) {
    // A lead byte without its continuation, a lone continuation byte, and
    // U+009B (valid UTF-8, but some terminals start an escape sequence on it).
    EXPECT_EQ(render("a \xc3( \xa9 \xc2\x9b x", SourceSpan{1, 11, 12}, "here"),
              "spec.tcg:1:11: error: here\n"
              "    a \\xc3( \\xa9 \\xc2\\x9b x\n" +
                  caret_line(22, "^"));
}

TEST(Diagnostics, ValidUtf8IsKeptAndTakesOneColumn) {
    CompileResult comment = compile_text(
        "TCgen Trace Specification;\n12-Bit Field 1 = {: LV[1]}; # caf\xc3\xa9 \xe2\x82\xac\nPC = Field 1;\n");
    EXPECT_EQ(comment.rendered,
              "spec.tcg:2:1: error: field width must be 8, 16, 32 or 64 bits, not 12\n"
              "    12-Bit Field 1 = {: LV[1]}; # caf\xc3\xa9 \xe2\x82\xac\n"
              "    ^~\n");
    CompileResult stray =
        compile_text("TCgen Trace Specification;\n8-Bit Field 1 = {: LV\xc2\xb2[1]};\nPC = Field 1;\n");
    EXPECT_EQ(stray.rendered,
              "spec.tcg:2:22: error: unexpected byte 0xc2 in spec\n"
              "    8-Bit Field 1 = {: LV\xc2\xb2[1]};\n" +
                  caret_line(21, "^"));
    EXPECT_EQ(render("\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80 x", SourceSpan{1, 11, 12}, "here"),
              "spec.tcg:1:11: error: here\n"
              "    \xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80 x\n" +
                  caret_line(4, "^"));
}

TEST(Diagnostics, TheFileNameIsEscaped) {
    CompileResult result =
        compile_text("TCgen Trace Specification;\n8-Bit Feild 1 = {: LV[1]};\nPC = Field 1;\n", "evil\x1b]0;x\x07.tcg");
    EXPECT_EQ(result.rendered.substr(0, result.rendered.find('\n')),
              "evil\\x1b]0;x\\x07.tcg:2:7: error: unexpected 'Feild'; expected 'Header', 'Ids' or 'Field'");
}

// A 1 MB line of 'a' with an 'X' at `offset`, as line 2 of a file, and the
// diagnostic pointing at the 'X'.
std::string render_in_long_line(std::size_t offset) {
    std::string line(std::size_t{1} << 20, 'a');
    line[offset] = 'X';
    int column = static_cast<int>(offset) + 1;
    return render("TCgen Trace Specification;\n" + line + "\n", SourceSpan{2, column, column + 1}, "here");
}

TEST(Diagnostics, AHugeLineIsCutAroundTheSpan) {
    const std::size_t size = std::size_t{1} << 20;
    std::string start = render_in_long_line(10);
    EXPECT_EQ(start, "spec.tcg:2:11: error: here\n" +
                         source_line(std::string(10, 'a') + "X" + std::string(109, 'a') + "...") + caret_line(10, "^"));
    std::string middle = render_in_long_line(size / 2);
    EXPECT_EQ(middle, "spec.tcg:2:524289: error: here\n" +
                          source_line("..." + std::string(40, 'a') + "X" + std::string(79, 'a') + "...") +
                          caret_line(43, "^"));
    std::string end = render_in_long_line(size - 5);
    EXPECT_EQ(end, "spec.tcg:2:1048572: error: here\n" +
                       source_line("..." + std::string(115, 'a') + "X" + std::string(4, 'a')) + caret_line(118, "^"));
    for (const std::string* rendered : {&start, &middle, &end}) {
        EXPECT_LT(rendered->size(), 400u);
    }
}

TEST(Diagnostics, AHugeTokenInAMessageIsCut) {
    std::string token(10000, 'w');
    EXPECT_EQ(render("x", SourceSpan{1, 1, 2}, "unexpected '" + token + "'; expected 'Field'"),
              "spec.tcg:1:1: error: unexpected '" + std::string(60, 'w') + "...'; expected 'Field'\n" +
                  source_line("x") + caret_line(0, "^"));
    CompileResult number = compile_text("TCgen Trace Specification;\n8-Bit Field 1 = {L1 = " + std::string(10000, '7') +
                                        ": LV[1]};\nPC = Field 1;\n");
    EXPECT_EQ(number.headlines,
              std::vector<std::string>{"2:23: error: number " + std::string(60, '7') + "... is too large"});
}

// Whatever the front end says about a 1 MB word where a predictor belongs,
// it quotes the word cut short, and shows a window of the line.
TEST(Diagnostics, AHugeTokenThroughTheFrontEndGivesAShortDiagnostic) {
    CompileResult result =
        compile_text("TCgen Trace Specification;\n8-Bit Field 1 = {: " + std::string(std::size_t{1} << 20, 'w') +
                     "[1]};\nPC = Field 1;\n");
    EXPECT_FALSE(result.spec);
    EXPECT_LT(result.rendered.size(), 400u);
    std::size_t headline_end = result.rendered.find('\n');
    EXPECT_NE(result.rendered.substr(0, headline_end).find("'" + std::string(60, 'w') + "...'"), std::string::npos)
        << result.rendered;
    EXPECT_EQ(result.rendered.substr(headline_end + 1),
              source_line("8-Bit Field 1 = {: " + std::string(101, 'w') + "...") +
                  caret_line(19, "^" + std::string(100, '~')));
}

TEST(Diagnostics, PrintInSourceOrderWhateverTheOrderReported) {
    SourceFile file("spec.tcg", "a\nb\nc\n");
    DiagnosticSink sink(file);
    sink.error(SourceSpan{3, 1, 2}, "on c");
    sink.error(SourceSpan{2, 1, 2}, "on b, reported first");
    sink.error(SourceSpan{1, 1, 2}, "on a");
    sink.error(SourceSpan{2, 1, 2}, "on b, reported second");
    std::ostringstream out;
    sink.print(out);
    EXPECT_EQ(out.str(),
              "spec.tcg:1:1: error: on a\n    a\n    ^\n"
              "spec.tcg:2:1: error: on b, reported first\n    b\n    ^\n"
              "spec.tcg:2:1: error: on b, reported second\n    b\n    ^\n"
              "spec.tcg:3:1: error: on c\n    c\n    ^\n");
}

TEST(Diagnostics, ANoteStaysAfterItsError) {
    SourceFile file("spec.tcg", "a\nb\nc\n");
    DiagnosticSink sink(file);
    sink.error(SourceSpan{3, 1, 2}, "c clashes with a");
    sink.note(SourceSpan{1, 1, 2}, "a is here");
    sink.error(SourceSpan{2, 1, 2}, "b is wrong");
    std::ostringstream out;
    sink.print(out);
    EXPECT_EQ(out.str(),
              "spec.tcg:2:1: error: b is wrong\n    b\n    ^\n"
              "spec.tcg:3:1: error: c clashes with a\n    c\n    ^\n"
              "spec.tcg:1:1: note: a is here\n    a\n    ^\n");
}

TEST(Diagnostics, TheSinkKeepsTwentyErrorsAndCountsTheRest) {
    SourceFile file("spec.tcg", std::string(30, '\n'));
    DiagnosticSink sink(file);
    // Reported from the last line up, each with a note, so that source order
    // and report order differ.
    for (int line = 30; line >= 1; --line) {
        sink.error(SourceSpan{line, 1, 2}, "error on line " + std::to_string(line));
        sink.note(SourceSpan{line, 1, 2}, "note on line " + std::to_string(line));
    }
    EXPECT_EQ(sink.error_count(), 30);
    EXPECT_TRUE(sink.has_errors());
    std::vector<Diagnostic> diagnostics = sink.diagnostics();
    ASSERT_EQ(diagnostics.size(), 41u);
    // The first twenty reported (lines 30 down to 11) with their notes, in
    // source order, then the line that says the rest were dropped.
    for (int kept = 0; kept < 20; ++kept) {
        EXPECT_EQ(diagnostics[2 * kept].message, "error on line " + std::to_string(11 + kept));
        EXPECT_EQ(diagnostics[2 * kept + 1].message, "note on line " + std::to_string(11 + kept));
    }
    EXPECT_EQ(format_diagnostic(file, diagnostics.back()),
              "spec.tcg: error: too many errors (30); only the first 20 are shown\n");
}

TEST(Diagnostics, TwentyErrorsAreNotTooMany) {
    SourceFile file("spec.tcg", "a\n");
    DiagnosticSink sink(file);
    for (int i = 0; i < DiagnosticSink::max_errors; ++i) {
        sink.error(SourceSpan{1, 1, 2}, "here");
    }
    EXPECT_EQ(sink.diagnostics().size(), 20u);
    EXPECT_EQ(sink.diagnostics().back().message, "here");
}

TEST(Diagnostics, TheTooManyErrorsLineIsPrintedLast) {
    SourceFile file("spec.tcg", "a\nb\n");
    DiagnosticSink sink(file);
    for (int i = 0; i < 21; ++i) {
        sink.error(SourceSpan{2 - i % 2, 1, 2}, "error " + std::to_string(i));
    }
    std::ostringstream out;
    sink.print(out);
    std::string printed = out.str();
    std::string last_line = "spec.tcg: error: too many errors (21); only the first 20 are shown\n";
    ASSERT_GE(printed.size(), last_line.size());
    EXPECT_EQ(printed.substr(printed.size() - last_line.size()), last_line);
    EXPECT_EQ(printed.find("error 20"), std::string::npos);
}

TEST(Diagnostics, AHundredIndependentErrorsPrintTwentyAndTheTooManyLine) {
    std::string text = "TCgen Trace Specification;\n";
    for (int i = 1; i <= 100; ++i) {
        text += "12-Bit Field " + std::to_string(i) + " = {: LV[1]};\n";
    }
    text += "PC = Field 1;\n";
    CompileResult result = compile_text(text);
    EXPECT_FALSE(result.spec);
    ASSERT_EQ(result.headlines.size(), 21u) << result.rendered;
    for (int i = 0; i < 20; ++i) {
        EXPECT_EQ(result.headlines[static_cast<std::size_t>(i)],
                  std::to_string(i + 2) + ":1: error: field width must be 8, 16, 32 or 64 bits, not 12");
    }
    std::string last_line = "spec.tcg: error: too many errors (100); only the first 20 are shown\n";
    ASSERT_GE(result.rendered.size(), last_line.size());
    EXPECT_EQ(result.rendered.substr(result.rendered.size() - last_line.size()), last_line);
    // 20 diagnostics of three lines each, and the last line.
    EXPECT_EQ(std::count(result.rendered.begin(), result.rendered.end(), '\n'), 61);
}

// Binary files through the whole front end: whatever the bytes, what is
// printed is safe for a terminal and short.
TEST(Diagnostics, ABinarySpecGivesSafeShortOutput) {
    std::vector<std::string> inputs;
    for (std::size_t first : {0, 11, 32, 128, 200}) {
        std::string counting(4096, '\0');
        for (std::size_t i = 0; i < counting.size(); ++i) {
            counting[i] = static_cast<char>((first + i) % 256);
        }
        inputs.push_back(counting);
        inputs.push_back("TCgen Trace Specification; 8-Bit Field 1 = {: LV[1]}; " + counting);
    }
    std::mt19937 random(2024);
    for (int i = 0; i < 20; ++i) {
        std::string bytes(4096, '\0');
        for (char& c : bytes) {
            c = static_cast<char>(random() & 0xff);
        }
        inputs.push_back(bytes);
    }
    for (const std::string& input : inputs) {
        CompileResult result = compile_text(input);
        EXPECT_FALSE(result.spec);
        EXPECT_FALSE(result.rendered.empty());
        EXPECT_TRUE(is_terminal_safe(result.rendered));
        EXPECT_LT(result.rendered.size(), 1000u) << result.rendered;
    }
}

}  // namespace
}  // namespace tcgen::testing
