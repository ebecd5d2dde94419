/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LONGSPAN_CREDIT_OPT_H
#define LONGSPAN_CREDIT_OPT_H

/*
 * The credit GENEVE option (class 0xFF4C, type 0x02) that carries the
 * counters of congestion/credit.h between two gateways, mechanism B on the
 * WAN hop (docs/wire-format.md, "Credits between gateways"). The codec
 * alone: no DPDK, so the fuzz target links it bare. Input is untrusted
 * (it comes from the WAN); the parser checks every field it reads.
 */

#include <assert.h>
#include <stdint.h>

#define CREDIT_OPT_TYPE 0x02
#define CREDIT_OPT_VERSION 1
#define CREDIT_OPT_DATA_BYTES 32
#define CREDIT_OPT_BYTES (4 + CREDIT_OPT_DATA_BYTES) /* with the GENEVE option header */
static_assert(CREDIT_OPT_DATA_BYTES % 4 == 0, "a GENEVE option is whole 4-byte words");

#define CREDIT_OPT_F_GRANT 0x0001 /* grant epoch and limit valid */
#define CREDIT_OPT_F_REPORT 0x0002 /* report epoch and report valid */
#define CREDIT_OPT_F_CHARGED 0x0004 /* this packet's inner bytes are in the report */
#define CREDIT_OPT_F_WAIT 0x0008 /* the sender waits for credit at this report */
#define CREDIT_OPT_F_ALL \
	(CREDIT_OPT_F_GRANT | CREDIT_OPT_F_REPORT | CREDIT_OPT_F_CHARGED | CREDIT_OPT_F_WAIT)

struct credit_opt {
	uint8_t priority; /* 0..7 */
	uint16_t flags; /* CREDIT_OPT_F_* */
	uint32_t grant_epoch;
	uint64_t grant_limit;
	uint32_t report_epoch;
	uint64_t report;
};

enum credit_opt_result {
	CREDIT_OPT_OK = 0,
	CREDIT_OPT_BAD_LENGTH, /* the option's length is not 8 words */
	CREDIT_OPT_BAD_VERSION,
	CREDIT_OPT_BAD_PRIORITY, /* above 7 */
	CREDIT_OPT_BAD_FLAGS, /* unknown bits, charged or wait without a report, no field valid */
	CREDIT_OPT_BAD_RESERVED, /* reserved bytes not 0 */
};

/*
 * Parse the option at p (its 4-byte GENEVE option header first), len bytes
 * long as its header says (the caller bounded it by the packet).
 */
enum credit_opt_result credit_opt_parse(const uint8_t *p, uint32_t len, struct credit_opt *o);

/* Write the option, header included, into p[0..CREDIT_OPT_BYTES). */
void credit_opt_write(uint8_t *p, const struct credit_opt *o);

#endif /* LONGSPAN_CREDIT_OPT_H */
