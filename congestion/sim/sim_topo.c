/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Readers for the HPCC-family topology.txt and flow.txt, shortest-path
 * ECMP routing and the per-pair base RTT and bottleneck rate, computed the
 * way HPCC's third.cc does (a BFS from every host that never transits a
 * host) so standalone FCTs and windows match ns-3's.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim.h"

/* Token reader that remembers line numbers for FILE:LINE errors. */
struct sim_tok {
	FILE *f;
	const char *path;
	unsigned int line;
	unsigned int tok_line;
	char buf[256];
};

static const char *
sim_tok_next(struct sim_tok *t)
{
	int ch;
	size_t n = 0;

	do {
		ch = fgetc(t->f);
		if (ch == '\n')
			t->line++;
	} while (ch == ' ' || ch == '\t' || ch == '\r' || ch == '\n');
	if (ch == EOF)
		return NULL;
	t->tok_line = t->line;
	while (ch != EOF && ch != ' ' && ch != '\t' && ch != '\r' && ch != '\n') {
		if (n + 1 < sizeof(t->buf))
			t->buf[n++] = (char)ch;
		ch = fgetc(t->f);
	}
	if (ch == '\n')
		t->line++;
	t->buf[n] = '\0';
	return t->buf;
}

static int
sim_tok_u64(struct sim_tok *t, const char *what, uint64_t max, uint64_t *v)
{
	const char *s = sim_tok_next(t);

	if (s == NULL) {
		fprintf(stderr, "%s:%u: %s: unexpected end of file\n", t->path, t->line, what);
		return -EINVAL;
	}
	if (sim_parse_u64(s, v) < 0 || *v > max) {
		fprintf(stderr, "%s:%u: %s: malformed or out of range: '%s'\n", t->path,
			t->tok_line, what, s);
		return -EINVAL;
	}
	return 0;
}

struct sim_link_in {
	uint32_t a;
	uint32_t b;
	uint64_t rate_bps;
	uint64_t delay_ns;
};

