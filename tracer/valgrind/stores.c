/* Store-address trace (--stores=FILE): after the "STA1" header, one
   12-byte record per executed store, u32 pc and u64 address, in execution
   order.  A load+store "modify" of the same bytes by one instruction is one
   load and one store here (only the cache model merges them). */

#include "tracer.h"

void stores_record(Addr pc, Addr a)
{
   emit12(K_STA, pc, a);
}
