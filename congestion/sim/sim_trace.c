/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Where packets wait, by flow class (sim_trace.h): hooks called from the
 * switch queues when a run asks for these outputs, and the files they
 * write.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sim_trace.h"

static FILE *
sim_trace_file(const struct sim_trace *t, const char *name)
{
	return sim_out_create(t->dir, name);
}

static const char *
sim_trace_role(uint8_t role)
{
	return role == SIM_ROLE_TOR ? "tor" : role == SIM_ROLE_GATEWAY ? "gateway" : "core";
}

/* Marks the flows of "ID,ID,..." (flow.txt line order, from 0) for the trace. */
static int
sim_trace_pick(struct sim *s, const char *list)
{
	uint32_t *pos = malloc(sizeof(uint32_t) * (s->nflows + 1));
	const char *p = list;
	uint32_t i;

	if (pos == NULL)
		return -ENOMEM;
	for (i = 0; i < s->nflows; i++)
		pos[s->flows[i].id] = i;
	while (*p != '\0') {
		char *end;
		unsigned long id = strtoul(p, &end, 10);

		if (end == p || (*end != ',' && *end != '\0') || id >= s->nflows) {
			fprintf(stderr, "longspan-sim: --trace-flows: '%s': expected flow ids "
				"0..%u (flow.txt order) separated by commas\n", list,
				s->nflows ? s->nflows - 1 : 0);
			free(pos);
			return -EINVAL;
		}
		s->trace->flows[pos[id]].traced = 1;
		p = *end == ',' ? end + 1 : end;
	}
	free(pos);
	return 0;
}

int
sim_trace_open(struct sim *s, const char *dir, bool waits, const char *trace_flows)
{
	struct sim_trace *t;
	uint32_t i;
	int rc;

	if (!waits && trace_flows == NULL)
		return 0;
	t = calloc(1, sizeof(*t));
	if (t == NULL)
		return -ENOMEM;
	s->trace = t;
	t->waits = waits;
	snprintf(t->dir, sizeof(t->dir), "%s", dir);
	t->flows = calloc(s->nflows + 1, sizeof(*t->flows));
	t->ports = calloc(s->nports + 1, sizeof(*t->ports));
	t->sw_ports = malloc(sizeof(uint32_t) * (s->nports + 1));
	if (t->flows == NULL || t->ports == NULL || t->sw_ports == NULL)
		return -ENOMEM;
	for (i = 0; i < s->nflows; i++)
		t->flows[i].tx_done_ns = SIM_NEVER;
	for (i = 0; i < s->nports; i++)
		if (s->nodes[s->ports[i].node].kind == SIM_NODE_SWITCH)
			t->sw_ports[t->nsw_ports++] = i;
	if (trace_flows != NULL) {
		rc = sim_trace_pick(s, trace_flows);
		if (rc < 0)
			return rc;
		t->trace = sim_trace_file(t, "trace.csv");
		if (t->trace == NULL)
			return -EIO;
		fprintf(t->trace, "ev,t_ns,flow,seq,node,to,held_ns,ahead_intra_bytes,"
			"ahead_inter_bytes,wait_ns\n");
	}
	if (waits && s->cfg.ts_interval_ns != 0) {
		t->qclass = sim_trace_file(t, "queue_class.csv");
		if (t->qclass == NULL)
			return -EIO;
		fprintf(t->qclass, "t_ns");
		for (i = 0; i < t->nsw_ports; i++) {
			const struct sim_port *p = &s->ports[t->sw_ports[i]];

			fprintf(t->qclass, ",%u->%u:intra,%u->%u:inter", p->node, p->peer_node,
				p->node, p->peer_node);
		}
		fputc('\n', t->qclass);
	}
	return 0;
}

/* The flow's record for the switch `node`, added in path order; NULL past the last. */
static struct sim_trace_hop *
sim_trace_hop(struct sim_trace_flow *tf, uint32_t node, uint32_t to)
{
	uint32_t i;

	for (i = 0; i < tf->nhops; i++)
		if (tf->hop[i].node == node)
			return &tf->hop[i];
	if (tf->nhops == SIM_TRACE_HOPS)
		return NULL;
	tf->hop[tf->nhops].node = node;
	tf->hop[tf->nhops].to = to;
	return &tf->hop[tf->nhops++];
}

