#pragma once
// LruCache<Value>: values made on demand and kept while they fit a budget,
// the least recently used dropped first. Each value has a cost (1 for a
// count of values, its bytes for a memory budget); the newest value always
// stays, even alone over the budget.
//
// A reference that find() or insert() returns stays valid until that value
// is dropped: until values costing the budget were inserted since it was
// last used.

#include <algorithm>
#include <cstddef>
#include <list>
#include <unordered_map>
#include <utility>

namespace tcgen::wet {

template <class Value>
class LruCache {
public:
    explicit LruCache(std::size_t budget) : budget_(std::max<std::size_t>(budget, 1)) {}

    // Moved, the values stay where they are (a list's nodes move with it);
    // a copy would leave last_ pointing into the original.
    LruCache(LruCache&&) noexcept = default;
    LruCache& operator=(LruCache&&) noexcept = default;
    LruCache(const LruCache&) = delete;
    LruCache& operator=(const LruCache&) = delete;

    // Key's value, now the most recently used; null when not held.
    Value* find(std::size_t key) {
        // The value found or inserted last is the most recently used
        // already: a query that asks for it again and again (a walk of one
        // label, one store's index asked several things about one def)
        // skips the map and the list.
        if (last_ != nullptr && key == last_key_) {
            return last_;
        }
        const auto found = where_.find(key);
        if (found == where_.end()) {
            return nullptr;
        }
        slots_.splice(slots_.begin(), slots_, found->second);
        remember(key, &slots_.front().value);
        return last_;
    }

    // Holds `value` for `key` (which find() did not hold), dropping the
    // least recently used values until the costs fit the budget.
    Value& insert(std::size_t key, Value value, std::size_t cost) {
        while (!slots_.empty() && cost_ + cost > budget_) {
            cost_ -= slots_.back().cost;
            where_.erase(slots_.back().key);
            slots_.pop_back();
        }
        slots_.push_front(Slot{key, cost, std::move(value)});
        where_.emplace(key, slots_.begin());
        cost_ += cost;
        remember(key, &slots_.front().value);
        return *last_;
    }

    std::size_t budget() const { return budget_; }
    // The bytes of the bookkeeping (a list node and a map node per value,
    // about) plus value_bytes(value) for each value held.
    template <class ValueBytes>
    std::size_t memory_bytes(const ValueBytes& value_bytes) const {
        std::size_t bytes = where_.size() * 48;
        for (const Slot& slot : slots_) {
            bytes += value_bytes(slot.value);
        }
        return bytes;
    }

private:
    void remember(std::size_t key, Value* value) {
        last_key_ = key;
        last_ = value;
    }

    struct Slot {
        std::size_t key;
        std::size_t cost;
        Value value;
    };
    std::size_t budget_;
    std::size_t cost_ = 0;
    std::list<Slot> slots_;  // the most recently used first
    std::size_t last_key_ = 0;
    Value* last_ = nullptr;                                                      // the front of slots_, or null
    std::unordered_map<std::size_t, typename std::list<Slot>::iterator> where_;  // key -> its slot
};

}  // namespace tcgen::wet
