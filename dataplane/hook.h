/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LONGSPAN_HOOK_H
#define LONGSPAN_HOOK_H

/*
 * Hooks, the workers' side: running the JIT'd hook programs of a hook point
 * over a burst's contexts, and filling those contexts (dataplane/hook_abi.h)
 * from packets. Loading, maps and export are the control thread's
 * (control/hook_*.c); docs/telemetry.md says how the pipeline calls it.
 *
 * Publication: a struct dp_hooks is immutable once published. The control
 * thread builds one per worker (each instance bound to that worker's maps),
 * publishes it with the dataplane snapshot and unloads the programs it
 * replaced only after an RCU grace period, so a worker never calls a freed
 * program. Ownership of struct dp_hook_stats: written by its worker only,
 * read by the control and telemetry threads without locks.
 *
 * Cost: a point without hooks is one load and a branch per burst
 * (dp_hooks_at()); with hooks, the contexts are filled and each program is
 * called once per packet from a plain loop, two TSC reads per hook per
 * burst for its cycle counter. tests/perf/hook_cycles.c measured this
 * against rte_bpf_exec_burst() (interpreted: 13-17 times slower) and the
 * call's own cost (3 cycles: all a JIT'd per-burst entry could save, and
 * 22.11's verifier cannot check a burst loop of the shipped hook).
 */

#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <netinet/in.h>

#include <rte_cycles.h>
#include <rte_prefetch.h>

#include "flow.h"
#include "hook_abi.h"
#include "parse.h"

#define DP_HOOKS_PER_POINT 4 /* hooks run at one point, in config order */
#define DP_HOOKS_MAX 8 /* [hook NAME] sections */

static_assert((int)LS_HOOK_DIR_DC_TO_WAN == (int)FLOW_DC_TO_WAN &&
		      (int)LS_HOOK_DIR_WAN_TO_DC == (int)FLOW_WAN_TO_DC,
	      "hook directions are the flow table's");

/* One loaded instance of a hook on one worker. */
struct dp_hook {
	uint64_t (*func)(void *ctx); /* JIT'd program (struct hook_prog.func) */
	const uint8_t *flows; /* its ls_hook_flows memory, NULL when it has none */
	uint32_t flow_mask; /* flow slots - 1 */
	uint16_t id; /* index of its [hook NAME] section: dp_hook_stats index */
};

/* What one worker runs at each point (immutable once published). */
struct dp_hooks {
	uint8_t n[LS_HOOK_POINT_MAX];
	struct dp_hook at[LS_HOOK_POINT_MAX][DP_HOOKS_PER_POINT];
};

/* Per worker and hook: calls, calls that returned non-zero, TSC cycles inside. */
struct dp_hook_stats {
	uint64_t calls, errors, cycles;
};

/* True when point p has hooks: the pipeline fills contexts only then. */
static inline bool
dp_hooks_at(const struct dp_hooks *h, enum ls_hook_point p)
{
	return h != NULL && h->n[p] != 0;
}

/*
 * Where a hook probing for a flow looks first (roce_flow does): the record
 * of its flow table slot, or of its hash when it has none, and the hot
 * lines of that record (hook_abi.h).
 */
static inline void
dp_hook_prefetch(const struct dp_hook *k, uint32_t idx)
{
	const uint8_t *r =
		k->flows + (uint64_t)(idx & k->flow_mask) * sizeof(struct ls_hook_flow_rec);
	unsigned int off;

	for (off = 0; off < LS_HOOK_REC_HOT_BYTES; off += RTE_CACHE_LINE_SIZE)
		rte_prefetch0(r + off);
}

static inline uint32_t
dp_hook_ctx_home(const struct ls_hook_ctx *c)
{
	return c->flow_slot != LS_HOOK_NO_SLOT ? c->flow_slot : c->hash;
}

/*
 * Run point p's hooks over the n contexts of a burst. For a hook with flow
 * records, a first pass prefetches the hot lines of the record each
 * context's flow table slot (else its hash) points at, where a hook probing
 * from there looks first: tests/perf/hook_cycles.c measured up to a quarter
 * fewer cycles per packet with it (none when the slots are in cache
 * anyway). The lines a tx point writes are prefetched at the rx point
 * already, so they are in cache when the packet leaves.
 */
