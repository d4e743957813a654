/* tcgen-tracer: a valgrind tool (amd64 Linux) that writes binary traces of
   the traced program directly, one file per kind, several kinds in one run:

     --stores=FILE     STA1 + (u32 pc, u64 store address)    per store
     --misses=FILE     CMA1 + (u32 pc, u64 access address)   per cache miss
     --loads=FILE      LDV1 + (u32 pc, u64 loaded value)     per load
     --champsim=FILE   ChampSim input_instr (64 bytes)       per instruction
     --branches=FILE   BRA1 + (u64 pc, u64 target, u8 taken) per branch
     --wet=PREFIX      the streams of a Whole Execution Trace restricted to
                       memory instructions: PREFIX.nodes (WTN1, one record
                       per static access), PREFIX.events (WTE1, timestamp,
                       address and value per executed load/store) and
                       PREFIX.edges (WTD1, store->load dependence per load)

   Each kind has a record cap (--stores-max=N, ...; 0 = no cap).  When every
   requested kind has reached its cap the tool flushes its files and ends the
   program (exit status 0) unless --exit-when-full=no.  --skip=N writes no
   record of any kind before N instructions have run (start-up), the cache
   model warming meanwhile; --champsim-skip / --branches-skip start only
   those two kinds later.

   Trace formats, the cache model and the approximations are documented in
   bench/README.md ("bench/tracer"), the WET streams in docs/wet-streams.md.
   All integers are little-endian. */

#include "pub_tool_basics.h"
#include "pub_tool_tooliface.h"
#include "pub_tool_libcassert.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_libcfile.h"
#include "pub_tool_libcprint.h"
#include "pub_tool_libcproc.h"
#include "pub_tool_mallocfree.h"
#include "pub_tool_machine.h"
#include "pub_tool_options.h"
#include "pub_tool_vki.h"
#include "libvex_guest_amd64.h"

/* ------------------------------------------------------------------ */
/* Output files                                                        */
/* ------------------------------------------------------------------ */

/* The three WET files are one kind for the user (one option, one cap on
   the events); they get separate buffers here. */
enum { K_STA = 0, K_CMA, K_LDV, K_CHS, K_BRA, K_WTN, K_WTE, K_WTD, N_KINDS };

#define OUT_BUF_BYTES (4u << 20)

typedef struct {
   const HChar* path;      /* NULL: kind not requested */
   const HChar* header;    /* 4 ASCII bytes or NULL (ChampSim) */
   const HChar* name;
   Long max;               /* record cap, 0 = none */
   Long n;                 /* records written */
   Int fd;
   UInt used;              /* bytes in buf */
   UChar* buf;
} Out;

static Out outs[N_KINDS] = {
   { NULL, "STA1", "stores",   0, 0, -1, 0, NULL },
   { NULL, "CMA1", "misses",   0, 0, -1, 0, NULL },
   { NULL, "LDV1", "loads",    0, 0, -1, 0, NULL },
   { NULL, NULL,   "champsim", 0, 0, -1, 0, NULL },
   { NULL, "BRA1", "branches", 0, 0, -1, 0, NULL },
   { NULL, "WTN1", "wet nodes",  0, 0, -1, 0, NULL },
   { NULL, "WTE1", "wet events", 0, 0, -1, 0, NULL },
   { NULL, "WTD1", "wet edges",  0, 0, -1, 0, NULL },
};

/* Run-time switches, read by the guards of the instrumentation's helper
   calls (a 32-bit load + compare per call site; the call itself is skipped
   once the kinds it serves are full). */
static UInt active[N_KINDS];
static UInt load_active;    /* any of misses, loads, champsim */
static UInt store_active;   /* any of stores, misses, champsim */
static UInt instr_active;   /* any of champsim, branches, or a skip pending:
                               a call per instruction */
static Bool clo_exit_when_full = True;

/* Start-up skip (--skip=N): while `skipping`, instructions are counted and
   nothing is written; only the cache model runs, so that the miss trace
   starts warm as ChampSim's simulations do after their warm-up.  The count
   needs a call per instruction whatever kinds are requested, so h_instr is
   instrumented while a skip is pending. */
static Long clo_skip = 0;
static UInt skipping;

static void recompute_active(void)
{
   if (skipping) {
      load_active = store_active = active[K_CMA];
      instr_active = 1;
      return;
   }
   load_active = active[K_CMA] | active[K_LDV] | active[K_CHS];
   store_active = active[K_STA] | active[K_CMA] | active[K_CHS];
   instr_active = active[K_CHS] | active[K_BRA];
}

static void out_flush(Out* o)
{
   UInt off = 0;
   while (off < o->used) {
      Int w = VG_(write)(o->fd, o->buf + off, (Int)(o->used - off));
      if (w <= 0) {
         VG_(umsg)("tcgen-tracer: write to %s failed\n", o->path);
         VG_(exit)(2);
      }
      off += (UInt)w;
   }
   o->used = 0;
}

static void finish_all(void);

/* Timestamps are u32 and 0 means "no store" in the last-store table, so a
   WET trace has at most this many events. */
#define WET_MAX_EVENTS 0xFFFFFFFFLL

static void kind_full(Int k)
{
   Int i;
   if (k == K_WTE) {
      if (outs[k].n >= WET_MAX_EVENTS)
         VG_(umsg)("tcgen-tracer: wet: the 32-bit timestamp counter is exhausted "
                   "after %lld events; the WET trace ends here\n", outs[k].n);
      active[K_WTN] = active[K_WTD] = 0;
   }
   active[k] = 0;
   recompute_active();
   if (!clo_exit_when_full) return;
   for (i = 0; i < N_KINDS; i++)
      if (active[i]) return;
   finish_all();
   VG_(umsg)("tcgen-tracer: every requested trace reached its record cap; "
             "ending the program\n");
   VG_(exit)(0);
}

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

/* Every writer puts one record of at most 64 bytes at o->buf + o->used
   and then commits it here: the buffer always has room for the next one. */
static inline void out_commit(Int k, UInt bytes)
{
   Out* o = &outs[k];
   o->used += bytes;
   if (o->used > OUT_BUF_BYTES - 64) out_flush(o);
   o->n++;
   if (o->max && o->n >= o->max) kind_full(k);
}

/* One 12-byte record: u32 pc, u64 value. */
static inline void emit12(Int k, Addr pc, ULong v)
{
   UChar* p;
   if (!active[k]) return;
   p = outs[k].buf + outs[k].used;
   put_le32(p, (UInt)pc);
   put_le64(p + 4, v);
   out_commit(k, 12);
}

/* ------------------------------------------------------------------ */
/* Cache model (same rule as bench/lackey_to_trace.cpp)                 */
/* 16 KiB, direct-mapped, 64-byte lines, write-allocate.               */
/* ------------------------------------------------------------------ */

static ULong cache_tag[256];   /* line number + 1; 0 = empty */

static inline Bool cache_access(Addr a, UWord size)
{
   ULong first = a >> 6, last = (a + (size ? size : 1) - 1) >> 6, l;
   Bool miss = False;
   for (l = first; l <= last; l++) {
      UInt set = (UInt)(l & 255);
      if (cache_tag[set] != l + 1) { miss = True; cache_tag[set] = l + 1; }
   }
   return miss;
}

/* ------------------------------------------------------------------ */
/* ChampSim records                                                    */
/* ------------------------------------------------------------------ */

/* Static description of one guest instruction, made at instrumentation
   time; the per-instruction helper receives a pointer to it. */
typedef struct {
   Addr ip;
   UInt len;
   UChar is_branch;
   Addr target;        /* where the branch goes when taken, if known
                          statically (0: indirect) */
   UChar dst[2];
   UChar src[4];
} InstrDesc;

