// --emit=bidirectional-header: the declaration of a stream type whose cursor
// walks the compressed records both ways (docs/bidirectional.md).

#include "generator/emitters/bidirectional_stream.hpp"

namespace tcgen {

const Emitter& bidirectional_header_emitter() {
    static const BidirectionalStreamEmitter emitter(
        "bidirectional-header",
        "the header of a stream type whose cursor walks the compressed records both ways (see docs/bidirectional.md)",
        ".hpp", generate_bidirectional_header);
    return emitter;
}

}  // namespace tcgen
