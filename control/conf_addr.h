/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LONGSPAN_CONF_ADDR_H
#define LONGSPAN_CONF_ADDR_H

/*
 * IP addresses and prefixes as the config files spell them ("10.1.0.1",
 * "fd00:1::/48"), for every tool that reads one: longspand's key table
 * (control/config_types.c) and longspan-hostem's (tests/lab/hostem_config.c).
 * Plain C (inet_pton), part of the config library ls_conf.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct conf_addr {
	uint8_t family; /* AF_INET, AF_INET6, or 0 when unset */
	uint8_t a[16]; /* network order; IPv4 in the first 4 bytes */
};

struct conf_prefix {
	struct conf_addr addr;
	uint8_t len; /* bits */
};

/* 4 or 16: the bytes of a's family. */
unsigned int conf_addr_len(const struct conf_addr *a);

/* 32 or 128: the bits of an address of family. */
unsigned int conf_family_bits(int family);

/* Parse an address of family (AF_INET, AF_INET6, or 0 for either). 0 or -EINVAL. */
int conf_addr_parse(const char *s, int family, struct conf_addr *out);

/*
 * Parse "ADDRESS/LEN" of family (0: either); LEN is 1 to 3 decimal digits up
 * to the family's bits. Host bits are kept (conf_prefix_clear_host_bits()).
 * 0, or -EINVAL with *why a message to follow the quoted value ("has a bad
 * prefix length (0 .. 32)").
 */
int conf_prefix_parse(const char *s, int family, struct conf_prefix *out, const char **why);

/* Does a fall inside prefix p (same family)? */
bool conf_prefix_contains(const struct conf_prefix *p, const struct conf_addr *a);

/* Clear the host bits of a beyond len; report whether any was set. */
bool conf_clear_host_bits(struct conf_addr *a, unsigned int len);

/* "10.1.0.1", or "(unset)" for family 0. */
void conf_addr_text(const struct conf_addr *a, char *buf, size_t size);

/* "10.1.0.0/16". */
void conf_prefix_text(const struct conf_prefix *p, char *buf, size_t size);

#endif /* LONGSPAN_CONF_ADDR_H */
