/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LONGSPAN_CONF_MECH_H
#define LONGSPAN_CONF_MECH_H

/*
 * Mechanism lists as config files and command lines spell them: "none" or
 * a comma list of the letters A, B and C, each once (any case, blanks around
 * the commas), for longspand's [congestion] mechanisms (A and C: the gateway
 * selects B per peer with `lossless`) and longspan-sim's [gateway]
 * mechanisms / --mechanisms (A, B and C). Part of the config library
 * ls_conf; the bits are the dataplane's LS_MECH_* and the simulator's
 * SIM_MECH_* (both assert it).
 */

#define CONF_MECH_A (1u << 0) /* near-source CNP */
#define CONF_MECH_B (1u << 1) /* PFC at the DC port and the credit-based WAN hop */
#define CONF_MECH_C (1u << 2) /* destination-side temporary reaction point */

/*
 * Parse s into *bits, accepting only the mechanisms in `allowed`
 * (CONF_MECH_* bits: A|C or A|B|C). 0, or -EINVAL with *why a message to
 * follow the quoted value ("names an unknown mechanism (none, A, C or A,C)").
 */
int conf_mech_parse(const char *s, unsigned int allowed, unsigned int *bits, const char **why);

/* "none", "A", "B", "A,B", "C", "A,C", "B,C" or "A,B,C". */
const char *conf_mech_name(unsigned int bits);

#endif /* LONGSPAN_CONF_MECH_H */
