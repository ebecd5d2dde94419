/* SPDX-License-Identifier: BSD-3-Clause */
/* PFC frame codec: layout, 802.3x PAUSE, truncation, other opcodes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "dataplane/pfc.h"

static const uint8_t mac[6] = { 0x02, 0, 0, 0, 0x0a, 0x01 };

static void
test_write_layout(void **state)
{
	uint16_t q[PFC_PRIORITIES] = { 1, 2, 3, 0xffff, 5, 6, 7, 8 };
	uint8_t f[PFC_FRAME_BYTES + 4];
	static const uint8_t head[] = {
		0x01, 0x80, 0xc2, 0x00, 0x00, 0x01, 0x02, 0, 0, 0, 0x0a, 0x01,
		0x88, 0x08, 0x01, 0x01, 0x00, 0x48,
		0, 0, 0, 0, 0, 0, 0xff, 0xff, 0, 0, 0, 0, 0, 7, 0, 0,
	};
	unsigned int i;

	(void)state;
	memset(f, 0xee, sizeof(f));
	assert_int_equal(pfc_frame_write(f, mac, 0x48, q), PFC_FRAME_BYTES);
	assert_memory_equal(f, head, sizeof(head));
	for (i = sizeof(head); i < PFC_FRAME_BYTES; i++)
		assert_int_equal(f[i], 0);
	assert_int_equal(f[PFC_FRAME_BYTES], 0xee); /* nothing written past the frame */
}

static void
test_round_trip(void **state)
{
	uint16_t q[PFC_PRIORITIES] = { 0, 0, 0, 1000, 0, 0, 0, 0 };
	struct pfc_frame pf;
	uint8_t f[PFC_FRAME_BYTES];

	(void)state;
	pfc_frame_write(f, mac, 0x08, q);
	assert_int_equal(pfc_frame_parse(f, sizeof(f), &pf), PFC_FRAME_OK);
	assert_int_equal(pf.class_enable, 0x08);
	assert_int_equal(pf.quanta[3], 1000);
	assert_int_equal(pf.quanta[2], 0);
	/* The fields end at byte 34: a frame cut to them still parses, one less does not. */
	assert_int_equal(pfc_frame_parse(f, PFC_FRAME_MIN_PARSE, &pf), PFC_FRAME_OK);
	assert_int_equal(pfc_frame_parse(f, PFC_FRAME_MIN_PARSE - 1, &pf), PFC_FRAME_TRUNCATED);
	assert_int_equal(pfc_frame_parse(f, 15, &pf), PFC_FRAME_TRUNCATED);
	assert_int_equal(pfc_frame_parse(f, 13, &pf), PFC_FRAME_NOT_MAC_CONTROL);
	/* The reserved high octet of the vector is ignored. */
	f[16] = 0xff;
	assert_int_equal(pfc_frame_parse(f, sizeof(f), &pf), PFC_FRAME_OK);
	assert_int_equal(pf.class_enable, 0x08);
}

static void
test_pause_and_others(void **state)
{
	uint16_t q[PFC_PRIORITIES] = { 0 };
	struct pfc_frame pf;
	uint8_t f[PFC_FRAME_BYTES];
	unsigned int i;

	(void)state;
	pfc_frame_write(f, mac, 0, q);
	/* 802.3x PAUSE: one time for every priority. */
	f[14] = 0x00;
	f[15] = 0x01;
	f[16] = 0x12;
	f[17] = 0x34;
	assert_int_equal(pfc_frame_parse(f, sizeof(f), &pf), PFC_FRAME_OK);
	assert_int_equal(pf.class_enable, 0xff);
	for (i = 0; i < PFC_PRIORITIES; i++)
		assert_int_equal(pf.quanta[i], 0x1234);
	assert_int_equal(pfc_frame_parse(f, 17, &pf), PFC_FRAME_TRUNCATED);
	/* Other MAC control opcodes (EPON GATE, ...) are not flow control. */
	f[15] = 0x02;
	assert_int_equal(pfc_frame_parse(f, sizeof(f), &pf), PFC_FRAME_OPCODE);
	/* Not MAC control: IPv4, or a VLAN tag in front (MAC control is never tagged). */
	f[12] = 0x08;
	f[13] = 0x00;
	assert_int_equal(pfc_frame_parse(f, sizeof(f), &pf), PFC_FRAME_NOT_MAC_CONTROL);
	f[12] = 0x81;
	assert_int_equal(pfc_frame_parse(f, sizeof(f), &pf), PFC_FRAME_NOT_MAC_CONTROL);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_write_layout),
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_pause_and_others),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
