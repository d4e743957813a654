/* Whole Execution Trace (--wet=PREFIX): the control flow and the memory
   instructions of the run, labelled with timestamps that count executed
   blocks (the WET paper's); the format is in docs/wet-streams.md:

     PREFIX.blocks  WTB1 + per static block (u32 id, u16 instructions,
                    u8 end 'C'/'R'/'J', u8 0, u32 bytes, u32 0, u64 pc),
                    written at translation
     PREFIX.flow    WTF1 + per executed block its u32 id: the block run at
                    timestamp t is record t - 1
     PREFIX.nodes   WTN2 + per static access (u32 id, u32 block, u8 kind
                    'L'/'S', u8 slot, u16 size, u32 0, u64 pc), written at
                    translation
     PREFIX.events  WTE2 + per executed load/store (u32 node, u32 block
                    timestamp, u64 address, u64 value)
     PREFIX.edges   WTD2 + per load whose bytes' last store is known (u32
                    load node, u32 store node, u32 load timestamp, u32
                    store timestamp)
     PREFIX.regs    WTR1 + per static block its register dataflow, a group
                    of 16-byte records (block header, its ops each with its
                    sources, its register writes), written at translation
                    by wet_flow.c
     PREFIX.syms    WTS1 + per instruction of each static block a text line:
                    pc, object, offset in it, function+N, file, line (below)

   --wet-max caps the events; --wet-track-mb bounds the last-store table. */

#include "tracer.h"
#include "pub_tool_options.h"
#include "pub_tool_debuginfo.h"

const HChar* clo_wet_prefix = NULL;
Long clo_wet_track_mb = 8;     /* MiB of client memory tracked */

/* The timestamp of the block executing now: the number of block starts so
   far.  Events and edges take it. */
static UInt wet_t;

static inline ULong wet_mix(ULong h) { return h * 0x9E3779B97F4A7C15ULL; }

/* Block table.  A block is a straight run of guest instructions of one
   superblock, instrumented as one piece (wet_block_at); its key is (pc,
   instructions, bytes, end, a hash of its code bytes), so that the
   translations of the same code share an id, and code replaced at the same
   address gets a new one.  Ids are dense, in order of first translation. */
typedef struct {
   ULong pc;
   ULong code;     /* hash of the code bytes */
   UInt id1;       /* id + 1; 0 = free slot */
   UInt bytes;
   UShort instrs;
   UChar end;      /* 'C', 'R' or 'J' */
} WetBlock;

static WetBlock* wet_blocks;
static UInt wet_blocks_cap, wet_blocks_used;

static inline UInt wet_block_hash(const WetBlock* b)
{
   return (UInt)(wet_mix(b->pc ^ wet_mix(b->code ^ ((ULong)b->bytes << 32)
                                         ^ ((ULong)b->instrs << 8) ^ b->end)) >> 32);
}

static void wet_blocks_grow(void)
{
   WetBlock* old = wet_blocks;
   UInt old_cap = wet_blocks_cap, i;
   wet_blocks_cap = old_cap ? 2 * old_cap : 1u << 14;
   wet_blocks = VG_(malloc)("tcgen-tracer.wet-blocks", wet_blocks_cap * sizeof(WetBlock));
   VG_(memset)(wet_blocks, 0, wet_blocks_cap * sizeof(WetBlock));
   for (i = 0; i < old_cap; i++) {
      UInt j;
      if (!old[i].id1) continue;
      j = wet_block_hash(&old[i]) & (wet_blocks_cap - 1);
      while (wet_blocks[j].id1) j = (j + 1) & (wet_blocks_cap - 1);
      wet_blocks[j] = old[i];
   }
   if (old) VG_(free)(old);
}

/* The block's id, made (and its WTB1 record written) on first sight, when
   *made is set. */
static UInt wet_block(const WetBlock* key, Bool* made)
{
   UInt j;
   WetBlock* b;
   UChar* p;
   if (2 * (wet_blocks_used + 1) > wet_blocks_cap) wet_blocks_grow();
   j = wet_block_hash(key) & (wet_blocks_cap - 1);
   for (;; j = (j + 1) & (wet_blocks_cap - 1)) {
      b = &wet_blocks[j];
      if (!b->id1) break;
      if (b->pc == key->pc && b->code == key->code && b->bytes == key->bytes
          && b->instrs == key->instrs && b->end == key->end) {
         *made = False;
         return b->id1 - 1;
      }
   }
   *made = True;
   *b = *key;
   b->id1 = ++wet_blocks_used;
   p = out_next(K_WTB);
   VG_(memset)(p, 0, 24);
   put_le32(p, b->id1 - 1);
   p[4] = (UChar)b->instrs;
   p[5] = (UChar)(b->instrs >> 8);
   p[6] = b->end;
   put_le32(p + 8, b->bytes);
   put_le64(p + 16, b->pc);
   out_commit(K_WTB, 24);
   return b->id1 - 1;
}

