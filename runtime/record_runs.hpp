#pragma once
// Whole-record runs: where a trace repeats itself, a block's records are
// coded as copies of earlier records of the block instead of field by field.
//
// After each record coded field by field, a table keyed by a hash of that
// whole record gives where the same record was last followed by another: the
// record after that earlier one is the prediction for the next. Where such a
// prediction exists, the codes stream gets the length of the run, the number
// of records from there on that equal the records after the earlier one
// (0: the prediction was wrong at once), and the decoder copies them. The
// field predictors learn the records of a run (select and update, no
// prediction, no code), so the records after a run are coded as they would
// be without runs (all of them, or the last few: see below). A run costs a varint for any number of records where the
// field codes cost one code per field per record, and decoding it is a copy
// plus the tables' updates: on branch and ChampSim traces 80-90 % of records
// lie in runs of 16 or more (docs/design/log.md, "Runs of whole records").
//
// Where runs are short, their lengths cost more than the codes they save, so
// the writer decides per block. A scan for runs comes first: where runs of
// 16 records or more hold a third of the block's records, runs are used.
// Otherwise the choice is made on what each way would cost: the fields code
// every record once (their tables change alike whether a record is coded or
// learnt as a copy), which gives the block without runs and, by leaving out
// the records each copies, the block with runs learnt whole and the block
// of record matches; a quick estimate of each one's compressed streams
// (estimate_with) picks the smallest. No statistic of a scan told these
// apart: on load and store traces matches covering 72-78 % of a block cost
// up to 84 % more bytes, and on cache misses covering 85-89 % they saved
// 8-21 % (docs/design/log.md, "Whole-record decisions on load and store
// traces").
//
// Learning is what a run costs the decoder: 97.9 % of a python3 branch trace
// is copied and its decoding still spends 60 % of its time in the fields'
// table updates, a cache miss each. Where the long runs are long (40 records
// or more on average), the fields learn only the last few records of each
// run, whose values become the histories the next coded record needs; the
// tables miss what the run's middle would have taught them. On branch and
// ChampSim traces that halves decoding time for 10-15 % more bytes; where
// runs are shorter (store addresses, load values) it cost up to 31 % and
// saved nothing, and the scan keeps every record learnt (docs/design/log.md,
// "Learning only the tails of long runs"). The best-ratio levels learn every
// record whatever the runs (learn_every_record).
//
// The codes stream of a block starts with that decision, one byte: 0 no
// runs, 1 runs learnt whole, 2 runs learnt by their tails, 3 record matches,
// 4 runs learnt whole as coded.
//
// A copied record is learnt one of two ways. As coded (flags 3 and 4),
// learn_one(record, std::true_type), it changes the tables exactly as coding
// it would: a MATCH not first in its field starts a match only where the
// code would have named it. The blocks the cost chooses must be learnt so,
// because they are assembled from one pass that coded every record. A block
// the scan chose is coded as it goes, so its copies may teach the fields
// more, learn_one(record, std::false_type): such a MATCH starts wherever it
// is right, which makes run-heavy ChampSim and store traces up to 2 %
// smaller. The scan's runs are learnt so where they are learnt by their
// tails (flag 2) and where ratio comes first (flag 1); else as coded (flag
// 4), which decodes faster (scan_runs).
//
// Record matches are for the traces whose records repeat earlier ones in
// runs of a few records from far back, in another order (cache misses: 97 %
// of perl's miss records, in runs of 2-8, from 2^9-2^21 records back), where
// "the record after the last equal record" seldom holds: an LZ77 over whole
// records, each match a candidate's index or a distance, and a length
// (below).
// Nothing carries from block to block: the tables are emptied at each block,
// so a block can be decoded after a restart as before.

#include <algorithm>
#include <cinttypes>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "runtime/byte_order.hpp"
#include "runtime/error.hpp"
#include "runtime/streams.hpp"

