/* The run-time helpers that the instrumented code calls: one per
   instruction (h_instr) and one per memory access (h_load, h_store), each
   serving every kind that records the event, so that asking for several
   kinds costs one call, not one per kind.  The WET streams have their own
   helpers (wet.c): their calls go after the access. */

#include "tracer.h"

Long clo_skip = 0;
UInt skipping;
Long clo_champsim_skip = 0;
Long clo_branches_skip = 0;
ULong instrs_seen, count_until;

/* Instruction number instrs_seen (from 1) starts; its memory accesses
   follow.  Instruction N + 1 is the first one recorded after a skip of N. */
void h_instr(const InstrDesc* d)
{
   if (instrs_seen < count_until) {
      instrs_seen++;
      if (skipping && instrs_seen > (ULong)clo_skip) {
         skipping = 0;
         recompute_active();
      }
   }
   if (active[K_BRA] && instrs_seen > (ULong)clo_branches_skip) branches_instr(d);
   if (active[K_CHS] && instrs_seen > (ULong)clo_champsim_skip) champsim_instr(d);
}

void h_load(Addr pc, Addr a, UWord size, ULong value)
{
   Bool miss = active[K_CMA] && misses_access(a, size);
   if (skipping) return;   /* start-up: the cache warms, nothing is written */
   if (miss) misses_record(pc, a);
   if (active[K_LDV]) loads_record(pc, value);
   if (active[K_CHS]) champsim_mem(False, a);
}

/* modify: this store completes a load+store "modify" of the same bytes in
   the same instruction (one access for the cache model). */
void h_store(Addr pc, Addr a, UWord size, UWord modify)
{
   Bool miss = !modify && active[K_CMA] && misses_access(a, size);
   if (skipping) return;
   if (active[K_STA]) stores_record(pc, a);
   if (miss) misses_record(pc, a);
   if (active[K_CHS]) champsim_mem(True, a);
}

/* Loads done inside a dirty helper (e.g. fxsave/xrstor, cpuid's none):
   the value is read back from memory. */
void h_load_mem(Addr pc, Addr a, UWord size)
{
   ULong v = active[K_LDV] && !skipping ? memory_value(a, size) : 0;
   h_load(pc, a, size, v);
}
