/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LONGSPAN_CONFIG_KEYS_H
#define LONGSPAN_CONFIG_KEYS_H

/*
 * longspand's config key table (conf_key.h's mechanism): one row per key,
 * with its section, type, unit, limits, default, help text and where it
 * lives in struct ls_config. Parsing, defaults, range checks, config_dump()
 * and config_doc_markdown() all walk this one table (style.md rule 3).
 * Internal to control/config*.c.
 */

#include <stddef.h>
#include <stdint.h>

#include "conf_key.h"
#include "config.h"

enum config_section {
	CONFIG_SEC_GATEWAY = 0,
	CONFIG_SEC_EAL,
	CONFIG_SEC_PORT,
	CONFIG_SEC_PEER,
	CONFIG_SEC_CONGESTION,
	CONFIG_SEC_PEERING,
	CONFIG_SEC_HOOK,
	CONFIG_SEC_TELEMETRY,
	CONFIG_SEC_MAX,
};

/* Value types: conf_key.h's built-ins, then the gateway's own
 * (config_types.c has one setter and one dumper for each). */
enum config_type {
	CONFIG_T_BOOL = CONF_T_BOOL,
	CONFIG_T_UINT = CONF_T_UINT, /* integer with units (key->units) */
	CONFIG_T_ENUM = CONF_T_ENUM, /* one name of key->names */
	CONFIG_T_STRING = CONF_T_STRING,
	CONFIG_T_MECH = CONF_T_FIRST_APP, /* none, or a comma list of mechanism letters */
	CONFIG_T_IFADDR4, /* IPv4 address/len of an interface (host bits kept) */
	CONFIG_T_IFADDR6,
	CONFIG_T_ADDR, /* IPv4 or IPv6 address */
	CONFIG_T_ADDR4,
	CONFIG_T_ADDR6,
	CONFIG_T_MAC,
	CONFIG_T_NEIGH, /* "IP MAC", repeatable */
	CONFIG_T_PREFIX, /* IPv4 or IPv6 network/len (host bits zero), repeatable */
	CONFIG_T_RTT, /* [peer] rtt: a time, or auto */
	CONFIG_T_MAX,
};

/* longspand's own key flags, above conf_key.h's CONF_F_*. */
#define CONFIG_F_LOOPBACK (1u << 16) /* CONFIG_T_ADDR*: loopback accepted */

/* Bounds of the per-instance bookkeeping in config.c (static_asserts in
 * config_keys.c keep the table within them). */
#define CONFIG_KEYS_MAX 128 /* rows in config_keys[] */
#define CONFIG_ELEMS_MAX 64 /* elements of one repeatable key */

/* The setter and dumper of each type (config_types.c). */
extern const struct conf_type config_types[CONFIG_T_MAX];

/* The whole table, for conf_key.h's functions. */
extern const struct conf_table config_table;

extern const struct conf_key config_keys[];
extern const unsigned int config_n_keys;

/* Section names as written inside the brackets. */
extern const char *const config_section_names[CONFIG_SEC_MAX];

/* The key NAME of SECTION, or NULL. */
const struct conf_key *config_key_find(enum config_section section, const char *name);

/* Index of KEY in config_keys[]. */
unsigned int config_key_index(const struct conf_key *key);

/* Short type description for docs: "time", "rate", "dc, wan", ... */
const char *config_key_type_text(const struct conf_key *key);

/*
 * Cross-field rules of [hook NAME] and [telemetry] (config_hooks.c): fills
 * the defaults that depend on other keys (section, pin_dir) and the parsed
 * forms (points, addresses), and reports each problem through
 * err(arg, hook, key, message), hook = UINT32_MAX for [telemetry].
 */
typedef void (*config_hooks_err_fn)(void *arg, unsigned int hook, const char *key,
				    const char *msg);
void config_hooks_check(struct ls_config *cfg, config_hooks_err_fn err, void *arg);

#endif /* LONGSPAN_CONFIG_KEYS_H */