/* The instruction being executed: its record is completed when the next
   instruction starts (branch_taken is known then) or at exit. */
static Bool pend_valid = False;
static const InstrDesc* pend_desc;
static ULong pend_dmem[2], pend_smem[4];
static UInt pend_nd, pend_ns;

static void champsim_write_pending(Addr next_ip)
{
   Out* o = &outs[K_CHS];
   UChar* p = o->buf + o->used;
   const InstrDesc* d = pend_desc;
   UInt i;
   put_le64(p, d->ip);
   p[8] = d->is_branch;
   p[9] = (d->is_branch && next_ip != d->ip + d->len) ? 1 : 0;
   p[10] = d->dst[0]; p[11] = d->dst[1];
   for (i = 0; i < 4; i++) p[12 + i] = d->src[i];
   for (i = 0; i < 2; i++) put_le64(p + 16 + 8 * i, i < pend_nd ? pend_dmem[i] : 0);
   for (i = 0; i < 4; i++) put_le64(p + 32 + 8 * i, i < pend_ns ? pend_smem[i] : 0);
   pend_valid = False;
   out_commit(K_CHS, 64);
}

/* Instructions to skip before the ChampSim / branch traces start; at
   least --skip (tr_post_clo_init). */
static Long clo_champsim_skip = 0;

/* Branch records: like ChampSim's, a branch is completed when the next
   instruction starts. The target is where the branch went when taken and
   where it would have gone when not (a conditional branch's static target),
   as branch-predictor traces record it. */
static const InstrDesc* branch_pend = NULL;
static Long clo_branches_skip = 0;

/* Instructions started so far (h_instr calls), counted up to count_until =
   the largest skip + 1: every skip is over then, and the tests against the
   skips in h_instr hold from then on without counting further. */
static ULong instrs_seen, count_until;

static void branch_write(const InstrDesc* d, Addr next_ip)
{
   Out* o = &outs[K_BRA];
   UChar* p = o->buf + o->used;
   Bool taken = next_ip != d->ip + d->len;
   put_le64(p, d->ip);
   put_le64(p + 8, taken ? next_ip : d->target);
   p[16] = taken ? 1 : 0;
   out_commit(K_BRA, 17);
}

static void branch_instr(const InstrDesc* d)
{
   if (branch_pend) {
      const InstrDesc* b = branch_pend;
      branch_pend = NULL;
      branch_write(b, d->ip);
      if (!active[K_BRA]) return;
   }
   if (d->is_branch) branch_pend = d;
}

/* Instruction number instrs_seen (from 1) starts; its memory accesses
   follow.  Instruction N + 1 is the first one recorded after a skip of N. */
static void h_instr(const InstrDesc* d)
{
   if (instrs_seen < count_until) {
      instrs_seen++;
      if (skipping && instrs_seen > (ULong)clo_skip) {
         skipping = 0;
         recompute_active();
      }
   }
   if (active[K_BRA] && instrs_seen > (ULong)clo_branches_skip) branch_instr(d);
   if (!active[K_CHS] || instrs_seen <= (ULong)clo_champsim_skip) return;
   if (pend_valid) {
      champsim_write_pending(d->ip);
      if (!active[K_CHS]) return;
   }
   pend_desc = d;
   pend_nd = pend_ns = 0;
   pend_valid = True;
}

static inline void champsim_mem(Bool is_store, Addr a)
{
   UInt i;
   if (!pend_valid) return;
   if (is_store) {
      for (i = 0; i < pend_nd; i++) if (pend_dmem[i] == a) return;
      if (pend_nd < 2) pend_dmem[pend_nd++] = a;
   } else {
      for (i = 0; i < pend_ns; i++) if (pend_smem[i] == a) return;
      if (pend_ns < 4) pend_smem[pend_ns++] = a;
   }
}

/* ------------------------------------------------------------------ */
/* Memory-access helpers                                               */
/* ------------------------------------------------------------------ */

/* flags: bit 0 = this store completes a load+store "modify" of the same
   bytes in the same instruction (one access for the cache model). */
static void h_load(Addr pc, Addr a, UWord size, ULong value)
{
   Bool miss = active[K_CMA] && cache_access(a, size);
   if (skipping) return;   /* start-up: the cache warms, nothing is written */
   if (miss) emit12(K_CMA, pc, a);
   if (active[K_LDV]) emit12(K_LDV, pc, value);
   if (active[K_CHS]) champsim_mem(False, a);
}

static void h_store(Addr pc, Addr a, UWord size, UWord modify)
{
   Bool miss = !modify && active[K_CMA] && cache_access(a, size);
   if (skipping) return;
   if (active[K_STA]) emit12(K_STA, pc, a);
   if (miss) emit12(K_CMA, pc, a);
   if (active[K_CHS]) champsim_mem(True, a);
}

/* Loads done inside a dirty helper (e.g. fxsave/xrstor, cpuid's none):
   the value is read back from memory, at most 8 bytes. */
static void h_load_mem(Addr pc, Addr a, UWord size)
{
   ULong v = 0;
   if (active[K_LDV] && !skipping) {
      UWord n = size < 8 ? size : 8, i;
      for (i = 0; i < n; i++) v |= (ULong)((const UChar*)a)[i] << (8 * i);
   }
   h_load(pc, a, size, v);
}

/* ------------------------------------------------------------------ */
/* Whole Execution Trace streams (--wet=PREFIX; docs/wet-streams.md)    */
/* ------------------------------------------------------------------ */

/* Node table.  A node is one static memory access: (pc, slot, kind, size),
   slot = the access's position among the traced accesses of its guest
   instruction in IR order, so that a read-modify-write instruction has a
   load node and a store node.  Ids are dense, in order of first
   translation; the record is written then, so a node may have no events. */
typedef struct {
   ULong pc;
   UInt id1;       /* id + 1; 0 = free slot */
   UShort size;
   UChar kind;     /* 'L' or 'S' */
   UChar slot;
} WetNode;

static WetNode* wet_nodes;
static UInt wet_nodes_cap, wet_nodes_used;

static inline UInt wet_node_hash(ULong pc, UInt slot, UInt kind, UInt size)
{
   ULong h = (pc ^ ((ULong)slot << 48) ^ ((ULong)kind << 56) ^ ((ULong)size << 32))
             * 0x9E3779B97F4A7C15ULL;
   return (UInt)(h >> 32);
}

static void wet_nodes_grow(void)
{
   WetNode* old = wet_nodes;
   UInt old_cap = wet_nodes_cap, i;
   wet_nodes_cap = old_cap ? 2 * old_cap : 1u << 14;
   wet_nodes = VG_(malloc)("tcgen-tracer.wet-nodes", wet_nodes_cap * sizeof(WetNode));
   VG_(memset)(wet_nodes, 0, wet_nodes_cap * sizeof(WetNode));
   for (i = 0; i < old_cap; i++) {
      const WetNode* n = &old[i];
      UInt j;
      if (!n->id1) continue;
      j = wet_node_hash(n->pc, n->slot, n->kind, n->size) & (wet_nodes_cap - 1);
      while (wet_nodes[j].id1) j = (j + 1) & (wet_nodes_cap - 1);
      wet_nodes[j] = *n;
   }
   if (old) VG_(free)(old);
}

