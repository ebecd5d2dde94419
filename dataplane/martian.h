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

/* a: an IPv4 address as on the wire (network order bytes). */
static inline bool
martian4(const uint8_t *a)
{
	return a[0] == 0 || a[0] == 127 || a[0] >= 224 || (a[0] == 169 && a[1] == 254);
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
