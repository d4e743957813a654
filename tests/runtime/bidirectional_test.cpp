// The bidirectionally traversable streams (runtime/bidirectional/, after the
// WET paper, Zhang & Gupta 2005, §4): every walk of a stream gives back the
// values it was built from, whatever the predictor, width, table size, data
// and mix of steps, seeks and save/load round trips; the choice among
// candidates; the defect of the paper's own Fig. 9 that the runtime's
// predictors avoid; refusal of damaged and forged saved streams; and the two
// building blocks, BitStacks and PrefixCode.

#include "runtime/bidirectional/bit_stacks.hpp"
#include "runtime/bidirectional/field_choice.hpp"
#include "runtime/bidirectional/field_stream.hpp"
#include "runtime/bidirectional/predictor.hpp"
#include "runtime/bidirectional/prefix_code.hpp"
#include "runtime/bidirectional/saved_form.hpp"
#include "runtime/bidirectional/saved_stream.hpp"
#include "runtime/bidirectional/symbol_coder.hpp"
#include "runtime/checksum.hpp"
#include "runtime/error.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <random>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace tcgen_runtime::bidirectional {
namespace {

using Bytes = std::vector<std::uint8_t>;
using u8 = std::uint8_t;
using u16 = std::uint16_t;
using u32 = std::uint32_t;
using u64 = std::uint64_t;

constexpr std::uint64_t test_fingerprint = 0x7E57F1E1D5u;

std::uint64_t low_bits(unsigned length) {
    return length == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << length) - 1;
}

// ---------------------------------------------------------------------------
// Walking a stream against its values.

// Moves a stream (a FieldStream or a FieldChoice) about and checks every
// value it returns against the uncompressed vector. The state at a position
// does not depend on the walk that led there (field_stream.hpp), so the
// stream's size in bits at each position is recorded on the first visit and
// compared on every later one; and a stream built from its values has room
// for its widest point, so its memory must not change until it is first
// reloaded. A walk stops at its first failure.
template <class Stream, class Value>
class Walk {
public:
    using Reload = std::function<Stream(const Stream&)>;

    Walk(Stream& stream, const std::vector<Value>& values, Reload reload)
        : stream_(stream),
          values_(values),
          reload_(std::move(reload)),
          bits_at_(values.size() + 1, unknown),
          built_memory_(stream.memory_bytes()) {
        bits_at_[stream.position()] = stream.stream_bits();
    }

    // `actions` random actions (runs of steps one way, seeks to a random
    // position stepping all the way, save and load at the position); then
    // end -> start -> end.
    bool run(std::uint64_t seed, std::size_t actions, unsigned seek_percent, unsigned reload_percent) {
        const std::uint64_t count = values_.size();
        std::mt19937_64 random(seed);
        for (std::size_t action = 0; action < actions; ++action) {
            const unsigned roll = static_cast<unsigned>(random() % 100);
            if (roll < seek_percent) {
                if (!seek(random() % (count + 1))) {
                    return false;
                }
            } else if (roll < seek_percent + reload_percent) {
                if (!reload()) {
                    return false;
                }
            } else {
                const bool ahead = (random() & 1) != 0;
                for (std::uint64_t steps = 1 + random() % 24; steps > 0; --steps) {
                    if (ahead ? stream_.position() == count : stream_.position() == 0) {
                        break;
                    }
                    if (!(ahead ? forward() : backward())) {
                        return false;
                    }
                }
            }
        }
        return seek(count) && seek(0) && seek(count);
    }

    bool forward() {
        const std::uint64_t p = stream_.position();
        const std::uint64_t value = stream_.forward();
        ++moves_;
        if (value != std::uint64_t{values_[p]}) {
            ADD_FAILURE() << "forward from " << p << " (move " << moves_ << ") returned " << value << ", not "
                          << std::uint64_t{values_[p]};
            return false;
        }
        return check_place(p + 1);
    }

    bool backward() {
        const std::uint64_t p = stream_.position();
        const std::uint64_t value = stream_.backward();
        ++moves_;
        if (value != std::uint64_t{values_[p - 1]}) {
            ADD_FAILURE() << "backward from " << p << " (move " << moves_ << ") returned " << value << ", not "
                          << std::uint64_t{values_[p - 1]};
            return false;
        }
        return check_place(p - 1);
    }

    bool seek(std::uint64_t target) {
        while (stream_.position() < target) {
            if (!forward()) {
                return false;
            }
        }
        while (stream_.position() > target) {
            if (!backward()) {
                return false;
            }
        }
        return true;
    }

    bool reload() {
        const std::uint64_t p = stream_.position();
        stream_ = reload_(stream_);
        reloaded_ = true;
        if (testing::Test::HasFailure()) {
            return false;
        }
        return check_place(p);
    }

private:
    static constexpr std::uint64_t unknown = ~std::uint64_t{0};

    // The position as expected; the size in bits the first visit found; the
    // memory it was built with until the first reload.
    bool check_place(std::uint64_t expected) {
        if (stream_.position() != expected) {
            ADD_FAILURE() << "at " << stream_.position() << " where " << expected << " was expected";
            return false;
        }
        if (bits_at_[expected] == unknown) {
            bits_at_[expected] = stream_.stream_bits();
        } else if (stream_.stream_bits() != bits_at_[expected]) {
            ADD_FAILURE() << "at " << expected << " (move " << moves_ << ") the stream takes "
                          << stream_.stream_bits() << " bits, on the first visit " << bits_at_[expected];
            return false;
        }
        if (!reloaded_ && stream_.memory_bytes() != built_memory_) {
            ADD_FAILURE() << "at " << expected << " (move " << moves_ << ") a built stream takes "
                          << stream_.memory_bytes() << " bytes, built with " << built_memory_;
            return false;
        }
        return true;
    }

    Stream& stream_;
    const std::vector<Value>& values_;
    Reload reload_;
    std::vector<std::uint64_t> bits_at_;
    std::size_t built_memory_;
    bool reloaded_ = false;
    std::uint64_t moves_ = 0;
};

// Save and load a FieldStream at its position, as a field on its own.
template <class Value, class C>
FieldStream<Value, C> reload_stream(const FieldStream<Value, C>& stream, unsigned max_table_bits) {
    ByteWriter out;
    stream.save(out);
    ByteReader in(out.bytes().data(), out.bytes().size());
    FieldStream<Value, C> loaded = FieldStream<Value, C>::load(in, stream.count(), stream.position(), max_table_bits);
    EXPECT_EQ(in.remaining(), 0u) << "load left bytes of the field unread";
    return loaded;
}

// Save and load a FieldChoice in the checked envelope, as generated code does.
template <class Field>
Field reload_choice(const Field& field, std::uint64_t count, unsigned max_table_bits) {
    ByteWriter out;
    begin_saved(out, test_fingerprint, SavedPlace{count, field.position()});
    field.save(out);
    const Bytes bytes = finish_saved(out);
    ByteReader in(nullptr, 0);
    const SavedPlace place = open_saved(bytes.data(), bytes.size(), test_fingerprint, "test.spec", in);
    EXPECT_EQ(place.count, count);
    EXPECT_EQ(place.position, field.position());
    Field loaded = Field::load(in, place.count, place.position, max_table_bits);
    end_saved(in);
    EXPECT_EQ(loaded.description(), field.description());
    return loaded;
}

// ---------------------------------------------------------------------------
// Data shapes.

enum class Shape {
    random,            // uniform over the width
    equal,             // one nonzero value: all hits, one long run
    zeros,             // all zero: hits on the zeroed tables from the start
    stride,            // a constant stride (wrapping at the width)
    alternating,       // strictly alternating miss, hit
    misses,            // a miss at every value: distinct as far as the width allows
    misses_then_hits,  // a long stretch of misses, then a long stretch of hits
    hits_then_misses,  // and the other way round
    swings,            // stretches of misses and hits of random lengths
    repeated,          // a random block three times: the halves' total swings
};