/* The node's id, made (and its WTN1 record written) on first sight. */
static UInt wet_node(Addr pc, UInt slot, UChar kind, UInt size)
{
   UInt j;
   WetNode* n;
   UChar* p;
   if (slot > 255) slot = 255;
   if (2 * (wet_nodes_used + 1) > wet_nodes_cap) wet_nodes_grow();
   j = wet_node_hash(pc, slot, kind, size) & (wet_nodes_cap - 1);
   for (;; j = (j + 1) & (wet_nodes_cap - 1)) {
      n = &wet_nodes[j];
      if (!n->id1) break;
      if (n->pc == pc && n->slot == slot && n->kind == kind && n->size == size)
         return n->id1 - 1;
   }
   n->pc = pc;
   n->slot = (UChar)slot;
   n->kind = kind;
   n->size = (UShort)size;
   n->id1 = ++wet_nodes_used;
   p = outs[K_WTN].buf + outs[K_WTN].used;
   put_le32(p, n->id1 - 1);
   p[4] = kind;
   p[5] = (UChar)slot;
   p[6] = (UChar)size;
   p[7] = (UChar)(size >> 8);
   put_le64(p + 8, pc);
   out_commit(K_WTN, 16);
   return n->id1 - 1;
}

/* Last-store table: for each byte of recently stored memory, the node and
   timestamp of the store that wrote it last.  Bounded: 4-way set-associative
   over 8-byte granules (80 bytes of tool memory per 8 client bytes); a new
   granule evicts the way of its set stored to least recently, and loads from
   an evicted granule get no edge.  Writes the program does not make itself
   (system calls, signal frames, new or unmapped memory) make the bytes
   unknown, so an edge never points past one. */
typedef struct {
   ULong tag;      /* granule (address / 8) + 1; 0 = free */
   UInt last;      /* timestamp of the latest store into it: replacement order */
   UInt t[8];      /* per byte: timestamp of its last store; 0 = unknown */
   UInt node[8];   /* per byte: that store's node */
} Granule;

#define WET_WAYS 4

static Long clo_wet_track_mb = 8;     /* MiB of client memory tracked */
static Granule* wet_table;
static UInt wet_set_bits;
static ULong wet_sets;
static ULong wet_loads, wet_stores, wet_no_def, wet_evicted, wet_forgotten;

static void wet_table_init(void)
{
   ULong want = (ULong)clo_wet_track_mb << 20 >> 3 >> 2;   /* sets */
   SizeT bytes;
   wet_set_bits = 1;
   while ((2ULL << wet_set_bits) <= want) wet_set_bits++;
   wet_sets = 1ULL << wet_set_bits;
   bytes = (SizeT)(wet_sets * WET_WAYS * sizeof(Granule));
   wet_table = VG_(malloc)("tcgen-tracer.wet-table", bytes);
   VG_(memset)(wet_table, 0, bytes);
}

static inline Granule* wet_set_of(ULong g)
{
   return &wet_table[((g * 0x9E3779B97F4A7C15ULL) >> (64 - wet_set_bits)) * WET_WAYS];
}

static inline Granule* wet_find(ULong g)
{
   Granule* s = wet_set_of(g);
   Int i;
   for (i = 0; i < WET_WAYS; i++)
      if (s[i].tag == g + 1) return &s[i];
   return NULL;
}

static Granule* wet_find_or_add(ULong g)
{
   Granule* s = wet_set_of(g);
   Granule* victim = &s[0];
   Int i;
   for (i = 0; i < WET_WAYS; i++) {
      if (s[i].tag == g + 1) return &s[i];
      if (victim->tag && (!s[i].tag || s[i].last < victim->last)) victim = &s[i];
   }
   if (victim->tag) wet_evicted++;
   VG_(memset)(victim, 0, sizeof *victim);
   victim->tag = g + 1;
   return victim;
}

static void wet_record_store(Addr a, UWord size, UInt t, UInt node)
{
   Addr end = a + size;
   ULong g;
   for (g = a >> 3; g <= (end - 1) >> 3; g++) {
      Granule* e = wet_find_or_add(g);
      Addr base = (Addr)(g << 3);
      UInt lo = base < a ? (UInt)(a - base) : 0;
      UInt hi = base + 8 > end ? (UInt)(end - base) : 8;
      UInt i;
      for (i = lo; i < hi; i++) {
         e->t[i] = t;
         e->node[i] = node;
      }
      e->last = t;
   }
}

/* Bytes [a, end) of granule e become unknown; an empty granule is freed. */
static void wet_clear(Granule* e, Addr a, Addr end)
{
   Addr base = (Addr)((e->tag - 1) << 3);
   UInt lo = base < a ? (UInt)(a - base) : 0;
   UInt hi = base + 8 > end ? (UInt)(end - base) : 8;
   UInt i, live = 0;
   for (i = lo; i < hi; i++) {
      if (e->t[i]) wet_forgotten++;
      e->t[i] = 0;
   }
   for (i = 0; i < 8; i++) live |= e->t[i];
   if (!live) e->tag = 0;
}

/* Memory changed behind the program's back: forget its last stores.  Costs
   at most one look-up per granule of the range or one pass over the table,
   whichever is smaller (mmap and munmap ranges can be gigabytes). */
static void wet_forget(Addr a, SizeT len)
{
   Addr end = a + len;
   ULong first, last, g, i;
   if (!wet_table || len == 0) return;
   if (end < a) end = ~(Addr)0;
   first = a >> 3;
   last = (end - 1) >> 3;
   if (last - first < wet_sets * WET_WAYS) {
      for (g = first; g <= last; g++) {
         Granule* e = wet_find(g);
         if (e) wet_clear(e, a, end);
      }
   } else {
      for (i = 0; i < wet_sets * WET_WAYS; i++) {
         Granule* e = &wet_table[i];
         if (e->tag && e->tag - 1 >= first && e->tag - 1 <= last) wet_clear(e, a, end);
      }
   }
}

static void wet_post_mem_write(CorePart part, ThreadId tid, Addr a, SizeT len)
{
   wet_forget(a, len);
}
static void wet_new_mem_mmap(Addr a, SizeT len, Bool rr, Bool ww, Bool xx, ULong di)
{
   wet_forget(a, len);
}
static void wet_new_mem_brk(Addr a, SizeT len, ThreadId tid) { wet_forget(a, len); }
static void wet_die_mem(Addr a, SizeT len) { wet_forget(a, len); }
static void wet_copy_mem_remap(Addr from, Addr to, SizeT len)
{
   wet_forget(from, len);
   wet_forget(to, len);
}

/* The first min(size, 8) bytes at a, zero-extended (little-endian). */
static inline ULong wet_read(Addr a, UWord size)
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

/* One WTE1 record; its timestamp is its 1-based position in the file. */
static inline void wet_event(UInt node, UInt t, Addr a, ULong value)
{
   UChar* p = outs[K_WTE].buf + outs[K_WTE].used;
   put_le32(p, node);
   put_le32(p + 4, t);
   put_le64(p + 8, a);
   put_le64(p + 16, value);
   out_commit(K_WTE, 24);
}

static void h_wet_load(UWord node, Addr a, UWord size, ULong value)
{
   UInt t = (UInt)(outs[K_WTE].n + 1);
   Granule* e;
   if (!active[K_WTE]) return;
   wet_loads++;
   e = wet_find(a >> 3);
   if (e && e->t[a & 7]) {
      UChar* p = outs[K_WTD].buf + outs[K_WTD].used;
      put_le32(p, (UInt)node);
      put_le32(p + 4, e->node[a & 7]);
      put_le32(p + 8, t);
      put_le32(p + 12, e->t[a & 7]);
      out_commit(K_WTD, 16);
   } else {
      wet_no_def++;
   }
   wet_event((UInt)node, t, a, value);
}

/* Loads whose value is not at hand in the IR (guarded loads, dirty helpers)
   read it from memory. */
static void h_wet_load_mem(UWord node, Addr a, UWord size)
{
   if (!active[K_WTE]) return;
   h_wet_load(node, a, size, wet_read(a, size));
}

