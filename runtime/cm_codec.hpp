#pragma once
// A context-mixing stream back-end (`--backend=cm`), the slowest and
// smallest: it predicts each bit of a buffer from hashed contexts of the
// bytes before it (orders 0-4 and 6, two record-aligned sparse contexts) and
// from the longest earlier repeat of the last bytes (a match model), mixes
// the predictions with two small gated logistic mixers, refines the mix with
// two adaptive probability maps (SSE), and codes the bit with a binary
// arithmetic coder. One pass each way; decoding costs what encoding does.
//
// Format rule: an empty buffer is zero bytes. Otherwise one mode byte: 0,
// the buffer stored as it is (what a writer keeps when modelling would not
// shrink it); 1, the raw size as LEB128 (at most 10 bytes), then the
// arithmetic code of its bits, the model's tables sized from that raw size
// (cm_table_bits). The model is integer arithmetic only, so every compiler
// and platform makes and reads the same bytes; the decoder's tables come
// from the raw size, which must not exceed the size the container claims,
// so a damaged file cannot make it allocate more than that size warrants.
//
// How the parts are built (not what they are called elsewhere): a context
// is a 32-bit hash, looked up at each nibble boundary into a bucket of 16
// bit-nodes (one cache line); a node is a probability of 22 bits with a
// count of 10 that slows its adaptation as evidence grows. The mixers'
// inputs are the nodes' probabilities in the logistic domain (stretch); a
// context never seen gives 0, so it does not pull the mix.

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "error.hpp"

