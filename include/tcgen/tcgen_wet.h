/*
 * The C interface of libtcgen_wet's Whole Execution Trace (docs/wet.md):
 * a .wet saved by `wet build`, opened and queried as the `wet` command
 * queries it, from C or through a foreign-function interface (the Python
 * package's tcgen.wet). The library is libtcgen_wet_c.so; docs/c-abi.md
 * describes it.
 *
 * The interface is C89 apart from <stddef.h> and <stdint.h>, and stable:
 * TCGEN_WET_ABI_VERSION grows when a function or structure changes, and
 * tcgen_wet_abi_version() says which one the library was built with.
 *
 * The handle is opaque. Every function that can fail returns a status,
 * TCGEN_WET_OK or one of the codes below, and never throws, aborts or
 * exits; the handle keeps the one-line message of its latest failure
 * (tcgen_wet_error), the line the `wet` command prints after "wet: " for
 * the same mistake, e.g. "run.wet: error: no memory access has pc 0x1".
 * A handle is used by one thread at a time (its results and message are
 * its own). Threads query one WET at once through handles that share it
 * (tcgen_wet_share): one handle per thread, one copy of the WET.
 *
 * Results: tcgen_wet_cf fills arrays of the caller's. The other queries
 * fill a structure of columns, arrays owned by the handle (one value per
 * row), valid until the next query on the handle or tcgen_wet_free: copy
 * what is to be kept. Timestamps count executed blocks from 1 (docs/wet.md).
 */
#ifndef TCGEN_TCGEN_WET_H
#define TCGEN_TCGEN_WET_H

#include <stddef.h>
#include <stdint.h>

/* The version of this interface; see tcgen_wet_abi_version(). */
#define TCGEN_WET_ABI_VERSION 3

#if defined(__GNUC__)
#define TCGEN_WET_API __attribute__((visibility("default")))
#else
#define TCGEN_WET_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* Status codes. */
#define TCGEN_WET_OK 0
#define TCGEN_WET_ERROR_INPUT 1         /* a missing, damaged or truncated .wet, or an I/O error */
#define TCGEN_WET_ERROR_ARGUMENT 2      /* a call the caller got wrong: a null pointer, INSTANCE and --at both or
                                           neither, --from 0 */