/* Called after the store: the value is read back from memory. */
static void h_wet_store(UWord node, Addr a, UWord size)
{
   UInt t = (UInt)(outs[K_WTE].n + 1);
   if (!active[K_WTE]) return;
   wet_stores++;
   wet_record_store(a, size, t, (UInt)node);
   wet_event((UInt)node, t, a, wet_read(a, size));
}

/* ------------------------------------------------------------------ */
/* Register ids for ChampSim (amd64 guest-state offsets -> small ids)   */
/* Numbering follows Pin's intel64 REG enum where ChampSim relies on it */
/* (6 = stack pointer, 25 = flags, 26 = instruction pointer).           */
/* ------------------------------------------------------------------ */

#define REG_SP 6
#define REG_FLAGS 25
#define REG_IP 26

static UChar regmap[sizeof(VexGuestAMD64State)];

#define MAPR(field, id) \
   do { UInt o_ = offsetof(VexGuestAMD64State, field), s_; \
        for (s_ = 0; s_ < sizeof(((VexGuestAMD64State*)0)->field); s_++) \
           regmap[o_ + s_] = (id); } while (0)

static void init_regmap(void)
{
   VG_(memset)(regmap, 0, sizeof regmap);
   MAPR(guest_RDI, 3);  MAPR(guest_RSI, 4);  MAPR(guest_RBP, 5);
   MAPR(guest_RSP, REG_SP); MAPR(guest_RBX, 7); MAPR(guest_RDX, 8);
   MAPR(guest_RCX, 9);  MAPR(guest_RAX, 10);
   MAPR(guest_R8, 11);  MAPR(guest_R9, 12);  MAPR(guest_R10, 13);
   MAPR(guest_R11, 14); MAPR(guest_R12, 15); MAPR(guest_R13, 16);
   MAPR(guest_R14, 17); MAPR(guest_R15, 18);
   MAPR(guest_FS_CONST, 19); MAPR(guest_GS_CONST, 20);
   MAPR(guest_CC_OP, REG_FLAGS); MAPR(guest_CC_DEP1, REG_FLAGS);
   MAPR(guest_CC_DEP2, REG_FLAGS); MAPR(guest_CC_NDEP, REG_FLAGS);
   MAPR(guest_DFLAG, REG_FLAGS); MAPR(guest_IDFLAG, REG_FLAGS);
   MAPR(guest_ACFLAG, REG_FLAGS);
   MAPR(guest_RIP, REG_IP);
   MAPR(guest_YMM0, 32);  MAPR(guest_YMM1, 33);  MAPR(guest_YMM2, 34);
   MAPR(guest_YMM3, 35);  MAPR(guest_YMM4, 36);  MAPR(guest_YMM5, 37);
   MAPR(guest_YMM6, 38);  MAPR(guest_YMM7, 39);  MAPR(guest_YMM8, 40);
   MAPR(guest_YMM9, 41);  MAPR(guest_YMM10, 42); MAPR(guest_YMM11, 43);
   MAPR(guest_YMM12, 44); MAPR(guest_YMM13, 45); MAPR(guest_YMM14, 46);
   MAPR(guest_YMM15, 47);
   MAPR(guest_SSEROUND, 48);
   MAPR(guest_FTOP, 49); MAPR(guest_FPREG, 49); MAPR(guest_FPTAG, 49);
   MAPR(guest_FPROUND, 49); MAPR(guest_FC3210, 49);
}

static UChar reg_of(Int offset)
{
   if (offset < 0 || offset >= (Int)sizeof regmap) return 0;
   return regmap[offset];
}

static void add_reg(UChar* arr, Int n, UChar r)
{
   Int i;
   if (r == 0) return;
   for (i = 0; i < n; i++) {
      if (arr[i] == r) return;
      if (arr[i] == 0) { arr[i] = r; return; }
   }
}

/* ------------------------------------------------------------------ */
/* Determinism: glibc reads 16 random bytes from the AT_RANDOM auxv     */
/* entry (stack canary, pointer guard), which would show up in load     */
/* values.  Overwrite them with a fixed pattern before the client runs. */
/* ------------------------------------------------------------------ */

static Bool fixed_at_random = False;
static Bool clo_verbose = False;

static void fix_at_random(void)
{
   /* At the first translation the client has not run yet and thread 1's
      stack pointer is at argc: argc, argv[], NULL, envp[], NULL, auxv. */
   UWord* sp = (UWord*)VG_(get_SP)(1);
   UWord* av;
   fixed_at_random = True;
   if (!sp) return;
   av = sp + 1 + sp[0] + 1;          /* envp */
   while (*av) av++;
   av++;                              /* auxv */
   for (; av[0] != 0 /* AT_NULL */; av += 2) {
      if (av[0] == 25 /* AT_RANDOM */ && av[1]) {
         UChar* r = (UChar*)av[1];
         Int i;
         for (i = 0; i < 16; i++) r[i] = (UChar)(0x5a + 17 * i);
         if (clo_verbose) VG_(umsg)("tcgen-tracer: AT_RANDOM at %p fixed\n", r);
      }
   }
}

/* Determinism: getrandom(2) (glibc's malloc tcache key, hash seeds) and
   read(2) from an fd opened on /dev/urandom or /dev/random get bytes from a
   fixed xorshift generator instead of the kernel's.  --fake-getrandom=no
   turns this off. */
static Bool clo_fake_getrandom = True;
static ULong fake_rng = 0x9e3779b97f4a7c15ULL;

static void tr_pre_syscall(ThreadId tid, UInt sysno, UWord* args, UInt nArgs)
{
}

/* Determinism: the clock.  clock_gettime, gettimeofday and time return a
   fake clock that starts at 2023-11-14 22:13:20 UTC (1700000000 s) and
   advances by 1 ms per call; sysinfo reports fixed uptime/loads and half
   the RAM free.  --fake-time=no turns this off. */
static Bool clo_fake_time = True;
static ULong fake_ns = 1700000000ULL * 1000000000ULL;

static ULong next_fake_ns(void)
{
   fake_ns += 1000000;
   return fake_ns;
}

/* fds open on /dev/urandom or /dev/random: reads from them get the same
   fixed pseudo-random bytes as getrandom. */
static Bool rnd_fd[1024];

static void fake_random_bytes(UChar* buf, UWord n)
{
   UWord i;
   for (i = 0; i < n; i++) {
      fake_rng ^= fake_rng << 13; fake_rng ^= fake_rng >> 7;
      fake_rng ^= fake_rng << 17;
      buf[i] = (UChar)(fake_rng >> 24);
   }
}

