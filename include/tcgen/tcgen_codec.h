/*
 * The C interface of a codec that tcgen generates for one spec
 * (tcgen --emit=c-library SPEC.tcg > lib.cpp), built into a shared library:
 *
 *   tcgen --emit=c-library vpc3.tcg > vpc3_lib.cpp
 *   c++ -std=c++17 -O2 -shared -fPIC -fvisibility=hidden -pthread -I INCLUDE_DIR \
 *       -o libvpc3.so vpc3_lib.cpp LINK_FLAGS     (the "// Link:" line of vpc3_lib.cpp)
 *
 * Every such library exports the same functions, declared here, so that a
 * program or a foreign-function interface (Python's ctypes, say) can load
 * the library of any spec and find out at run time what its records hold.
 * The interface is C89 apart from <stddef.h> and <stdint.h>, and stable:
 * TCGEN_CODEC_ABI_VERSION grows when a function changes, and
 * tcgen_codec_abi_version() says which one a library was built with.
 *
 * Handles are opaque. Every function that can fail returns a status,
 * TCGEN_OK or one of the codes below, and never throws, aborts or exits;
 * the handle keeps the one-line message of its latest failure
 * (tcgen_reader_error, tcgen_writer_error), the text the command-line
 * program prints after "error: ", e.g. "truncated input: block 3 ends after
 * 12 of 4096 bytes". Buffers are the caller's unless a function says
 * otherwise. A handle is used by one thread at a time.
 *
 * Columns: a record's fields are numbered 0 .. tcgen_codec_field_count()-1
 * in the trace's order; field k's values travel as one contiguous array of
 * unsigned integers of its width (tcgen_codec_field_bits(k): 8, 16, 32 or
 * 64), native byte order, one value per record.
 */
#ifndef TCGEN_TCGEN_CODEC_H
#define TCGEN_TCGEN_CODEC_H

#include <stddef.h>
#include <stdint.h>

/* The version of this interface; see tcgen_codec_abi_version(). */
#define TCGEN_CODEC_ABI_VERSION 1

/* What a library exports; the generated source defines the functions with it. */
#if defined(__GNUC__)
#define TCGEN_CODEC_API __attribute__((visibility("default")))
#else
#define TCGEN_CODEC_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* Status codes. */
#define TCGEN_OK 0
#define TCGEN_ERROR_INPUT 1         /* a damaged, truncated or foreign .tcz, or an I/O error */
#define TCGEN_ERROR_ARGUMENT 2      /* a call the caller got wrong: a null pointer, a bad field, a closed writer */
#define TCGEN_ERROR_OUT_OF_MEMORY 3 /* an allocation failed */
#define TCGEN_ERROR_INTERNAL 4      /* a bug of tcgen's */

typedef struct tcgen_reader tcgen_reader;
typedef struct tcgen_writer tcgen_writer;

/* The library. */
TCGEN_CODEC_API unsigned tcgen_codec_abi_version(void); /* TCGEN_CODEC_ABI_VERSION when it was built */
TCGEN_CODEC_API const char* tcgen_codec_tcgen_version(void); /* the tcgen that generated it, "0.1.0" */
TCGEN_CODEC_API const char* tcgen_codec_status_name(int status); /* "TCGEN_ERROR_INPUT", ...; static text */

/* The spec, as every .tcz of it stores it. Texts are static. */
TCGEN_CODEC_API const char* tcgen_codec_spec_text(void); /* the canonical spec text of the .tcz preamble */
TCGEN_CODEC_API uint64_t tcgen_codec_fingerprint(void);  /* fingerprint64 of that text */
TCGEN_CODEC_API size_t tcgen_codec_record_bytes(void);   /* bytes of a record in the trace */
TCGEN_CODEC_API size_t tcgen_codec_header_bytes(void);   /* bytes of the trace's header (0: none) */
TCGEN_CODEC_API size_t tcgen_codec_field_count(void);
/* Field `field`'s column name ("ip", "source_memory[0]", "field_2"), or NULL past the last field. */
TCGEN_CODEC_API const char* tcgen_codec_field_name(size_t field);
/* Its width in bits (8, 16, 32 or 64; 0 past the last field) and its byte offset in a record. */
TCGEN_CODEC_API unsigned tcgen_codec_field_bits(size_t field);
TCGEN_CODEC_API size_t tcgen_codec_field_offset(size_t field);

