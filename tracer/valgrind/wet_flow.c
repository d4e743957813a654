/* The register dataflow of each WET block (PREFIX.regs, format in
   docs/wet-streams.md): which ops of a block execution — its memory
   accesses (the block's nodes), its instructions that write registers, its
   end — take their inputs from which earlier ops of the same execution, and
   from which registers as they were when the execution began.  Found while
   the instrumentation walks a superblock's flat IR: translation time only,
   nothing runs with the program.

   Values are followed through the IR's temps (SSA within the superblock),
   each with its set of sources: an op of the current block, or a register
   slot (guest-state offset / 8) at the block's start.  The pc and the stack
   pointer are not tracked at all, so that a stack access does not depend
   on every push before it.

   A block's id, and so its group, is shared by every translation of its
   code and written by the first, which may see the block at a superblock's
   start or after other blocks of it.  In the second case VEX's optimiser
   has forwarded registers written before the earlier blocks' exits to this
   block's reads, and shared expressions across them, so this block uses
   temps of earlier blocks.  Each is described as what the block would have
   read had it begun the superblock (resolve): the slots that hold it at the
   block's start, which are usually what it reads (on amd64 at least; loops
   that VEX unrolls are the common case). */

#include "tracer.h"

ULong wet_flow_unresolved;

/* An IR temp of the superblock. */
typedef struct {
   const IRStmt* def;  /* the statement that assigns it; NULL: none seen */
   Int block;          /* ordinal of its WET block in the superblock */
   Int put_by;         /* the instruction that wrote it to a register
                          last, -1: none */
   Int resolved;       /* an earlier block's temp: the block whose start its
                          sources describe it at now (resolve) */
   UInt read_at;       /* a register read: slots read_lo..read_hi still
                          hold it while none is written after this write
                          stamp; 0: not a read */
   UShort read_lo, read_hi;
} Temp;

/* The analysis of the superblock being instrumented.  Source sets are bit
   sets: bit s < n_slots is slot s at the block's start, bit n_slots + j is
   op j of the block. */
static struct {
   const IRTypeEnv* tyenv;
   Int n_slots, ip_slot, sp_slot;
   Int max_ops;
   UInt words;             /* per source set */
   Temp* temps;
   ULong* temp_src;        /* per temp */
   Int* instr_r;           /* per instruction: its 'R' op, -1: none */
   UInt stamp;             /* register writes so far, from 1 */
   UInt* version;          /* per slot: stamp of its latest write */
   IRTemp* holder;         /* per slot: the temp its latest write stored,
                              IRTemp_INVALID if not one (a constant, a
                              helper's or an indexed write) */
   UInt* version_at_start; /* the two when the current block began */
   IRTemp* holder_at_start;
   Int instr, block;       /* ordinals of the current ones */
   Int block_instr;        /* ordinal of the block's first instruction */
   Addr pc;
   /* The current instruction's register writes, made into its 'R' op when
      it ends (after its memory ops, which may read what it writes). */
   ULong* pending;         /* per slot: the value written, as sources */
   Int* pending_instr;     /* per slot: the instruction that wrote it */
   Int* written;           /* the slots it wrote */
   Int n_written;
   ULong* exit_src;        /* its conditional exits' guards */
   ULong* value;           /* scratch: a value being written */
   ULong* old;             /* scratch: one slot's new value */
   /* The current block. */
   UInt block_id;
   Bool fresh;             /* its id is new: its group is written */
   ULong unresolved;       /* sources of earlier blocks it dropped */
   Int* writer;            /* per slot: its op that wrote it last, -1: none */
   Int n_ops;
   UChar* op_kind;
   ULong* op_what;
   ULong* op_src;
} flow;

static inline UInt from_op(Int j) { return (UInt)(flow.n_slots + j); }
static inline ULong* temp_src(IRTemp t) { return flow.temp_src + (SizeT)t * flow.words; }
static inline ULong* op_src(Int j) { return flow.op_src + (SizeT)j * flow.words; }
static inline ULong* pending_src(Int s) { return flow.pending + (SizeT)s * flow.words; }

