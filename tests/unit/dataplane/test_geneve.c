/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * GENEVE header parsing (dataplane/geneve.c, RFC 8926 and the Longspan
 * option of docs/wire-format.md): version, OAM, protocol, VNI, the option
 * walk (the Longspan option's fields, unknown non-critical options skipped,
 * critical ones dropped, truncated options), and truncation at every length
 * on exactly-sized heap buffers.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "dataplane/geneve.h"
#include "ut_pkt.h"

/* A GENEVE header under construction, at a non-zero offset like after outer UDP. */
struct gbuf {
	uint8_t b[512];
	uint32_t off; /* where the GENEVE header starts */
	uint32_t opt; /* where the next option goes */
};

static void
g_start(struct gbuf *g, uint32_t off, uint16_t proto, uint32_t vni)
{
	memset(g, 0, sizeof(*g));
	memset(g->b, 0xcc, off); /* whatever precedes it */
	g->off = off;
	g->opt = off + 8;
	ut_put16(g->b + off + 2, proto);
	g->b[off + 4] = (uint8_t)(vni >> 16);
	g->b[off + 5] = (uint8_t)(vni >> 8);
	g->b[off + 6] = (uint8_t)vni;
	g->b[off + 7] = 0;
}

/* Append an option: class, type, data_words of data filled with fill. */
static uint8_t *
g_opt(struct gbuf *g, uint16_t cls, uint8_t type, uint8_t data_words, uint8_t fill)
{
	uint8_t *o = g->b + g->opt;

	ut_put16(o, cls);
	o[2] = type;
	o[3] = data_words & 0x1f;
	memset(o + 4, fill, (size_t)data_words * 4);
	g->opt += 4 + (uint32_t)data_words * 4;
	return o;
}

/* The Longspan telemetry option (docs/wire-format.md). */
static uint8_t *
g_ls_opt(struct gbuf *g, uint16_t worker, uint32_t seq, uint64_t tx_ns)
{
	uint8_t *o = g_opt(g, 0xff4c, 0x01, 4, 0);

	o[4] = 1; /* version */
	o[5] = 0;
	ut_put16(o + 6, worker);
	ut_put32(o + 8, seq);
	ut_put32(o + 12, (uint32_t)(tx_ns >> 32));
	ut_put32(o + 16, (uint32_t)tx_ns);
	return o;
}

/* Close the header: option length from the options appended; inner bytes after. */
static uint32_t
g_finish(struct gbuf *g, uint32_t inner_bytes)
{
	uint32_t opt_words = (g->opt - g->off - 8) / 4;

	g->b[g->off] = (uint8_t)((g->b[g->off] & 0xc0) | (opt_words & 0x3f));
	memset(g->b + g->opt, 0x45, inner_bytes);
	return g->opt + inner_bytes;
}

static enum ls_drop_reason
g_parse(const struct gbuf *g, uint32_t end, struct geneve_info *gi)
{
	uint8_t *b = ut_exact_copy(g->b, end);
	enum ls_drop_reason r;

	assert_true(b != NULL || end == 0);
	memset(gi, 0xa5, sizeof(*gi));
	r = geneve_parse(b, g->off, end, gi);
	free(b);
	return r;
}

static void
assert_reason(enum ls_drop_reason got, enum ls_drop_reason want)
{
	if (got != want)
		fail_msg("geneve_parse said %s, expected %s", ls_drop_reason_names[got],
			 ls_drop_reason_names[want]);
}

static void
test_base_header(void **state)
{
	struct gbuf g;
	struct geneve_info gi;
	uint32_t end;

	(void)state;
	/* No options, IPv4, VNI with every byte distinct. */
	g_start(&g, 42, 0x0800, 0xabcdef);
	end = g_finish(&g, 20);
	assert_reason(g_parse(&g, end, &gi), LS_DROP_NONE);
	assert_int_equal(gi.vni, 0xabcdef);
	assert_int_equal(gi.proto, 0x0800);
	assert_int_equal(gi.inner_off, 42 + 8);
	assert_int_equal(gi.has_ls_opt, 0);
	/* IPv6 inner, VNI 0 and 0xffffff, the reserved byte ignored. */
	g_start(&g, 62, 0x86dd, 0);
	g.b[62 + 7] = 0xff;
	end = g_finish(&g, 40);
	assert_reason(g_parse(&g, end, &gi), LS_DROP_NONE);
	assert_int_equal(gi.vni, 0);
	assert_int_equal(gi.proto, 0x86dd);
	g_start(&g, 0, 0x0800, 0xffffff);
	end = g_finish(&g, 0);
	assert_reason(g_parse(&g, end, &gi), LS_DROP_NONE);
	assert_int_equal(gi.vni, 0xffffff);
	assert_int_equal(gi.inner_off, 8);
}

