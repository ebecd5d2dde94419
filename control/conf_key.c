/* SPDX-License-Identifier: BSD-3-Clause */
/* Config key tables: lookup, the built-in types, defaults, texts (conf_key.h). */

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <string.h>
#include <strings.h>

#include "conf_key.h"

int
conf_fail(struct conf_set_ctx *ctx, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(ctx->msg, sizeof(ctx->msg), fmt, ap);
	va_end(ap);
	return -EINVAL;
}

void
conf_put_uint(void *field, size_t size, uint64_t v)
{
	uint8_t u8 = (uint8_t)v;
	uint16_t u16 = (uint16_t)v;
	uint32_t u32 = (uint32_t)v;

	switch (size) {
	case 1:
		memcpy(field, &u8, 1);
		break;
	case 2:
		memcpy(field, &u16, 2);
		break;
	case 4:
		memcpy(field, &u32, 4);
		break;
	default:
		memcpy(field, &v, 8);
		break;
	}
}

uint64_t
conf_get_uint(const void *field, size_t size)
{
	uint8_t u8;
	uint16_t u16;
	uint32_t u32;
	uint64_t u64;

	switch (size) {
	case 1:
		memcpy(&u8, field, 1);
		return u8;
	case 2:
		memcpy(&u16, field, 2);
		return u16;
	case 4:
		memcpy(&u32, field, 4);
		return u32;
	default:
		memcpy(&u64, field, 8);
		return u64;
	}
}

bool
conf_name_ok(const char *s)
{
	for (; *s != '\0'; s++)
		if (!isalnum((unsigned char)*s) && *s != '.' && *s != '_' && *s != '-')
			return false;
	return true;
}

void
conf_names_text(const struct conf_enum_name *names, char *buf, size_t size)
{
	size_t used = 0;

	buf[0] = '\0';
	for (; names->name != NULL && used < size; names++) {
		int n = snprintf(buf + used, size - used, "%s%s", used ? ", " : "", names->name);

		if (n < 0)
			break;
		used += (size_t)n;
	}
}

/* ---- The built-in types ---------------------------------------------------- */

int
conf_set_bool(const struct conf_key *k, void *base, const char *value, struct conf_set_ctx *ctx)
{
	bool b;

	if (units_parse_bool(value, &b) < 0)
		return conf_fail(ctx, "'%s' is not a boolean (yes, no, true, false, on, off, 1, 0)",
				 value);
	*(bool *)((char *)base + k->offset) = b;
	return 0;
}

int
conf_set_uint(const struct conf_key *k, void *base, const char *value, struct conf_set_ctx *ctx)
{
	char range[96];
	const char *why;
	uint64_t v;

	if (units_parse(k->units, value, &v, &why) < 0)
		return conf_fail(ctx, "bad value '%s': %s", value, why);
	if (!((k->flags & CONF_F_ZERO) && v == 0) && (v < k->min || v > k->max)) {
		conf_key_range_text(k, range, sizeof(range));
		return conf_fail(ctx, "%s out of range (%s)", value, range);
	}
	if ((k->flags & CONF_F_POW2) && (v & (v - 1)) != 0)
		return conf_fail(ctx, "%s is not a power of two", value);
	conf_put_uint((char *)base + k->offset, k->size, v);
	return 0;
}

int
conf_set_enum(const struct conf_key *k, void *base, const char *value, struct conf_set_ctx *ctx)
{
	const struct conf_enum_name *e;
	char names[96];

	for (e = k->names; e->name != NULL; e++)
		if (strcasecmp(e->name, value) == 0)
			break;
	if (e->name == NULL) {
		conf_names_text(k->names, names, sizeof(names));
		return conf_fail(ctx, "'%s' is not one of: %s", value, names);
	}
	conf_put_uint((char *)base + k->offset, k->size, e->value);
	return 0;
}

int
conf_set_string(const struct conf_key *k, void *base, const char *value,
		struct conf_set_ctx *ctx)
{
	char *field = (char *)base + k->offset;
	size_t len = strlen(value);

	if (len > k->max)
		return conf_fail(ctx, "'%.40s...' is longer than %u characters", value,
				 (unsigned int)k->max);
	if ((k->flags & CONF_F_NAMECHARS) && !conf_name_ok(value))
		return conf_fail(ctx, "'%s' may contain only letters, digits, '.', '_' and '-'",
				 value);
	memset(field, 0, k->size);
	memcpy(field, value, len);
	return 0;
}

void
conf_dump_bool(const struct conf_key *k, const void *base, FILE *out)
{
	fprintf(out, "%s = %s\n", k->name, *(const bool *)((const char *)base + k->offset) ? "yes"
											 : "no");
}

void
conf_dump_uint(const struct conf_key *k, const void *base, FILE *out)
{
	uint64_t v = conf_get_uint((const char *)base + k->offset, k->size);
	char text[UNITS_TEXT_MAX];

	/* Keys without a default or a "set" flag are unset at 0. */
	if (v == 0 && k->def == NULL && !(k->flags & CONF_F_REQUIRED) &&
	    k->set_offset == CONF_NO_OFFSET)
		return;
	units_format(k->units, v, text, sizeof(text));
	fprintf(out, "%s = %s\n", k->name, text);
}

void
conf_dump_enum(const struct conf_key *k, const void *base, FILE *out)
{
	uint64_t v = conf_get_uint((const char *)base + k->offset, k->size);

	for (const struct conf_enum_name *e = k->names; e->name != NULL; e++)
		if (e->value == v)
			fprintf(out, "%s = %s\n", k->name, e->name);
}