namespace tcgen_runtime {

// The most the run machinery adds to the codes stream per record: a block's
// flag byte (a block holds at least one record) and at most three bytes per
// record: with runs, a length of 0 before a record coded field by field, and
// a run of L >= 1 records a varint of at most L bytes; with record matches, a
// token before a record coded field by field, a match of L >= 1 records from
// a candidate its token and a varint of at most L bytes, and an explicit
// match (L >= 2 records) those and a distance of at most 4 bytes (a block
// holds fewer than 2^28 records).
inline constexpr std::uint64_t record_runs_bytes_per_record = 4;

// What `size` bytes of a codec's stream number `stream` would compress to,
// estimated (stream_cost.hpp gives the writer's): the per-block choice
// between runs, record matches and neither is made on it.
using StreamCostEstimate = std::function<std::uint64_t(std::size_t stream, const std::uint8_t* data, std::size_t size)>;

template <std::size_t record_bytes>
class RecordRuns {
public:
    // A block's first byte in the codes stream: whether it has runs, and how
    // much of each run the fields learn.
    enum class Learning : std::uint8_t {
        no_runs = 0,
        every_record = 1,
        run_tails = 2,
        record_matches = 3,
        every_record_as_coded = 4,
    };
    // Whether the fields learn a block's copied records as coding them would
    // (the blocks the cost chose), rather than all a copy can teach them.
    static constexpr bool learns_as_coded(Learning learning) {
        return learning == Learning::record_matches || learning == Learning::every_record_as_coded;
    }
    // Run tails: the records of a run the fields learn, and the mean length
    // of a block's long runs from which only those are learnt.
    static constexpr std::size_t tail_learned = 4;
    static constexpr std::size_t tail_mean_run = 40;
    // Learning a record costs a cache miss per table it touches only where
    // the fields' tables outgrow the caches; below this size it costs about
    // what copying the record does, so the tails would cost ratio for no
    // speed (an id stream's 2 MiB of tables: 16 % more bytes, the same
    // decoding time; docs/design/log.md, "Learning only the tails of long
    // runs"), and every record is learnt at every level.
    static constexpr std::uint64_t tails_min_table_bytes = std::uint64_t{16} << 20;
    static constexpr bool tails_save_time(std::uint64_t field_table_bytes) {
        return field_table_bytes >= tails_min_table_bytes;
    }
    // Runs of this many records or more count towards the decision.
    static constexpr std::size_t long_run = 16;
    // Where long runs do not decide, a way of coding the block is estimated
    // only if it copies at least this share of its records (1/32): below
    // that it cannot gain what estimating it costs.
    static constexpr std::size_t min_copied_shift = 5;
    // The table's size for the largest block: 2^20 entries (4 MiB) found 3-5 %
    // more of the runs of load and store traces than 2^16 entries.
    static constexpr unsigned max_table_bits = 20;
    static constexpr unsigned min_table_bits = 8;

    static constexpr std::uint64_t table_bytes(std::size_t records_per_block) {
        return (std::uint64_t{1} << table_bits(records_per_block)) * sizeof(std::uint32_t);
    }

    // Whether the fields learn every record of every run the scan finds, and
    // all that each copy can teach them (the writer's choice for ratio over
    // decoding speed), rather than the tails of long runs and the other runs
    // as coded.
    void learn_every_record(bool every) { speed_first_ = !every; }

    // The estimate the choice between the ways of coding a block is made on
    // where long runs do not decide; without one, a stream's raw bytes.
    void estimate_with(StreamCostEstimate estimate) { estimate_ = std::move(estimate); }

    // Codes `count` records into streams[0..stream_count), whose first is the
    // codes stream: the decision byte, then the run lengths or match tokens
    // among the fields' codes. encode_one(record) codes one record field by
    // field; learn_one(record, as_coded) has the fields learn it without
    // coding it (as_coded: std::true_type or std::false_type, see above);
    // uncount_one(codes) takes back from the fields' usage counts a record
    // that encode_one coded and a run or match then copied, its part of the
    // codes stream at `codes`.
    template <class EncodeOne, class LearnOne, class UncountOne>
    void encode(const std::uint8_t* records, std::size_t count, StreamWriter* streams, std::size_t stream_count,
                EncodeOne&& encode_one, LearnOne&& learn_one, UncountOne&& uncount_one) {
        if (count == 0) {
            return;
        }
        records_ += count;
        const Learning runs = scan_runs(records, count);
        if (runs == Learning::no_runs) {
            encode_cheapest(records, count, streams, stream_count, encode_one, uncount_one);
            return;
        }
        streams[0].put(static_cast<std::uint8_t>(runs));
        Tally tally;
        put_runs(
            records, count, runs, streams[0], tally,
            [&](std::size_t index) { encode_one(records + index * record_bytes); },
            [&](std::size_t first, std::size_t length) { learn(learn_one, records, first, length, runs); });
        totals_.add(tally);
    }