const Shape all_shapes[] = {Shape::random,           Shape::equal,
                            Shape::zeros,            Shape::stride,
                            Shape::alternating,      Shape::misses,
                            Shape::misses_then_hits, Shape::hits_then_misses,
                            Shape::swings,           Shape::repeated};

const char* shape_name(Shape shape) {
    switch (shape) {
    case Shape::random: return "random";
    case Shape::equal: return "equal";
    case Shape::zeros: return "zeros";
    case Shape::stride: return "stride";
    case Shape::alternating: return "alternating";
    case Shape::misses: return "misses";
    case Shape::misses_then_hits: return "misses_then_hits";
    case Shape::hits_then_misses: return "hits_then_misses";
    case Shape::swings: return "swings";
    case Shape::repeated: return "repeated";
    }
    return "?";
}

// Values on which the predictor C, coding them in order from their left
// context with a table of 2^table_bits lines (as FieldChoice estimates), hits
// exactly where `hit` says: a hit takes its slot-0 prediction, a miss a
// random value the predictor does not hold (retried; 8-bit values may run
// out of such values after many tries, then the miss becomes a hit).
template <class Value, class C>
std::vector<Value> predicted_values(std::size_t count, unsigned table_bits, std::mt19937_64& random,
                                    const std::function<bool(std::size_t)>& hit) {
    std::vector<Value> values(count);
    Predictor<Value, C> predictor(table_bits);
    Value context[C::window];
    for (std::size_t j = 0; j < count; ++j) {
        for (unsigned i = 0; i < C::window; ++i) {
            context[i] = j > i ? values[j - 1 - i] : Value{0};
        }
        Value payload = 0;
        Value value = 0;
        if (hit(j)) {
            value = predictor.decode(0, 0, context);  // slot 0's prediction; undoing a slot-0 hit changes nothing
            predictor.encode(value, context, payload);
        } else {
            for (int attempt = 0;; ++attempt) {
                value = static_cast<Value>(random());
                const unsigned symbol = predictor.encode(value, context, payload);
                if (symbol >= C::entries || attempt == 100) {
                    break;
                }
                predictor.decode(symbol, payload, context);  // a hit: undo it and try another value
            }
        }
        values[j] = value;
    }
    return values;
}

template <class Value, class C>
std::vector<Value> make_values(Shape shape, std::size_t count, unsigned table_bits, std::uint64_t seed) {
    std::mt19937_64 random(seed);
    std::vector<Value> values(count);
    switch (shape) {
    case Shape::random:
        for (Value& value : values) {
            value = static_cast<Value>(random());
        }
        return values;
    case Shape::equal:
        std::fill(values.begin(), values.end(), static_cast<Value>(random() | 1));
        return values;
    case Shape::zeros:
        return values;
    case Shape::stride: {
        const std::uint64_t base = random();
        const std::uint64_t stride = random() | 1;
        for (std::size_t j = 0; j < count; ++j) {
            values[j] = static_cast<Value>(base + j * stride);
        }
        return values;
    }
    case Shape::alternating:
        return predicted_values<Value, C>(count, table_bits, random, [](std::size_t j) { return j % 2 == 1; });
    case Shape::misses:
        return predicted_values<Value, C>(count, table_bits, random, [](std::size_t) { return false; });
    case Shape::misses_then_hits:
        return predicted_values<Value, C>(count, table_bits, random, [count](std::size_t j) { return j >= count / 2; });
    case Shape::hits_then_misses:
        return predicted_values<Value, C>(count, table_bits, random, [count](std::size_t j) { return j < count / 2; });
    case Shape::swings: {
        std::vector<bool> hits(count);
        bool hit = false;
        for (std::size_t j = 0; j < count;) {
            const std::size_t stretch = 1 + static_cast<std::size_t>(random() % (count / 6 + 1));
            for (std::size_t k = 0; k < stretch && j < count; ++k, ++j) {
                hits[j] = hit;
            }
            hit = !hit;
        }
        return predicted_values<Value, C>(count, table_bits, random, [&hits](std::size_t j) { return hits[j]; });
    }
    case Shape::repeated: {
        const std::size_t block = std::max<std::size_t>(1, count / 3);
        for (std::size_t j = 0; j < count; ++j) {
            values[j] = j < block ? static_cast<Value>(random()) : values[j - block];
        }
        return values;
    }
    }
    return values;
}

// ---------------------------------------------------------------------------
// 1. Random walks of every predictor kind, order, entry count and width.

template <class V, class kind, unsigned order, unsigned entries>
struct Case {
    using Value = V;
    using C = Candidate<kind, order, entries>;
};

using lv = Kind::last_value;
using fcm = Kind::fcm;
using dfcm = Kind::dfcm;

// Every kind with every width, and every order 1-4 with every entry count
// 1, 2, 4 of FCM and DFCM (widths rotated over them).
using WalkCases = testing::Types<
    Case<u8, lv, 0, 1>, Case<u16, lv, 0, 1>, Case<u32, lv, 0, 1>, Case<u64, lv, 0, 1>,  //
    Case<u8, lv, 0, 2>, Case<u16, lv, 0, 2>, Case<u32, lv, 0, 2>, Case<u64, lv, 0, 2>,  //
    Case<u8, lv, 0, 4>, Case<u16, lv, 0, 4>, Case<u32, lv, 0, 4>, Case<u64, lv, 0, 4>,  //
    Case<u8, fcm, 1, 1>, Case<u16, fcm, 1, 2>, Case<u32, fcm, 1, 4>,                    //
    Case<u64, fcm, 2, 1>, Case<u8, fcm, 2, 2>, Case<u16, fcm, 2, 4>,                    //
    Case<u32, fcm, 3, 1>, Case<u64, fcm, 3, 2>, Case<u8, fcm, 3, 4>,                    //
    Case<u16, fcm, 4, 1>, Case<u32, fcm, 4, 2>, Case<u64, fcm, 4, 4>,                   //
    Case<u16, dfcm, 1, 1>, Case<u32, dfcm, 1, 2>, Case<u64, dfcm, 1, 4>,                //
    Case<u8, dfcm, 2, 1>, Case<u16, dfcm, 2, 2>, Case<u32, dfcm, 2, 4>,                 //
    Case<u64, dfcm, 3, 1>, Case<u8, dfcm, 3, 2>, Case<u16, dfcm, 3, 4>,                 //
    Case<u32, dfcm, 4, 1>, Case<u64, dfcm, 4, 2>, Case<u8, dfcm, 4, 4>>;

struct CaseNames {
    template <class T>
    static std::string GetName(int) {
        using C = typename T::C;
        std::string name(C::kind::spec_name);
        if (C::kind::has_order) {
            name += std::to_string(C::order);
        }
        return name + "x" + std::to_string(C::entries) + "_u" + std::to_string(sizeof(typename T::Value) * 8);
    }
};

template <class T>
class BidirectionalWalk : public testing::Test {
protected:
    using Value = typename T::Value;
    using C = typename T::C;
    using Stream = FieldStream<Value, C>;

    // Builds a stream of `shape` and walks it; false after a failure.
    static bool walk(Shape shape, std::size_t count, unsigned table_bits, std::size_t actions, unsigned seek_percent,
                     unsigned reload_percent) {
        const std::uint64_t seed = count * 1000003u + table_bits * 7919u + static_cast<unsigned>(shape);
        SCOPED_TRACE(std::string("shape ") + shape_name(shape) + ", " + std::to_string(count) + " values, 2^" +
                     std::to_string(table_bits) + " lines, seed " + std::to_string(seed));
        const std::vector<Value> values = make_values<Value, C>(shape, count, table_bits, seed);
        Stream stream = Stream::build(values.data(), values.size(), table_bits);
        EXPECT_EQ(stream.count(), count);
        Walk<Stream, Value> walk(stream, values,
                                 [table_bits](const Stream& s) { return reload_stream(s, table_bits); });
        return walk.run(seed, actions, seek_percent, reload_percent);
    }