void
sim_trace_enqueue(struct sim *s, uint32_t pi, uint32_t q, struct sim_pkt *pkt)
{
	struct sim_trace *t = s->trace;
	struct sim_trace_port *tp = &t->ports[pi];
	const struct sim_port *port = &s->ports[pi];
	const struct sim_flow *f;
	uint32_t cls;

	if (pkt->flow == SIM_NONE)
		return; /* PFC frames belong to no flow */
	f = &s->flows[pkt->flow];
	cls = f->inter ? SIM_TRACE_INTER : SIM_TRACE_INTRA;
	if (pkt->type == SIM_PKT_DATA) {
		struct sim_trace_flow *tf = &t->flows[pkt->flow];
		struct sim_trace_hop *h = sim_trace_hop(tf, port->node, port->peer_node);
		/* t_ns holds the arrival at this node (sim_net_arrive). */
		uint64_t held = s->now_ns - pkt->t_ns;
		uint32_t c;

		for (c = 0; c < SIM_TRACE_CLASSES; c++)
			tp->ahead[cls][c] += tp->qcls[q][c];
		if (h != NULL) {
			h->held_ns += held;
			for (c = 0; c < SIM_TRACE_CLASSES; c++)
				h->ahead_bytes[c] += tp->qcls[q][c];
		}
		if (tf->traced)
			fprintf(t->trace, "enq,%llu,%u,%u,%u,%u,%llu,%u,%u,\n",
				(unsigned long long)s->now_ns, f->id, pkt->seq, port->node,
				port->peer_node, (unsigned long long)held,
				tp->qcls[q][SIM_TRACE_INTRA], tp->qcls[q][SIM_TRACE_INTER]);
	}
	tp->qcls[q][cls] += pkt->size;
}

void
sim_trace_dequeue(struct sim *s, uint32_t pi, uint32_t q, const struct sim_pkt *pkt, bool marked)
{
	struct sim_trace *t = s->trace;
	struct sim_trace_port *tp = &t->ports[pi];
	const struct sim_port *port = &s->ports[pi];
	struct sim_trace_flow *tf;
	struct sim_trace_hop *h;
	uint64_t wait;
	uint32_t cls;

	if (pkt->flow == SIM_NONE)
		return;
	cls = s->flows[pkt->flow].inter ? SIM_TRACE_INTER : SIM_TRACE_INTRA;
	tp->qcls[q][cls] -= pkt->size;
	if (pkt->type != SIM_PKT_DATA)
		return;
	/* t_ns holds the enqueue time (sim_net_enqueue). */
	wait = s->now_ns - pkt->t_ns;
	tp->pkts[cls]++;
	tp->wait_ns[cls] += wait;
	if (wait > tp->wait_max_ns[cls])
		tp->wait_max_ns[cls] = wait;
	tp->marks[cls] += marked;
	tf = &t->flows[pkt->flow];
	h = sim_trace_hop(tf, port->node, port->peer_node);
	if (h != NULL) {
		h->pkts++;
		h->wait_ns += wait;
		if (wait > h->wait_max_ns)
			h->wait_max_ns = wait;
		h->marks += marked;
	}
	if (tf->traced)
		fprintf(t->trace, "deq,%llu,%u,%u,%u,%u,,,,%llu\n", (unsigned long long)s->now_ns,
			s->flows[pkt->flow].id, pkt->seq, port->node, port->peer_node,
			(unsigned long long)wait);
}

void
sim_trace_tx_done(struct sim *s, const struct sim_flow *f)
{
	struct sim_trace_flow *tf = &s->trace->flows[f - s->flows];

	if (tf->tx_done_ns == SIM_NEVER)
		tf->tx_done_ns = s->now_ns;
}

void
sim_trace_sample(struct sim *s, bool row)
{
	struct sim_trace *t = s->trace;
	uint32_t i, q;

	t->samples++;
	for (i = 0; i < t->nsw_ports; i++) {
		struct sim_trace_port *tp = &t->ports[t->sw_ports[i]];
		uint64_t b[SIM_TRACE_CLASSES] = { 0, 0 };

		for (q = 0; q < SIM_NQ; q++) {
			b[SIM_TRACE_INTRA] += tp->qcls[q][SIM_TRACE_INTRA];
			b[SIM_TRACE_INTER] += tp->qcls[q][SIM_TRACE_INTER];
		}
		tp->qsum[SIM_TRACE_INTRA] += b[SIM_TRACE_INTRA];
		tp->qsum[SIM_TRACE_INTER] += b[SIM_TRACE_INTER];
		if (row && t->qclass != NULL) {
			if (i == 0)
				fprintf(t->qclass, "%llu", (unsigned long long)s->now_ns);
			fprintf(t->qclass, ",%llu,%llu", (unsigned long long)b[SIM_TRACE_INTRA],
				(unsigned long long)b[SIM_TRACE_INTER]);
		}
	}
	if (row && t->qclass != NULL)
		fputc('\n', t->qclass);
}

static long long
sim_trace_since(uint64_t t_ns, uint64_t start_ns)
{
	return t_ns == SIM_NEVER ? -1LL : (long long)(t_ns - start_ns);
}

