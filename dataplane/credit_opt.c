/* SPDX-License-Identifier: BSD-3-Clause */
#include "credit_opt.h"

#include <string.h>

#define CREDIT_OPT_CLASS 0xff4c /* GENEVE_OPT_CLASS_LONGSPAN, without geneve.h's DPDK headers */

static uint32_t
credit_get32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static uint64_t
credit_get64(const uint8_t *p)
{
	return (uint64_t)credit_get32(p) << 32 | credit_get32(p + 4);
}

static void
credit_put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

static void
credit_put64(uint8_t *p, uint64_t v)
{
	credit_put32(p, (uint32_t)(v >> 32));
	credit_put32(p + 4, (uint32_t)v);
}

enum credit_opt_result
credit_opt_parse(const uint8_t *p, uint32_t len, struct credit_opt *o)
{
	const uint8_t *d = p + 4;

	if (len != CREDIT_OPT_BYTES || (p[3] & 0x1f) != CREDIT_OPT_DATA_BYTES / 4)
		return CREDIT_OPT_BAD_LENGTH;
	if (d[0] != CREDIT_OPT_VERSION)
		return CREDIT_OPT_BAD_VERSION;
	if (d[1] > 7)
		return CREDIT_OPT_BAD_PRIORITY;
	o->priority = d[1];
	o->flags = (uint16_t)(d[2] << 8 | d[3]);
	if ((o->flags & ~CREDIT_OPT_F_ALL) != 0 ||
	    (o->flags & (CREDIT_OPT_F_GRANT | CREDIT_OPT_F_REPORT)) == 0 ||
	    ((o->flags & (CREDIT_OPT_F_CHARGED | CREDIT_OPT_F_WAIT)) &&
	     !(o->flags & CREDIT_OPT_F_REPORT)))
		return CREDIT_OPT_BAD_FLAGS;
	if (credit_get32(d + 20) != 0)
		return CREDIT_OPT_BAD_RESERVED;
	o->grant_epoch = credit_get32(d + 4);
	o->grant_limit = credit_get64(d + 8);
	o->report_epoch = credit_get32(d + 16);
	o->report = credit_get64(d + 24);
	return CREDIT_OPT_OK;
}

void
credit_opt_write(uint8_t *p, const struct credit_opt *o)
{
	uint8_t *d = p + 4;

	p[0] = (uint8_t)(CREDIT_OPT_CLASS >> 8);
	p[1] = (uint8_t)CREDIT_OPT_CLASS;
	p[2] = CREDIT_OPT_TYPE;
	p[3] = CREDIT_OPT_DATA_BYTES / 4; /* R = 0 */
	memset(d, 0, CREDIT_OPT_DATA_BYTES);
	d[0] = CREDIT_OPT_VERSION;
	d[1] = o->priority;
	d[2] = (uint8_t)(o->flags >> 8);
	d[3] = (uint8_t)o->flags;
	credit_put32(d + 4, o->grant_epoch);
	credit_put64(d + 8, o->grant_limit);
	credit_put32(d + 16, o->report_epoch);
	credit_put64(d + 24, o->report);
}
