/* SPDX-License-Identifier: BSD-3-Clause */
/* `show peers`: what the sessions report (peering.h). */
#include <arpa/inet.h>
#include <string.h>

#include "fmt.h"
#include <time.h>

#include "peering.h"

uint64_t
peering_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

struct peering_peer *
peering_peer_of(struct peering *pg, const char *name)
{
	unsigned int i;

	for (i = 0; i < pg->n_peers; i++)
		if (strcmp(pg->peers[i].name, name) == 0)
			return &pg->peers[i];
	return NULL;
}

void
peering_prefix_text(const struct conf_prefix *p, char *buf, size_t size)
{
	char a[INET6_ADDRSTRLEN];

	inet_ntop(p->addr.family, p->addr.a, a, sizeof(a));
	snprintf(buf, size, "%s/%u", a, p->len);
}

static void
peering_reasons(struct fmt *f, const char *key, const uint64_t *counts)
{
	unsigned int r;

	fmt_open(f, key, FMT_OBJ);
	for (r = 0; r < PEER_REASON_MAX; r++)
		if (counts[r] != 0)
			fmt_u64(f, peer_reason_name((enum peer_reason)r), counts[r]);
	fmt_close(f);
}

void
peering_show_peer(struct fmt *f, const struct ls_runtime *rt, const char *name)
{
	struct peering *pg = rt->peering;
	const struct peer_session *s;
	const struct peering_peer *pp;
	const struct conf_prefix *pfx;
	char text[INET6_ADDRSTRLEN + 8];
	uint64_t now = peering_now_ns();
	unsigned int i, n = 0;
	uint32_t gen = 0;
	bool valid;

	s = pg != NULL ? peer_mgr_find(&pg->mgr, name) : NULL;
	pp = pg != NULL ? peering_peer_of(pg, name) : NULL;
	fmt_open(f, "session", FMT_OBJ);
	if (s == NULL || pp == NULL) {
		fmt_str(f, "state", "off");
		fmt_close(f);
		return;
	}
	fmt_str(f, "state", s->up ? "up" : "down");
	fmt_u64(f, "since_ms", (now - (s->up ? s->up_since_ns : s->down_since_ns)) / 1000000u);
	fmt_str(f, "direction",
		s->active == NULL ? "-" : s->active->tls.outbound ? "outbound" : "inbound");
	fmt_str(f, "last_down", peer_reason_name(pp->last_down));
	fmt_str(f, "peer_software", s->peer_software);
	fmt_u64(f, "peer_capabilities", s->peer_capabilities);
	fmt_u64(f, "hold_ms", s->hold_ns / 1000000u);
	fmt_u64(f, "session_rtt_us", s->session_rtt_ns / 1000u);
	fmt_u64(f, "peer_measured_rtt_us", s->peer_measured_rtt_ns / 1000u);
	fmt_u64(f, "ups", s->stats.ups);
	fmt_u64(f, "connects", s->stats.connects);
	fmt_u64(f, "accepts", s->stats.accepts);
	fmt_u64(f, "duplicates", s->stats.duplicates);
	fmt_u64(f, "peer_restarts", s->stats.peer_restarts);
	peering_reasons(f, "refused", s->stats.refused);
	peering_reasons(f, "lost", s->stats.lost);
	valid = peer_session_learned(s, now, &pfx, &n, &gen);
	fmt_u64(f, "routes_generation", gen);
	fmt_open(f, "routes_learned", FMT_LIST);
	for (i = 0; valid && i < n; i++) {
		peering_prefix_text(&pfx[i], text, sizeof(text));
		fmt_str(f, NULL, text);
	}
	fmt_close(f);
	n = 0;
	for (i = 0; i < pg->learned.n_peers; i++)
		if (strcmp(pg->learned.peers[i].name, name) == 0)
			n = pg->learned.peers[i].n;
	fmt_u64(f, "routes_in_use", n);
	fmt_u64(f, "routes_refused", pp->routes_refused);
	fmt_u64(f, "routes_refused_now", pp->n_refused);
	fmt_u64(f, "routes_expired", pp->routes_expired);
	if (!s->up && valid && pg->conf.route_hold_ns > 0)
		fmt_u64(f, "routes_expire_in_ms",
			(s->down_since_ns + pg->conf.route_hold_ns - now) / 1000000u);
	fmt_u64(f, "hints", pp->hints);
	fmt_u64(f, "hint_qps", pp->hint_qps);
	fmt_u64(f, "hints_sent", pp->hints_sent);
	fmt_u64(f, "hint_qps_sent", pp->hint_qps_sent);
	fmt_u64(f, "hint_qps_left_out", pp->hint_qps_left_out);
	fmt_close(f);
}

void
peering_show(struct fmt *f, const struct ls_runtime *rt)
{
	const struct peering *pg = rt->peering;

	fmt_open(f, "peering", FMT_OBJ);
	fmt_bool(f, "enabled", pg != NULL);
	if (pg != NULL) {
		fmt_u64(f, "listen_port", peer_mgr_listen_port(&pg->mgr));
		fmt_u64(f, "sessions", pg->mgr.n_sessions);
		fmt_u64(f, "tls_reloads", pg->mgr.tls_reloads);
		fmt_u64(f, "route_republishes", pg->republishes);
		fmt_u64(f, "route_republish_failed", pg->republish_failed);
		peering_reasons(f, "refused", pg->mgr.refused);
	}
	fmt_close(f);
}