int
sim_trace_finish(struct sim *s)
{
	struct sim_trace *t = s->trace;
	uint32_t *pos;
	FILE *f;
	uint32_t i, k;

	if (t == NULL)
		return 0;
	if (t->trace != NULL)
		fflush(t->trace);
	if (t->qclass != NULL)
		fflush(t->qclass);
	if (!t->waits)
		return 0;
	f = sim_trace_file(t, "ports.csv");
	if (f == NULL)
		return -EIO;
	fprintf(f, "node,to,role,rate_bps,samples,queue_intra_bytes_avg,queue_inter_bytes_avg,"
		"queue_max_bytes,pause_ns,pkts_intra,pkts_inter,wait_intra_ns,wait_inter_ns,"
		"wait_intra_max_ns,wait_inter_max_ns,intra_ahead_intra_bytes,"
		"intra_ahead_inter_bytes,inter_ahead_intra_bytes,inter_ahead_inter_bytes,"
		"marks_intra,marks_inter\n");
	for (i = 0; i < t->nsw_ports; i++) {
		const struct sim_port *p = &s->ports[t->sw_ports[i]];
		const struct sim_trace_port *tp = &t->ports[t->sw_ports[i]];
		double n = t->samples ? (double)t->samples : 1.0;

		if (p->tx_bytes == 0)
			continue;
		fprintf(f, "%u,%u,%s,%llu,%llu,%.1f,%.1f,%u,%llu,%llu,%llu,%llu,%llu,%llu,%llu,"
			"%llu,%llu,%llu,%llu,%llu,%llu\n", p->node, p->peer_node,
			sim_trace_role(s->nodes[p->node].role), (unsigned long long)p->rate_bps,
			(unsigned long long)t->samples, (double)tp->qsum[SIM_TRACE_INTRA] / n,
			(double)tp->qsum[SIM_TRACE_INTER] / n, p->qmax_bytes,
			(unsigned long long)p->pause_ns,
			(unsigned long long)tp->pkts[SIM_TRACE_INTRA],
			(unsigned long long)tp->pkts[SIM_TRACE_INTER],
			(unsigned long long)tp->wait_ns[SIM_TRACE_INTRA],
			(unsigned long long)tp->wait_ns[SIM_TRACE_INTER],
			(unsigned long long)tp->wait_max_ns[SIM_TRACE_INTRA],
			(unsigned long long)tp->wait_max_ns[SIM_TRACE_INTER],
			(unsigned long long)tp->ahead[SIM_TRACE_INTRA][SIM_TRACE_INTRA],
			(unsigned long long)tp->ahead[SIM_TRACE_INTRA][SIM_TRACE_INTER],
			(unsigned long long)tp->ahead[SIM_TRACE_INTER][SIM_TRACE_INTRA],
			(unsigned long long)tp->ahead[SIM_TRACE_INTER][SIM_TRACE_INTER],
			(unsigned long long)tp->marks[SIM_TRACE_INTRA],
			(unsigned long long)tp->marks[SIM_TRACE_INTER]);
	}
	fclose(f);
	f = sim_trace_file(t, "hops.csv");
	pos = malloc(sizeof(uint32_t) * (s->nflows + 1));
	if (f == NULL || pos == NULL) {
		if (f != NULL)
			fclose(f);
		free(pos);
		return f == NULL ? -EIO : -ENOMEM;
	}
	for (i = 0; i < s->nflows; i++)
		pos[s->flows[i].id] = i;
	fprintf(f, "id,inter,hop,node,to,pkts,held_ns,wait_ns,wait_max_ns,ahead_intra_bytes,"
		"ahead_inter_bytes,marks,tx_done_ns\n");
	for (i = 0; i < s->nflows; i++) {
		const struct sim_flow *fl = &s->flows[pos[i]];
		const struct sim_trace_flow *tf = &t->flows[pos[i]];

		for (k = 0; k < tf->nhops; k++) {
			const struct sim_trace_hop *h = &tf->hop[k];

			fprintf(f, "%u,%u,%u,%u,%u,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%lld\n",
				fl->id, fl->inter, k, h->node, h->to, (unsigned long long)h->pkts,
				(unsigned long long)h->held_ns, (unsigned long long)h->wait_ns,
				(unsigned long long)h->wait_max_ns,
				(unsigned long long)h->ahead_bytes[SIM_TRACE_INTRA],
				(unsigned long long)h->ahead_bytes[SIM_TRACE_INTER],
				(unsigned long long)h->marks,
				sim_trace_since(tf->tx_done_ns, fl->start_ns));
		}
	}
	fclose(f);
	free(pos);
	return 0;
}

void
sim_trace_close(struct sim *s)
{
	struct sim_trace *t = s->trace;

	if (t == NULL)
		return;
	if (t->trace != NULL)
		fclose(t->trace);
	if (t->qclass != NULL)
		fclose(t->qclass);
	free(t->flows);
	free(t->ports);
	free(t->sw_ports);
	free(t);
	s->trace = NULL;
}
