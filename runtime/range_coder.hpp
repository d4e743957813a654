#pragma once
// A binary adaptive range coder for the grammar payload (grammar_payload.hpp:
// the .wpp file's and the grammar back-end's), and the number and
// list-index codes built on it. Every decision is one bit coded with an
// adaptive probability; the models above it are written once, for encoding
// and decoding alike, against the two classes here, which share one
// interface:
//   bool bit(Probability&, bool value)   codes `value` (encoder) or returns
//                                        the decoded bit (decoder)
//   bool direct(bool value)              the same at probability 1/2
//   void check(bool ok, const char* what) the decoder fails (an Error,
//                                        "corrupt payload: WHAT") when a
//                                        decoded value is impossible
//
// The coder keeps a 32-bit range and renormalises a byte at a time when the
// range falls below 2^24; the encoder's low end is 64 bits wide so that a
// carry into bytes already produced is propagated through the run of 0xFF
// bytes held back for it. The first byte written is always 0 (the held-back
// byte before any carry) and the last four flush the low end, so a stream
// of n renormalisations is exactly n + 5 bytes, which the decoder checks.

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "error.hpp"

namespace tcgen_runtime {

// The probability that the next bit is 0, in units of 2^-12, moved 1/16 of
// the way towards each bit seen (1/16 came out smaller than 1/32 on the
// traces of the design log). That rule keeps it within [15, 4081], so no
// bit costs more than about 8.1 bits or less than 0.0053: a payload of n
// bytes holds at most about 1500 n decisions, which bounds the decoder's
// work on any input.
class Probability {
public:
    static constexpr int bits = 12;
    static constexpr std::uint32_t one = 1u << bits;
    static constexpr int adapt_shift = 4;

    std::uint32_t zero() const { return value_; }
    void update(bool bit) {
        if (bit) {
            value_ -= value_ >> adapt_shift;
        } else {
            value_ += (one - value_) >> adapt_shift;
        }
    }

private:
    std::uint32_t value_ = one / 2;
};

class RangeEncoder {
public:
    RangeEncoder() = default;

    bool bit(Probability& probability, bool value) {
        const std::uint32_t bound = (range_ >> Probability::bits) * probability.zero();
        if (value) {
            low_ += bound;
            range_ -= bound;
        } else {
            range_ = bound;
        }
        probability.update(value);
        normalise();
        return value;
    }
    bool direct(bool value) {
        range_ >>= 1;
        if (value) {
            low_ += range_;
        }
        normalise();
        return value;
    }
    void check(bool, const char*) {}

    // The coded bytes; the encoder is done with afterwards.
    std::vector<std::uint8_t> finish() {
        for (int i = 0; i < 5; ++i) {
            shift_low();
        }
        return std::move(out_);
    }

private:
    static constexpr std::uint32_t top = 1u << 24;

    void normalise() {
        while (range_ < top) {
            range_ <<= 8;
            shift_low();
        }
    }
    // Emits the byte above the low 24 bits once no carry can change it: a
    // byte below 0xFF (or any byte, once a carry has happened) settles the
    // bytes held back before it; a 0xFF waits, as a carry would turn it to 0.
    void shift_low() {
        if (static_cast<std::uint32_t>(low_) < 0xFF000000u || (low_ >> 32) != 0) {
            const std::uint8_t carry = static_cast<std::uint8_t>(low_ >> 32);
            std::uint8_t held = cache_;
            for (; pending_ > 0; --pending_) {
                out_.push_back(static_cast<std::uint8_t>(held + carry));
                held = 0xFF;
            }
            cache_ = static_cast<std::uint8_t>(low_ >> 24);
        }
        ++pending_;
        low_ = (low_ & 0x00FFFFFFu) << 8;
    }

    std::uint64_t low_ = 0;
    std::uint32_t range_ = 0xFFFFFFFFu;
    std::uint8_t cache_ = 0;
    std::uint64_t pending_ = 1;
    std::vector<std::uint8_t> out_;
};

// Reads past the end as zero bytes and counts them, so that a truncated or
// forged payload cannot make it read out of bounds; the caller stops when
// overrun() is not zero (a valid stream never reads past its end) and, when
// done, checks that every byte was used.
class RangeDecoder {
public:
    RangeDecoder(const std::uint8_t* data, std::size_t size) : data_(data), size_(size) {
        check(next_byte() == 0, "the payload does not start with the coder's 0 byte");
        for (int i = 0; i < 4; ++i) {
            code_ = (code_ << 8) | next_byte();
        }
    }

