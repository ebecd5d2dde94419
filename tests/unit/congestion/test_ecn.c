/* SPDX-License-Identifier: BSD-3-Clause */
/* ECN codepoints, RFC 6040 encap/decap, RFC 1624 checksum update. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "congestion/cc_rng.h"
#include "congestion/ecn.h"

static void
test_codepoints(void **state)
{
	(void)state;
	/* RFC 3168 section 5. */
	assert_int_equal(ECN_NOT_ECT, 0);
	assert_int_equal(ECN_ECT1, 1);
	assert_int_equal(ECN_ECT0, 2);
	assert_int_equal(ECN_CE, 3);
	assert_int_equal(ecn_of_tos(0xb8 | ECN_ECT0), ECN_ECT0); /* DSCP 46 */
	assert_int_equal(ecn_tos_with(0xb8 | ECN_ECT0, ECN_CE), 0xbb);
	assert_int_equal(ecn_tos_with(0xbb, ECN_NOT_ECT), 0xb8);
	assert_false(ecn_is_capable(ECN_NOT_ECT));
	assert_true(ecn_is_capable(ECN_ECT0));
	assert_true(ecn_is_capable(ECN_ECT1));
	assert_true(ecn_is_capable(ECN_CE));
}

static void
test_mark_action(void **state)
{
	(void)state;
	assert_int_equal(ecn_mark_action(ECN_ECT0, false), ECN_ACTION_SET_CE);
	assert_int_equal(ecn_mark_action(ECN_ECT1, true), ECN_ACTION_SET_CE);
	assert_int_equal(ecn_mark_action(ECN_CE, true), ECN_ACTION_FORWARD);
	assert_int_equal(ecn_mark_action(ECN_NOT_ECT, false), ECN_ACTION_FORWARD);
	assert_int_equal(ecn_mark_action(ECN_NOT_ECT, true), ECN_ACTION_DROP);
}

static void
test_encap_copies(void **state)
{
	uint8_t e;

	(void)state;
	for (e = 0; e < 4; e++)
		assert_int_equal(ecn_encap(e), e);
	assert_int_equal(ecn_encap(0xfe), ECN_ECT0); /* only the ECN bits */
}

/* RFC 6040 section 4.2, Figure 4, written out by hand: [inner][outer]. */
static const int rfc6040_decap[4][4] = {
	/* outer:        Not-ECT      ECT(1)       ECT(0)       CE */
	[ECN_NOT_ECT] = { [ECN_NOT_ECT] = ECN_NOT_ECT, [ECN_ECT1] = ECN_NOT_ECT,
			[ECN_ECT0] = ECN_NOT_ECT, [ECN_CE] = ECN_DECAP_DROP },
	[ECN_ECT0] = { [ECN_NOT_ECT] = ECN_ECT0, [ECN_ECT1] = ECN_ECT1,
			[ECN_ECT0] = ECN_ECT0, [ECN_CE] = ECN_CE },
	[ECN_ECT1] = { [ECN_NOT_ECT] = ECN_ECT1, [ECN_ECT1] = ECN_ECT1,
			[ECN_ECT0] = ECN_ECT1, [ECN_CE] = ECN_CE },
	[ECN_CE] = { [ECN_NOT_ECT] = ECN_CE, [ECN_ECT1] = ECN_CE,
			[ECN_ECT0] = ECN_CE, [ECN_CE] = ECN_CE },
};

/* The "(!!!)" cells of the same figure. */
static const int rfc6040_unexpected[4][4] = {
	[ECN_NOT_ECT] = { [ECN_ECT1] = 1, [ECN_ECT0] = 1, [ECN_CE] = 1 },
	[ECN_CE] = { [ECN_ECT1] = 1 },
};

static void
test_decap_table(void **state)
{
	uint8_t inner, outer;

	(void)state;
	for (inner = 0; inner < 4; inner++) {
		for (outer = 0; outer < 4; outer++) {
			assert_int_equal(ecn_decap(outer, inner), rfc6040_decap[inner][outer]);
			assert_int_equal(ecn_decap_is_unexpected(outer, inner),
					rfc6040_unexpected[inner][outer]);
			/* Higher bits of the TOS bytes never matter. */
			assert_int_equal(ecn_decap((uint8_t)(outer | 0xa0), (uint8_t)(inner | 0x10)),
					rfc6040_decap[inner][outer]);
		}
	}
}

/* RFC 1071 checksum of an IPv4 header with its checksum field as stored. */
static uint16_t
full_csum(const uint8_t *h, size_t len)
{
	uint32_t sum = 0;
	size_t i;

	for (i = 0; i < len; i += 2) {
		if (i == 10)
			continue; /* the checksum field itself */
		sum += (uint32_t)(h[i] << 8 | h[i + 1]);
	}
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

static void
test_csum_all_tos_changes(void **state)
{
	struct cc_rng rng;
	uint8_t h[20];
	unsigned int hdr, old_tos, new_tos, i;
	unsigned long checked = 0;

	(void)state;
	cc_rng_seed(&rng, 1624);
	for (hdr = 0; hdr < 6; hdr++) {
		for (i = 0; i < sizeof(h); i++)
			h[i] = (uint8_t)cc_rng_next_u32(&rng);
		h[0] = 0x45;
		if (hdr == 0) /* a header whose sum is all ones: checksum 0x0000 */
			memset(h + 2, 0, sizeof(h) - 2);
		for (old_tos = 0; old_tos < 256; old_tos++) {
			uint16_t csum;

			h[1] = (uint8_t)old_tos;
			csum = full_csum(h, sizeof(h));
			for (new_tos = 0; new_tos < 256; new_tos++) {
				uint16_t inc = ecn_ipv4_csum_update_tos(csum, (uint8_t)old_tos,
						(uint8_t)new_tos);
				uint8_t n[20];

				memcpy(n, h, sizeof(n));
				n[1] = (uint8_t)new_tos;
				n[10] = (uint8_t)(inc >> 8);
				n[11] = (uint8_t)inc;
				/* Equal to the recomputed one, so the header verifies. */
				assert_int_equal(inc, full_csum(n, sizeof(n)));
				checked++;
			}
		}
	}
	assert_int_equal(checked, 6ul * 256 * 256);
}

static void
test_csum_known_value(void **state)
{
	/* A textbook header: 45 00 00 73 00 00 40 00 40 11 b8 61 c0 a8 00 01 c0 a8 00 c7. */
	uint8_t h[20] = { 0x45, 0x00, 0x00, 0x73, 0x00, 0x00, 0x40, 0x00, 0x40, 0x11,
			0xb8, 0x61, 0xc0, 0xa8, 0x00, 0x01, 0xc0, 0xa8, 0x00, 0xc7 };

	(void)state;
	assert_int_equal(full_csum(h, sizeof(h)), 0xb861);
	/* ECT(0) -> CE on TOS 0x02: the sum grows by 1, the checksum drops by 1. */
	h[1] = 0x02;
	assert_int_equal(ecn_ipv4_csum_update_tos(full_csum(h, sizeof(h)), 0x02, 0x03), 0xb85e);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_codepoints),
		cmocka_unit_test(test_mark_action),
		cmocka_unit_test(test_encap_copies),
		cmocka_unit_test(test_decap_table),
		cmocka_unit_test(test_csum_all_tos_changes),
		cmocka_unit_test(test_csum_known_value),
	};

	return cmocka_run_group_tests_name("ecn", tests, NULL, NULL);
}
