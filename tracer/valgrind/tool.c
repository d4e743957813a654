/* tcgen-tracer's registration with valgrind's core, its options, its start
   and its end.  What the tool records is listed in tracer.h and
   tracer/README.md. */

#include "tracer.h"
#include "pub_tool_options.h"

static Bool tr_process_cmd_line_option(const HChar* arg)
{
   if VG_STR_CLO(arg, "--stores", outs[K_STA].path) {}
   else if VG_STR_CLO(arg, "--misses", outs[K_CMA].path) {}
   else if VG_STR_CLO(arg, "--loads", outs[K_LDV].path) {}
   else if VG_STR_CLO(arg, "--champsim", outs[K_CHS].path) {}
   else if VG_BINT_CLO(arg, "--stores-max", outs[K_STA].max, 0, 1LL << 40) {}
   else if VG_BINT_CLO(arg, "--misses-max", outs[K_CMA].max, 0, 1LL << 40) {}
   else if VG_BINT_CLO(arg, "--loads-max", outs[K_LDV].max, 0, 1LL << 40) {}
   else if VG_BINT_CLO(arg, "--champsim-max", outs[K_CHS].max, 0, 1LL << 40) {}
   else if VG_BINT_CLO(arg, "--champsim-skip", clo_champsim_skip, 0, 1LL << 50) {}
   else if VG_STR_CLO(arg, "--branches", outs[K_BRA].path) {}
   else if VG_BINT_CLO(arg, "--branches-max", outs[K_BRA].max, 0, 1LL << 40) {}
   else if VG_BINT_CLO(arg, "--branches-skip", clo_branches_skip, 0, 1LL << 50) {}
   else if VG_BINT_CLO(arg, "--skip", clo_skip, 0, 1LL << 50) {}
   else if VG_STR_CLO(arg, "--threads", outs[K_THR].path) {}
   else if VG_STR_CLO(arg, "--wet", clo_wet_prefix) {}
   else if VG_BINT_CLO(arg, "--wet-max", outs[K_WTE].max, 0, 1LL << 40) {}
   else if VG_BINT_CLO(arg, "--wet-track-mb", clo_wet_track_mb, 1, 4096) {}
   else if VG_BOOL_CLO(arg, "--exit-when-full", clo_exit_when_full) {}
   else if VG_BOOL_CLO(arg, "--fake-rdtsc", clo_fake_rdtsc) {}
   else if VG_BOOL_CLO(arg, "--fake-getrandom", clo_fake_getrandom) {}
   else if VG_BOOL_CLO(arg, "--fake-time", clo_fake_time) {}
   else if VG_BOOL_CLO(arg, "--tracer-verbose", clo_verbose) {}
   else return False;
   return True;
}

static void tr_print_usage(void)
{
   VG_(printf)(
"    --stores=FILE          store-address trace (STA1: u32 pc, u64 address)\n"
"    --misses=FILE          cache-miss-address trace (CMA1; 16 KiB direct-mapped,\n"
"                           64-byte lines, write-allocate)\n"
"    --loads=FILE           load-value trace (LDV1: u32 pc, u64 value)\n"
"    --champsim=FILE        ChampSim input_instr trace (64-byte records)\n"
"    --branches=FILE        branch trace (BRA1: u64 pc, u64 target, u8 taken)\n"
"    --wet=PREFIX           Whole Execution Trace of the control flow and the\n"
"                           memory instructions: PREFIX.blocks (WTB1), .flow\n"
"                           (WTF1), .nodes (WTN2), .events (WTE2), .edges\n"
"                           (WTD2), .regs (WTR1); see docs/wet-streams.md\n"
"    --threads=FILE         log of the thread runs (THR1: u32 thread, then per\n"
"                           dynamic kind the u64 number of its records so far)\n"
"                           each time another thread starts running\n"
"    --KIND-max=N           stop that trace after N records [0 = no cap];\n"
"                           --wet-max=N caps the WET events\n"
"    --skip=N               write no record of any kind before N instructions\n"
"                           have run; the cache model warms meanwhile [0]\n"
"    --champsim-skip=N      start the ChampSim trace after N instructions\n"
"                           (at least --skip) [0]\n"
"    --branches-skip=N      start the branch trace after N instructions\n"
"                           (at least --skip) [0]\n"
"    --wet-track-mb=N       MiB of memory whose last stores the WET keeps\n"
"                           (10 bytes of tool memory per byte) [8]\n"
"    --exit-when-full=no|yes end the program when every trace is full [yes]\n"
"    --fake-rdtsc=no|yes    rdtsc returns a deterministic counter [yes]\n"
"    --fake-getrandom=no|yes getrandom(2) returns fixed pseudo-random bytes [yes]\n"
"    --fake-time=no|yes     clock_gettime/gettimeofday/time: fake clock [yes]\n"
"    --tracer-verbose=no|yes report the determinism fixes applied [no]\n"
"    FILE and PREFIX paths should be absolute.\n");
}

static void tr_print_debug_usage(void) { VG_(printf)("    (none)\n"); }

static void tr_post_clo_init(void)
{
   /* WET node records are written as code is translated, start-up or not,
      and its timestamps count from the first access: no skip there. */
   if (clo_skip && clo_wet_prefix) {
      VG_(fmsg)("tcgen-tracer: --skip cannot be combined with --wet\n");
      VG_(exit)(1);
   }
   if (clo_champsim_skip < clo_skip) clo_champsim_skip = clo_skip;
   if (clo_branches_skip < clo_skip) clo_branches_skip = clo_skip;
   count_until = (ULong)(clo_champsim_skip > clo_branches_skip
                         ? clo_champsim_skip : clo_branches_skip) + 1;
   skipping = clo_skip > 0;
   if (clo_wet_prefix) wet_init();
   threads_init();
   if (!outs_open())
      VG_(umsg)("tcgen-tracer: no output requested (--stores=, --misses=, "
                "--loads=, --champsim=, --branches=, --wet=)\n");
   recompute_active();
   champsim_init();
   misses_init();
}

static Bool finished = False;

void finish_all(void)
{
   Int k;
   if (finished) return;
   finished = True;
   champsim_finish();
   outs_close();
   if (skipping)
      VG_(umsg)("tcgen-tracer: warning: the program ended after %llu instructions, "
                "within --skip=%lld: nothing was recorded\n", instrs_seen, clo_skip);
   for (k = 0; k < N_KINDS; k++)
      if (outs[k].path)
         VG_(umsg)("tcgen-tracer: %s: %lld records -> %s\n", outs[k].name,
                   outs[k].n, outs[k].path);
   if (clo_wet_prefix) wet_report();
   threads_report();
}

static void tr_fini(Int exitcode)
{
   finish_all();
}

static void tr_pre_clo_init(void)
{
   VG_(details_name)("tcgen-tracer");
   VG_(details_version)("1");
   VG_(details_description)("binary memory/value/branch/ChampSim traces for tcgen");
   VG_(details_copyright_author)("tcgen project");
   VG_(details_bug_reports_to)("the tcgen project");
   VG_(details_avg_translation_sizeB)(400);

   VG_(basic_tool_funcs)(tr_post_clo_init, tr_instrument, tr_fini);
   VG_(needs_command_line_options)(tr_process_cmd_line_option,
                                   tr_print_usage, tr_print_debug_usage);
   VG_(needs_syscall_wrapper)(tr_pre_syscall, tr_post_syscall);
}

VG_DETERMINE_INTERFACE_VERSION(tr_pre_clo_init)
