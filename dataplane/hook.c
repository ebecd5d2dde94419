/* SPDX-License-Identifier: BSD-3-Clause */
#include "hook.h"

#include <stddef.h>
#include <string.h>
#include <sys/socket.h>

#include <rte_branch_prediction.h>
#include <rte_common.h>

#include "roce.h"

#define HOOK_IP_PROTO_UDP 17

uint32_t
dp_hook_ctx_hash(const struct ls_hook_ctx *c)
{
	struct flow_key k;

	/* The flow table's key of this QP direction (pipeline.c builds it so from the packet). */
	memset(&k, 0, sizeof(k));
	k.family = c->family == LS_HOOK_FAMILY_IP6 ? AF_INET6 : AF_INET;
	k.sport = c->sport;
	k.dqpn = c->dest_qp;
	memcpy(k.src, c->src, sizeof(k.src));
	memcpy(k.dst, c->dst, sizeof(k.dst));
	return flow_table_hash(&k);
}

static uint16_t
hook_be16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

/* Inlined into both of its callers: the tx point's fill would otherwise make a call. */
static __rte_always_inline bool
hook_ctx_ip(struct ls_hook_ctx *c, const uint8_t *ip, uint32_t len, uint32_t hash)
{
	const uint8_t *l4, *bth;
	uint32_t hlen, tot;
	uint8_t tos;

	c->flags = 0;
	c->family = 0; /* stays 0 for bytes that are not an IP packet */
	if (len < 20)
		return false;
	if ((ip[0] >> 4) == 4) {
		hlen = (uint32_t)(ip[0] & 0x0f) * 4;
		if (hlen < 20 || hlen > len)
			return false;
		tos = ip[1];
		tot = hook_be16(ip + 2);
		c->family = LS_HOOK_FAMILY_IP4;
		c->proto = ip[9];
		memset(c->src, 0, sizeof(c->src));
		memset(c->dst, 0, sizeof(c->dst));
		memcpy(c->src, ip + 12, 4);
		memcpy(c->dst, ip + 16, 4);
		/* A non-first fragment has no UDP header. */
		if ((hook_be16(ip + 6) & 0x1fff) != 0)
			c->proto = 0;
	} else if ((ip[0] >> 4) == 6) {
		hlen = 40;
		if (len < hlen)
			return false;
		tos = (uint8_t)(ip[0] << 4 | ip[1] >> 4);
		tot = 40u + hook_be16(ip + 4);
		c->family = LS_HOOK_FAMILY_IP6;
		c->proto = ip[6]; /* extension headers: not parsed, not RoCE */
		memcpy(c->src, ip + 8, 16);
		memcpy(c->dst, ip + 24, 16);
	} else {
		return false;
	}
	c->ip_bytes = (uint16_t)(tot < len ? tot : len);
	c->dscp = tos >> 2;
	c->ecn = tos & 3;
	c->sport = c->dport = 0;
	c->dest_qp = c->psn = c->aeth_msn = 0;
	c->bth_opcode = c->aeth_syndrome = 0;
	if (c->proto != HOOK_IP_PROTO_UDP || len < hlen + 8)
		goto done;
	l4 = ip + hlen;
	c->sport = hook_be16(l4);
	c->dport = hook_be16(l4 + 2);
	if (c->dport != ROCE_UDP_PORT || len < hlen + 8 + sizeof(struct roce_bth))
		goto done;
	bth = l4 + 8;
	c->flags |= LS_HOOK_F_ROCE;
	c->bth_opcode = bth[0];
	c->dest_qp = roce_bth_dqpn((const struct roce_bth *)bth);
	c->psn = roce_bth_psn((const struct roce_bth *)bth);
	if ((c->bth_opcode == ROCE_OP_RC_ACK || c->bth_opcode == ROCE_OP_RC_ATOMIC_ACK) &&
	    len >= hlen + 8 + sizeof(struct roce_bth) + sizeof(struct roce_aeth)) {
		const uint8_t *aeth = bth + sizeof(struct roce_bth);

		c->flags |= LS_HOOK_F_AETH;
		c->aeth_syndrome = aeth[0];
		c->aeth_msn = roce_u24(aeth + 1);
	}
done:
	c->hash = hash != 0 ? hash : dp_hook_ctx_hash(c);
	return (c->flags & LS_HOOK_F_ROCE) != 0;
}