    // Rebuilds `count` records that encode() coded; decode_one(record) decodes
    // one record field by field into `record`.
    template <class DecodeOne, class LearnOne>
    void decode(StreamReader& codes, std::size_t count, std::uint8_t* records, DecodeOne&& decode_one,
                LearnOne&& learn_one) {
        if (count == 0) {
            return;
        }
        records_ += count;
        const std::uint8_t flag = codes.get<std::uint8_t>();
        if (flag > static_cast<std::uint8_t>(Learning::every_record_as_coded)) {
            fail("corrupt input: invalid run flag " + std::to_string(flag) + " in the codes stream");
        }
        const Learning learning = static_cast<Learning>(flag);
        if (learning == Learning::no_runs) {
            for (std::size_t index = 0; index < count; ++index) {
                decode_one(records + index * record_bytes);
            }
            return;
        }
        if (learning == Learning::record_matches) {
            decode_matches(codes, count, records, decode_one, learn_one);
            return;
        }
        Cursor cursor = start(count, learning);
        Tally tally;
        const auto learn_run = [&](std::size_t first, std::size_t length) {
            learn(learn_one, records, first, length, learning);
        };
        while (cursor.index < count) {
            if (cursor.predicted != 0) {
                const std::size_t from = cursor.predicted - 1;
                const std::uint64_t length = get_length(codes);
                if (length > count - cursor.index) {
                    fail("corrupt input: a run of " + std::to_string(length) + " records where " +
                         std::to_string(count - cursor.index) + " remain in the block");
                }
                copy(records, from, cursor.index, static_cast<std::size_t>(length));
                if (end_run(cursor, records, static_cast<std::size_t>(length), tally, learn_run)) {
                    break;
                }
            }
            decode_one(records + cursor.index * record_bytes);
            after_coded(cursor, records);
        }
        totals_.add(tally);
    }

    // Records coded as parts of runs so far: copied whole, never coded by
    // the fields.
    std::uint64_t records_in_runs() const { return totals_.copied; }

    // The report's line: records coded as parts of runs so far, the runs,
    // and how many of the copied records the fields learnt.
    void write_report(std::FILE* out) const {
        std::fprintf(out,
                     "whole-record runs: %" PRIu64 " of %" PRIu64 " records copied from earlier ones, in %" PRIu64
                     " runs; the predictors learnt %" PRIu64 " of them\n",
                     totals_.copied, records_, totals_.runs, totals_.learnt);
    }

    // Mixes the whole record; the top `bits` bits index a table (this one's,
    // and record_ids.hpp's index).
    static std::size_t slot_of(const std::uint8_t* record, unsigned bits) {
        std::uint64_t hash = 0x9E3779B97F4A7C15u;
        std::size_t offset = 0;
        for (; offset + 8 <= record_bytes; offset += 8) {
            hash = (hash ^ load_le<std::uint64_t>(record + offset)) * 0xFF51AFD7ED558CCDu;
            hash ^= hash >> 29;
        }
        for (; offset < record_bytes; ++offset) {
            hash = (hash ^ record[offset]) * 0xC4CEB9FE1A85EC53u;
        }
        hash ^= hash >> 32;
        return static_cast<std::size_t>((hash * 0x9E3779B97F4A7C15u) >> (64 - bits));
    }

private:
    struct Cursor {
        std::size_t index = 0;      // the next record to code
        std::size_t predicted = 0;  // 1 + the index of the record predicted next; 0: none
        std::size_t count = 0;      // the block's records
        unsigned bits = 0;          // log2 of the table's entries this block
        std::size_t learned = 0;    // the most records of a run the fields learn
    };

    // Records copied by runs or matches, the runs or matches, and the copied
    // records the fields learnt: of a block, and so far (the report's).
    struct Tally {
        std::uint64_t copied = 0;
        std::uint64_t runs = 0;
        std::uint64_t learnt = 0;

        void add(const Tally& other) {
            copied += other.copied;
            runs += other.runs;
            learnt += other.learnt;
        }
    };

    static constexpr unsigned table_bits(std::size_t count) {
        unsigned bits = min_table_bits;
        while (bits < max_table_bits && (std::size_t{1} << bits) < 2 * count) {
            ++bits;
        }
        return bits;
    }