namespace tcgen_runtime {

// Right shifts of negative integers are arithmetic on every compiler the
// project supports (C++20 makes it the rule); the model relies on it.
static_assert((-3 >> 1) == -2, "arithmetic right shift");

namespace cm_detail {

// The logistic function on the stretch domain: d in -2047..2047 (8
// fractional bits) to a probability of 12 bits, by linear interpolation
// between its values at every 128th d (4096 / (1 + e^(-k/2)), k = -16..16).
inline int squash(int d) {
    static constexpr int knots[33] = {1,    2,    4,    6,    10,   17,   27,   45,   74,   120,  194,
                                      311,  488,  747,  1102, 1546, 2048, 2550, 2994, 3349, 3608, 3785,
                                      3902, 3976, 4022, 4051, 4069, 4079, 4086, 4090, 4092, 4094, 4095};
    if (d > 2047) {
        return 4095;
    }
    if (d < -2047) {
        return 1;
    }
    const int index = (d + 2048) >> 7;
    const int weight = (d + 2048) & 127;
    return (knots[index] * (128 - weight) + knots[index + 1] * weight + 64) >> 7;
}

// The inverse of squash: a probability of 12 bits to -2047..2047.
class StretchTable {
public:
    StretchTable() {
        int p = 0;
        for (int d = -2047; d <= 2047; ++d) {
            const int upto = squash(d);
            for (; p <= upto; ++p) {
                values_[static_cast<std::size_t>(p)] = static_cast<std::int16_t>(d);
            }
        }
        for (; p < 4096; ++p) {
            values_[static_cast<std::size_t>(p)] = 2047;
        }
    }
    int operator()(int p) const { return values_[static_cast<std::size_t>(p)]; }

private:
    std::array<std::int16_t, 4096> values_{};
};

inline const StretchTable& stretch_table() {
    static const StretchTable table;
    return table;
}

// A node: probability of a 1 in the high 22 bits, how often it was updated
// (up to a limit) in the low 10.
inline constexpr std::uint32_t node_start = std::uint32_t{1} << 31;  // p = 1/2, never updated

// 65536 * 2 / (2n + 3): the step of a node seen n times.
class RateTable {
public:
    RateTable() {
        for (std::size_t n = 0; n < values_.size(); ++n) {
            values_[n] = static_cast<std::int32_t>(131072 / (2 * n + 3));
        }
    }
    std::int32_t operator[](std::uint32_t n) const { return values_[n]; }

private:
    std::array<std::int32_t, 1024> values_{};
};

inline const RateTable& rate_table() {
    static const RateTable table;
    return table;
}

inline void update_node(std::uint32_t& node, int bit, std::uint32_t limit, const RateTable& rates) {
    const std::uint32_t count = node & 1023u;
    const std::int64_t p = node >> 10;
    const std::int64_t target = bit != 0 ? (std::int64_t{1} << 22) - 1 : 0;
    const std::int64_t next = p + (((target - p) * rates[count]) >> 16);
    node = (static_cast<std::uint32_t>(next) << 10) | (count < limit ? count + 1 : count);
}

// The node's probability as 12 bits.
inline int node_p12(std::uint32_t node) {
    return static_cast<int>(node >> 20);
}

inline std::uint32_t hash32(std::uint32_t x) {
    x ^= x >> 16;
    x *= 0x7FEB352Du;
    x ^= x >> 15;
    x *= 0x846CA68Bu;
    x ^= x >> 16;
    return x;
}

// The binary arithmetic coder: a 32-bit interval [low, high] split at the
// probability of a 1 (12 bits); a byte leaves once low and high agree on it.
class Encoder {
public:
    explicit Encoder(std::vector<std::uint8_t>& out) : out_(out) {}
    void code(int bit, int p1) {
        const std::uint32_t range = high_ - low_;
        const std::uint32_t mid = low_ + (range >> 12) * static_cast<std::uint32_t>(p1) +
                                  (((range & 0xFFFu) * static_cast<std::uint32_t>(p1)) >> 12);
        if (bit != 0) {
            high_ = mid;
        } else {
            low_ = mid + 1;
        }
        while (((low_ ^ high_) & 0xFF000000u) == 0) {
            out_.push_back(static_cast<std::uint8_t>(high_ >> 24));
            low_ <<= 8;
            high_ = (high_ << 8) | 0xFFu;
        }
    }
    // Four bytes of low: the decoder reads exactly what was written.
    void finish() {
        for (int shift = 24; shift >= 0; shift -= 8) {
            out_.push_back(static_cast<std::uint8_t>(low_ >> shift));
        }
    }

private:
    std::vector<std::uint8_t>& out_;
    std::uint32_t low_ = 0;
    std::uint32_t high_ = 0xFFFFFFFFu;
};

class Decoder {
public:
    Decoder(const std::uint8_t* input, std::size_t size) : input_(input), size_(size) {
        for (int index = 0; index < 4; ++index) {
            code_ = (code_ << 8) | next_byte();
        }
    }
    int decode(int p1) {
        const std::uint32_t range = high_ - low_;
        const std::uint32_t mid = low_ + (range >> 12) * static_cast<std::uint32_t>(p1) +
                                  (((range & 0xFFFu) * static_cast<std::uint32_t>(p1)) >> 12);
        const int bit = code_ <= mid ? 1 : 0;
        if (bit != 0) {
            high_ = mid;
        } else {
            low_ = mid + 1;
        }
        while (((low_ ^ high_) & 0xFF000000u) == 0) {
            low_ <<= 8;
            high_ = (high_ << 8) | 0xFFu;
            code_ = (code_ << 8) | next_byte();
        }
        return bit;
    }
    // Whether the code needed bytes past the input's end (it reads zeros
    // there): the input stops short.
    bool overran() const { return overran_; }
    std::size_t input_left() const { return size_ - position_; }

private:
    std::uint32_t next_byte() {
        if (position_ == size_) {
            overran_ = true;
            return 0;
        }
        return input_[position_++];
    }

