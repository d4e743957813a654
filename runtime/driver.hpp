#pragma once
// The generic compressor and decompressor around a generated Codec, and the
// command line of every generated program.
//
// A Codec is the class the generator emits for one spec:
//
//   struct SomeCodec {
//     static constexpr std::string_view program_name = "comp";
//     static constexpr std::string_view spec_text = "...";        // canonical spec
//     static constexpr std::uint64_t fingerprint = 0x...;          // fingerprint64(spec_text)
//     static constexpr std::size_t header_bytes = 4;               // may be 0
//     static constexpr std::size_t record_bytes = 12;
//     static constexpr std::size_t records_per_block = 1 << 18;    // >= 1
//     static constexpr std::size_t stream_count = 4;
//     static constexpr std::array<std::string_view, stream_count> stream_names = {...};
//     static constexpr std::uint64_t table_bytes = ...;            // what constructing it allocates
//     void encode(const std::uint8_t* records, std::size_t count, StreamWriter* streams);
//     void decode(StreamReader* streams, std::size_t count, std::uint8_t* records);
//     void write_report(std::FILE* out) const;
//   };
//
// encode appends whatever it likes to streams[0..stream_count) for `count`
// whole records (at most tcz_max_stream_bytes(count, record_bytes) bytes in
// all); decode must read them back and rebuild exactly those records. The
// predictor state lives in the codec and carries from block to block, so one
// codec object serves one whole compression or decompression run, and two
// codecs never share anything. Constructing a codec allocates its tables,
// zeroed; the driver does so only once the command line asks for work.

#include <csignal>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <memory>
#include <new>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <unistd.h>

#include "checksum.hpp"
#include "container.hpp"
#include "error.hpp"
#include "io.hpp"
#include "streams.hpp"

