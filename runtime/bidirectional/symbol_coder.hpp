#pragma once
// The symbols of one half of a bidirectional stream on its bit stack: each a
// prefix codeword, a miss followed (underneath) by its payload, and runs of
// slot-0 hits folded into one "run" symbol with an Elias-gamma length, so a
// perfectly predicted stretch costs a few bits, not one per value. The stack
// always holds the canonical coding of its values (every maximal run of two
// or more slot-0 hits as one run), whatever walk led there: pushing a slot-0
// hit onto a run lengthens it, popping one shortens it.

#include <cstdint>
#include <vector>

#include "runtime/bidirectional/bit_stacks.hpp"
#include "runtime/bidirectional/predictor.hpp"
#include "runtime/bidirectional/prefix_code.hpp"

namespace tcgen_runtime::bidirectional {

// Counts the symbols a sequence of pushes leaves on a stack, runs folded, for
// the prefix code; and the bits they take, for choosing among candidates.
class SymbolCounter {
public:
    explicit SymbolCounter(Symbols symbols) : symbols_(symbols), counts_(symbols.count, 0) {}

    void add(unsigned symbol) {
        if (symbol == 0) {
            ++run_;
            return;
        }
        flush();
        counts_[symbol] += 1;
        if (symbols_.is_miss(symbol)) {
            extra_bits_ += symbols_.payload_bits(symbol);
        }
    }

    std::vector<std::uint64_t> counts() {
        flush();
        return counts_;
    }

    // The bits of everything added, under the code those counts give.
    std::uint64_t bits() {
        const std::vector<std::uint64_t> all = counts();
        const PrefixCode code = PrefixCode::from_counts(all);
        std::uint64_t bits = extra_bits_;
        for (unsigned symbol = 0; symbol < all.size(); ++symbol) {
            bits += all[symbol] * code.length(symbol);
        }
        return bits;
    }

private:
    void flush() {
        if (run_ == 1) {
            counts_[0] += 1;
        } else if (run_ >= 2) {
            counts_[symbols_.run] += 1;
            extra_bits_ += gamma_bits(run_ - 1);
        }
        run_ = 0;
    }

    static unsigned gamma_bits(std::uint64_t value) {
        unsigned bits = 0;
        while (value >> bits > 1) {
            ++bits;
        }
        return 2 * bits + 2;
    }

    Symbols symbols_;
    std::vector<std::uint64_t> counts_;
    std::uint64_t run_ = 0;
    std::uint64_t extra_bits_ = 0;
};

// The slot-0 hits at the top of a half are not written into the stack while
// they are on top: the coder counts them (`pending`), so a step inside a run
// costs no bit operations. They are written as one run symbol (or a lone
// hit) when another symbol goes on top, and taken back out of the stack
// when a slot-0 hit goes onto a run that was written.
template <End end>
class SymbolCoder {
public:
    SymbolCoder() = default;
    SymbolCoder(Symbols symbols, PrefixCode code) : symbols_(symbols), code_(std::move(code)) {}

    const PrefixCode& code() const { return code_; }
    std::uint64_t pending() const { return pending_; }
    void set_pending(std::uint64_t hits) { pending_ = hits; }

    // The bits of the half with the pending hits written out: its size in
    // the canonical coding, whatever is pending.
    std::uint64_t canonical_bits(const BitStacks& stacks) const {
        return stacks.size_bits<end>() + (pending_ == 0   ? 0
                                          : pending_ == 1 ? code_.length(0)
                                                          : code_.length(symbols_.run) + 2 * (high_bit(pending_ - 1) + 1));
    }

    void push(BitStacks& stacks, unsigned symbol, std::uint64_t payload) {
        if (symbol == 0) {
            if (pending_ == 0 && stacks.size_bits<end>() > 0) {
                const auto [top, length] = code_.decode(stacks.peek_top<end>());
                if (top == 0) {
                    stacks.pop<end>(length);
                    pending_ = 1;
                } else if (top == symbols_.run) {
                    stacks.pop<end>(length);
                    pending_ = pop_run_length(stacks);
                }
            }
            ++pending_;
            return;
        }
        write_pending(stacks);
        if (symbols_.is_miss(symbol) && symbol > symbols_.entries) {
            stacks.push<end>(payload, symbols_.payload_bits(symbol));
        }
        put(stacks, symbol);
    }

    unsigned pop(BitStacks& stacks, std::uint64_t& payload) {
        if (pending_ > 0) {
            --pending_;
            return 0;
        }
        const auto [symbol, length] = code_.decode(stacks.peek_top<end>());
        stacks.pop<end>(length);
        if (symbol == symbols_.run) {
            pending_ = pop_run_length(stacks) - 1;
            return 0;
        }
        payload = 0;
        if (symbols_.is_miss(symbol) && symbol > symbols_.entries) {
            payload = stacks.pop<end>(symbols_.payload_bits(symbol));
        }
        return symbol;
    }

private:
    void put(BitStacks& stacks, unsigned symbol) const {
        stacks.push<end>(code_.codeword(symbol), code_.length(symbol));
    }

    void write_pending(BitStacks& stacks) {
        if (pending_ == 1) {
            put(stacks, 0);
        } else if (pending_ >= 2) {
            // gamma(run - 1) under the run symbol: the value, then as many
            // zeros as it has bits after its top one, then the one that ends them.
            const std::uint64_t value = pending_ - 1;
            const unsigned high = high_bit(value);
            stacks.push<end>(value, high + 1);
            stacks.push<end>(1, high + 1);
            put(stacks, symbols_.run);
        }
        pending_ = 0;
    }

    static unsigned high_bit(std::uint64_t value) {
        unsigned high = 63;
        while ((value >> high) == 0) {
            --high;
        }
        return high;
    }

    // The length (>= 2) of the run whose symbol was just popped.
    static std::uint64_t pop_run_length(BitStacks& stacks) {
        const std::uint64_t window = stacks.peek_top<end>();
        if (window == 0) {
            fail("corrupt stream: a run length is malformed");
        }
        const unsigned high = 63 - high_bit(window);
        stacks.pop<end>(high + 1);
        const std::uint64_t value = stacks.pop<end>(high + 1);
        if ((value >> high) != 1) {
            fail("corrupt stream: a run length is malformed");
        }
        return value + 1;
    }

    Symbols symbols_{1, 8};
    PrefixCode code_;
    std::uint64_t pending_ = 0;  // slot-0 hits on top, not yet in the stack
};

}  // namespace tcgen_runtime::bidirectional