    const std::uint8_t* input_;
    std::size_t size_;
    std::size_t position_ = 0;
    std::uint32_t low_ = 0;
    std::uint32_t high_ = 0xFFFFFFFFu;
    std::uint32_t code_ = 0;
    bool overran_ = false;
};

// An adaptive probability map: refines a probability in the context of a
// small number, by interpolating between 33 learnt values along the
// stretch domain; the nearer of the two learns.
class Apm {
public:
    explicit Apm(std::size_t contexts) : table_(contexts * 33) {
        for (std::size_t context = 0; context < contexts; ++context) {
            for (int knot = 0; knot < 33; ++knot) {
                table_[context * 33 + static_cast<std::size_t>(knot)] =
                    static_cast<std::uint16_t>(squash((knot - 16) * 128) * 16);
            }
        }
    }
    int refine(int p, std::size_t context, const StretchTable& stretch) {
        const int d = stretch(p) + 2048;
        const int weight = d & 127;
        const std::size_t base = context * 33 + static_cast<std::size_t>(d >> 7);
        chosen_ = base + static_cast<std::size_t>(weight >> 6);
        const int refined = (table_[base] * (128 - weight) + table_[base + 1] * weight) >> 11;
        return std::clamp(refined, 1, 4095);
    }
    void update(int bit) {
        const int target = bit != 0 ? 65535 : 0;
        int value = table_[chosen_];
        value += (target - value) >> 6;
        table_[chosen_] = static_cast<std::uint16_t>(value);
    }

private:
    std::vector<std::uint16_t> table_;
    std::size_t chosen_ = 0;
};

// A gated linear mixer in the logistic domain: one weight vector per
// selector value, trained online to minimise coding cost.
template <std::size_t Inputs>
class Mixer {
public:
    explicit Mixer(std::size_t selectors) : weights_(selectors * Inputs, (1 << 16) / 4) {}
    // The mix of `inputs` in the stretch domain.
    int mix(const std::array<int, Inputs>& inputs, std::size_t selector) {
        base_ = selector * Inputs;
        std::int64_t dot = 0;
        for (std::size_t index = 0; index < Inputs; ++index) {
            dot += std::int64_t{inputs[index]} * weights_[base_ + index];
        }
        const int d = static_cast<int>(std::clamp<std::int64_t>(dot >> 16, -2047, 2047));
        p_ = squash(d);
        return d;
    }
    void update(const std::array<int, Inputs>& inputs, int bit, int rate) {
        const std::int64_t error = std::int64_t{((bit << 12) - p_) * rate};
        for (std::size_t index = 0; index < Inputs; ++index) {
            std::int64_t weight = weights_[base_ + index] + ((inputs[index] * error + 0x8000) >> 16);
            weight = std::clamp<std::int64_t>(weight, -(std::int64_t{1} << 24), std::int64_t{1} << 24);
            weights_[base_ + index] = static_cast<std::int32_t>(weight);
        }
    }

private:
    std::vector<std::int32_t> weights_;
    std::size_t base_ = 0;
    int p_ = 2048;
};

// Table sizes: log2 of the buckets of the hashed contexts and of the match
// model's index, from the raw size: a bucket per 2 bytes, at least 2^10, at
// most 2^20 buckets of 64 bytes (64 MiB) a context. The contexts of orders
// 0 and 1 never need more than 2^10 and 2^15.
inline unsigned cm_table_bits(std::uint64_t raw_size) {
    unsigned bits = 10;
    while (bits < 20 && (std::uint64_t{1} << (bits + 1)) < raw_size) {
        ++bits;
    }
    return bits;
}

inline constexpr std::size_t context_count = 8;
inline constexpr std::size_t input_count = context_count + 3;  // + match, match length, bias
inline constexpr unsigned match_min_length = 6;

// log2 of the buckets of context `index` for tables of `bits`.
inline unsigned context_bits(std::size_t index, unsigned bits) {
    return index == 0 ? std::min(bits, 10u) : index == 1 ? std::min(bits, 15u) : bits;
}

// The nodes of all contexts for tables of `bits`.
inline std::size_t node_count(unsigned bits) {
    std::size_t count = 0;
    for (std::size_t index = 0; index < context_count; ++index) {
        count += std::size_t{16} << context_bits(index, bits);
    }
    return count;
}

// The model: the probability of the next bit, then update() with it.
class Model {
public:
    // The encoder's model reads the bytes it codes from `history`; the
    // decoder's writes each byte into `sink` (the same buffer) as it ends.
    Model(const std::uint8_t* history, std::uint8_t* sink, std::uint64_t raw_size)
        : history_(history),
          sink_(sink),
          bits_(cm_table_bits(raw_size)),
          nodes_(node_count(bits_), node_start),
          match_index_(std::size_t{1} << (bits_ + 2), 0),
          match_nodes_(64 * 2, node_start),
          mixer_by_match_(3 * 256),
          mixer_by_position_(8 * 256),
          apm_partial_(256),
          apm_order1_(65536),
          stretch_(stretch_table()),
          rates_(rate_table()) {
        begin_byte();
    }

