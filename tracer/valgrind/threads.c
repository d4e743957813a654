/* Threads.  Valgrind runs one client thread at a time and switches between
   them only between superblocks; it tells the tool which thread enters the
   translated code each time one does (track_start_client_code).  The
   instruction-level kinds keep one pending record (branches.c,
   champsim.c): the instruction just started, whose outcome the next one
   gives.  When another thread starts running, the pending record is the
   stopped thread's, and it is completed here with that thread's own next
   address (where it resumes), so that no record is finished by another
   thread's code and every kind stays in execution order: each file is a
   sequence of runs, one per stretch of a thread's execution.

   --threads=FILE logs those runs: after the "THR1" header, one 68-byte
   record each time a thread starts running (the first at the first
   instruction): u32 thread number, then
   u64 the number of records already written to each of the stores,
   misses, loads, ChampSim, branches, WET flow, WET events and WET edges
   files (0 for a kind not requested).  The records of a kind from that
   count up to the next log record's are the thread's.

   A thread's number is its own for the whole run: 1 the main thread, then
   2, 3, ... in the order threads are created.  Valgrind's ThreadId is a
   slot that it gives to the next thread it creates once the slot's thread
   has exited, so the log cannot name it: two threads that ran one after
   the other would read as one.  An exiting thread's pending records are
   completed at its exit, with the address its last instruction would have
   gone on to (the run's last thread keeps them for the end of the run). */

#include "tracer.h"

/* Where each log column counts. */
static const Int thread_log_kinds[THREAD_LOG_KINDS] = {
   K_STA, K_CMA, K_LDV, K_CHS, K_BRA, K_WTF, K_WTE, K_WTD
};

static ThreadId running_tid = VG_INVALID_THREADID;
static ULong threads_created = 0;   /* the main thread counts too */
static ULong thread_switches = 0;
static ULong threads_alive = 0;
/* Per valgrind slot, the number of the thread in it (VG_N_THREADS slots). */
static UInt* thread_number = NULL;

static void thread_log(ThreadId tid)
{
   UChar* p;
   Int i;
   if (!active[K_THR]) return;
   p = out_next(K_THR);
   put_le32(p, thread_number[tid]);
   for (i = 0; i < THREAD_LOG_KINDS; i++)
      put_le64(p + 4 + 8 * i, (ULong)outs[thread_log_kinds[i]].n);
   out_commit(K_THR, 4 + 8 * THREAD_LOG_KINDS);
}

/* The running thread stops: its pending records are completed with the
   address in its guest state, the successor of its last instruction. */
static void running_thread_stops(void)
{
   Addr next_ip = VG_(get_IP)(running_tid);
   branches_thread_stops(next_ip);
   champsim_thread_stops(next_ip);
   running_tid = VG_INVALID_THREADID;
}

/* Called each time a thread enters the translated code: most often the
   thread that ran last, after a system call or a new translation. */
static void threads_start_client_code(ThreadId tid, ULong blocks_dispatched)
{
   if (tid == running_tid) return;
   if (running_tid != VG_INVALID_THREADID) {
      thread_switches++;
      running_thread_stops();
   } else if (threads_created > 1) {
      thread_switches++;   /* after a thread's exit */
   }
   running_tid = tid;
   thread_log(tid);
}

static void threads_ll_create(ThreadId parent, ThreadId child)
{
   threads_created++;
   threads_alive++;
   tl_assert(child < VG_N_THREADS);
   thread_number[child] = (UInt)threads_created;
}

/* In the exiting thread's context, after its last instruction: its slot
   may go to the next thread created, which must start a run of its own.
   The run's last thread keeps its pending records for the end of the run,
   which leaves them as a single-threaded run does. */
static void threads_ll_exit(ThreadId tid)
{
   threads_alive--;
   if (tid == running_tid && threads_alive > 0) running_thread_stops();
}

void threads_init(void)
{
   /* The main thread's creation is reported too, after this. */
   thread_number = VG_(calloc)("tcgen.thread_number", VG_N_THREADS, sizeof(UInt));
   VG_(track_start_client_code)(threads_start_client_code);
   VG_(track_pre_thread_ll_create)(threads_ll_create);
   VG_(track_pre_thread_ll_exit)(threads_ll_exit);
}

void threads_report(void)
{
   if (threads_created < 2) return;
   VG_(umsg)("tcgen-tracer: threads: %llu threads ran, %llu switches between them%s\n",
             threads_created, thread_switches,
             outs[K_THR].path ? ""
             : "; every file interleaves their runs (--threads=FILE logs them)");
}
