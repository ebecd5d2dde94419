/* SPDX-License-Identifier: BSD-3-Clause */
#include "tm.h"

#include <string.h>

#include <rte_common.h>
#include <rte_mbuf.h>

#include "mbuf_meta.h"

/* Index of the log2 bucket of v (bucket 0 holds 0 and 1). */
static inline unsigned int
tm_hist_bucket(uint64_t v)
{
	unsigned int b = v <= 1 ? 0 : 63 - (unsigned int)__builtin_clzll(v);

	return b < DP_HIST_BUCKETS ? b : DP_HIST_BUCKETS - 1;
}

void
tm_sync(struct tm_port *t, const struct dp_tm_conf *conf, uint64_t generation, uint64_t seed,
	uint64_t now_ns, uint64_t tsc)
{
	unsigned int c;

	if (t->generation == generation)
		return;
	t->generation = generation;
	if (conf->enabled)
		token_bucket_init(&conf->shaper, &t->tb, tsc);
	for (c = 0; c < DP_TM_CLASS_MAX; c++) {
		struct ecn_marker_params none = { .kind = ECN_MARKER_NONE };
		const struct ecn_marker_params *p =
			c == DP_TM_CLASS_CONTROL || !conf->enabled ? &none : &conf->marker;

		/* Validated when the snapshot was built; NONE cannot fail. */
		if (ecn_marker_init(&t->marker[c], p, seed + c, now_ns) != 0)
			ecn_marker_init(&t->marker[c], &none, seed + c, now_ns);
	}
}

bool
tm_enqueue(struct tm_port *t, const struct dp_tm_conf *conf, struct dp_tm_counters *ctr,
	   enum dp_tm_class cls, struct rte_mbuf *m, uint32_t wire_bytes, uint64_t now_ns,
	   uint64_t tsc, bool *mark)
{
	struct tm_fifo *f = &t->q[cls];
	struct dp_tm_counters *cc = &ctr[cls];

	*mark = false;
	if (tm_fifo_count(f) > f->mask ||
	    (conf->enabled && f->bytes + wire_bytes > conf->buffer_bytes && tm_fifo_count(f) != 0)) {
		cc->drops++;
		return false;
	}
	if (!conf->mark_at_dequeue &&
	    ecn_marker_decide(&t->marker[cls], f->bytes, 0, wire_bytes, now_ns) == ECN_VERDICT_MARK)
		*mark = true;
	cc->depth_hist[tm_hist_bucket(f->bytes)]++;
	dp_mbuf_meta(m)->tm.enq_tsc = tsc;
	dp_mbuf_meta(m)->tm.frame_bytes = (uint16_t)wire_bytes;
	f->ring[f->tail & f->mask] = m;
	f->tail++;
	f->bytes += wire_bytes;
	cc->enq_pkts++;
	cc->enq_bytes += wire_bytes;
	cc->depth_bytes = f->bytes;
	cc->depth_pkts = tm_fifo_count(f);
	if (f->bytes > cc->depth_max_bytes)
		cc->depth_max_bytes = f->bytes;
	return true;
}

unsigned int
tm_dequeue(struct tm_port *t, const struct dp_tm_conf *conf, struct dp_tm_counters *ctr,
	   uint64_t tsc, struct rte_mbuf **out, uint8_t *cls_out, uint64_t *sojourn_out,
	   unsigned int max)
{
	uint64_t ns_per_tick_q32 = t->tsc_hz ? (UINT64_C(1000000000) << 32) / t->tsc_hz : 0;
	unsigned int n = 0, c;

	for (c = 0; c < DP_TM_CLASS_MAX && n < max; c++) {
		struct tm_fifo *f = &t->q[c];
		struct dp_tm_counters *cc = &ctr[c];

		while (n < max && tm_fifo_count(f) != 0) {
			struct rte_mbuf *m = f->ring[f->head & f->mask];
			uint32_t frame = dp_mbuf_meta(m)->tm.frame_bytes;
			uint64_t soj;

			/*
			 * Debt is allowed so a packet larger than the bucket still
			 * goes; the next one then waits for the debt to be repaid.
			 */
			if (conf->enabled &&
			    !token_bucket_conform(&conf->shaper, &t->tb, frame + TM_WIRE_OVERHEAD,
						  tsc, true))
				return n;
			f->head++;
			f->bytes -= frame;
			soj = (uint64_t)(((unsigned __int128)(tsc - dp_mbuf_meta(m)->tm.enq_tsc) *
					  ns_per_tick_q32) >> 32);
			cc->deq_pkts++;
			cc->deq_bytes += frame;
			cc->sojourn_ns_sum += soj;
			if (soj > cc->sojourn_ns_max)
				cc->sojourn_ns_max = soj;
			cc->sojourn_hist[tm_hist_bucket(soj)]++;
			cc->depth_bytes = f->bytes;
			cc->depth_pkts = tm_fifo_count(f);
			out[n] = m;
			cls_out[n] = (uint8_t)c;
			sojourn_out[n] = soj;
			n++;
		}
	}
	return n;
}

uint64_t
tm_next_due(struct tm_port *t, const struct dp_tm_conf *conf, uint64_t tsc)
{
	unsigned int c;

	for (c = 0; c < DP_TM_CLASS_MAX; c++) {
		const struct tm_fifo *f = &t->q[c];
		const struct rte_mbuf *m;

		if (tm_fifo_count(f) == 0)
			continue;
		if (!conf->enabled)
			return 0;
		m = f->ring[f->head & f->mask];
		return token_bucket_wait(&conf->shaper, &t->tb,
					 dp_mbuf_meta((struct rte_mbuf *)(uintptr_t)m)->tm.frame_bytes +
						 TM_WIRE_OVERHEAD,
					 tsc, true);
	}
	return UINT64_MAX;
}
