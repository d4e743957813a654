#pragma once
// What `comp -l` prints of a .tcz: the spec, the records, and the bytes of
// each stream, read from the section headers (every check of the chain
// verified) without decompressing a single stream.

#include <algorithm>
#include <cinttypes>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

#include "container_reader.hpp"
#include "io.hpp"

namespace tcgen_runtime {

struct StreamListing {
    std::string name;
    std::uint64_t raw_bytes = 0;
    std::uint64_t compressed_bytes = 0;
};

// One .tcz (a file may hold several, concatenated).
struct TczListing {
    Preamble preamble;
    std::uint64_t header_bytes = 0;
    std::uint64_t blocks = 0;
    std::uint64_t records = 0;
    std::uint64_t trace_bytes = 0;
    std::uint64_t file_bytes = 0;
    std::vector<StreamListing> streams;
};

// Lists every .tcz on `source`. Stream names are `names` (stream_count of
// them) for a file of the spec with `fingerprint`, numbers otherwise.
inline std::vector<TczListing> list_tcz(ByteSource& source, std::uint64_t fingerprint, const std::string_view* names) {
    std::vector<TczListing> listings;
    ContainerReader reader(source);
    std::vector<std::uint8_t> header;
    BlockData block;
    Trailer trailer;
    do {
        const std::uint64_t start = reader.bytes_read();
        TczListing listing;
        listing.preamble = reader.read_preamble();
        reader.read_header(header);
        listing.header_bytes = header.size();
        const bool named = listing.preamble.fingerprint == fingerprint;
        for (std::size_t stream = 0; stream < listing.preamble.stream_count; ++stream) {
            listing.streams.push_back({named ? std::string(names[stream]) : "stream " + std::to_string(stream), 0, 0});
        }
        while (reader.read_next(block, trailer, named ? names : nullptr, false)) {
            listing.blocks += 1;
            listing.records += block.record_count;
            for (std::size_t stream = 0; stream < listing.streams.size(); ++stream) {
                listing.streams[stream].raw_bytes += block.raw_sizes[stream];
                listing.streams[stream].compressed_bytes += block.compressed_sizes[stream];
            }
        }
        listing.trace_bytes = trailer.total_bytes;
        listing.file_bytes = reader.bytes_read() - start;
        listings.push_back(std::move(listing));
    } while (reader.next_member());
    return listings;
}

// The spec comes from an untrusted file: show it, but not its control
// characters, which could drive the terminal. Ends with a newline.
inline std::string printable_text(const std::string& text) {
    std::string printable;
    printable.reserve(text.size() + 1);
    for (const char character : text) {
        const unsigned char code = static_cast<unsigned char>(character);
        const bool allowed = character == '\n' || character == '\t' || (code >= 0x20 && code != 0x7F);
        printable += allowed ? character : '?';
    }
    if (printable.empty() || printable.back() != '\n') {
        printable += '\n';
    }
    return printable;
}

// The start of a spec from an untrusted file, for an error message: at most
// `max_lines` lines and `max_bytes` bytes, printable, then a line saying how
// much was left out (a forged file may store a megabyte of spec).
inline std::string spec_excerpt(const std::string& text, std::size_t max_lines = 40, std::size_t max_bytes = 4096) {
    std::size_t end = 0;
    std::size_t lines = 0;
    while (end < text.size() && lines < max_lines) {
        const std::size_t newline = text.find('\n', end);
        const std::size_t next = newline == std::string::npos ? text.size() : newline + 1;
        if (next > max_bytes) {
            break;
        }
        end = next;
        lines += 1;
    }
    if (end == 0) {
        end = std::min(text.size(), max_bytes);  // one huge first line: cut it
    }
    std::string excerpt = printable_text(text.substr(0, end));
    if (end < text.size()) {
        excerpt += "... (" + std::to_string(text.size() - end) + " more bytes of the spec not shown)\n";
    }
    return excerpt;
}

inline double ratio_of(std::uint64_t original, std::uint64_t compressed) {
    return compressed == 0 ? 0.0 : static_cast<double>(original) / static_cast<double>(compressed);
}

inline double percent_of(std::uint64_t part, std::uint64_t whole) {
    return whole == 0 ? 0.0 : 100.0 * static_cast<double>(part) / static_cast<double>(whole);
}

// `text` padded with spaces to `width` characters; a longer text is kept
// whole, as printf's %-20s keeps it.
inline std::string padded(const std::string& text, std::size_t width) {
    return text.size() >= width ? text : text + std::string(width - text.size(), ' ');
}

// The per-stream table of -l and of the compression report: each stream's
// compressed bytes and its share of the file. Built as text (numbers through
// snprintf, names, which may be long, appended whole) so that -l can print it
// on standard output and the report on standard error.
inline std::string stream_table_text(const std::vector<StreamListing>& streams, std::uint64_t file_bytes) {
    char columns[160];
    std::snprintf(columns, sizeof columns, " %14s %14s %8s\n", "raw bytes", "compressed", "share");
    std::string text = "  " + padded("stream", 20) + columns;
    std::uint64_t stream_total = 0;
    for (const StreamListing& stream : streams) {
        std::snprintf(columns, sizeof columns, " %14" PRIu64 " %14" PRIu64 " %7.2f%%\n", stream.raw_bytes,
                      stream.compressed_bytes, percent_of(stream.compressed_bytes, file_bytes));
        text += "  " + padded(stream.name, 20) + columns;
        stream_total += stream.compressed_bytes;
    }
    const std::uint64_t rest = file_bytes - stream_total;
    std::snprintf(columns, sizeof columns, " %14s %14" PRIu64 " %7.2f%%\n", "", rest, percent_of(rest, file_bytes));
    text += "  " + padded("(spec, header, checks)", 20) + columns;
    return text;
}

// What -l prints of one .tcz that `file_name` holds.
inline std::string listing_text(const std::string& file_name, const TczListing& listing) {
    char line[320];
    std::snprintf(line, sizeof line,
                  ": %" PRIu64 " records of %" PRIu32 " bytes in %" PRIu64 " blocks, %" PRIu64 " bytes in %" PRIu64
                  " bytes, ratio %.3f\n",
                  listing.records, listing.preamble.record_bytes, listing.blocks, listing.trace_bytes,
                  listing.file_bytes, ratio_of(listing.trace_bytes, listing.file_bytes));
    std::string text = file_name + line;
    const std::uint64_t block_bytes = listing.preamble.records_per_block * listing.preamble.record_bytes;
    std::snprintf(line, sizeof line, "  blocks of %" PRIu64 " records (%" PRIu64 " bytes); ",
                  listing.preamble.records_per_block, block_bytes);
    text += line;
    if (listing.preamble.restart_blocks > 0) {
        std::snprintf(line, sizeof line, "the predictors restart every %" PRIu32 " blocks (seekable)\n",
                      listing.preamble.restart_blocks);
        text += line;
    } else {
        text += "the predictors never restart\n";
    }
    text += "  spec (fingerprint " + hex64(listing.preamble.fingerprint) + "):\n";
    const std::string spec = printable_text(listing.preamble.spec_text);
    std::size_t begin = 0;
    while (begin < spec.size()) {
        const std::size_t end = spec.find('\n', begin);
        text += "    " + spec.substr(begin, end - begin) + "\n";
        begin = end + 1;
    }
    return text + stream_table_text(listing.streams, listing.file_bytes);
}

}  // namespace tcgen_runtime