static void
test_version_oam_protocol(void **state)
{
	static const uint16_t bad_proto[] = { 0x6558, 0x0806, 0x8100, 0x0000, 0xffff, 0x86de };
	struct gbuf g;
	struct geneve_info gi;
	uint32_t end;
	unsigned int v;
	size_t i;

	(void)state;
	for (v = 1; v < 4; v++) {
		g_start(&g, 42, 0x0800, 1);
		g.b[42] = (uint8_t)(v << 6);
		end = g_finish(&g, 20);
		assert_reason(g_parse(&g, end, &gi), LS_DROP_GENEVE_VERSION);
	}
	/* O bit: control traffic, not for the fast path. */
	g_start(&g, 42, 0x0800, 1);
	g.b[43] = 0x80;
	end = g_finish(&g, 20);
	assert_reason(g_parse(&g, end, &gi), LS_DROP_GENEVE_OAM);
	/* The C bit alone is fine (no critical option is there to reject). */
	g.b[43] = 0x40;
	assert_reason(g_parse(&g, end, &gi), LS_DROP_NONE);
	/* Reserved bits of the flags byte are ignored. */
	g.b[43] = 0x3f;
	assert_reason(g_parse(&g, end, &gi), LS_DROP_NONE);
	for (i = 0; i < sizeof(bad_proto) / sizeof(bad_proto[0]); i++) {
		g_start(&g, 42, bad_proto[i], 1);
		end = g_finish(&g, 20);
		assert_reason(g_parse(&g, end, &gi), LS_DROP_GENEVE_PROTO);
	}
}

static void
test_longspan_option(void **state)
{
	struct gbuf g;
	struct geneve_info gi;
	uint32_t end;

	(void)state;
	g_start(&g, 42, 0x0800, 100);
	g_ls_opt(&g, 0x0102, 0xfedcba98, UINT64_C(0x0123456789abcdef));
	end = g_finish(&g, 28);
	assert_int_equal(g.b[42] & 0x3f, 5); /* docs/wire-format.md: option length 5 */
	assert_reason(g_parse(&g, end, &gi), LS_DROP_NONE);
	assert_int_equal(gi.has_ls_opt, 1);
	assert_int_equal(gi.worker, 0x0102);
	assert_int_equal(gi.seq, 0xfedcba98);
	assert_int_equal(gi.tx_ns, UINT64_C(0x0123456789abcdef));
	assert_int_equal(gi.vni, 100);
	assert_int_equal(gi.inner_off, 42 + 8 + 20);
}

static void
test_option_walk(void **state)
{
	struct gbuf g;
	struct geneve_info gi;
	uint8_t *o;
	uint32_t end;

	(void)state;
	/* Unknown non-critical options before and after ours are skipped. */
	g_start(&g, 42, 0x86dd, 7);
	g_opt(&g, 0x0102, 0x05, 2, 0x11);
	g_opt(&g, 0xff4c, 0x03, 0, 0); /* our class, an unassigned (non-critical) type */
	g_ls_opt(&g, 3, 4, 5);
	g_opt(&g, 0x0000, 0x7f, 31, 0x22); /* the longest option: 124 data bytes */
	end = g_finish(&g, 40);
	assert_reason(g_parse(&g, end, &gi), LS_DROP_NONE);
	assert_int_equal(gi.has_ls_opt, 1);
	assert_int_equal(gi.worker, 3);
	assert_int_equal(gi.seq, 4);
	assert_int_equal(gi.tx_ns, 5);
	assert_int_equal(gi.inner_off, 42 + 8 + 12 + 4 + 20 + 128);

	/* A critical unknown option anywhere drops the packet, in our class too. */
	g_start(&g, 42, 0x0800, 7);
	g_ls_opt(&g, 3, 4, 5);
	g_opt(&g, 0x0102, 0x85, 1, 0);
	end = g_finish(&g, 20);
	assert_reason(g_parse(&g, end, &gi), LS_DROP_GENEVE_CRIT_OPT);
	g_start(&g, 42, 0x0800, 7);
	g_opt(&g, 0xff4c, 0x81, 4, 0);
	end = g_finish(&g, 20);
	assert_reason(g_parse(&g, end, &gi), LS_DROP_GENEVE_CRIT_OPT);
	g_start(&g, 42, 0x0800, 7);
	g_opt(&g, 0xffff, 0xff, 0, 0);
	end = g_finish(&g, 20);
	assert_reason(g_parse(&g, end, &gi), LS_DROP_GENEVE_CRIT_OPT);

	/* Our class and type with the wrong length or version is not ours: skipped. */
	g_start(&g, 42, 0x0800, 7);
	o = g_ls_opt(&g, 3, 4, 5);
	o[4] = 2; /* version 2 */
	end = g_finish(&g, 20);
	assert_reason(g_parse(&g, end, &gi), LS_DROP_NONE);
	assert_int_equal(gi.has_ls_opt, 0);
	g_start(&g, 42, 0x0800, 7);
	o = g_opt(&g, 0xff4c, 0x01, 5, 0);
	o[4] = 1;
	end = g_finish(&g, 20);
	assert_reason(g_parse(&g, end, &gi), LS_DROP_NONE);
	assert_int_equal(gi.has_ls_opt, 0);
	assert_int_equal(gi.inner_off, 42 + 8 + 24);
	/* The R bits of the length byte are not part of the length. */
	g_start(&g, 42, 0x0800, 7);
	o = g_ls_opt(&g, 9, 10, 11);
	o[3] |= 0xe0;
	end = g_finish(&g, 20);
	assert_reason(g_parse(&g, end, &gi), LS_DROP_NONE);
	assert_int_equal(gi.has_ls_opt, 1);
	assert_int_equal(gi.seq, 10);
}

