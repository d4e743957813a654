#pragma once
// Records as columns: one contiguous array per field, as a simulator that
// wants structure-of-arrays, numpy or a column store takes them. A generated
// header (tcgen --emit=header) describes its record with an array of
// FieldLayout, `fields`, in the trace's order; RecordReader::read_columns
// fills columns from the decoded block and RecordWriter::append_columns
// takes them back, with a tight loop per field and no call per record.
//
// A column holds the field's values as native unsigned integers of its
// width (std::uint8_t to std::uint64_t); the trace stores them
// little-endian. Columns may name any of the record's fields, in any order:
// a reader fills only those asked for.

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "byte_order.hpp"
#include "container_layout.hpp"
#include "error.hpp"

namespace tcgen_runtime {

// One field of a record.
struct FieldLayout {
    std::string_view name;   // the spec's ("ip", "source_memory[0]"), or "field_2" for field 2 without one
    unsigned bits = 8;       // 8, 16, 32 or 64
    std::size_t offset = 0;  // of its first byte in the record

    constexpr std::size_t bytes() const { return bits / 8; }
};

// Fails unless every field has a width a column can hold and lies within
// a record of `record_bytes` bytes.
inline void check_fields(const FieldLayout* fields, std::size_t field_count, std::size_t record_bytes) {
    for (std::size_t column = 0; column < field_count; ++column) {
        const FieldLayout& field = fields[column];
        if (field.bits != 8 && field.bits != 16 && field.bits != 32 && field.bits != 64) {
            fail("column '" + std::string(field.name) + "' has " + std::to_string(field.bits) +
                 " bits, not 8, 16, 32 or 64");
        }
        if (field.offset > record_bytes || record_bytes - field.offset < field.bytes()) {
            fail("column '" + std::string(field.name) + "' at byte " + size_text(field.offset) +
                 " does not fit in a record of " + size_text(record_bytes) + " bytes");
        }
    }
}

template <class T>
void gather_values(const std::uint8_t* first, std::size_t record_bytes, std::size_t count, T* column) {
    for (std::size_t index = 0; index < count; ++index) {
        column[index] = load_le<T>(first + index * record_bytes);
    }
}

template <class T>
void scatter_values(const T* column, std::size_t count, std::uint8_t* first, std::size_t record_bytes) {
    for (std::size_t index = 0; index < count; ++index) {
        store_le(first + index * record_bytes, column[index]);
    }
}

// Copies `field` of `count` records, `record_bytes` apart from `records`
// on, into `column` (an array of the field's width).
inline void gather_column(const FieldLayout& field, const std::uint8_t* records, std::size_t record_bytes,
                          std::size_t count, void* column) {
    const std::uint8_t* first = records + field.offset;
    switch (field.bits) {
        case 8:
            gather_values(first, record_bytes, count, static_cast<std::uint8_t*>(column));
            break;
        case 16:
            gather_values(first, record_bytes, count, static_cast<std::uint16_t*>(column));
            break;
        case 32:
            gather_values(first, record_bytes, count, static_cast<std::uint32_t*>(column));
            break;
        default:
            gather_values(first, record_bytes, count, static_cast<std::uint64_t*>(column));
            break;
    }
}

// The reverse of gather_column: `count` values of `column` into `field` of
// the records.
inline void scatter_column(const FieldLayout& field, const void* column, std::size_t count, std::uint8_t* records,
                           std::size_t record_bytes) {
    std::uint8_t* first = records + field.offset;
    switch (field.bits) {
        case 8:
            scatter_values(static_cast<const std::uint8_t*>(column), count, first, record_bytes);
            break;
        case 16:
            scatter_values(static_cast<const std::uint16_t*>(column), count, first, record_bytes);
            break;
        case 32:
            scatter_values(static_cast<const std::uint32_t*>(column), count, first, record_bytes);
            break;
        default:
            scatter_values(static_cast<const std::uint64_t*>(column), count, first, record_bytes);
            break;
    }
}

// Columns that own their arrays: room for `capacity()` records of each of
// its fields, `size()` of them in use. Every column starts 8-byte aligned.
//
//   Columns columns(vpc3::fields, 65536);
//   while (reader.read_columns(columns) > 0) {
//       const std::uint64_t* values = columns.values<std::uint64_t>("field_2");
//       ... values[0] .. values[columns.size() - 1] ...
//   }
class Columns {
public:
    Columns() = default;