int
sim_topo_load(struct sim *s, const char *path)
{
	struct sim_tok t = { .path = path, .line = 1 };
	struct sim_link_in *links = NULL;
	uint32_t *deg = NULL;
	uint64_t nnodes, nsw, nlinks, i;
	uint32_t nl = 0;
	int rc = -EINVAL;

	t.f = fopen(path, "r");
	if (t.f == NULL) {
		fprintf(stderr, "%s: cannot open: %s\n", path, strerror(errno));
		return -errno;
	}
	if (sim_tok_u64(&t, "node count", 1u << 20, &nnodes) < 0 ||
	    sim_tok_u64(&t, "switch count", nnodes, &nsw) < 0 ||
	    sim_tok_u64(&t, "link count", 1u << 22, &nlinks) < 0)
		goto out;
	s->nnodes = (uint32_t)nnodes;
	s->nodes = calloc(nnodes, sizeof(*s->nodes));
	links = calloc(nlinks ? nlinks : 1, sizeof(*links));
	deg = calloc(nnodes, sizeof(*deg));
	if (s->nodes == NULL || links == NULL || deg == NULL) {
		rc = -ENOMEM;
		goto out;
	}
	for (i = 0; i < nnodes; i++) {
		s->nodes[i].id = (uint32_t)i;
		s->nodes[i].kind = SIM_NODE_HOST;
		s->nodes[i].ecmp_seed = (uint32_t)i;
	}
	for (i = 0; i < nsw; i++) {
		uint64_t id;

		if (sim_tok_u64(&t, "switch id", nnodes - 1, &id) < 0)
			goto out;
		if (s->nodes[id].kind == SIM_NODE_SWITCH) {
			fprintf(stderr, "%s:%u: switch id %llu listed twice\n", path, t.tok_line,
				(unsigned long long)id);
			goto out;
		}
		s->nodes[id].kind = SIM_NODE_SWITCH;
	}
	for (i = 0; i < nlinks; i++) {
		uint64_t a, b;
		const char *tok, *why;
		double err_rate;
		unsigned int line;

		if (sim_tok_u64(&t, "link endpoint", nnodes - 1, &a) < 0)
			goto out;
		line = t.tok_line;
		if (sim_tok_u64(&t, "link endpoint", nnodes - 1, &b) < 0)
			goto out;
		tok = sim_tok_next(&t);
		why = "missing";
		if (tok != NULL && sim_parse_rate(tok, &links[nl].rate_bps, &why) == 0 &&
		    links[nl].rate_bps < 1000000)
			why = "below 1Mbps";
		if (why != NULL) {
			fprintf(stderr, "%s:%u: link rate: malformed: '%s': %s\n", path, line,
				tok ? tok : "", why);
			goto out;
		}
		tok = sim_tok_next(&t);
		why = "missing";
		if (tok == NULL || sim_parse_time_ns(tok, &links[nl].delay_ns, &why) < 0) {
			fprintf(stderr, "%s:%u: link delay: malformed: '%s': %s\n", path, line,
				tok ? tok : "", why);
			goto out;
		}
		tok = sim_tok_next(&t);
		if (tok == NULL || sim_parse_double(tok, &err_rate) < 0) {
			fprintf(stderr, "%s:%u: link error rate: malformed: '%s'\n", path, line,
				tok ? tok : "");
			goto out;
		}
		if (err_rate != 0) {
			fprintf(stderr, "%s:%u: link error rate: random loss is not modelled\n",
				path, line);
			goto out;
		}
		if ((1000000000000ull * 8) % links[nl].rate_bps != 0 ||
		    links[nl].rate_bps > 8000000000000ull) {
			/* Serialisation time is kept in integer picoseconds per byte. */
			fprintf(stderr, "%s:%u: link rate: %llu b/s is not a whole number of "
				"ps per byte\n", path, line,
				(unsigned long long)links[nl].rate_bps);
			goto out;
		}
		if (a == b)
			continue; /* THEMIS's recirculation self-links: not a path */
		links[nl].a = (uint32_t)a;
		links[nl].b = (uint32_t)b;
		deg[a]++;
		deg[b]++;
		nl++;
	}
	if (sim_tok_next(&t) != NULL) {
		fprintf(stderr, "%s:%u: unexpected data after %llu links: '%s'\n", path,
			t.tok_line, (unsigned long long)nlinks, t.buf);
		goto out;
	}
	/* Ports of a node are contiguous, in link order (ns-3's ifIndex order). */
	s->nports = 2 * nl;
	/* Cache-line aligned: struct sim_port is laid out in 64-byte lines. */
	s->ports = aligned_alloc(64, sizeof(*s->ports) * (s->nports ? s->nports : 1));
	if (s->ports == NULL) {
		rc = -ENOMEM;
		goto out;
	}
	memset(s->ports, 0, sizeof(*s->ports) * (s->nports ? s->nports : 1));
	{
		uint32_t base = 0;

		for (i = 0; i < nnodes; i++) {
			s->nodes[i].port_base = base;
			base += deg[i];
			if (deg[i] > SIM_MAX_NODE_PORTS) {
				fprintf(stderr, "%s: node %llu has %u links; at most %u are "
					"modelled\n", path, (unsigned long long)i, deg[i],
					SIM_MAX_NODE_PORTS);
				goto out;
			}
			if (s->nodes[i].kind == SIM_NODE_HOST && deg[i] > 1) {
				fprintf(stderr, "%s: host %llu has %u links; hosts with several "
					"NICs are not modelled\n", path, (unsigned long long)i,
					deg[i]);
				goto out;
			}
		}
	}
	for (i = 0; i < nl; i++) {
		struct sim_node *na = &s->nodes[links[i].a];
		struct sim_node *nb = &s->nodes[links[i].b];
		uint32_t pa = na->port_base + na->nports++;
		uint32_t pb = nb->port_base + nb->nports++;
		uint32_t ends[2] = { pa, pb };
		uint32_t owner[2] = { links[i].a, links[i].b };
		int e;

		for (e = 0; e < 2; e++) {
			struct sim_port *p = &s->ports[ends[e]];

			p->node = owner[e];
			p->peer = ends[1 - e];
			p->peer_node = owner[1 - e];
			p->local = s->nodes[owner[e]].nports - 1;
			p->rate_bps = links[i].rate_bps;
			p->delay_ns = links[i].delay_ns;
			p->ps_per_byte = (uint32_t)(8000000000000ull / links[i].rate_bps);
			p->fly_head = p->fly_tail = SIM_NONE;
			for (int q = 0; q < SIM_NQ; q++)
				p->qhead[q] = p->qtail[q] = SIM_NONE;
		}
		/* The local index must be the node's own count at insertion. */
		s->ports[pa].local = na->nports - 1;
		s->ports[pb].local = nb->nports - 1;
	}
	/* Hosts and their roles. */
	s->host_of_node = malloc(sizeof(uint32_t) * nnodes);
	if (s->host_of_node == NULL) {
		rc = -ENOMEM;
		goto out;
	}
	for (i = 0; i < nnodes; i++) {
		s->host_of_node[i] = SIM_NONE;
		if (s->nodes[i].kind == SIM_NODE_HOST)
			s->nhosts++;
	}
	s->hosts = calloc(s->nhosts ? s->nhosts : 1, sizeof(*s->hosts));
	if (s->hosts == NULL) {
		rc = -ENOMEM;
		goto out;
	}
	s->nhosts = 0;
	for (i = 0; i < nnodes; i++) {
		struct sim_node *n = &s->nodes[i];

		if (n->kind == SIM_NODE_HOST) {
			struct sim_host *h = &s->hosts[s->nhosts];

			n->role = SIM_ROLE_HOST;
			n->host = s->nhosts;
			s->host_of_node[i] = s->nhosts++;
			h->node = (uint32_t)i;
			h->port = n->nports ? n->port_base : SIM_NONE;
			h->wake_ns = SIM_NEVER;
			h->ackq_head = h->ackq_tail = SIM_NONE;
			h->ip = sim_topo_ip((uint32_t)i);
		} else {
			n->role = SIM_ROLE_CORE;
		}
	}
	for (i = 0; i < nnodes; i++) {
		struct sim_node *n = &s->nodes[i];

		if (n->kind != SIM_NODE_SWITCH)
			continue;
		for (uint32_t k = 0; k < n->nports; k++) {
			struct sim_port *p = &s->ports[n->port_base + k];

			if (s->nodes[s->ports[p->peer].node].kind == SIM_NODE_HOST)
				n->role = SIM_ROLE_TOR;
		}
	}
	rc = 0;
out:
	free(links);
	free(deg);
	fclose(t.f);
	return rc;
}