    // The table sizes to try. A last-value predictor has no table: the size
    // it is built with must make no difference, so two are enough.
    static std::vector<unsigned> table_sizes(std::initializer_list<unsigned> sizes) {
        if (!C::has_table) {
            return {*sizes.begin(), *(sizes.end() - 1)};
        }
        return sizes;
    }
};

TYPED_TEST_SUITE(BidirectionalWalk, WalkCases, CaseNames);

// Lengths 0, 1, around the window, and a few hundred, with tables from one
// line (everything collides) up.
TYPED_TEST(BidirectionalWalk, ShortStreamsOfEveryShape) {
    constexpr std::size_t window = TestFixture::C::window;
    const std::set<std::size_t> lengths = {0, 1, window - 1, window, window + 1, 2 * window + 3, 150};
    for (const Shape shape : all_shapes) {
        for (const std::size_t count : lengths) {
            for (const unsigned table_bits : TestFixture::table_sizes({0, 1, 10})) {
                if (!TestFixture::walk(shape, count, table_bits, 100, 8, 8)) {
                    return;
                }
            }
        }
    }
}

// 20000 values: long stretches make the two halves' sizes swing. Three
// shapes for each case, one of them swings or repeated, the others rotating
// over the cases, so that every shape is walked long by several of them.
TYPED_TEST(BidirectionalWalk, LongStreams) {
    using Chosen = typename TestFixture::C;
    // The kind's number: LV 0, FCM 1, DFCM 2, by the length of its name.
    const std::size_t kind_number = Chosen::kind::spec_name.size() - 2;
    const std::size_t salt =
        kind_number * 7 + Chosen::order * 3 + Chosen::entries + sizeof(typename TestFixture::Value);
    const std::vector<unsigned> sizes = TestFixture::table_sizes({0, 3, 8, 12});
    const Shape shapes[] = {salt % 2 == 0 ? Shape::swings : Shape::repeated, all_shapes[salt % 10],
                            all_shapes[(salt + 5) % 10]};
    for (std::size_t k = 0; k < 3; ++k) {
        if (!TestFixture::walk(shapes[k], 20000, sizes[(salt + k) % sizes.size()], 160, 3, 4)) {
            return;
        }
    }
}

// ---------------------------------------------------------------------------
// The last-value kind has no table, but is built with the field's table size
// like the others (FieldChoice hands it one): the stream it saves must load
// under that size. (It once saved the size and load refused it.)

TEST(BidirectionalLastValue, StreamBuiltWithATableSizeLoadsBack) {
    std::vector<u32> values(300);
    for (std::size_t j = 0; j < values.size(); ++j) {
        values[j] = static_cast<u32>(j % 3);
    }
    using Stream = FieldStream<u32, Candidate<lv, 0, 2>>;
    Stream stream = Stream::build(values.data(), values.size(), 5);
    for (int step = 0; step < 100; ++step) {
        stream.forward();
    }
    ByteWriter out;
    stream.save(out);
    ByteReader in(out.bytes().data(), out.bytes().size());
    try {
        Stream loaded = Stream::load(in, values.size(), 100, 5);
        for (std::uint64_t p = 100; p < values.size(); ++p) {
            ASSERT_EQ(loaded.forward(), values[p]) << "at " << p;
        }
    } catch (const Error& error) {
        FAIL() << "a saved last-value stream is refused: " << error.what();
    }
}

TEST(BidirectionalLastValue, FieldChoiceThatPicksLastValueLoadsBack) {
    std::mt19937_64 random(11);
    std::vector<u32> values(1000);
    for (u32& value : values) {
        value = static_cast<u32>(random() % 4);  // LV[4] hits nearly always and needs no table
    }
    using Field = FieldChoice<u32, Candidate<fcm, 1, 1>, Candidate<lv, 0, 4>>;
    Field field = Field::build(values.data(), values.size(), 10);
    EXPECT_EQ(field.description(), "LV[4]");
    try {
        Field loaded = reload_choice(field, values.size(), 10);
        for (std::uint64_t p = 0; p < values.size(); ++p) {
            ASSERT_EQ(loaded.forward(), values[p]) << "at " << p;
        }
    } catch (const Error& error) {
        FAIL() << "a saved field that chose LV[4] is refused: " << error.what();
    }
}

// ---------------------------------------------------------------------------
// 2. The choice among candidates.

using Choice = FieldChoice<u32, Candidate<fcm, 1, 1>, Candidate<fcm, 2, 2>, Candidate<lv, 0, 4>,
                           Candidate<dfcm, 1, 1>, Candidate<dfcm, 3, 2>>;

bool walk_choice(Choice& field, const std::vector<u32>& values, unsigned max_table_bits, std::uint64_t seed) {
    Walk<Choice, u32> walk(field, values, [&values, max_table_bits](const Choice& f) {
        return reload_choice(f, values.size(), max_table_bits);
    });
    return walk.run(seed, 200, 3, 4);
}

TEST(BidirectionalFieldChoice, PicksDifferentialOnAConstantStride) {
    std::vector<u32> values(20000);
    for (std::size_t j = 0; j < values.size(); ++j) {
        values[j] = static_cast<u32>(0x1234 + 12 * j);
    }
    Choice field = Choice::build(values.data(), values.size(), 16);
    EXPECT_EQ(field.description().rfind("DFCM", 0), 0u) << field.description();
    // Perfectly predicted: a few bits a value at most, all runs.
    EXPECT_LT(field.stream_bits(), values.size());
    walk_choice(field, values, 16, 1);
}

TEST(BidirectionalFieldChoice, PicksAContextPredictorOnACycleWithoutStrides) {
    // Five distinct values, then again: FCM1 learns each successor after one
    // round, and so does DFCM1, from the five strides the cycle makes (any
    // cycle of values is one of strides). LV[4] looks 4 back, one short of
    // the cycle, and never hits. Which of FCM and DFCM is cheaper depends on
    // whether the five contexts collide in the table size tried: here FCM1's
    // do in 2^7 lines and DFCM1's do not, so DFCM1 with 2^7 lines wins, and
    // rightly; what must hold is that the pick predicts the cycle.
    const u32 cycle[5] = {0x9E3779B9u, 17u, 0xDEADBEEFu, 4242u, 77u};
    std::vector<u32> values(20000);
    for (std::size_t j = 0; j < values.size(); ++j) {
        values[j] = cycle[j % 5];
    }
    Choice field = Choice::build(values.data(), values.size(), 16);
    const std::string chosen = field.description();
    EXPECT_EQ(chosen.rfind("LV", 0), std::string::npos) << chosen;
    // A few misses at each end, then runs: far below a bit a value.
    EXPECT_LT(field.stream_bits(), values.size() / 16) << chosen;
    // The same cycle without DFCM candidates: FCM, not LV.
    using NoStrides = FieldChoice<u32, Candidate<lv, 0, 4>, Candidate<fcm, 1, 1>, Candidate<fcm, 2, 2>>;
    NoStrides plain = NoStrides::build(values.data(), values.size(), 16);
    EXPECT_EQ(plain.description().rfind("FCM", 0), 0u) << plain.description();
    EXPECT_LT(plain.stream_bits(), values.size() / 16) << plain.description();
    Walk<NoStrides, u32> walk(plain, values,
                              [&values](const NoStrides& f) { return reload_choice(f, values.size(), 16); });
    walk.run(3, 100, 3, 4);
    walk_choice(field, values, 16, 2);
}