static void tr_post_syscall(ThreadId tid, UInt sysno, UWord* args, UInt nArgs,
                            SysRes res)
{
   if (clo_fake_getrandom && !sr_isError(res)) {
      const HChar* path = NULL;
      if (sysno == 2 /* open */) path = (const HChar*)args[0];
      else if (sysno == 257 /* openat */) path = (const HChar*)args[1];
      if (path && sr_Res(res) < 1024
          && (VG_(strcmp)(path, "/dev/urandom") == 0
              || VG_(strcmp)(path, "/dev/random") == 0))
         rnd_fd[sr_Res(res)] = True;
      if (sysno == 3 /* close */ && args[0] < 1024) rnd_fd[args[0]] = False;
      if (sysno == 0 /* read */ && args[0] < 1024 && rnd_fd[args[0]])
         fake_random_bytes((UChar*)args[1], sr_Res(res));
   }
   if (clo_fake_time && !sr_isError(res)) {
      if (sysno == 228 /* clock_gettime */ && args[1]) {
         ULong t = next_fake_ns();
         ((Long*)args[1])[0] = (Long)(t / 1000000000ULL);
         ((Long*)args[1])[1] = (Long)(t % 1000000000ULL);
      } else if (sysno == 96 /* gettimeofday */ && args[0]) {
         ULong t = next_fake_ns();
         ((Long*)args[0])[0] = (Long)(t / 1000000000ULL);
         ((Long*)args[0])[1] = (Long)(t % 1000000000ULL / 1000);
      } else if (sysno == 99 /* sysinfo: free memory, uptime, load vary */
                 && args[0]) {
         UWord* si = (UWord*)args[0];
         si[0] = 1000;                   /* uptime */
         si[1] = si[2] = si[3] = 0;      /* loads */
         si[5] = si[4] / 2;              /* freeram = totalram / 2 */
         si[6] = si[7] = 0;              /* sharedram, bufferram */
         si[9] = si[8];                  /* freeswap = totalswap */
         *(UShort*)&si[10] = 1;          /* procs */
      } else if (sysno == 201 /* time */) {
         ULong t = next_fake_ns() / 1000000000ULL;
         if (args[0]) *(Long*)args[0] = (Long)t;
         VG_(set_shadow_regs_area)(tid, 0, offsetof(VexGuestAMD64State, guest_RAX),
                                   8, (const UChar*)&t);
      }
   }
   if (clo_fake_getrandom && sysno == 318 /* __NR_getrandom, amd64 */
       && !sr_isError(res)) {
      fake_random_bytes((UChar*)args[0], sr_Res(res));
   }
}

/* ------------------------------------------------------------------ */
/* Instrumentation                                                     */
/* ------------------------------------------------------------------ */

static IRExpr* guard_on(IRSB* sb, UInt* flag)
{
   IRTemp t = newIRTemp(sb->tyenv, Ity_I32);
   IRTemp g = newIRTemp(sb->tyenv, Ity_I1);
   addStmtToIRSB(sb, IRStmt_WrTmp(t, IRExpr_Load(Iend_LE, Ity_I32,
                    IRExpr_Const(IRConst_U64((ULong)(Addr)flag)))));
   addStmtToIRSB(sb, IRStmt_WrTmp(g, IRExpr_Binop(Iop_CmpNE32, IRExpr_RdTmp(t),
                    IRExpr_Const(IRConst_U32(0)))));
   return IRExpr_RdTmp(g);
}

static IRExpr* and_guard(IRSB* sb, IRExpr* a, IRExpr* b)
{
   IRTemp g = newIRTemp(sb->tyenv, Ity_I1);
   if (!b) return a;
   addStmtToIRSB(sb, IRStmt_WrTmp(g, IRExpr_Binop(Iop_And1, a, b)));
   return IRExpr_RdTmp(g);
}

static IRExpr* mk64(ULong v) { return IRExpr_Const(IRConst_U64(v)); }

static void add_call(IRSB* sb, const HChar* name, void* fn, IRExpr** args,
                     IRExpr* guard)
{
   IRDirty* di = unsafeIRDirty_0_N(0, name, VG_(fnptr_to_fnentry)(fn), args);
   di->guard = guard;
   addStmtToIRSB(sb, IRStmt_Dirty(di));
}

/* The loaded value widened to 64 bits (low 8 bytes of wider values). */
static IRExpr* value64(IRSB* sb, IRExpr* v, IRType ty)
{
   IROp op;
   IRTemp t;
   switch (ty) {
   case Ity_I64: return v;
   case Ity_I8:  op = Iop_8Uto64; break;
   case Ity_I16: op = Iop_16Uto64; break;
   case Ity_I32: op = Iop_32Uto64; break;
   case Ity_F64: op = Iop_ReinterpF64asI64; break;
   case Ity_V128: op = Iop_V128to64; break;
   case Ity_V256: op = Iop_V256to64_0; break;
   case Ity_I128: op = Iop_128to64; break;
   case Ity_F32: {
      IRTemp u = newIRTemp(sb->tyenv, Ity_I32);
      addStmtToIRSB(sb, IRStmt_WrTmp(u, IRExpr_Unop(Iop_ReinterpF32asI32, v)));
      v = IRExpr_RdTmp(u);
      op = Iop_32Uto64;
      break;
   }
   default: return mk64(0);   /* F128, D64, ...: not seen on amd64 loads */
   }
   t = newIRTemp(sb->tyenv, Ity_I64);
   addStmtToIRSB(sb, IRStmt_WrTmp(t, IRExpr_Unop(op, v)));
   return IRExpr_RdTmp(t);
}

static IRExpr* addr64(IRSB* sb, IRExpr* a)
{
   IRTemp t;
   if (typeOfIRExpr(sb->tyenv, a) == Ity_I64) return a;
   t = newIRTemp(sb->tyenv, Ity_I64);
   addStmtToIRSB(sb, IRStmt_WrTmp(t, IRExpr_Unop(Iop_32Uto64, a)));
   return IRExpr_RdTmp(t);
}

static Bool same_atom(const IRExpr* a, const IRExpr* b)
{
   if (a->tag != b->tag) return False;
   if (a->tag == Iex_RdTmp) return a->Iex.RdTmp.tmp == b->Iex.RdTmp.tmp;
   if (a->tag == Iex_Const)
      return a->Iex.Const.con->tag == Ico_U64 && b->Iex.Const.con->tag == Ico_U64
          && a->Iex.Const.con->Ico.U64 == b->Iex.Const.con->Ico.U64;
   return False;
}

/* Determinism: rdtsc (ld.so and libc time themselves with it) returns a
   counter that advances by 1000 per executed rdtsc instead of the CPU's
   time-stamp counter.  --fake-rdtsc=no keeps the real one. */
static Bool clo_fake_rdtsc = True;
static ULong fake_tsc = 1000000;
static ULong tr_fake_rdtsc(void)
{
   fake_tsc += 1000;
   return fake_tsc;
}

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
} CurInstr;

static void instr_load(IRSB* sb, CurInstr* ci, IRExpr* addr, Int size,
                       IRExpr* value, IRType ty, IRExpr* guard)
{
   IRExpr* v = outs[K_LDV].path ? value64(sb, value, ty) : mk64(0);
   IRExpr* g = and_guard(sb, guard_on(sb, &load_active), guard);
   add_call(sb, "h_load", h_load,
            mkIRExprVec_4(mk64(ci->pc), addr64(sb, addr), mk64((ULong)size), v), g);
   ci->last_load_addr = addr;
   ci->last_load_size = size;
   ci->last_was_load = True;
}

static void instr_store(IRSB* sb, CurInstr* ci, IRExpr* addr, Int size,
                        IRExpr* guard)
{
   Bool modify = ci->last_was_load && !guard && size == ci->last_load_size
                 && same_atom(addr, ci->last_load_addr);
   IRExpr* g = and_guard(sb, guard_on(sb, &store_active), guard);
   add_call(sb, "h_store", h_store,
            mkIRExprVec_4(mk64(ci->pc), addr64(sb, addr), mk64((ULong)size),
                          mk64(modify ? 1 : 0)), g);
   ci->last_was_load = False;
}

/* ChampSim records and branch records need a call per instruction, and so
   does counting the instructions of a pending skip (code translated after
   it ends needs none for the other kinds). */
static Bool want_instr_calls(void)
{
   return outs[K_CHS].path != NULL || outs[K_BRA].path != NULL || skipping;
}

/* WET calls go after the access, so that a faulting access gets no event
   and a store's value can be read back (a modify's load goes before it).
   value = NULL: the helper reads the loaded value from memory. */
static UInt wet_size(Long size) { return size > 0xFFFF ? 0xFFFF : (UInt)size; }

