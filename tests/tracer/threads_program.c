/* A multi-threaded program whose branches are known, for the tracer's
   thread test (threads_test.sh): four worker threads, each running two
   nested loops of its own code (written in assembly so that the compiler
   cannot change them) with its own trip counts.  Each outer iteration
   starts with a `pause`, which valgrind takes as a spin-wait: it cuts the
   thread's time slice to a few hundred blocks, which then ends inside the
   inner loop, right after its branch, so that (with --fair-sched=yes) the
   threads take turns in the middle of their loops with a branch pending.
   The program prints, per loop branch, its address, its target (the loop
   head), how often it runs and how often it is taken: a thread-correct
   branch trace has exactly that many records at the branch, all with the
   loop head as target, and all from one thread.

   `threads_program staggered` starts workers 0 and 1 one after the other
   (each joined before the next starts, so valgrind gives the second the
   first one's thread slot), then 2 and 3 together: each worker is still a
   thread of its own, whose records hold its loops only. */

#include <pthread.h>
#include <stdio.h>
#include <string.h>

#define WORKERS 4

/* spinK(outer, inner): `outer` times a `pause` then `inner` iterations of
   the inner loop (dec; jnz back).  The labels name each loop's head (the
   taken target) and branch. */
#define SPIN_ASM(k)                                  \
   ".globl spin" #k "\n"                             \
   ".type spin" #k ", @function\n"                   \
   "spin" #k ":\n"                                   \
   ".globl spin" #k "_outer_head\n"                  \
   "spin" #k "_outer_head:\n"                        \
   "   pause\n"                                      \
   "   mov %rsi, %rdx\n"                             \
   ".globl spin" #k "_inner_head\n"                  \
   "spin" #k "_inner_head:\n"                        \
   "   dec %rdx\n"                                   \
   ".globl spin" #k "_inner_branch\n"                \
   "spin" #k "_inner_branch:\n"                      \
   "   jnz spin" #k "_inner_head\n"                  \
   "   dec %rdi\n"                                   \
   ".globl spin" #k "_outer_branch\n"                \
   "spin" #k "_outer_branch:\n"                      \
   "   jnz spin" #k "_outer_head\n"                  \
   "   ret\n"

__asm__(".text\n" SPIN_ASM(0) SPIN_ASM(1) SPIN_ASM(2) SPIN_ASM(3));

#define SPIN_DECL(k)                                                     \
   void spin##k(long outer, long inner);                                 \
   extern const char spin##k##_outer_head[], spin##k##_outer_branch[],   \
                     spin##k##_inner_head[], spin##k##_inner_branch[];
SPIN_DECL(0)
SPIN_DECL(1)
SPIN_DECL(2)
SPIN_DECL(3)

typedef struct {
   void (*spin)(long outer, long inner);
   const char *outer_head, *outer_branch, *inner_head, *inner_branch;
   long outer, inner;   /* trip counts */
} Loop;

#define LOOP(k, outer, inner)                                               \
   { spin##k, spin##k##_outer_head, spin##k##_outer_branch,                \
     spin##k##_inner_head, spin##k##_inner_branch, outer, inner }
static const Loop loops[WORKERS] = {
   LOOP(0, 20, 1000), LOOP(1, 21, 1001), LOOP(2, 22, 1002), LOOP(3, 23, 1003)
};

/* The workers of a group wait for each other, spinning (a futex wait would
   leave a thread asleep in the kernel while the others run): once all have
   arrived, all are runnable and take turns.  `arrived` counts every worker
   so far; a group's workers wait until it reaches `group_end`, set before
   the group starts. */
static int arrived;
static int group_end;

static void* worker(void* arg)
{
   long k = (long)arg;
   __atomic_fetch_add(&arrived, 1, __ATOMIC_SEQ_CST);
   while (__atomic_load_n(&arrived, __ATOMIC_SEQ_CST) < group_end)
      __asm__ volatile("pause");
   loops[k].spin(loops[k].outer, loops[k].inner);
   return NULL;
}

/* Runs workers first..end-1 together, and waits for them. */
static int run_group(long first, long end)
{
   pthread_t threads[WORKERS];
   long k;
   __atomic_store_n(&group_end, (int)end, __ATOMIC_SEQ_CST);
   for (k = first; k < end; k++)
      if (pthread_create(&threads[k], NULL, worker, (void*)k) != 0) {
         fprintf(stderr, "threads_program: error: cannot create a thread\n");
         return 1;
      }
   for (k = first; k < end; k++) pthread_join(threads[k], NULL);
   return 0;
}

int main(int argc, char** argv)
{
   long k;
   if (argc > 1 && strcmp(argv[1], "staggered") == 0) {
      if (run_group(0, 1) || run_group(1, 2) || run_group(2, 4)) return 1;
   } else if (argc > 1) {
      fprintf(stderr, "usage: threads_program [staggered]\n");
      return 2;
   } else if (run_group(0, WORKERS)) {
      return 1;
   }
   /* per loop branch: its target, how often it runs, how often it is taken */
   for (k = 0; k < WORKERS; k++) {
      const Loop* l = &loops[k];
      printf("worker %ld branch %#lx head %#lx runs %ld taken %ld\n", k,
             (unsigned long)l->inner_branch, (unsigned long)l->inner_head,
             l->outer * l->inner, l->outer * (l->inner - 1));
      printf("worker %ld branch %#lx head %#lx runs %ld taken %ld\n", k,
             (unsigned long)l->outer_branch, (unsigned long)l->outer_head,
             l->outer, l->outer - 1);
   }
   return 0;
}
