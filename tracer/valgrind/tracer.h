/* tcgen-tracer: a valgrind tool (amd64 Linux) that writes binary traces of
   the traced program directly, one file per kind, several kinds in one run:

     --stores=FILE     STA1 + (u32 pc, u64 store address)    per store
     --misses=FILE     CMA1 + (u32 pc, u64 access address)   per cache miss
     --loads=FILE      LDV1 + (u32 pc, u64 loaded value)     per load
     --champsim=FILE   ChampSim input_instr (64 bytes)       per instruction
     --branches=FILE   BRA1 + (u64 pc, u64 target, u8 taken) per branch
     --threads=FILE    THR1 + (u32 thread, u64 records so far per
                       kind) each time another thread starts running
     --wet=PREFIX      a Whole Execution Trace of the memory instructions
                       and the control flow, timestamps counting executed
                       blocks: PREFIX.blocks (WTB1, one record per static
                       block), PREFIX.flow (WTF1, the block id of each
                       executed block), PREFIX.nodes (WTN2, one record per
                       static access), PREFIX.events (WTE2, block timestamp,
                       address and value per executed load/store),
                       PREFIX.edges (WTD2, store->load dependence per load)
                       and PREFIX.regs (WTR1, per static block its
                       register dataflow)

   Each kind has a record cap (--stores-max=N, ...; 0 = no cap).  When every
   requested kind has reached its cap the tool flushes its files and ends the
   program (exit status 0) unless --exit-when-full=no.  --skip=N writes no
   record of any kind before N instructions have run (start-up), the cache
   model warming meanwhile; --champsim-skip / --branches-skip start only
   those two kinds later.

   Trace formats and the approximations are documented in tracer/README.md,
   the WET streams in docs/wet-streams.md.  All integers are little-endian.

   The files: tool.c (registration, options, start and end), output.c (the
   buffered output files), instrument.c (the IR walk) with ir.c (its IR
   helpers), dispatch.c (the run-time helpers the instrumented code calls,
   which hand each event to the kinds that record it), determinism.c,
   threads.c (thread switches, --threads), and one file per kind:
   stores.c, misses.c, loads.c, champsim.c, branches.c, wet.c (with
   wet_flow.c, the register dataflow of its blocks).  This
   header is what they share.  The tool is linked statically with
   valgrind's core and VEX, so a non-static name must not be one of
   theirs (`nm -g` on the archives CMakeLists.txt links lists them). */

#ifndef TCGEN_TRACER_H
#define TCGEN_TRACER_H

#include "pub_tool_basics.h"
#include "pub_tool_tooliface.h"
#include "pub_tool_libcassert.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_libcfile.h"
#include "pub_tool_libcprint.h"
#include "pub_tool_libcproc.h"
#include "pub_tool_mallocfree.h"
#include "pub_tool_machine.h"
#include "pub_tool_threadstate.h"
#include "pub_tool_vki.h"
#include "libvex_guest_amd64.h"

/* ------------------------------------------------------------------ */
/* Output files (output.c)                                             */
/* ------------------------------------------------------------------ */

/* The seven WET files are one kind for the user (one option, one cap on
   the events); they get separate buffers here, K_WTB to K_WTS. */
enum { K_STA = 0, K_CMA, K_LDV, K_CHS, K_BRA, K_WTB, K_WTF, K_WTN, K_WTE, K_WTD,
       K_WTR, K_WTS, K_THR, N_KINDS };

#define OUT_BUF_BYTES (4u << 20)

typedef struct {
   const HChar* path;      /* NULL: kind not requested */
   const HChar* header;    /* 4 ASCII bytes or NULL (ChampSim) */
   const HChar* name;
   Long max;               /* record cap, 0 = none */
   Long n;                 /* records written */
   Int fd;
   UInt used;              /* bytes in buf */
   UChar* buf;             /* NULL: not open */
   Bool transient;         /* open only while writing: the program never sees
                              its descriptor (its own open()s get the same
                              numbers as without it) */
} Out;

extern Out outs[N_KINDS];

/* Run-time switches, read by the guards of the instrumentation's helper
   calls (a 32-bit load + compare per call site; the call itself is skipped
   once the kinds it serves are full). */
extern UInt active[N_KINDS];
extern UInt load_active;    /* any of misses, loads, champsim */
extern UInt store_active;   /* any of stores, misses, champsim */
extern UInt instr_active;   /* any of champsim, branches, or a skip pending:
                               a call per instruction */
extern Bool clo_exit_when_full;

void recompute_active(void);
/* Opens every requested file and writes its header; False if none is. */
Bool outs_open(void);
void out_flush(Out* o);
/* Appends text of any length to kind k's file (a record of a text file
   such as PREFIX.syms is a line: the caller counts it with out_count). */