TEST(BidirectionalFieldChoice, WalksWhateverItPicks) {
    std::mt19937_64 random(5);
    for (const std::size_t count : {0u, 1u, 2u, 7u, 3000u}) {
        for (const unsigned max_table_bits : {0u, 6u}) {
            for (int kind = 0; kind < 4; ++kind) {
                std::vector<u32> values(count);
                for (std::size_t j = 0; j < count; ++j) {
                    const u32 noise = static_cast<u32>(random());
                    values[j] = kind == 0   ? noise
                                : kind == 1 ? static_cast<u32>(j * 3 + (noise % 8 == 0 ? noise % 5 : 0))
                                : kind == 2 ? static_cast<u32>((j / 17) % 4)
                                            : static_cast<u32>(j % 7 == 0 ? noise : j % 7);
                }
                const unsigned bits = max_table_bits;
                Choice field = Choice::build(values.data(), values.size(), bits);
                SCOPED_TRACE("kind " + std::to_string(kind) + ", " + std::to_string(count) + " values, picked " +
                             field.description());
                if (!walk_choice(field, values, bits, count + static_cast<std::uint64_t>(kind))) {
                    return;
                }
            }
        }
    }
}

// ---------------------------------------------------------------------------
// 3. The paper's BFCM as printed (Fig. 9, 10, 12), context size 1, one
// entry a line, read literally. A miss overwrites the table entry and keeps
// the new value in the stream; uncompressing a miss writes the value back
// but never restores the entry the miss displaced, so a later hit on that
// line (earlier in the stream) reads the wrong value.

class PaperBfcm {
public:
    // Fig. 12 lines 1-6: every value compressed forward, the context at the
    // end (position i = m - 1).
    PaperBfcm(const std::vector<u32>& values, std::size_t lines) : frtb_(lines, 0), bltb_(lines, 0) {
        context_ = values[0];
        for (std::size_t i = 0; i + 1 < values.size(); ++i) {
            context_ = values[i + 1];
            forward_compress(values[i]);
        }
    }

    // Fig. 10.
    u32 step_forward() {
        const u32 v = forward_uncompress();
        const u32 t = context_;
        context_ = v;
        forward_compress(t);
        return v;
    }
    u32 step_backward() {
        const u32 v = backward_uncompress();
        const u32 t = context_;
        context_ = v;
        backward_compress(t);
        return v;
    }

private:
    struct Code {
        bool hit;
        u32 value;
    };

    std::size_t hash(u32 context) const { return context % frtb_.size(); }

    // Fig. 9.
    void forward_compress(u32 v) {
        const std::size_t index = hash(context_);
        if (frtb_[index] == v) {
            fr_.push_back({true, 0});
        } else {
            fr_.push_back({false, v});
            frtb_[index] = v;
        }
    }
    u32 forward_uncompress() {
        const Code code = bl_.back();
        bl_.pop_back();
        const std::size_t index = hash(context_);
        if (code.hit) {
            return bltb_[index];
        }
        bltb_[index] = code.value;
        return code.value;
    }
    void backward_compress(u32 v) {
        const std::size_t index = hash(context_);
        if (bltb_[index] == v) {
            bl_.push_back({true, 0});
        } else {
            bl_.push_back({false, v});
            bltb_[index] = v;
        }
    }
    u32 backward_uncompress() {
        const Code code = fr_.back();
        fr_.pop_back();
        const std::size_t index = hash(context_);
        if (code.hit) {
            return frtb_[index];
        }
        frtb_[index] = code.value;
        return code.value;
    }

    std::vector<Code> fr_, bl_;  // FR and BL as stacks of codes
    std::vector<u32> frtb_, bltb_;
    u32 context_ = 0;
};

// The walk: back to the start (Fig. 12 lines 9-19, the paper's own
// preparation of the stream), to the end, and back to the start. Each step
// of the model returns the value entering its context: U[i-1] back from i,
// U[i+1] forward. The index of the first wrong value, or -1.
long first_paper_error(const std::vector<u32>& values, std::size_t lines) {
    PaperBfcm model(values, lines);
    const std::size_t last = values.size() - 1;
    long step = 0;
    for (int leg = 0; leg < 3; ++leg) {
        for (std::size_t k = 0; k < last; ++k, ++step) {
            const bool back = leg != 1;
            const std::size_t i = back ? last - k : k;  // the model's position before the step
            const u32 expected = back ? values[i - 1] : values[i + 1];
            if ((back ? model.step_backward() : model.step_forward()) != expected) {
                return step;
            }
        }
    }
    return -1;
}

// The same walk on the runtime's FCM1[1]: model position i is stream
// position i + 1 (the window holds U[i]); every value returned must be
// right, and the full walks after it too.
bool runtime_walk_is_exact(const std::vector<u32>& values, unsigned table_bits) {
    using Stream = FieldStream<u32, Candidate<fcm, 1, 1>>;
    Stream stream = Stream::build(values.data(), values.size(), table_bits);
    Walk<Stream, u32> walk(stream, values, [table_bits](const Stream& s) { return reload_stream(s, table_bits); });
    const std::size_t count = values.size();
    return walk.seek(count) && walk.seek(1) && walk.seek(count) && walk.seek(1) && walk.seek(0) &&
           walk.seek(count) && walk.seek(0);
}

TEST(BidirectionalPaperDefect, TwoContextsOnOneLine) {
    // Lines: context % 2; contexts 5 and 7 share line 1. Compressing forward
    // with right contexts: U0 = 0 (context 5) hits the zeroed line 1;
    // U1 = 5 (context 7) misses and puts 5 on line 1. Back from the end:
    // U1 is a miss, read from the stream (5, right); U0 is a hit on line 1,
    // which still holds 5, not the 0 it held when U0 was compressed.
    const std::vector<u32> values = {0, 5, 7};
    PaperBfcm model(values, 2);
    EXPECT_EQ(model.step_backward(), 5u);  // U1: right
    EXPECT_EQ(model.step_backward(), 5u);  // U0 is 0: the paper's BFCM returns 5
    EXPECT_EQ(first_paper_error(values, 2), 1);

    for (const unsigned table_bits : {0u, 1u}) {
        SCOPED_TRACE("2^" + std::to_string(table_bits) + " lines");
        using Stream = FieldStream<u32, Candidate<fcm, 1, 1>>;
        Stream stream = Stream::build(values.data(), values.size(), table_bits);
        for (std::size_t p = 0; p < values.size(); ++p) {
            EXPECT_EQ(stream.forward(), values[p]);
        }
        EXPECT_EQ(stream.backward(), 7u);
        EXPECT_EQ(stream.backward(), 5u);
        EXPECT_EQ(stream.backward(), 0u);  // the value the paper's BFCM gets wrong
        EXPECT_TRUE(runtime_walk_is_exact(values, table_bits));
    }
}

TEST(BidirectionalPaperDefect, SearchOverSmallSequences) {
    // Every sequence of 2 to 6 values over {0, 1, 2}, with one line (every
    // context collides) and two lines (contexts 0 and 2 collide).
    for (const std::size_t lines : {1u, 2u}) {
        std::vector<u32> first_wrong;
        long wrong = 0;
        long total = 0;
        for (std::size_t length = 2; length <= 6; ++length) {
            std::size_t combinations = 1;
            for (std::size_t k = 0; k < length; ++k) {
                combinations *= 3;
            }
            for (std::size_t code = 0; code < combinations; ++code) {
                std::vector<u32> values(length);
                std::size_t digits = code;
                for (u32& value : values) {
                    value = static_cast<u32>(digits % 3);
                    digits /= 3;
                }
                ++total;
                if (first_paper_error(values, lines) >= 0) {
                    if (wrong++ == 0) {
                        first_wrong = values;
                    }
                }
                for (const unsigned table_bits : {0u, 1u}) {
                    if (!runtime_walk_is_exact(values, table_bits)) {
                        ADD_FAILURE() << "FCM1[1] with 2^" << table_bits << " lines, " << length << " values, code "
                                      << code;
                        return;
                    }
                }
            }
        }
        // The paper's scheme is wrong on a good share of them; the shortest
        // is three values, e.g. {0, 1, 0} on one line.
        EXPECT_GT(wrong, total / 10) << lines << " lines";
        EXPECT_EQ(first_wrong.size(), 3u) << lines << " lines";
    }
    EXPECT_GE(first_paper_error({0, 1, 0}, 1), 0);
}

