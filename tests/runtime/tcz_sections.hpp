#pragma once
// Where the sections of a well-formed .tcz start, found by walking it through
// the layout of runtime/container_layout.hpp; for tests that damage or splice files
// at section boundaries.

#include <cstddef>
#include <cstdint>
#include <vector>

#include "runtime/container_layout.hpp"

namespace tcgen_runtime {

struct TczSections {
    std::size_t header_section = 0;
    std::vector<std::size_t> blocks;
    std::size_t trailer = 0;
};

inline TczSections find_sections(const std::vector<std::uint8_t>& file) {
    const std::uint8_t* const bytes = file.data();
    const std::size_t spec_size = TczPreambleLayout::spec_size.load(bytes);
    const std::size_t stream_count = TczPreambleLayout::stream_count.load(bytes);
    TczSections sections;
    sections.header_section = TczPreambleLayout::fixed_bytes + spec_size;
    std::size_t position = sections.header_section + TczHeaderSectionLayout::fixed_bytes +
                           TczHeaderSectionLayout::compressed_size.load(bytes + sections.header_section);
    while (TczBlockLayout::tag.load(bytes + position) == tcz_block_tag) {
        sections.blocks.push_back(position);
        std::size_t data_size = 0;
        for (std::size_t stream = 0; stream < stream_count; ++stream) {
            data_size += TczBlockLayout::compressed_size(stream).load(bytes + position);
        }
        position += TczBlockLayout::data(stream_count) + data_size + TczBlockLayout::AfterData::size;
    }
    sections.trailer = position;
    return sections;
}

}  // namespace tcgen_runtime