void out_text(Int k, const HChar* text);
void out_count(Int k);
/* Flushes and closes every file (at exit or when all are full). */
void outs_close(void);
/* Kind k reached its cap: it stops, and so does the program when it was
   the last one (unless --exit-when-full=no). */
void kind_full(Int k);

static inline void put_le32(UChar* p, UInt v)
{
   p[0] = (UChar)v; p[1] = (UChar)(v >> 8);
   p[2] = (UChar)(v >> 16); p[3] = (UChar)(v >> 24);
}

static inline void put_le64(UChar* p, ULong v)
{
   put_le32(p, (UInt)v);
   put_le32(p + 4, (UInt)(v >> 32));
}

/* Where kind k's next record goes. */
static inline UChar* out_next(Int k) { return outs[k].buf + outs[k].used; }

/* Every writer puts one record of at most OUT_MAX_RECORD bytes at
   out_next(k) and then commits it here: the buffer always has room for the
   next one. */
#define OUT_MAX_RECORD 128u
static inline void out_commit(Int k, UInt bytes)
{
   Out* o = &outs[k];
   o->used += bytes;
   if (o->used > OUT_BUF_BYTES - OUT_MAX_RECORD) out_flush(o);
   o->n++;
   if (o->max && o->n >= o->max) kind_full(k);
}

/* One 12-byte record: u32 pc, u64 value. */
static inline void emit12(Int k, Addr pc, ULong v)
{
   UChar* p;
   if (!active[k]) return;
   p = out_next(k);
   put_le32(p, (UInt)pc);
   put_le64(p + 4, v);
   out_commit(k, 12);
}

/* The first min(size, 8) bytes at a, zero-extended (little-endian): a
   loaded value that the IR does not hold, read from the client's memory. */
static inline ULong memory_value(Addr a, UWord size)
{
   ULong v = 0;
   UWord i;
   switch (size) {
   case 1: return *(const UChar*)a;
   case 2: return *(const UShort*)a;
   case 4: return *(const UInt*)a;
   default:
      if (size >= 8) return *(const ULong*)a;
      for (i = 0; i < size; i++) v |= (ULong)((const UChar*)a)[i] << (8 * i);
      return v;
   }
}

/* ------------------------------------------------------------------ */
/* Start-up skip and instruction count (dispatch.c)                    */
/* ------------------------------------------------------------------ */

/* --skip=N: while `skipping`, instructions are counted and nothing is
   written; only the cache model runs, so that the miss trace starts warm
   as ChampSim's simulations do after their warm-up.  The count needs a
   call per instruction whatever kinds are requested, so h_instr is
   instrumented while a skip is pending. */
extern Long clo_skip;
extern UInt skipping;
/* Instructions to skip before the ChampSim / branch traces start; at
   least --skip (tr_post_clo_init). */
extern Long clo_champsim_skip, clo_branches_skip;
/* Instructions started so far (h_instr calls), counted up to count_until =
   the largest skip + 1: every skip is over then, and the tests against the
   skips in h_instr hold from then on without counting further. */
extern ULong instrs_seen, count_until;

/* ------------------------------------------------------------------ */
/* Static description of one guest instruction (champsim.c)            */
/* ------------------------------------------------------------------ */

/* Made at instrumentation time for the ChampSim and branch traces; the
   per-instruction helper receives a pointer to it. */
typedef struct {
   Addr ip;
   UInt len;
   UChar is_branch;
   Addr target;        /* where the branch goes when taken, if known
                          statically (0: indirect) */
   UChar dst[2];
   UChar src[4];
} InstrDesc;

/* The description of the instruction whose IMark is sb_in->stmts[i]. */
InstrDesc* make_desc(IRSB* sb_in, Int i);

/* ------------------------------------------------------------------ */
/* Instrumentation (instrument.c, ir.c)                                */
/* ------------------------------------------------------------------ */

/* Per-instruction state while instrumenting one superblock. */
typedef struct {
   Addr pc;
   UInt len;
   InstrDesc* desc;        /* ChampSim only */
   IRExpr* last_load_addr; /* for load+store "modify" merging */
   Int last_load_size;
   Bool last_was_load;
   Bool wet;               /* WET calls wanted in this superblock */
   UInt wet_slot;          /* WET accesses of this instruction so far */
   UInt wet_block;         /* the WET block the instruction belongs to */
} CurInstr;

/* A guard that holds while *flag is non-zero, read when the code runs. */
IRExpr* guard_on(IRSB* sb, UInt* flag);
/* a && b; b may be NULL (no guard). */
IRExpr* and_guard(IRSB* sb, IRExpr* a, IRExpr* b);
IRExpr* mk64(ULong v);
void add_call(IRSB* sb, const HChar* name, void* fn, IRExpr** args, IRExpr* guard);
/* The loaded value widened to 64 bits (low 8 bytes of wider values). */
IRExpr* value64(IRSB* sb, IRExpr* v, IRType ty);
IRExpr* addr64(IRSB* sb, IRExpr* a);