static inline void src_clear(ULong* set)
{
   VG_(memset)(set, 0, flow.words * sizeof(ULong));
}
static inline void src_copy(ULong* to, const ULong* from)
{
   VG_(memcpy)(to, from, flow.words * sizeof(ULong));
}
static inline void src_add(ULong* set, UInt bit) { set[bit >> 6] |= 1ULL << (bit & 63); }
static inline void src_union(ULong* into, const ULong* from)
{
   UInt w;
   for (w = 0; w < flow.words; w++) into[w] |= from[w];
}

static inline Bool tracked(Int s)
{
   return s < flow.n_slots && s != flow.ip_slot && s != flow.sp_slot;
}

static inline Int first_slot(Int offset) { return offset / 8; }
static inline Int last_slot(Int offset, Int size) { return (offset + size - 1) / 8; }

/* Slot s's value now: what the current instruction wrote to it, else the
   block's op that wrote it last, else the slot at the block's start. */
static void read_slot(ULong* into, Int s)
{
   if (flow.pending_instr[s] == flow.instr) src_union(into, pending_src(s));
   else if (flow.writer[s] >= 0) src_add(into, from_op(flow.writer[s]));
   else src_add(into, (UInt)s);
}

static void read_slots(ULong* into, Int offset, Int size)
{
   Int s;
   for (s = first_slot(offset); s <= last_slot(offset, size); s++)
      if (tracked(s)) read_slot(into, s);
}

/* The current instruction writes [offset, offset + size) with a value of
   these sources, temp `data` or not one (IRTemp_INVALID); a slot it writes
   only in part, or maybe (an indexed write, a guarded helper), keeps its
   old value in part.  False when no slot is tracked. */
static Bool write_slots(Int offset, Int size, const ULong* value, IRTemp data,
                        Bool maybe)
{
   UInt stamp = ++flow.stamp;
   Bool any = False;
   Int s;
   for (s = first_slot(offset); s <= last_slot(offset, size); s++) {
      if (!tracked(s)) continue;
      any = True;
      src_copy(flow.old, value);
      if (maybe || offset > 8 * s || offset + size < 8 * s + 8) read_slot(flow.old, s);
      if (flow.pending_instr[s] != flow.instr) {
         flow.pending_instr[s] = flow.instr;
         flow.written[flow.n_written++] = s;
      }
      src_copy(pending_src(s), flow.old);
      flow.version[s] = stamp;
      flow.holder[s] = maybe ? IRTemp_INVALID : data;
   }
   return any;
}

static void add_temp(ULong* into, IRTemp t);

static void add_atom(ULong* into, const IRExpr* a)
{
   if (a && a->tag == Iex_RdTmp) add_temp(into, a->Iex.RdTmp.tmp);
}

/* The arguments of an operation (constants have no sources). */
static void add_args(ULong* into, const IRExpr* e)
{
   Int i;
   switch (e->tag) {
   case Iex_RdTmp:
      add_atom(into, e);
      break;
   case Iex_Unop:
      add_atom(into, e->Iex.Unop.arg);
      break;
   case Iex_Binop:
      add_atom(into, e->Iex.Binop.arg1);
      add_atom(into, e->Iex.Binop.arg2);
      break;
   case Iex_Triop:
      add_atom(into, e->Iex.Triop.details->arg1);
      add_atom(into, e->Iex.Triop.details->arg2);
      add_atom(into, e->Iex.Triop.details->arg3);
      break;
   case Iex_Qop:
      add_atom(into, e->Iex.Qop.details->arg1);
      add_atom(into, e->Iex.Qop.details->arg2);
      add_atom(into, e->Iex.Qop.details->arg3);
      add_atom(into, e->Iex.Qop.details->arg4);
      break;
   case Iex_ITE:
      add_atom(into, e->Iex.ITE.cond);
      add_atom(into, e->Iex.ITE.iftrue);
      add_atom(into, e->Iex.ITE.iffalse);
      break;
   case Iex_CCall:
      for (i = 0; e->Iex.CCall.args[i]; i++) add_atom(into, e->Iex.CCall.args[i]);
      break;
   default:
      break;
   }
}