// ---------------------------------------------------------------------------
// 4. Damaged and forged saved streams.

// Two fields in one envelope, as a generated reader has them.
using FieldA = FieldChoice<u32, Candidate<dfcm, 1, 1>, Candidate<fcm, 1, 1>, Candidate<lv, 0, 2>>;
using FieldB = FieldChoice<u8, Candidate<fcm, 1, 1>, Candidate<dfcm, 2, 1>>;
constexpr unsigned max_bits_a = 6;
constexpr unsigned max_bits_b = 4;
constexpr std::size_t fields_offset = saved_envelope_bytes - 8;  // the envelope before the fields

struct Saved {
    std::vector<u32> a;
    std::vector<u8> b;
    std::uint64_t position = 0;
    Bytes bytes;
};

const Saved& saved_example() {
    static const Saved saved = [] {
        Saved s;
        std::mt19937_64 random(3);
        u32 time = 1000;
        for (int j = 0; j < 200; ++j) {
            time += random() % 10 == 0 ? static_cast<u32>(random() % 50) : 3;
            s.a.push_back(time);
            s.b.push_back(static_cast<u8>(j % 3 == 2 ? 200 : j % 3 * 7 + 1));
        }
        FieldA a = FieldA::build(s.a.data(), s.a.size(), max_bits_a);
        FieldB b = FieldB::build(s.b.data(), s.b.size(), max_bits_b);
        s.position = 77;
        while (a.position() < s.position) {
            a.forward();
            b.forward();
        }
        ByteWriter out;
        begin_saved(out, test_fingerprint, SavedPlace{s.a.size(), s.position});
        a.save(out);
        b.save(out);
        s.bytes = finish_saved(out);
        return s;
    }();
    return saved;
}

struct Loaded {
    SavedPlace place;
    FieldA a;
    FieldB b;
};

Loaded load_saved(const Bytes& bytes, std::uint64_t fingerprint = test_fingerprint) {
    ByteReader in(nullptr, 0);
    Loaded loaded;
    loaded.place = open_saved(bytes.data(), bytes.size(), fingerprint, "test.spec", in);
    loaded.a = FieldA::load(in, loaded.place.count, loaded.place.position, max_bits_a);
    loaded.b = FieldB::load(in, loaded.place.count, loaded.place.position, max_bits_b);
    end_saved(in);
    return loaded;
}

// The message of the Error loading `bytes` throws, or "" (and a failure).
std::string load_error(const Bytes& bytes, std::uint64_t fingerprint = test_fingerprint) {
    try {
        load_saved(bytes, fingerprint);
    } catch (const Error& error) {
        return error.what();
    }
    ADD_FAILURE() << "a damaged stream of " << bytes.size() << " bytes loaded";
    return "";
}

// Recompute the checksum after changing the fields.
Bytes reseal(Bytes bytes) {
    const std::uint64_t check = xxh64(bytes.data(), bytes.size() - 8, 0);
    for (unsigned k = 0; k < 8; ++k) {
        bytes[bytes.size() - 8 + k] = static_cast<u8>(check >> (8 * k));
    }
    return bytes;
}

Bytes leb128(std::uint64_t value) {
    ByteWriter out;
    out.put_count(value);
    return out.bytes();
}

Bytes splice(const Bytes& bytes, std::size_t begin, std::size_t end, const Bytes& replacement) {
    Bytes out(bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(begin));
    out.insert(out.end(), replacement.begin(), replacement.end());
    out.insert(out.end(), bytes.begin() + static_cast<std::ptrdiff_t>(end), bytes.end());
    return out;
}

std::uint64_t read_count(const Bytes& bytes, std::size_t& at) {
    ByteReader in(bytes.data() + at, bytes.size() - at);
    const std::uint64_t value = in.get_count();
    at += in.offset();
    return value;
}

// Where the parts of one saved FieldStream lie (field_stream.hpp, save()).
struct Layout {
    std::size_t table_bits, capacity, codes, ring, before_pending, after_pending, low, high, before_table,
        after_table, end;
};

template <class Value, class C>
Layout layout_of(const Bytes& bytes, std::size_t at) {
    constexpr unsigned symbols = Predictor<Value, C>::symbols.count;
    Layout layout{};
    layout.table_bits = at++;
    layout.capacity = at;
    read_count(bytes, at);
    layout.codes = at;
    at += 2 * symbols;
    layout.ring = at;
    at += C::window * sizeof(Value);
    layout.before_pending = at;
    read_count(bytes, at);
    layout.after_pending = at;
    read_count(bytes, at);
    layout.low = at;
    at += 8 * ((read_count(bytes, at) + 63) / 64);
    layout.high = at;
    at += 8 * ((read_count(bytes, at) + 63) / 64);
    layout.before_table = at;
    for (std::uint64_t lines = read_count(bytes, at); lines > 0; --lines) {
        read_count(bytes, at);
        at += C::entries * sizeof(Value);
    }
    layout.after_table = at;
    for (std::uint64_t lines = read_count(bytes, at); lines > 0; --lines) {
        read_count(bytes, at);
        at += C::entries * sizeof(Value);
    }
    layout.end = at;
    return layout;
}

using StreamA = FieldStream<u32, Candidate<dfcm, 1, 1>>;  // what field A picks

Layout layout_a(const Bytes& bytes) {
    return layout_of<u32, StreamA::Candidate>(bytes, fields_offset + 1);
}

// Walks both fields of a loaded stream everywhere it can; for a forged
// stream the values may be anything, but every failure is an Error.
void walk_anyway(Loaded& loaded) {
    const std::uint64_t limit = std::min<std::uint64_t>(loaded.place.count, 1000);
    for (int leg = 0; leg < 3; ++leg) {
        for (std::uint64_t step = 0; step < limit; ++step) {
            if (leg == 1 ? loaded.a.position() == 0 : loaded.a.position() >= loaded.place.count) {
                break;
            }
            if (leg == 1) {
                loaded.a.backward();
                loaded.b.backward();
            } else {
                loaded.a.forward();
                loaded.b.forward();
            }
        }
    }
}

TEST(BidirectionalSaved, LoadsAndWalksBothFields) {
    const Saved& saved = saved_example();
    Loaded loaded = load_saved(saved.bytes);
    EXPECT_EQ(loaded.a.description().rfind("DFCM1[1]", 0), 0u) << loaded.a.description();
    EXPECT_EQ(loaded.place.count, saved.a.size());
    EXPECT_EQ(loaded.place.position, saved.position);
    EXPECT_EQ(loaded.a.position(), saved.position);
    EXPECT_EQ(loaded.b.position(), saved.position);
    for (std::uint64_t p = saved.position; p-- > 0;) {
        ASSERT_EQ(loaded.a.backward(), saved.a[p]) << p;
        ASSERT_EQ(loaded.b.backward(), saved.b[p]) << p;
    }
    for (std::uint64_t p = 0; p < saved.a.size(); ++p) {
        ASSERT_EQ(loaded.a.forward(), saved.a[p]) << p;
        ASSERT_EQ(loaded.b.forward(), saved.b[p]) << p;
    }
    // The layout the forgeries below rely on covers field A exactly.
    EXPECT_EQ(saved.bytes[fields_offset], 0u);
    const Layout layout = layout_a(saved.bytes);
    EXPECT_LT(layout.end, saved.bytes.size() - 8);
    ByteReader in(saved.bytes.data() + layout.end, saved.bytes.size() - 8 - layout.end);
    EXPECT_NO_THROW(FieldB::load(in, saved.a.size(), saved.position, max_bits_b));
    EXPECT_EQ(in.remaining(), 0u);
}

