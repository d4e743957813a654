#pragma once
// HeldBytes: bytes appended end to end and read back at any place, held in
// memory or, once told to spill (spill()), in a temporary file of
// `wet build` (temporary_file.hpp) but for the last block appended to. The
// labels a build has made are the part of it that grows with the run and
// has no bound (about the size of the WET it saves: 232 MB on a
// billion-instruction run); under `wet build --memory` they are written
// out as they are made, and read back by the queries that open them and by
// save(). Spilled bytes are read with pread, never mapped: they cost the
// page cache, which the kernel gives back, not the process's memory.
//
// append() is for one thread at a time; read() is safe from several once
// appending is done. A write or read error throws WetError naming the file.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "common/byte_io.hpp"
#include "wet/labels/temporary_file.hpp"

namespace tcgen::wet {

class HeldBytes {
public:
    // Memory is taken in blocks, each as large as the bytes before it
    // (from 4 KiB) up to this many bytes, or larger for a larger append or
    // as reserve() says: an appended run of bytes lies in one block, and a
    // growing buffer is never copied whole.
    static constexpr std::size_t least_block_bytes = std::size_t{4} << 10;
    static constexpr std::size_t most_block_bytes = std::size_t{1} << 20;

    // Where to spill: a file made beside `beside` (none when it is empty),
    // memory keeping the last block only, of `block_bytes`.
    struct Spill {
        std::string beside;
        std::size_t block_bytes = most_block_bytes;
    };
    // From now on, each block once full goes to the file of `to`, made when
    // first needed (BESIDE.labels.PID.N.tmp; `holds` names its contents in
    // messages). Nothing changes when to.beside is empty.
    void spill(const Spill& to, std::string holds) {
        beside_ = to.beside;
        block_bytes_ = to.block_bytes;
        holds_ = std::move(holds);
    }
    bool spills() const { return !beside_.empty(); }

    std::uint64_t size() const { return size_; }
    // Room for `bytes` more in one block.
    void reserve(std::size_t bytes);
    // Once every byte is appended: no spare capacity worth a copy.
    void shrink();

    void append(const std::uint8_t* data, std::size_t size);

    // Bytes at .. at + size - 1 into `out`.
    void read(std::uint64_t at, std::size_t size, std::uint8_t* out) const;
    // The same bytes in place when one block in memory holds them (as the
    // bytes of one append() are), else read into `scratch`: valid until the
    // next append or use of scratch.
    const std::uint8_t* view(std::uint64_t at, std::size_t size, std::vector<std::uint8_t>& scratch) const;
    // Bytes at .. at + size - 1 to `writer`, a piece at a time.
    void write_to(ByteWriter& writer, std::uint64_t at, std::uint64_t size) const;

    // What memory holds (the file's bytes are not counted).
    std::size_t memory_bytes() const;

private:
    struct Block {
        std::uint64_t start;  // the place of its first byte
        std::vector<std::uint8_t> bytes;
    };
    // The block in memory that holds place `at`, or null.
    const Block* block_at(std::uint64_t at) const;
    // Every block in memory to the file.
    void write_out();

    std::string beside_;
    std::string holds_;
    std::unique_ptr<TemporaryFile> file_;
    std::size_t block_bytes_ = most_block_bytes;
    std::uint64_t written_ = 0;  // places 0 .. written_ - 1 are in file_
    std::uint64_t size_ = 0;
    std::vector<Block> blocks_;  // the rest, in order
};

}  // namespace tcgen::wet