/* Is temp t a register read whose slots are unwritten since? */
static Bool read_unchanged(const Temp* tp)
{
   Int s;
   if (!tp->read_at) return False;
   for (s = tp->read_lo; s <= tp->read_hi; s++)
      if (s < flow.n_slots && flow.version_at_start[s] > tp->read_at) return False;
   return True;
}

/* Which slot holding temp t, of an earlier block, the current block reads
   it from, as far as one can tell (0: s does not hold it at the block's
   start): a register before the flags thunk, which holds copies of
   operands; then the latest write, as a copy of a register is usually read
   rather than the original. */
static ULong holder_rank(IRTemp t, Int s)
{
   Bool thunk = s >= (Int)(offsetof(VexGuestAMD64State, guest_CC_OP) / 8)
                && s <= (Int)(offsetof(VexGuestAMD64State, guest_CC_NDEP) / 8);
   if (flow.holder_at_start[s] != t) return 0;
   return (ULong)!thunk << 32 | flow.version_at_start[s];
}

/* Temp t of an earlier block, as of the current block's start: a register
   read whose slots are unwritten since, those slots; else the register
   whose latest write stored it (holder_rank); else an operation's
   arguments, recursively (the thunk's copy of an operand is read where the
   operand came from); else the flags thunk slot that holds it; else (a
   load's result, a register read overwritten since) nothing, counted.  A
   temp met on the way that the block has written to a register stands for
   that write (add_temp). */
static void resolve(IRTemp t)
{
   Temp* tp = &flow.temps[t];
   ULong* src = temp_src(t);
   const IRExpr* e = tp->def->tag == Ist_WrTmp ? tp->def->Ist.WrTmp.data : NULL;
   Bool operation = e && e->tag != Iex_Load && e->tag != Iex_Get && e->tag != Iex_GetI;
   ULong best = 0;
   Int s;
   if (tp->resolved == flow.block) return;
   tp->resolved = flow.block;
   src_clear(src);
   if (read_unchanged(tp)) {
      for (s = tp->read_lo; s <= tp->read_hi; s++)
         if (tracked(s)) src_add(src, (UInt)s);
      if (e->tag == Iex_GetI) add_atom(src, e->Iex.GetI.ix);
      return;
   }
   for (s = 0; s < flow.n_slots; s++)
      if (holder_rank(t, s) > best) best = holder_rank(t, s);
   if (best >> 32 || (best && !operation)) {
      for (s = 0; s < flow.n_slots; s++)
         if (holder_rank(t, s) == best) src_add(src, (UInt)s);
   } else if (operation) {
      add_args(src, e);
   } else {
      flow.unresolved++;
   }
}

static void add_temp(ULong* into, IRTemp t)
{
   const Temp* tp = &flow.temps[t];
   if (!tp->def) return;
   if (tp->put_by >= flow.block_instr && tp->put_by != flow.instr) {
      /* A register an earlier instruction of the block wrote, whose write
         VEX forwarded to this read: without the forwarding the read is of
         its 'R' op.  Other values shared with earlier instructions (a
         common address) keep their own sources. */
      src_add(into, from_op(flow.instr_r[tp->put_by]));
      return;
   }
   if (tp->block != flow.block) resolve(t);
   src_union(into, temp_src(t));
}

/* The current instruction wrote temp t to a register (the flags thunk
   included, so that a branch depends on its compare).  A later read of the
   register may be t, or what t copies or converts: VEX folds
   64to32(32Uto64(x)) to x, and shares a copy's operand; those count as
   written here too. */