/* Does a block start at the IMark sb->stmts[i]?  Yes at the superblock's
   first instruction, after a conditional exit (an Ist_Exit of jump kind
   Ijk_Boring: a branch, or a rep prefix's loop test, leaves the superblock
   there when taken) and where the pc does not follow on (a jump valgrind
   chased, which wet_init turns off; kept for safety). */
static Bool wet_starts_block(IRSB* sb, Int i)
{
   const IRStmt* mark = sb->stmts[i];
   Int j;
   for (j = i - 1; j >= 0; j--) {
      const IRStmt* st = sb->stmts[j];
      if (!st) continue;
      if (st->tag == Ist_Exit && st->Ist.Exit.jk == Ijk_Boring) return True;
      if (st->tag == Ist_IMark)
         return st->Ist.IMark.addr + st->Ist.IMark.len != mark->Ist.IMark.addr;
   }
   return True;
}

static ULong wet_code_hash(Addr pc, UInt bytes)
{
   ULong h = 0xCBF29CE484222325ULL;   /* FNV-1a */
   UInt k;
   for (k = 0; k < bytes; k++) h = (h ^ ((const UChar*)pc)[k]) * 0x100000001B3ULL;
   return h;
}

/* PREFIX.syms: what the debug information says of each instruction of a
   new static block, a line each (docs/wet-streams.md):
     0xPC <tab> OBJECT <tab> 0xOFFSET <tab> FUNCTION+N <tab> FILE <tab> LINE
   OFFSET is the pc's address in OBJECT's file (what objdump shows), "-"
   stands for what is not known; a name is cut at SYMBOL_CHARS characters,
   a tab or newline in it becomes '?'. The strings valgrind returns live
   until its next lookup: each is copied at once. */
#define SYMBOL_CHARS 1024

static void wet_symbol_field(HChar* line, SizeT* used, const HChar* text, Bool ok, HChar end)
{
   SizeT n = 0;
   if (!ok || !text || !*text) text = "-";
   for (; text[n] && n < SYMBOL_CHARS; n++)
      line[(*used)++] = text[n] == '\t' || text[n] == '\n' ? '?' : text[n];
   line[(*used)++] = end;
}

static void wet_symbols(IRSB* sb, Int i, UInt instrs)
{
   static HChar line[5 * SYMBOL_CHARS + 64];
   const DiEpoch ep = VG_(current_DiEpoch)();
   Int j;
   UInt done = 0;
   for (j = i; j < sb->stmts_used && done < instrs; j++) {
      const IRStmt* st = sb->stmts[j];
      const HChar* text = NULL;
      const HChar* dir = NULL;
      const DebugInfo* di;
      UInt number = 0;
      SizeT used;
      Addr pc;
      Bool ok;
      if (!st || st->tag != Ist_IMark) continue;
      done++;
      pc = (Addr)st->Ist.IMark.addr;
      used = (SizeT)VG_(sprintf)(line, "0x%lx\t", pc);
      ok = VG_(get_objname)(ep, pc, &text);
      wet_symbol_field(line, &used, text, ok, '\t');
      di = VG_(find_DebugInfo)(ep, pc);
      used += (SizeT)VG_(sprintf)(line + used, "0x%lx\t",
                                  di ? pc - (Addr)VG_(DebugInfo_get_text_bias)(di) : pc);
      ok = VG_(get_fnname_w_offset)(ep, pc, &text);
      wet_symbol_field(line, &used, text, ok, '\t');
      ok = VG_(get_filename_linenum)(ep, pc, &text, &dir, &number);
      wet_symbol_field(line, &used, text, ok, '\t');
      used += (SizeT)VG_(sprintf)(line + used, ok ? "%u\n" : "-\n", number);
      line[used] = 0;
      out_text(K_WTS, line);
      out_count(K_WTS);
   }
}