    static bool same(const std::uint8_t* records, std::size_t a, std::size_t b) {
        return std::memcmp(records + a * record_bytes, records + b * record_bytes, record_bytes) == 0;
    }

    // Copies records [from, from + length) to [to, to + length), from < to;
    // where the two overlap, record by record, so that a run may repeat
    // records it has itself just written.
    static void copy(std::uint8_t* records, std::size_t from, std::size_t to, std::size_t length) {
        if (from + length <= to) {
            std::memcpy(records + to * record_bytes, records + from * record_bytes, length * record_bytes);
            return;
        }
        for (std::size_t k = 0; k < length; ++k) {
            std::memcpy(records + (to + k) * record_bytes, records + (from + k) * record_bytes, record_bytes);
        }
    }

    // The fields learn records [first, first + length), as a block of
    // `learning` has them learn a copied record.
    template <class LearnOne>
    static void learn(LearnOne& learn_one, const std::uint8_t* records, std::size_t first, std::size_t length,
                      Learning learning) {
        if (learns_as_coded(learning)) {
            for (std::size_t index = first; index < first + length; ++index) {
                learn_one(records + index * record_bytes, std::true_type{});
            }
        } else {
            for (std::size_t index = first; index < first + length; ++index) {
                learn_one(records + index * record_bytes, std::false_type{});
            }
        }
    }

    Cursor start(std::size_t count, Learning learning) {
        Cursor cursor;
        cursor.count = count;
        cursor.learned = learning == Learning::run_tails ? tail_learned : count;
        cursor.bits = table_bits(count);
        const std::size_t entries = std::size_t{1} << cursor.bits;
        if (table_.size() < entries) {
            table_.resize(entries);
        }
        std::fill(table_.begin(), table_.begin() + static_cast<std::ptrdiff_t>(entries), 0);
        return cursor;
    }

    // After a run of `length` records (possibly 0) at cursor.index: the fields
    // learn them (learn(first, length): the records from index `first` on),
    // the table learns where the run's last record was followed. Returns
    // whether the block is done.
    template <class Learn>
    bool end_run(Cursor& cursor, const std::uint8_t* records, std::size_t length, Tally& tally, Learn& learn) {
        if (length > 0) {
            const std::size_t first_learnt = length > cursor.learned ? length - cursor.learned : 0;
            learn(cursor.index + first_learnt, length - first_learnt);
            tally.learnt += length - first_learnt;
            tally.copied += length;
            tally.runs += 1;
            cursor.index += length;
            table_[slot_of(records + (cursor.index - 1) * record_bytes, cursor.bits)] =
                static_cast<std::uint32_t>(cursor.index + 1);
        }
        cursor.predicted = 0;
        return cursor.index == cursor.count;
    }

    // Runs over the block: their lengths into `codes`; code(index) for each
    // record coded field by field, learn(first, length) for the records of
    // each run the fields learn.
    template <class Code, class Learn>
    void put_runs(const std::uint8_t* records, std::size_t count, Learning learning, StreamWriter& codes, Tally& tally,
                  Code&& code, Learn&& learn) {
        Cursor cursor = start(count, learning);
        while (cursor.index < count) {
            if (cursor.predicted != 0) {
                const std::size_t from = cursor.predicted - 1;
                std::size_t length = 0;
                while (cursor.index + length < count && same(records, from + length, cursor.index + length)) {
                    ++length;
                }
                put_length(codes, length);
                if (end_run(cursor, records, length, tally, learn)) {
                    break;
                }
            }
            code(cursor.index);
            after_coded(cursor, records);
        }
    }

    // After record cursor.index was coded field by field: what the table says
    // follows it is the next prediction; the table now says this record is
    // followed by the next one.
    void after_coded(Cursor& cursor, const std::uint8_t* records) {
        std::uint32_t& entry = table_[slot_of(records + cursor.index * record_bytes, cursor.bits)];
        cursor.predicted = entry;
        entry = static_cast<std::uint32_t>(cursor.index + 2);
        ++cursor.index;
    }