static inline void
dp_hooks_run(const struct dp_hooks *h, enum ls_hook_point p, struct ls_hook_ctx *ctx,
	     unsigned int n, struct dp_hook_stats stats[DP_HOOKS_MAX])
{
	unsigned int i, j;

	for (i = 0; i < h->n[p]; i++) {
		const struct dp_hook *k = &h->at[p][i];
		struct dp_hook_stats *st = &stats[k->id];
		uint64_t t0 = rte_rdtsc(), errors = 0;

		if (k->flows != NULL)
			for (j = 0; j < n; j++)
				dp_hook_prefetch(k, dp_hook_ctx_home(&ctx[j]));
		for (j = 0; j < n; j++)
			errors += k->func(&ctx[j]) != 0;
		st->cycles += rte_rdtsc() - t0;
		st->calls += n;
		st->errors += errors;
	}
}

/*
 * A context before its first packet: the per-worker fields (ABI version and
 * size, point, lcore, direction) set, everything else zeroed (no peer, no
 * flow slot, no verdict), tsc and now_ns from the arguments.
 */
static inline void
dp_hook_ctx_init(struct ls_hook_ctx *c, enum ls_hook_point p, uint16_t lcore, uint64_t tsc,
		 uint64_t now_ns)
{
	memset(c, 0, sizeof(*c));
	c->abi_version = LS_HOOK_ABI_VERSION;
	c->ctx_size = sizeof(*c);
	c->hook_point = (uint8_t)p;
	c->lcore = lcore;
	c->tsc = tsc;
	c->now_ns = now_ns;
	c->peer = LS_HOOK_NO_PEER;
	c->flow_slot = LS_HOOK_NO_SLOT;
	c->direction = p == LS_HOOK_DC_RX || p == LS_HOOK_WAN_TX ? LS_HOOK_DIR_DC_TO_WAN
								  : LS_HOOK_DIR_WAN_TO_DC;
}

/*
 * The inner headers of a context from the IP packet at ip (len bytes, the
 * IP header first: the inner packet at rx, the packet leaving at tx):
 * addresses, protocol, DSCP and ECN, ip_bytes, and for UDP to 4791 the
 * ports, BTH (and the AETH of an ACK), setting flags. Reads only bytes
 * within len. hash: the packet's flow table hash when the caller has it
 * (rx), 0 to compute it from the context (tx) with dp_hook_ctx_hash().
 * Returns true when it found a BTH; family is 0 when ip is not an IP
 * packet (and the context unusable).
 */
bool dp_hook_ctx_ip(struct ls_hook_ctx *c, const uint8_t *ip, uint32_t len, uint32_t hash);

/*
 * The flow table hash (flow_table_hash() of dataplane/flow.h) of the flow
 * key in c: the same value the pipeline's flow lookup computes from the
 * packet, so a flow has one hash at rx and tx.
 */
uint32_t dp_hook_ctx_hash(const struct ls_hook_ctx *c);

/*
 * The hook contexts a worker collects during one poll, per point, and its
 * per-hook counters. A pipeline stage appends a context where a point is
 * (dp_hook_rx(), dp_hook_tx()) and the stage that ends the burst runs the
 * point's hooks over them at once (dp_hook_flush()): the rx point of a
 * burst before its tx point, so a hook sees a packet arrive before it
 * leaves. A full batch runs early. Ownership: the worker's (struct
 * dp_worker.hook); the control thread reads stats only.
 */
#define DP_HOOK_BATCH 64 /* contexts per point between runs (DP_MAX_BURST) */

struct dp_hook_io {
	uint16_t n[LS_HOOK_POINT_MAX];
	uint64_t tsc, now_ns; /* the poll's clock (dp_worker_poll() sets it) */
	struct dp_hook_stats stats[DP_HOOKS_MAX];
	struct ls_hook_ctx ctx[LS_HOOK_POINT_MAX][DP_HOOK_BATCH];
};

/*
 * Every context of io as dp_hook_ctx_init() leaves it, for the worker on
 * lcore: the fields no packet changes are written here once, never per
 * packet (hooks cannot write them: the loader refuses stores to the
 * context). Call before the worker's first poll.
 */
void dp_hook_io_init(struct dp_hook_io *io, uint16_t lcore);

