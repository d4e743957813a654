// The ANTLR firewall: the one file that includes ANTLR headers. It runs the
// generated lexer and parser with ANTLR's console error output replaced by
// our diagnostics, and converts the parse tree into tcgen's own AST.

#include "generator/frontend/parser.hpp"

#include <algorithm>
#include <limits>
#include <string>
#include <vector>

#include "TcgenSpecLexer.h"
#include "TcgenSpecParser.h"
#include "antlr4-runtime.h"

namespace tcgen {
namespace {

using tcgen_grammar::TcgenSpecLexer;
using tcgen_grammar::TcgenSpecParser;

// ANTLR counts columns in code points while our spans count bytes, and its
// UTF-8 decoder throws on malformed input. Replacing every non-ASCII byte with
// a control character the lexer rejects keeps columns byte-exact, lets
// comments hold any bytes, and turns a stray byte elsewhere into an ordinary
// "unexpected character" error at the right place.
std::string ascii_only(const std::string& text) {
    std::string result = text;
    for (char& c : result) {
        if (static_cast<unsigned char>(c) >= 0x80) {
            c = '\x01';
        }
    }
    return result;
}

std::string describe_character(unsigned char c) {
    if (c >= 0x21 && c < 0x7f) {
        return std::string("character '") + static_cast<char>(c) + "'";
    }
    static const char digits[] = "0123456789abcdef";
    std::string hex = "0x";
    hex += digits[c >> 4];
    hex += digits[c & 0xf];
    return "byte " + hex;
}

std::string describe_token_type(const antlr4::dfa::Vocabulary& vocabulary, std::size_t type) {
    switch (type) {
        case antlr4::Token::EOF:
            return "end of file";
        case TcgenSpecParser::NUMBER:
            return "a number";
        case TcgenSpecParser::WORD:
            return "a name";  // of a field or a predictor
        default:
            return vocabulary.getDisplayName(type);
    }
}

bool is_keyword(ssize_t type) {
    switch (type) {
        case TcgenSpecParser::TCGEN:
        case TcgenSpecParser::TRACE:
        case TcgenSpecParser::SPECIFICATION:
        case TcgenSpecParser::BIT:
        case TcgenSpecParser::HEADER:
        case TcgenSpecParser::IDS:
        case TcgenSpecParser::FIELD:
        case TcgenSpecParser::PC:
        case TcgenSpecParser::L1:
        case TcgenSpecParser::L2:
            return true;
        default:
            return false;
    }
}

std::string describe_token(const antlr4::Token& token) {
    if (token.getType() == antlr4::Token::EOF) {
        return "end of file";
    }
    return "'" + token.getText() + "'";
}

SourceSpan token_span(const antlr4::Token& token) {
    int line = static_cast<int>(token.getLine());
    int column = static_cast<int>(token.getCharPositionInLine()) + 1;
    int length = token.getType() == antlr4::Token::EOF ? 1 : static_cast<int>(token.getText().size());
    return SourceSpan{line, column, column + length};
}

// From the start of the first token to the end of the last when both are on
// one line; otherwise just the first token, since a caret marks one line.
SourceSpan node_span(antlr4::ParserRuleContext& context) {
    SourceSpan first = token_span(*context.getStart());
    SourceSpan last = token_span(*context.getStop());
    if (last.line == first.line && last.end_column > first.column) {
        first.end_column = last.end_column;
    }
    return first;
}

class FirstErrorListener : public antlr4::BaseErrorListener {
public:
    FirstErrorListener(const SourceFile& file, DiagnosticSink& sink) : file_(file), sink_(sink) {}

    bool saw_error() const { return saw_error_; }

