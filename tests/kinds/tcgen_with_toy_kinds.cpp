// tcgen's pipeline, compile_to_plan then generate_compressor, in a program
// that links the toy kinds of this folder in: each registers itself from
// its own file, so nothing here names them.
// Usage: tcgen_with_toy_kinds SPEC OUTPUT.cpp [OUTPUT.ir]

#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>

#include "generator/backend/codegen.hpp"
#include "generator/backend/plan_dump.hpp"
#include "generator/plan/planner.hpp"

namespace {

bool write_file(const char* path, const std::string& text) {
    std::ofstream out(path, std::ios::binary);
    out << text;
    return static_cast<bool>(out);
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 3 && argc != 4) {
        std::cerr << "usage: tcgen_with_toy_kinds SPEC OUTPUT.cpp [OUTPUT.ir]\n";
        return 2;
    }
    std::ifstream in(argv[1], std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    if (!in) {
        std::cerr << "tcgen_with_toy_kinds: cannot read " << argv[1] << "\n";
        return 1;
    }
    tcgen::SourceFile file(argv[1], text.str());
    tcgen::DiagnosticSink sink(file);
    std::optional<tcgen::CodePlan> plan = tcgen::compile_to_plan(file, sink);
    sink.print(std::cerr);
    if (!plan) {
        return 1;
    }
    bool written = write_file(argv[2], tcgen::generate_compressor(*plan)) &&
                   (argc == 3 || write_file(argv[3], tcgen::dump_code_plan(*plan)));
    if (!written) {
        std::cerr << "tcgen_with_toy_kinds: cannot write the output\n";
        return 1;
    }
    return 0;
}
