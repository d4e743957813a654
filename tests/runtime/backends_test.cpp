// Every stream back-end on its own: round trips of every kind of buffer, the
// size bounds the reader enforces, and the errors on damaged data, which must
// be the same for all (decode_growing).

#include "runtime/backends.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <fstream>
#include <iterator>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "tests/runtime/random_bytes.hpp"

namespace tcgen_runtime {
namespace {

using Bytes = std::vector<std::uint8_t>;

// Every back-end of the table, so that a new row is tested like the others.
std::vector<Backend> table_backends() {
    std::vector<Backend> backends;
    for (const BackendRow& row : backend_table) {
        backends.push_back(row.id);
    }
    return backends;
}

const std::vector<Backend> all_backends = table_backends();

using tcgen_test::random_bytes;

// Compressible: a few values in runs.
Bytes patterned_bytes(std::size_t size) {
    Bytes bytes(size);
    for (std::size_t index = 0; index < size; ++index) {
        bytes[index] = static_cast<std::uint8_t>((index / 7) % 5);
    }
    return bytes;
}

Bytes compress(Backend backend, const Bytes& data) {
    Bytes out;
    backend_compress(backend, data.data(), data.size(), out);
    return out;
}

std::string decompress_error(Backend backend, const Bytes& compressed, std::size_t expected_size) {
    Bytes out;
    try {
        backend_decompress(backend, compressed.data(), compressed.size(), out, expected_size, "stream 'x'");
    } catch (const Error& error) {
        return error.what();
    }
    return "no error";
}

TEST(Backends, NamesAndIdentifiersAreTheFormats) {
    EXPECT_EQ(static_cast<int>(Backend::bzip2), 1);
    EXPECT_EQ(static_cast<int>(Backend::lzma), 2);
    EXPECT_EQ(static_cast<int>(Backend::zstd), 3);
    EXPECT_EQ(static_cast<int>(Backend::cm), 4);
    EXPECT_EQ(static_cast<int>(Backend::grammar), 5);
    EXPECT_EQ(default_backend, Backend::lzma);
    for (const Backend backend : all_backends) {
        EXPECT_EQ(backend_from_name(backend_name(backend)), backend);
        EXPECT_EQ(backend_from_id(static_cast<std::uint8_t>(backend)), backend);
    }
    EXPECT_FALSE(backend_from_id(0));
    EXPECT_FALSE(backend_from_id(6));
    EXPECT_FALSE(backend_from_name("xz"));
    EXPECT_EQ(backend_name(Backend{6}), "unknown");
}

// The build's list (runtime/backends.txt: name, identifier, library) names
// the table's rows, in its order, and a library for each ("-" for one of the
// runtime's own).
TEST(Backends, BuildListMatchesTheTable) {
    std::ifstream list(std::string(TCGEN_SOURCE_DIR) + "/runtime/backends.txt");
    ASSERT_TRUE(list) << "runtime/backends.txt";
    std::size_t index = 0;
    for (std::string line; std::getline(list, line);) {
        if (line.empty() || line[0] == '#') {
            continue;
        }
        std::istringstream columns(line);
        std::string name;
        unsigned id = 0;
        std::string library;
        std::string more;
        ASSERT_TRUE(columns >> name >> id >> library) << line;
        EXPECT_FALSE(columns >> more) << line;
        ASSERT_LT(index, std::size(backend_table)) << line;
        EXPECT_EQ(name, backend_table[index].name);
        EXPECT_EQ(id, static_cast<unsigned>(backend_table[index].id)) << name;
        ++index;
    }
    EXPECT_EQ(index, std::size(backend_table));
}

// The command line lists the rows' names, and the help their notes.
TEST(Backends, NamesForTheCommandLineComeFromTheRows) {
    EXPECT_EQ(backend_names(), "bzip2, lzma, zstd, cm or grammar");
    EXPECT_EQ(backend_names(true),
              "bzip2 (the TCgen paper's), lzma, zstd (fastest to decompress), cm (context mixing: smallest, "
              "slowest) or grammar (SEQUITUR grammar of 32-bit ids)");
}

// The memory estimate takes the largest encoder of those a level tries:
// at the default level LZMA's on a large stream, bzip2's on a small one;
// zstd, which no level tries, counts for none.
TEST(Backends, LevelEncoderBytesAreTheLargestTried) {
    const std::uint64_t block = std::uint64_t{16} << 20;
    EXPECT_EQ(level_encoder_bytes(default_level, block), lzma_encoder_bytes(block));
    EXPECT_EQ(level_encoder_bytes(default_level, 4096), bz2_encoder_bytes(4096));
    EXPECT_EQ(level_encoder_bytes(0, block), bz2_encoder_bytes(block));
    // An id stream's grammar, where the level tries it, on the id stream's
    // own size.
    EXPECT_EQ(level_encoder_bytes(default_level, block, block / 4),
              std::max(lzma_encoder_bytes(block), grammar_encoder_bytes(block / 4)));
    EXPECT_EQ(level_encoder_bytes(0, block, block / 4), bz2_encoder_bytes(block));
}

// Each row has an identifier and a name of its own.
TEST(Backends, TableRowsAreDistinct) {
    ASSERT_EQ(all_backends.size(), 5u);
    for (std::size_t first = 0; first < std::size(backend_table); ++first) {
        const BackendRow& row = backend_table[first];
        EXPECT_EQ(&backend_row(row.id), &row);
        for (std::size_t second = first + 1; second < std::size(backend_table); ++second) {
            EXPECT_NE(row.id, backend_table[second].id);
            EXPECT_NE(row.name, backend_table[second].name);
        }
    }
    try {
        backend_row(Backend{6});
        FAIL() << "no error";
    } catch (const Error& error) {
        EXPECT_EQ(std::string(error.what()), "internal error: no back-end 6");
    }
}

TEST(Backends, RoundTripEveryKindOfBuffer) {
    for (const Backend backend : all_backends) {
        for (const std::size_t size : {std::size_t{0}, std::size_t{1}, std::size_t{100}, std::size_t{4097},
                                       std::size_t{70000}, std::size_t{1} << 20}) {
            if (backend == Backend::cm && size > 70000) {
                continue;  // 0.5 MB/s: its large buffers are cm_codec_test's
            }
            for (const Bytes& data : {random_bytes(size, 3), patterned_bytes(size)}) {
                const Bytes compressed = compress(backend, data);
                EXPECT_EQ(compressed.empty(), data.empty()) << backend_name(backend) << " " << size;
                EXPECT_LE(compressed.size(), backend_compress_bound(backend, size)) << backend_name(backend);
                Bytes restored;
                backend_decompress(backend, compressed.data(), compressed.size(), restored, size, "stream 'x'");
                EXPECT_EQ(restored, data) << backend_name(backend) << " " << size;
            }
        }
    }
}

// The level is the writer's business: one decoder reads every level's
// output, and LZMA's searches less below 6 (a bigger output on data with
// long matches), as 7-9 search as 6 does.
TEST(Backends, EveryLevelDecodesWithTheOneDecoder) {
    const Bytes large = patterned_bytes(std::size_t{1} << 20);
    for (const Backend backend : all_backends) {
        // cm is the same at every level, and the slowest: a smaller buffer.
        const Bytes data = backend == Backend::cm ? patterned_bytes(std::size_t{1} << 16) : large;
        for (unsigned level = 0; level <= max_level; ++level) {
            if (backend == Backend::cm && level != 0 && level != max_level) {
                continue;
            }
            Bytes compressed;
            backend_compress(backend, data.data(), data.size(), compressed, level);
            EXPECT_LE(compressed.size(), backend_compress_bound(backend, data.size()));
            Bytes restored;
            backend_decompress(backend, compressed.data(), compressed.size(), restored, data.size(), "stream 'x'");
            EXPECT_EQ(restored, data) << backend_name(backend) << " at level " << level;
        }
    }
    Bytes fast;
    Bytes six;
    Bytes nine;
    backend_compress(Backend::lzma, large.data(), large.size(), fast, 0);
    backend_compress(Backend::lzma, large.data(), large.size(), six, 6);
    backend_compress(Backend::lzma, large.data(), large.size(), nine, 9);
    EXPECT_NE(fast, six);
    EXPECT_EQ(nine, six);
    EXPECT_EQ(six, compress(Backend::lzma, large));  // 6 is the default
}

// Small buffers reuse one encoder per thread; what comes out must be what a
// fresh encoder makes, whatever the size of the buffer before.
TEST(Backends, AReusedLzmaEncoderMakesTheBytesOfAFreshOne) {
    std::mt19937 random(7);
    const std::size_t largest = static_cast<std::size_t>(ReusedLzmaEncoder::largest_raw_size);
    for (const std::size_t size : {std::size_t{1}, std::size_t{12}, std::size_t{4096}, std::size_t{5000},
                                   std::size_t{100}, largest, largest + 1, std::size_t{70000}, std::size_t{3}}) {
        Bytes data(size);
        for (std::uint8_t& byte : data) {
            byte = static_cast<std::uint8_t>(random() % 7);  // compressible, with matches
        }
        Bytes reused;
        lzma_compress(data.data(), data.size(), reused);
        const LzmaFilters filters(size);
        Bytes fresh(static_cast<std::size_t>(lzma_compress_bound(size)));
        std::size_t fresh_size = 0;
        ASSERT_EQ(lzma_raw_buffer_encode(filters.chain(), nullptr, data.data(), size, fresh.data(), &fresh_size,
                                         fresh.size()),
                  LZMA_OK);
        fresh.resize(fresh_size);
        EXPECT_EQ(reused, fresh) << size << " bytes";
    }
}

// Small buffers reuse one zstd context per thread; what comes out must be
// what a fresh context makes, whatever the buffers before.
TEST(Backends, AReusedZstdContextMakesTheBytesOfAFreshOne) {
    std::mt19937 random(11);
    for (const std::size_t size : {std::size_t{1}, std::size_t{12}, zstd_kept_context_limit, std::size_t{4096},
                                   zstd_kept_context_limit + 1, std::size_t{100}, std::size_t{70000},
                                   std::size_t{3}}) {
        Bytes data(size);
        for (std::uint8_t& byte : data) {
            byte = static_cast<std::uint8_t>(random() % 7);  // compressible, with matches
        }
        Bytes reused;
        zstd_compress(data.data(), data.size(), reused);
        const auto fresh_context = zstd_format_context();
        Bytes fresh(static_cast<std::size_t>(zstd_compress_bound(size)));
        const std::size_t fresh_size = ZSTD_compress2(fresh_context.get(), fresh.data(), fresh.size(), data.data(), size);
        ASSERT_FALSE(ZSTD_isError(fresh_size));
        fresh.resize(fresh_size);
        EXPECT_EQ(reused, fresh) << size << " bytes";
    }
}

TEST(Backends, DamagedDataIsRefusedAlike) {
    const Bytes data = patterned_bytes(50000);
    for (const Backend backend : all_backends) {
        const std::string format = backend == Backend::bzip2  ? "bzip2"
                                   : backend == Backend::lzma ? "LZMA"
                                   : backend == Backend::zstd ? "zstd"
                                   : backend == Backend::cm   ? "CM"
                                                              : "grammar";
        const Bytes compressed = compress(backend, data);
        EXPECT_EQ(decompress_error(backend, compressed, data.size()), "no error");
        EXPECT_EQ(decompress_error(backend, compressed, data.size() - 1),
                  "corrupt input: stream 'x' decompresses to more than 49999 bytes");
        EXPECT_EQ(decompress_error(backend, compressed, data.size() + 1),
                  "corrupt input: stream 'x' decompresses to 50000 bytes instead of 50001");
        const Bytes cut(compressed.begin(), compressed.end() - 1);
        const std::string truncated = decompress_error(backend, cut, data.size());
        EXPECT_NE(truncated, "no error") << format;
        Bytes longer = compressed;
        longer.push_back(0);
        EXPECT_EQ(decompress_error(backend, longer, data.size()),
                  "corrupt input: stream 'x' has 1 bytes after the end of its " + format + " stream");
        EXPECT_EQ(decompress_error(backend, Bytes(), 5), "corrupt input: stream 'x' is empty but should hold 5 bytes");
        EXPECT_EQ(decompress_error(backend, compressed, 0),
                  "corrupt input: stream 'x' should be empty but has " + std::to_string(compressed.size()) +
                      " compressed bytes");
        const std::string garbage = decompress_error(backend, random_bytes(300, 9), data.size());
        EXPECT_EQ(garbage.rfind("corrupt input: stream 'x' ", 0), 0u) << garbage;
        // Every flipped byte is an error or the same data (the container's
        // checks catch the rest); never a crash.
        for (std::size_t position = 0; position < compressed.size(); position += 3) {
            Bytes damaged = compressed;
            damaged[position] ^= 0x55;
            Bytes out;
            try {
                backend_decompress(backend, damaged.data(), damaged.size(), out, data.size(), "stream 'x'");
                EXPECT_EQ(out.size(), data.size());
            } catch (const Error&) {
            }
        }
    }
}

// Words from a small vocabulary with skewed frequencies, as in text: the
// kind of data on which bzip2's block sorting beats LZMA.
Bytes wordy_bytes(std::size_t size) {
    const char* const words[] = {"the ", "of ", "and ", "to ", "a ", "in ", "trace ", "value ", "miss ", "store "};
    std::mt19937 random(11);
    Bytes bytes;
    while (bytes.size() < size) {
        const auto pick = static_cast<std::uint32_t>(random() % 100);
        const char* word = words[pick * pick / 1000];
        for (; *word != '\0' && bytes.size() < size; ++word) {
            bytes.push_back(static_cast<std::uint8_t>(*word));
        }
    }
    return bytes;
}

// Random bytes, then the same again further back than bzip2's 900 kB
// block reaches: LZMA's dictionary finds the repeat, bzip2 cannot.
Bytes far_repeat_bytes() {
    Bytes bytes = random_bytes(1200000, 5);
    bytes.insert(bytes.end(), bytes.begin(), bytes.end());
    return bytes;
}

TEST(BackendChoice, OneBackendIsUsedForEveryBuffer) {
    for (const Backend backend : all_backends) {
        const BackendChoice choice(backend);
        EXPECT_EQ(choice.only(), backend);
        for (const Bytes& data : {wordy_bytes(50000), far_repeat_bytes(), Bytes{}}) {
            if (backend == Backend::cm && data.size() > 50000) {
                continue;  // 0.5 MB/s: two passes over 2.4 MB are 10 s
            }
            Bytes compressed;
            Bytes scratch;
            EXPECT_EQ(choice.compress(data.data(), data.size(), compressed, scratch), backend);
            EXPECT_EQ(compressed, compress(backend, data));
        }
    }
}

TEST(BackendChoice, TheDefaultKeepsTheSmallerOfLzmaAndBzip2) {
    const BackendChoice choice;
    EXPECT_FALSE(choice.only());
    struct Case {
        const char* name;
        Bytes data;
        Backend smaller;
    };
    const Case cases[] = {{"words", wordy_bytes(200000), Backend::bzip2},
                          {"far repeat", far_repeat_bytes(), Backend::lzma},
                          {"empty (a tie)", Bytes{}, Backend::lzma}};
    Bytes scratch;
    for (const Case& test : cases) {
        const Bytes lzma = compress(Backend::lzma, test.data);
        const Bytes bzip2 = compress(Backend::bzip2, test.data);
        Bytes compressed;
        const Backend chosen = choice.compress(test.data.data(), test.data.size(), compressed, scratch);
        EXPECT_EQ(chosen, test.smaller) << test.name << ": lzma " << lzma.size() << ", bzip2 " << bzip2.size();
        EXPECT_EQ(compressed, chosen == Backend::lzma ? lzma : bzip2) << test.name;
        Bytes restored;
        backend_decompress(chosen, compressed.data(), compressed.size(), restored, test.data.size(), "stream 'x'");
        EXPECT_EQ(restored, test.data) << test.name;
    }
}

TEST(BackendChoice, CodeStreamsUseBzip2AloneUpToTheDefaultLevel) {
    EXPECT_EQ(stream_content("codes"), StreamContent::codes);
    EXPECT_EQ(stream_content("field_3_codes"), StreamContent::codes);
    EXPECT_EQ(stream_content("field_1_misses"), StreamContent::values);
    EXPECT_EQ(stream_content("_codes"), StreamContent::values);
    EXPECT_EQ(stream_content("codes_of_field_1"), StreamContent::values);
    EXPECT_EQ(stream_content("ids"), StreamContent::ids);
    EXPECT_EQ(stream_content("field_1_ids"), StreamContent::values);

    const BackendChoice either;
    for (unsigned level = 0; level <= max_level; ++level) {
        const std::size_t code_candidates = level <= default_level ? 1 : level < max_level ? 2 : 3;
        EXPECT_EQ(either.candidate_count(StreamContent::codes, level), code_candidates) << "level " << level;
        EXPECT_EQ(either.candidate_count(StreamContent::values, level), level == 0 ? 1u : level < max_level ? 2u : 3u)
            << "level " << level;
        if (level == max_level) {
            EXPECT_EQ(either.candidate(StreamContent::codes, level, 2), Backend::cm);
            EXPECT_EQ(either.candidate(StreamContent::values, level, 2), Backend::cm);
        }
        EXPECT_EQ(either.candidate(StreamContent::codes, level, 0),
                  code_candidates == 1 ? Backend::bzip2 : Backend::lzma);
        // Id streams: their grammar, bzip2, then LZMA (cm at 9); bzip2
        // alone at 0.
        EXPECT_EQ(either.candidate_count(StreamContent::ids, level), level == 0 ? 1u : 3u) << "level " << level;
        EXPECT_EQ(either.candidate(StreamContent::ids, level, 0), level == 0 ? Backend::bzip2 : Backend::grammar);
        if (level != 0) {
            EXPECT_EQ(either.candidate(StreamContent::ids, level, 1), Backend::bzip2);
            EXPECT_EQ(either.candidate(StreamContent::ids, level, 2),
                      level == max_level ? Backend::cm : Backend::lzma);
        }
        const BackendChoice lzma_only(Backend::lzma);
        EXPECT_EQ(lzma_only.candidate_count(StreamContent::codes, level), 1u);
        EXPECT_EQ(lzma_only.candidate(StreamContent::codes, level, 0), Backend::lzma);
    }
    // A buffer LZMA would win goes to bzip2 when it holds codes, up to the
    // default level; above it, and for values, the smaller wins (at 8: 9
    // tries cm as well, which takes 5 s on these 2.4 MB).
    const Bytes repeat = far_repeat_bytes();
    Bytes compressed;
    Bytes scratch;
    EXPECT_EQ(either.compress(repeat.data(), repeat.size(), compressed, scratch, default_level, StreamContent::codes),
              Backend::bzip2);
    EXPECT_EQ(compressed, compress(Backend::bzip2, repeat));
    EXPECT_EQ(either.compress(repeat.data(), repeat.size(), compressed, scratch, default_level, StreamContent::values),
              Backend::lzma);
    EXPECT_EQ(either.compress(repeat.data(), repeat.size(), compressed, scratch, max_level - 1, StreamContent::codes),
              Backend::lzma);
}

// Like a code stream: runs of code 0 (the first predictor right) of 20 to
// 300 codes, each ended by another code, drawn again and again from 200 such
// segments. Following each match to its end (rather than settling for the
// first of 64 bytes) finds the occurrence that goes on for the longest.
Bytes code_like_bytes() {
    std::mt19937 random(7);
    std::vector<Bytes> segments;
    for (int i = 0; i < 200; ++i) {
        Bytes segment(20 + random() % 281, 0);
        segment.push_back(static_cast<std::uint8_t>(1 + random() % 9));
        segments.push_back(std::move(segment));
    }
    Bytes bytes;
    for (int i = 0; i < 5000; ++i) {
        const Bytes& segment = segments[random() % segments.size()];
        bytes.insert(bytes.end(), segment.begin(), segment.end());
    }
    return bytes;
}

TEST(BackendChoice, LevelsAboveTheDefaultFollowLzmaMatchesToTheirEnd) {
    const Bytes codes = code_like_bytes();
    const BackendChoice lzma(Backend::lzma);
    Bytes scratch;
    Bytes at_default;
    ASSERT_EQ(lzma.compress(codes.data(), codes.size(), at_default, scratch), Backend::lzma);
    EXPECT_EQ(at_default, compress(Backend::lzma, codes));
    EXPECT_LE(at_default.size() * 8, codes.size());  // compressible enough to be searched further
    Bytes at_nine;
    ASSERT_EQ(lzma.compress(codes.data(), codes.size(), at_nine, scratch, max_level), Backend::lzma);
    EXPECT_LT(at_nine.size(), at_default.size());
    Bytes restored;
    backend_decompress(Backend::lzma, at_nine.data(), at_nine.size(), restored, codes.size(), "stream 'x'");
    EXPECT_EQ(restored, codes);

    // Neither a buffer that bzip2 wins nor one that LZMA shrinks less than
    // 8-fold is searched further: the level changes nothing there.
    const BackendChoice either;
    const unsigned eight = max_level - 1;
    Bytes at_eight;
    EXPECT_EQ(either.compress(codes.data(), codes.size(), at_eight, scratch, eight), Backend::bzip2);
    EXPECT_EQ(at_eight, compress(Backend::bzip2, codes));
    const Bytes repeat = far_repeat_bytes();
    EXPECT_EQ(either.compress(repeat.data(), repeat.size(), at_eight, scratch, eight), Backend::lzma);
    EXPECT_EQ(at_eight, compress(Backend::lzma, repeat));
    // At 9 context mixing is tried as well, and the smallest of the three
    // kept: on these segments drawn at random bzip2's block sorting still
    // wins; on words drawn from a skewed vocabulary context mixing does.
    // (The choice of the smallest is what compares the sizes: cm runs once
    // per buffer here, as it is slow.)
    EXPECT_EQ(either.compress(codes.data(), codes.size(), at_nine, scratch, max_level), Backend::bzip2);
    EXPECT_EQ(at_nine, compress(Backend::bzip2, codes));
    const Bytes words = wordy_bytes(200000);
    EXPECT_EQ(either.compress(words.data(), words.size(), at_nine, scratch, max_level), Backend::cm);
    EXPECT_EQ(either.compress(words.data(), words.size(), at_eight, scratch, eight), Backend::bzip2);
    backend_decompress(Backend::cm, at_nine.data(), at_nine.size(), restored, words.size(), "stream 'x'");
    EXPECT_EQ(restored, words);
}

}  // namespace
}  // namespace tcgen_runtime
