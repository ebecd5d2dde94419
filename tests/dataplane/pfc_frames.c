/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Prints PFC frames as the gateway writes them (pfc_frame_write), one per
 * line: "CLASS_ENABLE Q0 .. Q7 HEX", for pfc_wire_check.py to dissect with
 * tshark and scapy. The cases are the gateway's own (pause and resume of
 * one priority) and edge values (all priorities, the maximum time, quanta
 * given for disabled priorities, which must go out as 0).
 */
#include <stdint.h>
#include <stdio.h>

#include "dataplane/pfc.h"

int
main(void)
{
	static const struct {
		uint8_t enable;
		uint16_t q[PFC_PRIORITIES];
	} cases[] = {
		{ 0x08, { 0, 0, 0, 0xffff, 0, 0, 0, 0 } }, /* XOFF priority 3 */
		{ 0x08, { 0, 0, 0, 0, 0, 0, 0, 0 } }, /* XON priority 3 */
		{ 0xff, { 1, 2, 3, 4, 5, 6, 7, 0xffff } },
		{ 0x41, { 100, 200, 300, 400, 500, 600, 700, 800 } },
		{ 0x00, { 9, 9, 9, 9, 9, 9, 9, 9 } },
	};
	static const uint8_t mac[6] = { 0x02, 0x00, 0x00, 0x00, 0x0a, 0x01 };
	unsigned int i, j;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint8_t f[PFC_FRAME_BYTES];
		uint32_t n = pfc_frame_write(f, mac, cases[i].enable, cases[i].q);

		printf("%u", cases[i].enable);
		for (j = 0; j < PFC_PRIORITIES; j++)
			printf(" %u", cases[i].q[j]);
		printf(" ");
		for (j = 0; j < n; j++)
			printf("%02x", f[j]);
		printf("\n");
	}
	return 0;
}