static void written_to_register(IRTemp t)
{
   for (;;) {
      Temp* tp = &flow.temps[t];
      const IRExpr* e;
      if (!tp->def) return;
      tp->put_by = flow.instr;
      e = tp->def->tag == Ist_WrTmp ? tp->def->Ist.WrTmp.data : NULL;
      if (e && e->tag == Iex_RdTmp) t = e->Iex.RdTmp.tmp;
      else if (e && e->tag == Iex_Unop && e->Iex.Unop.arg->tag == Iex_RdTmp)
         t = e->Iex.Unop.arg->Iex.RdTmp.tmp;
      else return;
   }
}

/* Temp t gets its value here; its (empty) source set. */
static ULong* def_temp(IRTemp t, const IRStmt* st)
{
   Temp* tp = &flow.temps[t];
   tp->def = st;
   tp->block = flow.block;
   tp->put_by = -1;
   tp->resolved = -1;
   tp->read_at = 0;
   src_clear(temp_src(t));
   return temp_src(t);
}

/* Temp t reads [offset, offset + size) of the registers. */
static void register_read(IRTemp t, ULong* src, Int offset, Int size)
{
   Temp* tp = &flow.temps[t];
   read_slots(src, offset, size);
   tp->read_at = flow.stamp;
   tp->read_lo = (UShort)first_slot(offset);
   tp->read_hi = (UShort)last_slot(offset, size);
}

static Int new_op(UChar kind, ULong what)
{
   Int j = flow.n_ops++;
   tl_assert(j < flow.max_ops);
   flow.op_kind[j] = kind;
   flow.op_what[j] = what;
   src_clear(op_src(j));
   return j;
}

/* A memory access: its node's op, whose sources start with its address's.
   The walk traces every access of a superblock it runs the flow for, and
   a block's node ids increase in IR order (wet.c), the order of its ops. */
static Int memory_op(UChar kind, UInt node, const IRExpr* addr)
{
   Int j;
   tl_assert(node != WET_NO_NODE);
   j = new_op(kind, node);
   add_atom(op_src(j), addr);
   return j;
}

static void put_record(UChar tag, UChar kind, UInt count, UInt a, ULong b)
{
   UChar* p = out_next(K_WTR);
   p[0] = tag;
   p[1] = kind;
   p[2] = (UChar)count;
   p[3] = (UChar)(count >> 8);
   put_le32(p + 4, a);
   put_le64(p + 8, b);
   out_commit(K_WTR, 16);
}

static UInt src_count(const ULong* set)
{
   UInt w, n = 0;
   for (w = 0; w < flow.words; w++) {
      ULong x = set[w];
      for (; x; x &= x - 1) n++;
   }
   return n;
}

static void write_group(void)
{
   UInt writes = 0, w;
   Int s, j;
   for (s = 0; s < flow.n_slots; s++)
      if (flow.writer[s] >= 0) writes++;
   put_record('K', 0, 0, flow.block_id, (ULong)(UInt)flow.n_ops | (ULong)writes << 32);
   for (j = 0; j < flow.n_ops; j++) {
      const ULong* src = op_src(j);
      put_record('O', flow.op_kind[j], src_count(src), 0, flow.op_what[j]);
      for (w = 0; w < flow.words; w++) {
         ULong x;
         for (x = src[w]; x; x &= x - 1) {
            UInt bit = w * 64 + (UInt)__builtin_ctzll(x);
            if (bit < (UInt)flow.n_slots) put_record('F', 'G', 0, bit, 0);
            else put_record('F', 'O', 0, bit - (UInt)flow.n_slots, 0);
         }
      }
   }
   for (s = 0; s < flow.n_slots; s++)
      if (flow.writer[s] >= 0)
         put_record('W', 0, 0, (UInt)s, (ULong)(UInt)flow.writer[s]);
}

/* The current instruction's register writes become its 'R' op. */
static void end_instr(void)
{
   Int r, i;
   if (!flow.n_written) return;
   r = new_op('R', flow.pc);
   for (i = 0; i < flow.n_written; i++) {
      src_union(op_src(r), pending_src(flow.written[i]));
      flow.writer[flow.written[i]] = r;
   }
   flow.n_written = 0;
   flow.instr_r[flow.instr] = r;
}