static __rte_always_inline bool
hook_ctx_ip_or_zero(struct ls_hook_ctx *c, const uint8_t *ip, uint32_t len, uint32_t hash)
{
	bool roce = hook_ctx_ip(c, ip, len, hash);

	/* Not an IP packet: every inner field 0, as if never written (direction kept). */
	if (unlikely(c->family == 0)) {
		c->ip_bytes = 0;
		memset(&c->hash, 0, offsetof(struct ls_hook_ctx, direction) -
					    offsetof(struct ls_hook_ctx, hash));
		memset(c->src, 0, offsetof(struct ls_hook_ctx, verdict) -
					  offsetof(struct ls_hook_ctx, src));
	}
	return roce;
}

bool
dp_hook_ctx_ip(struct ls_hook_ctx *c, const uint8_t *ip, uint32_t len, uint32_t hash)
{
	return hook_ctx_ip_or_zero(c, ip, len, hash);
}

void
dp_hook_io_init(struct dp_hook_io *io, uint16_t lcore)
{
	unsigned int p, j;

	memset(io, 0, sizeof(*io));
	for (p = 0; p < LS_HOOK_POINT_MAX; p++)
		for (j = 0; j < DP_HOOK_BATCH; j++)
			dp_hook_ctx_init(&io->ctx[p][j], (enum ls_hook_point)p, lcore, 0, 0);
}

/*
 * The per-packet fields of a context, each written once, field by field:
 * the per-worker ones were written by dp_hook_io_init() and the clock is
 * written by dp_hook_flush(); no memset of the whole context (a libc call
 * per packet, measured with dp_cycles and an empty hook as the largest part
 * of a point's cost). At an rx point verdict, drop and sojourn stay the 0
 * dp_hook_io_init() wrote.
 */
static __rte_always_inline void
dp_hook_fill(struct ls_hook_ctx *c, const struct dp_hook_at *at, const uint8_t *ip, uint32_t len,
	     uint32_t hash, uint32_t slot)
{
	c->port = at->port;
	c->peer = at->peer;
	c->frame_bytes = (uint16_t)(at->frame_bytes > UINT16_MAX ? UINT16_MAX : at->frame_bytes);
	hook_ctx_ip_or_zero(c, ip, len, hash); /* flags through aeth_msn */
	c->flow_slot = slot;
}

const struct ls_hook_ctx *
dp_hook_rx(struct dp_hook_io *io, const struct dp_hooks *h, enum ls_hook_point p,
	   const struct dp_hook_at *at, const uint8_t *ip, uint32_t len, uint32_t hash,
	   uint32_t slot)
{
	struct ls_hook_ctx *c = dp_hook_next(io, h, p);

	dp_hook_fill(c, at, ip, len, hash, slot);
	return c;
}

void
dp_hook_tx(struct dp_hook_io *io, const struct dp_hooks *h, enum ls_hook_point p,
	   const struct dp_hook_at *at, const uint8_t *ip, uint32_t len, uint8_t verdict,
	   uint16_t drop, uint64_t sojourn_ns, uint32_t hash, uint32_t slot)
{
	struct ls_hook_ctx *c = dp_hook_next(io, h, p);

	dp_hook_fill(c, at, ip, len, hash, hash != 0 ? slot : LS_HOOK_NO_SLOT);
	c->verdict = verdict;
	c->drop_reason = drop;
	c->sojourn_ns = sojourn_ns;
}