/* ------------------------------------------------------------------ */
/* The kinds: what each records                                        */
/* ------------------------------------------------------------------ */

/* stores.c */
void stores_record(Addr pc, Addr a);

/* misses.c: the cache model runs on every access while misses are
   requested, recording or not (start-up skip). */
void misses_init(void);
Bool misses_access(Addr a, UWord size);
void misses_record(Addr pc, Addr a);

/* loads.c */
void loads_record(Addr pc, ULong value);

/* champsim.c */
void champsim_init(void);
void champsim_instr(const InstrDesc* d);
void champsim_mem(Bool is_store, Addr a);
void champsim_finish(void);
/* The running thread stops and another starts (threads.c): the pending
   record is completed with next_ip, the stopped thread's next address. */
void champsim_thread_stops(Addr next_ip);

/* branches.c */
void branches_instr(const InstrDesc* d);
void branches_thread_stops(Addr next_ip);

/* threads.c: one pending record per instruction-level kind is the running
   thread's; at a switch it is completed from the stopped thread's state.
   The log (--threads=FILE) has a column per kind with dynamic records. */
#define THREAD_LOG_KINDS 8
void threads_init(void);
void threads_report(void);

/* wet.c */
#define WET_MAX_BLOCKS 0xFFFFFFFFu    /* u32 timestamps, 0 = "no store" */
extern const HChar* clo_wet_prefix;
extern Long clo_wet_track_mb;
/* Opens nothing: sets the six paths, turns valgrind's chasing off and
   starts tracking memory. */
void wet_init(void);
/* Splits the superblock into WET blocks (sb_in->stmts[i] an IMark): the
   block id if a block starts at this instruction, else -1; *made says
   whether the id is new (then its PREFIX.blocks record is written now). */
Int wet_block_at(IRSB* sb_in, Int i, Bool* made);
/* The block-start call: the block's execution gets the next timestamp. */
void wet_block_start(IRSB* sb, CurInstr* ci, UInt block);
/* The calls of one memory access; the access's node id, or WET_NO_NODE
   when the superblock has no WET calls. */
#define WET_NO_NODE 0xFFFFFFFFu
UInt wet_load(IRSB* sb, CurInstr* ci, IRExpr* addr, Long size,
              IRExpr* value, IRType ty, IRExpr* guard);
UInt wet_store(IRSB* sb, CurInstr* ci, IRExpr* addr, Long size, IRExpr* guard);
void wet_report(void);

/* wet_flow.c: each new block's register dataflow (PREFIX.regs), from the
   walk of a superblock with WET calls: wet_flow_begin before its first
   statement, wet_flow_instr at each IMark (block >= 0: a WET block starts
   there, fresh when its id is new), wet_flow_stmt after each other
   statement with the nodes the WET made for it (a load and a store at
   most), wet_flow_end with the superblock's next pc. */
extern ULong wet_flow_unresolved;   /* sources dropped, for wet_report */
void wet_flow_begin(const IRSB* sb_in, const VexGuestLayout* layout);
void wet_flow_instr(Addr pc, Int block, Bool fresh);
void wet_flow_stmt(const IRStmt* st, UInt load_node, UInt store_node);
void wet_flow_end(const IRExpr* next);

/* determinism.c */
extern Bool clo_verbose, clo_fake_getrandom, clo_fake_time, clo_fake_rdtsc;
/* Called at every translation until it has run once. */
void fix_at_random_once(void);
void tr_pre_syscall(ThreadId tid, UInt sysno, UWord* args, UInt nArgs);
void tr_post_syscall(ThreadId tid, UInt sysno, UWord* args, UInt nArgs, SysRes res);
/* st, or the same dirty call with rdtsc replaced by the fake counter. */
IRStmt* fake_rdtsc_call(IRStmt* st);

/* dispatch.c: the helpers the instrumented code calls */
void h_instr(const InstrDesc* d);
void h_load(Addr pc, Addr a, UWord size, ULong value);
void h_store(Addr pc, Addr a, UWord size, UWord modify);
void h_load_mem(Addr pc, Addr a, UWord size);

/* tool.c: flushes and closes everything and reports, once (at exit or
   when every trace is full). */
void finish_all(void);

/* instrument.c */
IRSB* tr_instrument(VgCallbackClosure* closure, IRSB* sb_in,
                    const VexGuestLayout* layout, const VexGuestExtents* vge,
                    const VexArchInfo* archinfo_host,
                    IRType gWordTy, IRType hWordTy);

#endif