void
conf_dump_string(const struct conf_key *k, const void *base, FILE *out)
{
	const char *field = (const char *)base + k->offset;

	if (*field != '\0')
		fprintf(out, "%s = %.*s\n", k->name, (int)k->size, field);
}

/* ---- Keys -------------------------------------------------------------------- */

int
conf_key_set(const struct conf_table *table, const struct conf_key *k, void *base,
	     const char *value, struct conf_set_ctx *ctx)
{
	int rc;

	ctx->msg[0] = '\0';
	if (value[0] == '\0')
		return conf_fail(ctx, "missing value");
	for (const char *c = value; *c != '\0'; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f)
			return conf_fail(ctx, "value contains a control character");
	/* A line " ;..." reads as a comment: such a value would not load back
	 * from a dump's "key = value". */
	if (value[0] == ';')
		return conf_fail(ctx, "value starts with ';' (a comment)");
	if (k->type >= table->n_types || table->types[k->type].set == NULL)
		return conf_fail(ctx, "internal error: key type %d", (int)k->type);
	rc = table->types[k->type].set(k, base, value, ctx);
	if (rc < 0)
		return rc;
	if (k->set_offset != CONF_NO_OFFSET)
		*(bool *)((char *)base + k->set_offset) = true;
	return 0;
}

void
conf_key_dump(const struct conf_table *table, const struct conf_key *k, const void *base,
	      FILE *out)
{
	if (k->set_offset != CONF_NO_OFFSET && !*(const bool *)((const char *)base + k->set_offset))
		return;
	if (k->type < table->n_types && table->types[k->type].dump != NULL)
		table->types[k->type].dump(k, base, out);
}

unsigned int
conf_key_defaults(const struct conf_table *table, unsigned int section, void *base)
{
	unsigned int failed = 0;

	for (unsigned int i = 0; i < table->n_keys; i++) {
		const struct conf_key *k = &table->keys[i];
		struct conf_set_ctx ctx = { .line = 0 };

		if (k->section != section || k->def == NULL)
			continue;
		if (conf_key_set(table, k, base, k->def, &ctx) < 0)
			failed++;
		/* A default is not "given". */
		if (k->set_offset != CONF_NO_OFFSET)
			*(bool *)((char *)base + k->set_offset) = false;
	}
	return failed;
}

const struct conf_key *
conf_key_find(const struct conf_table *table, unsigned int section, const char *name)
{
	for (unsigned int i = 0; i < table->n_keys; i++)
		if (table->keys[i].section == section && strcmp(table->keys[i].name, name) == 0)
			return &table->keys[i];
	return NULL;
}

unsigned int
conf_distance(const char *a, const char *b)
{
	unsigned int row[40], n = (unsigned int)strlen(b), m = (unsigned int)strlen(a);

	if (n >= 40 || m >= 40)
		return 99;
	for (unsigned int j = 0; j <= n; j++)
		row[j] = j;
	for (unsigned int i = 1; i <= m; i++) {
		unsigned int diag = row[0];

		row[0] = i;
		for (unsigned int j = 1; j <= n; j++) {
			unsigned int up = row[j];
			unsigned int best = diag + (a[i - 1] != b[j - 1]);

			if (up + 1 < best)
				best = up + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			diag = up;
			row[j] = best;
		}
	}
	return row[n];
}

const char *
conf_key_suggest(const struct conf_table *table, unsigned int section, const char *name)
{
	const char *best = NULL;
	unsigned int best_d = 3;

	for (unsigned int i = 0; i < table->n_keys; i++) {
		unsigned int d;

		if (table->keys[i].section != section)
			continue;
		d = conf_distance(name, table->keys[i].name);
		if (d < best_d) {
			best_d = d;
			best = table->keys[i].name;
		}
	}
	return best;
}

void
conf_key_range_text(const struct conf_key *key, char *buf, size_t size)
{
	char lo[UNITS_TEXT_MAX], hi[UNITS_TEXT_MAX];
	const char *label = key->unit_label;

	if (key->type == CONF_T_UINT) {
		units_format(key->units, key->min, lo, sizeof(lo));
		units_format(key->units, key->max, hi, sizeof(hi));
		snprintf(buf, size, "%s%s .. %s%s%s", (key->flags & CONF_F_ZERO) ? "0 or " : "",
			 lo, hi, label != NULL ? " " : "", label != NULL ? label : "");
	} else if (key->type == CONF_T_STRING) {
		snprintf(buf, size, "up to %llu characters", (unsigned long long)key->max);
	} else if (key->flags & CONF_F_REPEAT) {
		snprintf(buf, size, "up to %u entries", (unsigned int)key->max_count);
	} else {
		snprintf(buf, size, "%s", "");
	}
}

const char *
conf_key_type_text(const struct conf_table *table, const struct conf_key *key)
{
	if (key->type == CONF_T_UINT) {
		switch (key->units) {
		case UNITS_RATE:
			return "rate";
		case UNITS_SIZE:
			return "size";
		case UNITS_TIME:
			return "time";
		case UNITS_DISTANCE:
			return "distance";
		case UNITS_FRACTION:
			return "fraction";
		case UNITS_COUNT:
		default:
			return "integer";
		}
	}
	if (key->type == CONF_T_STRING)
		return (key->flags & CONF_F_NAMECHARS) ? "name" : "string";
	if (key->type < table->n_types && table->types[key->type].doc != NULL)
		return table->types[key->type].doc;
	return "?";
}
