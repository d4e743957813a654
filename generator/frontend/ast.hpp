#pragma once
// The syntax of a spec as written, every node with its source span. Produced
// by the parser (the only code that sees ANTLR) and consumed by the semantic
// checker, which turns it into the model; nothing after that sees the AST.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "generator/frontend/source_file.hpp"

namespace tcgen::ast {

// A decimal literal. Values that do not fit 64 bits are reported by the
// parser and never reach the AST.
struct Number {
    std::uint64_t value = 0;
    SourceSpan span;
};

struct Header {
    Number bits;
    SourceSpan span;
    bool follows_field = false;  // written after a field statement
};

// "32-Bit Ids;": the records coded as ids.
struct Ids {
    Number bits;
    SourceSpan span;
    bool follows_field = false;  // written after a field statement
};

enum class LevelKind { l1, l2 };

struct LevelSize {
    LevelKind kind = LevelKind::l1;
    Number value;
    SourceSpan span;
};

// "FCM3[2]": a name, an optional order and a number of entries. Which names
// exist, and which take an order, is the semantic checker's business.
struct Predictor {
    std::string name;
    SourceSpan name_span;
    std::optional<Number> order;
    Number entries;  // the n in [n]
    SourceSpan span;
};

// A field's name as written, keywords included (the checker refuses them).
struct Name {
    std::string text;
    SourceSpan span;
};

struct Field {
    Number bits;
    Number number;
    std::optional<Name> name;
    std::optional<Number> array_size;  // "name[N]": N like fields numbered from `number` on
    std::vector<LevelSize> level_sizes;
    std::vector<Predictor> predictors;
    SourceSpan span;             // the width, where a reader looks for the field
    SourceSpan predictors_span;  // between ':' and '}', for "no predictors"
};

struct PcDefinition {
    Number field;               // when given by number
    std::optional<Name> name;   // when given by name
    SourceSpan span;
};

// A "# Encoding: ..." line, as written.
struct EncodingLine {
    std::string text;
    SourceSpan span;
};

struct Spec {
    std::vector<Header> headers;  // valid specs have at most one, first
    std::vector<Ids> ids;         // valid specs have at most one, before the fields
    std::vector<Field> fields;
    std::optional<PcDefinition> pc;
    std::vector<EncodingLine> encodings;  // valid specs have at most one
};

}  // namespace tcgen::ast