    int p() {
        const int match_bit = expected_bit();
        for (std::size_t index = 0; index < context_count; ++index) {
            const std::uint32_t node = nodes_[bucket_[index] + nibble_];
            inputs_[index] = (node & 1023u) == 0 ? 0 : stretch_(node_p12(node));
        }
        if (match_bit >= 0) {
            const std::uint32_t node = match_nodes_[match_node()];
            const int d = stretch_(node_p12(node));
            inputs_[context_count] = d;
            inputs_[context_count + 1] =
                (match_bit != 0 ? 1 : -1) * static_cast<int>(std::min<std::uint32_t>(match_length_, 32)) * 32;
        } else {
            inputs_[context_count] = 0;
            inputs_[context_count + 1] = 0;
        }
        inputs_[context_count + 2] = 256;
        const int match_state = match_bit < 0 ? 0 : match_length_ < 16 ? 1 : 2;
        const int by_match = mixer_by_match_.mix(inputs_, static_cast<std::size_t>(match_state * 256 + partial_));
        const int by_position = mixer_by_position_.mix(
            inputs_, static_cast<std::size_t>((position_ & 7) * 256 + static_cast<std::uint64_t>(partial_)));
        const int mixed = squash((by_match + by_position) >> 1);
        const int refined_partial = apm_partial_.refine(mixed, static_cast<std::size_t>(partial_), stretch_);
        const int refined_order1 =
            apm_order1_.refine(mixed, static_cast<std::size_t>(partial_ | (last_byte() << 8)), stretch_);
        return std::clamp((mixed + refined_partial + 2 * refined_order1 + 2) >> 2, 1, 4095);
    }

    void update(int bit) {
        for (std::size_t index = 0; index < context_count; ++index) {
            update_node(nodes_[bucket_[index] + nibble_], bit, index < 2 ? 255u : 30u, rates_);
        }
        if (expected_bit() >= 0) {
            update_node(match_nodes_[match_node()], bit, 1023u, rates_);
        }
        mixer_by_match_.update(inputs_, bit, 12);
        mixer_by_position_.update(inputs_, bit, 12);
        apm_partial_.update(bit);
        apm_order1_.update(bit);

        partial_ = (partial_ << 1) | bit;
        nibble_ = (nibble_ << 1) | static_cast<std::uint32_t>(bit);
        if (match_length_ > 0) {
            const int predicted = history_[match_pointer_] | 256;
            if ((predicted >> (7 - bit_)) != partial_) {
                match_length_ = 0;
            }
        }
        ++bit_;
        if (bit_ == 4) {
            choose_buckets(static_cast<std::uint32_t>(partial_));
        } else if (bit_ == 8) {
            if (sink_ != nullptr) {
                sink_[position_] = static_cast<std::uint8_t>(partial_);
            }
            ++position_;
            begin_byte();
        }
    }

private:
    int last_byte() const { return position_ == 0 ? 0 : history_[position_ - 1]; }
    std::uint32_t back(std::uint64_t distance) const {
        return position_ >= distance ? history_[position_ - distance] : 0;
    }

    // The bit the match model predicts, or -1 where it has none.
    int expected_bit() const {
        if (match_length_ == 0) {
            return -1;
        }
        return (history_[match_pointer_] >> (7 - bit_)) & 1;
    }
    std::size_t match_node() const {
        return static_cast<std::size_t>(std::min<std::uint32_t>(match_length_, 31) * 2 +
                                        static_cast<std::uint32_t>(expected_bit())) *
                   2 +
               (bit_ == 0 ? 0 : 1);
    }

    void begin_byte() {
        bit_ = 0;
        partial_ = 1;
        if (position_ > 0) {
            order4_ = (order4_ << 8) | history_[position_ - 1];
        }
        update_match();
        const std::uint32_t b1 = back(1);
        const std::uint32_t b2 = back(2);
        const std::uint32_t b4 = back(4);
        const std::uint32_t b8 = back(8);
        const std::uint32_t b16 = back(16);
        const std::uint32_t pos8 = static_cast<std::uint32_t>(position_ & 7);
        context_[0] = pos8;
        context_[1] = 0x100u | b1;
        context_[2] = 0x20000u | (b2 << 8) | b1;
        context_[3] = hash32(0x3000000u | (order4_ & 0xFFFFFFu));
        context_[4] = hash32(order4_ + 0x9E3779B9u);
        context_[5] = hash32(hash32(order4_) + ((back(6) << 8) | back(5)) + 0x5000000u);
        context_[6] = hash32(0x6000000u | (pos8 << 16) | (b8 << 8) | b16);
        context_[7] = hash32(0x7000000u | (static_cast<std::uint32_t>(position_ & 3) << 16) | (b4 << 8) | b8);
        choose_buckets(0);
    }