TEST(BidirectionalSaved, RefusesEveryTruncation) {
    const Bytes& bytes = saved_example().bytes;
    for (std::size_t size = 0; size < bytes.size(); ++size) {
        SCOPED_TRACE("truncated to " + std::to_string(size));
        load_error(Bytes(bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(size)));
    }
}

TEST(BidirectionalSaved, RefusesEveryFlippedByte) {
    const Bytes& bytes = saved_example().bytes;
    for (std::size_t at = 0; at < bytes.size(); ++at) {
        for (const u8 flip : {u8{0xFF}, static_cast<u8>(1u << (at % 8))}) {
            SCOPED_TRACE("byte " + std::to_string(at) + " ^ " + std::to_string(flip));
            Bytes damaged = bytes;
            damaged[at] = static_cast<u8>(damaged[at] ^ flip);
            const std::string message = load_error(damaged);
            if (at >= 5) {
                EXPECT_NE(message.find("checksum"), std::string::npos) << message;
            }
        }
    }
}

TEST(BidirectionalSaved, RefusesAnotherMagicVersionOrSpec) {
    const Bytes& bytes = saved_example().bytes;
    Bytes magic = bytes;
    magic[0] = 'X';
    EXPECT_NE(load_error(reseal(magic)).find("magic"), std::string::npos);
    Bytes version = bytes;
    version[4] = saved_version + 1;
    EXPECT_NE(load_error(reseal(version)).find("version"), std::string::npos);
    EXPECT_NE(load_error(bytes, test_fingerprint + 1).find("another spec"), std::string::npos);
    EXPECT_NE(load_error(Bytes{'T', 'C', 'G', 'B'}).find("too short"), std::string::npos);
}

TEST(BidirectionalSaved, RefusesTrailingBytes) {
    const Bytes& bytes = saved_example().bytes;
    Bytes appended = bytes;
    appended.push_back(0);
    load_error(appended);  // the checksum is no longer the last 8 bytes
    Bytes inside = splice(bytes, bytes.size() - 8, bytes.size() - 8, {0});
    EXPECT_NE(load_error(reseal(inside)).find("after its fields"), std::string::npos);
}

TEST(BidirectionalSaved, RefusesForgedFields) {
    const Bytes& bytes = saved_example().bytes;
    const Layout layout = layout_a(bytes);
    constexpr unsigned symbols = Predictor<u32, StreamA::Candidate>::symbols.count;
    const auto forged = [&](std::size_t begin, std::size_t end, const Bytes& replacement) {
        return reseal(splice(bytes, begin, end, replacement));
    };
    const auto expect_refused = [&](const Bytes& forgery, const std::string& what, const std::string& expected) {
        SCOPED_TRACE(what);
        const std::string message = load_error(forgery);
        EXPECT_NE(message.find(expected), std::string::npos) << message;
    };

    // The candidate index.
    expect_refused(forged(fields_offset, fields_offset + 1, {3}), "candidate 3 of 3", "predictor 3");
    expect_refused(forged(fields_offset, fields_offset + 1, {255}), "candidate 255", "predictor 255");

    // The table size.
    for (const u8 bits : {u8{max_bits_a + 1}, u8{63}, u8{255}}) {
        expect_refused(forged(layout.table_bits, layout.table_bits + 1, {bits}),
                       "table bits " + std::to_string(bits), "a table of 2^");
    }

    // The prefix code of either half.
    for (const std::size_t code : {layout.codes, layout.codes + symbols}) {
        expect_refused(forged(code, code + symbols, Bytes(symbols, 1)), "over-full code", "not complete");
        expect_refused(forged(code, code + symbols, Bytes(symbols, 15)), "incomplete code", "not complete");
        expect_refused(forged(code, code + 1, {0}), "zero length", "length 0");
        expect_refused(forged(code, code + 1, {16}), "length 16", "length 16");
    }

    // Pending slot-0 hits beyond the records on their side (77 before the
    // position, 123 after it).
    const std::uint64_t position = saved_example().position;
    const std::uint64_t count = saved_example().a.size();
    expect_refused(forged(layout.before_pending, layout.after_pending, leb128(position + 1)), "78 pending before",
                   "pending");
    expect_refused(forged(layout.after_pending, layout.low, leb128(count - position + 1)), "124 pending after",
                   "pending");
    expect_refused(forged(layout.after_pending, layout.low, leb128(~std::uint64_t{0})), "2^64 - 1 pending after",
                   "pending");

    // Bit counts larger than the data: with the data left in place, and
    // with the count alone, the half's words taken out.
    for (const std::size_t half : {layout.low, layout.high}) {
        std::size_t at = half;
        const std::uint64_t bits = read_count(bytes, at);
        const std::size_t words_end = at + static_cast<std::size_t>(8 * ((bits + 63) / 64));
        const std::uint64_t rest = bytes.size() - 8 - at;
        expect_refused(forged(half, at, leb128((rest / 8 + 1) * 64)), "half one word too long", "claims");
        expect_refused(forged(half, at, leb128(std::uint64_t{1} << 62)), "half 2^62 bits", "claims");
        for (std::uint64_t missing = 1; missing <= 64; missing += 21) {
            expect_refused(forged(half, words_end, leb128(0 - missing)),
                           "half 2^64 - " + std::to_string(missing) + " bits and no words", "claims");
        }
    }
    expect_refused(forged(layout.capacity, layout.capacity + 1, Bytes(10, 0xFF)), "capacity of 70 bits",
                   "does not fit 64 bits");

    // Table lines: too many, out of range, out of order.
    expect_refused(forged(layout.before_table, layout.before_table + 1, leb128(1000000)), "10^6 lines", "claims");
    const Bytes entry = {1, 2, 3, 4};
    Bytes line_past_end = leb128(1);
    line_past_end.push_back(static_cast<u8>(1u << max_bits_a));
    line_past_end.insert(line_past_end.end(), entry.begin(), entry.end());
    expect_refused(forged(layout.after_table, layout.end, line_past_end), "line 2^6", "out of range");
    Bytes line_twice = {2, 5};
    line_twice.insert(line_twice.end(), entry.begin(), entry.end());
    line_twice.push_back(0);
    line_twice.insert(line_twice.end(), entry.begin(), entry.end());
    expect_refused(forged(layout.after_table, layout.end, line_twice), "line 5 twice", "out of order");

    // The envelope's place: past the end, or before the window, whose
    // values must then be zeros.
    Bytes past_end = bytes;
    past_end[21] = 201;
    past_end[22] = 0;
    expect_refused(reseal(past_end), "position 201 of 200", "past its");
    Bytes at_start = bytes;
    at_start[21] = 0;
    expect_refused(reseal(at_start), "position 0", "not zero");
}

TEST(BidirectionalSaved, ForgedCapacityDoesNotAllocate) {
    const Saved& saved = saved_example();
    const Layout layout = layout_a(saved.bytes);
    std::size_t at = layout.capacity;
    read_count(saved.bytes, at);
    const Bytes forged =
        reseal(splice(saved.bytes, layout.capacity, at, leb128(std::uint64_t{1} << 60)));
    Loaded loaded = load_saved(forged);
    EXPECT_LT(loaded.a.memory_bytes(), std::size_t{1} << 20);
    for (std::uint64_t p = saved.position; p < saved.a.size(); ++p) {
        ASSERT_EQ(loaded.a.forward(), saved.a[p]) << p;
    }
    for (std::uint64_t p = saved.a.size(); p-- > 0;) {
        ASSERT_EQ(loaded.a.backward(), saved.a[p]) << p;
    }
}

