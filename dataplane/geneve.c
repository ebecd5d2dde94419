/* SPDX-License-Identifier: BSD-3-Clause */
#include "geneve.h"

#include <rte_ether.h>
#include <rte_geneve.h>

/* Walk the TLVs of p[o..opt_end): class(16) type(8) R(3)+len(5), len in 4-byte words. */
static enum ls_drop_reason
geneve_options(const uint8_t *p, uint32_t o, uint32_t opt_end, struct geneve_info *gi)
{
	while (o < opt_end) {
		uint16_t cls;
		uint8_t type;
		uint32_t olen;

		if (o + 4 > opt_end)
			return LS_DROP_GENEVE_TRUNC;
		cls = (uint16_t)(p[o] << 8 | p[o + 1]);
		type = p[o + 2];
		olen = 4 + (uint32_t)(p[o + 3] & 0x1f) * 4;
		if (o + olen > opt_end)
			return LS_DROP_GENEVE_TRUNC;
		if (cls == GENEVE_OPT_CLASS_LONGSPAN && type == GENEVE_OPT_TYPE_TELEMETRY &&
		    olen == sizeof(struct geneve_ls_opt) && p[o + 4] == GENEVE_LS_OPT_VERSION) {
			const struct geneve_ls_opt *ls = (const struct geneve_ls_opt *)(p + o);

			gi->has_ls_opt = 1;
			gi->worker = rte_be_to_cpu_16(ls->worker);
			gi->seq = rte_be_to_cpu_32(ls->seq);
			gi->tx_ns = rte_be_to_cpu_64(ls->tx_ns);
		} else if (cls == GENEVE_OPT_CLASS_LONGSPAN && type == GENEVE_OPT_TYPE_ECHO &&
			   olen == sizeof(struct geneve_ls_echo) &&
			   p[o + 4] == GENEVE_LS_OPT_VERSION) {
			const struct geneve_ls_echo *e = (const struct geneve_ls_echo *)(p + o);

			gi->has_echo = 1;
			gi->echo_flags = e->flags;
			gi->echo_t1_ns = rte_be_to_cpu_64(e->t1_ns);
			gi->echo_t2_ns = rte_be_to_cpu_64(e->t2_ns);
		} else if (cls == GENEVE_OPT_CLASS_LONGSPAN && type == GENEVE_OPT_TYPE_CREDIT) {
			if (gi->has_credit ||
			    credit_opt_parse(p + o, olen, &gi->credit) != CREDIT_OPT_OK)
				return LS_DROP_CREDIT_OPT_BAD;
			gi->has_credit = 1;
		} else if (type & GENEVE_OPT_TYPE_CRITICAL) {
			return LS_DROP_GENEVE_CRIT_OPT;
		}
		o += olen;
	}
	return LS_DROP_NONE;
}

enum ls_drop_reason
geneve_parse(const uint8_t *p, uint32_t off, uint32_t end, struct geneve_info *gi)
{
	uint32_t opt_end;
	uint8_t b0, b1;
	enum ls_drop_reason r;

	if (end < off + GENEVE_HDR_SIZE)
		return LS_DROP_GENEVE_TRUNC;
	b0 = p[off];
	b1 = p[off + 1];
	if ((b0 >> 6) != 0)
		return LS_DROP_GENEVE_VERSION;
	opt_end = off + GENEVE_HDR_SIZE + (uint32_t)(b0 & 0x3f) * 4;
	if (opt_end > end)
		return LS_DROP_GENEVE_TRUNC;
	gi->proto = (uint16_t)(p[off + 2] << 8 | p[off + 3]);
	gi->vni = (uint32_t)p[off + 4] << 16 | (uint32_t)p[off + 5] << 8 | p[off + 6];
	gi->has_ls_opt = 0;
	gi->probe = 0;
	gi->has_echo = 0;
	gi->echo_flags = 0;
	gi->has_credit = 0;
	gi->control = 0;
	if (b1 & 0x80) {
		/*
		 * A control packet (protocol 0, nothing after the options): a
		 * path probe (the telemetry and echo options), a credit control
		 * packet (a credit option), or OAM we do not handle.
		 */
		if (gi->proto != 0)
			return LS_DROP_GENEVE_OAM;
		r = geneve_options(p, off + GENEVE_HDR_SIZE, opt_end, gi);
		if (r == LS_DROP_CREDIT_OPT_BAD)
			return r;
		if (r != LS_DROP_NONE || end != opt_end)
			return LS_DROP_GENEVE_OAM;
		if (gi->has_ls_opt && gi->has_echo)
			gi->probe = 1;
		else if (gi->has_credit)
			gi->control = 1;
		else
			return LS_DROP_GENEVE_OAM;
		gi->inner_off = (uint16_t)opt_end;
		return LS_DROP_NONE;
	}
	if (gi->proto != RTE_ETHER_TYPE_IPV4 && gi->proto != RTE_ETHER_TYPE_IPV6)
		return LS_DROP_GENEVE_PROTO;
	r = geneve_options(p, off + GENEVE_HDR_SIZE, opt_end, gi);
	if (r != LS_DROP_NONE)
		return r;
	gi->inner_off = (uint16_t)opt_end;
	return LS_DROP_NONE;
}