static int
sim_flow_cmp(const void *a, const void *b)
{
	const struct sim_flow *fa = a;
	const struct sim_flow *fb = b;

	if (fa->start_ns != fb->start_ns)
		return fa->start_ns < fb->start_ns ? -1 : 1;
	return fa->id < fb->id ? -1 : fa->id > fb->id;
}

int
sim_flows_load(struct sim *s, const char *path)
{
	char line[512];
	unsigned int lineno = 0;
	uint64_t n = 0;
	uint32_t got = 0;
	int errors = 0;
	bool have_count = false;
	FILE *f = fopen(path, "r");

	if (f == NULL) {
		fprintf(stderr, "%s: cannot open: %s\n", path, strerror(errno));
		return -errno;
	}
	while (fgets(line, sizeof(line), f) != NULL) {
		char *tok[8];
		char *save = NULL;
		char *t;
		int ntok = 0;

		lineno++;
		for (t = strtok_r(line, " \t\r\n", &save); t != NULL && ntok < 8;
		     t = strtok_r(NULL, " \t\r\n", &save))
			tok[ntok++] = t;
		if (ntok == 0)
			continue;
		if (!have_count) {
			if (ntok != 1 || sim_parse_u64(tok[0], &n) < 0 || n > (1u << 26)) {
				fprintf(stderr, "%s:%u: expected the number of flows\n", path,
					lineno);
				fclose(f);
				return -EINVAL;
			}
			have_count = true;
			/* struct sim_flow is laid out in cache lines. */
			s->flows = aligned_alloc(64, sizeof(*s->flows) * (n ? n : 1));
			if (s->flows == NULL) {
				fclose(f);
				return -ENOMEM;
			}
			memset(s->flows, 0, sizeof(*s->flows) * (n ? n : 1));
			continue;
		}
		if (got == n) {
			fprintf(stderr, "%s:%u: warning: line after the %llu announced flows "
				"ignored (as ns-3 does)\n", path, lineno, (unsigned long long)n);
			continue;
		}
		{
			struct sim_flow *fl = &s->flows[got];
			uint64_t src, dst, pg, dport, size;
			double start;

			if (ntok != 6 || sim_parse_u64(tok[0], &src) < 0 ||
			    sim_parse_u64(tok[1], &dst) < 0 || sim_parse_u64(tok[2], &pg) < 0 ||
			    sim_parse_u64(tok[3], &dport) < 0 ||
			    sim_parse_u64(tok[4], &size) < 0 ||
			    sim_parse_double(tok[5], &start) < 0) {
				fprintf(stderr, "%s:%u: expected <src> <dst> <pg> <dport> <bytes> "
					"<start_s>\n", path, lineno);
				errors++;
				continue;
			}
			if (src >= s->nnodes || dst >= s->nnodes ||
			    s->nodes[src].kind != SIM_NODE_HOST ||
			    s->nodes[dst].kind != SIM_NODE_HOST || src == dst) {
				fprintf(stderr, "%s:%u: src and dst must be two distinct hosts\n",
					path, lineno);
				errors++;
				continue;
			}
			if (pg == 0 || pg >= SIM_NQ || dport > 65535 || size == 0 ||
			    size > UINT32_MAX - 65536 || start < 0 || start > 1e6) {
				fprintf(stderr, "%s:%u: pg must be 1..7, dport 0..65535, size "
					"1..4 GB, start >= 0\n", path, lineno);
				errors++;
				continue;
			}
			fl->id = got;
			fl->src = (uint32_t)src;
			fl->dst = (uint32_t)dst;
			fl->pg = (uint8_t)pg;
			fl->dport = (uint16_t)dport;
			fl->size = (uint32_t)size;
			fl->start_ns = (uint64_t)llround(start * 1e9);
			got++;
		}
	}
	fclose(f);
	if (!have_count) {
		fprintf(stderr, "%s:%u: empty flow file\n", path, lineno);
		return -EINVAL;
	}
	if (errors)
		return -EINVAL;
	if (got < n) {
		fprintf(stderr, "%s:%u: %llu flows announced, %u found\n", path, lineno,
			(unsigned long long)n, got);
		return -EINVAL;
	}
	s->nflows = got;
	qsort(s->flows, s->nflows, sizeof(*s->flows), sim_flow_cmp);
	return 0;
}