Int wet_block_at(IRSB* sb, Int i, Bool* made)
{
   WetBlock key;
   Int j;
   if (!wet_starts_block(sb, i)) return -1;
   VG_(memset)(&key, 0, sizeof key);
   key.pc = sb->stmts[i]->Ist.IMark.addr;
   key.end = 0;
   for (j = i; j < sb->stmts_used; j++) {
      const IRStmt* st = sb->stmts[j];
      if (!st || st->tag != Ist_IMark) continue;
      if (j > i && wet_starts_block(sb, j)) {
         key.end = 'J';   /* a conditional exit (or a chased jump) ends it */
         break;
      }
      if (key.instrs < 0xFFFF) key.instrs++;
      key.bytes += st->Ist.IMark.len;
   }
   if (!key.end)
      key.end = sb->jumpkind == Ijk_Call ? 'C' : sb->jumpkind == Ijk_Ret ? 'R' : 'J';
   key.code = wet_code_hash((Addr)key.pc, key.bytes);
   j = (Int)wet_block(&key, made);
   if (*made && active[K_WTS]) wet_symbols(sb, i, key.instrs);
   return j;
}

/* Node table.  A node is one static memory access of one block: (block, pc,
   slot, kind, size), slot = the access's position among the traced accesses
   of its guest instruction in IR order, so that a read-modify-write
   instruction has a load node and a store node.  Ids are dense, in order of
   first translation (so within a block they increase in execution order);
   the record is written then, so a node may have no events. */
typedef struct {
   ULong pc;
   UInt id1;       /* id + 1; 0 = free slot */
   UInt block;
   UShort size;
   UChar kind;     /* 'L' or 'S' */
   UChar slot;
} WetNode;

static WetNode* wet_nodes;
static UInt wet_nodes_cap, wet_nodes_used;

static inline UInt wet_node_hash(ULong pc, UInt block, UInt slot, UInt kind, UInt size)
{
   return (UInt)(wet_mix(pc ^ wet_mix(((ULong)block << 32) ^ ((ULong)size << 16)
                                      ^ (slot << 8) ^ kind)) >> 32);
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
      j = wet_node_hash(n->pc, n->block, n->slot, n->kind, n->size) & (wet_nodes_cap - 1);
      while (wet_nodes[j].id1) j = (j + 1) & (wet_nodes_cap - 1);
      wet_nodes[j] = *n;
   }
   if (old) VG_(free)(old);
}