    // The scan for runs: runs learnt whole or by their tails where runs of
    // long_run records or more hold a third of the block, else no_runs (and
    // the records that runs of any length would copy in copied_by_runs_).
    // Where speed comes first, runs learnt whole are learnt as coded: all a
    // copy can teach is worth up to 2 % of a store trace at -9, but a MATCH
    // not first in its field then looks its key up for every copied record
    // it does not follow, up to 13 % of the decoding time, where finding the
    // code the record would have had costs nothing measurable
    // (docs/design/log.md, "Learning a copied record by who chose it").
    Learning scan_runs(const std::uint8_t* records, std::size_t count) {
        Cursor cursor = start(count, Learning::every_record);
        std::size_t run = 0;
        std::size_t in_runs = 0;
        std::size_t in_long_runs = 0;
        std::size_t long_runs = 0;
        const auto end = [&] {
            in_runs += run;
            in_long_runs += run >= long_run ? run : 0;
            long_runs += run >= long_run ? 1 : 0;
            run = 0;
        };
        for (std::size_t index = 0; index < count; ++index) {
            if (cursor.predicted != 0 && same(records, cursor.predicted - 1, index)) {
                ++run;
                ++cursor.predicted;
                continue;
            }
            end();
            std::uint32_t& entry = table_[slot_of(records + index * record_bytes, cursor.bits)];
            cursor.predicted = entry;
            entry = static_cast<std::uint32_t>(index + 2);
        }
        end();
        copied_by_runs_ = in_runs;
        if (in_long_runs * 3 < count) {
            return Learning::no_runs;
        }
        if (!speed_first_) {
            return Learning::every_record;
        }
        return in_long_runs >= tail_mean_run * long_runs ? Learning::run_tails : Learning::every_record_as_coded;
    }

    static void put_length(StreamWriter& codes, std::uint64_t length) {
        while (length >= 0x80) {
            codes.put(static_cast<std::uint8_t>(length | 0x80));
            length >>= 7;
        }
        codes.put(static_cast<std::uint8_t>(length));
    }

    static std::uint64_t get_length(StreamReader& codes) {
        std::uint64_t length = 0;
        for (unsigned shift = 0; shift < 64; shift += 7) {
            const std::uint8_t byte = codes.get<std::uint8_t>();
            length |= static_cast<std::uint64_t>(byte & 0x7F) << shift;
            if (byte < 0x80) {
                return length;
            }
        }
        fail("corrupt input: a run length longer than 64 bits in the codes stream");
    }

    // Record matches (flag 3), an LZ77 over whole records. Before each
    // record not yet copied, a token in the codes stream: 0, the record is
    // coded field by field; k in 1..match_candidates, a match from the k-th
    // most recent earlier record of the block whose predecessor hashes as
    // this record's predecessor does (its context: a chain both sides keep,
    // so naming the candidate costs a byte the back-end codes well);
    // explicit_token, a match from a distance in records back. A match's
    // token is followed by its length - 1 and an explicit one's then by its
    // distance - 1, LEB128 varints. The fields learn every record a match
    // copies, so the records after it are coded as without matches.
    //
    // The writer's parse is greedy: the longest match among the context's
    // candidates (the most recent of equal ones), and an explicit one only
    // where it is longer still and covers two records or more, the longest
    // from the last explicit_chain positions of the next two records (the
    // writer's own chain). Figures in docs/design/log.md, "Record matches".
    static constexpr std::size_t match_candidates = 64;
    static constexpr std::uint8_t explicit_token = match_candidates + 1;
    static constexpr std::size_t explicit_chain = 128;
    static constexpr std::size_t explicit_min = 2;

    struct MatchItem {
        std::uint8_t token = 0;
        std::uint32_t length = 1;
        std::uint32_t distance = 0;
    };

    static std::size_t match_length(const std::uint8_t* records, std::size_t from, std::size_t to, std::size_t count) {
        std::size_t length = 0;
        while (to + length < count && same(records, from + length, to + length)) {
            ++length;
        }
        return length;
    }

    // Record `index` is known: it joins the chain of the context of the record
    // before it.
    void insert_context(const std::uint8_t* records, std::size_t index, unsigned bits) {
        if (index == 0) {
            return;
        }
        std::uint32_t& head = table_[slot_of(records + (index - 1) * record_bytes, bits)];
        context_prev_[index] = head;
        head = static_cast<std::uint32_t>(index);
    }