    // At bits 0 and 4: each context's bucket for the nibble to come. A
    // bucket's first node (no nibble's) holds the hash of the context that
    // owns it; another context takes it over afresh.
    void choose_buckets(std::uint32_t seen) {
        std::size_t start = 0;
        for (std::size_t index = 0; index < context_count; ++index) {
            const unsigned bits = context_bits(index, bits_);
            const std::uint32_t hash =
                hash32(context_[index] * 0x2F0F3A4Du + seen * 0x6A09E667u + static_cast<std::uint32_t>(index));
            const std::size_t bucket = start + (static_cast<std::size_t>(hash & ((std::uint32_t{1} << bits) - 1)) << 4);
            if (nodes_[bucket] != hash) {
                std::fill(nodes_.begin() + static_cast<std::ptrdiff_t>(bucket),
                          nodes_.begin() + static_cast<std::ptrdiff_t>(bucket + 16), node_start);
                nodes_[bucket] = hash;
            }
            bucket_[index] = bucket;
            start += std::size_t{16} << bits;
        }
        nibble_ = 1;
    }

    void update_match() {
        if (match_length_ > 0) {
            ++match_pointer_;
            match_length_ = std::min<std::uint32_t>(match_length_ + 1, 65535);
        }
        if (position_ < match_min_length) {
            return;
        }
        std::uint32_t hash = 0;
        for (std::uint64_t distance = match_min_length; distance >= 1; --distance) {
            hash = (hash + history_[position_ - distance] + 1) * 0x01000193u;
        }
        hash = hash32(hash) & static_cast<std::uint32_t>(match_index_.size() - 1);
        if (match_length_ == 0) {
            const std::uint64_t candidate = match_index_[hash];
            if (candidate > 0) {
                std::uint32_t length = 0;
                while (length < 32 && length < candidate &&
                       history_[candidate - 1 - length] == history_[position_ - 1 - length]) {
                    ++length;
                }
                if (length >= match_min_length) {
                    match_length_ = length;
                    match_pointer_ = candidate;
                }
            }
        }
        match_index_[hash] = static_cast<std::uint32_t>(position_);
    }