/* The credit option (type 0x02, docs/wire-format.md): parsed, checked, and the control packet. */
static void
test_credit_option(void **state)
{
	struct gbuf g;
	struct geneve_info gi;
	uint32_t end;
	uint8_t *o;

	(void)state;
	g_start(&g, 42, 0x0800, 7);
	g_ls_opt(&g, 1, 2, 3);
	o = g_opt(&g, 0xff4c, 0x02, 8, 0);
	o[4] = 1;
	o[5] = 3;
	ut_put16(o + 6, 0x0007);
	ut_put32(o + 8, 0xaabbccdd);
	ut_put32(o + 12, 1);
	ut_put32(o + 16, 2);
	ut_put32(o + 20, 0x01020304);
	ut_put32(o + 28, 3);
	ut_put32(o + 32, 4);
	end = g_finish(&g, 20);
	assert_reason(g_parse(&g, end, &gi), LS_DROP_NONE);
	assert_int_equal(gi.has_ls_opt, 1);
	assert_int_equal(gi.has_credit, 1);
	assert_int_equal(gi.control, 0);
	assert_int_equal(gi.credit.priority, 3);
	assert_int_equal(gi.credit.flags, 7);
	assert_int_equal(gi.credit.grant_epoch, 0xaabbccdd);
	assert_int_equal(gi.credit.grant_limit, UINT64_C(0x100000002));
	assert_int_equal(gi.credit.report_epoch, 0x01020304);
	assert_int_equal(gi.credit.report, UINT64_C(0x300000004));
	assert_int_equal(gi.inner_off, 42 + 8 + 20 + 36);
	/* Reserved bytes set, a bad version, or the wrong length: a named drop. */
	o[27] = 1;
	assert_reason(g_parse(&g, end, &gi), LS_DROP_CREDIT_OPT_BAD);
	o[27] = 0;
	o[4] = 9;
	assert_reason(g_parse(&g, end, &gi), LS_DROP_CREDIT_OPT_BAD);
	g_start(&g, 42, 0x0800, 7);
	o = g_opt(&g, 0xff4c, 0x02, 7, 0);
	o[4] = 1;
	ut_put16(o + 6, 1);
	end = g_finish(&g, 20);
	assert_reason(g_parse(&g, end, &gi), LS_DROP_CREDIT_OPT_BAD);

	/* The control packet: O = 1, protocol 0, the option and nothing after it. */
	g_start(&g, 42, 0x0000, 7);
	g.b[43] = 0x80;
	o = g_opt(&g, 0xff4c, 0x02, 8, 0);
	o[4] = 1;
	ut_put16(o + 6, 2);
	end = g_finish(&g, 0);
	assert_reason(g_parse(&g, end, &gi), LS_DROP_NONE);
	assert_int_equal(gi.control, 1);
	assert_int_equal(gi.has_credit, 1);
	/* With bytes after the options, or without the option, it is OAM. */
	end = g_finish(&g, 4);
	assert_reason(g_parse(&g, end, &gi), LS_DROP_GENEVE_OAM);
	g_start(&g, 42, 0x0000, 7);
	g.b[43] = 0x80;
	end = g_finish(&g, 0);
	assert_reason(g_parse(&g, end, &gi), LS_DROP_GENEVE_OAM);
	/* Protocol 0 without O is still not IP. */
	g_start(&g, 42, 0x0000, 7);
	o = g_opt(&g, 0xff4c, 0x02, 8, 0);
	o[4] = 1;
	ut_put16(o + 6, 2);
	end = g_finish(&g, 0);
	assert_reason(g_parse(&g, end, &gi), LS_DROP_GENEVE_PROTO);
}

