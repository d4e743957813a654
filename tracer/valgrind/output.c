/* tcgen-tracer's output files: one buffer per file, flushed when nearly
   full and at the end; a kind stops at its record cap. */

#include "tracer.h"

Out outs[N_KINDS] = {
   { NULL, "STA1", "stores",   0, 0, -1, 0, NULL },
   { NULL, "CMA1", "misses",   0, 0, -1, 0, NULL },
   { NULL, "LDV1", "loads",    0, 0, -1, 0, NULL },
   { NULL, NULL,   "champsim", 0, 0, -1, 0, NULL },
   { NULL, "BRA1", "branches", 0, 0, -1, 0, NULL },
   { NULL, "WTB1", "wet blocks", 0, 0, -1, 0, NULL },
   { NULL, "WTF1", "wet flow",   0, 0, -1, 0, NULL },
   { NULL, "WTN2", "wet nodes",  0, 0, -1, 0, NULL },
   { NULL, "WTE2", "wet events", 0, 0, -1, 0, NULL },
   { NULL, "WTD2", "wet edges",  0, 0, -1, 0, NULL },
   { NULL, "WTR1", "wet regs",   0, 0, -1, 0, NULL },
   /* Written at translation, rarely: open only then, so that the WET's
      other files hold what they held before it existed. */
   { NULL, "WTS1", "wet symbols", 0, 0, -1, 0, NULL, True },
   /* The thread log must not change the other files: its descriptor
      would shift the program's (loaded as values). */
   { NULL, "THR1", "threads",    0, 0, -1, 0, NULL, True },
};

UInt active[N_KINDS];
UInt load_active;
UInt store_active;
UInt instr_active;
Bool clo_exit_when_full = True;

void recompute_active(void)
{
   if (skipping) {
      load_active = store_active = active[K_CMA];
      instr_active = 1;
      return;
   }
   load_active = active[K_CMA] | active[K_LDV] | active[K_CHS];
   store_active = active[K_STA] | active[K_CMA] | active[K_CHS];
   instr_active = active[K_CHS] | active[K_BRA];
}

static Int out_open(const Out* o, Int flags)
{
   SysRes r = VG_(open)(o->path, flags, 0644);
   if (sr_isError(r)) {
      VG_(fmsg)("tcgen-tracer: cannot open '%s' for writing\n", o->path);
      VG_(exit)(2);
   }
   return (Int)sr_Res(r);
}

Bool outs_open(void)
{
   Int k;
   Bool any = False;
   for (k = 0; k < N_KINDS; k++) {
      Out* o = &outs[k];
      if (!o->path) continue;
      o->fd = out_open(o, VKI_O_CREAT | VKI_O_TRUNC | VKI_O_WRONLY);
      if (o->transient) {
         VG_(close)(o->fd);
         o->fd = -1;
      }
      o->buf = VG_(malloc)("tcgen-tracer.buf", OUT_BUF_BYTES);
      o->used = 0;
      if (o->header) {
         VG_(memcpy)(o->buf, o->header, 4);
         o->used = 4;
      }
      if (k == K_WTS) o->buf[o->used++] = '\n';   /* a text file: its magic is a line */
      active[k] = 1;
      any = True;
   }
   return any;
}

void out_flush(Out* o)
{
   UInt off = 0;
   Int fd = o->transient ? out_open(o, VKI_O_WRONLY | VKI_O_APPEND) : o->fd;
   while (off < o->used) {
      Int w = VG_(write)(fd, o->buf + off, (Int)(o->used - off));
      if (w <= 0) {
         VG_(umsg)("tcgen-tracer: write to %s failed\n", o->path);
         VG_(exit)(2);
      }
      off += (UInt)w;
   }
   if (o->transient) VG_(close)(fd);
   o->used = 0;
}

void out_text(Int k, const HChar* text)
{
   Out* o = &outs[k];
   SizeT left = VG_(strlen)(text);
   while (left > 0) {
      UInt room = OUT_BUF_BYTES - o->used;
      UInt piece = left < room ? (UInt)left : room;
      VG_(memcpy)(o->buf + o->used, text, piece);
      o->used += piece;
      text += piece;
      left -= piece;
      if (o->used > OUT_BUF_BYTES - OUT_MAX_RECORD) out_flush(o);
   }
}

void out_count(Int k)
{
   outs[k].n++;
}

void outs_close(void)
{
   Int k;
   for (k = 0; k < N_KINDS; k++) {
      Out* o = &outs[k];
      if (!o->buf) continue;
      out_flush(o);
      if (!o->transient) VG_(close)(o->fd);
      o->fd = -1;
      VG_(free)(o->buf);
      o->buf = NULL;
      active[k] = 0;
   }
   recompute_active();
}

void kind_full(Int k)
{
   Int i;
   /* The WET's seven files are one trace: the event cap or the end of the
      block counter stops them all. */
   if (k >= K_WTB && k <= K_WTS)
      for (i = K_WTB; i <= K_WTS; i++) active[i] = 0;
   active[k] = 0;
   recompute_active();
   if (!clo_exit_when_full) return;
   /* The thread log is not a trace of its own: it ends with the others. */
   for (i = 0; i < N_KINDS; i++)
      if (active[i] && i != K_THR) return;
   finish_all();
   VG_(umsg)("tcgen-tracer: every requested trace reached its record cap; "
             "ending the program\n");
   VG_(exit)(0);
}
