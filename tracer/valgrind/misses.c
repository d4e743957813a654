/* Cache-miss-address trace (--misses=FILE): after the "CMA1" header, one
   12-byte record per access that misses a 16 KiB direct-mapped cache of
   64-byte lines with write-allocate (the rule of lackey_to_trace.cpp), u32
   pc and u64 access address.  An access spanning two lines misses when
   either does; a load+store "modify" of the same bytes is one access. */

#include "tracer.h"

static ULong cache_tag[256];   /* line number + 1; 0 = empty */

void misses_init(void)
{
   VG_(memset)(cache_tag, 0, sizeof cache_tag);
}

Bool misses_access(Addr a, UWord size)
{
   ULong first = a >> 6, last = (a + (size ? size : 1) - 1) >> 6, l;
   Bool miss = False;
   for (l = first; l <= last; l++) {
      UInt set = (UInt)(l & 255);
      if (cache_tag[set] != l + 1) { miss = True; cache_tag[set] = l + 1; }
   }
   return miss;
}

void misses_record(Addr pc, Addr a)
{
   emit12(K_CMA, pc, a);
}