static void wet_load(IRSB* sb, CurInstr* ci, IRExpr* addr, Long size,
                     IRExpr* value, IRType ty, IRExpr* guard)
{
   UInt node;
   IRExpr* g;
   if (!ci->wet || size <= 0) return;
   node = wet_node(ci->pc, ci->wet_slot++, 'L', wet_size(size));
   g = and_guard(sb, guard_on(sb, &active[K_WTE]), guard);
   if (value)
      add_call(sb, "h_wet_load", h_wet_load,
               mkIRExprVec_4(mk64(node), addr64(sb, addr), mk64(wet_size(size)),
                             value64(sb, value, ty)), g);
   else
      add_call(sb, "h_wet_load_mem", h_wet_load_mem,
               mkIRExprVec_3(mk64(node), addr64(sb, addr), mk64(wet_size(size))), g);
}

static void wet_store(IRSB* sb, CurInstr* ci, IRExpr* addr, Long size, IRExpr* guard)
{
   UInt node;
   if (!ci->wet || size <= 0) return;
   node = wet_node(ci->pc, ci->wet_slot++, 'S', wet_size(size));
   add_call(sb, "h_wet_store", h_wet_store,
            mkIRExprVec_3(mk64(node), addr64(sb, addr), mk64(wet_size(size))),
            and_guard(sb, guard_on(sb, &active[K_WTE]), guard));
}

/* Static ChampSim info of the instruction whose IMark is at index i:
   registers from Get/Put in its statement range, branch-ness from exits in
   that range and from the block end / next IMark. */
static InstrDesc* make_desc(IRSB* sb_in, Int i)
{
   InstrDesc* d = VG_(malloc)("tcgen-tracer.desc", sizeof(InstrDesc));
   IRStmt* st = sb_in->stmts[i];
   Addr ip = (Addr)st->Ist.IMark.addr;
   UInt len = st->Ist.IMark.len;
   Int j;
   Bool is_branch = False, cond = False, last = True;
   VG_(memset)(d, 0, sizeof *d);
   d->ip = ip;
   d->len = len;
   for (j = i + 1; j < sb_in->stmts_used; j++) {
      IRStmt* s = sb_in->stmts[j];
      if (!s) continue;
      if (s->tag == Ist_IMark) {
         last = False;
         if ((Addr)s->Ist.IMark.addr != ip + len) {   /* chased */
            is_branch = True;
            if (!d->target) d->target = (Addr)s->Ist.IMark.addr;
         }
         break;
      }
      switch (s->tag) {
      case Ist_Put: {
         UChar r = reg_of(s->Ist.Put.offset);
         if (r != REG_IP) add_reg(d->dst, 2, r);
         break;
      }
      case Ist_PutI:
         add_reg(d->dst, 2, reg_of(s->Ist.PutI.details->descr->base));
         break;
      case Ist_WrTmp: {
         IRExpr* e = s->Ist.WrTmp.data;
         if (e->tag == Iex_Get) {
            UChar r = reg_of(e->Iex.Get.offset);
            if (r != REG_IP) add_reg(d->src, 4, r);
         } else if (e->tag == Iex_GetI) {
            add_reg(d->src, 4, reg_of(e->Iex.GetI.descr->base));
         }
         break;
      }
      case Ist_Exit: {
         IRJumpKind jk = s->Ist.Exit.jk;
         if ((jk == Ijk_Boring || jk == Ijk_Call || jk == Ijk_Ret)
             && s->Ist.Exit.dst->tag == Ico_U64) {
            Addr t = (Addr)s->Ist.Exit.dst->Ico.U64;
            if (t != ip && t != ip + len) {
               is_branch = True;
               cond = True;
               d->target = t;
            }
         }
         break;
      }
      default: break;
      }
   }
   if (last) {
      IRJumpKind jk = sb_in->jumpkind;
      if (jk == Ijk_Call || jk == Ijk_Ret) is_branch = True;
      else if (jk == Ijk_Boring) {
         IRExpr* nx = sb_in->next;
         if (nx->tag != Iex_Const
             || (nx->Iex.Const.con->tag == Ico_U64
                 && (Addr)nx->Iex.Const.con->Ico.U64 != ip + len
                 && (Addr)nx->Iex.Const.con->Ico.U64 != ip))
            is_branch = True;
      }
      if (sb_in->next->tag == Iex_Const && sb_in->next->Iex.Const.con->tag == Ico_U64
          && !d->target)
         d->target = (Addr)sb_in->next->Iex.Const.con->Ico.U64;
   }
   if (is_branch) {
      d->is_branch = 1;
      add_reg(d->dst, 2, REG_IP);
      if (cond) { add_reg(d->src, 4, REG_IP); add_reg(d->src, 4, REG_FLAGS); }
   }
   return d;
}

