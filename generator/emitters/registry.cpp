// The registration of every output: to add one, define it in a file of its
// own and list it here.

#include <algorithm>

#include "generator/emitters/emitter.hpp"

namespace tcgen {

const Emitter& compressor_emitter();            // compressor.cpp
const Emitter& codec_header_emitter();          // codec_header.cpp
const Emitter& c_library_emitter();             // c_library.cpp
const Emitter& bidirectional_header_emitter();  // bidirectional_header.cpp
const Emitter& bidirectional_source_emitter();  // bidirectional_source.cpp
const Emitter& canonical_text_emitter();        // canonical_text.cpp
const Emitter& ir_dump_emitter();               // ir_dump.cpp

const std::vector<const Emitter*>& emitters() {
    static const std::vector<const Emitter*> all = {
        &compressor_emitter(),           &codec_header_emitter(),   &c_library_emitter(),
        &bidirectional_header_emitter(), &bidirectional_source_emitter(), &canonical_text_emitter(),
        &ir_dump_emitter(),
    };
    return all;
}

const Emitter* find_emitter(std::string_view name) {
    const std::vector<const Emitter*>& all = emitters();
    auto found =
        std::find_if(all.begin(), all.end(), [name](const Emitter* emitter) { return emitter->name() == name; });
    return found == all.end() ? nullptr : *found;
}

}  // namespace tcgen