    const std::uint8_t* history_;
    std::uint8_t* sink_;
    unsigned bits_;
    std::vector<std::uint32_t> nodes_;
    std::vector<std::uint32_t> match_index_;
    std::vector<std::uint32_t> match_nodes_;
    Mixer<input_count> mixer_by_match_;
    Mixer<input_count> mixer_by_position_;
    Apm apm_partial_;
    Apm apm_order1_;
    const StretchTable& stretch_;
    const RateTable& rates_;
    std::array<int, input_count> inputs_{};
    std::array<std::uint32_t, context_count> context_{};
    std::array<std::size_t, context_count> bucket_{};
    std::uint64_t position_ = 0;
    int bit_ = 0;
    int partial_ = 1;
    std::uint32_t nibble_ = 1;
    std::uint32_t order4_ = 0;
    std::uint64_t match_pointer_ = 0;
    std::uint32_t match_length_ = 0;
};

inline constexpr std::uint8_t mode_stored = 0;
inline constexpr std::uint8_t mode_modelled = 1;

}  // namespace cm_detail

// The mode byte, the LEB128 size, four bytes of flush, and the stored
// fallback: never more than this.
constexpr std::uint64_t cm_compress_bound(std::uint64_t size) {
    return size + 16;
}

// What the encoder (and as much the decoder) takes on a stream of
// stream_bytes: the contexts' buckets and the match index.
inline std::uint64_t cm_encoder_bytes(std::uint64_t stream_bytes) {
    const unsigned bits = cm_detail::cm_table_bits(stream_bytes);
    return std::uint64_t{4} * cm_detail::node_count(bits) + (std::uint64_t{4} << (bits + 2)) + (std::uint64_t{5} << 20);
}

// Compresses data[0..size) into `compressed` (replacing its contents).
inline void cm_compress(const std::uint8_t* data, std::size_t size, std::vector<std::uint8_t>& compressed) {
    compressed.clear();
    if (size == 0) {
        return;
    }
    compressed.reserve(size / 4 + 16);
    compressed.push_back(cm_detail::mode_modelled);
    for (std::uint64_t rest = size;; rest >>= 7) {
        compressed.push_back(static_cast<std::uint8_t>((rest & 127u) | (rest >= 128 ? 128u : 0u)));
        if (rest < 128) {
            break;
        }
    }
    {
        cm_detail::Model model(data, nullptr, size);
        cm_detail::Encoder encoder(compressed);
        for (std::size_t index = 0; index < size; ++index) {
            for (int shift = 7; shift >= 0; --shift) {
                const int bit = (data[index] >> shift) & 1;
                encoder.code(bit, model.p());
                model.update(bit);
            }
            if (compressed.size() > size) {
                break;  // stored below
            }
        }
        encoder.finish();
    }
    if (compressed.size() > size) {
        compressed.assign(1, cm_detail::mode_stored);
        compressed.insert(compressed.end(), data, data + size);
    }
}

// The back-end's compression (backends.hpp): the same at every level.
inline void cm_compress_at_level(const std::uint8_t* data, std::size_t size, std::vector<std::uint8_t>& compressed,
                                 unsigned /*level*/) {
    cm_compress(data, size, compressed);
}

// Decompresses into `out` exactly expected_size bytes, with decode_growing's
// messages (decode_growing.hpp) for data that does not come to them.
inline void cm_decompress(const std::uint8_t* input, std::size_t input_size, std::vector<std::uint8_t>& out,
                          std::size_t expected_size, std::string_view what = "CM data") {
    const std::string name(what);
    out.clear();
    if (input_size == 0 && expected_size == 0) {
        return;
    }
    if (input_size == 0) {
        fail("corrupt input: " + name + " is empty but should hold " + std::to_string(expected_size) + " bytes");
    }
    if (expected_size == 0) {
        fail("corrupt input: " + name + " should be empty but has " + std::to_string(input_size) + " compressed bytes");
    }
    auto check_size = [&](std::uint64_t stated) {
        if (stated > expected_size) {
            fail("corrupt input: " + name + " decompresses to more than " + std::to_string(expected_size) + " bytes");
        }
    };
    auto check_end = [&](std::uint64_t produced, std::size_t input_left) {
        if (produced != expected_size) {
            fail("corrupt input: " + name + " decompresses to " + std::to_string(produced) + " bytes instead of " +
                 std::to_string(expected_size));
        }
        if (input_left != 0) {
            fail("corrupt input: " + name + " has " + std::to_string(input_left) +
                 " bytes after the end of its CM stream");
        }
    };
    if (input[0] == cm_detail::mode_stored) {
        check_size(input_size - 1);
        out.assign(input + 1, input + input_size);
        check_end(out.size(), 0);
        return;
    }
    if (input[0] != cm_detail::mode_modelled) {
        fail("corrupt input: " + name + " is not valid CM data (mode " + std::to_string(input[0]) + ")");
    }
    std::size_t position = 1;
    std::uint64_t stated = 0;
    for (unsigned shift = 0;; shift += 7) {
        if (position == input_size) {
            fail("corrupt input: " + name + " ends in the middle of the CM stream");
        }
        const std::uint8_t byte = input[position++];
        if (shift > 56 || (shift == 56 && byte > 127)) {
            fail("corrupt input: " + name + " is not valid CM data (size too large)");
        }
        stated |= std::uint64_t{byte & 127u} << shift;
        if (byte < 128) {
            break;
        }
    }
    check_size(stated);
    if (stated == 0) {
        fail("corrupt input: " + name + " is not valid CM data (size 0)");
    }
    out.assign(static_cast<std::size_t>(stated), 0);
    cm_detail::Model model(out.data(), out.data(), stated);
    cm_detail::Decoder decoder(input + position, input_size - position);
    for (std::size_t index = 0; index < out.size(); ++index) {
        for (int count = 0; count < 8; ++count) {
            model.update(decoder.decode(model.p()));
        }
        if (decoder.overran()) {
            fail("corrupt input: " + name + " ends in the middle of the CM stream");
        }
    }
    check_end(out.size(), decoder.input_left());
}

}  // namespace tcgen_runtime
