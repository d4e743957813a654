// The saved form of a WholeExecutionTrace (docs/wet.md, "The .wet file"):
//   8  magic "TCGENWET"
//   4  format version (format_version below)
//   4  section count (section_total below)
//   per section: 4-byte tag, u64 payload size, u64 XXH64 of the payload, the payload
// Sections in order: META, BLKS, NODS, DFLW, SYMS, then the label sections of LabelStore.
// Every size is checked against the bytes present before anything is
// allocated for it, every checksum before its section is parsed.

#include <tcgen/wet/whole_execution_trace.hpp>

#include <cerrno>
#include <cstring>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <tcgen/wet/symbols.hpp>
#include "common/byte_io.hpp"
#include "common/files.hpp"
#include "common/output.hpp"
#include "runtime/checksum.hpp"
#include "runtime/files.hpp"
#include "runtime/zstd_codec.hpp"
#include "wet/dependences/dataflow.hpp"
#include "wet/labels/label_store.hpp"
#include "wet/query/lazy_parts.hpp"

namespace tcgen::wet {
namespace {

constexpr char magic[8] = {'T', 'C', 'G', 'E', 'N', 'W', 'E', 'T'};
// 9: FLOW holds the control flow as successor ranks in zstd frames
// (flow_stream.hpp), not as chunks of block ids;
// 8: VALS and ADDR each start with the shared zstd frames that their chunks
// of form 2 point into (no dictionaries);
// 7: VALS holds shared zstd frames (after its dictionary) that its chunks
// of form 3 point into;
// 6: VALS and ADDR start with a zstd dictionary (u64 size, 0: none) that
// their chunks of form 2 (byte planes compressed with it) share;
// 5: a chunk is a bidirectional stream or its records as zstd-compressed
// byte planes, whichever is smaller (a form byte per chunk);
// 4: every stream in chunks with a checkpoint at each chunk's start;
// 3 kept each as one stream; 3 stopped saving the blocks' timestamps (BTIM),
// derived from the control flow on load; 2 kept them; 1 kept t_use - t_def
// per def.
// 14: SYMS holds what the debug information says of the instructions (after DFLW);
// 13: DFLW holds the blocks' register dataflow (after NODS);
constexpr std::uint32_t format_version = 14;
constexpr std::size_t section_header_bytes = 4 + 8 + 8;
constexpr std::size_t file_header_bytes = 8 + 4 + 4;
constexpr const char* static_tags[] = {"META", "BLKS", "NODS", "DFLW", "SYMS"};
constexpr std::size_t static_sections = 5;
// The symbols' lines in one zstd frame: 9 codes the few MB of a large run's
// lines in a fraction of a second and keeps them a twentieth of their size.
constexpr int symbols_zstd_level = 9;
// A frame may not claim more than this many bytes per byte of it (text of
// lines that repeat their object's name compresses 20-fold), nor more than
// 4 GiB: a forged size cannot make a query allocate more.
constexpr std::uint64_t symbols_max_ratio = 1024;
constexpr std::uint64_t symbols_max_bytes = std::uint64_t{1} << 32;
constexpr std::uint32_t section_total = static_sections + LabelStore::section_count;

// A section: its header, then its payload made by make(writer) into `out`.
// The payload is made twice, first into its size and checksum alone, so
// that no section is ever held whole (the values' and addresses' sections
// are most of a large WET).
template <class Make>
void write_section(const ByteWriter::Sink& out, const char* tag, const Make& make) {
    tcgen_runtime::Xxh64 checksum(0);
    std::uint64_t size = 0;
    ByteWriter measured([&](const std::uint8_t* data, std::size_t bytes) {
        checksum.update(data, bytes);
        size += bytes;
    });
    make(measured);
    measured.flush();
    ByteWriter written(out);
    written.bytes(reinterpret_cast<const std::uint8_t*>(tag), 4);
    written.u64(size);
    written.u64(checksum.digest());
    make(written);
    written.flush();
}

void write_section(const ByteWriter::Sink& out, const char* tag, const std::vector<std::uint8_t>& payload) {
    write_section(out, tag, [&](ByteWriter& writer) { writer.bytes(payload.data(), payload.size()); });
}

// A saved WET read from a regular file a part at a time, with ByteReader's
// checks and messages (remaining(): the file's bytes after the part read),
// so that load() holds one section at a time beside the WET it makes, not
// the whole file. A part stays valid until the next is read.
class SavedFile {
public:
    SavedFile(int descriptor, std::uint64_t size, std::string name)
        : descriptor_(descriptor), size_(size), name_(std::move(name)) {}

