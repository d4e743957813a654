#pragma once
// A raw trace's edges, in event order, walked in passes: held in memory (a
// trace made or read whole), or read a piece at a time from PREFIX.edges, so
// that `wet build` never holds them all (16 bytes an edge, the largest of
// the raw files' parts after the events). A file read again must hold what
// it held the first time: each whole pass over it is digested, and a pass
// that differs from the first is refused as a file changed while read.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <tcgen/wet/raw_trace.hpp>
#include "wet/format/pieces_file.hpp"

namespace tcgen::wet {

class RawEdges {
public:
    // Edges read at a time, in a pass or by a cursor.
    static constexpr std::size_t piece_edges = std::size_t{1} << 16;

    RawEdges() = default;
    // Edges held here, freed with it.
    explicit RawEdges(std::vector<RawEdge> held) : held_(std::move(held)) {}
    // Edges held by the caller, which outlive this.
    explicit RawEdges(const std::vector<RawEdge>* viewed) : viewed_(viewed) {}
    // PREFIX.edges, its magic and size checked.
    explicit RawEdges(const std::string& file);

    std::size_t size() const { return file_ ? file_->count() : held().size(); }
    // The file's name; "raw.edges" for edges in memory.
    std::string name() const { return file_ ? file_->name() : "raw.edges"; }

    // Throws the WetError of a file that no longer holds what was checked:
    // for a walk that met an edge the checks would have refused.
    [[noreturn]] void refuse_changed() const;

    // visit(index, edge) for every edge in order.
    template <class Visit>
    void each(const Visit& visit) const {
        if (!file_) {
            const std::vector<RawEdge>& edges = held();
            for (std::size_t index = 0; index < edges.size(); ++index) {
                visit(index, edges[index]);
            }
            return;
        }
        std::vector<RawEdge> piece;
        std::uint64_t digest = digest_start;
        for (std::size_t first = 0; first < size(); first += piece_edges) {
            read(first, piece_edges, piece);
            digest = digest_of(digest, piece);
            for (std::size_t index = 0; index < piece.size(); ++index) {
                visit(first + index, piece[index]);
            }
        }
        check_digest(digest);
    }

    // Edges read in order, a piece at a time, for a walk beside the events.
    class Cursor {
    public:
        explicit Cursor(const RawEdges& edges) : edges_(edges) {}
        // Edge `index` (below size()); the indexes asked never decrease.
        const RawEdge& at(std::size_t index) {
            if (!edges_.file_) {
                return edges_.held()[index];
            }
            if (index < first_ || index >= first_ + piece_.size()) {
                first_ = index;
                edges_.read(first_, piece_edges, piece_);
            }
            return piece_[index - first_];
        }

    private:
        const RawEdges& edges_;
        std::size_t first_ = 0;
        std::vector<RawEdge> piece_;
    };

private:
    const std::vector<RawEdge>& held() const { return viewed_ ? *viewed_ : held_; }

    static constexpr std::uint64_t digest_start = 0xCBF29CE484222325;
    static std::uint64_t digest_of(std::uint64_t digest, const std::vector<RawEdge>& piece);

    // Up to `count` edges from `first` into `piece`.
    void read(std::size_t first, std::size_t count, std::vector<RawEdge>& piece) const;
    void check_digest(std::uint64_t digest) const;

    std::vector<RawEdge> held_;
    const std::vector<RawEdge>* viewed_ = nullptr;
    std::unique_ptr<PiecesFile> file_;
    mutable std::uint64_t first_digest_ = 0;
    mutable bool digested_ = false;
};

}  // namespace tcgen::wet
