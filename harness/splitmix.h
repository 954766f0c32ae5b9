/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * splitmix.h - splitmix64 (Steele, Lea and Flood, "Fast splittable
 * pseudorandom number generators", OOPSLA 2014): one 64-bit state, one
 * well-mixed output per step.  Where idlelab needs reproducible random
 * numbers from a seed (the campaign's order: random, the simulator's
 * streams, seeding xoshiro256** in tools/ab_bootstrap.c), it takes them
 * from here, so a seed means the same sequence everywhere.
 */
#ifndef IDLELAB_SPLITMIX_H
#define IDLELAB_SPLITMIX_H

#include <stdint.h>

/** il_splitmix64() - advance *@state and return the next output. */
static inline uint64_t il_splitmix64(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

#endif
