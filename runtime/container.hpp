#pragma once
// The .tcz container as a whole (docs/format.md): its layout, the check
// chain, the writer and the sequential reader, for code that uses all of
// them. Each has a header of its own (container_layout.hpp,
// check_chain.hpp, container_writer.hpp, container_reader.hpp); random
// access is block_index.hpp's.

#include "check_chain.hpp"
#include "container_layout.hpp"
#include "container_reader.hpp"
#include "container_writer.hpp"
