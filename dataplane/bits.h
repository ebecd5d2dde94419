/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LONGSPAN_BITS_H
#define LONGSPAN_BITS_H

/*
 * Byte order and CRC-32C for the per-packet path, as single instructions
 * the compiler can schedule. DPDK 22.11's x86 rte_bswap16/32/64() are
 * volatile inline asm (nothing moves across them) and rte_hash_crc_*()
 * test a run-time algorithm choice on every call; tests/perf/profile.py
 * counted both among the pipeline's hottest lines. Results are identical
 * to the DPDK helpers.
 */

#include <stdint.h>

#include <rte_byteorder.h>

/*
 * rte_hash_crc.h only where the CRC instruction is missing: its constructor
 * asks EAL for the CPU flags, which would tie every user of the byte-order
 * helpers (the parser, and its libFuzzer target linked without DPDK
 * libraries) to librte_eal.
 */
#ifdef __SSE4_2__
#include <nmmintrin.h>
#else
#include <rte_hash_crc.h>
#endif

static inline uint16_t
dp_ntohs(rte_be16_t v)
{
	return __builtin_bswap16((uint16_t)v);
}

static inline rte_be16_t
dp_htons(uint16_t v)
{
	return (rte_be16_t)__builtin_bswap16(v);
}

static inline rte_be32_t
dp_htonl(uint32_t v)
{
	return (rte_be32_t)__builtin_bswap32(v);
}

static inline rte_be64_t
dp_htonll(uint64_t v)
{
	return (rte_be64_t)__builtin_bswap64(v);
}

/* CRC-32C steps, equal to rte_hash_crc_8byte/4byte/1byte(data, crc). */
static inline uint32_t
dp_crc32c_u64(uint64_t data, uint32_t crc)
{
#ifdef __SSE4_2__
	return (uint32_t)_mm_crc32_u64(crc, data);
#else
	return rte_hash_crc_8byte(data, crc);
#endif
}

static inline uint32_t
dp_crc32c_u32(uint32_t data, uint32_t crc)
{
#ifdef __SSE4_2__
	return _mm_crc32_u32(crc, data);
#else
	return rte_hash_crc_4byte(data, crc);
#endif
}

static inline uint32_t
dp_crc32c_u8(uint8_t data, uint32_t crc)
{
#ifdef __SSE4_2__
	return _mm_crc32_u8(crc, data);
#else
	return rte_hash_crc_1byte(data, crc);
#endif
}

#endif /* LONGSPAN_BITS_H */
