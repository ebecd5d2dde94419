/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Exact parsing and printing of numbers with units (units.h).
 *
 * A value is split into integer digits, fraction digits and a suffix; the
 * suffix selects a multiplier to the base unit. The result must be a whole
 * number of base units, computed with 64-bit integers only, so that
 * "12.5MB" is exactly 12500000 and never 12499999.
 */

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "units.h"

struct units_suffix {
	const char *text;
	uint64_t mult;
};

#define K1 UINT64_C(1000)
#define M1 UINT64_C(1000000)
#define G1 UINT64_C(1000000000)
#define T1 UINT64_C(1000000000000)

static const struct units_suffix units_rate[] = {
	{ "", 1 }, { "bps", 1 }, { "bit/s", 1 },
	{ "K", K1 }, { "Kbps", K1 }, { "Kbit/s", K1 },
	{ "M", M1 }, { "Mbps", M1 }, { "Mbit/s", M1 },
	{ "G", G1 }, { "Gbps", G1 }, { "Gbit/s", G1 },
	{ "T", T1 }, { "Tbps", T1 }, { "Tbit/s", T1 },
	{ NULL, 0 },
};

static const struct units_suffix units_size[] = {
	{ "", 1 }, { "B", 1 },
	{ "kB", K1 }, { "MB", M1 }, { "GB", G1 }, { "TB", T1 },
	{ "KiB", UINT64_C(1) << 10 }, { "MiB", UINT64_C(1) << 20 },
	{ "GiB", UINT64_C(1) << 30 }, { "TiB", UINT64_C(1) << 40 },
	{ NULL, 0 },
};

/* A bare number is accepted for time and distance only when it is 0. */
static const struct units_suffix units_time[] = {
	{ "", 1 }, { "ns", 1 }, { "us", K1 }, { "\xc2\xb5s", K1 }, { "ms", M1 }, { "s", G1 },
	{ NULL, 0 },
};

static const struct units_suffix units_distance[] = {
	{ "", 1 }, { "m", 1 }, { "km", K1 },
	{ NULL, 0 },
};

static const struct units_suffix units_fraction[] = {
	{ "", M1 }, { "%", 10000 }, { "ppm", 1 },
	{ NULL, 0 },
};

static const struct units_suffix units_count[] = {
	{ "", 1 },
	{ NULL, 0 },
};

static const struct units_suffix *
units_table(enum units_kind kind)
{
	switch (kind) {
	case UNITS_RATE:
		return units_rate;
	case UNITS_SIZE:
		return units_size;
	case UNITS_TIME:
		return units_time;
	case UNITS_DISTANCE:
		return units_distance;
	case UNITS_FRACTION:
		return units_fraction;
	case UNITS_COUNT:
	default:
		return units_count;
	}
}

const char *
units_base_name(enum units_kind kind)
{
	switch (kind) {
	case UNITS_RATE:
		return "bit/s";
	case UNITS_SIZE:
		return "bytes";
	case UNITS_TIME:
		return "ns";
	case UNITS_DISTANCE:
		return "m";
	case UNITS_FRACTION:
		return "ppm";
	case UNITS_COUNT:
	default:
		return "";
	}
}

static const char *
units_unknown_message(enum units_kind kind)
{
	switch (kind) {
	case UNITS_RATE:
		return "unknown unit (use K, M, G or T, optionally with bps)";
	case UNITS_SIZE:
		return "unknown unit (use B, kB, MB, GB, KiB, MiB or GiB)";
	case UNITS_TIME:
		return "unknown unit (use ns, us, ms or s)";
	case UNITS_DISTANCE:
		return "unknown unit (use m or km)";
	case UNITS_FRACTION:
		return "unknown unit (write 0.2, 20% or 200000ppm)";
	case UNITS_COUNT:
	default:
		return "not a whole number";
	}
}

static bool
units_is_digit(char c)
{
	return c >= '0' && c <= '9';
}

int
units_parse(enum units_kind kind, const char *text, uint64_t *value, const char **why)
{
	const struct units_suffix *table = units_table(kind);
	const struct units_suffix *u;
	const char *p = text;
	uint64_t whole = 0, frac = 0, mult, fmult, pow10 = 1, result;
	unsigned int n_frac = 0;
	bool any_digit = false;

	*why = NULL;
	while (units_is_digit(*p)) {
		if (__builtin_mul_overflow(whole, 10, &whole) ||
		    __builtin_add_overflow(whole, (uint64_t)(*p - '0'), &whole)) {
			*why = "too large";
			return -ERANGE;
		}
		any_digit = true;
		p++;
	}
	if (*p == '.') {
		const char *f = ++p;
		const char *last = NULL;

		/* Trailing zeros carry no value; dropping them first keeps
		 * "1.500000000000000000000s" within 64 bits. */
		while (units_is_digit(*p)) {
			if (*p != '0')
				last = p;
			p++;
		}
		if (p == f) {
			*why = "expected digits after '.'";
			return -EINVAL;
		}
		any_digit = true;
		if (last != NULL) {
			for (; f <= last; f++) {
				if (n_frac == 18) {
					*why = "too many decimals";
					return -EINVAL;
				}
				frac = frac * 10 + (uint64_t)(*f - '0');
				pow10 *= 10;
				n_frac++;
			}
		}
	}
	if (!any_digit) {
		*why = kind == UNITS_COUNT ? "not a whole number" : "expected a number";
		return -EINVAL;
	}
	while (*p == ' ' || *p == '\t')
		p++;

	for (u = table; u->text != NULL; u++)
		if (strcasecmp(u->text, p) == 0)
			break;
	if (u->text == NULL) {
		if (kind == UNITS_SIZE && p[1] == '\0' && strchr("kKmMgGtT", p[0]) != NULL)
			*why = "ambiguous unit (write kB, MB, GB for powers of 1000 or KiB, MiB, GiB "
			       "for powers of 1024)";
		else
			*why = units_unknown_message(kind);
		return -EINVAL;
	}
	mult = u->mult;

	if (__builtin_mul_overflow(whole, mult, &result)) {
		*why = "too large";
		return -ERANGE;
	}
	if (n_frac > 0) {
		uint64_t part;

		/* frac / 10^n_frac of mult must be whole; cancel common
		 * factors of ten so the product stays small. */
		fmult = mult;
		while (n_frac > 0 && fmult % 10 == 0) {
			fmult /= 10;
			pow10 /= 10;
			n_frac--;
		}
		if (__builtin_mul_overflow(frac, fmult, &part)) {
			*why = "too many decimals";
			return -EINVAL;
		}
		if (part % pow10 != 0) {
			*why = kind == UNITS_COUNT ? "not a whole number"
						    : "not a whole number of base units";
			return -EINVAL;
		}
		if (__builtin_add_overflow(result, part / pow10, &result)) {
			*why = "too large";
			return -ERANGE;
		}
	}
	if (u->text[0] == '\0' && result != 0 &&
	    (kind == UNITS_TIME || kind == UNITS_DISTANCE)) {
		*why = kind == UNITS_TIME ? "needs a unit (ns, us, ms or s)"
					  : "needs a unit (m or km)";
		return -EINVAL;
	}
	*value = result;
	return 0;
}