/* The block's 'B' op: its conditional exits' guards and, when it ends the
   superblock, the next pc's sources. */
static void end_block(const IRExpr* next)
{
   Int b = new_op('B', flow.pc);
   src_union(op_src(b), flow.exit_src);
   add_atom(op_src(b), next);
   if (!flow.fresh) return;
   write_group();
   wet_flow_unresolved += flow.unresolved;
}

static void start_block(UInt id, Bool fresh)
{
   Int s;
   flow.block++;
   flow.block_instr = flow.instr;
   flow.block_id = id;
   flow.fresh = fresh;
   flow.unresolved = 0;
   flow.n_ops = 0;
   for (s = 0; s < flow.n_slots; s++) flow.writer[s] = -1;
   VG_(memcpy)(flow.version_at_start, flow.version, flow.n_slots * sizeof(UInt));
   VG_(memcpy)(flow.holder_at_start, flow.holder, flow.n_slots * sizeof(IRTemp));
}

/* The next `bytes` of the buffer at base (0: only counting). */
static void* place(Addr base, SizeT* at, SizeT bytes)
{
   void* p = (void*)(base + *at);
   *at += (bytes + 7) & ~(SizeT)7;
   return p;
}

/* Lays the translation's arrays out in one buffer of the returned size
   (valgrind's allocator is slow for twenty blocks per translation). */
static SizeT lay_out(Addr base, SizeT n_temps, SizeT instrs)
{
   SizeT at = 0, slots = (SizeT)flow.n_slots, set = flow.words * sizeof(ULong);
   flow.temps = place(base, &at, n_temps * sizeof(Temp));
   flow.temp_src = place(base, &at, n_temps * set);
   flow.instr_r = place(base, &at, instrs * sizeof(Int));
   flow.version = place(base, &at, slots * sizeof(UInt));
   flow.holder = place(base, &at, slots * sizeof(IRTemp));
   flow.version_at_start = place(base, &at, slots * sizeof(UInt));
   flow.holder_at_start = place(base, &at, slots * sizeof(IRTemp));
   flow.pending = place(base, &at, slots * set);
   flow.pending_instr = place(base, &at, slots * sizeof(Int));
   flow.written = place(base, &at, slots * sizeof(Int));
   flow.exit_src = place(base, &at, set);
   flow.value = place(base, &at, set);
   flow.old = place(base, &at, set);
   flow.writer = place(base, &at, slots * sizeof(Int));
   flow.op_kind = place(base, &at, (SizeT)flow.max_ops);
   flow.op_what = place(base, &at, (SizeT)flow.max_ops * sizeof(ULong));
   flow.op_src = place(base, &at, (SizeT)flow.max_ops * set);
   return at;
}

/* How many ops statement st can add to its block, at most: an IMark its
   instruction's 'R' and the block's 'B', a memory access its node (two
   for a CAS or a modifying helper). */
static Int ops_at_most(const IRStmt* st)
{
   switch (st->tag) {
   case Ist_IMark:
   case Ist_CAS:
      return 2;
   case Ist_Dirty:
      return st->Ist.Dirty.details->mFx == Ifx_None ? 0 : 2;
   case Ist_WrTmp:
      return st->Ist.WrTmp.data->tag == Iex_Load;
   case Ist_Store:
   case Ist_StoreG:
   case Ist_LoadG:
   case Ist_LLSC:
      return 1;
   default:
      return 0;
   }
}

