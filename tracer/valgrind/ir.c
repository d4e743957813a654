/* IR-building helpers that every kind's instrumentation uses. */

#include "tracer.h"

IRExpr* guard_on(IRSB* sb, UInt* flag)
{
   IRTemp t = newIRTemp(sb->tyenv, Ity_I32);
   IRTemp g = newIRTemp(sb->tyenv, Ity_I1);
   addStmtToIRSB(sb, IRStmt_WrTmp(t, IRExpr_Load(Iend_LE, Ity_I32,
                    IRExpr_Const(IRConst_U64((ULong)(Addr)flag)))));
   addStmtToIRSB(sb, IRStmt_WrTmp(g, IRExpr_Binop(Iop_CmpNE32, IRExpr_RdTmp(t),
                    IRExpr_Const(IRConst_U32(0)))));
   return IRExpr_RdTmp(g);
}

IRExpr* and_guard(IRSB* sb, IRExpr* a, IRExpr* b)
{
   IRTemp g = newIRTemp(sb->tyenv, Ity_I1);
   if (!b) return a;
   addStmtToIRSB(sb, IRStmt_WrTmp(g, IRExpr_Binop(Iop_And1, a, b)));
   return IRExpr_RdTmp(g);
}

IRExpr* mk64(ULong v) { return IRExpr_Const(IRConst_U64(v)); }

void add_call(IRSB* sb, const HChar* name, void* fn, IRExpr** args, IRExpr* guard)
{
   IRDirty* di = unsafeIRDirty_0_N(0, name, VG_(fnptr_to_fnentry)(fn), args);
   di->guard = guard;
   addStmtToIRSB(sb, IRStmt_Dirty(di));
}

IRExpr* value64(IRSB* sb, IRExpr* v, IRType ty)
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

IRExpr* addr64(IRSB* sb, IRExpr* a)
{
   IRTemp t;
   if (typeOfIRExpr(sb->tyenv, a) == Ity_I64) return a;
   t = newIRTemp(sb->tyenv, Ity_I64);
   addStmtToIRSB(sb, IRStmt_WrTmp(t, IRExpr_Unop(Iop_32Uto64, a)));
   return IRExpr_RdTmp(t);
}