/* Units units_format() may choose, largest first, and how many decimals. */
struct units_display {
	const char *text;
	uint64_t mult;
	unsigned int decimals;
};

static const struct units_display units_show_rate[] = {
	{ "T", T1, 3 }, { "G", G1, 3 }, { "M", M1, 3 }, { "K", K1, 3 }, { "", 1, 0 },
	{ NULL, 0, 0 },
};

/* Binary units in whole numbers only: 65536 is 64KiB, never 65.536kB. */
static const struct units_display units_show_size[] = {
	{ "TiB", UINT64_C(1) << 40, 0 }, { "GiB", UINT64_C(1) << 30, 0 },
	{ "MiB", UINT64_C(1) << 20, 0 }, { "KiB", UINT64_C(1) << 10, 0 },
	{ "TB", T1, 3 }, { "GB", G1, 3 }, { "MB", M1, 3 }, { "kB", K1, 3 }, { "", 1, 0 },
	{ NULL, 0, 0 },
};

static const struct units_display units_show_time[] = {
	{ "s", G1, 3 }, { "ms", M1, 3 }, { "us", K1, 3 }, { "ns", 1, 0 },
	{ NULL, 0, 0 },
};

static const struct units_display units_show_distance[] = {
	{ "km", K1, 3 }, { "m", 1, 0 },
	{ NULL, 0, 0 },
};

static const struct units_display units_show_fraction[] = {
	{ "", M1, 6 },
	{ NULL, 0, 0 },
};

static const struct units_display units_show_count[] = {
	{ "", 1, 0 },
	{ NULL, 0, 0 },
};

static const struct units_display *
units_display_table(enum units_kind kind)
{
	switch (kind) {
	case UNITS_RATE:
		return units_show_rate;
	case UNITS_SIZE:
		return units_show_size;
	case UNITS_TIME:
		return units_show_time;
	case UNITS_DISTANCE:
		return units_show_distance;
	case UNITS_FRACTION:
		return units_show_fraction;
	case UNITS_COUNT:
	default:
		return units_show_count;
	}
}

int
units_format(enum units_kind kind, uint64_t value, char *buf, size_t size)
{
	const struct units_display *d = units_display_table(kind);
	char best[UNITS_TEXT_MAX] = "", cand[UNITS_TEXT_MAX];
	int len;

	if (value == 0) {
		len = snprintf(buf, size, "0");
		return len < 0 || (size_t)len >= size ? -ENOSPC : len;
	}
	/* The shortest exact spelling wins; on a tie, the larger unit. */
	for (; d->text != NULL; d++) {
		uint64_t step = d->mult, scale = d->mult, whole, rem;
		unsigned int i;

		if (value < d->mult && kind != UNITS_FRACTION)
			continue;
		for (i = 0; i < d->decimals && step % 10 == 0; i++)
			step /= 10;
		if (value % step != 0)
			continue;
		whole = value / d->mult;
		rem = value % d->mult;
		if (rem == 0) {
			snprintf(cand, sizeof(cand), "%llu%s", (unsigned long long)whole, d->text);
		} else {
			char digits[8];

			for (i = 0; i < d->decimals; i++)
				scale /= 10;
			snprintf(digits, sizeof(digits), "%0*llu", (int)d->decimals,
				 (unsigned long long)(rem / scale));
			for (size_t k = strlen(digits); k > 0 && digits[k - 1] == '0'; k--)
				digits[k - 1] = '\0';
			snprintf(cand, sizeof(cand), "%llu.%s%s", (unsigned long long)whole, digits,
				 d->text);
		}
		if (best[0] == '\0' || strlen(cand) < strlen(best))
			memcpy(best, cand, sizeof(best));
	}
	len = snprintf(buf, size, "%s", best);
	return len < 0 || (size_t)len >= size ? -ENOSPC : len;
}

int
units_parse_bool(const char *text, bool *value)
{
	static const char *const yes[] = { "yes", "true", "on", "1" };
	static const char *const no[] = { "no", "false", "off", "0" };

	for (size_t i = 0; i < 4; i++) {
		if (strcasecmp(text, yes[i]) == 0) {
			*value = true;
			return 0;
		}
		if (strcasecmp(text, no[i]) == 0) {
			*value = false;
			return 0;
		}
	}
	return -EINVAL;
}
