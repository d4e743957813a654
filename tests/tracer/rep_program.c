/* A loop around `rep stosb`: the tracer must record the loop's branch and
   never the string instruction, which VEX translates as a loop of copies of
   itself (rep_test.sh). */
#include <stddef.h>

static char buffer[4096];

int main(void)
{
   for (int round = 0; round < 50; round++) {
      void* destination = buffer;
      size_t count = sizeof buffer;
      __asm__ volatile("rep stosb" : "+D"(destination), "+c"(count) : "a"(round) : "memory");
   }
   return buffer[7] == 49 ? 0 : 1;
}
