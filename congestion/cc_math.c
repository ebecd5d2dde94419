/* SPDX-License-Identifier: BSD-3-Clause */
#include "cc_math.h"

uint64_t
cc_isqrt64(uint64_t x)
{
	uint64_t r = 0;
	uint64_t bit = UINT64_C(1) << 62; /* highest power of 4 that fits */

	/* Digit-by-digit (base 4) method: exact, 32 iterations, no division. */
	while (bit > x)
		bit >>= 2;
	while (bit != 0) {
		if (x >= r + bit) {
			x -= r + bit;
			r = (r >> 1) + bit;
		} else {
			r >>= 1;
		}
		bit >>= 2;
	}
	return r;
}