static void
test_truncated_options(void **state)
{
	struct gbuf g;
	struct geneve_info gi;
	uint32_t end;
	uint8_t *o;

	(void)state;
	/* The option length promises more than the header's option length holds. */
	g_start(&g, 42, 0x0800, 7);
	g_ls_opt(&g, 1, 2, 3);
	end = g_finish(&g, 40);
	g.b[42] = 4; /* 16 bytes of options: the 20-byte option does not fit */
	assert_reason(g_parse(&g, end, &gi), LS_DROP_GENEVE_TRUNC);
	/* Three bytes left for an option header. */
	g_start(&g, 42, 0x0800, 7);
	g_opt(&g, 0x0102, 0x05, 1, 0);
	end = g_finish(&g, 40);
	g.b[42] = 1; /* the option header fits, its 4 data bytes do not */
	assert_reason(g_parse(&g, end, &gi), LS_DROP_GENEVE_TRUNC);
	/* Options run past the packet end. */
	g_start(&g, 42, 0x0800, 7);
	o = g_ls_opt(&g, 1, 2, 3);
	(void)o;
	end = g_finish(&g, 0);
	for (uint32_t e = 42 + 8; e < end; e++)
		assert_reason(g_parse(&g, e, &gi), LS_DROP_GENEVE_TRUNC);
	assert_reason(g_parse(&g, end, &gi), LS_DROP_NONE);
	/* The largest option length, 63 words, with nothing behind the base header. */
	g_start(&g, 42, 0x0800, 7);
	end = g_finish(&g, 0);
	g.b[42] = 0x3f;
	assert_reason(g_parse(&g, end, &gi), LS_DROP_GENEVE_TRUNC);
	/* The base header itself cut short, also when end is before off. */
	g_start(&g, 42, 0x0800, 7);
	end = g_finish(&g, 20);
	for (uint32_t e = 0; e < 42 + 8; e++)
		assert_reason(g_parse(&g, e, &gi), LS_DROP_GENEVE_TRUNC);
}

/* Every byte value in the first two header bytes: verdicts only from the documented set. */
static void
test_first_bytes_exhaustive(void **state)
{
	struct gbuf g;
	struct geneve_info gi;
	uint32_t end;
	unsigned int b0, b1;

	(void)state;
	g_start(&g, 14, 0x0800, 7);
	/* 63 words of options: a 32-word and a 31-word non-critical option. */
	g_opt(&g, 0x0102, 0x05, 31, 0x00);
	g_opt(&g, 0x0102, 0x06, 30, 0x00);
	end = g_finish(&g, 0);
	assert_int_equal(end, 14 + 8 + 63 * 4);
	for (b0 = 0; b0 < 256; b0++) {
		for (b1 = 0; b1 < 256; b1++) {
			unsigned int words = b0 & 0x3f;
			enum ls_drop_reason r;

			g.b[14] = (uint8_t)b0;
			g.b[15] = (uint8_t)b1;
			r = g_parse(&g, end, &gi);
			if (b0 >> 6) {
				assert_reason(r, LS_DROP_GENEVE_VERSION);
			} else if (b1 & 0x80) {
				assert_reason(r, LS_DROP_GENEVE_OAM);
			} else if (words != 0 && words != 32 && words != 63) {
				/* Any other option area splits an option. */
				assert_reason(r, LS_DROP_GENEVE_TRUNC);
			} else {
				assert_reason(r, LS_DROP_NONE);
				assert_int_equal(gi.inner_off, 14 + 8 + (b0 & 0x3f) * 4);
				assert_true(gi.inner_off <= end);
			}
		}
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_base_header),
		cmocka_unit_test(test_version_oam_protocol),
		cmocka_unit_test(test_longspan_option),
		cmocka_unit_test(test_option_walk),
		cmocka_unit_test(test_credit_option),
		cmocka_unit_test(test_truncated_options),
		cmocka_unit_test(test_first_bytes_exhaustive),
	};

	return cmocka_run_group_tests_name("dataplane_geneve", tests, NULL, NULL);
}
