/* ChampSim trace (--champsim=FILE): no header; one 64-byte input_instr
   record per executed instruction, as ChampSim's tracer writes it: u64 ip,
   u8 is_branch, u8 branch_taken, u8 destination_registers[2],
   u8 source_registers[4], u64 destination_memory[2], u64
   source_memory[4].  Register ids and the approximations are described in
   tracer/README.md.  This file also makes the static instruction
   descriptions (InstrDesc) that the branch trace uses. */

#include "tracer.h"

/* The instruction being executed: its record is completed when the next
   instruction of the same thread starts (branch_taken is known then), when
   another thread starts running (threads.c) or at exit. */
static Bool pend_valid = False;
static const InstrDesc* pend_desc;
static ULong pend_dmem[2], pend_smem[4];
static UInt pend_nd, pend_ns;

static void champsim_write_pending(Addr next_ip)
{
   UChar* p = out_next(K_CHS);
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

void champsim_instr(const InstrDesc* d)
{
   if (pend_valid) {
      champsim_write_pending(d->ip);
      if (!active[K_CHS]) return;
   }
   pend_desc = d;
   pend_nd = pend_ns = 0;
   pend_valid = True;
}

void champsim_mem(Bool is_store, Addr a)
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

void champsim_thread_stops(Addr next_ip)
{
   if (pend_valid && active[K_CHS]) champsim_write_pending(next_ip);
   pend_valid = False;
}

/* The last instruction has no successor: not taken, if a branch. */
void champsim_finish(void)
{
   if (pend_valid && active[K_CHS]) champsim_write_pending(0);
}

/* ------------------------------------------------------------------ */
/* Register ids (amd64 guest-state offsets -> small ids)                */
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

void champsim_init(void)
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

/* Registers from Get/Put in the instruction's statement range,
   branch-ness from exits in that range and from the block end / next
   IMark. */
InstrDesc* make_desc(IRSB* sb_in, Int i)
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
         /* VEX unrolls a rep string instruction into copies of itself
            (even with --vex-guest-chase=no): the instruction starting
            again is its next iteration, not a branch. */
         if ((Addr)s->Ist.IMark.addr != ip + len
             && (Addr)s->Ist.IMark.addr != ip) {   /* chased */
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
