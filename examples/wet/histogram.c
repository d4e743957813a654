/* The program of docs/wet.md's walk-through: it reads numbers made from a
   seed, counts them into buckets and prints the fullest bucket. The load
   worth asking about is the bucket's count in tally(): it runs once per
   number, and each time it reads what the same line stored on an earlier
   number that fell into the same bucket. */
#include <stdio.h>

enum { numbers = 20000, buckets = 64 };

static unsigned values[numbers];
static unsigned counts[buckets];

static void fill(unsigned seed)
{
   for (int i = 0; i < numbers; i++) {
      seed = seed * 1103515245u + 12345u;
      values[i] = (seed >> 16) % 1000;
   }
}

static void tally(void)
{
   for (int i = 0; i < numbers; i++) {
      counts[values[i] % buckets] += 1;
   }
}

int main(void)
{
   fill(7);
   tally();
   int fullest = 0;
   for (int b = 1; b < buckets; b++) {
      if (counts[b] > counts[fullest]) fullest = b;
   }
   printf("bucket %d holds %u of %d numbers\n", fullest, counts[fullest], numbers);
   return 0;
}