    // Columns of `fields` (copied; their names must outlive the columns),
    // with room for `capacity` records.
    Columns(const FieldLayout* fields, std::size_t field_count, std::size_t capacity = 0)
        : fields_(fields, fields + field_count) {
        check_fields(fields, field_count, SIZE_MAX);
        reserve(capacity);
    }

    template <std::size_t FieldCount>
    explicit Columns(const std::array<FieldLayout, FieldCount>& fields, std::size_t capacity = 0)
        : Columns(fields.data(), FieldCount, capacity) {}

    // Columns copy their values; the copy's arrays are its own.
    Columns(const Columns& other) : fields_(other.fields_) {
        reserve(other.capacity_);
        resize(other.size_);
        std::copy(other.storage_.begin(), other.storage_.end(), storage_.begin());
    }

    Columns& operator=(const Columns& other) {
        if (this != &other) {
            Columns copy(other);
            swap(copy);
        }
        return *this;
    }

    Columns(Columns&& other) noexcept { swap(other); }

    Columns& operator=(Columns&& other) noexcept {
        swap(other);
        return *this;
    }

    std::size_t field_count() const { return fields_.size(); }
    const FieldLayout* fields() const { return fields_.data(); }
    const FieldLayout& field(std::size_t column) const { return fields_[column]; }

    // The column of the field named `name`; an Error if none has that name.
    std::size_t column(std::string_view name) const {
        for (std::size_t column = 0; column < fields_.size(); ++column) {
            if (fields_[column].name == name) {
                return column;
            }
        }
        fail("no column is named '" + std::string(name) + "'");
    }

    // Records held, and room for.
    std::size_t size() const { return size_; }
    std::size_t capacity() const { return capacity_; }

    // Makes room for `capacity` records. Growing drops the values held
    // (size() becomes 0): columns are filled a batch at a time.
    void reserve(std::size_t capacity) {
        if (capacity <= capacity_ && pointers_.size() == fields_.size()) {
            return;
        }
        capacity_ = std::max(capacity_, capacity);
        size_ = 0;
        // Whole 8-record groups, so that every column starts on 8 bytes.
        const std::size_t rounded = (capacity_ + 7) / 8 * 8;
        std::size_t words = 0;
        for (const FieldLayout& field : fields_) {
            words += rounded * field.bytes() / 8;
        }
        storage_.assign(words, 0);
        pointers_.clear();
        std::size_t word = 0;
        for (const FieldLayout& field : fields_) {
            pointers_.push_back(storage_.data() + word);
            word += rounded * field.bytes() / 8;
        }
    }

    // Sets the records held, up to capacity(): before writing values into
    // columns for RecordWriter::append_columns, say.
    void resize(std::size_t size) {
        if (size > capacity_) {
            fail("columns resized to " + size_text(size) + " records hold at most " + size_text(capacity_));
        }
        size_ = size;
    }

    // The values of a column: T is an integer type of the field's width.
    template <class T>
    T* values(std::size_t column) {
        check_type<T>(column);
        return static_cast<T*>(pointers_[column]);
    }

    template <class T>
    const T* values(std::size_t column) const {
        check_type<T>(column);
        return static_cast<const T*>(pointers_[column]);
    }

    template <class T>
    T* values(std::string_view name) {
        return values<T>(column(name));
    }

    template <class T>
    const T* values(std::string_view name) const {
        return values<T>(column(name));
    }

    // The arrays, one per field, for the calls that take arrays.
    void* const* data() { return pointers_.data(); }
    const void* const* data() const { return pointers_.data(); }

    void swap(Columns& other) noexcept {
        fields_.swap(other.fields_);
        storage_.swap(other.storage_);
        pointers_.swap(other.pointers_);
        std::swap(size_, other.size_);
        std::swap(capacity_, other.capacity_);
    }

private:
    template <class T>
    void check_type(std::size_t column) const {
        static_assert(std::is_integral_v<T> && !std::is_same_v<T, bool>, "a column holds integers");
        if (sizeof(T) != fields_[column].bytes()) {
            fail("column '" + std::string(fields_[column].name) + "' holds " + std::to_string(fields_[column].bits) +
                 "-bit values, not " + std::to_string(sizeof(T) * 8) + "-bit");
        }
    }

    std::vector<FieldLayout> fields_;
    std::vector<std::uint64_t> storage_;
    std::vector<void*> pointers_;  // into storage_, by column
    std::size_t size_ = 0;
    std::size_t capacity_ = 0;
};

}  // namespace tcgen_runtime