    std::uint32_t u32() { return tcgen_runtime::load_le32(bytes(4)); }
    std::uint64_t u64() { return tcgen_runtime::load_le64(bytes(8)); }
    const std::uint8_t* bytes(std::uint64_t size) {
        if (size > remaining()) {
            fail("truncated: needs " + std::to_string(size) + " bytes, " + std::to_string(remaining()) + " left");
        }
        // A section's buffer is given back once a smaller part follows it.
        if (size > part_.size() || part_.size() > 2 * size + 4096) {
            part_ = std::vector<std::uint8_t>(static_cast<std::size_t>(size));
        }
        for (std::uint64_t done = 0; done < size;) {
            const ssize_t got = ::pread(descriptor_, part_.data() + done, static_cast<std::size_t>(size - done),
                                        static_cast<off_t>(position_ + done));
            if (got < 0 && errno == EINTR) {
                continue;
            }
            if (got < 0) {
                throw FileError(name_, std::string("cannot read: ") + std::strerror(errno));
            }
            if (got == 0) {
                fail("truncated: the file shrank while read");
            }
            done += static_cast<std::uint64_t>(got);
        }
        position_ += size;
        return part_.data();
    }
    std::uint64_t remaining() const { return size_ - position_; }
    void expect_end() const {
        if (remaining() != 0) {
            fail(std::to_string(remaining()) + " unexpected bytes at its end");
        }
    }
    [[noreturn]] void fail(const std::string& message) const { throw FileError(name_, "saved WET: " + message); }
    const std::string& file() const { return name_; }

private:
    int descriptor_;
    std::uint64_t size_;
    std::uint64_t position_ = 0;
    std::string name_;
    std::vector<std::uint8_t> part_;
};

// The next section's payload, its tag and checksum verified: of bytes held
// (ByteReader) or of a file read a section at a time (SavedFile).
template <class Reader>
ByteReader read_section(Reader& file, const char* tag) {
    const std::uint8_t* found = file.bytes(4);
    const std::string found_tag(reinterpret_cast<const char*>(found), 4);
    if (found_tag != tag) {
        file.fail("expected section " + std::string(tag) + ", found '" + found_tag + "'");
    }
    const std::uint64_t size = file.u64();
    const std::uint64_t checksum = file.u64();
    if (size > file.remaining()) {
        file.fail("section " + std::string(tag) + " claims " + std::to_string(size) + " bytes, " +
                  std::to_string(file.remaining()) + " are left: the file is truncated");
    }
    const std::uint8_t* payload = file.bytes(size);
    if (tcgen_runtime::xxh64(payload, static_cast<std::size_t>(size), 0) != checksum) {
        file.fail("section " + std::string(tag) + ": checksum mismatch: the file is corrupt");
    }
    return ByteReader(payload, static_cast<std::size_t>(size), file.file(), "section " + std::string(tag));
}

}  // namespace

std::uint64_t WholeExecutionTrace::static_bytes() const {
    return file_header_bytes + section_total * section_header_bytes + (4 + 4 + 4 + 8 + 8 + 8) +
           (8 + 16 * blocks_.size()) + (8 + 16 * nodes().size());
}

// A traced dataflow (flag 1, then write_dataflow()'s form); a stand-in is
// made again when needed (flag 0).
std::vector<std::uint8_t> WholeExecutionTrace::symbols_section(const std::string& lines) {
    ByteWriter section;
    section.u64(lines.size());
    if (!lines.empty()) {
        const std::vector<std::uint8_t> frame = tcgen_runtime::zstd_frame(
            reinterpret_cast<const std::uint8_t*>(lines.data()), lines.size(), symbols_zstd_level);
        section.bytes(frame.data(), frame.size());
    }
    return std::move(section.data());
}

const SymbolTable& WholeExecutionTrace::need_symbols() const {
    if (lazy_->symbols_parsed.load(std::memory_order_acquire)) {
        return *symbols_;
    }
    const std::lock_guard<std::mutex> lock(lazy_->mutex);
    if (!symbols_) {
        ByteReader section(symbols_saved_.data(), symbols_saved_.size(), name_, "section SYMS");
        const std::uint64_t size = symbols_saved_.empty() ? 0 : section.u64();
        std::string lines(static_cast<std::size_t>(size), '\0');
        if (size != 0 && !tcgen_runtime::zstd_unframe(section.here(), section.remaining(),
                                                      reinterpret_cast<std::uint8_t*>(lines.data()), size)) {
            section.fail("its zstd frame is corrupt");
        }
        symbols_ = std::make_unique<SymbolTable>(SymbolTable::parse(lines, name_));
        lazy_->symbols_parsed.store(true, std::memory_order_release);
    }
    return *symbols_;
}

std::vector<std::uint8_t> WholeExecutionTrace::dataflow_section() const {
    ByteWriter section;
    section.u8(traced_dataflow_ ? 1 : 0);
    if (traced_dataflow_) {
        write_dataflow(section, dataflow_, blocks_);
    }
    return std::move(section.data());
}

RawDataflow WholeExecutionTrace::decode_dataflow() const {
    ByteReader section(dataflow_saved_.data(), dataflow_saved_.size(), name_, "section DFLW");
    const bool traced = section.u8() != 0;
    RawDataflow dataflow = traced ? read_dataflow(section, blocks_, nodes()) : stand_in_dataflow(blocks_, nodes());
    section.expect_end();
    return dataflow;
}

void WholeExecutionTrace::write_saved(const ByteWriter::Sink& out) const {
    {
        ByteWriter header(out);
        header.bytes(reinterpret_cast<const std::uint8_t*>(magic), sizeof magic);
        header.u32(format_version);
        header.u32(section_total);
        header.flush();
    }
    write_section(out, static_tags[0], [&](ByteWriter& meta) {
        meta.u32(first_labels().executed());
        meta.u32(static_cast<std::uint32_t>(blocks_.size()));
        meta.u32(static_cast<std::uint32_t>(nodes().size()));
        meta.u64(events_);
        meta.u64(edges_);
        meta.u64(first_labels().control_dependences());
    });
    write_section(out, static_tags[1], [&](ByteWriter& blocks) {
        blocks.u64(blocks_.size());
        for (const RawBlock& block : blocks_) {
            blocks.u64(block.pc);
            blocks.u32(block.bytes);
            blocks.u16(block.instructions);
            blocks.u8(static_cast<std::uint8_t>(block.end));
            blocks.u8(0);
        }
    });
    write_section(out, static_tags[2], [&](ByteWriter& records) {
        records.u64(nodes().size());
        for (const RawNode& node : nodes()) {
            records.u32(node.block);
            records.u64(node.pc);
            records.u8(static_cast<std::uint8_t>(node.access));
            records.u8(node.slot);
            records.u16(node.size);
        }
    });
    write_section(out, static_tags[3], dataflow_saved_);
    write_section(out, static_tags[4], symbols_saved_);
    for (std::size_t section = 0; section < LabelStore::section_count; ++section) {
        write_section(out, LabelStore::section_tags[section],
                      [&](ByteWriter& labels) { first_labels().save_section(section, labels); });
    }
}

std::vector<std::uint8_t> WholeExecutionTrace::to_bytes() const {
    std::vector<std::uint8_t> bytes;
    write_saved([&](const std::uint8_t* data, std::size_t size) { bytes.insert(bytes.end(), data, data + size); });
    return bytes;
}

WholeExecutionTrace WholeExecutionTrace::from_bytes(const std::uint8_t* data, std::size_t size,
                                                    const std::string& name) {
    ByteReader file(data, size, name, "saved WET");
    return read_saved(file, name);
}

template <class Reader>
WholeExecutionTrace WholeExecutionTrace::read_saved(Reader& file, const std::string& name) {
    if (file.remaining() < file_header_bytes || std::memcmp(file.bytes(sizeof magic), magic, sizeof magic) != 0) {
        throw WetError(name, "not a saved WET (no TCGENWET magic)");
    }
    const std::uint32_t version = file.u32();
    if (version != format_version) {
        throw WetError(name, "WET format version " + std::to_string(version) + ", this library reads version " +
                                 std::to_string(format_version) + ": rebuild it with 'wet build'");
    }
    const std::uint32_t sections = file.u32();
    if (sections != section_total) {
        throw WetError(name, "has " + std::to_string(sections) + " sections, a WET of format " +
                                 std::to_string(format_version) + " has " + std::to_string(section_total));
    }
    WholeExecutionTrace wet;
    wet.name_ = name;
    ByteReader meta = read_section(file, static_tags[0]);
    const std::uint32_t executed = meta.u32();
    const std::uint32_t block_count = meta.u32();
    const std::uint32_t node_count = meta.u32();
    wet.events_ = meta.u64();
    wet.edges_ = meta.u64();
    const std::uint64_t control_dependences = meta.u64();
    meta.expect_end();

    ByteReader blocks = read_section(file, static_tags[1]);
    if (blocks.count(16) != block_count) {
        blocks.fail("does not hold the " + std::to_string(block_count) + " blocks META names");
    }
    wet.blocks_.resize(block_count);
    for (RawBlock& block : wet.blocks_) {
        block.pc = blocks.u64();
        block.bytes = blocks.u32();
        block.instructions = blocks.u16();
        block.end = static_cast<char>(blocks.u8());
        blocks.u8();
        if (block.end != 'C' && block.end != 'R' && block.end != 'J') {
            blocks.fail("a block ends in '" + std::string(1, block.end) + "', not C, R or J");
        }
    }
    blocks.expect_end();

    ByteReader nodes = read_section(file, static_tags[2]);
    if (nodes.count(16) != node_count) {
        nodes.fail("does not hold the " + std::to_string(node_count) + " nodes META names");
    }
    std::vector<RawNode> node_list(node_count);
    for (std::size_t index = 0; index < node_count; ++index) {
        RawNode& node = node_list[index];
        node.block = nodes.u32();
        node.pc = nodes.u64();
        node.access = static_cast<char>(nodes.u8());
        node.slot = nodes.u8();
        node.size = nodes.u16();
        if (node.block >= block_count || (node.access != 'L' && node.access != 'S')) {
            nodes.fail("node " + std::to_string(index) + " has a block out of range or an access not L or S");
        }
    }
    nodes.expect_end();
    wet.nodes_ = std::make_shared<const std::vector<RawNode>>(std::move(node_list));

    // The dataflow is checked whole now and kept saved: a slice decodes it again.
    ByteReader dataflow = read_section(file, static_tags[3]);
    wet.dataflow_saved_.assign(dataflow.here(), dataflow.here() + dataflow.remaining());
    wet.traced_dataflow_ = !wet.dataflow_saved_.empty() && wet.dataflow_saved_[0] != 0;
    if (wet.traced_dataflow_) {
        const RawDataflow checked = wet.decode_dataflow();
        wet.dataflow_labels_ = checked.ops.size() + checked.sources.size() + checked.writes.size();
    } else if (wet.dataflow_saved_.size() != 1) {
        dataflow.fail("a stand-in dataflow is its flag byte alone");
    }

    // The symbols are kept saved, their frame's size checked; the first
    // query that asks for one decodes and checks them.
    ByteReader symbols = read_section(file, static_tags[4]);
    const std::uint64_t symbols_text = symbols.u64();
    if (symbols_text == 0 ? symbols.remaining() != 0
                          : symbols_text > symbols_max_bytes || symbols_text / symbols_max_ratio > symbols.remaining() ||
                                tcgen_runtime::zstd_frame_content_size(symbols.here(), symbols.remaining()) !=
                                    symbols_text) {
        symbols.fail("its frame does not hold the " + std::to_string(symbols_text) + " bytes it claims");
    }
    wet.symbols_saved_.assign(symbols.here() - 8, symbols.here() + symbols.remaining());

    auto store = std::make_unique<LabelStore>(executed, wet.nodes_, block_count);
    store->set_control_dependences(control_dependences);
    store->set_name(name);
    for (std::size_t section = 0; section < LabelStore::section_count; ++section) {
        ByteReader labels = read_section(file, LabelStore::section_tags[section]);
        store->load_section(section, labels);
    }
    file.expect_end();
    store->check_loaded(name, wet.events_, wet.edges_);
    wet.hold_labels(std::move(store));
    wet.index_static();
    return wet;
}

void WholeExecutionTrace::save(const std::string& path) const {
    Output file(path);
    write_saved([&](const std::uint8_t* data, std::size_t size) { file.write(data, size); });
    file.commit();
}

WholeExecutionTrace WholeExecutionTrace::load(const std::string& path) {
    WholeExecutionTrace wet;
    {
        const tcgen_runtime::Descriptor file(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
        struct stat status {};
        if (file.get() >= 0 && ::fstat(file.get(), &status) == 0 && S_ISREG(status.st_mode)) {
            SavedFile saved(file.get(), static_cast<std::uint64_t>(status.st_size), path);
            wet = read_saved(saved, path);
        } else {  // read_whole_file()'s refusal, or a pipe's bytes read whole
            const std::vector<std::uint8_t> bytes = read_whole_file(path);
            wet = from_bytes(bytes.data(), bytes.size(), path);
        }
    }
#ifdef __GLIBC__
    malloc_trim(0);
#endif
    return wet;
}

}  // namespace tcgen::wet