/*
 * Run point p's hooks over what was collected for it, after writing the
 * poll's clock into those contexts: the only per-burst fields, stored in one
 * pass here instead of in each packet's fill.
 */
static inline void
dp_hook_flush(struct dp_hook_io *io, const struct dp_hooks *h, enum ls_hook_point p)
{
	struct ls_hook_ctx *c = io->ctx[p];
	unsigned int j, n = io->n[p];

	if (n == 0)
		return;
	for (j = 0; j < n; j++) {
		c[j].tsc = io->tsc;
		c[j].now_ns = io->now_ns;
	}
	dp_hooks_run(h, p, c, n, io->stats);
	io->n[p] = 0;
}

/* The next free context of point p (running the batch when it is full). */
static inline struct ls_hook_ctx *
dp_hook_next(struct dp_hook_io *io, const struct dp_hooks *h, enum ls_hook_point p)
{
	if (io->n[p] == DP_HOOK_BATCH)
		dp_hook_flush(io, h, p);
	return &io->ctx[p][io->n[p]++];
}

/* Where a packet is: the per-packet arguments common to both kinds of point. */
struct dp_hook_at {
	uint16_t port; /* config port index: received on (rx), leaving by (tx) */
	uint16_t peer; /* config peer index, LS_HOOK_NO_PEER */
	uint32_t frame_bytes; /* the Ethernet frame at this point */
};

/*
 * A packet at rx point p (dc_rx, wan_rx): its inner IP packet at ip (len
 * bytes), the flow table hash the lookup used (0: computed) and its flow
 * table slot (LS_HOOK_NO_SLOT when none). Called only when p has hooks.
 * Returns its context, for dp_hook_tx_from_rx() (valid until p's next
 * batch starts: after the flush, through the rest of the burst).
 */
const struct ls_hook_ctx *dp_hook_rx(struct dp_hook_io *io, const struct dp_hooks *h,
				     enum ls_hook_point p, const struct dp_hook_at *at,
				     const uint8_t *ip, uint32_t len, uint32_t hash, uint32_t slot);

/*
 * The per-packet fields of the context of a RoCE packet at an rx point,
 * from what the parser and the flow lookup already found: meta (inner
 * headers, bth_off set), the packet's BTH at bth (an ACK's AETH follows
 * it: parse_ip() checked its length), flow key k with its
 * flow_table_hash() and the flow table slot. On a context of an rx point
 * (dp_hook_ctx_init()), the same context dp_hook_rx() builds from the bytes
 * (tests/unit/hook compares the two), without a second parse and hash.
 */
static inline void
dp_hook_ctx_roce(struct ls_hook_ctx *c, const struct dp_hook_at *at, const struct pkt_meta *meta,
		 const uint8_t *bth, const struct flow_key *k, uint32_t hash, uint32_t slot)
{
	bool ack = meta->opcode == LS_HOOK_OP_RC_ACK || meta->opcode == LS_HOOK_OP_RC_ATOMIC_ACK;

	c->flags = (uint8_t)(LS_HOOK_F_ROCE | (ack ? LS_HOOK_F_AETH : 0));
	c->port = at->port;
	c->peer = at->peer;
	c->frame_bytes = (uint16_t)(at->frame_bytes > UINT16_MAX ? UINT16_MAX : at->frame_bytes);
	c->ip_bytes = meta->ip_len;
	c->hash = hash;
	c->dest_qp = meta->dqpn;
	c->sport = meta->sport;
	c->dport = meta->dport;
	c->family = k->family == AF_INET6 ? LS_HOOK_FAMILY_IP6 : LS_HOOK_FAMILY_IP4;
	c->proto = IPPROTO_UDP;
	memcpy(c->src, k->src, sizeof(c->src) + sizeof(c->dst));
	c->dscp = meta->tos >> 2;
	c->ecn = meta->tos & 3;
	c->bth_opcode = meta->opcode;
	c->aeth_syndrome = ack ? bth[sizeof(struct roce_bth)] : 0;
	c->psn = meta->psn;
	c->aeth_msn = ack ? roce_u24(bth + sizeof(struct roce_bth) + 1) : 0;
	c->flow_slot = slot;
}
static_assert(offsetof(struct flow_key, dst) == offsetof(struct flow_key, src) + 16 &&
		      offsetof(struct ls_hook_ctx, dst) == offsetof(struct ls_hook_ctx, src) + 16,
	      "dp_hook_ctx_roce() copies both addresses at once");

