/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LONGSPAN_CONF_MECH_H
#define LONGSPAN_CONF_MECH_H

/*
 * Mechanism lists as config files and command lines spell them: "none" or
 * a comma list of the letters A and C (any case, blanks around the commas),
 * for longspand's [congestion] mechanisms and longspan-sim's [gateway]
 * mechanisms / --mechanisms. Part of the config library ls_conf; the bits
 * are the dataplane's LS_MECH_* and the simulator's SIM_MECH_* (both assert
 * it).
 */

#define CONF_MECH_A (1u << 0) /* near-source CNP */
#define CONF_MECH_C (1u << 2) /* destination-side temporary reaction point */

/*
 * Parse s into *bits. 0, or -EINVAL with *why a message to follow the
 * quoted value ("names an unknown mechanism (none, A, C or A,C)").
 */
int conf_mech_parse(const char *s, unsigned int *bits, const char **why);

/* "none", "A", "C" or "A,C". */
const char *conf_mech_name(unsigned int bits);

#endif /* LONGSPAN_CONF_MECH_H */