void wet_flow_begin(const IRSB* sb, const VexGuestLayout* layout)
{
   static UChar* buffer;   /* kept for the next translations */
   static SizeT buffer_bytes;
   SizeT bytes;
   Int i, instrs = 0, n_temps = sb->tyenv->types_used;
   flow.max_ops = 0;
   for (i = 0; i < sb->stmts_used; i++) {
      if (sb->stmts[i]->tag == Ist_IMark) instrs++;
      flow.max_ops += ops_at_most(sb->stmts[i]);
   }
   flow.tyenv = sb->tyenv;
   flow.n_slots = (layout->total_sizeB + 7) / 8;
   flow.ip_slot = layout->offset_IP / 8;
   flow.sp_slot = layout->offset_SP / 8;
   flow.words = (UInt)(flow.n_slots + flow.max_ops + 63) / 64;
   bytes = lay_out(0, (SizeT)n_temps, (SizeT)instrs);
   if (bytes > buffer_bytes) {
      if (buffer) VG_(free)(buffer);
      buffer_bytes = 2 * bytes;
      buffer = VG_(malloc)("tcgen-tracer.wet-flow", buffer_bytes);
   }
   lay_out((Addr)buffer, (SizeT)n_temps, (SizeT)instrs);
   /* Source sets need no clearing: each is cleared when made. */
   VG_(memset)(flow.temps, 0, (SizeT)n_temps * sizeof(Temp));
   VG_(memset)(flow.version, 0, (SizeT)flow.n_slots * sizeof(UInt));
   for (i = 0; i < flow.n_slots; i++) {
      flow.holder[i] = IRTemp_INVALID;
      flow.pending_instr[i] = -1;
   }
   flow.stamp = 1;
   flow.instr = flow.block = -1;
   flow.n_written = 0;
}

void wet_flow_instr(Addr pc, Int block, Bool fresh)
{
   end_instr();
   if (block >= 0 && flow.block >= 0) end_block(NULL);
   flow.instr++;
   flow.instr_r[flow.instr] = -1;
   if (block >= 0) start_block((UInt)block, fresh);
   flow.pc = pc;
   src_clear(flow.exit_src);
}

static void dirty(const IRStmt* st, UInt load_node, UInt store_node)
{
   const IRDirty* d = st->Ist.Dirty.details;
   Bool maybe = d->guard->tag != Iex_Const || !d->guard->Iex.Const.con->Ico.U1;
   Int i, k, load = -1;
   /* Its inputs: everything it may read. */
   src_clear(flow.value);
   add_atom(flow.value, d->guard);
   for (i = 0; d->args[i]; i++) add_atom(flow.value, d->args[i]);
   for (i = 0; i < d->nFxState; i++)
      if (d->fxState[i].fx == Ifx_Read || d->fxState[i].fx == Ifx_Modify)
         for (k = 0; k <= d->fxState[i].nRepeats; k++)
            read_slots(flow.value, d->fxState[i].offset + k * d->fxState[i].repeatLen,
                       d->fxState[i].size);
   if (d->mFx == Ifx_Read || d->mFx == Ifx_Modify) {
      load = memory_op('L', load_node, d->mAddr);
      src_add(flow.value, from_op(load));
   }
   if (d->mFx == Ifx_Write || d->mFx == Ifx_Modify)
      src_union(op_src(memory_op('S', store_node, d->mAddr)), flow.value);
   for (i = 0; i < d->nFxState; i++)
      if (d->fxState[i].fx == Ifx_Write || d->fxState[i].fx == Ifx_Modify)
         for (k = 0; k <= d->fxState[i].nRepeats; k++)
            write_slots(d->fxState[i].offset + k * d->fxState[i].repeatLen,
                        d->fxState[i].size, flow.value, IRTemp_INVALID, maybe);
   if (d->tmp != IRTemp_INVALID) {
      ULong* src = def_temp(d->tmp, st);
      if (load >= 0) src_add(src, from_op(load));
      else src_union(src, flow.value);
   }
}

