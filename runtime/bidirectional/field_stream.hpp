#pragma once
// One field of a bidirectionally traversable compressed stream (WET paper
// §4): the values before the cursor are compressed forward with their right
// context (the paper's FR half, at the low end of the bit buffer), the values
// from the cursor on backward with their left context (BL, at the high end),
// and the `window` values just before the cursor are held uncompressed. A
// step forward decodes the next value off BL and codes the value that leaves
// the window onto FR; a step back does the mirror image. Since every coding
// step has an exact undo (predictor.hpp), the state at position p is the same
// whatever walk led to p.
//
// Built from its values, a stream sits at position 0 with everything in BL
// and the buffer sized for the widest point of any walk.

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "runtime/bidirectional/bit_stacks.hpp"
#include "runtime/bidirectional/predictor.hpp"
#include "runtime/bidirectional/prefix_code.hpp"
#include "runtime/bidirectional/saved_form.hpp"
#include "runtime/bidirectional/symbol_coder.hpp"
#include "runtime/error.hpp"

namespace tcgen_runtime::bidirectional {

template <class Value, class C>
class FieldStream {
public:
    using Candidate = C;
    static constexpr unsigned window = C::window;
    static constexpr unsigned width = sizeof(Value) * 8;

    FieldStream() = default;

    static FieldStream build(const Value* values, std::uint64_t count, unsigned table_bits) {
        FieldStream stream;
        stream.count_ = count;
        stream.before_coder_ = Before(symbols, PrefixCode::from_counts(count_before(values, count, table_bits)));
        stream.after_coder_ = After(symbols, PrefixCode::from_counts(count_after(values, count, table_bits)));

        // BL for real, noting how many words it takes at each position.
        BitStacks stacks;
        Predictor<Value, C> after(table_bits);
        std::vector<std::uint64_t> after_words(count + 1, 0);
        Value context[window];
        std::uint64_t payload = 0;
        for (std::uint64_t j = count; j-- > 0;) {
            left_context(values, j, context);
            Value displaced = 0;
            const unsigned symbol = after.encode(values[j], context, displaced);
            payload = displaced;
            stream.after_coder_.push(stacks, symbol, payload);
            after_words[j] = words_for(stream.after_coder_.canonical_bits(stacks));
        }

        // FR on a scratch buffer, for the widest point of a walk.
        std::uint64_t needed = 1;
        for (std::uint64_t p = 0; p <= std::min<std::uint64_t>(window, count); ++p) {
            needed = std::max(needed, after_words[p]);
        }
        BitStacks scratch;
        Before before_coder = stream.before_coder_;
        Predictor<Value, C> before(table_bits);
        for (std::uint64_t j = 0; j + window < count; ++j) {
            right_context(values, j, context);
            Value displaced = 0;
            const unsigned symbol = before.encode(values[j], context, displaced);
            before_coder.push(scratch, symbol, displaced);
            needed = std::max(needed, words_for(before_coder.canonical_bits(scratch)) + after_words[j + 1 + window]);
        }

        stream.stacks_ = BitStacks(static_cast<std::size_t>(needed));
        stream.stacks_.template assign<End::high>(stacks.words<End::high>(), stacks.size_bits<End::high>());
        stream.after_ = std::move(after);
        stream.before_ = Predictor<Value, C>(table_bits);
        return stream;
    }

    // The estimated bits of coding `count` values one way with a fresh table
    // of 2^table_bits lines: what the choice among candidates compares.
    static std::uint64_t estimate_bits(const Value* values, std::uint64_t count, unsigned table_bits) {
        SymbolCounter counter(symbols);
        Predictor<Value, C> predictor(table_bits);
        Value context[window];
        for (std::uint64_t j = 0; j < count; ++j) {
            left_context(values, j, context);
            Value payload = 0;
            counter.add(predictor.encode(values[j], context, payload));
        }
        return counter.bits();
    }

    std::uint64_t count() const { return count_; }
    std::uint64_t position() const { return position_; }
    unsigned table_bits() const { return after_.table_bits(); }
    static std::size_t table_bytes(unsigned table_bits) {
        return C::has_table ? (std::size_t{1} << table_bits) * C::entries * sizeof(Value) : 0;
    }
    std::size_t memory_bytes() const {
        return sizeof(*this) + stacks_.capacity_words() * 8 + before_.table_bytes() + after_.table_bytes();
    }
    std::uint64_t stream_bits() const {
        return before_coder_.canonical_bits(stacks_) + after_coder_.canonical_bits(stacks_);
    }

