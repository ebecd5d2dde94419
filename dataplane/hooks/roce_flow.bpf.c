/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The shipped hook: per-QP RoCE telemetry. Attach it to the rx and tx
 * points (docs/telemetry.md); it keeps one struct ls_hook_flow_rec per QP
 * direction (inner 5-tuple + BTH destination QP) in the lcore's flow map:
 *
 *   rx points: packets, bytes, ECT and CE as received, CNPs from hosts,
 *              data PSN tracking (gaps, out of sequence, going back), NAKs;
 *   tx points: transmitted packets and bytes, the gateway's verdict (CE
 *              marked, CNP generated, held by mechanism C, dropped) and the
 *              log2 histogram of the sojourn time.
 *
 * Slots: open addressing with a linear probe of ROCE_FLOW_PROBES slots,
 * fully unrolled (rte_bpf 22.11 runs no loops), starting at the packet's
 * slot in the gateway's flow table (ctx.flow_slot, the same at its rx and
 * tx points and one live flow's at a time: a gateway table no larger than
 * this one never puts two flows on one start), or at its flow hash when
 * it has none. The
 * lcore's worker is the only writer, so a slot is claimed with plain stores:
 * the key first, then (after a compiler barrier) the word holding the hash,
 * which readers check first. A slot idle for ROCE_FLOW_IDLE_MS may be given
 * to another flow (lazy aging, as in dataplane/flow.c); the exporter reads
 * every slot more often than that. When the probe window holds only live
 * flows the packet is not accounted and the hook returns 1 (the gateway
 * counts it as the hook's error).
 *
 * Built with: clang -O2 -target bpf -mcpu=v2 -ffreestanding -c (meson does).
 */
#include "dataplane/hook_abi.h"

#ifndef ROCE_FLOW_SLOTS
#define ROCE_FLOW_SLOTS 131072u /* 64k flows at half load; 32 MiB per lcore */
#endif
#define ROCE_FLOW_MASK (ROCE_FLOW_SLOTS - 1)
#define ROCE_FLOW_PROBES 8
#define ROCE_FLOW_IDLE_MS 30000u
#define ROCE_FLOW_IDLE_NS ((uint64_t)ROCE_FLOW_IDLE_MS * 1000000u)
#define ROCE_PSN_MASK 0xffffffu /* PSNs are 24 bits (IB spec vol. 1, 9.7.1) */
#define ROCE_PSN_HALF 0x800000u

_Static_assert((ROCE_FLOW_SLOTS & ROCE_FLOW_MASK) == 0, "slot count is a power of two");
_Static_assert(ROCE_FLOW_SLOTS <= LS_HOOK_FLOW_SLOTS_MAX, "slot count within the ABI limit");

LS_HOOK_DECLARE(ROCE_FLOW_SLOTS, 0, ROCE_FLOW_IDLE_MS);

extern struct ls_hook_flow_rec ls_hook_flows[ROCE_FLOW_SLOTS];

/* The record of slot j (index masked as the 22.11 verifier needs: hook_abi.h). */
LS_HOOK_INLINE struct ls_hook_flow_rec *
slot(uint64_t j)
{
	struct ls_hook_flow_rec *r = ls_hook_flows;

	ls_hook_index(j, ROCE_FLOW_MASK);
	ls_hook_ptr_add(r, j * sizeof(struct ls_hook_flow_rec));
	return r;
}

/* All 48 key bytes, hash included, equal: one branch per probe. */
LS_HOOK_INLINE int
key_eq(const struct ls_hook_flow_rec *r, const struct ls_hook_ctx *c)
{
	const uint64_t *a = (const uint64_t *)r;
	const uint64_t *b = (const uint64_t *)&c->hash;

	return ((a[0] ^ b[0]) | (a[1] ^ b[1]) | (a[2] ^ b[2]) | (a[3] ^ b[3]) | (a[4] ^ b[4]) |
		(a[5] ^ b[5])) == 0;
}

/* Give slot r to the flow of c: counters zeroed, key written, hash last. */
LS_HOOK_INLINE void
claim(struct ls_hook_flow_rec *r, const struct ls_hook_ctx *c)
{
	uint64_t *w = (uint64_t *)r;
	const uint64_t *k = (const uint64_t *)&c->hash;
	int i;

	w[0] = 0; /* hash 0: readers skip the slot while it changes hands */
	ls_hook_barrier();
#pragma unroll
	for (i = 1; i < (int)(LS_HOOK_KEY_BYTES / 8); i++)
		w[i] = k[i];
#pragma unroll
	for (i = LS_HOOK_KEY_BYTES / 8; i < (int)(sizeof(*r) / 8); i++)
		w[i] = 0;
	r->first_ns = c->now_ns;
	r->peer = LS_HOOK_NO_PEER;
	ls_hook_barrier();
	w[0] = k[0];
}

/*
 * The accounting below is arithmetic rather than branches where it can be:
 * cheaper for mixed traffic, and the 22.11 verifier walks every path
 * through the program, so each branch after the slot lookup multiplies the
 * time a reload spends verifying the hook. The exceptions (a PSN out of
 * sequence, a NAK, a packet not simply forwarded) are branches: their
 * counters are in the record's last cache line (hook_abi.h), which a
 * packet without one then never touches.
 */

/* Where the probe starts: ctx.flow_slot, or the hash without one (branch-free). */
LS_HOOK_INLINE uint64_t
home(const struct ls_hook_ctx *c)
{
	uint64_t s = c->flow_slot;
	uint64_t none = (s + 1) >> 32; /* 1 for LS_HOOK_NO_SLOT (0xffffffff), else 0 */

	return s ^ ((s ^ c->hash) & -none);
}

/* 1 when v >= 2^k (v < 2^63), without a branch. */
#define GE_POW2(v, k) (1 - (((v) - (1ull << (k))) >> 63))

/* Sojourn histogram bucket (hook_abi.h): 0 below 1024 ns, 15 from 2^24 ns. */
LS_HOOK_INLINE uint64_t
sojourn_bucket(uint64_t ns)
{
	uint64_t v = ns >> LS_HOOK_SOJOURN_SHIFT;
	uint64_t b = 0, t;

	if (v == 0)
		return 0; /* below 1 us: the common case, 30 instructions fewer */
	if (v >= (1u << 14))
		return LS_HOOK_SOJOURN_BUCKETS - 1;
	/* floor(log2(v)) + 1 by halving, v < 2^14 here; 0 for v == 0. */
	t = GE_POW2(v, 8) << 3;
	b += t;
	v >>= t;
	t = GE_POW2(v, 4) << 2;
	b += t;
	v >>= t;
	t = GE_POW2(v, 2) << 1;
	b += t;
	v >>= t;
	t = GE_POW2(v, 1);
	b += t;
	v >>= t;
	return b + v; /* v is 0 or 1 here */
}

LS_HOOK_INLINE void
account_rx(struct ls_hook_flow_rec *r, const struct ls_hook_ctx *c)
{
	uint64_t ecn = c->ecn & 3;
	uint8_t op = c->bth_opcode;

	r->pkts++;
	r->bytes += c->ip_bytes;
	r->port = c->port;
	r->peer = c->peer;
	r->dscp = c->dscp;
	r->ce_pkts += (ecn + 1) >> 2; /* 3 (CE) */
	r->ect_pkts += ((ecn + 1) >> 1) & 1; /* 1 or 2 (ECT(1), ECT(0)) */

	if (op == LS_HOOK_OP_CNP) {
		r->cnp_seen++;
	} else if (op == LS_HOOK_OP_RC_ACK || op == LS_HOOK_OP_RC_ATOMIC_ACK) {
		/* AETH syndrome bits 6:5: 3 NAK, 1 RNR NAK. */
		uint32_t t = (c->aeth_syndrome >> 5) & 3;
		uint32_t aeth = c->flags / LS_HOOK_F_AETH & 1;

		if ((t & aeth) != 0) { /* 1 or 3: not a plain ACK */
			r->naks += (t + 1) >> 2;
			r->rnr_naks += ~(t >> 1) & 1;
		}
	} else {
		/*
		 * Data: d = serial distance from the expected PSN in the 24-bit
		 * PSN space (IB spec vol. 1, 9.7.1); ahead by less than half the
		 * space is a gap, anything else not 0 is a PSN going back.
		 */
		uint32_t psn = c->psn & ROCE_PSN_MASK;
		uint32_t d = (psn - r->next_psn) & ROCE_PSN_MASK;
		uint32_t ooo = ((d + ROCE_PSN_MASK) >> 24) & r->psn_valid;

		if (ooo != 0) {
			uint32_t gap = ~(d >> 23) & 1;

			r->psn_ooo++;
			r->psn_gaps += gap;
			r->retrans += 1 - gap;
			r->psn_skipped += d & -gap;
		}
		r->psn_valid = 1;
		r->next_psn = (psn + 1) & ROCE_PSN_MASK;
	}
}

LS_HOOK_INLINE void
account_tx(struct ls_hook_flow_rec *r, const struct ls_hook_ctx *c)
{
	uint32_t v = c->verdict;
	uint64_t fwd = v & LS_HOOK_V_FORWARDED;
	uint64_t b = sojourn_bucket(c->sojourn_ns);
	uint32_t *h = r->sojourn_hist;

	_Static_assert(LS_HOOK_V_FORWARDED == 1, "forwarded is bit 0");
	r->tx_pkts += fwd;
	r->tx_bytes += c->ip_bytes & -fwd;
	r->sojourn_sum_ns += c->sojourn_ns & -fwd;
	ls_hook_index(b, LS_HOOK_SOJOURN_BUCKETS - 1);
	ls_hook_ptr_add(h, b * sizeof(*h));
	*h += (uint32_t)fwd;
	if (v != LS_HOOK_V_FORWARDED) {
		r->tx_drops += 1 - fwd;
		r->marked += v / LS_HOOK_V_MARKED & 1;
		r->cnp_generated += v / LS_HOOK_V_CNP_GENERATED & 1;
		r->held += v / LS_HOOK_V_HELD & 1;
	}
}

LS_HOOK_SEC("roce_flow") uint64_t
roce_flow_run(const struct ls_hook_ctx *c)
{
	struct ls_hook_flow_rec *r;
	uint64_t j = 0, j0;
	int found = 0, fresh = 0, i;

	if (!(c->flags & LS_HOOK_F_ROCE))
		return 0; /* not RoCE: nothing to account */

	/* Probe: the flow's slot, or the first never used one (end of chain). */
	j0 = home(c);
#pragma unroll
	for (i = 0; i < ROCE_FLOW_PROBES; i++) {
		j = j0 + (uint64_t)i;
		r = slot(j);
		if (key_eq(r, c)) {
			found = 1;
			break;
		}
		if (r->hash == 0) {
			found = fresh = 1;
			break;
		}
	}
	/* A new flow and no free slot: take the first one idle long enough. */
	if (!found) {
#pragma unroll
		for (i = 0; i < ROCE_FLOW_PROBES; i++) {
			j = j0 + (uint64_t)i;
			r = slot(j);
			if (c->now_ns - r->last_ns > ROCE_FLOW_IDLE_NS) {
				found = fresh = 1;
				break;
			}
		}
		if (!found)
			return 1;
	}
	r = slot(j);
	if (fresh)
		claim(r, c);
	r->last_ns = c->now_ns;
	if (c->hook_point == LS_HOOK_DC_RX || c->hook_point == LS_HOOK_WAN_RX)
		account_rx(r, c);
	else
		account_tx(r, c);
	return 0;
}
