/* The instrumentation: one walk over each superblock's IR that adds the
   calls every requested kind needs, per instruction (h_instr) and per
   memory access (h_load / h_store, then the WET's own calls), and the
   WET's call at the start of each of its blocks.  Each call
   is guarded by a run-time switch (tracer.h), so that a kind that is full
   or not started costs a load and a compare.  The same walk feeds the
   WET's register dataflow (wet_flow.c), which adds no calls. */

#include "tracer.h"

static Bool same_atom(const IRExpr* a, const IRExpr* b)
{
   if (a->tag != b->tag) return False;
   if (a->tag == Iex_RdTmp) return a->Iex.RdTmp.tmp == b->Iex.RdTmp.tmp;
   if (a->tag == Iex_Const)
      return a->Iex.Const.con->tag == Ico_U64 && b->Iex.Const.con->tag == Ico_U64
          && a->Iex.Const.con->Ico.U64 == b->Iex.Const.con->Ico.U64;
   return False;
}

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

IRSB* tr_instrument(VgCallbackClosure* closure, IRSB* sb_in,
                    const VexGuestLayout* layout, const VexGuestExtents* vge,
                    const VexArchInfo* archinfo_host,
                    IRType gWordTy, IRType hWordTy)
{
   IRSB* sb;
   Int i;
   CurInstr ci;
   Bool chs = want_instr_calls();

   fix_at_random_once();
   if (gWordTy != hWordTy) VG_(tool_panic)("host/guest word size mismatch");

   sb = deepCopyIRSBExceptStmts(sb_in);
   i = 0;
   while (i < sb_in->stmts_used && sb_in->stmts[i]->tag != Ist_IMark) {
      addStmtToIRSB(sb, sb_in->stmts[i]);
      i++;
   }
   VG_(memset)(&ci, 0, sizeof ci);
   ci.wet = outs[K_WTE].path != NULL && active[K_WTE];
   if (ci.wet) wet_flow_begin(sb_in, layout);

   for (; i < sb_in->stmts_used; i++) {
      IRStmt* st = sb_in->stmts[i];
      /* the WET nodes of its memory accesses */
      UInt load_node = WET_NO_NODE, store_node = WET_NO_NODE;
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
         if (ci.wet) {
            Bool made;
            Int block = wet_block_at(sb_in, i, &made);
            wet_flow_instr(ci.pc, block, made);
            if (block >= 0) wet_block_start(sb, &ci, (UInt)block);
         }
         break;

      case Ist_WrTmp: {
         IRExpr* e = st->Ist.WrTmp.data;
         addStmtToIRSB(sb, st);
         if (e->tag == Iex_Load) {
            IRType ty = e->Iex.Load.ty;
            instr_load(sb, &ci, e->Iex.Load.addr, sizeofIRType(ty),
                       IRExpr_RdTmp(st->Ist.WrTmp.tmp), ty, NULL);
            load_node = wet_load(sb, &ci, e->Iex.Load.addr, sizeofIRType(ty),
                                 IRExpr_RdTmp(st->Ist.WrTmp.tmp), ty, NULL);
         }
         break;
      }

      case Ist_Store: {
         IRExpr* data = st->Ist.Store.data;
         IRType ty = typeOfIRExpr(sb->tyenv, data);
         instr_store(sb, &ci, st->Ist.Store.addr, sizeofIRType(ty), NULL);
         addStmtToIRSB(sb, st);
         store_node = wet_store(sb, &ci, st->Ist.Store.addr, sizeofIRType(ty), NULL);
         break;
      }

      case Ist_StoreG: {
         IRStoreG* sg = st->Ist.StoreG.details;
         IRType ty = typeOfIRExpr(sb->tyenv, sg->data);
         instr_store(sb, &ci, sg->addr, sizeofIRType(ty), sg->guard);
         addStmtToIRSB(sb, st);
         store_node = wet_store(sb, &ci, sg->addr, sizeofIRType(ty), sg->guard);
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
         load_node = wet_load(sb, &ci, lg->addr, sizeofIRType(ty), NULL, Ity_INVALID,
                              lg->guard);
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
            load_node = wet_load(sb, &ci, cas->addr, size, old, old_ty, NULL);
            store_node = wet_store(sb, &ci, cas->addr, size, NULL);
         }
         break;
      }

      case Ist_LLSC: {
         IRType ty = typeOfIRTemp(sb->tyenv, st->Ist.LLSC.result);
         addStmtToIRSB(sb, st);
         if (st->Ist.LLSC.storedata == NULL) {
            instr_load(sb, &ci, st->Ist.LLSC.addr, sizeofIRType(ty),
                       IRExpr_RdTmp(st->Ist.LLSC.result), ty, NULL);
            load_node = wet_load(sb, &ci, st->Ist.LLSC.addr, sizeofIRType(ty),
                                 IRExpr_RdTmp(st->Ist.LLSC.result), ty, NULL);
         } else {
            Int size = sizeofIRType(typeOfIRExpr(sb->tyenv, st->Ist.LLSC.storedata));
            instr_store(sb, &ci, st->Ist.LLSC.addr, size, NULL);
            store_node = wet_store(sb, &ci, st->Ist.LLSC.addr, size, NULL);
         }
         break;
      }

      case Ist_Dirty: {
         IRDirty* d;
         st = fake_rdtsc_call(st);
         d = st->Ist.Dirty.details;
         if (d->mFx != Ifx_None) {
            Int size = d->mSize > 512 ? 512 : d->mSize;
            if (d->mFx == Ifx_Read || d->mFx == Ifx_Modify) {
               /* WET: a modify's load sees the memory before the call */
               if (d->mFx == Ifx_Modify)
                  load_node = wet_load(sb, &ci, d->mAddr, d->mSize, NULL, Ity_INVALID,
                                       d->guard);
               addStmtToIRSB(sb, st);
               if (d->mFx == Ifx_Read)
                  load_node = wet_load(sb, &ci, d->mAddr, d->mSize, NULL, Ity_INVALID,
                                       d->guard);
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
                  store_node = wet_store(sb, &ci, d->mAddr, d->mSize, d->guard);
               }
            } else {
               add_call(sb, "h_store", h_store,
                        mkIRExprVec_4(mk64(ci.pc), addr64(sb, d->mAddr),
                                      mk64((ULong)size), mk64(0)),
                        guard_on(sb, &store_active));
               addStmtToIRSB(sb, st);
               store_node = wet_store(sb, &ci, d->mAddr, d->mSize, d->guard);
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
      if (ci.wet && st->tag != Ist_IMark) wet_flow_stmt(st, load_node, store_node);
   }
   if (ci.wet) wet_flow_end(sb_in->next);
   return sb;
}
