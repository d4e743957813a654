/* Determinism: the same program on the same input gives the same traces
   run after run.  What would vary is replaced here: the AT_RANDOM bytes,
   getrandom(2) and reads of /dev/urandom, the clock and sysinfo(2), and
   rdtsc.  Each has its --fake-... / verbose option (tool.c). */

#include "tracer.h"

/* glibc reads 16 random bytes from the AT_RANDOM auxv entry (stack
   canary, pointer guard), which would show up in load values.  Overwrite
   them with a fixed pattern before the client runs. */
static Bool fixed_at_random = False;
Bool clo_verbose = False;

static void fix_at_random(void)
{
   /* At the first translation the client has not run yet and thread 1's
      stack pointer is at argc: argc, argv[], NULL, envp[], NULL, auxv. */
   UWord* sp = (UWord*)VG_(get_SP)(1);
   UWord* av;
   fixed_at_random = True;
   if (!sp) return;
   av = sp + 1 + sp[0] + 1;          /* envp */
   while (*av) av++;
   av++;                              /* auxv */
   for (; av[0] != 0 /* AT_NULL */; av += 2) {
      if (av[0] == 25 /* AT_RANDOM */ && av[1]) {
         UChar* r = (UChar*)av[1];
         Int i;
         for (i = 0; i < 16; i++) r[i] = (UChar)(0x5a + 17 * i);
         if (clo_verbose) VG_(umsg)("tcgen-tracer: AT_RANDOM at %p fixed\n", r);
      }
   }
}

void fix_at_random_once(void)
{
   if (!fixed_at_random) fix_at_random();
}

/* Determinism: getrandom(2) (glibc's malloc tcache key, hash seeds) and
   read(2) from an fd opened on /dev/urandom or /dev/random get bytes from a
   fixed xorshift generator instead of the kernel's.  --fake-getrandom=no
   turns this off. */
Bool clo_fake_getrandom = True;
static ULong fake_rng = 0x9e3779b97f4a7c15ULL;

void tr_pre_syscall(ThreadId tid, UInt sysno, UWord* args, UInt nArgs)
{
}

/* Determinism: the clock.  clock_gettime, gettimeofday and time return a
   fake clock that starts at 2023-11-14 22:13:20 UTC (1700000000 s) and
   advances by 1 ms per call; sysinfo reports fixed uptime/loads and half
   the RAM free.  --fake-time=no turns this off. */
Bool clo_fake_time = True;
static ULong fake_ns = 1700000000ULL * 1000000000ULL;

static ULong next_fake_ns(void)
{
   fake_ns += 1000000;
   return fake_ns;
}

/* fds open on /dev/urandom or /dev/random: reads from them get the same
   fixed pseudo-random bytes as getrandom. */
static Bool rnd_fd[1024];

static void fake_random_bytes(UChar* buf, UWord n)
{
   UWord i;
   for (i = 0; i < n; i++) {
      fake_rng ^= fake_rng << 13; fake_rng ^= fake_rng >> 7;
      fake_rng ^= fake_rng << 17;
      buf[i] = (UChar)(fake_rng >> 24);
   }
}

void tr_post_syscall(ThreadId tid, UInt sysno, UWord* args, UInt nArgs,
                     SysRes res)
{
   if (clo_fake_getrandom && !sr_isError(res)) {
      const HChar* path = NULL;
      if (sysno == 2 /* open */) path = (const HChar*)args[0];
      else if (sysno == 257 /* openat */) path = (const HChar*)args[1];
      if (path && sr_Res(res) < 1024
          && (VG_(strcmp)(path, "/dev/urandom") == 0
              || VG_(strcmp)(path, "/dev/random") == 0))
         rnd_fd[sr_Res(res)] = True;
      if (sysno == 3 /* close */ && args[0] < 1024) rnd_fd[args[0]] = False;
      if (sysno == 0 /* read */ && args[0] < 1024 && rnd_fd[args[0]])
         fake_random_bytes((UChar*)args[1], sr_Res(res));
   }
   if (clo_fake_time && !sr_isError(res)) {
      if (sysno == 228 /* clock_gettime */ && args[1]) {
         ULong t = next_fake_ns();
         ((Long*)args[1])[0] = (Long)(t / 1000000000ULL);
         ((Long*)args[1])[1] = (Long)(t % 1000000000ULL);
      } else if (sysno == 96 /* gettimeofday */ && args[0]) {
         ULong t = next_fake_ns();
         ((Long*)args[0])[0] = (Long)(t / 1000000000ULL);
         ((Long*)args[0])[1] = (Long)(t % 1000000000ULL / 1000);
      } else if (sysno == 99 /* sysinfo: free memory, uptime, load vary */
                 && args[0]) {
         UWord* si = (UWord*)args[0];
         si[0] = 1000;                   /* uptime */
         si[1] = si[2] = si[3] = 0;      /* loads */
         si[5] = si[4] / 2;              /* freeram = totalram / 2 */
         si[6] = si[7] = 0;              /* sharedram, bufferram */
         si[9] = si[8];                  /* freeswap = totalswap */
         *(UShort*)&si[10] = 1;          /* procs */
      } else if (sysno == 201 /* time */) {
         ULong t = next_fake_ns() / 1000000000ULL;
         if (args[0]) *(Long*)args[0] = (Long)t;
         VG_(set_shadow_regs_area)(tid, 0, offsetof(VexGuestAMD64State, guest_RAX),
                                   8, (const UChar*)&t);
      }
   }
   if (clo_fake_getrandom && sysno == 318 /* __NR_getrandom, amd64 */
       && !sr_isError(res)) {
      fake_random_bytes((UChar*)args[0], sr_Res(res));
   }
}

/* Determinism: rdtsc (ld.so and libc time themselves with it) returns a
   counter that advances by 1000 per executed rdtsc instead of the CPU's
   time-stamp counter.  --fake-rdtsc=no keeps the real one. */
Bool clo_fake_rdtsc = True;
static ULong fake_tsc = 1000000;
static ULong tr_fake_rdtsc(void)
{
   fake_tsc += 1000;
   return fake_tsc;
}

IRStmt* fake_rdtsc_call(IRStmt* st)
{
   IRDirty* d = st->Ist.Dirty.details;
   IRDirty* nd;
   if (!clo_fake_rdtsc || !d->cee
       || VG_(strcmp)(d->cee->name, "amd64g_dirtyhelper_RDTSC") != 0)
      return st;
   nd = emptyIRDirty();
   *nd = *d;
   nd->cee = mkIRCallee(0, "tr_fake_rdtsc", VG_(fnptr_to_fnentry)(tr_fake_rdtsc));
   return IRStmt_Dirty(nd);
}