    unsigned start_matches(std::size_t count, bool encoder) {
        // The heads of the context chains take the runs' table, unused in
        // such a block.
        const unsigned bits = table_bits(count);
        const std::size_t entries = std::size_t{1} << bits;
        if (table_.size() < entries) {
            table_.resize(entries);
        }
        std::fill(table_.begin(), table_.begin() + static_cast<std::ptrdiff_t>(entries), 0);
        if (context_prev_.size() < count) {
            context_prev_.resize(count);
        }
        if (encoder) {
            content_head_.assign(entries, 0);
            if (content_prev_.size() < count) {
                content_prev_.resize(count);
            }
        }
        return bits;
    }

    // The slot of records [index, index + 2): the encoder's search for
    // explicit matches.
    static std::size_t pair_slot(const std::uint8_t* records, std::size_t index, unsigned bits) {
        const std::size_t a = slot_of(records + index * record_bytes, 32);
        const std::size_t b = slot_of(records + (index + 1) * record_bytes, 32);
        const std::uint64_t hash = (static_cast<std::uint64_t>(a) * 0x9E3779B97F4A7C15u) ^ b;
        return static_cast<std::size_t>((hash * 0xFF51AFD7ED558CCDu) >> (64 - bits));
    }

    void insert_content(const std::uint8_t* records, std::size_t index, unsigned bits) {
        // Record `index` is known: the pair ending at it can be found.
        if (index == 0) {
            return;
        }
        std::uint32_t& head = content_head_[pair_slot(records, index - 1, bits)];
        content_prev_[index - 1] = head;
        head = static_cast<std::uint32_t>(index);  // 1 + the pair's first record
    }

    // The greedy parse of a block into matches and records coded field by
    // field; returns the records the matches cover.
    std::size_t parse_matches(const std::uint8_t* records, std::size_t count) {
        const unsigned bits = start_matches(count, true);
        parse_.clear();
        std::size_t covered = 0;
        std::size_t index = 0;
        while (index < count) {
            MatchItem best;
            std::size_t best_length = 0;
            if (index > 0) {
                std::uint32_t candidate = table_[slot_of(records + (index - 1) * record_bytes, bits)];
                for (std::size_t k = 1; k <= match_candidates && candidate != 0; ++k) {
                    const std::size_t length = match_length(records, candidate, index, count);
                    if (length > best_length) {
                        best_length = length;
                        best.token = static_cast<std::uint8_t>(k);
                        best.length = static_cast<std::uint32_t>(length);
                    }
                    candidate = context_prev_[candidate];
                }
            }
            if (index + 1 < count) {
                std::uint32_t candidate = content_head_[pair_slot(records, index, bits)];
                for (std::size_t k = 0; k < explicit_chain && candidate != 0; ++k) {
                    const std::size_t from = candidate - 1;
                    const std::size_t length = match_length(records, from, index, count);
                    if (length >= explicit_min && length > best_length) {
                        best_length = length;
                        best.token = explicit_token;
                        best.length = static_cast<std::uint32_t>(length);
                        best.distance = static_cast<std::uint32_t>(index - from);
                    }
                    candidate = content_prev_[from];
                }
            }
            if (best.token == 0) {
                best.length = 1;
            } else {
                covered += best.length;
            }
            parse_.push_back(best);
            for (std::size_t k = 0; k < best.length; ++k) {
                insert_context(records, index + k, bits);
                insert_content(records, index + k, bits);
            }
            index += best.length;
        }
        return covered;
    }

    // The parse's matches into `codes`: code(index) for each record coded
    // field by field, learn(first, length) for the records of each match.
    template <class Code, class Learn>
    void put_matches(StreamWriter& codes, Tally& tally, Code&& code, Learn&& learn) const {
        std::size_t index = 0;
        for (const MatchItem& item : parse_) {
            codes.put(item.token);
            if (item.token == 0) {
                code(index);
                ++index;
                continue;
            }
            put_length(codes, item.length - 1);
            if (item.token == explicit_token) {
                put_length(codes, item.distance - 1);
            }
            learn(index, item.length);
            index += item.length;
            tally.copied += item.length;
            tally.learnt += item.length;
            tally.runs += 1;
        }
    }

