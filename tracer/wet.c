/* Whole Execution Trace streams (--wet=PREFIX), restricted to memory
   instructions; the format is in docs/wet-streams.md:

     PREFIX.nodes   WTN1 + per static access (u32 id, u8 kind 'L'/'S',
                    u8 slot, u16 size, u64 pc), written at translation
     PREFIX.events  WTE1 + per executed load/store (u32 node, u32
                    timestamp, u64 address, u64 value)
     PREFIX.edges   WTD1 + per load whose bytes' last store is known (u32
                    load node, u32 store node, u32 load timestamp, u32
                    store timestamp)

   --wet-max caps the events; --wet-track-mb bounds the last-store table. */

#include "tracer.h"

const HChar* clo_wet_prefix = NULL;
Long clo_wet_track_mb = 8;     /* MiB of client memory tracked */

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
   p = out_next(K_WTN);
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

/* One WTE1 record; its timestamp is its 1-based position in the file. */
static inline void wet_event(UInt node, UInt t, Addr a, ULong value)
{
   UChar* p = out_next(K_WTE);
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
      UChar* p = out_next(K_WTD);
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
   h_wet_load(node, a, size, memory_value(a, size));
}

/* Called after the store: the value is read back from memory. */
static void h_wet_store(UWord node, Addr a, UWord size)
{
   UInt t = (UInt)(outs[K_WTE].n + 1);
   if (!active[K_WTE]) return;
   wet_stores++;
   wet_record_store(a, size, t, (UInt)node);
   wet_event((UInt)node, t, a, memory_value(a, size));
}

/* WET calls go after the access, so that a faulting access gets no event
   and a store's value can be read back (a modify's load goes before it).
   value = NULL: the helper reads the loaded value from memory. */
static UInt wet_size(Long size) { return size > 0xFFFF ? 0xFFFF : (UInt)size; }

void wet_load(IRSB* sb, CurInstr* ci, IRExpr* addr, Long size,
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

void wet_store(IRSB* sb, CurInstr* ci, IRExpr* addr, Long size, IRExpr* guard)
{
   UInt node;
   if (!ci->wet || size <= 0) return;
   node = wet_node(ci->pc, ci->wet_slot++, 'S', wet_size(size));
   add_call(sb, "h_wet_store", h_wet_store,
            mkIRExprVec_3(mk64(node), addr64(sb, addr), mk64(wet_size(size))),
            and_guard(sb, guard_on(sb, &active[K_WTE]), guard));
}

static HChar* path_with_suffix(const HChar* prefix, const HChar* suffix)
{
   HChar* p = VG_(malloc)("tcgen-tracer.path", VG_(strlen)(prefix) + VG_(strlen)(suffix) + 1);
   VG_(strcpy)(p, prefix);
   VG_(strcat)(p, suffix);
   return p;
}

void wet_init(void)
{
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

void wet_report(void)
{
   VG_(umsg)("tcgen-tracer: wet: %llu loads (%llu without a known last store), "
             "%llu stores; last-store table %llu MiB for %lld MiB, "
             "%llu granules evicted, %llu bytes forgotten\n",
             wet_loads, wet_no_def, wet_stores,
             wet_sets * WET_WAYS * (ULong)sizeof(Granule) >> 20, clo_wet_track_mb,
             wet_evicted, wet_forgotten);
}
