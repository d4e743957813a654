/* Load-value trace (--loads=FILE): after the "LDV1" header, one 12-byte
   record per executed load, u32 pc and u64 loaded value (the low 8 bytes
   of wider loads, zero-extended when narrower).  Loads made inside a dirty
   helper (fxsave/xrstor, ...) get the value read back from memory after
   the helper ran (dispatch.c, h_load_mem). */

#include "tracer.h"

void loads_record(Addr pc, ULong value)
{
   emit12(K_LDV, pc, value);
}