static IRSB* tr_instrument(VgCallbackClosure* closure, IRSB* sb_in,
                           const VexGuestLayout* layout,
                           const VexGuestExtents* vge,
                           const VexArchInfo* archinfo_host,
                           IRType gWordTy, IRType hWordTy)
{
   IRSB* sb;
   Int i;
   CurInstr ci;
   Bool chs = want_instr_calls();

   if (!fixed_at_random) fix_at_random();
   if (gWordTy != hWordTy) VG_(tool_panic)("host/guest word size mismatch");

   sb = deepCopyIRSBExceptStmts(sb_in);
   i = 0;
   while (i < sb_in->stmts_used && sb_in->stmts[i]->tag != Ist_IMark) {
      addStmtToIRSB(sb, sb_in->stmts[i]);
      i++;
   }
   VG_(memset)(&ci, 0, sizeof ci);
   ci.wet = outs[K_WTE].path != NULL && active[K_WTE];

   for (; i < sb_in->stmts_used; i++) {
      IRStmt* st = sb_in->stmts[i];
      if (!st || st->tag == Ist_NoOp) continue;
      switch (st->tag) {
      case Ist_IMark:
         ci.pc = (Addr)st->Ist.IMark.addr;
         ci.len = st->Ist.IMark.len;
         ci.last_was_load = False;
         ci.wet_slot = 0;
         addStmtToIRSB(sb, st);
         if (chs) {
            ci.desc = make_desc(sb_in, i);
            add_call(sb, "h_instr", h_instr,
                     mkIRExprVec_1(mk64((ULong)(Addr)ci.desc)),
                     guard_on(sb, &instr_active));
         }
         break;

      case Ist_WrTmp: {
         IRExpr* e = st->Ist.WrTmp.data;
         addStmtToIRSB(sb, st);
         if (e->tag == Iex_Load) {
            IRType ty = e->Iex.Load.ty;
            instr_load(sb, &ci, e->Iex.Load.addr, sizeofIRType(ty),
                       IRExpr_RdTmp(st->Ist.WrTmp.tmp), ty, NULL);
            wet_load(sb, &ci, e->Iex.Load.addr, sizeofIRType(ty),
                     IRExpr_RdTmp(st->Ist.WrTmp.tmp), ty, NULL);
         }
         break;
      }

      case Ist_Store: {
         IRExpr* data = st->Ist.Store.data;
         IRType ty = typeOfIRExpr(sb->tyenv, data);
         instr_store(sb, &ci, st->Ist.Store.addr, sizeofIRType(ty), NULL);
         addStmtToIRSB(sb, st);
         wet_store(sb, &ci, st->Ist.Store.addr, sizeofIRType(ty), NULL);
         break;
      }

      case Ist_StoreG: {
         IRStoreG* sg = st->Ist.StoreG.details;
         IRType ty = typeOfIRExpr(sb->tyenv, sg->data);
         instr_store(sb, &ci, sg->addr, sizeofIRType(ty), sg->guard);
         addStmtToIRSB(sb, st);
         wet_store(sb, &ci, sg->addr, sizeofIRType(ty), sg->guard);
         break;
      }

      case Ist_LoadG: {
         IRLoadG* lg = st->Ist.LoadG.details;
         IRType ty = Ity_INVALID, ty_wide = Ity_INVALID;
         typeOfIRLoadGOp(lg->cvt, &ty_wide, &ty);
         addStmtToIRSB(sb, st);
         instr_load(sb, &ci, lg->addr, sizeofIRType(ty),
                    IRExpr_RdTmp(lg->dst), ty_wide, lg->guard);
         /* dst holds the converted (maybe sign-extended) value */
         wet_load(sb, &ci, lg->addr, sizeofIRType(ty), NULL, Ity_INVALID, lg->guard);
         break;
      }

      case Ist_CAS: {
         IRCAS* cas = st->Ist.CAS.details;
         IRType ty = typeOfIRExpr(sb->tyenv, cas->dataLo);
         Int size = sizeofIRType(ty) * (cas->dataHi ? 2 : 1);
         addStmtToIRSB(sb, st);
         /* the old value (oldLo) is what was loaded */
         instr_load(sb, &ci, cas->addr, size, IRExpr_RdTmp(cas->oldLo), ty, NULL);
         instr_store(sb, &ci, cas->addr, size, NULL);
         if (ci.wet) {
            /* cmpxchg8b: the old value's low 8 bytes are oldHi:oldLo */
            IRExpr* old = IRExpr_RdTmp(cas->oldLo);
            IRType old_ty = ty;
            if (cas->oldHi != IRTemp_INVALID && ty == Ity_I32) {
               IRTemp t = newIRTemp(sb->tyenv, Ity_I64);
               addStmtToIRSB(sb, IRStmt_WrTmp(t, IRExpr_Binop(Iop_32HLto64,
                                IRExpr_RdTmp(cas->oldHi), old)));
               old = IRExpr_RdTmp(t);
               old_ty = Ity_I64;
            }
            /* x86 CAS always writes (the old value back when it fails) */
            wet_load(sb, &ci, cas->addr, size, old, old_ty, NULL);
            wet_store(sb, &ci, cas->addr, size, NULL);
         }
         break;
      }

      case Ist_LLSC: {
         IRType ty = typeOfIRTemp(sb->tyenv, st->Ist.LLSC.result);
         addStmtToIRSB(sb, st);
         if (st->Ist.LLSC.storedata == NULL) {
            instr_load(sb, &ci, st->Ist.LLSC.addr, sizeofIRType(ty),
                       IRExpr_RdTmp(st->Ist.LLSC.result), ty, NULL);
            wet_load(sb, &ci, st->Ist.LLSC.addr, sizeofIRType(ty),
                     IRExpr_RdTmp(st->Ist.LLSC.result), ty, NULL);
         } else {
            Int size = sizeofIRType(typeOfIRExpr(sb->tyenv, st->Ist.LLSC.storedata));
            instr_store(sb, &ci, st->Ist.LLSC.addr, size, NULL);
            wet_store(sb, &ci, st->Ist.LLSC.addr, size, NULL);
         }
         break;
      }

      case Ist_Dirty: {
         IRDirty* d = st->Ist.Dirty.details;
         if (clo_fake_rdtsc && d->cee
             && VG_(strcmp)(d->cee->name, "amd64g_dirtyhelper_RDTSC") == 0) {
            IRDirty* nd = emptyIRDirty();
            *nd = *d;
            nd->cee = mkIRCallee(0, "tr_fake_rdtsc",
                                 VG_(fnptr_to_fnentry)(tr_fake_rdtsc));
            st = IRStmt_Dirty(nd);
            d = nd;
         }
         if (d->mFx != Ifx_None) {
            Int size = d->mSize > 512 ? 512 : d->mSize;
            if (d->mFx == Ifx_Read || d->mFx == Ifx_Modify) {
               /* WET: a modify's load sees the memory before the call */
               if (d->mFx == Ifx_Modify)
                  wet_load(sb, &ci, d->mAddr, d->mSize, NULL, Ity_INVALID, d->guard);
               addStmtToIRSB(sb, st);
               if (d->mFx == Ifx_Read)
                  wet_load(sb, &ci, d->mAddr, d->mSize, NULL, Ity_INVALID, d->guard);
               /* value read back after the call: correct for reads */
               add_call(sb, "h_load_mem", h_load_mem,
                        mkIRExprVec_3(mk64(ci.pc), addr64(sb, d->mAddr),
                                      mk64((ULong)size)),
                        guard_on(sb, &load_active));
               if (d->mFx == Ifx_Modify) {
                  add_call(sb, "h_store", h_store,
                           mkIRExprVec_4(mk64(ci.pc), addr64(sb, d->mAddr),
                                         mk64((ULong)size), mk64(1)),
                           guard_on(sb, &store_active));
                  wet_store(sb, &ci, d->mAddr, d->mSize, d->guard);
               }
            } else {
               add_call(sb, "h_store", h_store,
                        mkIRExprVec_4(mk64(ci.pc), addr64(sb, d->mAddr),
                                      mk64((ULong)size), mk64(0)),
                        guard_on(sb, &store_active));
               addStmtToIRSB(sb, st);
               wet_store(sb, &ci, d->mAddr, d->mSize, d->guard);
            }
            ci.last_was_load = False;
         } else {
            addStmtToIRSB(sb, st);
         }
         break;
      }

      default:
         addStmtToIRSB(sb, st);
         break;
      }
   }
   return sb;
}

/* ------------------------------------------------------------------ */
/* Options, init, fini                                                 */
/* ------------------------------------------------------------------ */

static const HChar* clo_wet_prefix = NULL;

static Bool tr_process_cmd_line_option(const HChar* arg)
{
   if VG_STR_CLO(arg, "--stores", outs[K_STA].path) {}
   else if VG_STR_CLO(arg, "--misses", outs[K_CMA].path) {}
   else if VG_STR_CLO(arg, "--loads", outs[K_LDV].path) {}
   else if VG_STR_CLO(arg, "--champsim", outs[K_CHS].path) {}
   else if VG_BINT_CLO(arg, "--stores-max", outs[K_STA].max, 0, 1LL << 40) {}
   else if VG_BINT_CLO(arg, "--misses-max", outs[K_CMA].max, 0, 1LL << 40) {}
   else if VG_BINT_CLO(arg, "--loads-max", outs[K_LDV].max, 0, 1LL << 40) {}
   else if VG_BINT_CLO(arg, "--champsim-max", outs[K_CHS].max, 0, 1LL << 40) {}
   else if VG_BINT_CLO(arg, "--champsim-skip", clo_champsim_skip, 0, 1LL << 50) {}
   else if VG_STR_CLO(arg, "--branches", outs[K_BRA].path) {}
   else if VG_BINT_CLO(arg, "--branches-max", outs[K_BRA].max, 0, 1LL << 40) {}
   else if VG_BINT_CLO(arg, "--branches-skip", clo_branches_skip, 0, 1LL << 50) {}
   else if VG_BINT_CLO(arg, "--skip", clo_skip, 0, 1LL << 50) {}
   else if VG_STR_CLO(arg, "--wet", clo_wet_prefix) {}
   else if VG_BINT_CLO(arg, "--wet-max", outs[K_WTE].max, 0, WET_MAX_EVENTS) {}
   else if VG_BINT_CLO(arg, "--wet-track-mb", clo_wet_track_mb, 1, 4096) {}
   else if VG_BOOL_CLO(arg, "--exit-when-full", clo_exit_when_full) {}
   else if VG_BOOL_CLO(arg, "--fake-rdtsc", clo_fake_rdtsc) {}
   else if VG_BOOL_CLO(arg, "--fake-getrandom", clo_fake_getrandom) {}
   else if VG_BOOL_CLO(arg, "--fake-time", clo_fake_time) {}
   else if VG_BOOL_CLO(arg, "--tracer-verbose", clo_verbose) {}
   else return False;
   return True;
}

