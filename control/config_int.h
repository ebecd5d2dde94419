/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LONGSPAN_CONFIG_INT_H
#define LONGSPAN_CONFIG_INT_H

/*
 * What config.c (reading, defaults, the transaction), config_types.c (the
 * gateway's value types) and config_check.c (the cross-field rules) share
 * while one file is loaded. Internal to control/config*.c.
 */

#include <stdbool.h>
#include <stddef.h>

#include "config.h"
#include "config_keys.h"

/* Reporting stops after this many errors: garbage input is not worth more. */
#define CONFIG_MAX_ERRORS 100u

/* Section instances: the singletons, then ports, peers and hooks. */
enum {
	CONFIG_INST_GATEWAY = 0,
	CONFIG_INST_EAL,
	CONFIG_INST_CONGESTION,
	CONFIG_INST_TELEMETRY,
	CONFIG_INST_PEERING, /* the only singleton with required keys: keep it last */
	CONFIG_INST_PORT0,
	CONFIG_INST_PEER0 = CONFIG_INST_PORT0 + LS_MAX_PORTS,
	CONFIG_INST_HOOK0 = CONFIG_INST_PEER0 + LS_MAX_PEERS,
	CONFIG_INST_MAX = CONFIG_INST_HOOK0 + LS_MAX_HOOKS,
};

/* What the parser knows about one section of the file. */
struct config_inst {
	enum config_section section;
	void *base; /* the struct in ls_config the keys write */
	char label[LS_NAME_MAX + 16]; /* "[peer site-b]" */
	unsigned int line; /* line of the header; 0 = not in the file */
	unsigned int key_line[CONFIG_KEYS_MAX]; /* first line a key was given */
	bool key_bad[CONFIG_KEYS_MAX]; /* the key was given with a bad value */
	unsigned int elem_line[CONFIG_ELEMS_MAX]; /* line of each repeated value */
};

/* One reported error, kept until the end so that all print in line order. */
struct config_msg {
	unsigned int line;
	unsigned int seq; /* order of discovery, to sort stably */
	char text[512];
};

struct config_parser {
	const char *file; /* name in messages */
	FILE *err;
	struct ls_config *cfg; /* being built; copied out on success */
	unsigned int line; /* current line; after reading, the number of lines */
	unsigned int n_errors;
	struct config_inst *cur; /* section of the current line, or NULL */
	struct config_inst inst[CONFIG_INST_MAX];
	struct config_msg msgs[CONFIG_MAX_ERRORS];
};

/* Record an error: "[section] key: message" at LINE (IN and KEY optional). */
void config_error(struct config_parser *p, unsigned int line, const struct config_inst *in,
		  const char *key, const char *fmt, ...) __attribute__((format(printf, 5, 6)));

/* Run every cross-field rule over the parsed file (config_check.c). */
void config_check(struct config_parser *p);

/* 4 or 6 for AF_INET or AF_INET6 (config_types.c). */
int config_family_version(int family);

#endif /* LONGSPAN_CONFIG_INT_H */
