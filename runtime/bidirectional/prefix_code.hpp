#pragma once
// A canonical prefix (Huffman) code over a small alphabet, as used for the
// symbols of a bidirectional stream: codewords are pushed onto a bit stack
// most significant bit last, so that decoding reads them off the top from a
// 64-bit window whose bit 63 is the top of the stack. Every symbol gets a
// codeword (a half of a stream may need one its statistics never saw), and
// none is longer than max_length bits, so a window always holds one whole.

#include <algorithm>
#include <cstdint>
#include <queue>
#include <string>
#include <utility>
#include <vector>

#include "runtime/error.hpp"

namespace tcgen_runtime::bidirectional {

class PrefixCode {
public:
    static constexpr unsigned max_length = 15;

    PrefixCode() = default;

    // The code that makes the symbols, seen `counts[s]` times, shortest.
    static PrefixCode from_counts(std::vector<std::uint64_t> counts) {
        for (std::uint64_t& count : counts) {
            count += 1;  // every symbol codable
        }
        for (;;) {
            std::vector<std::uint8_t> lengths = huffman_lengths(counts);
            if (*std::max_element(lengths.begin(), lengths.end()) <= max_length) {
                return PrefixCode(std::move(lengths));
            }
            for (std::uint64_t& count : counts) {
                count = count / 2 + 1;  // flatter, until the longest codeword fits
            }
        }
    }

    // A code read back from a saved stream: refused unless it is complete and
    // within the length limit, so that every window decodes to one symbol.
    static PrefixCode from_lengths(std::vector<std::uint8_t> lengths) {
        std::uint64_t kraft = 0;  // in units of 2^-max_length
        for (std::uint8_t length : lengths) {
            if (length == 0 || length > max_length) {
                fail("corrupt stream: a prefix code has a codeword of length " + std::to_string(length));
            }
            kraft += std::uint64_t{1} << (max_length - length);
        }
        if (lengths.size() < 2 || kraft != (std::uint64_t{1} << max_length)) {
            fail("corrupt stream: a prefix code is not complete");
        }
        return PrefixCode(std::move(lengths));
    }

    const std::vector<std::uint8_t>& lengths() const { return lengths_; }
    unsigned length(unsigned symbol) const { return lengths_[symbol]; }
    std::uint32_t codeword(unsigned symbol) const { return codewords_[symbol]; }

    // The symbol whose codeword begins `window` (most significant bit first),
    // and its length.
    std::pair<unsigned, unsigned> decode(std::uint64_t window) const {
        const std::uint16_t fast = fast_[window >> (64 - fast_bits)];
        if (fast != 0) {
            return {fast & 0x3FFu, fast >> 10};
        }
        for (unsigned length = fast_bits + 1; length <= max_length; ++length) {
            const std::uint64_t code = window >> (64 - length);
            const std::uint64_t offset = code - first_codeword_[length];
            if (code >= first_codeword_[length] && offset < count_[length]) {
                return {sorted_symbols_[first_index_[length] + offset], length};
            }
        }
        fail("corrupt stream: no codeword matches");  // unreachable for a complete code
    }

private:
    explicit PrefixCode(std::vector<std::uint8_t> lengths) : lengths_(std::move(lengths)) {
        codewords_.assign(lengths_.size(), 0);
        for (std::uint8_t length : lengths_) {
            count_[length] += 1;
        }
        std::uint32_t code = 0;
        std::uint32_t index = 0;
        for (unsigned length = 1; length <= max_length; ++length) {
            code = (code + count_[length - 1]) << 1;
            first_codeword_[length] = code;
            first_index_[length] = index;
            index += count_[length];
        }
        sorted_symbols_.resize(lengths_.size());
        std::uint32_t next[max_length + 1];
        std::copy(first_codeword_, first_codeword_ + max_length + 1, next);
        std::uint32_t fill[max_length + 1];
        std::copy(first_index_, first_index_ + max_length + 1, fill);
        for (unsigned symbol = 0; symbol < lengths_.size(); ++symbol) {
            const unsigned length = lengths_[symbol];
            codewords_[symbol] = next[length]++;
            sorted_symbols_[fill[length]++] = static_cast<std::uint16_t>(symbol);
            if (length <= fast_bits) {
                // Every window that begins with this codeword.
                const unsigned first = codewords_[symbol] << (fast_bits - length);
                for (unsigned window = first; window < first + (1u << (fast_bits - length)); ++window) {
                    fast_[window] = static_cast<std::uint16_t>(length << 10 | symbol);
                }
            }
        }
    }

    static std::vector<std::uint8_t> huffman_lengths(const std::vector<std::uint64_t>& counts) {
        const std::size_t symbols = counts.size();
        std::vector<std::size_t> parent(2 * symbols, 0);
        using Node = std::pair<std::uint64_t, std::size_t>;  // weight, node; ties by node number
        std::priority_queue<Node, std::vector<Node>, std::greater<Node>> queue;
        for (std::size_t symbol = 0; symbol < symbols; ++symbol) {
            queue.push({counts[symbol], symbol});
        }
        std::size_t next = symbols;
        while (queue.size() > 1) {
            const Node a = queue.top();
            queue.pop();
            const Node b = queue.top();
            queue.pop();
            parent[a.second] = next;
            parent[b.second] = next;
            queue.push({a.first + b.first, next++});
        }
        const std::size_t root = next - 1;
        std::vector<std::uint8_t> lengths(symbols, 0);
        for (std::size_t symbol = 0; symbol < symbols; ++symbol) {
            unsigned depth = 0;
            for (std::size_t node = symbol; node != root; node = parent[node]) {
                ++depth;
            }
            lengths[symbol] = static_cast<std::uint8_t>(std::min(depth, 255u));
        }
        return lengths;
    }

    // Codewords of up to fast_bits bits decode with one look-up of the
    // window's top bits: length << 10 | symbol, 0 for a longer codeword.
    static constexpr unsigned fast_bits = 6;
    std::uint16_t fast_[1u << fast_bits] = {};
    std::vector<std::uint8_t> lengths_;
    std::vector<std::uint32_t> codewords_;
    std::vector<std::uint16_t> sorted_symbols_;
    std::uint32_t count_[max_length + 1] = {};
    std::uint32_t first_codeword_[max_length + 1] = {};
    std::uint32_t first_index_[max_length + 1] = {};
};

}  // namespace tcgen_runtime::bidirectional
