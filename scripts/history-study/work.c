/* The study's workload: deterministic work whose amount is its argument.
 * A chain of xorshift64 steps, each depending on the last, so the compiler
 * can neither drop nor vectorise it and the time is proportional to the
 * count (no memory traffic, no allocation, no I/O). Prints nothing; exits 2
 * on a bad argument. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: work ITERATIONS\n");
        return 2;
    }
    char *end;
    unsigned long long n = strtoull(argv[1], &end, 10);
    if (*end != '\0' || n == 0) {
        fprintf(stderr, "work: ITERATIONS must be a positive integer\n");
        return 2;
    }
    uint64_t x = 88172645463325252ULL;
    for (unsigned long long i = 0; i < n; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
    }
    /* The result decides the exit status, so the loop is needed. */
    return x == 0 ? 1 : 0;
}