/*
 * Reading. An open function always sets *reader, even when it fails (then
 * only to ask for the message and free it), except when memory for the
 * handle itself runs out: NULL, whose message is "out of memory". Blocks
 * are decoded on a second thread ahead of the caller.
 */
TCGEN_CODEC_API int tcgen_reader_open(const char* path, tcgen_reader** reader);
/* A .tcz held in memory, which must stay there until tcgen_reader_free. */
TCGEN_CODEC_API int tcgen_reader_open_memory(const void* data, size_t size, tcgen_reader** reader);
/* The message of the latest failure ("" if none); valid until the next call on the handle. */
TCGEN_CODEC_API const char* tcgen_reader_error(const tcgen_reader* reader);
/* The trace's header bytes (tcgen_codec_header_bytes() of them, fewer if the trace was shorter); owned by the reader. */
TCGEN_CODEC_API int tcgen_reader_header(tcgen_reader* reader, const uint8_t** bytes, size_t* size);
/*
 * The file's record count, without decoding it: from the trailer at the end
 * of a file or memory holding one .tcz, verified by its check; otherwise
 * (a .tcz cut short, concatenated .tcz files) TCGEN_UNKNOWN_RECORD_COUNT.
 */
#define TCGEN_UNKNOWN_RECORD_COUNT ((uint64_t)-1)
TCGEN_CODEC_API int tcgen_reader_record_count(tcgen_reader* reader, uint64_t* records);
/*
 * The records of the current block not yet read, decoding the next block
 * when none are left; 0 at the end of the file. Reading that many with
 * tcgen_reader_read_columns reads a block at a time in bounded memory.
 */
TCGEN_CODEC_API int tcgen_reader_block_records(tcgen_reader* reader, uint64_t* records);
/*
 * Reads up to `capacity` records on from the reader's position, across
 * blocks: columns[k] receives field k's values (room for `capacity` of
 * them), or is NULL to skip field k. *records_read is below `capacity` only
 * at the end of the file (0 there).
 */
TCGEN_CODEC_API int tcgen_reader_read_columns(tcgen_reader* reader, void* const* columns, size_t capacity,
                                              size_t* records_read);
/* Records read so far. */
TCGEN_CODEC_API uint64_t tcgen_reader_position(const tcgen_reader* reader);
/* The bytes after the last whole record (a partial record), once the end was read; owned by the reader. */
TCGEN_CODEC_API int tcgen_reader_tail(tcgen_reader* reader, const uint8_t** bytes, size_t* size);
TCGEN_CODEC_API void tcgen_reader_free(tcgen_reader* reader); /* NULL is fine */

/*
 * Writing. tcgen_writer_create makes the .tcz `path` (replacing a file of
 * that name) at compression level `level` (0-9, -1: the default) with
 * blocks of `block_bytes` bytes of records (0: the level's; larger blocks
 * find longer repeats and cost more memory), starting with the trace's
 * header (tcgen_codec_header_bytes() bytes).
 * The file appears only when tcgen_writer_close succeeds; freed before,
 * the writer leaves none. *writer is set as tcgen_reader_open sets *reader.
 */
TCGEN_CODEC_API int tcgen_writer_create(const char* path, int level, uint64_t block_bytes, const void* header,
                                        size_t header_size, tcgen_writer** writer);
TCGEN_CODEC_API const char* tcgen_writer_error(const tcgen_writer* writer);
/* Appends `count` records: columns[k] holds field k's values (NULL: zeros). */
TCGEN_CODEC_API int tcgen_writer_append_columns(tcgen_writer* writer, const void* const* columns, size_t count);
/* Records appended so far. */
TCGEN_CODEC_API uint64_t tcgen_writer_records(const tcgen_writer* writer);
/* Writes the trailer and completes the file. */
TCGEN_CODEC_API int tcgen_writer_close(tcgen_writer* writer);
TCGEN_CODEC_API void tcgen_writer_free(tcgen_writer* writer); /* NULL is fine */

#ifdef __cplusplus
}
#endif

#endif /* TCGEN_TCGEN_CODEC_H */