    // The value at the position, moving past it. The caller checks the end.
    Value forward() {
        const std::uint64_t p = position_;
        Value context[window];
        for (unsigned i = 0; i < window; ++i) {
            context[i] = ring_[(p - 1 - i) & ring_mask];
        }
        std::uint64_t payload = 0;
        const unsigned symbol = after_coder_.pop(stacks_, payload);
        const Value value = after_.decode(symbol, static_cast<Value>(payload), context);
        ring_[p & ring_mask] = value;
        if (p >= window) {
            const std::uint64_t leaving = p - window;
            for (unsigned i = 0; i < window; ++i) {
                context[i] = ring_[(leaving + 1 + i) & ring_mask];
            }
            Value displaced = 0;
            const unsigned code = before_.encode(ring_[leaving & ring_mask], context, displaced);
            before_coder_.push(stacks_, code, displaced);
        }
        position_ = p + 1;
        for (unsigned i = 0; i < window; ++i) {
            context[i] = ring_[(p - i) & ring_mask];
        }
        after_.prefetch(context);
        return value;
    }

    // The value before the position, moving back over it. The caller checks
    // the beginning.
    Value backward() {
        const std::uint64_t p = position_;
        const Value value = ring_[(p - 1) & ring_mask];
        const std::uint64_t entering = p - 1 - window;  // wraps below 0: a zero before the stream
        Value context[window];
        if (p > window) {
            for (unsigned i = 0; i < window; ++i) {
                context[i] = ring_[(entering + 1 + i) & ring_mask];
            }
            std::uint64_t payload = 0;
            const unsigned symbol = before_coder_.pop(stacks_, payload);
            ring_[entering & ring_mask] = before_.decode(symbol, static_cast<Value>(payload), context);
        } else {
            ring_[entering & ring_mask] = 0;
        }
        for (unsigned i = 0; i < window; ++i) {
            context[i] = ring_[(p - 2 - i) & ring_mask];
        }
        Value displaced = 0;
        const unsigned symbol = after_.encode(value, context, displaced);
        after_coder_.push(stacks_, symbol, displaced);
        position_ = p - 1;
        if (p - 1 > window) {
            for (unsigned i = 0; i < window; ++i) {
                context[i] = ring_[(p - 1 - window + i) & ring_mask];
            }
            before_.prefetch(context);
        }
        return value;
    }

    void save(ByteWriter& out) const {
        out.put<std::uint8_t>(static_cast<std::uint8_t>(after_.table_bits()));
        out.put_count(stacks_.capacity_words());
        for (const PrefixCode* code : {&before_coder_.code(), &after_coder_.code()}) {
            for (std::uint8_t length : code->lengths()) {
                out.put(length);
            }
        }
        for (unsigned i = window; i > 0; --i) {
            out.put(ring_[(position_ - i) & ring_mask]);
        }
        out.put_count(before_coder_.pending());
        out.put_count(after_coder_.pending());
        save_half<End::low>(out);
        save_half<End::high>(out);
        save_table(out, before_);
        save_table(out, after_);
    }

    static FieldStream load(ByteReader& in, std::uint64_t count, std::uint64_t position, unsigned max_table_bits) {
        FieldStream stream;
        stream.count_ = count;
        stream.position_ = position;
        const unsigned table_bits = in.get<std::uint8_t>();
        if (C::has_table ? table_bits > max_table_bits : table_bits != 0) {
            fail("corrupt stream: a table of 2^" + std::to_string(table_bits) + " lines where the spec allows 2^" +
                 std::to_string(max_table_bits));
        }
        const std::uint64_t capacity = in.get_count();
        stream.before_coder_ = Before(symbols, load_code(in));
        stream.after_coder_ = After(symbols, load_code(in));
        for (unsigned i = window; i > 0; --i) {
            stream.ring_[(position - i) & ring_mask] = position >= i ? in.get<Value>() : zero_before_start(in);
        }
        // Slot-0 hits on top of each half, not yet written (symbol_coder.hpp):
        // no more than the records on that side.
        const std::uint64_t before_pending = in.get_count();
        const std::uint64_t after_pending = in.get_count();
        if (before_pending > position || after_pending > count - position) {
            fail("corrupt stream: more pending hits than records");
        }
        stream.before_coder_.set_pending(before_pending);
        stream.after_coder_.set_pending(after_pending);
        const auto [low, low_bits] = load_half(in);
        const auto [high, high_bits] = load_half(in);
        // Room as saved, but never more than twice what is there (plus a
        // little): a forged capacity cannot make a reader allocate.
        const std::uint64_t used = low.size() + high.size();
        stream.stacks_ = BitStacks(static_cast<std::size_t>(std::max(used, std::min(capacity, 2 * used + 1024))));
        stream.stacks_.template assign<End::low>(low, low_bits);
        stream.stacks_.template assign<End::high>(high, high_bits);
        stream.before_ = Predictor<Value, C>(table_bits);
        stream.after_ = Predictor<Value, C>(table_bits);
        load_table(in, stream.before_);
        load_table(in, stream.after_);
        return stream;
    }

private:
    static constexpr Symbols symbols = Predictor<Value, C>::symbols;
    static constexpr unsigned ring_size = [] {
        unsigned size = 1;
        while (size < window + 1) {
            size *= 2;
        }
        return size;
    }();
    static constexpr std::uint64_t ring_mask = ring_size - 1;
    using Before = SymbolCoder<End::low>;
    using After = SymbolCoder<End::high>;

