#pragma once
// TczIstream: the bytes of a trace read from its .tcz, behind the three
// members a trace reader written for std::ifstream uses: read(buffer, n),
// gcount() and eof(). ChampSim's bulk trace reader (since 2023) takes its
// file type as a template parameter, constructs it from the trace's name and
// uses exactly these, so TczIstream<NAMESPACE::Reader, NAMESPACE::Record>
// slots in where it uses std::ifstream (docs/champsim.md). It is movable, as
// ChampSim's repeating reader reopens a trace by assigning a new one.
//
// Reader and Record are those of a header tcgen generated (tcgen
// --emit=header or tcgen_add_codec): the records come from
// Reader::next_bytes(), then the partial record at the end of the trace, if
// any (Reader::tail()), so that the bytes are those of the original trace. A
// damaged .tcz throws tcgen_runtime::Error with the one-line message of
// `comp`.

#include <cstddef>
#include <cstring>
#include <ios>
#include <memory>
#include <string>

template <class Reader, class Record>
class TczIstream {
public:
    explicit TczIstream(const std::string& path) : reader_(std::make_unique<Reader>(path)) {}

    // Copies up to `count` bytes; fewer (see gcount()) only at the end of
    // the trace, which then sets eof(), as std::istream::read does.
    TczIstream& read(char* destination, std::streamsize count) {
        gcount_ = 0;
        while (gcount_ < count && !eof_) {
            if (available_ == 0 && !refill()) {
                eof_ = true;
                break;
            }
            const std::size_t wanted = static_cast<std::size_t>(count - gcount_);
            const std::size_t step = wanted < available_ ? wanted : available_;
            std::memcpy(destination + gcount_, pending_, step);
            pending_ += step;
            available_ -= step;
            gcount_ += static_cast<std::streamsize>(step);
        }
        return *this;
    }

    std::streamsize gcount() const { return gcount_; }
    bool eof() const { return eof_; }

private:
    // The next record's bytes, or once the records are done the trace's
    // partial last record; false when nothing is left.
    bool refill() {
        if (const unsigned char* record = reader_->next_bytes()) {
            pending_ = record;
            available_ = Record::bytes;
            return true;
        }
        if (!tail_served_) {
            tail_served_ = true;
            pending_ = reader_->tail().data();
            available_ = reader_->tail().size();
            return available_ > 0;
        }
        return false;
    }

    std::unique_ptr<Reader> reader_;  // a pointer, so that the stream moves
    const unsigned char* pending_ = nullptr;
    std::size_t available_ = 0;
    std::streamsize gcount_ = 0;
    bool eof_ = false;
    bool tail_served_ = false;
};