    void syntaxError(antlr4::Recognizer* recognizer, antlr4::Token* offending, std::size_t line, std::size_t position,
                     const std::string& /*antlr_message*/, std::exception_ptr /*error*/) override {
        if (saw_error_) {
            return;
        }
        saw_error_ = true;
        int column = static_cast<int>(position) + 1;
        if (offending == nullptr) {
            report_bad_character(static_cast<int>(line), column);
            return;
        }
        auto* parser = dynamic_cast<antlr4::Parser*>(recognizer);
        std::vector<std::string> expected;
        if (parser != nullptr) {
            std::vector<ssize_t> types = parser->getExpectedTokens().toList();
            // Where a field name may stand, the keywords are accepted too (for
            // the checker to explain why they cannot name a field), but the
            // message asks for a name.
            bool name_expected = std::find(types.begin(), types.end(), TcgenSpecParser::WORD) != types.end();
            for (ssize_t type : types) {
                if (name_expected && is_keyword(type)) {
                    continue;
                }
                std::size_t token_type = type < 0 ? antlr4::Token::EOF : static_cast<std::size_t>(type);
                expected.push_back(describe_token_type(parser->getVocabulary(), token_type));
            }
        }
        std::string message = "unexpected " + describe_token(*offending);
        if (expected.size() == 1 && expected.front() == "end of file") {
            message += " after the end of the spec";
        } else if (!expected.empty()) {
            message += "; expected " + word_list(expected, "or");
        }
        sink_.error(token_span(*offending), message);
    }

private:
    void report_bad_character(int line, int column) {
        std::string_view text = file_.line(line);
        std::size_t index = static_cast<std::size_t>(column - 1);
        unsigned char c = index < text.size() ? static_cast<unsigned char>(text[index]) : 0;
        sink_.error(SourceSpan{line, column, column + 1}, "unexpected " + describe_character(c) + " in spec");
    }

    const SourceFile& file_;
    DiagnosticSink& sink_;
    bool saw_error_ = false;
};

// Converts the parse tree of a syntactically valid spec into the AST.
class AstBuilder {
public:
    explicit AstBuilder(DiagnosticSink& sink) : sink_(sink) {}

    ast::Spec build(TcgenSpecParser::DescriptionContext& description) {
        ast::Spec spec;
        for (auto* declaration : description.declaration()) {
            if (declaration->headerRest() != nullptr) {
                bool follows_field = !spec.fields.empty();
                spec.headers.push_back(
                    ast::Header{number(declaration->NUMBER()), node_span(*declaration), follows_field});
            } else if (declaration->idsRest() != nullptr) {
                bool follows_field = !spec.fields.empty();
                spec.ids.push_back(ast::Ids{number(declaration->NUMBER()), node_span(*declaration), follows_field});
            } else {
                spec.fields.push_back(build_field(*declaration));
            }
        }
        if (auto* pc = description.pcDefinition()) {
            ast::PcDefinition definition;
            definition.span = node_span(*pc);
            if (pc->NUMBER() != nullptr) {
                definition.field = number(pc->NUMBER());
            } else {
                definition.name = name(*pc->fieldName());
            }
            spec.pc = definition;
        }
        return spec;
    }

private:
    ast::Field build_field(TcgenSpecParser::DeclarationContext& declaration) {
        TcgenSpecParser::FieldRestContext& context = *declaration.fieldRest();
        ast::Field field;
        field.bits = number(declaration.NUMBER());
        field.number = number(context.NUMBER());
        field.span = token_span(*declaration.getStart());
        if (auto* field_name = context.fieldName()) {
            field.name = name(*field_name);
        }
        if (auto* size = context.arraySize()) {
            field.array_size = number(size->NUMBER());
        }
        if (auto* sizes = context.levelSizes()) {
            for (auto* size : sizes->levelSize()) {
                ast::LevelKind kind = size->L1() != nullptr ? ast::LevelKind::l1 : ast::LevelKind::l2;
                field.level_sizes.push_back(ast::LevelSize{kind, number(size->NUMBER()), node_span(*size)});
            }
        }
        if (auto* predictors = context.predictors()) {
            for (auto* predictor : predictors->predictor()) {
                field.predictors.push_back(build_predictor(*predictor));
            }
        }
        // "{ ... : }" with nothing listed: point at the closing brace.
        field.predictors_span = token_span(*context.RBRACE()->getSymbol());
        return field;
    }

