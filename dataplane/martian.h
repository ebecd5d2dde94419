/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LONGSPAN_MARTIAN_H
#define LONGSPAN_MARTIAN_H

/*
 * Addresses a router must not forward ("martians"), the same set as source
 * and as destination, for the packets the gateway routes between the DC and
 * the tunnel in either direction (the caller names the drop:
 * martian_source or martian_destination). Pure functions of the address
 * bytes, for the fast path: a few compares on bytes already in cache.
 *
 * IPv4 (RFC 1812 5.3.7 with 4.2.2.11 and 5.3.5.1; RFC 3927 section 7):
 *   0/8 (this network), 127/8 (loopback), 169.254/16 (link-local),
 *   224/4 (multicast: never a source, and the gateway does not route
 *   multicast), 240/4 (class E, with the limited broadcast 255.255.255.255).
 * IPv6 (RFC 4291): :: (2.5.2), ::1 (2.5.3), fe80::/10 (link-local, 2.5.6),
 *   ff00::/8 (multicast: never a source, 2.7; interface- and link-local
 *   scopes are never forwarded, wider ones need multicast routing).
 */

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

/*
 * By the first octet of an IPv4 address: 1 a martian (0, 127, 224-255), 2
 * when the second octet decides (169.254/16), 0 not one. A table, so that
 * the fast path clears both addresses of a packet with two loads and one
 * branch (martian4_either()) instead of four compares for each.
 */
#define MARTIAN4_8(n) [n] = 1, [n + 1] = 1, [n + 2] = 1, [n + 3] = 1, \
		      [n + 4] = 1, [n + 5] = 1, [n + 6] = 1, [n + 7] = 1
static const uint8_t martian4_first[256] = {
	[0] = 1, [127] = 1, [169] = 2,
	MARTIAN4_8(224), MARTIAN4_8(232), MARTIAN4_8(240), MARTIAN4_8(248),
};
#undef MARTIAN4_8

/* a: an IPv4 address as on the wire (network order bytes). */
static inline bool
martian4(const uint8_t *a)
{
	uint8_t t = martian4_first[a[0]];

	return t == 1 || (t == 2 && a[1] == 254);
}

/*
 * May either of two IPv4 addresses be a martian? false is exact; after true
 * martian4() of each tells (and names the drop).
 */
static inline bool
martian4_either(const uint8_t *a, const uint8_t *b)
{
	return (martian4_first[a[0]] | martian4_first[b[0]]) != 0;
}

/* a: an IPv6 address, 16 bytes. */
static inline bool
martian6(const uint8_t *a)
{
	static const uint8_t zero[14];

	if (a[0] == 0xff || (a[0] == 0xfe && (a[1] & 0xc0) == 0x80))
		return true;
	/* :: and ::1. */
	return a[0] == 0 && memcmp(a + 1, zero, 14) == 0 && a[15] <= 1;
}

#endif /* LONGSPAN_MARTIAN_H */
