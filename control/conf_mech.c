/* SPDX-License-Identifier: BSD-3-Clause */
/* Mechanism lists of config files and command lines (conf_mech.h). */
#include "conf_mech.h"

#include <errno.h>
#include <string.h>
#include <strings.h>

/* The two messages, said for what the caller accepts: [0] A and C, [1] A, B and C. */
static const char *const conf_mech_not_list[2] = {
	"is not a mechanism list (none, A, C or A,C)",
	"is not a mechanism list (none, or A, B and C separated by commas: A,C or A,B,C)",
};
static const char *const conf_mech_unknown[2] = {
	"names an unknown mechanism (none, A, C or A,C)",
	"names an unknown mechanism (none, or A, B and C separated by commas: A,C or A,B,C)",
};

static unsigned int
conf_mech_bit(char c)
{
	switch (c) {
	case 'A':
	case 'a':
		return CONF_MECH_A;
	case 'B':
	case 'b':
		return CONF_MECH_B;
	case 'C':
	case 'c':
		return CONF_MECH_C;
	default:
		return 0;
	}
}

int
conf_mech_parse(const char *s, unsigned int allowed, unsigned int *out, const char **why)
{
	int with_b = (allowed & CONF_MECH_B) != 0;
	unsigned int bits = 0;

	if (strcasecmp(s, "none") == 0) {
		*out = 0;
		return 0;
	}
	while (*s != '\0') {
		unsigned int bit;
		size_t n;

		s += strspn(s, " \t");
		n = strcspn(s, ", \t");
		if (n != 1) {
			*why = conf_mech_not_list[with_b];
			return -EINVAL;
		}
		bit = conf_mech_bit(*s) & allowed;
		if (bit == 0) {
			*why = conf_mech_unknown[with_b];
			return -EINVAL;
		}
		if (bits & bit) {
			*why = "names a mechanism twice";
			return -EINVAL;
		}
		bits |= bit;
		s += n;
		s += strspn(s, " \t");
		if (*s == ',') {
			s++;
			if (s[strspn(s, " \t")] == '\0') {
				*why = "ends with ','";
				return -EINVAL;
			}
		} else if (*s != '\0') {
			*why = conf_mech_not_list[with_b];
			return -EINVAL;
		}
	}
	*out = bits;
	return 0;
}

const char *
conf_mech_name(unsigned int bits)
{
	static const char *const names[8] = { "none", "A", "B", "A,B", "C", "A,C", "B,C", "A,B,C" };

	return names[bits & (CONF_MECH_A | CONF_MECH_B | CONF_MECH_C)];
}
