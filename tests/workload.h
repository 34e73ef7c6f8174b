/* workload.h - for the programs the tests sample (tests/perf-plugin/work.c,
 * tests/gdb/fk-target.c): the size of a workload's next round of work, drawn
 * from lo to lo + span - 1 by a fixed sequence (xorshift from *x: the same
 * sizes every run). Rounds of one size make a program periodic, and a sampler
 * whose period is near a multiple of a round keeps landing near one point of
 * it for hundreds of samples in a row: a share then strays far more than
 * independent samples would let it. */
#ifndef FK_TESTS_WORKLOAD_H
#define FK_TESTS_WORKLOAD_H

#define WORKLOAD_SEED 88172645463325252UL

static inline __attribute__((always_inline)) unsigned long round_size(unsigned long *x,
								       unsigned long lo,
								       unsigned long span)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return lo + *x % span;
}

#endif
