/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The shared config library on its own (control/conf_ini.h, conf_key.h):
 * a small table with a tool-defined type, as longspan-sim and hostem use
 * it, read through the INI reader.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "control/conf_ini.h"
#include "control/conf_key.h"

struct demo {
	uint32_t rate_bps;
	uint64_t hold_ns;
	bool on;
	unsigned int color;
	char name[8];
	unsigned int hex;
	bool hex_set;
};

enum { DEMO_T_HEX = CONF_T_FIRST_APP, DEMO_T_MAX };

static int
demo_set_hex(const struct conf_key *k, void *base, const char *value, struct conf_set_ctx *ctx)
{
	unsigned int v;
	char end;

	if (sscanf(value, "%x%c", &v, &end) != 1)
		return conf_fail(ctx, "'%s' is not hex", value);
	*(unsigned int *)((char *)base + k->offset) = v;
	return 0;
}

static void
demo_dump_hex(const struct conf_key *k, const void *base, FILE *out)
{
	fprintf(out, "%s = %x\n", k->name, *(const unsigned int *)((const char *)base + k->offset));
}

static const struct conf_enum_name demo_colors[] = { { "red", 1 }, { "blue", 2 }, { NULL, 0 } };

static const struct conf_key demo_keys[] = {
	{ .name = "rate", .type = CONF_T_UINT, .units = UNITS_RATE, .min = 1000, .max = 4000000000u,
	  .def = "1G", CONF_FIELD(struct demo, rate_bps) },
	{ .name = "hold", .type = CONF_T_UINT, .units = UNITS_TIME, .max = 1000000000, .def = "1ms",
	  CONF_FIELD(struct demo, hold_ns) },
	{ .name = "on", .type = CONF_T_BOOL, .def = "no", CONF_FIELD(struct demo, on) },
	{ .name = "color", .type = CONF_T_ENUM, .names = demo_colors, .def = "red",
	  CONF_FIELD(struct demo, color) },
	{ .name = "name", .type = CONF_T_STRING, .flags = CONF_F_NAMECHARS, .min = 1, .max = 7,
	  CONF_FIELD(struct demo, name) },
	{ .name = "hex", .type = DEMO_T_HEX, CONF_FIELD_SET(struct demo, hex, hex_set) },
};

static const struct conf_type demo_types[DEMO_T_MAX] = {
	CONF_TYPE_BUILTINS,
	[DEMO_T_HEX] = { "hex", demo_set_hex, demo_dump_hex },
};

static const struct conf_table demo_table = {
	.keys = demo_keys,
	.n_keys = sizeof(demo_keys) / sizeof(demo_keys[0]),
	.types = demo_types,
	.n_types = DEMO_T_MAX,
};

struct demo_reader {
	struct demo d;
	char log[2048];
	size_t used;
	bool in_demo;
};

static void
demo_log(struct demo_reader *r, unsigned int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void
demo_log(struct demo_reader *r, unsigned int line, const char *fmt, ...)
{
	va_list ap;

	r->used += (size_t)snprintf(r->log + r->used, sizeof(r->log) - r->used, "%u: ", line);
	va_start(ap, fmt);
	r->used += (size_t)vsnprintf(r->log + r->used, sizeof(r->log) - r->used, fmt, ap);
	va_end(ap);
	r->used += (size_t)snprintf(r->log + r->used, sizeof(r->log) - r->used, "\n");
}

static int
demo_section(void *ctx, unsigned int line, const char *type, const char *name)
{
	struct demo_reader *r = ctx;

	r->in_demo = strcmp(type, "demo") == 0 && *name == '\0';
	if (!r->in_demo)
		demo_log(r, line, "[%s %s]: refused", type, name);
	return r->in_demo ? 0 : -1;
}

static void
demo_key(void *ctx, unsigned int line, const char *key, const char *value)
{
	struct demo_reader *r = ctx;
	const struct conf_key *k = conf_key_find(&demo_table, 0, key);
	struct conf_set_ctx sc = { .line = line };

	if (k == NULL) {
		const char *hint = conf_key_suggest(&demo_table, 0, key);

		demo_log(r, line, "%s: unknown (%s)", key, hint != NULL ? hint : "-");
		return;
	}
	if (conf_key_set(&demo_table, k, &r->d, value, &sc) < 0)
		demo_log(r, line, "%s: %s", key, sc.msg);
}

static void
demo_error(void *ctx, unsigned int line, enum conf_ini_where where, const char *msg)
{
	demo_log(ctx, line, "%s%s", where == CONF_INI_SECTION ? "in section: " : "", msg);
}

static const struct conf_ini_ops demo_ops = {
	.section = demo_section,
	.key = demo_key,
	.error = demo_error,
};

static void
test_conf_table(void **state)
{
	static const char text[] = "\xef\xbb\xbf; comment\n"
				   "[demo]\n"
				   "rate = 100M ; inline\n"
				   "hold: 250us\n"
				   "on = YES\n"
				   "color = Blue\n"
				   "hex = ff\n"
				   "hold = 5\n"
				   "rat = 1G\n"
				   "name = a b\n"
				   "not a key line\n"
				   "[other x]\n"
				   "quiet = 1\n"
				   "[demo\n"
				   "rate = 1.5bps\n";
	struct demo_reader r;
	char dump[512];
	FILE *out;

	(void)state;
	memset(&r, 0, sizeof(r));
	assert_int_equal(conf_key_defaults(&demo_table, 0, &r.d), 0);
	assert_int_equal(r.d.rate_bps, 1000000000u);
	assert_int_equal(r.d.hold_ns, 1000000);
	assert_int_equal(r.d.color, 1);
	assert_false(r.d.hex_set);
	assert_int_equal(conf_ini_parse(text, sizeof(text) - 1, 198, &demo_ops, &r), 15);
	assert_int_equal(r.d.rate_bps, 100000000u);
	assert_int_equal(r.d.hold_ns, 250000);
	assert_true(r.d.on);
	assert_int_equal(r.d.color, 2);
	assert_int_equal(r.d.hex, 0xff);
	assert_true(r.d.hex_set);
	assert_non_null(strstr(r.log, "8: hold: bad value '5': needs a unit (ns, us, ms or s)\n"));
	assert_non_null(strstr(r.log, "9: rat: unknown (rate)\n"));
	assert_non_null(strstr(r.log, "10: name: 'a b' may contain only letters"));
	assert_non_null(strstr(r.log, "11: in section: expected 'key = value' or '[section]'"));
	assert_non_null(strstr(r.log, "12: [other x]: refused\n"));
	assert_null(strstr(r.log, "13:")); /* the refused section's keys are quiet */
	assert_non_null(strstr(r.log, "14: section header without a closing ']'\n"));
	assert_null(strstr(r.log, "15:")); /* still in a refused section */

	out = fmemopen(dump, sizeof(dump), "w");
	assert_non_null(out);
	for (unsigned int i = 0; i < demo_table.n_keys; i++)
		conf_key_dump(&demo_table, &demo_keys[i], &r.d, out);
	fclose(out);
	assert_string_equal(dump, "rate = 100M\nhold = 250us\non = yes\ncolor = blue\nhex = ff\n");
	assert_string_equal(conf_key_type_text(&demo_table, &demo_keys[5]), "hex");
	assert_string_equal(conf_key_type_text(&demo_table, &demo_keys[1]), "time");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_conf_table),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