static void tr_print_usage(void)
{
   VG_(printf)(
"    --stores=FILE          store-address trace (STA1: u32 pc, u64 address)\n"
"    --misses=FILE          cache-miss-address trace (CMA1; 16 KiB direct-mapped,\n"
"                           64-byte lines, write-allocate)\n"
"    --loads=FILE           load-value trace (LDV1: u32 pc, u64 value)\n"
"    --champsim=FILE        ChampSim input_instr trace (64-byte records)\n"
"    --branches=FILE        branch trace (BRA1: u64 pc, u64 target, u8 taken)\n"
"    --wet=PREFIX           WET streams of the memory instructions: PREFIX.nodes\n"
"                           (WTN1), PREFIX.events (WTE1), PREFIX.edges (WTD1);\n"
"                           see docs/wet-streams.md\n"
"    --KIND-max=N           stop that trace after N records [0 = no cap];\n"
"                           --wet-max=N caps the WET events (at most 2^32-1)\n"
"    --skip=N               write no record of any kind before N instructions\n"
"                           have run; the cache model warms meanwhile [0]\n"
"    --champsim-skip=N      start the ChampSim trace after N instructions\n"
"                           (at least --skip) [0]\n"
"    --branches-skip=N      start the branch trace after N instructions\n"
"                           (at least --skip) [0]\n"
"    --wet-track-mb=N       MiB of memory whose last stores the WET keeps\n"
"                           (10 bytes of tool memory per byte) [8]\n"
"    --exit-when-full=no|yes end the program when every trace is full [yes]\n"
"    --fake-rdtsc=no|yes    rdtsc returns a deterministic counter [yes]\n"
"    --fake-getrandom=no|yes getrandom(2) returns fixed pseudo-random bytes [yes]\n"
"    --fake-time=no|yes     clock_gettime/gettimeofday/time: fake clock [yes]\n"
"    --tracer-verbose=no|yes report the determinism fixes applied [no]\n"
"    FILE and PREFIX paths should be absolute.\n");
}

static void tr_print_debug_usage(void) { VG_(printf)("    (none)\n"); }

static HChar* path_with_suffix(const HChar* prefix, const HChar* suffix)
{
   HChar* p = VG_(malloc)("tcgen-tracer.path", VG_(strlen)(prefix) + VG_(strlen)(suffix) + 1);
   VG_(strcpy)(p, prefix);
   VG_(strcat)(p, suffix);
   return p;
}

static void tr_post_clo_init(void)
{
   Int k, any = 0;
   /* WET node records are written as code is translated, start-up or not,
      and its timestamps count from the first access: no skip there. */
   if (clo_skip && clo_wet_prefix) {
      VG_(fmsg)("tcgen-tracer: --skip cannot be combined with --wet\n");
      VG_(exit)(1);
   }
   if (clo_champsim_skip < clo_skip) clo_champsim_skip = clo_skip;
   if (clo_branches_skip < clo_skip) clo_branches_skip = clo_skip;
   count_until = (ULong)(clo_champsim_skip > clo_branches_skip
                         ? clo_champsim_skip : clo_branches_skip) + 1;
   skipping = clo_skip > 0;
   if (clo_wet_prefix) {
      outs[K_WTN].path = path_with_suffix(clo_wet_prefix, ".nodes");
      outs[K_WTE].path = path_with_suffix(clo_wet_prefix, ".events");
      outs[K_WTD].path = path_with_suffix(clo_wet_prefix, ".edges");
      if (!outs[K_WTE].max) outs[K_WTE].max = WET_MAX_EVENTS;
      wet_table_init();
      VG_(track_post_mem_write)(wet_post_mem_write);
      VG_(track_new_mem_mmap)(wet_new_mem_mmap);
      VG_(track_new_mem_brk)(wet_new_mem_brk);
      VG_(track_die_mem_munmap)(wet_die_mem);
      VG_(track_die_mem_brk)(wet_die_mem);
      VG_(track_copy_mem_remap)(wet_copy_mem_remap);
   }
   for (k = 0; k < N_KINDS; k++) {
      Out* o = &outs[k];
      SysRes r;
      if (!o->path) continue;
      r = VG_(open)(o->path, VKI_O_CREAT | VKI_O_TRUNC | VKI_O_WRONLY, 0644);
      if (sr_isError(r)) {
         VG_(fmsg)("tcgen-tracer: cannot open '%s' for writing\n", o->path);
         VG_(exit)(2);
      }
      o->fd = (Int)sr_Res(r);
      o->buf = VG_(malloc)("tcgen-tracer.buf", OUT_BUF_BYTES);
      o->used = 0;
      if (o->header) {
         VG_(memcpy)(o->buf, o->header, 4);
         o->used = 4;
      }
      active[k] = 1;
      any = 1;
   }
   if (!any)
      VG_(umsg)("tcgen-tracer: no output requested (--stores=, --misses=, "
                "--loads=, --champsim=, --branches=, --wet=)\n");
   recompute_active();
   init_regmap();
   VG_(memset)(cache_tag, 0, sizeof cache_tag);
}

static Bool finished = False;

static void finish_all(void)
{
   Int k;
   if (finished) return;
   finished = True;
   if (pend_valid && active[K_CHS]) champsim_write_pending(0);
   /* A branch still pending at exit has no outcome: it is left out. */
   for (k = 0; k < N_KINDS; k++) {
      Out* o = &outs[k];
      if (o->fd < 0) continue;
      out_flush(o);
      VG_(close)(o->fd);
      o->fd = -1;
      active[k] = 0;
   }
   recompute_active();
   if (skipping)
      VG_(umsg)("tcgen-tracer: warning: the program ended after %llu instructions, "
                "within --skip=%lld: nothing was recorded\n", instrs_seen, clo_skip);
   for (k = 0; k < N_KINDS; k++)
      if (outs[k].path)
         VG_(umsg)("tcgen-tracer: %s: %lld records -> %s\n", outs[k].name,
                   outs[k].n, outs[k].path);
   if (clo_wet_prefix)
      VG_(umsg)("tcgen-tracer: wet: %llu loads (%llu without a known last store), "
                "%llu stores; last-store table %llu MiB for %lld MiB, "
                "%llu granules evicted, %llu bytes forgotten\n",
                wet_loads, wet_no_def, wet_stores,
                wet_sets * WET_WAYS * (ULong)sizeof(Granule) >> 20, clo_wet_track_mb,
                wet_evicted, wet_forgotten);
}

static void tr_fini(Int exitcode)
{
   finish_all();
}

static void tr_pre_clo_init(void)
{
   VG_(details_name)("tcgen-tracer");
   VG_(details_version)("1");
   VG_(details_description)("binary memory/value/branch/ChampSim traces for tcgen");
   VG_(details_copyright_author)("tcgen project");
   VG_(details_bug_reports_to)("the tcgen project");
   VG_(details_avg_translation_sizeB)(400);

   VG_(basic_tool_funcs)(tr_post_clo_init, tr_instrument, tr_fini);
   VG_(needs_command_line_options)(tr_process_cmd_line_option,
                                   tr_print_usage, tr_print_debug_usage);
   VG_(needs_syscall_wrapper)(tr_pre_syscall, tr_post_syscall);
}

VG_DETERMINE_INTERFACE_VERSION(tr_pre_clo_init)
