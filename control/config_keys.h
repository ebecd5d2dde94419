/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LONGSPAN_CONFIG_KEYS_H
#define LONGSPAN_CONFIG_KEYS_H

/*
 * The config key table: one row per key, with its section, type, unit,
 * limits, default, help text and where it lives in struct ls_config. Parsing,
 * defaults, range checks, config_dump() and config_doc_markdown() all walk
 * this one table (style.md rule 3). Internal to control/config*.c.
 */

#include <stddef.h>
#include <stdint.h>

#include "config.h"
#include "units.h"

enum config_section {
	CONFIG_SEC_GATEWAY = 0,
	CONFIG_SEC_EAL,
	CONFIG_SEC_PORT,
	CONFIG_SEC_PEER,
	CONFIG_SEC_CONGESTION,
	CONFIG_SEC_HOOK,
	CONFIG_SEC_TELEMETRY,
	CONFIG_SEC_MAX,
};

enum config_type {
	CONFIG_T_BOOL = 0,
	CONFIG_T_UINT, /* integer with units (key->units) */
	CONFIG_T_ENUM, /* one name of key->names */
	CONFIG_T_MECH, /* none, or a comma list of mechanism letters */
	CONFIG_T_STRING,
	CONFIG_T_IFADDR4, /* IPv4 address/len of an interface (host bits kept) */
	CONFIG_T_IFADDR6,
	CONFIG_T_ADDR, /* IPv4 or IPv6 address */
	CONFIG_T_ADDR4,
	CONFIG_T_ADDR6,
	CONFIG_T_MAC,
	CONFIG_T_NEIGH, /* "IP MAC", repeatable */
	CONFIG_T_PREFIX, /* IPv4 or IPv6 network/len (host bits zero), repeatable */
};

/* Key flags. */
#define CONFIG_F_REQUIRED (1u << 0)
#define CONFIG_F_REPEAT (1u << 1) /* may appear many times, appends */
#define CONFIG_F_ZERO (1u << 2) /* 0 is accepted besides min..max ("derive") */
#define CONFIG_F_POW2 (1u << 3) /* must be a power of two */
#define CONFIG_F_NAMECHARS (1u << 4) /* string of [A-Za-z0-9_.-] */

#define CONFIG_NO_OFFSET UINT16_MAX

/* Bounds of the per-instance bookkeeping in config.c (static_asserts in
 * config_keys.c keep the table within them). */
#define CONFIG_KEYS_MAX 96 /* rows in config_keys[] */
#define CONFIG_ELEMS_MAX 64 /* elements of one repeatable key */

struct config_enum_name {
	const char *name;
	unsigned int value;
};

struct config_key {
	enum config_section section;
	const char *name;
	enum config_type type;
	enum units_kind units; /* CONFIG_T_UINT only */
	const char *unit_label; /* shown after numbers in docs ("bytes", "MiB") */
	uint32_t flags;
	uint64_t min, max; /* CONFIG_T_UINT in base units; CONFIG_T_STRING: max length */
	const char *def; /* default in config syntax; NULL = unset */
	const struct config_enum_name *names; /* CONFIG_T_ENUM */
	/* Where the value lives, relative to the section's struct. */
	uint16_t offset;
	uint16_t size; /* sizeof the field (of one element if repeatable) */
	uint16_t set_offset; /* bool "was set" field, or CONFIG_NO_OFFSET */
	uint16_t count_offset; /* repeatable: unsigned int element count */
	uint16_t max_count; /* repeatable: array capacity */
	const char *help;
};

extern const struct config_key config_keys[];
extern const unsigned int config_n_keys;

/* Section names as written inside the brackets. */
extern const char *const config_section_names[CONFIG_SEC_MAX];

/* The key NAME of SECTION, or NULL. */
const struct config_key *config_key_find(enum config_section section, const char *name);

/* Index of KEY in config_keys[]. */
unsigned int config_key_index(const struct config_key *key);

/* "1 .. 16", "0 or 1024 .. 67108864", "1us .. 1s", "576 .. 9216 bytes",
 * "up to 31 characters": the accepted values of KEY, for messages and docs. */
void config_key_range_text(const struct config_key *key, char *buf, size_t size);

/* Short type description for docs: "time", "rate", "dc, wan", ... */
const char *config_key_type_text(const struct config_key *key);

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