    ast::Predictor build_predictor(TcgenSpecParser::PredictorContext& context) {
        ast::Predictor predictor;
        predictor.span = node_span(context);
        const antlr4::Token& word = *context.WORD()->getSymbol();
        predictor.name = word.getText();
        predictor.name_span = token_span(word);
        std::vector<antlr4::tree::TerminalNode*> numbers = context.NUMBER();
        // "FCM3" is one word (names may hold digits): its trailing digits are
        // the order, as in "FCM 3".
        std::size_t digits = predictor.name.find_last_not_of("0123456789") + 1;
        if (digits < predictor.name.size()) {
            std::string order = predictor.name.substr(digits);
            predictor.name.resize(digits);
            predictor.name_span.end_column = predictor.name_span.column + static_cast<int>(digits);
            SourceSpan order_span{predictor.name_span.line, predictor.name_span.end_column,
                                  predictor.name_span.end_column + static_cast<int>(order.size())};
            predictor.order = number_of(order, order_span);
            if (numbers.size() == 2) {
                sink_.error(token_span(*numbers[0]->getSymbol()),
                            "the order of " + predictor.name + " is given twice; write " + word.getText() + "[" +
                                numbers[1]->getText() + "]");
            }
        } else if (numbers.size() == 2) {
            predictor.order = number(numbers[0]);
        }
        predictor.entries = number(numbers.back());
        return predictor;
    }

    ast::Name name(TcgenSpecParser::FieldNameContext& context) {
        return ast::Name{context.getText(), token_span(*context.getStart())};
    }

    ast::Number number(antlr4::tree::TerminalNode* node) {
        const antlr4::Token& token = *node->getSymbol();
        return number_of(token.getText(), token_span(token));
    }

    ast::Number number_of(const std::string& text, SourceSpan span) {
        ast::Number result{0, span};
        constexpr std::uint64_t max = std::numeric_limits<std::uint64_t>::max();
        for (char digit : text) {
            auto value = static_cast<std::uint64_t>(digit - '0');
            if (result.value > (max - value) / 10) {
                sink_.error(result.span, "number " + text + " is too large");
                result.value = max;
                return result;
            }
            result.value = result.value * 10 + value;
        }
        return result;
    }

    DiagnosticSink& sink_;
};

}  // namespace

std::optional<ast::Spec> parse_spec(const SourceFile& file, DiagnosticSink& sink) {
    antlr4::ANTLRInputStream input(ascii_only(file.text()));
    FirstErrorListener listener(file, sink);

    TcgenSpecLexer lexer(&input);
    lexer.removeErrorListeners();
    lexer.addErrorListener(&listener);
    antlr4::CommonTokenStream tokens(&lexer);
    // Lex everything first so that a bad character is reported as such rather
    // than as whatever parse error its absence causes.
    tokens.fill();
    if (listener.saw_error()) {
        return std::nullopt;
    }

    TcgenSpecParser parser(&tokens);
    parser.removeErrorListeners();
    parser.addErrorListener(&listener);
    TcgenSpecParser::DescriptionContext* tree = parser.description();
    if (listener.saw_error()) {
        return std::nullopt;
    }
    int errors_before = sink.error_count();
    ast::Spec spec = AstBuilder(sink).build(*tree);
    for (antlr4::Token* token : tokens.getTokens()) {
        if (token->getType() == TcgenSpecLexer::ENCODING) {
            spec.encodings.push_back(ast::EncodingLine{token->getText(), token_span(*token)});
        }
    }
    if (sink.error_count() > errors_before) {
        return std::nullopt;
    }
    return spec;
}

}  // namespace tcgen