// Every byte after the magic and version changed (two ways) with the
// checksum recomputed: refused, or loaded and walked with Errors only.
TEST(BidirectionalSaved, ForgedBytesAreRefusedOrWalked) {
    const Bytes& bytes = saved_example().bytes;
    std::size_t refused = 0;
    std::size_t walked = 0;
    std::size_t failed_walking = 0;
    for (std::size_t at = 13; at + 8 < bytes.size(); ++at) {
        for (const u8 flip : {u8{0xFF}, static_cast<u8>(1u << (at % 8))}) {
            Bytes forged = bytes;
            forged[at] = static_cast<u8>(forged[at] ^ flip);
            forged = reseal(std::move(forged));
            Loaded loaded;
            try {
                loaded = load_saved(forged);
            } catch (const Error&) {
                ++refused;
                continue;
            }
            try {
                walk_anyway(loaded);
                ++walked;
            } catch (const Error&) {
                ++failed_walking;
            }
        }
    }
    EXPECT_GT(refused, 0u);
    EXPECT_GT(walked, 0u);
    EXPECT_GT(failed_walking, 0u);
}

// Runs a walk in a child process that must end normally, an Error being a
// normal end: a crash fails the test instead of stopping the suite.
[[noreturn]] void survive(const std::function<void()>& walk) {
    try {
        walk();
    } catch (const Error&) {
    }
    std::exit(0);
}

// A half whose bit count is within 63 of 2^64 needed 0 words by the reader's
// old rounding ((bits + 63) / 64 wrapped), so the check against the bytes
// left passed and the stack claimed bits it did not have: a crash, fixed.
TEST(BidirectionalSavedDeathTest, ForgedHalfOfNearlyTwoToTheSixtyFourBits) {
    const Saved& saved = saved_example();
    const Layout layout = layout_a(saved.bytes);
    std::size_t at = layout.low;
    const std::uint64_t bits = read_count(saved.bytes, at);
    const std::size_t words_end = at + static_cast<std::size_t>(8 * ((bits + 63) / 64));
    const Bytes forged = reseal(splice(saved.bytes, layout.low, words_end, leb128(~std::uint64_t{0})));
    EXPECT_EXIT(survive([&forged] {
                    Loaded loaded = load_saved(forged);
                    walk_anyway(loaded);
                }),
                testing::ExitedWithCode(0), "");
}

// A saved half holding nothing but a run of slot-0 hits whose gamma value
// is 2^64 - 1 (symbol_coder.hpp: gamma(run - 1) under the run symbol), so
// that the run length, that value plus one, wraps to 0.
template <End end>
Bytes forged_run_half(const PrefixCode& code, unsigned run_symbol) {
    BitStacks run;
    run.push<end>(~std::uint64_t{0}, 64);  // the value's 64 bits,
    run.push<end>(1, 64);                  // 63 zeros and the one that ends them,
    run.push<end>(code.codeword(run_symbol), code.length(run_symbol));  // under the run symbol
    Bytes half = leb128(run.size_bits<end>());
    for (const std::uint64_t word : run.words<end>()) {
        for (unsigned k = 0; k < 8; ++k) {
            half.push_back(static_cast<u8>(word >> (8 * k)));
        }
    }
    return half;
}

// Such a run on top of either half, with no pending hits, of a stream of
// equal values (every step a slot-0 hit on both sides): walking it must give
// values or an Error, and neither hang nor crash.
TEST(BidirectionalSavedDeathTest, ForgedRunLengthOfSixtyFourOnes) {
    using Stream = FieldStream<u32, Candidate<fcm, 1, 1>>;
    const std::vector<u32> values(10, 7);
    Stream stream = Stream::build(values.data(), values.size(), 0);
    for (int step = 0; step < 5; ++step) {
        stream.forward();
    }
    ByteWriter out;
    stream.save(out);
    const Bytes bytes = out.bytes();
    const Layout layout = layout_of<u32, Stream::Candidate>(bytes, 0);
    constexpr unsigned symbols = Predictor<u32, Stream::Candidate>::symbols.count;
    constexpr unsigned run_symbol = Predictor<u32, Stream::Candidate>::symbols.run;
    const auto code_at = [&bytes](std::size_t at) {
        return PrefixCode::from_lengths(Bytes(bytes.begin() + static_cast<std::ptrdiff_t>(at),
                                              bytes.begin() + static_cast<std::ptrdiff_t>(at + symbols)));
    };
    // FR: no pending hits, the forged run; the rest as saved.
    Bytes low = splice(bytes, layout.low, layout.high, forged_run_half<End::low>(code_at(layout.codes), run_symbol));
    low = splice(low, layout.before_pending, layout.after_pending, leb128(0));
    // BL likewise.
    Bytes high = splice(bytes, layout.high, layout.before_table,
                        forged_run_half<End::high>(code_at(layout.codes + symbols), run_symbol));
    high = splice(high, layout.after_pending, layout.low, leb128(0));

    for (const Bytes* forged : {&low, &high}) {
        EXPECT_EXIT(survive([forged, &values] {
                        ByteReader in(forged->data(), forged->size());
                        Stream loaded = Stream::load(in, values.size(), 5, 0);
                        for (int leg = 0; leg < 3; ++leg) {
                            while (leg != 1 && loaded.position() < values.size()) {
                                loaded.forward();
                            }
                            while (leg == 1 && loaded.position() > 0) {
                                loaded.backward();
                            }
                        }
                    }),
                    testing::ExitedWithCode(0), "");
    }
}

// ---------------------------------------------------------------------------
// 5. BitStacks and PrefixCode.

using Entries = std::vector<std::pair<std::uint64_t, unsigned>>;

// The top 64 bits of a stack holding `entries`, last pushed at bit 63.
std::uint64_t expected_top(const Entries& entries) {
    std::uint64_t window = 0;
    unsigned filled = 0;
    for (auto entry = entries.rbegin(); entry != entries.rend() && filled < 64; ++entry) {
        const auto [bits, length] = *entry;
        if (filled + length <= 64) {
            window |= bits << (64 - filled - length);
        } else {
            window |= bits >> (filled + length - 64);
        }
        filled += length;
    }
    return window;
}

template <End end>
void check_stack(const BitStacks& stacks, const Entries& entries) {
    std::uint64_t bits = 0;
    for (const auto& entry : entries) {
        bits += entry.second;
    }
    EXPECT_EQ(stacks.size_bits<end>(), bits);
    EXPECT_EQ(stacks.peek_top<end>(), expected_top(entries));
}

TEST(BidirectionalBitStacks, InterleavedPushAndPopOnBothEndsRoundTrip) {
    std::mt19937_64 random(7);
    BitStacks stacks;  // no room at all: the first push grows it
    Entries low, high;
    std::size_t growths = 0;
    for (int step = 0; step < 25000; ++step) {
        const bool on_low = (random() & 1) != 0;
        Entries& entries = on_low ? low : high;
        const bool push = random() % 100 < 55;
        if (push) {
            const unsigned length = 1 + static_cast<unsigned>(random() % 64);
            const std::uint64_t bits = random() & low_bits(length);
            const std::size_t capacity = stacks.capacity_words();
            if (on_low) {
                stacks.push<End::low>(bits, length);
            } else {
                stacks.push<End::high>(bits, length);
            }
            growths += stacks.capacity_words() != capacity;
            entries.push_back({bits, length});
        } else if (!entries.empty()) {
            const auto [bits, length] = entries.back();
            entries.pop_back();
            const std::uint64_t popped = on_low ? stacks.pop<End::low>(length) : stacks.pop<End::high>(length);
            ASSERT_EQ(popped, bits) << "step " << step << ", " << length << " bits";
        }
        if (step % 97 == 0) {
            check_stack<End::low>(stacks, low);
            check_stack<End::high>(stacks, high);
            ASSERT_FALSE(HasFailure()) << "step " << step;
        }
    }
    for (; !low.empty(); low.pop_back()) {
        ASSERT_EQ(stacks.pop<End::low>(low.back().second), low.back().first);
    }
    for (; !high.empty(); high.pop_back()) {
        ASSERT_EQ(stacks.pop<End::high>(high.back().second), high.back().first);
    }
    EXPECT_GT(growths, 3u);
    EXPECT_EQ(stacks.used_words(), 0u);
}