/* dp_hook_ctx_roce() into the next context of point p; returns it (as dp_hook_rx()). */
static inline const struct ls_hook_ctx *
dp_hook_rx_roce(struct dp_hook_io *io, const struct dp_hooks *h, enum ls_hook_point p,
		const struct dp_hook_at *at, const struct pkt_meta *meta, const uint8_t *bth,
		const struct flow_key *k, uint32_t hash, uint32_t slot)
{
	struct ls_hook_ctx *c = dp_hook_next(io, h, p);

	dp_hook_ctx_roce(c, at, meta, bth, k, hash, slot);
	return c;
}

/*
 * A packet at tx point p (wan_tx, dc_tx), or dropped between its rx point
 * and its tx point (verdict without LS_HOOK_V_FORWARDED, drop the reason),
 * with the time it waited in the gateway. hash and slot: the flow table
 * hash and slot its rx point had (carried in the mbuf:
 * dp_hook_carry() in hook_pipe.h), hash 0 when it had none (then computed from the packet).
 * Parses the packet: for one whose rx context is at hand,
 * dp_hook_tx_from_rx() is cheaper. Called only when p has hooks.
 */
void dp_hook_tx(struct dp_hook_io *io, const struct dp_hooks *h, enum ls_hook_point p,
		const struct dp_hook_at *at, const uint8_t *ip, uint32_t len, uint8_t verdict,
		uint16_t drop, uint64_t sojourn_ns, uint32_t hash, uint32_t slot);

/* The inner ECN of the IP packet at ip, as a context of family holds it. */
static inline uint8_t
dp_hook_ecn(const uint8_t *ip, uint8_t family)
{
	if (family == LS_HOOK_FAMILY_IP4)
		return ip[1] & 3;
	if (family == LS_HOOK_FAMILY_IP6)
		return (ip[1] >> 4) & 3;
	return 0;
}

/*
 * dp_hook_tx() of a packet whose context at the rx point of its direction
 * is rx, in the same burst: the inner headers, flow key, hash and slot are
 * copied from it (hooks cannot have changed them: the context is read-only
 * to them), not parsed again; only the ECN is read from the packet at ip,
 * which the gateway may have marked. The same context dp_hook_tx() builds
 * (tests/unit/hook compares the two).
 */
static inline void
dp_hook_tx_from_rx(struct dp_hook_io *io, const struct dp_hooks *h, enum ls_hook_point p,
		   const struct ls_hook_ctx *rx, const struct dp_hook_at *at, const uint8_t *ip,
		   uint8_t verdict, uint16_t drop, uint64_t sojourn_ns)
{
	struct ls_hook_ctx *c = dp_hook_next(io, h, p);

	/* hash through drop_reason: the key, inner headers and (0) verdict, one copy. */
	memcpy(&c->hash, &rx->hash, offsetof(struct ls_hook_ctx, flow_slot) -
					    offsetof(struct ls_hook_ctx, hash));
	c->ecn = dp_hook_ecn(ip, rx->family);
	c->verdict = verdict;
	c->drop_reason = drop;
	c->flags = rx->flags;
	c->port = at->port;
	c->peer = at->peer;
	c->frame_bytes = (uint16_t)(at->frame_bytes > UINT16_MAX ? UINT16_MAX : at->frame_bytes);
	c->ip_bytes = rx->ip_bytes;
	c->flow_slot = rx->flow_slot;
	c->sojourn_ns = sojourn_ns;
}
static_assert(offsetof(struct ls_hook_ctx, flow_slot) - offsetof(struct ls_hook_ctx, hash) == 64 &&
		      offsetof(struct ls_hook_ctx, ecn) > offsetof(struct ls_hook_ctx, hash) &&
		      offsetof(struct ls_hook_ctx, drop_reason) < offsetof(struct ls_hook_ctx, flow_slot),
	      "dp_hook_tx_from_rx() copies 64 bytes, then sets ECN, verdict and drop");

#endif /* LONGSPAN_HOOK_H */
