// The layout of the .tcz container (runtime/container_layout.hpp): the offset
// of every field of every section, pinned, and the tables of docs/format.md
// checked against it.

#include "runtime/container_layout.hpp"

#include <cstdint>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "tests/runtime/container_files.hpp"

namespace tcgen_runtime {
namespace {

// The layout, pinned: these numbers are the format (docs/format.md), and
// changing one is a new format version.
TEST(ContainerLayout, FieldsAreAtTheDocumentedOffsets) {
    EXPECT_EQ(PreambleLayout::magic.offset, 0u);
    EXPECT_EQ(PreambleLayout::magic.size, 8u);
    EXPECT_EQ(PreambleLayout::version.offset, 8u);
    EXPECT_EQ(PreambleLayout::flags.offset, 10u);
    EXPECT_EQ(PreambleLayout::fingerprint.offset, 12u);
    EXPECT_EQ(PreambleLayout::record_bytes.offset, 20u);
    EXPECT_EQ(PreambleLayout::header_bytes.offset, 24u);
    EXPECT_EQ(PreambleLayout::stream_count.offset, 28u);
    EXPECT_EQ(PreambleLayout::records_per_block.offset, 32u);
    EXPECT_EQ(PreambleLayout::restart_blocks.offset, 40u);
    EXPECT_EQ(PreambleLayout::spec_size.offset, 44u);
    EXPECT_EQ(PreambleLayout::spec_text, 48u);
    EXPECT_EQ(PreambleLayout::AfterSpec::check.offset, 0u);
    EXPECT_EQ(PreambleLayout::fixed_bytes, 56u);

    EXPECT_EQ(HeaderLayout::tag.offset, 0u);
    EXPECT_EQ(HeaderLayout::raw_size.offset, 4u);
    EXPECT_EQ(HeaderLayout::compressed_size.offset, 12u);
    EXPECT_EQ(HeaderLayout::backend.offset, 20u);
    EXPECT_EQ(HeaderLayout::fields_check.offset, 21u);
    EXPECT_EQ(HeaderLayout::data, 29u);
    EXPECT_EQ(HeaderLayout::AfterData::data_check.offset, 0u);
    EXPECT_EQ(HeaderLayout::AfterData::header_check.offset, 8u);
    EXPECT_EQ(HeaderLayout::fixed_bytes, 45u);

    EXPECT_EQ(BlockLayout::tag.offset, 0u);
    EXPECT_EQ(BlockLayout::record_count.offset, 4u);
    EXPECT_EQ(BlockLayout::raw_size(0).offset, 12u);
    EXPECT_EQ(BlockLayout::compressed_size(0).offset, 20u);
    EXPECT_EQ(BlockLayout::backend(0).offset, 28u);
    EXPECT_EQ(BlockLayout::raw_size(3).offset, 63u);
    EXPECT_EQ(BlockLayout::compressed_size(3).offset, 71u);
    EXPECT_EQ(BlockLayout::backend(3).offset, 79u);
    EXPECT_EQ(BlockLayout::fields_check(0).offset, 12u);
    EXPECT_EQ(BlockLayout::fields_check(4).offset, 80u);
    EXPECT_EQ(BlockLayout::data(0), 20u);
    EXPECT_EQ(BlockLayout::data(4), 88u);
    EXPECT_EQ(BlockLayout::AfterData::data_check.offset, 0u);
    EXPECT_EQ(BlockLayout::AfterData::records_check.offset, 8u);
    EXPECT_EQ(BlockLayout::AfterData::size, 16u);

    EXPECT_EQ(TrailerLayout::tag.offset, 0u);
    EXPECT_EQ(TrailerLayout::total_records.offset, 4u);
    EXPECT_EQ(TrailerLayout::total_bytes.offset, 12u);
    EXPECT_EQ(TrailerLayout::tail_size.offset, 20u);
    EXPECT_EQ(TrailerLayout::restart_count.offset, 24u);
    EXPECT_EQ(TrailerLayout::tail, 32u);
    EXPECT_EQ(TrailerLayout::restart_offset_bytes, 8u);
    EXPECT_EQ(TrailerLayout::AfterIndex::trailer_offset.offset, 0u);
    EXPECT_EQ(TrailerLayout::AfterIndex::check.offset, 8u);
    EXPECT_EQ(TrailerLayout::fixed_bytes, 48u);
}

struct Row {
    std::string name;
    std::size_t offset = 0;
    std::size_t size = 0;
};

std::string row_text(const Row& row) {
    return row.name + " at " + std::to_string(row.offset) + ", " + std::to_string(row.size) + " bytes";
}

std::vector<std::string> rows_text(const std::vector<Row>& rows) {
    std::vector<std::string> texts;
    for (const Row& row : rows) {
        texts.push_back(row_text(row));
    }
    return texts;
}

template <class Field>
Row field_row(std::string name, Field field, std::size_t part = 0) {
    return {std::move(name), part + field.offset, field.size};
}

// The lengths docs/format.md names with letters, chosen all different so
// that a wrong letter shows.
const std::map<char, std::size_t> doc_lengths = {{'L', 5}, {'C', 7}, {'S', 2}, {'D', 11}, {'T', 3}, {'K', 4}};

std::vector<Row> code_rows(const std::string& section) {
    const std::size_t spec_size = doc_lengths.at('L');
    const std::size_t header_data = doc_lengths.at('C');
    const std::size_t stream_count = doc_lengths.at('S');
    const std::size_t block_data = doc_lengths.at('D');
    const std::size_t tail_size = doc_lengths.at('T');
    const std::size_t index_bytes = doc_lengths.at('K') * TrailerLayout::restart_offset_bytes;
    if (section == "Preamble") {
        using Layout = PreambleLayout;
        return {field_row("magic", Layout::magic),
                field_row("version", Layout::version),
                field_row("flags", Layout::flags),
                field_row("fingerprint", Layout::fingerprint),
                field_row("record_bytes", Layout::record_bytes),
                field_row("header_bytes", Layout::header_bytes),
                field_row("stream_count", Layout::stream_count),
                field_row("records_per_block", Layout::records_per_block),
                field_row("restart_blocks", Layout::restart_blocks),
                field_row("spec_size", Layout::spec_size),
                {"spec_text", Layout::spec_text, spec_size},
                field_row("AfterSpec::check", Layout::AfterSpec::check, Layout::spec_text + spec_size)};
    }
    if (section == "Header section") {
        using Layout = HeaderLayout;
        return {field_row("tag", Layout::tag),
                field_row("raw_size", Layout::raw_size),
                field_row("compressed_size", Layout::compressed_size),
                field_row("backend", Layout::backend),
                field_row("fields_check", Layout::fields_check),
                {"data", Layout::data, header_data},
                field_row("AfterData::data_check", Layout::AfterData::data_check, Layout::data + header_data),
                field_row("AfterData::header_check", Layout::AfterData::header_check, Layout::data + header_data)};
    }
    if (section == "Block") {
        using Layout = BlockLayout;
        std::vector<Row> rows = {field_row("tag", Layout::tag), field_row("record_count", Layout::record_count)};
        for (std::size_t stream = 0; stream < stream_count; ++stream) {
            rows.push_back(field_row("raw_size(" + std::to_string(stream) + ")", Layout::raw_size(stream)));
            rows.push_back(
                field_row("compressed_size(" + std::to_string(stream) + ")", Layout::compressed_size(stream)));
            rows.push_back(field_row("backend(" + std::to_string(stream) + ")", Layout::backend(stream)));
        }
        const std::size_t data = Layout::data(stream_count);
        rows.push_back(field_row("fields_check(S)", Layout::fields_check(stream_count)));
        rows.push_back({"data(S)", data, block_data});
        rows.push_back(field_row("AfterData::data_check", Layout::AfterData::data_check, data + block_data));
        rows.push_back(field_row("AfterData::records_check", Layout::AfterData::records_check, data + block_data));
        return rows;
    }
    using Layout = TrailerLayout;
    return {field_row("tag", Layout::tag),
            field_row("total_records", Layout::total_records),
            field_row("total_bytes", Layout::total_bytes),
            field_row("tail_size", Layout::tail_size),
            field_row("restart_count", Layout::restart_count),
            {"tail", Layout::tail, tail_size},
            {"restart_offsets", Layout::tail + tail_size, index_bytes},
            field_row("AfterIndex::trailer_offset", Layout::AfterIndex::trailer_offset,
                      Layout::tail + tail_size + index_bytes),
            field_row("AfterIndex::check", Layout::AfterIndex::check, Layout::tail + tail_size + index_bytes)};
}

// A sum of terms as the tables write offsets and lengths: "44+L", "20 + 16i",
// "16+16S+D". Each term is a number, a letter, or a number times a letter.
std::size_t evaluate(const std::string& expression, const std::map<char, std::size_t>& values) {
    std::size_t total = 0;
    std::stringstream terms(expression);
    std::string term;
    while (std::getline(terms, term, '+')) {
        std::string compact;
        for (const char character : term) {
            if (character != ' ') {
                compact += character;
            }
        }
        std::size_t digits = 0;
        while (digits < compact.size() && compact[digits] >= '0' && compact[digits] <= '9') {
            ++digits;
        }
        const std::size_t number = digits > 0 ? std::stoul(compact.substr(0, digits)) : 1;
        if (digits == compact.size() && digits > 0) {
            total += number;
        } else if (digits + 1 == compact.size() && values.count(compact[digits]) == 1) {
            total += number * values.at(compact[digits]);
        } else {
            ADD_FAILURE() << "cannot evaluate '" << expression << "'";
        }
    }
    return total;
}

std::size_t type_size(const std::string& type, const std::map<char, std::size_t>& values) {
    const std::map<std::string, std::size_t> integers = {{"u8", 1}, {"u16", 2}, {"u32", 4}, {"u64", 8}};
    if (integers.count(type) == 1) {
        return integers.at(type);
    }
    const std::string bytes_suffix = " bytes";
    if (type.size() > bytes_suffix.size() && type.compare(type.size() - bytes_suffix.size(), std::string::npos,
                                                          bytes_suffix) == 0) {
        return evaluate(type.substr(0, type.size() - bytes_suffix.size()), values);
    }
    ADD_FAILURE() << "unknown type '" << type << "'";
    return 0;
}

std::string trimmed(const std::string& text, const std::string& strip = " `") {
    const std::size_t first = text.find_first_not_of(strip);
    if (first == std::string::npos) {
        return "";
    }
    return text.substr(first, text.find_last_not_of(strip) - first + 1);
}

// The offset, type and name cells of each row of the table under the
// heading "## section" of docs/format.md.
std::vector<std::vector<std::string>> doc_table(const std::string& section) {
    std::ifstream doc(std::string(TCGEN_SOURCE_DIR) + "/docs/format.md");
    EXPECT_TRUE(doc) << "cannot read docs/format.md";
    std::vector<std::vector<std::string>> table;
    bool in_section = false;
    std::string line;
    while (std::getline(doc, line)) {
        if (line.rfind("## ", 0) == 0) {
            in_section = line == "## " + section;
        }
        if (!in_section || line.rfind("|", 0) != 0) {
            continue;
        }
        std::vector<std::string> cells;
        std::stringstream cell_stream(line.substr(1));
        std::string cell;
        while (cells.size() < 3 && std::getline(cell_stream, cell, '|')) {
            cells.push_back(trimmed(cell));
        }
        if (cells.size() < 3) {
            ADD_FAILURE() << "docs/format.md, section " << section << ": short table row: " << line;
            continue;
        }
        const bool heading_or_rule = cells[0] == "offset" || cells[0].rfind("---", 0) == 0;
        if (!heading_or_rule) {
            table.push_back(cells);
        }
    }
    return table;
}

// The table of docs/format.md for `section`, evaluated for doc_lengths; rows
// whose offset has the stream index i are repeated for every stream.
std::vector<Row> doc_rows(const std::string& section) {
    const std::vector<std::vector<std::string>> table = doc_table(section);
    std::map<char, std::size_t> values = doc_lengths;
    std::vector<Row> rows;
    std::size_t index = 0;
    while (index < table.size()) {
        std::size_t group_end = index + 1;
        const bool per_stream = table[index][0].find('i') != std::string::npos;
        while (per_stream && group_end < table.size() && table[group_end][0].find('i') != std::string::npos) {
            ++group_end;
        }
        const std::size_t repeats = per_stream ? values.at('S') : 1;
        for (std::size_t stream = 0; stream < repeats; ++stream) {
            values['i'] = stream;
            for (std::size_t member = index; member < group_end; ++member) {
                const std::vector<std::string>& cells = table[member];
                std::string name = cells[2];
                const std::size_t index_mark = name.find("(i)");
                if (index_mark != std::string::npos) {
                    name.replace(index_mark, 3, "(" + std::to_string(stream) + ")");
                }
                rows.push_back({name, evaluate(cells[0], values), type_size(cells[1], values)});
            }
        }
        index = group_end;
    }
    return rows;
}

TEST(ContainerLayout, DocumentationTablesMatchTheCode) {
    for (const std::string section : {"Preamble", "Header section", "Block", "Trailer"}) {
        const std::vector<Row> code = code_rows(section);
        EXPECT_EQ(rows_text(doc_rows(section)), rows_text(code)) << "docs/format.md, section " << section;
        // The variable-length parts too leave no gap: every byte is a field.
        std::size_t next = 0;
        for (const Row& row : code) {
            EXPECT_EQ(row.offset, next) << section << ": " << row_text(row);
            next = row.offset + row.size;
        }
    }
}

}  // namespace
}  // namespace tcgen_runtime
