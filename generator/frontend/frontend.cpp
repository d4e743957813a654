#include "generator/frontend/frontend.hpp"

#include "generator/frontend/parser.hpp"
#include "generator/frontend/semantic_check.hpp"

namespace tcgen {

std::optional<Spec> compile_spec(const SourceFile& file, DiagnosticSink& sink) {
    std::optional<ast::Spec> syntax = parse_spec(file, sink);
    if (!syntax) {
        return std::nullopt;
    }
    return check_spec(*syntax, sink);
}

}  // namespace tcgen