    template <class DecodeOne, class LearnOne>
    void decode_matches(StreamReader& codes, std::size_t count, std::uint8_t* records, DecodeOne& decode_one,
                        LearnOne& learn_one) {
        const unsigned bits = start_matches(count, false);
        std::size_t index = 0;
        while (index < count) {
            const std::uint8_t token = codes.get<std::uint8_t>();
            if (token == 0) {
                decode_one(records + index * record_bytes);
                insert_context(records, index, bits);
                ++index;
                continue;
            }
            if (token > explicit_token) {
                fail("corrupt input: invalid match token " + std::to_string(token) + " in the codes stream");
            }
            const std::uint64_t length = get_length(codes) + 1;
            if (length == 0 || length > count - index) {
                fail("corrupt input: a match of " + std::to_string(length) + " records where " +
                     std::to_string(count - index) + " remain in the block");
            }
            std::size_t from = 0;
            if (token == explicit_token) {
                const std::uint64_t distance = get_length(codes) + 1;
                if (distance == 0 || distance > index) {
                    fail("corrupt input: a match from " + std::to_string(distance) + " records back where " +
                         std::to_string(index) + " precede it in the block");
                }
                from = index - static_cast<std::size_t>(distance);
            } else {
                std::uint32_t candidate = index == 0 ? 0 : table_[slot_of(records + (index - 1) * record_bytes, bits)];
                for (std::size_t k = 1; k < token && candidate != 0; ++k) {
                    candidate = context_prev_[candidate];
                }
                if (candidate == 0) {
                    fail("corrupt input: a match from context candidate " + std::to_string(token) +
                         ", beyond the block's candidates");
                }
                from = candidate;
            }
            copy(records, from, index, static_cast<std::size_t>(length));
            learn(learn_one, records, index, static_cast<std::size_t>(length), Learning::record_matches);
            for (std::size_t k = 0; k < length; ++k) {
                insert_context(records, index + k, bits);
            }
            index += static_cast<std::size_t>(length);
            totals_.copied += length;
            totals_.learnt += length;
            totals_.runs += 1;
        }
    }

    // A way of coding the block, built from the pass of encode_cheapest():
    // its streams, and the records it copies.
    struct Assembly {
        std::vector<StreamWriter> streams;
        std::vector<std::size_t> read;  // per stream: the pass's next byte to take
        // Runs of copied records: the first, how many, and where the first's
        // codes are in the pass's codes stream.
        struct Copied {
            std::size_t first;
            std::size_t length;
            std::size_t codes_at;
        };
        std::vector<Copied> copied;
        Tally tally;
    };

    // Where long runs do not decide: the fields code every record, which is
    // the block without runs (flag 0), as it stands in `streams`; the block
    // with runs learnt whole and the block of record matches are made from
    // it by leaving out the records they copy, and the one of the three
    // whose streams the estimate finds smallest is kept. The fields' tables
    // change alike whether a record is coded or learnt, so each is the
    // block the fields would have coded with that flag.
    template <class EncodeOne, class UncountOne>
    void encode_cheapest(const std::uint8_t* records, std::size_t count, StreamWriter* streams,
                         std::size_t stream_count, EncodeOne& encode_one, UncountOne& uncount_one) {
        streams[0].put(static_cast<std::uint8_t>(Learning::no_runs));
        starts_.resize(stream_count);
        for (std::size_t stream = 0; stream < stream_count; ++stream) {
            starts_[stream] = streams[stream].size();
        }
        // What each record adds to each stream; a record too large for the
        // note (a spec of thousands of fields) keeps flag 0.
        added_.resize(count * stream_count);
        ends_ = starts_;
        bool noted = true;
        for (std::size_t index = 0; index < count; ++index) {
            encode_one(records + index * record_bytes);
            for (std::size_t stream = 0; stream < stream_count; ++stream) {
                const std::size_t end = streams[stream].size();
                noted = noted && end - ends_[stream] <= 0xFFFF;
                added_[index * stream_count + stream] = static_cast<std::uint16_t>(end - ends_[stream]);
                ends_[stream] = end;
            }
        }
        const std::size_t enough = std::max<std::size_t>(1, count >> min_copied_shift);
        if (!noted || count < 2) {
            return;
        }
        Assembly* best = nullptr;
        std::uint64_t best_cost = estimate(streams, stream_count);
        const auto consider = [&](Assembly& assembly) {
            const std::uint64_t cost = estimate(assembly.streams.data(), stream_count);
            if (cost < best_cost) {
                best = &assembly;
                best_cost = cost;
            }
        };
        if (copied_by_runs_ >= enough) {
            begin(runs_assembly_, streams, stream_count, Learning::every_record_as_coded);
            put_runs(
                records, count, Learning::every_record_as_coded, runs_assembly_.streams[0], runs_assembly_.tally,
                [&](std::size_t index) { take(runs_assembly_, streams, stream_count, index); },
                [&](std::size_t first, std::size_t length) { skip(runs_assembly_, stream_count, first, length); });
            consider(runs_assembly_);
        }
        if (parse_matches(records, count) >= enough) {
            begin(matches_assembly_, streams, stream_count, Learning::record_matches);
            put_matches(
                matches_assembly_.streams[0], matches_assembly_.tally,
                [&](std::size_t index) { take(matches_assembly_, streams, stream_count, index); },
                [&](std::size_t first, std::size_t length) { skip(matches_assembly_, stream_count, first, length); });
            consider(matches_assembly_);
        }
        if (best == nullptr) {
            return;
        }
        for (const typename Assembly::Copied& copied : best->copied) {
            std::size_t codes_at = copied.codes_at;
            for (std::size_t index = copied.first; index < copied.first + copied.length; ++index) {
                uncount_one(streams[0].data() + codes_at);
                codes_at += added_[index * stream_count];
            }
        }
        for (std::size_t stream = 0; stream < stream_count; ++stream) {
            std::swap(streams[stream], best->streams[stream]);
        }
        totals_.add(best->tally);
    }