#define TCGEN_WET_ERROR_OUT_OF_MEMORY 3 /* an allocation failed */
#define TCGEN_WET_ERROR_INTERNAL 4      /* a bug of tcgen's */
#define TCGEN_WET_ERROR_QUERY 5         /* what the trace does not hold: an unknown pc, an instance or
                                           timestamp out of range (or damage found by the query's walk) */

/* A window's count meaning "all of them" (`wet slice` without --count). */
#define TCGEN_WET_ALL ((uint64_t)-1)
/* An INSTANCE, --at or --from not given. */
#define TCGEN_WET_NONE ((uint64_t)-1)

typedef struct tcgen_wet tcgen_wet;

TCGEN_WET_API unsigned tcgen_wet_abi_version(void);         /* TCGEN_WET_ABI_VERSION when it was built */
TCGEN_WET_API const char* tcgen_wet_status_name(int status); /* "TCGEN_WET_ERROR_QUERY", ...; static text */

/*
 * Opens the .wet `path` (`wet build`'s output). Always sets *wet, even when
 * it fails (then only to ask for the message and free it), except when
 * memory for the handle itself runs out: NULL, whose message is "out of memory".
 */
TCGEN_WET_API int tcgen_wet_open(const char* path, tcgen_wet** wet);
/*
 * Another handle on the WET `wet` holds, without a second copy of it: its
 * own results, message and cursors. Handles that share a WET may be used
 * from different threads at once (each by one thread at a time); the WET is
 * freed with the last of them. Sets *shared as tcgen_wet_open sets *wet.
 * Since ABI version 3.
 */
TCGEN_WET_API int tcgen_wet_share(tcgen_wet* wet, tcgen_wet** shared);
/* The message of the latest failure ("" if none); valid until the next call on the handle. */
TCGEN_WET_API const char* tcgen_wet_error(const tcgen_wet* wet);
TCGEN_WET_API void tcgen_wet_free(tcgen_wet* wet); /* NULL is fine */

/* What `wet build` reports of a WET. */
typedef struct tcgen_wet_stats {
    uint64_t executed; /* timestamps: 1..executed */
    uint64_t blocks;   /* the static program's blocks and memory-access nodes */
    uint64_t nodes;
    uint64_t events;   /* executed loads and stores */
    uint64_t defs;     /* loads with a def */
} tcgen_wet_stats;
TCGEN_WET_API int tcgen_wet_get_stats(tcgen_wet* wet, tcgen_wet_stats* stats);

/*
 * The control flow (`wet cf --from=START --count=COUNT --ids`): the block
 * executed at each timestamp START, START + 1, ..., at most `count` of them
 * (fewer at the end of the run), into the caller's arrays blocks[] (ids)
 * and pcs[] (their first pc), each with room for `count`; either may be
 * NULL. START must be in 1..executed.
 */
TCGEN_WET_API int tcgen_wet_cf(tcgen_wet* wet, uint64_t start, size_t count, uint32_t* blocks, uint64_t* pcs,
                               size_t* written);

/*
 * `wet top --count=COUNT`: the `count` most executed blocks (kind 'B': a
 * block's executions, first pc, id), then loads ('L') and stores ('S': an
 * instruction's distinct timestamps; id 0); most executed first, ties by pc.
 */
typedef struct tcgen_wet_top_rows {
    size_t rows;
    const char* kind;
    const uint64_t* executions;
    const uint64_t* pc;
    const uint32_t* id;
} tcgen_wet_top_rows;
TCGEN_WET_API int tcgen_wet_top(tcgen_wet* wet, uint64_t count, tcgen_wet_top_rows* top);

/*
 * `wet values PC` and `wet addresses PC`: every execution of the memory
 * accesses of instruction `pc`, sorted by (t, slot): its timestamp, kind
 * ('L' load, 'S' store), slot, value and address.
 */
typedef struct tcgen_wet_access_rows {
    size_t rows;
    const uint32_t* t;
    const char* kind;
    const uint8_t* slot;
    const uint64_t* value;
    const uint64_t* address;
} tcgen_wet_access_rows;
TCGEN_WET_API int tcgen_wet_accesses(tcgen_wet* wet, uint64_t pc, tcgen_wet_access_rows* accesses);

/*
 * Where `def` and `slice` start, as the command's INSTANCE and --at=T:
 * exactly one of `instance` (1 for pc's first distinct timestamp) and `at`
 * (a timestamp) is given, the other TCGEN_WET_NONE; out-of-range values
 * (0 among them) are refused as the command refuses them.
 *
 * `wet def PC INSTANCE|--at=T`: per load of pc executed there, by slot, the
 * store execution it read from: def_t 0 (and def_slot, def_pc 0) when none.
 */
typedef struct tcgen_wet_def_rows {
    size_t rows;
    const uint32_t* t; /* the load's */
    const uint8_t* slot;
    const uint32_t* def_t;
    const uint8_t* def_slot;
    const uint64_t* def_pc;
} tcgen_wet_def_rows;
TCGEN_WET_API int tcgen_wet_def(tcgen_wet* wet, uint64_t pc, uint64_t instance, uint64_t at, tcgen_wet_def_rows* defs);

/*
 * `wet slice PC INSTANCE|--at=T --from=FROM --count=COUNT`: the backward
 * dynamic slice, sorted by t descending, then pc, kind, slot; only its items
 * at timestamps up to `from` (TCGEN_WET_NONE: all), at most `count`
 * (TCGEN_WET_ALL: all).
 * kind: 'L', 'S' (a memory access, id its node), 'R' (an instruction writing
 * registers in block id's execution), 'B' (the branch ending block id's); slot 0
 * for 'R' and 'B'.
 */
typedef struct tcgen_wet_slice_rows {
    size_t rows;
    const uint32_t* t;
    const char* kind;
    const uint64_t* pc;
    const uint8_t* slot;
    const uint32_t* id;
} tcgen_wet_slice_rows;
TCGEN_WET_API int tcgen_wet_slice(tcgen_wet* wet, uint64_t pc, uint64_t instance, uint64_t at, uint64_t from,
                                  uint64_t count, tcgen_wet_slice_rows* slice);

/*
 * The same slice handed out as the walk back through time finds it (since
 * version 2), for slices too large to hold: the walk keeps only the
 * dependences it still waits for. tcgen_wet_slice_walk_open starts it
 * (arguments as tcgen_wet_slice's, and `until`: only items at timestamps
 * `until` or later, TCGEN_WET_NONE for all; the walk stops there) and sets
 * *walk, NULL when it fails. Each tcgen_wet_slice_walk_next fills `rows`
 * with the next rows in tcgen_wet_slice's order, at most `max_rows` (1 or
 * more), in arrays the walk owns, valid until its next call or
 * tcgen_wet_slice_walk_free; rows 0: the slice is done. The walk belongs to
 * `wet`, which must outlive it and keeps its failures' messages; other
 * queries on `wet` between two calls are fine (they cost the walk time).
 */
typedef struct tcgen_wet_slice_walk tcgen_wet_slice_walk;
TCGEN_WET_API int tcgen_wet_slice_walk_open(tcgen_wet* wet, uint64_t pc, uint64_t instance, uint64_t at,
                                            uint64_t from, uint64_t until, uint64_t count,
                                            tcgen_wet_slice_walk** walk);
TCGEN_WET_API int tcgen_wet_slice_walk_next(tcgen_wet_slice_walk* walk, size_t max_rows, tcgen_wet_slice_rows* rows);
TCGEN_WET_API void tcgen_wet_slice_walk_free(tcgen_wet_slice_walk* walk); /* NULL is fine */

#ifdef __cplusplus
}
#endif

#endif /* TCGEN_TCGEN_WET_H */