TEST(BidirectionalBitStacks, GrowthKeepsBothEnds) {
    BitStacks stacks(2);
    for (std::uint64_t k = 0; k < 100; ++k) {
        stacks.push<End::low>(k * 0x0101010101010101u, 64);
        stacks.push<End::high>(k * 3 + 1, 9 + static_cast<unsigned>(k % 50));
    }
    EXPECT_GT(stacks.capacity_words(), 2u);
    EXPECT_GE(stacks.capacity_words(), stacks.used_words());
    for (std::uint64_t k = 100; k-- > 0;) {
        ASSERT_EQ(stacks.pop<End::high>(9 + static_cast<unsigned>(k % 50)), k * 3 + 1) << k;
        ASSERT_EQ(stacks.pop<End::low>(64), k * 0x0101010101010101u) << k;
    }
}

TEST(BidirectionalBitStacks, WordsAndAssignRoundTrip) {
    std::mt19937_64 random(9);
    BitStacks stacks;
    Entries low, high;
    for (int k = 0; k < 500; ++k) {
        const unsigned length = 1 + static_cast<unsigned>(random() % 64);
        const std::uint64_t bits = random() & low_bits(length);
        if (k % 3 == 0) {
            stacks.push<End::low>(bits, length);
            low.push_back({bits, length});
        } else {
            stacks.push<End::high>(bits, length);
            high.push_back({bits, length});
        }
    }
    BitStacks copy(1);
    copy.assign<End::high>(stacks.words<End::high>(), stacks.size_bits<End::high>());
    copy.assign<End::low>(stacks.words<End::low>(), stacks.size_bits<End::low>());
    check_stack<End::low>(copy, low);
    check_stack<End::high>(copy, high);
    for (; !high.empty(); high.pop_back()) {
        ASSERT_EQ(copy.pop<End::high>(high.back().second), high.back().first);
    }
    for (; !low.empty(); low.pop_back()) {
        ASSERT_EQ(copy.pop<End::low>(low.back().second), low.back().first);
    }
    EXPECT_THROW(copy.assign<End::low>(std::vector<std::uint64_t>(2, 0), 64), Error);
    EXPECT_THROW(copy.assign<End::low>(std::vector<std::uint64_t>(1, 0), 65), Error);
}

TEST(BidirectionalBitStacks, PopPastTheBottomThrows) {
    BitStacks stacks;
    EXPECT_THROW(stacks.pop<End::low>(1), Error);
    EXPECT_THROW(stacks.pop<End::high>(64), Error);
    stacks.push<End::low>(0b10110, 5);
    stacks.push<End::high>(0x3FF, 10);
    EXPECT_EQ(stacks.peek_top<End::low>(), std::uint64_t{0b10110} << 59);  // zeros below the bottom
    EXPECT_THROW(stacks.pop<End::low>(6), Error);
    EXPECT_THROW(stacks.pop<End::high>(11), Error);
    // A refused pop changes nothing.
    EXPECT_EQ(stacks.pop<End::low>(5), 0b10110u);
    EXPECT_EQ(stacks.pop<End::high>(10), 0x3FFu);
    EXPECT_THROW(stacks.pop<End::low>(1), Error);
}

void expect_complete_code(const PrefixCode& code, std::size_t symbols, std::mt19937_64& random) {
    ASSERT_EQ(code.lengths().size(), symbols);
    std::uint64_t kraft = 0;
    for (unsigned symbol = 0; symbol < symbols; ++symbol) {
        const unsigned length = code.length(symbol);
        ASSERT_GE(length, 1u) << symbol;
        ASSERT_LE(length, PrefixCode::max_length) << symbol;
        kraft += std::uint64_t{1} << (PrefixCode::max_length - length);
        const std::uint64_t word = std::uint64_t{code.codeword(symbol)} << (64 - length);
        EXPECT_EQ(code.decode(word), std::make_pair(symbol, length)) << symbol;
        // Whatever follows the codeword.
        const std::uint64_t after = random() & low_bits(64 - length);
        EXPECT_EQ(code.decode(word | after), std::make_pair(symbol, length)) << symbol;
    }
    EXPECT_EQ(kraft, std::uint64_t{1} << PrefixCode::max_length) << "not complete";
    // Every window decodes.
    for (int k = 0; k < 100; ++k) {
        EXPECT_LT(code.decode(random()).first, symbols);
    }
}

TEST(BidirectionalPrefixCode, FromCountsIsCompleteAndDecodes) {
    std::mt19937_64 random(13);
    for (std::size_t symbols = 2; symbols <= 40; ++symbols) {
        std::vector<std::uint64_t> counts(symbols);
        for (std::uint64_t& count : counts) {
            count = random() % 4 == 0 ? 0 : random() >> (random() % 64);
        }
        SCOPED_TRACE(std::to_string(symbols) + " symbols");
        expect_complete_code(PrefixCode::from_counts(counts), symbols, random);
    }
    expect_complete_code(PrefixCode::from_counts(std::vector<std::uint64_t>(7, 0)), 7, random);
    // Skewed: the frequent symbol gets one bit, the others still a codeword.
    const PrefixCode skewed = PrefixCode::from_counts({1000000, 0, 1, 0});
    EXPECT_EQ(skewed.length(0), 1u);
    expect_complete_code(skewed, 4, random);
}

TEST(BidirectionalPrefixCode, FibonacciCountsStayWithinTheLengthLimit) {
    // Huffman on Fibonacci counts gives a chain 39 deep; the limit is 15.
    std::vector<std::uint64_t> counts = {1, 1};
    while (counts.size() < 40) {
        counts.push_back(counts[counts.size() - 1] + counts[counts.size() - 2]);
    }
    std::mt19937_64 random(17);
    const PrefixCode code = PrefixCode::from_counts(counts);
    expect_complete_code(code, 40, random);
    unsigned longest = 0;
    for (unsigned symbol = 0; symbol < 40; ++symbol) {
        longest = std::max(longest, code.length(symbol));
    }
    EXPECT_LE(longest, PrefixCode::max_length);
    EXPECT_LE(code.length(39), code.length(0));
    std::reverse(counts.begin(), counts.end());
    expect_complete_code(PrefixCode::from_counts(counts), 40, random);
}

TEST(BidirectionalPrefixCode, FromLengthsRefusesAllButCompleteCodes) {
    using L = std::vector<std::uint8_t>;
    for (const L& lengths : {L{}, L{1}, L{1, 1, 1}, L{2, 2, 2}, L{1, 2, 3}, L{0, 1, 1}, L{1, 1, 0}, L{1, 16, 16},
                             L{16, 16, 1}, L{255, 1, 1}}) {
        std::string text;
        for (const std::uint8_t length : lengths) {
            text += std::to_string(length) + " ";
        }
        EXPECT_THROW(PrefixCode::from_lengths(lengths), Error) << text;
    }
    std::mt19937_64 random(19);
    expect_complete_code(PrefixCode::from_lengths({1, 1}), 2, random);
    expect_complete_code(PrefixCode::from_lengths({2, 1, 2}), 3, random);
    L chain;
    for (std::uint8_t length = 1; length <= 15; ++length) {
        chain.push_back(length);
    }
    chain.push_back(15);
    expect_complete_code(PrefixCode::from_lengths(chain), 16, random);
    // A code read back is the code saved.
    const PrefixCode saved = PrefixCode::from_counts({5, 9, 0, 100, 3, 3});
    const PrefixCode loaded = PrefixCode::from_lengths(saved.lengths());
    for (unsigned symbol = 0; symbol < 6; ++symbol) {
        EXPECT_EQ(loaded.codeword(symbol), saved.codeword(symbol));
        EXPECT_EQ(loaded.length(symbol), saved.length(symbol));
    }
}

}  // namespace
}  // namespace tcgen_runtime::bidirectional
