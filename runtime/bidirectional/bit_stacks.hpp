#pragma once
// Two stacks of bits in one buffer, growing towards each other: the forward
// half of a bidirectional stream (FR in the WET paper, §4.1) from the low
// end, the backward half (BL) from the high end. The space between them is
// the paper's BUF (§4.2): a stream built from its values starts with exactly
// the room its widest point needs, so that walking it never moves memory; a
// loaded stream that runs out of room grows the buffer.
//
// A stack's bits are numbered from its bottom. push(bits, n) puts `bits` on
// top so that the last bit pushed is the most significant of the n; pop(n)
// and peek_top() read them back in that orientation, so a prefix code whose
// first bit is its most significant reads straight off the top.

#include <cstdint>
#include <cstring>
#include <vector>

#include "runtime/error.hpp"

namespace tcgen_runtime::bidirectional {

enum class End { low, high };

class BitStacks {
public:
    BitStacks() = default;
    explicit BitStacks(std::size_t capacity_words) : words_(capacity_words, 0) {}

    // The words `bits` bits take; without overflow, whatever a forged stream
    // claims.
    static constexpr std::uint64_t words_for(std::uint64_t bits) { return bits / 64 + (bits % 64 != 0); }

    template <End end>
    std::uint64_t size_bits() const {
        return top_[index(end)];
    }

    std::size_t capacity_words() const { return words_.size(); }
    std::size_t used_words() const { return words_for(top_[0]) + words_for(top_[1]); }

    // bits < 2^length, 1 <= length <= 64.
    template <End end>
    void push(std::uint64_t bits, unsigned length) {
        std::uint64_t& top = top_[index(end)];
        const std::uint64_t other = top_[1 - index(end)];
        if (words_for(top + length) + words_for(other) > words_.size()) {
            grow(words_for(top + length) + words_for(other));
        }
        const std::uint64_t word = top >> 6;
        const unsigned shift = static_cast<unsigned>(top & 63);
        std::uint64_t& first = words_[address<end>(word)];
        first = (first & low_mask(shift)) | (bits << shift);
        if (shift + length > 64) {
            words_[address<end>(word + 1)] = bits >> (64 - shift);
        }
        top += length;
    }

    template <End end>
    std::uint64_t pop(unsigned length) {
        std::uint64_t& top = top_[index(end)];
        if (length > top) {
            fail("corrupt stream: a half of field data ends early");
        }
        top -= length;
        return read<end>(top, length);
    }

    // The top 64 bits with the last pushed as bit 63; zeros below the bottom.
    template <End end>
    std::uint64_t peek_top() const {
        const std::uint64_t top = top_[index(end)];
        if (top >= 64) {
            return read<end>(top - 64, 64);
        }
        return top == 0 ? 0 : read<end>(0, static_cast<unsigned>(top)) << (64 - top);
    }

    // The words holding one stack's bits, bottom first, and the way back.
    template <End end>
    std::vector<std::uint64_t> words() const {
        std::vector<std::uint64_t> out(words_for(top_[index(end)]));
        for (std::size_t i = 0; i < out.size(); ++i) {
            out[i] = words_[address<end>(i)] & (i + 1 < out.size() ? ~std::uint64_t{0} : tail_mask(top_[index(end)]));
        }
        return out;
    }

    template <End end>
    void assign(const std::vector<std::uint64_t>& words, std::uint64_t bits) {
        top_[index(end)] = 0;
        if (words.size() != words_for(bits)) {
            fail("corrupt stream: a half of field data has the wrong length");
        }
        if (words.size() + words_for(top_[1 - index(end)]) > words_.size()) {
            grow(words.size() + words_for(top_[1 - index(end)]));
        }
        for (std::size_t i = 0; i < words.size(); ++i) {
            words_[address<end>(i)] = words[i];
        }
        top_[index(end)] = bits;
    }

private:
    static constexpr int index(End end) { return end == End::low ? 0 : 1; }
    static constexpr std::uint64_t low_mask(unsigned bits) { return (std::uint64_t{1} << bits) - 1; }  // bits < 64
    static constexpr std::uint64_t tail_mask(std::uint64_t top) {
        return top % 64 == 0 ? ~std::uint64_t{0} : low_mask(static_cast<unsigned>(top % 64));
    }

    // Word k of a stack's own numbering, in the buffer.
    template <End end>
    std::size_t address(std::uint64_t word) const {
        return end == End::low ? static_cast<std::size_t>(word) : words_.size() - 1 - static_cast<std::size_t>(word);
    }

    // `length` (1..64) bits from bit `from` of a stack, all of which exist.
    template <End end>
    std::uint64_t read(std::uint64_t from, unsigned length) const {
        const std::uint64_t word = from >> 6;
        const unsigned shift = static_cast<unsigned>(from & 63);
        std::uint64_t bits = words_[address<end>(word)] >> shift;
        if (shift + length > 64) {
            bits |= words_[address<end>(word + 1)] << (64 - shift);
        }
        return length == 64 ? bits : bits & low_mask(length);
    }

    // Room for at least `needed` words: the high stack's words move to the
    // new end, so each stack keeps its own numbering.
    void grow(std::uint64_t needed) {
        std::vector<std::uint64_t> bigger(static_cast<std::size_t>(needed + needed / 2 + 8), 0);
        const std::size_t low_words = static_cast<std::size_t>(words_for(top_[0]));
        const std::size_t high_words = static_cast<std::size_t>(words_for(top_[1]));
        if (low_words > 0) {
            std::memcpy(bigger.data(), words_.data(), low_words * sizeof(std::uint64_t));
        }
        if (high_words > 0) {
            std::memcpy(bigger.data() + bigger.size() - high_words, words_.data() + words_.size() - high_words,
                        high_words * sizeof(std::uint64_t));
        }
        words_.swap(bigger);
    }

    std::vector<std::uint64_t> words_;
    std::uint64_t top_[2] = {0, 0};
};

}  // namespace tcgen_runtime::bidirectional
