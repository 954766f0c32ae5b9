/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * grow.h - the one way idlelab grows an array as elements are appended,
 * in the manner of git's ALLOC_GROW: when @nr elements no longer fit in
 * @cap, the capacity doubles (or starts at @first) and the array is
 * reallocated.  Before this header the idiom was written out at every
 * array, each copy with its own start and none checking count * size.
 *
 *	if (IL_GROW(t->v, t->cap, t->n + 1, 16))
 *		return -ENOMEM;
 *	t->v[t->n++] = x;
 *
 * Errors: IL_GROW() is 0 on success, or -ENOMEM when realloc fails or the
 * new capacity times the element size overflows (or does not fit in the
 * type of @cap); the array and @cap are then left as they were, so the
 * caller still owns, and frees, what it had.
 */
#ifndef IDLELAB_GROW_H
#define IDLELAB_GROW_H

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

/**
 * il_grow() - make room for @nr elements of @size bytes in *@v.
 * @v:     the array; replaced by the reallocated one on success
 * @cap:   its capacity in elements; updated on success
 * @nr:    how many elements must fit
 * @size:  the size of one element (nonzero)
 * @first: the capacity of the first allocation (nonzero)
 * @max:   the largest capacity the caller can hold (its counter's type)
 *
 * Nothing is done when @nr <= *@cap.  Otherwise the new capacity is twice
 * *@cap, or @first when *@cap is 0, or @nr when that is more, and at most
 * @max.
 *
 * Return: 0, or -ENOMEM (*@v and *@cap unchanged) when @nr is over @max,
 * the new size in bytes overflows, or realloc fails.
 */
static inline int il_grow(void **v, size_t *cap, size_t nr, size_t size,
			  size_t first, size_t max)
{
	size_t nc;
	void *p;

	if (nr <= *cap)
		return 0;
	if (nr > max || !size)
		return -ENOMEM;
	if (*cap)
		nc = *cap > max / 2 ? max : *cap * 2;
	else
		nc = first < max ? first : max;
	if (nc < nr)
		nc = nr;
	if (nc > SIZE_MAX / size)
		return -ENOMEM;
	p = realloc(*v, nc * size);
	if (!p)
		return -ENOMEM;
	*v = p;
	*cap = nc;
	return 0;
}

/* The largest value of the integer type of @x, as a size_t. */
#define IL_GROW_TMAX_(x)                                                      \
	((__typeof__(x))-1 > 0 ? (size_t)(__typeof__(x))-1 :                  \
	 ((size_t)1 << (8 * sizeof(x) - 1)) - 1)

/*
 * IL_GROW() - il_grow() for a typed array @arr whose capacity @cap is of
 * any integer type (int or size_t here); a capacity that would not fit in
 * @cap's type is refused like an overflow.  @arr and @cap are lvalues and
 * are evaluated more than once.
 */
#define IL_GROW(arr, cap, nr, first)                                          \
	({                                                                    \
		void *il_grow_v_ = (arr);                                     \
		size_t il_grow_c_ = (size_t)(cap);                            \
		int il_grow_r_ = il_grow(&il_grow_v_, &il_grow_c_, (nr),      \
					 sizeof(*(arr)), (first),             \
					 IL_GROW_TMAX_(cap));                 \
		if (!il_grow_r_) {                                            \
			(arr) = il_grow_v_;                                   \
			(cap) = (__typeof__(cap))il_grow_c_;                  \
		}                                                             \
		il_grow_r_;                                                   \
	})

#endif
