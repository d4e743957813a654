#pragma once
// Per-stream selection (WET paper §4.4): a field lists candidate predictors;
// each, with a few table sizes, codes a prefix of the field's values, and the
// one whose stream plus tables would take the least memory is built. The
// choice is saved with the stream.

#include <array>
#include <cstdint>
#include <string>
#include <utility>
#include <variant>

#include "runtime/bidirectional/field_stream.hpp"

namespace tcgen_runtime::bidirectional {

// "DFCM3[2]": how the spec writes a candidate.
template <class C>
std::string candidate_name() {
    std::string name(C::kind::spec_name);
    if (C::kind::has_order) {
        name += std::to_string(C::order);
    }
    return name + "[" + std::to_string(C::entries) + "]";
}

template <class Value, class... Candidates>
class FieldChoice {
public:
    static constexpr std::uint64_t prefix_values = 1 << 16;
    static constexpr std::size_t candidate_count = sizeof...(Candidates);

    FieldChoice() = default;

    // max_table_bits: log2 of the spec's L2 for this field.
    static FieldChoice build(const Value* values, std::uint64_t count, unsigned max_table_bits) {
        // A table need not have more lines than the stream has values.
        unsigned table_bits = 0;
        while (table_bits < max_table_bits && (std::uint64_t{1} << table_bits) < count) {
            ++table_bits;
        }
        const std::uint64_t prefix = count < prefix_values ? count : prefix_values;
        Best best;
        consider(values, count, prefix, table_bits, best, std::index_sequence_for<Candidates...>{});
        FieldChoice field;
        field.stream_ = build_at(best.candidate, values, count, best.table_bits,
                                 std::index_sequence_for<Candidates...>{});
        return field;
    }

    std::uint64_t position() const {
        return std::visit([](const auto& stream) { return stream.position(); }, stream_);
    }
    Value forward() {
        return std::visit([](auto& stream) { return stream.forward(); }, stream_);
    }
    Value backward() {
        return std::visit([](auto& stream) { return stream.backward(); }, stream_);
    }
    std::size_t memory_bytes() const {
        return std::visit([](const auto& stream) { return stream.memory_bytes(); }, stream_);
    }
    std::uint64_t stream_bits() const {
        return std::visit([](const auto& stream) { return stream.stream_bits(); }, stream_);
    }

    // "DFCM1[1], 2^10 lines"
    std::string description() const {
        return std::visit(
            [](const auto& stream) {
                using Chosen = std::decay_t<decltype(stream)>;
                return candidate_name<typename Chosen::Candidate>() +
                       (Chosen::Candidate::has_table ? ", 2^" + std::to_string(stream.table_bits()) + " lines" : "");
            },
            stream_);
    }

    void save(ByteWriter& out) const {
        out.put<std::uint8_t>(static_cast<std::uint8_t>(stream_.index()));
        std::visit([&](const auto& stream) { stream.save(out); }, stream_);
    }

    static FieldChoice load(ByteReader& in, std::uint64_t count, std::uint64_t position, unsigned max_table_bits) {
        const unsigned candidate = in.get<std::uint8_t>();
        if (candidate >= candidate_count) {
            fail("corrupt stream: predictor " + std::to_string(candidate) + " of a field that has " +
                 std::to_string(candidate_count));
        }
        FieldChoice field;
        field.stream_ = load_at(candidate, in, count, position, max_table_bits, std::index_sequence_for<Candidates...>{});
        return field;
    }

private:
    using Stream = std::variant<FieldStream<Value, Candidates>...>;

    struct Best {
        std::size_t candidate = 0;
        unsigned table_bits = 0;
        double bytes = -1;
    };

    template <std::size_t... index>
    static void consider(const Value* values, std::uint64_t count, std::uint64_t prefix, unsigned table_bits,
                         Best& best, std::index_sequence<index...>) {
        (consider_one<index, Candidates>(values, count, prefix, table_bits, best), ...);
    }

    // The memory a candidate would take: its stream, scaled from the prefix
    // to the whole field, and its two tables. Smaller tables are tried too.
    template <std::size_t index, class C>
    static void consider_one(const Value* values, std::uint64_t count, std::uint64_t prefix, unsigned table_bits,
                             Best& best) {
        for (unsigned smaller = 0; smaller <= (C::has_table ? 8u : 0u); smaller += 4) {
            const unsigned bits = table_bits > smaller ? table_bits - smaller : 0;
            const double stream_bytes = prefix == 0 ? 0.0
                                                    : static_cast<double>(FieldStream<Value, C>::estimate_bits(
                                                          values, prefix, bits)) /
                                                          8.0 * static_cast<double>(count) / static_cast<double>(prefix);
            const double bytes = stream_bytes + 2.0 * static_cast<double>(FieldStream<Value, C>::table_bytes(bits));
            if (best.bytes < 0 || bytes < best.bytes) {
                best = Best{index, bits, bytes};
            }
            if (bits == 0) {
                break;
            }
        }
    }

    template <std::size_t... index>
    static Stream build_at(std::size_t candidate, const Value* values, std::uint64_t count, unsigned table_bits,
                           std::index_sequence<index...>) {
        using Builder = Stream (*)(const Value*, std::uint64_t, unsigned);
        static constexpr Builder builders[] = {[](const Value* v, std::uint64_t n, unsigned bits) {
            return Stream(std::in_place_index<index>, FieldStream<Value, Candidates>::build(v, n, bits));
        }...};
        return builders[candidate](values, count, table_bits);
    }

    template <std::size_t... index>
    static Stream load_at(std::size_t candidate, ByteReader& in, std::uint64_t count, std::uint64_t position,
                          unsigned max_table_bits, std::index_sequence<index...>) {
        using Loader = Stream (*)(ByteReader&, std::uint64_t, std::uint64_t, unsigned);
        static constexpr Loader loaders[] = {[](ByteReader& r, std::uint64_t n, std::uint64_t p, unsigned bits) {
            return Stream(std::in_place_index<index>, FieldStream<Value, Candidates>::load(r, n, p, bits));
        }...};
        return loaders[candidate](in, count, position, max_table_bits);
    }

    Stream stream_;
};

}  // namespace tcgen_runtime::bidirectional