/*
 * BFS from every host over switches only.  For switch `next` one hop
 * farther from host h than `now`, the port toward `now` is a next hop to h;
 * next hops keep BFS discovery order, as third.cc's vectors do.
 */
int
sim_topo_routes(struct sim *s)
{
	uint32_t H = s->nhosts;
	uint32_t N = s->nnodes;
	uint32_t *dist = malloc(sizeof(uint32_t) * N);
	uint32_t *queue = malloc(sizeof(uint32_t) * N);
	uint64_t *delay = malloc(sizeof(uint64_t) * N);
	uint64_t *txd = malloc(sizeof(uint64_t) * N);
	uint64_t *bw = malloc(sizeof(uint64_t) * N);
	uint32_t *cand = malloc(sizeof(uint32_t) * (s->nports + 1));
	uint32_t *hop_node = malloc(sizeof(uint32_t) * (s->nports + 1));
	uint32_t *hop_port = malloc(sizeof(uint32_t) * (s->nports + 1));
	uint32_t *fill = calloc(N, sizeof(uint32_t));
	uint32_t *rt_first = calloc((size_t)N * H + 1, sizeof(uint32_t));
	uint8_t *rt_count = calloc((size_t)N * H + 1, 1);
	uint32_t h;
	int rc = -ENOMEM;

	s->rt = calloc((size_t)N * H + 1, sizeof(uint32_t));
	/* Each port is a next hop toward a given host at most once. */
	s->rt_port = malloc(sizeof(uint32_t) * ((size_t)s->nports * H + 1));
	s->pair = calloc((size_t)H * H, sizeof(*s->pair));
	if (!dist || !queue || !delay || !txd || !bw || !cand || !hop_node || !hop_port ||
	    !fill || !rt_first || !rt_count || !s->rt || !s->rt_port || !s->pair)
		goto out;
	for (h = 0; h < H; h++) {
		uint32_t hn = s->hosts[h].node;
		uint32_t qh = 0, qt = 0, nhop = 0;
		uint32_t i;

		for (i = 0; i < N; i++) {
			dist[i] = UINT32_MAX;
			fill[i] = 0;
		}
		dist[hn] = 0;
		delay[hn] = 0;
		txd[hn] = 0;
		bw[hn] = UINT64_MAX;
		queue[qt++] = hn;
		while (qh < qt) {
			uint32_t now = queue[qh++];
			const struct sim_node *nn = &s->nodes[now];
			uint32_t nc = 0;
			uint32_t k;

			/* Neighbours in node-id order, like third.cc's map<Ptr<Node>>. */
			for (k = 0; k < nn->nports; k++)
				cand[nc++] = nn->port_base + k;
			for (k = 1; k < nc; k++) {
				uint32_t v = cand[k];
				uint32_t j = k;

				while (j > 0 && s->ports[s->ports[cand[j - 1]].peer].node >
						s->ports[s->ports[v].peer].node) {
					cand[j] = cand[j - 1];
					j--;
				}
				cand[j] = v;
			}
			for (k = 0; k < nc; k++) {
				const struct sim_port *p = &s->ports[cand[k]];
				uint32_t next = s->ports[p->peer].node;

				if (dist[next] == UINT32_MAX) {
					dist[next] = dist[now] + 1;
					delay[next] = delay[now] + p->delay_ns;
					txd[next] = txd[now] + (uint64_t)s->cfg.payload_bytes *
							1000000000ull * 8 / p->rate_bps;
					bw[next] = bw[now] < p->rate_bps ? bw[now] : p->rate_bps;
					if (s->nodes[next].kind == SIM_NODE_SWITCH)
						queue[qt++] = next;
				}
				if (dist[now] + 1 == dist[next] &&
				    s->nodes[next].kind == SIM_NODE_SWITCH) {
					/* The port of `next` facing `now`. */
					hop_node[nhop] = next;
					hop_port[nhop] = p->peer;
					nhop++;
					fill[next]++;
				}
			}
		}
		/* Lay each switch's next hops toward h out contiguously. */
		for (i = 0; i < N; i++) {
			size_t slot = (size_t)i * H + h;

			if (fill[i] > 255) {
				rc = -E2BIG;
				goto out;
			}
			rt_first[slot] = s->nrt_port;
			rt_count[slot] = 0;
			s->nrt_port += fill[i];
		}
		for (i = 0; i < nhop; i++) {
			size_t slot = (size_t)hop_node[i] * H + h;

			s->rt_port[rt_first[slot] + rt_count[slot]++] = hop_port[i];
		}
		/* Pair attributes toward host h, from every host. */
		for (i = 0; i < H; i++) {
			uint32_t sn = s->hosts[i].node;
			struct sim_pair *pr = &s->pair[(size_t)i * H + h];

			if (dist[sn] == UINT32_MAX || sn == hn) {
				pr->rtt_ns = 0;
				pr->bw_bps = 0;
				continue;
			}
			pr->rtt_ns = delay[sn] * 2 + txd[sn];
			pr->bw_bps = bw[sn];
		}
	}
	/* Pack each (switch, host) entry: count, and the port or the first index. */
	if (s->nrt_port >= (1u << 24) || s->nports >= (1u << 24)) {
		fprintf(stderr, "longspan-sim: %u next-hop entries over %u ports: more than the "
			"routing table's 2^24\n", s->nrt_port, s->nports);
		rc = -E2BIG;
		goto out;
	}
	for (h = 0; h < N * H; h++)
		s->rt[h] = rt_count[h] == 1 ? s->rt_port[rt_first[h]] << 8 | 1 :
			   rt_first[h] << 8 | rt_count[h];
	s->max_rtt_ns = 0;
	s->max_bdp_bytes = 0;
	for (h = 0; h < H * H; h++) {
		struct sim_pair *pr = &s->pair[h];
		uint64_t bdp;

		if (pr->bw_bps == 0)
			continue;
		bdp = (uint64_t)((unsigned __int128)pr->rtt_ns * pr->bw_bps / 1000000000ull / 8);
		if (bdp > s->max_bdp_bytes)
			s->max_bdp_bytes = bdp;
		if (pr->rtt_ns > s->max_rtt_ns)
			s->max_rtt_ns = pr->rtt_ns;
	}
	rc = 0;
out:
	free(dist);
	free(queue);
	free(delay);
	free(txd);
	free(bw);
	free(cand);
	free(hop_node);
	free(hop_port);
	free(fill);
	free(rt_first);
	free(rt_count);
	return rc;
}

/* Everything sim_topo_load() and the setups allocated (the struct itself stays). */
void
sim_free(struct sim *s)
{
	sim_gw_free(s);
	sim_host_free(s);
	sim_net_free(s);
	sim_net_pool_free(s);
	sim_wheel_free(&s->wheel);
	sim_heap_free(&s->heap);
	sim_heap_free(&s->slow);
	free(s->nodes);
	free(s->ports);
	free(s->hosts);
	free(s->host_of_node);
	free(s->rt);
	free(s->rt_port);
	free(s->pair);
	free(s->flows);
}