void wet_flow_stmt(const IRStmt* st, UInt load_node, UInt store_node)
{
   switch (st->tag) {
   case Ist_WrTmp: {
      IRTemp t = st->Ist.WrTmp.tmp;
      const IRExpr* e = st->Ist.WrTmp.data;
      ULong* src = def_temp(t, st);
      if (e->tag == Iex_Get) {
         register_read(t, src, e->Iex.Get.offset, sizeofIRType(e->Iex.Get.ty));
      } else if (e->tag == Iex_GetI) {
         const IRRegArray* a = e->Iex.GetI.descr;
         register_read(t, src, a->base, a->nElems * sizeofIRType(a->elemTy));
         add_atom(src, e->Iex.GetI.ix);
      } else if (e->tag == Iex_Load) {
         src_add(src, from_op(memory_op('L', load_node, e->Iex.Load.addr)));
      } else {
         add_args(src, e);
      }
      break;
   }
   case Ist_Put: {
      const IRExpr* data = st->Ist.Put.data;
      Int size = sizeofIRType(typeOfIRExpr(flow.tyenv, data));
      IRTemp t = data->tag == Iex_RdTmp ? data->Iex.RdTmp.tmp : IRTemp_INVALID;
      src_clear(flow.value);
      add_atom(flow.value, data);
      if (write_slots(st->Ist.Put.offset, size, flow.value, t, False)
          && t != IRTemp_INVALID)
         written_to_register(t);
      break;
   }
   case Ist_PutI: {
      const IRPutI* p = st->Ist.PutI.details;
      src_clear(flow.value);
      add_atom(flow.value, p->data);
      add_atom(flow.value, p->ix);
      if (write_slots(p->descr->base, p->descr->nElems * sizeofIRType(p->descr->elemTy),
                      flow.value, IRTemp_INVALID, True)
          && p->data->tag == Iex_RdTmp)
         written_to_register(p->data->Iex.RdTmp.tmp);
      break;
   }
   case Ist_Store: {
      Int j = memory_op('S', store_node, st->Ist.Store.addr);
      add_atom(op_src(j), st->Ist.Store.data);
      break;
   }
   case Ist_StoreG: {
      Int j = memory_op('S', store_node, st->Ist.StoreG.details->addr);
      add_atom(op_src(j), st->Ist.StoreG.details->data);
      break;
   }
   case Ist_LoadG: {
      /* dst is alt when the guard fails */
      const IRLoadG* lg = st->Ist.LoadG.details;
      Int j = memory_op('L', load_node, lg->addr);
      ULong* src = def_temp(lg->dst, st);
      src_add(src, from_op(j));
      add_atom(src, lg->alt);
      add_atom(src, lg->guard);
      break;
   }
   case Ist_CAS: {
      /* x86 stores the old value back when the comparison fails */
      const IRCAS* cas = st->Ist.CAS.details;
      Int load = memory_op('L', load_node, cas->addr);
      Int store;
      src_add(def_temp(cas->oldLo, st), from_op(load));
      if (cas->oldHi != IRTemp_INVALID) src_add(def_temp(cas->oldHi, st), from_op(load));
      store = memory_op('S', store_node, cas->addr);
      src_add(op_src(store), from_op(load));
      add_atom(op_src(store), cas->expdLo);
      add_atom(op_src(store), cas->expdHi);
      add_atom(op_src(store), cas->dataLo);
      add_atom(op_src(store), cas->dataHi);
      break;
   }
   case Ist_LLSC:
      if (!st->Ist.LLSC.storedata) {
         Int j = memory_op('L', load_node, st->Ist.LLSC.addr);
         src_add(def_temp(st->Ist.LLSC.result, st), from_op(j));
      } else {
         /* the result is the success flag */
         Int j = memory_op('S', store_node, st->Ist.LLSC.addr);
         add_atom(op_src(j), st->Ist.LLSC.storedata);
         def_temp(st->Ist.LLSC.result, st);
      }
      break;
   case Ist_Dirty:
      dirty(st, load_node, store_node);
      break;
   case Ist_Exit:
      /* an exit that ends the block (wet.c, wet_starts_block) */
      if (st->Ist.Exit.jk == Ijk_Boring) add_atom(flow.exit_src, st->Ist.Exit.guard);
      break;
   default:
      break;
   }
}

void wet_flow_end(const IRExpr* next)
{
   end_instr();
   end_block(next);
}