namespace tcgen_runtime {

struct RunTotals {
    std::uint64_t input_bytes = 0;
    std::uint64_t output_bytes = 0;
    std::uint64_t records = 0;
    std::uint64_t blocks = 0;
};

// Compile-time checks that a codec fits the format, so a bad generator is
// caught when the generated file is compiled rather than at run time.
template <class Codec>
constexpr bool check_codec() {
    static_assert(Codec::record_bytes >= 1, "a record has at least one byte");
    static_assert(Codec::record_bytes <= tcz_max_record_bytes, "record too large for the .tcz format");
    static_assert(Codec::header_bytes <= tcz_max_header_bytes, "header too large for the .tcz format");
    static_assert(Codec::records_per_block >= 1, "a block holds at least one record");
    static_assert(Codec::records_per_block <= tcz_max_block_bytes / Codec::record_bytes,
                  "block too large for the .tcz format");
    static_assert(Codec::stream_count <= tcz_max_stream_count, "too many streams for the .tcz format");
    static_assert(Codec::stream_names.size() == Codec::stream_count, "one name per stream");
    static_assert(Codec::spec_text.size() <= tcz_max_spec_bytes, "spec text too long for the .tcz format");
    static_assert(Codec::fingerprint == fingerprint64(Codec::spec_text),
                  "fingerprint must be fingerprint64(spec_text)");
    return true;
}

template <class Codec>
Preamble codec_preamble() {
    Preamble preamble;
    preamble.fingerprint = Codec::fingerprint;
    preamble.spec_text = std::string(Codec::spec_text);
    preamble.record_bytes = static_cast<std::uint32_t>(Codec::record_bytes);
    preamble.header_bytes = static_cast<std::uint32_t>(Codec::header_bytes);
    preamble.stream_count = static_cast<std::uint32_t>(Codec::stream_count);
    preamble.records_per_block = Codec::records_per_block;
    return preamble;
}

// Compresses all of `input` into a .tcz on `output` (flushed). Memory: one
// block of records plus the streams of one block, whatever the input length.
template <class Codec>
RunTotals compress(Codec& codec, ByteSource& input, ByteSink& output, Backend backend = default_backend) {
    static_assert(check_codec<Codec>());
    constexpr std::size_t block_bytes = Codec::records_per_block * Codec::record_bytes;
    ContainerWriter writer(output, backend);
    writer.write_preamble(codec_preamble<Codec>());
    RunTotals totals;
    std::vector<std::uint8_t> header(Codec::header_bytes);
    const std::size_t header_size = input.read_up_to(header.data(), header.size());
    writer.write_header(header.data(), header_size);
    totals.input_bytes = header_size;
    std::vector<std::uint8_t> block(block_bytes);
    std::size_t tail_size = 0;
    const std::uint8_t* tail = block.data();
    if (header_size == Codec::header_bytes) {
        std::vector<StreamWriter> streams(Codec::stream_count);
        while (true) {
            const std::size_t size = input.read_up_to(block.data(), block_bytes);
            const std::size_t record_count = size / Codec::record_bytes;
            const std::size_t record_area = record_count * Codec::record_bytes;
            if (record_count > 0) {
                for (StreamWriter& stream : streams) {
                    stream.clear();
                }
                codec.encode(block.data(), record_count, streams.data());
                writer.write_block(block.data(), record_count, streams.data());
                totals.records += record_count;
                totals.blocks += 1;
            }
            totals.input_bytes += size;
            if (size < block_bytes) {
                // read_up_to only stops short at the end of the input.
                tail = block.data() + record_area;
                tail_size = size - record_area;
                break;
            }
        }
    }
    writer.write_trailer(totals.records, totals.input_bytes, tail, tail_size);
    output.flush();
    totals.output_bytes = writer.bytes_written();
    return totals;
}

// Decompresses a .tcz from `input` onto `output` (flushed). Every piece is
// written only after its checksum has been verified.
template <class Codec>
RunTotals decompress(Codec& codec, ByteSource& input, ByteSink& output) {
    static_assert(check_codec<Codec>());
    ContainerReader reader(input);
    const Preamble preamble = reader.read_preamble();
    check_preamble_matches(preamble, codec_preamble<Codec>());
    RunTotals totals;
    std::vector<std::uint8_t> header;
    reader.read_header(header);
    output.write(header.data(), header.size());
    totals.output_bytes = header.size();
    BlockData block;
    Trailer trailer;
    std::vector<StreamReader> streams(Codec::stream_count);
    std::vector<std::uint8_t> records;
    while (reader.read_next(block, trailer, Codec::stream_names.data())) {
        const std::size_t record_count = static_cast<std::size_t>(block.record_count);
        const std::size_t record_area = record_count * Codec::record_bytes;
        records.resize(record_area);
        for (std::size_t stream = 0; stream < Codec::stream_count; ++stream) {
            streams[stream] =
                StreamReader(Codec::stream_names[stream], block.streams[stream].data(), block.streams[stream].size());
        }
        codec.decode(streams.data(), record_count, records.data());
        for (const StreamReader& stream : streams) {
            if (!stream.at_end()) {
                fail("corrupt input: stream '" + std::string(stream.name()) + "' of " + block_name(block.number) +
                     " has " + size_text(stream.remaining()) + " unused bytes");
            }
        }
        reader.verify_records(block, records.data());
        output.write(records.data(), record_area);
        totals.output_bytes += record_area;
        totals.records += record_count;
        totals.blocks += 1;
    }
    output.write(trailer.tail.data(), trailer.tail.size());
    totals.output_bytes += trailer.tail.size();
    output.flush();
    totals.input_bytes = reader.bytes_read();
    return totals;
}

inline std::string program_basename(const char* argv0, std::string_view fallback) {
    if (argv0 == nullptr || *argv0 == '\0') {
        return std::string(fallback);
    }
    const std::string path(argv0);
    const std::size_t slash = path.find_last_of('/');
    const std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
    return name.empty() ? std::string(fallback) : name;
}

// The spec comes from an untrusted file: show it, but not its control
// characters, which could drive the terminal.
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

inline void write_text(ByteSink& sink, const std::string& text) {
    sink.write(reinterpret_cast<const std::uint8_t*>(text.data()), text.size());
    sink.flush();
}

template <class Codec>
std::string usage_text(const std::string& name) {
    return "usage: " + name +
           " [-d] [-f] [--backend=NAME] < input > output\n"
           "Compresses a trace on standard input into a .tcz on standard output,\n"
           "printing the predictor usage report and a summary on standard error.\n"
           "  -d          decompress a .tcz on standard input instead\n"
           "  -f          write the output even to a terminal\n"
           "  --backend=NAME  compress the streams with lzma (the default: smallest),\n"
           "              zstd (fastest to decompress) or bzip2 (the TCgen paper's)\n"
           "  --spec      print the trace specification this program was made from\n"
           "  -h, --help  print this help\n";
}

// A fresh codec, or an Error naming the table memory it could not get.
template <class Codec>
std::unique_ptr<Codec> make_codec() {
    try {
        return std::make_unique<Codec>();
    } catch (const std::bad_alloc&) {
        fail("cannot allocate " + size_text(Codec::table_bytes) + " bytes of predictor tables");
    }
}

// The command line, on any input, output and message stream (run_main uses
// stdin, stdout and stderr). Returns the exit status: 0 success, 1 an error
// the user can do something about (bad input, I/O, memory), 2 an internal
// error (a bug).
template <class Codec>
int run_command(int argc, char** argv, ByteSource& input, ByteSink& output, std::FILE* messages,
                bool output_is_terminal = false) {
    const std::string name = program_basename(argc > 0 ? argv[0] : nullptr, Codec::program_name);
    bool decompressing = false;
    bool forced = false;
    Backend backend = default_backend;
    try {
        for (int index = 1; index < argc; ++index) {
            const std::string argument = argv[index];
            if (argument == "-d") {
                decompressing = true;
            } else if (argument == "-f") {
                forced = true;
            } else if (argument == "-h" || argument == "--help") {
                write_text(output, usage_text<Codec>(name));
                return 0;
            } else if (argument.rfind("--backend=", 0) == 0) {
                const std::string requested = argument.substr(std::string("--backend=").size());
                const std::optional<Backend> chosen = backend_from_name(requested);
                if (!chosen) {
                    fail("unknown back-end '" + requested + "' (bzip2, lzma or zstd)");
                }
                backend = *chosen;
            } else if (argument == "--spec") {
                write_text(output, std::string(Codec::spec_text));
                return 0;
            } else if (!argument.empty() && argument[0] == '-') {
                fail("unknown option '" + argument + "' (try -h)");
            } else {
                fail("unexpected argument '" + argument + "' (the program reads standard input; try -h)");
            }
        }
        // Binary data would garble the terminal; refused before the tables
        // are allocated or any input is read.
        if (output_is_terminal && !forced) {
            fail(std::string("refusing to write ") + (decompressing ? "decompressed" : "compressed") +
                 " data to a terminal (redirect standard output, or use -f)");
        }
        const std::unique_ptr<Codec> codec = make_codec<Codec>();
        if (decompressing) {
            decompress(*codec, input, output);
            return 0;
        }
        const RunTotals totals = compress(*codec, input, output, backend);
        codec->write_report(messages);
        const double ratio = totals.output_bytes == 0
                                 ? 0.0
                                 : static_cast<double>(totals.input_bytes) / static_cast<double>(totals.output_bytes);
        std::fprintf(messages, "%s: %llu bytes in, %llu bytes out, ratio %.3f (%llu records in %llu blocks)\n",
                     name.c_str(), static_cast<unsigned long long>(totals.input_bytes),
                     static_cast<unsigned long long>(totals.output_bytes), ratio,
                     static_cast<unsigned long long>(totals.records), static_cast<unsigned long long>(totals.blocks));
        std::fflush(messages);
        return 0;
    } catch (const SpecMismatchError& error) {
        std::fprintf(messages, "%s: error: %s\n%s", name.c_str(), error.what(),
                     printable_text(error.spec_text()).c_str());
    } catch (const Error& error) {
        std::fprintf(messages, "%s: error: %s\n", name.c_str(), error.what());
    } catch (const std::bad_alloc&) {
        std::fprintf(messages, "%s: error: out of memory\n", name.c_str());
    } catch (const std::exception& error) {
        std::fprintf(messages, "%s: internal error: %s\n", name.c_str(), error.what());
        std::fflush(messages);
        return 2;
    }
    std::fflush(messages);
    return 1;
}

// What a generated main() calls.
template <class Codec>
int run_main(int argc, char** argv) {
    // A closed pipe must give "write error: Broken pipe" and exit status 1,
    // not a silent death by SIGPIPE.
    std::signal(SIGPIPE, SIG_IGN);
    InputFile input(STDIN_FILENO);
    OutputFile output(STDOUT_FILENO);
    const bool output_is_terminal = ::isatty(STDOUT_FILENO) == 1;
    return run_command<Codec>(argc, argv, input, output, stderr, output_is_terminal);
}

}  // namespace tcgen_runtime