    static std::uint64_t words_for(std::uint64_t bits) { return BitStacks::words_for(bits); }

    static void left_context(const Value* values, std::uint64_t j, Value (&context)[window]) {
        for (unsigned i = 0; i < window; ++i) {
            context[i] = j > i ? values[j - 1 - i] : Value{0};
        }
    }

    static void right_context(const Value* values, std::uint64_t j, Value (&context)[window]) {
        for (unsigned i = 0; i < window; ++i) {
            context[i] = values[j + 1 + i];
        }
    }

    static std::vector<std::uint64_t> count_after(const Value* values, std::uint64_t count, unsigned table_bits) {
        SymbolCounter counter(symbols);
        Predictor<Value, C> predictor(table_bits);
        Value context[window];
        for (std::uint64_t j = count; j-- > 0;) {
            left_context(values, j, context);
            Value payload = 0;
            counter.add(predictor.encode(values[j], context, payload));
        }
        return counter.counts();
    }

    static std::vector<std::uint64_t> count_before(const Value* values, std::uint64_t count, unsigned table_bits) {
        SymbolCounter counter(symbols);
        Predictor<Value, C> predictor(table_bits);
        Value context[window];
        for (std::uint64_t j = 0; j + window < count; ++j) {
            right_context(values, j, context);
            Value payload = 0;
            counter.add(predictor.encode(values[j], context, payload));
        }
        return counter.counts();
    }

    static PrefixCode load_code(ByteReader& in) {
        std::vector<std::uint8_t> lengths(symbols.count);
        for (std::uint8_t& length : lengths) {
            length = in.get<std::uint8_t>();
        }
        return PrefixCode::from_lengths(std::move(lengths));
    }

    static Value zero_before_start(ByteReader& in) {
        if (in.get<Value>() != 0) {
            fail("corrupt stream: a value before the start of a field is not zero");
        }
        return 0;
    }

    template <End end>
    void save_half(ByteWriter& out) const {
        out.put_count(stacks_.size_bits<end>());
        for (std::uint64_t word : stacks_.words<end>()) {
            out.put(word);
        }
    }

    static std::pair<std::vector<std::uint64_t>, std::uint64_t> load_half(ByteReader& in) {
        const std::uint64_t bits = in.get_count();
        if (words_for(bits) > in.remaining() / 8) {
            fail("truncated stream: a half of a field claims " + std::to_string(bits) + " bits");
        }
        std::vector<std::uint64_t> words(static_cast<std::size_t>(words_for(bits)));
        for (std::uint64_t& word : words) {
            word = in.get<std::uint64_t>();
        }
        return {std::move(words), bits};
    }

    // The lines that are not all zero, as gaps between their indices.
    static void save_table(ByteWriter& out, const Predictor<Value, C>& table) {
        std::uint64_t lines = 0;
        for (std::size_t index = 0; index < table.line_count(); ++index) {
            lines += !all_zero(table.line(index));
        }
        out.put_count(lines);
        std::size_t previous = 0;
        for (std::size_t index = 0; index < table.line_count(); ++index) {
            if (!all_zero(table.line(index))) {
                out.put_count(index - previous);
                previous = index;
                for (unsigned entry = 0; entry < C::entries; ++entry) {
                    out.put(table.line(index)[entry]);
                }
            }
        }
    }

    static void load_table(ByteReader& in, Predictor<Value, C>& table) {
        const std::uint64_t lines = in.get_items(1 + C::entries * sizeof(Value));
        std::uint64_t index = 0;
        for (std::uint64_t line = 0; line < lines; ++line) {
            const std::uint64_t gap = in.get_count();
            if ((line > 0 && gap == 0) || gap >= table.line_count() - index) {
                fail("corrupt stream: a table line out of order or out of range");
            }
            index += gap;
            for (unsigned entry = 0; entry < C::entries; ++entry) {
                table.line(static_cast<std::size_t>(index))[entry] = in.get<Value>();
            }
        }
    }

    static bool all_zero(const Value* line) {
        for (unsigned entry = 0; entry < C::entries; ++entry) {
            if (line[entry] != 0) {
                return false;
            }
        }
        return true;
    }

    std::uint64_t count_ = 0;
    std::uint64_t position_ = 0;
    Value ring_[ring_size] = {};  // the window: value q at q & ring_mask
    BitStacks stacks_;
    Predictor<Value, C> before_;  // FR: values before the window, from their right context
    Predictor<Value, C> after_;   // BL: values from the position on, from their left context
    Before before_coder_;
    After after_coder_;
};

}  // namespace tcgen_runtime::bidirectional
