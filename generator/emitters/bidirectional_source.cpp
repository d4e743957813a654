// --emit=bidirectional-source: the definition of the stream type that
// bidirectional-header declares, with the runtime it needs.

#include "generator/emitters/bidirectional_stream.hpp"

namespace tcgen {

const Emitter& bidirectional_source_emitter() {
    static const BidirectionalStreamEmitter emitter("bidirectional-source",
                                                    "the source of that stream type, with its runtime", ".cpp",
                                                    generate_bidirectional_source);
    return emitter;
}

}  // namespace tcgen