    bool bit(Probability& probability, bool) {
        const std::uint32_t bound = (range_ >> Probability::bits) * probability.zero();
        bool value = false;
        if (code_ < bound) {
            range_ = bound;
        } else {
            code_ -= bound;
            range_ -= bound;
            value = true;
        }
        probability.update(value);
        normalise();
        return value;
    }
    bool direct(bool) {
        range_ >>= 1;
        bool value = false;
        if (code_ >= range_) {
            code_ -= range_;
            value = true;
        }
        normalise();
        return value;
    }
    void check(bool ok, const char* what) const {
        if (!ok) {
            fail(std::string("corrupt payload: ") + what);
        }
    }

    // Bytes read past the end of the payload (as zeros).
    std::size_t overrun() const { return position_ > size_ ? position_ - size_ : 0; }
    std::size_t unused() const { return position_ < size_ ? size_ - position_ : 0; }

private:
    static constexpr std::uint32_t top = 1u << 24;

    std::uint8_t next_byte() {
        const std::size_t at = position_++;
        return at < size_ ? data_[at] : 0;
    }
    void normalise() {
        while (range_ < top) {
            range_ <<= 8;
            code_ = (code_ << 8) | next_byte();
        }
    }

    const std::uint8_t* data_;
    std::size_t size_;
    std::size_t position_ = 0;
    std::uint32_t code_ = 0;
    std::uint32_t range_ = 0xFFFFFFFFu;
};

// An unsigned number up to 2^64 - 1: its bit length (0 to 64) through a
// binary tree of adaptive bits, then the two bits below the leading one
// adaptive (per length, the second per value of the first) and the rest at
// probability 1/2. Small numbers, the usual ones, cost a few bits once the
// tree has learnt them; a large one costs about its length.
struct NumberModel {
    Probability length_tree[128];
    Probability second_bit[65];
    Probability third_bit[65][2];
};

template <class Coder>
std::uint64_t code_number(Coder& coder, NumberModel& model, std::uint64_t value) {
    int length = 0;
    while (length < 64 && (value >> length) != 0) {
        ++length;
    }
    unsigned node = 1;
    for (int level = 6; level >= 0; --level) {
        node = 2 * node + (coder.bit(model.length_tree[node], ((length >> level) & 1) != 0) ? 1u : 0u);
    }
    length = static_cast<int>(node - 128);
    coder.check(length <= 64, "a number longer than 64 bits");
    if (length <= 1) {
        return static_cast<std::uint64_t>(length);
    }
    std::uint64_t decoded = 1;
    decoded = 2 * decoded + (coder.bit(model.second_bit[length], ((value >> (length - 2)) & 1) != 0) ? 1 : 0);
    if (length >= 3) {
        const bool second = (decoded & 1) != 0;
        decoded = 2 * decoded +
                  (coder.bit(model.third_bit[length][second ? 1 : 0], ((value >> (length - 3)) & 1) != 0) ? 1 : 0);
    }
    for (int at = length - 4; at >= 0; --at) {
        decoded = 2 * decoded + (coder.direct(((value >> at) & 1) != 0) ? 1 : 0);
    }
    return decoded;
}

// An index into a list of `size` items, or `size` itself for "none of
// them" (an escape): a run of "not this one" bits, one adaptive probability
// per place, so a move-to-front list whose front is usually right costs a
// fraction of a bit; past the first `places`, the rest of the index as a
// number.
template <std::size_t places>
struct IndexModel {
    Probability stop_here[places];
    NumberModel beyond;
};

template <class Coder, std::size_t places>
std::size_t code_index(Coder& coder, IndexModel<places>& model, std::size_t value, std::size_t size) {
    std::size_t index = 0;
    while (index < size && index < places) {
        if (coder.bit(model.stop_here[index], value == index)) {
            return index;
        }
        ++index;
    }
    if (index == size) {
        return index;
    }
    const std::uint64_t rest = code_number(coder, model.beyond, value - places);
    coder.check(rest <= size - places, "an index past the end of its list");
    return places + static_cast<std::size_t>(rest);
}

}  // namespace tcgen_runtime
