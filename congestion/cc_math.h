/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LONGSPAN_CC_MATH_H
#define LONGSPAN_CC_MATH_H

/*
 * Fixed-point helpers shared by the congestion algorithms.
 *
 * Q32 means an unsigned value scaled by 2^32: 1.0 is CC_Q32_ONE. Products of
 * a 64-bit quantity and a Q32 fraction go through a 128-bit intermediate so
 * that rates in bits per second (up to 2^41 for 1.6 Tb/s) can be scaled
 * without overflow or loss of the low bits. GCC and Clang provide
 * unsigned __int128 on every 64-bit target DPDK supports.
 */

#include <stdint.h>

#define CC_Q32_SHIFT 32
#define CC_Q32_ONE (UINT64_C(1) << CC_Q32_SHIFT)

#define CC_NS_PER_SEC UINT64_C(1000000000)
#define CC_PPM_ONE UINT32_C(1000000) /* 100% in parts per million */

__extension__ typedef unsigned __int128 cc_u128;

/* floor(a * q32 / 2^32), saturating at UINT64_MAX. */
static inline uint64_t
cc_mul_q32(uint64_t a, uint64_t q32)
{
	cc_u128 p = ((cc_u128)a * q32) >> CC_Q32_SHIFT;

	return p > UINT64_MAX ? UINT64_MAX : (uint64_t)p;
}

/* floor(a * b / c) with a 128-bit intermediate, saturating; c must not be 0. */
static inline uint64_t
cc_mul_div(uint64_t a, uint64_t b, uint64_t c)
{
	cc_u128 p = (cc_u128)a * b / c;

	return p > UINT64_MAX ? UINT64_MAX : (uint64_t)p;
}

/* ceil(a * b / c) with a 128-bit intermediate, saturating; c must not be 0. */
static inline uint64_t
cc_mul_div_ceil(uint64_t a, uint64_t b, uint64_t c)
{
	cc_u128 p = ((cc_u128)a * b + c - 1) / c;

	return p > UINT64_MAX ? UINT64_MAX : (uint64_t)p;
}

/* Parts per million as a Q32 fraction (1e6 ppm -> 2^32), rounded to nearest. */
static inline uint64_t
cc_ppm_to_q32(uint32_t ppm)
{
	return (((uint64_t)ppm << CC_Q32_SHIFT) + CC_PPM_ONE / 2) / CC_PPM_ONE;
}

/* Integer square root: the largest r with r * r <= x. */
uint64_t cc_isqrt64(uint64_t x);

#endif /* LONGSPAN_CC_MATH_H */