/* The node's id, made (and its WTN2 record written) on first sight. */
static UInt wet_node(UInt block, Addr pc, UInt slot, UChar kind, UInt size)
{
   UInt j;
   WetNode* n;
   UChar* p;
   if (slot > 255) slot = 255;
   if (2 * (wet_nodes_used + 1) > wet_nodes_cap) wet_nodes_grow();
   j = wet_node_hash(pc, block, slot, kind, size) & (wet_nodes_cap - 1);
   for (;; j = (j + 1) & (wet_nodes_cap - 1)) {
      n = &wet_nodes[j];
      if (!n->id1) break;
      if (n->pc == pc && n->block == block && n->slot == slot && n->kind == kind
          && n->size == size)
         return n->id1 - 1;
   }
   n->pc = pc;
   n->block = block;
   n->slot = (UChar)slot;
   n->kind = kind;
   n->size = (UShort)size;
   n->id1 = ++wet_nodes_used;
   p = out_next(K_WTN);
   VG_(memset)(p, 0, 24);
   put_le32(p, n->id1 - 1);
   put_le32(p + 4, block);
   p[8] = kind;
   p[9] = (UChar)slot;
   p[10] = (UChar)size;
   p[11] = (UChar)(size >> 8);
   put_le64(p + 16, pc);
   out_commit(K_WTN, 24);
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

/* A block starts: its execution is timestamp wet_t, and the flow says
   which block it is. */
static void h_wet_block(UWord block)
{
   UChar* p;
   if (!active[K_WTF]) return;
   if (wet_t == WET_MAX_BLOCKS) {
      VG_(umsg)("tcgen-tracer: wet: the 32-bit timestamp counter is exhausted "
                "after %u blocks; the WET trace ends here\n", wet_t);
      kind_full(K_WTF);
      return;
   }
   wet_t++;
   p = out_next(K_WTF);
   put_le32(p, (UInt)block);
   out_commit(K_WTF, 4);
}

static inline void wet_event(UInt node, Addr a, ULong value)
{
   UChar* p = out_next(K_WTE);
   put_le32(p, node);
   put_le32(p + 4, wet_t);
   put_le64(p + 8, a);
   put_le64(p + 16, value);
   out_commit(K_WTE, 24);
}

static void h_wet_load(UWord node, Addr a, UWord size, ULong value)
{
   Granule* e;
   if (!active[K_WTE]) return;
   wet_loads++;
   e = wet_find(a >> 3);
   if (e && e->t[a & 7]) {
      UChar* p = out_next(K_WTD);
      put_le32(p, (UInt)node);
      put_le32(p + 4, e->node[a & 7]);
      put_le32(p + 8, wet_t);
      put_le32(p + 12, e->t[a & 7]);
      out_commit(K_WTD, 16);
   } else {
      wet_no_def++;
   }
   wet_event((UInt)node, a, value);
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
   if (!active[K_WTE]) return;
   wet_stores++;
   wet_record_store(a, size, wet_t, (UInt)node);
   wet_event((UInt)node, a, memory_value(a, size));
}

/* Right after the block's first IMark, before any of its accesses. */
void wet_block_start(IRSB* sb, CurInstr* ci, UInt block)
{
   ci->wet_block = block;
   add_call(sb, "h_wet_block", h_wet_block, mkIRExprVec_1(mk64(block)),
            guard_on(sb, &active[K_WTF]));
}

/* WET calls go after the access, so that a faulting access gets no event
   and a store's value can be read back (a modify's load goes before it).
   value = NULL: the helper reads the loaded value from memory. */
static UInt wet_size(Long size) { return size > 0xFFFF ? 0xFFFF : (UInt)size; }

UInt wet_load(IRSB* sb, CurInstr* ci, IRExpr* addr, Long size,
              IRExpr* value, IRType ty, IRExpr* guard)
{
   UInt node;
   IRExpr* g;
   if (!ci->wet || size <= 0) return WET_NO_NODE;
   node = wet_node(ci->wet_block, ci->pc, ci->wet_slot++, 'L', wet_size(size));
   g = and_guard(sb, guard_on(sb, &active[K_WTE]), guard);
   if (value)
      add_call(sb, "h_wet_load", h_wet_load,
               mkIRExprVec_4(mk64(node), addr64(sb, addr), mk64(wet_size(size)),
                             value64(sb, value, ty)), g);
   else
      add_call(sb, "h_wet_load_mem", h_wet_load_mem,
               mkIRExprVec_3(mk64(node), addr64(sb, addr), mk64(wet_size(size))), g);
   return node;
}

UInt wet_store(IRSB* sb, CurInstr* ci, IRExpr* addr, Long size, IRExpr* guard)
{
   UInt node;
   if (!ci->wet || size <= 0) return WET_NO_NODE;
   node = wet_node(ci->wet_block, ci->pc, ci->wet_slot++, 'S', wet_size(size));
   add_call(sb, "h_wet_store", h_wet_store,
            mkIRExprVec_3(mk64(node), addr64(sb, addr), mk64(wet_size(size))),
            and_guard(sb, guard_on(sb, &active[K_WTE]), guard));
   return node;
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
   outs[K_WTB].path = path_with_suffix(clo_wet_prefix, ".blocks");
   outs[K_WTF].path = path_with_suffix(clo_wet_prefix, ".flow");
   outs[K_WTN].path = path_with_suffix(clo_wet_prefix, ".nodes");
   outs[K_WTE].path = path_with_suffix(clo_wet_prefix, ".events");
   outs[K_WTD].path = path_with_suffix(clo_wet_prefix, ".edges");
   outs[K_WTR].path = path_with_suffix(clo_wet_prefix, ".regs");
   outs[K_WTS].path = path_with_suffix(clo_wet_prefix, ".syms");
   /* No chasing (as callgrind): a superblock is then one run of code that
      ends in its only jump, call or return.  With chasing, a call valgrind
      follows would end a block as a plain jump, and the blocks of its
      "A && B" merging run under a guard that no IMark shows. */
   VG_(clo_vex_control).guest_chase = False;
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
   VG_(umsg)("tcgen-tracer: wet: %u blocks executed, %u static blocks, "
             "%u nodes; %llu loads (%llu without a known last store), "
             "%llu stores; last-store table %llu MiB for %lld MiB, "
             "%llu granules evicted, %llu bytes forgotten; "
             "%llu register sources not resolved\n",
             wet_t, wet_blocks_used, wet_nodes_used, wet_loads, wet_no_def, wet_stores,
             wet_sets * WET_WAYS * (ULong)sizeof(Granule) >> 20, clo_wet_track_mb,
             wet_evicted, wet_forgotten, wet_flow_unresolved);
}
