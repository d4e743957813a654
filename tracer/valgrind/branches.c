/* Branch trace (--branches=FILE): after the "BRA1" header, one 17-byte
   record per executed branch: u64 pc, u64 target, u8 taken.  Like
   ChampSim's records, a branch is completed when the next instruction
   starts.  The target is where the branch went when taken and where it
   would have gone when not (a conditional branch's static target), as
   branch-predictor traces record it.  A branch still pending at exit has
   no outcome and is left out.  The pending branch is the running
   thread's: when another thread starts, it is completed with the stopped
   thread's resume address (threads.c). */

#include "tracer.h"

static const InstrDesc* branch_pend = NULL;

static void branch_write(const InstrDesc* d, Addr next_ip)
{
   UChar* p = out_next(K_BRA);
   Bool taken = next_ip != d->ip + d->len;
   put_le64(p, d->ip);
   put_le64(p + 8, taken ? next_ip : d->target);
   p[16] = taken ? 1 : 0;
   out_commit(K_BRA, 17);
}

void branches_instr(const InstrDesc* d)
{
   if (branch_pend) {
      const InstrDesc* b = branch_pend;
      branch_pend = NULL;
      branch_write(b, d->ip);
      if (!active[K_BRA]) return;
   }
   if (d->is_branch) branch_pend = d;
}

void branches_thread_stops(Addr next_ip)
{
   const InstrDesc* b = branch_pend;
   branch_pend = NULL;
   if (b && active[K_BRA]) branch_write(b, next_ip);
}
