// --emit=header: the in-process reader and writer of the spec's .tcz files,
// one header whose codec lives in a C++ namespace named after the spec
// unless --namespace says otherwise.

#include "generator/backend/codegen.hpp"
#include "generator/emitters/cpp_names.hpp"
#include "generator/emitters/emitter.hpp"

namespace tcgen {
namespace {

class CodecHeaderEmitter final : public Emitter {
public:
    CodecHeaderEmitter()
        : Emitter("header", "a header for reading and writing .tcz files in-process: Reader, Writer, Record", ".hpp") {}

    bool uses_namespace() const override { return true; }

    bool check(const CodePlan&, const EmitRequest& request, DiagnosticSink&, std::string& error) const override {
        const std::string cpp_namespace = codec_namespace(request);
        if (!is_namespace_name(cpp_namespace)) {
            error = "'" + cpp_namespace +
                    "' cannot name the codec's C++ namespace; give --namespace=NAME "
                    "(identifiers joined by '::')";
            return false;
        }
        return true;
    }

    std::string generate(const CodePlan& plan, const EmitRequest& request) const override {
        return generate_codec_header(plan, codec_namespace(request), header_name(request));
    }

private:
    static std::string codec_namespace(const EmitRequest& request) {
        return request.cpp_namespace.empty() ? request.spec_stem : request.cpp_namespace;
    }

    // How users include it: the name of the file written, or the spec's
    // stem with the header's extension when it goes to standard output.
    std::string header_name(const EmitRequest& request) const {
        const std::string& path = request.output_path;
        return path.empty() || path == "-" ? request.spec_stem + std::string(extension())
                                           : path.substr(path.find_last_of('/') + 1);
    }
};

}  // namespace

const Emitter& codec_header_emitter() {
    static const CodecHeaderEmitter emitter;
    return emitter;
}

}  // namespace tcgen
