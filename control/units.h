/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LONGSPAN_UNITS_H
#define LONGSPAN_UNITS_H

/*
 * Numbers with units, as written in the config file and printed back by
 * --dump-config.
 *
 * Every value is converted exactly to an integer in a base unit (no floating
 * point): a value that is not a whole number of base units ("1.5ns") is an
 * error rather than a silent rounding, so a dump loads back to the identical
 * integer.
 *
 *   kind        base unit  accepted suffixes (case-insensitive)
 *   RATE        bit/s      none, K, M, G, T; each optionally followed by
 *                          "bps" or "bit/s" (SI: K = 10^3)
 *   SIZE        byte       none or B; kB MB GB TB (10^3 powers);
 *                          KiB MiB GiB TiB (2^10 powers). A bare K/M/G is
 *                          rejected as ambiguous.
 *   TIME        ns         ns, us (or µs), ms, s; a bare number only for 0
 *   DISTANCE    m          m, km; a bare number only for 0
 *   FRACTION    ppm        none (0.2 = 200000 ppm), %, ppm
 *   COUNT       1          none (a plain decimal integer)
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum units_kind {
	UNITS_COUNT = 0,
	UNITS_RATE,
	UNITS_SIZE,
	UNITS_TIME,
	UNITS_DISTANCE,
	UNITS_FRACTION,
};

/* Longest text units_format() produces, including the NUL. */
#define UNITS_TEXT_MAX 32

/*
 * Parse TEXT (already trimmed of surrounding blanks) as a KIND quantity into
 * *value in base units. Returns 0, or -EINVAL with *why set to a static
 * sentence fragment ("unknown unit 'x' (use ns, us, ms or s)"), or -ERANGE
 * when the result does not fit 64 bits.
 */
int units_parse(enum units_kind kind, const char *text, uint64_t *value, const char **why);

/*
 * Write VALUE as KIND into buf: the shortest exact spelling among the kind's
 * units with at most three decimals (six for fractions), the larger unit on
 * a tie ("12.5MB", "64KiB", "1500", "4us", "10G", "0.95"). The text parses
 * back to VALUE. Returns the length written, or -ENOSPC.
 */
int units_format(enum units_kind kind, uint64_t value, char *buf, size_t size);

/*
 * Parse TEXT as a boolean: yes/true/on/1 or no/false/off/0, any case.
 * Returns 0, or -EINVAL for anything else.
 */
int units_parse_bool(const char *text, bool *value);

/* Name of KIND's base unit for messages and docs ("bit/s", "bytes", "ns"). */
const char *units_base_name(enum units_kind kind);

#endif /* LONGSPAN_UNITS_H */