    // An assembly's streams begin as the pass's did: what the streams held
    // before the block, then the flag.
    void begin(Assembly& assembly, const StreamWriter* pass, std::size_t stream_count, Learning learning) const {
        assembly.streams.resize(stream_count);
        assembly.read = starts_;
        assembly.copied.clear();
        assembly.tally = Tally{};
        for (std::size_t stream = 0; stream < stream_count; ++stream) {
            const std::size_t before = stream == 0 ? starts_[0] - 1 : starts_[stream];
            assembly.streams[stream].clear();
            assembly.streams[stream].put_bytes(pass[stream].data(), before);
        }
        assembly.streams[0].put(static_cast<std::uint8_t>(learning));
    }

    // Record `index` is coded field by field: what the pass wrote for it.
    void take(Assembly& assembly, const StreamWriter* pass, std::size_t stream_count, std::size_t index) const {
        for (std::size_t stream = 0; stream < stream_count; ++stream) {
            const std::size_t added = added_[index * stream_count + stream];
            assembly.streams[stream].put_bytes(pass[stream].data() + assembly.read[stream], added);
            assembly.read[stream] += added;
        }
    }

    // Records [first, first + length) are copied: left out.
    void skip(Assembly& assembly, std::size_t stream_count, std::size_t first, std::size_t length) const {
        assembly.copied.push_back({first, length, assembly.read[0]});
        for (std::size_t index = first; index < first + length; ++index) {
            for (std::size_t stream = 0; stream < stream_count; ++stream) {
                assembly.read[stream] += added_[index * stream_count + stream];
            }
        }
    }

    // The estimated compressed bytes of a block's streams, from where the
    // block's part begins (what came before is the same in every way of
    // coding it); streams the block added nothing to are left out.
    std::uint64_t estimate(const StreamWriter* streams, std::size_t stream_count) const {
        std::uint64_t total = 0;
        for (std::size_t stream = 0; stream < stream_count; ++stream) {
            if (ends_[stream] == starts_[stream]) {
                continue;
            }
            const std::size_t from = stream == 0 ? starts_[0] - 1 : starts_[stream];
            const std::uint8_t* data = streams[stream].data() + from;
            const std::size_t size = streams[stream].size() - from;
            total += estimate_ ? estimate_(stream, data, size) : size;
        }
        return total;
    }

    std::vector<std::uint32_t> context_prev_;
    std::vector<std::uint32_t> content_head_;
    std::vector<std::uint32_t> content_prev_;
    std::vector<MatchItem> parse_;

    StreamCostEstimate estimate_;
    std::size_t copied_by_runs_ = 0;           // by the last scan's runs of any length
    std::vector<std::size_t> starts_;          // per stream: where the block's part begins
    std::vector<std::size_t> ends_;            // per stream: where the pass's part ends
    std::vector<std::uint16_t> added_;         // per record and stream: the pass's bytes
    Assembly runs_assembly_;
    Assembly matches_assembly_;

    std::vector<std::uint32_t> table_;
    bool speed_first_ = true;
    std::uint64_t records_ = 0;
    Tally totals_;
};

}  // namespace tcgen_runtime
