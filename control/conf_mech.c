/* SPDX-License-Identifier: BSD-3-Clause */
/* Mechanism lists of config files and command lines (conf_mech.h). */
#include "conf_mech.h"

#include <errno.h>
#include <string.h>
#include <strings.h>

int
conf_mech_parse(const char *s, unsigned int *out, const char **why)
{
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
			*why = "is not a mechanism list (none, A, C or A,C)";
			return -EINVAL;
		}
		if (*s == 'A' || *s == 'a') {
			bit = CONF_MECH_A;
		} else if (*s == 'C' || *s == 'c') {
			bit = CONF_MECH_C;
		} else {
			*why = "names an unknown mechanism (none, A, C or A,C)";
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
			*why = "is not a mechanism list (none, A, C or A,C)";
			return -EINVAL;
		}
	}
	*out = bits;
	return 0;
}

const char *
conf_mech_name(unsigned int bits)
{
	switch (bits & (CONF_MECH_A | CONF_MECH_C)) {
	case CONF_MECH_A:
		return "A";
	case CONF_MECH_C:
		return "C";
	case CONF_MECH_A | CONF_MECH_C:
		return "A,C";
	default:
		return "none";
	}
}
