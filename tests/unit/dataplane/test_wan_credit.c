/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Mechanism B on the WAN hop (dataplane/wan_credit.h), through the real
 * pipeline over net_ring ports with a controlled clock (ut_runtime: 1 TSC
 * tick = 1 ns = the credit clock). The test plays the peer gateway: it
 * writes the peer's GENEVE frames (credit option by hand, from
 * docs/wire-format.md) and reads the gateway's off the WAN tx ring.
 *
 * - Idle control packets: the gateway reports (sent = 0) at once, grants
 *   the peer its whole buffer at once when the peer reported, and then
 *   sends one control packet (report and grant) per credit_refresh_ns of
 *   silence, no more.
 * - Sending: RoCE data toward the peer waits until a grant and then leaves
 *   up to exactly the limit (the next packet would pass it); a head that
 *   starts to wait sends one report with the wait flag at once; a stale or
 *   wrong-epoch grant changes nothing; a lost grant is repaired by the next
 *   one, which carries the whole limit.
 * - Receiving: charged packets held in the DC pause FIFO take buffer; the
 *   grant after they left is report + buffer; a grant the test drops is
 *   repeated on the timer with the same cumulative limit; bytes lost on
 *   the WAN come back with the next report. No credit leaks. A peer that
 *   says it waits is answered at once, though the limit did not move.
 * - Bad input: every malformed option or control packet is a counted drop
 *   with its own reason and changes no credit state.
 * - Every packet is counted once (rx and tx sums, own_tx with ctrl_tx).
 *
 * With LS_CREDIT_DUMP=FILE the frames the gateway emitted (data with the
 * option, control packets) are written there, one hex frame a line, for
 * tests/dataplane/credit_wire_check.py (tshark and scapy).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <rte_eth_ring.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include "control/ports.h"
#include "dataplane/credit_opt.h"
#include "dataplane/pfc.h"
#include "dataplane/worker.h"
#include "ut_eal.h"
#include "ut_pkt.h"
#include "ut_runtime.h"
#include "ut_sums.h"

#define T0 UINT64_C(1000000000)
#define PEER_EPOCH UINT32_C(0x5eed0001)

static const char conf_text[] =
	"[gateway]\nname = credit\nburst = 32\nprobe_interval = 0\n"
	"[port dc]\nrole = dc\ndev = net_ring_cr_dc\nmac = 02:00:00:00:01:fe\n"
	"ipv4 = 10.1.0.254/16\nneighbor = 10.1.0.1 02:00:00:00:01:01\nlink_rate = 10G\n"
	"[port wan]\nrole = wan\ndev = net_ring_cr_wan\nmac = 02:00:00:00:0a:02\n"
	"ipv4 = 192.0.2.1/24\nneighbor = 192.0.2.2 02:00:00:00:0b:02\n"
	"neighbor = 192.0.2.3 02:00:00:00:0c:02\nlink_rate = 10G\n"
	"[peer site-b]\nport = wan\nremote = 192.0.2.2\nvni = 100\nrtt = 1ms\n"
	"prefix = 10.2.0.0/16\nlossless = credit\n"
	"[peer site-c]\nport = wan\nremote = 192.0.2.3\nvni = 200\nrtt = 1ms\n"
	"prefix = 10.3.0.0/16\nlossless = pfc\n"
	"[congestion]\nmarker = none\n";

static struct ls_runtime rt;
static struct dp_worker *w;
static struct rte_ring *rx_ring[LS_MAX_PORTS], *tx_ring[LS_MAX_PORTS];
static unsigned int dc_port, wan_port;
static FILE *dump;
static uint64_t buf_bytes, refresh_ns; /* the peer's credit buffer and refresh interval */

/* ---- accounting ---- */

/* The accounting of ut_sums.h, after every step. */
static void
check_sums(void)
{
	ut_check_sums(w, dc_port, wan_port);
}

/* ---- clock and rings ---- */

static void
poll_at(uint64_t t)
{
	const struct dp_clock clk = { .tsc = t, .ns = t };

	dp_worker_poll(w, &clk);
}

static void
rx(unsigned int port, const uint8_t *frame, uint32_t len)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(rt.pool);

	assert_non_null(m);
	memcpy(rte_pktmbuf_append(m, (uint16_t)len), frame, len);
	assert_int_equal(rte_ring_enqueue(rx_ring[port], m), 0);
}

static void
flush_ring(unsigned int port)
{
	struct rte_mbuf *m;

	while (rte_ring_dequeue(tx_ring[port], (void **)&m) == 0)
		rte_pktmbuf_free(m);
}

/* ---- what the gateway sends the peer ---- */

struct wan_frame {
	bool control; /* GENEVE O = 1 */
	bool has_opt;
	struct credit_opt o;
	uint32_t inner_bytes; /* 0 for a control packet */
	uint8_t tos; /* outer */
};

/* Dissect one frame off the WAN tx ring (by hand, offsets of docs/wire-format.md). */
static bool
tx_wan(struct wan_frame *f)
{
	struct rte_mbuf *m;
	const uint8_t *p, *g;
	uint32_t opt_len, o, udp_len;

	if (rte_ring_dequeue(tx_ring[wan_port], (void **)&m) != 0)
		return false;
	p = rte_pktmbuf_mtod(m, const uint8_t *);
	if (dump != NULL) {
		for (o = 0; o < m->data_len; o++)
			fprintf(dump, "%02x", p[o]);
		fprintf(dump, "\n");
	}
	memset(f, 0, sizeof(*f));
	assert_int_equal(ut_get16(p + 12), UT_ET_IPV4);
	assert_int_equal(p[23], UT_PROTO_UDP);
	assert_int_equal(ut_get16(p + 36), 6081);
	f->tos = p[15];
	udp_len = ut_get16(p + 38);
	g = p + 42;
	opt_len = (uint32_t)(g[0] & 0x3f) * 4;
	f->control = (g[1] & 0x80) != 0;
	for (o = 8; o < 8 + opt_len;) {
		uint32_t olen = 4 + (uint32_t)(g[o + 3] & 0x1f) * 4;

		if (ut_get16(g + o) == 0xff4c && g[o + 2] == CREDIT_OPT_TYPE) {
			assert_false(f->has_opt);
			assert_int_equal(credit_opt_parse(g + o, olen, &f->o), CREDIT_OPT_OK);
			f->has_opt = true;
		}
		o += olen;
	}
	f->inner_bytes = udp_len - 8 - 8 - opt_len;
	if (f->control) {
		assert_int_equal(ut_get16(g + 2), 0);
		assert_int_equal(f->inner_bytes, 0);
		assert_true(f->has_opt);
	}
	rte_pktmbuf_free(m);
	return true;
}

/* Counts of data frames and control frames on the WAN tx ring; the last option of each kind. */
struct wan_seen {
	unsigned int data, control;
	uint64_t data_bytes;
	struct credit_opt last_data, last_control;
	bool last_data_grant, last_control_grant;
};

static void
tx_wan_all(struct wan_seen *s)
{
	struct wan_frame f;

	memset(s, 0, sizeof(*s));
	while (tx_wan(&f)) {
		assert_true(f.has_opt);
		assert_int_equal(f.o.priority, 3);
		assert_true(f.o.flags & CREDIT_OPT_F_REPORT);
		if (f.control) {
			s->control++;
			s->last_control = f.o;
			assert_false(f.o.flags & CREDIT_OPT_F_CHARGED);
			assert_int_equal(f.tos >> 2, 48); /* the CNP's DSCP */
		} else {
			s->data++;
			s->data_bytes += f.inner_bytes;
			s->last_data = f.o;
			assert_true(f.o.flags & CREDIT_OPT_F_CHARGED);
			assert_false(f.o.flags & CREDIT_OPT_F_WAIT);
		}
	}
}

/* ---- what the peer sends ---- */

/* A credit option as the peer writes it (independent of credit_opt_write). */
static void
peer_opt(uint8_t *p, uint16_t flags, uint32_t gepoch, uint64_t limit, uint32_t repoch,
	 uint64_t report)
{
	memset(p, 0, CREDIT_OPT_BYTES);
	ut_put16(p, 0xff4c);
	p[2] = 0x02;
	p[3] = 8;
	p[4] = 1;
	p[5] = 3;
	ut_put16(p + 6, flags);
	ut_put32(p + 8, gepoch);
	ut_put32(p + 12, (uint32_t)(limit >> 32));
	ut_put32(p + 16, (uint32_t)limit);
	ut_put32(p + 20, repoch);
	ut_put32(p + 28, (uint32_t)(report >> 32));
	ut_put32(p + 32, (uint32_t)report);
}

/*
 * A GENEVE frame from src_last (192.0.2.X) with VNI vni, options opts
 * (optlen bytes, a multiple of 4 unless testing), O = control and, when
 * inner is given, that inner IP packet; returns its length.
 */
static uint32_t
peer_frame(uint8_t *f, uint8_t src_last, uint32_t vni, const uint8_t *opts, uint32_t optlen,
	   uint32_t optlen_words, bool control, const struct ut_pkt *inner)
{
	uint32_t ilen = inner != NULL ? inner->ip_len : 0;
	uint16_t udp_len = (uint16_t)(8 + 8 + optlen + ilen);

	memcpy(f, "\x02\x00\x00\x00\x0a\x02\x02\x00\x00\x00\x0b\x02", 12);
	ut_put16(f + 12, UT_ET_IPV4);
	memset(f + 14, 0, 36);
	f[14] = 0x45;
	ut_put16(f + 16, (uint16_t)(20 + udp_len));
	ut_put16(f + 20, 0x4000);
	f[22] = 64;
	f[23] = UT_PROTO_UDP;
	memcpy(f + 26, "\xc0\x00\x02", 3);
	f[29] = src_last;
	memcpy(f + 30, "\xc0\x00\x02\x01", 4);
	ut_ip4_fix_csum(f + 14);
	ut_put16(f + 34, 0xc000);
	ut_put16(f + 36, 6081);
	ut_put16(f + 38, udp_len);
	f[42] = (uint8_t)optlen_words;
	f[43] = control ? 0x80 : 0;
	ut_put16(f + 44, inner != NULL ? UT_ET_IPV4 : 0);
	f[46] = (uint8_t)(vni >> 16);
	f[47] = (uint8_t)(vni >> 8);
	f[48] = (uint8_t)vni;
	f[49] = 0;
	memcpy(f + 50, opts, optlen);
	if (inner != NULL)
		memcpy(f + 50 + optlen, inner->b + inner->l3_off, inner->ip_len);
	return 50 + optlen + ilen;
}

/* The peer's control packet: a grant for our epoch and its report. */
static void
rx_peer_ctrl(uint16_t flags, uint32_t gepoch, uint64_t limit, uint64_t report)
{
	uint8_t f[256], o[CREDIT_OPT_BYTES];

	peer_opt(o, flags, gepoch, limit, PEER_EPOCH, report);
	rx(wan_port, f, peer_frame(f, 2, 100, o, sizeof(o), sizeof(o) / 4, true, NULL));
}

/* An inner RoCE data packet 10.2.0.2 -> 10.1.0.1, DSCP 26, from the peer's site. */
static void
peer_inner(struct ut_pkt *p, uint32_t psn)
{
	ut_build(p, &(struct ut_spec){ .family = 4, .tos = 26 << 2 | 2, .roce = true,
				      .opcode = 0x0a, .dqpn = 0x22, .psn = psn, .sport = 0xe001,
				      .payload = 512 });
	memcpy(p->b + p->l3_off + 12, ut_ip4_dst, 4);
	memcpy(p->b + p->l3_off + 16, ut_ip4_src, 4);
	ut_ip4_fix_csum(p->b + p->l3_off);
}

/* What the peer has sent us, cumulative: its report. */
static uint64_t peer_sent;

/*
 * The peer sends a charged data packet with its report; the WAN delivers
 * it unless lost. Returns its inner bytes.
 */
static uint32_t
rx_peer_data(uint32_t psn, bool lost)
{
	uint8_t f[1024], o[CREDIT_OPT_BYTES];
	struct ut_pkt p;

	peer_inner(&p, psn);
	peer_sent += p.ip_len;
	peer_opt(o, CREDIT_OPT_F_REPORT | CREDIT_OPT_F_CHARGED, 0, 0, PEER_EPOCH, peer_sent);
	if (!lost)
		rx(wan_port, f, peer_frame(f, 2, 100, o, sizeof(o), sizeof(o) / 4, false, &p));
	return p.ip_len;
}

/* A local sender's RoCE data toward the peer's site; returns the inner IP bytes. */
static uint32_t
rx_dc_data(uint32_t psn)
{
	struct ut_pkt p;

	ut_build(&p, &(struct ut_spec){ .family = 4, .tos = 26 << 2 | 2, .roce = true,
				      .opcode = 0x0a, .dqpn = 0x11, .psn = psn, .sport = 0xe000,
				      .payload = 1000 });
	rx(dc_port, p.b, p.len);
	return p.ip_len;
}

static void
rx_pfc(uint8_t prio, uint16_t quanta)
{
	static const uint8_t fabric_mac[6] = { 0x02, 0, 0, 0, 0x01, 0x01 };
	uint16_t q[PFC_PRIORITIES] = { 0 };
	uint8_t f[PFC_FRAME_BYTES];

	q[prio] = quanta;
	rx(dc_port, f, pfc_frame_write(f, fabric_mac, (uint8_t)(1u << prio), q));
}

static const struct wan_credit_peer *
peer_b(void)
{
	return &w->credit.p[0];
}

/* ---- tests, in order: each starts where the previous one left the clock ---- */

static uint64_t now_ns = T0;

static void
test_idle_control_on_refresh(void **state)
{
	struct wan_seen s;
	uint64_t t0 = now_ns, t, last, end;
	unsigned int ctrl = 0;

	(void)state;
	assert_true(rt.dp->peers[0].credit);
	assert_false(rt.dp->peers[1].credit);
	buf_bytes = rt.dp->lossless.credit[0].buffer_bytes;
	refresh_ns = rt.dp->lossless.credit[0].refresh_ticks;
	assert_int_equal(refresh_ns, 10000000); /* max(10 ms, 2 x rtt 1 ms) (cc_params) */
	assert_true(buf_bytes > 1250000); /* at least the WAN BDP */

	/* First poll: nothing was ever sent to the peer, so it gets a report now. */
	poll_at(t0);
	tx_wan_all(&s);
	assert_int_equal(s.control, 1);
	assert_int_equal(s.data, 0);
	assert_int_equal(s.last_control.flags, CREDIT_OPT_F_REPORT); /* nothing to grant yet */
	assert_int_equal(s.last_control.report, 0);
	assert_int_equal(s.last_control.report_epoch, w->credit.epoch);
	assert_int_equal(w->counters.credit.ctrl_tx, 1);

	/* Silence: nothing until exactly a refresh interval later. */
	poll_at(t0 + refresh_ns / 2);
	tx_wan_all(&s);
	assert_int_equal(s.control, 0);
	poll_at(t0 + refresh_ns - 1);
	tx_wan_all(&s);
	assert_int_equal(s.control, 0);
	poll_at(t0 + refresh_ns);
	tx_wan_all(&s);
	assert_int_equal(s.control, 1);
	assert_int_equal(w->counters.credit.ctrl_tx, 2);
	assert_true(w->next_due_tsc <= t0 + 2 * refresh_ns);

	/* The peer reports: the gateway grants it its whole buffer at once. */
	rx_peer_ctrl(CREDIT_OPT_F_REPORT, 0, 0, 0);
	poll_at(t0 + refresh_ns + 10);
	tx_wan_all(&s);
	assert_int_equal(s.control, 1);
	assert_int_equal(s.last_control.flags, CREDIT_OPT_F_REPORT | CREDIT_OPT_F_GRANT);
	assert_int_equal(s.last_control.grant_epoch, PEER_EPOCH);
	assert_int_equal(s.last_control.grant_limit, buf_bytes);
	assert_int_equal(w->counters.drops[LS_DROP_CREDIT_CONTROL], 1); /* consumed */
	assert_int_equal(w->counters.credit.reports_rx, 1);
	check_sums();

	/*
	 * Idle from here, polled every 100 us for five refresh intervals: one
	 * control packet per interval (report and grant refresh together), the
	 * worker told to wake for each.
	 */
	last = t0 + refresh_ns + 10;
	end = last + 5 * refresh_ns;
	for (t = last + 100000; t <= end; t += 100000) {
		poll_at(t);
		tx_wan_all(&s);
		ctrl += s.control;
		if (s.control != 0) {
			assert_int_equal(t - last, refresh_ns);
			assert_true(s.last_control.flags & CREDIT_OPT_F_GRANT);
			assert_int_equal(s.last_control.grant_limit, buf_bytes);
			last = t;
		}
		assert_true(w->next_due_tsc <= last + refresh_ns);
	}
	assert_int_equal(ctrl, 5);
	assert_int_equal(w->counters.credit.ctrl_tx, 3 + 5);
	check_sums();
	now_ns = last;
}

static void
test_sender_stops_at_limit(void **state)
{
	const struct dp_credit_counters *cc = &w->counters.credit;
	uint32_t epoch = w->credit.epoch, s_bytes = 0;
	uint64_t t = now_ns + 1000, limit, blocked_from;
	struct wan_seen s;
	unsigned int i;

	(void)state;
	/* No grant yet: RoCE data toward the peer waits in the WAN queue. */
	for (i = 0; i < 5; i++)
		s_bytes = rx_dc_data(i);
	poll_at(t);
	tx_wan_all(&s);
	assert_int_equal(s.data, 0);
	assert_int_equal(tm_fifo_count(&w->tm[wan_port].q[DP_TM_CLASS_ROCE]), 5);
	assert_true(cc->blocked >= 1);
	assert_true(peer_b()->blocked);
	/* The wait is news: one report with the wait flag goes at once, not at the refresh. */
	assert_int_equal(s.control, 1);
	assert_int_equal(s.last_control.flags & (CREDIT_OPT_F_REPORT | CREDIT_OPT_F_WAIT),
			 CREDIT_OPT_F_REPORT | CREDIT_OPT_F_WAIT);
	assert_int_equal(s.last_control.report, 0);
	poll_at(t + 1);
	tx_wan_all(&s);
	assert_int_equal(s.control, 0); /* once per wait */
	/*
	 * A head that waits for credit is not due: the worker may sleep until
	 * the next credit refresh (a grant, a packet, wakes it sooner), where
	 * a due time of now would spin it for as long as the credit is out.
	 */
	assert_true(w->next_due_tsc > t + 1);
	assert_true(w->next_due_tsc <= t + refresh_ns);
	blocked_from = t;
	check_sums();

	/* A grant of three and a half packets: exactly three go, the fourth would pass it. */
	limit = 3 * (uint64_t)s_bytes + s_bytes / 2;
	rx_peer_ctrl(CREDIT_OPT_F_GRANT | CREDIT_OPT_F_REPORT, epoch, limit, 0);
	t += 1000;
	poll_at(t);
	tx_wan_all(&s);
	assert_int_equal(s.data, 3);
	assert_int_equal(s.data_bytes, 3 * (uint64_t)s_bytes);
	/* The fourth waits: a new wait, reported after the three (wire order). */
	assert_int_equal(s.control, 1);
	assert_true(s.last_control.flags & CREDIT_OPT_F_WAIT);
	assert_int_equal(s.last_control.report, 3 * (uint64_t)s_bytes);
	assert_int_equal(s.last_data.report, 3 * (uint64_t)s_bytes);
	assert_int_equal(s.last_data.report_epoch, epoch);
	/* The reverse grant rides on the data (the peer reported before). */
	assert_true(s.last_data.flags & CREDIT_OPT_F_GRANT);
	assert_int_equal(s.last_data.grant_limit, buf_bytes);
	assert_int_equal(tm_fifo_count(&w->tm[wan_port].q[DP_TM_CLASS_ROCE]), 2);
	assert_int_equal(cc->sent_bytes, 3 * (uint64_t)s_bytes);
	assert_int_equal(cc->grants_rx, 1);
	assert_int_equal(credit_tx_available(&peer_b()->tx), s_bytes / 2);
	check_sums();

	/* The same grant again, and one for another epoch: stale, nothing moves. */
	rx_peer_ctrl(CREDIT_OPT_F_GRANT | CREDIT_OPT_F_REPORT, epoch, limit, 0);
	rx_peer_ctrl(CREDIT_OPT_F_GRANT | CREDIT_OPT_F_REPORT, epoch + 1, limit * 10, 0);
	t += 1000;
	poll_at(t);
	tx_wan_all(&s);
	assert_int_equal(s.data, 0);
	assert_int_equal(cc->grants_stale, 2);
	assert_true(w->next_due_tsc > t); /* two packets wait for credit: not due */

	/*
	 * The peer's next grant (five packets) is lost on the WAN: the test
	 * never delivers it. The one after (six) carries the whole limit:
	 * both waiting packets go, and credit for one more is left.
	 */
	t += 1000;
	poll_at(t);
	tx_wan_all(&s);
	assert_int_equal(s.data, 0);
	rx_peer_ctrl(CREDIT_OPT_F_GRANT | CREDIT_OPT_F_REPORT, epoch, 6 * (uint64_t)s_bytes, 0);
	t += 1000;
	poll_at(t);
	tx_wan_all(&s);
	assert_int_equal(s.data, 2);
	assert_int_equal(s.last_data.report, 5 * (uint64_t)s_bytes);
	assert_int_equal(tm_fifo_count(&w->tm[wan_port].q[DP_TM_CLASS_ROCE]), 0);
	assert_int_equal(credit_tx_available(&peer_b()->tx), s_bytes);
	assert_false(peer_b()->blocked);
	assert_int_equal(cc->blocked_ns, t - blocked_from);
	assert_int_equal(w->counters.drops[LS_DROP_TM_QUEUE_FULL], 0);
	check_sums();
	now_ns = t;
}

static void
test_receiver_grants_survive_loss(void **state)
{
	const struct dp_credit_counters *cc = &w->counters.credit;
	const struct wan_credit_peer *b = peer_b();
	uint64_t t = now_ns + 1000, refresh;
	uint32_t s_bytes = 0;
	struct wan_seen s;
	unsigned int i;

	(void)state;
	/* The DC fabric pauses priority 3: the peer's packets stay in the gateway's buffer. */
	rx_pfc(3, 0xffff);
	for (i = 0; i < 3; i++)
		s_bytes = rx_peer_data(i, false);
	poll_at(t);
	assert_int_equal(w->counters.pfc.queued, 3);
	assert_int_equal(b->rx.occupancy_bytes, 3 * (uint64_t)s_bytes);
	assert_int_equal(cc->arrived_bytes, 3 * (uint64_t)s_bytes);
	assert_int_equal(b->rx.reported, peer_sent);
	flush_ring(dc_port);
	check_sums();

	/* Held bytes are not granted again: the refresh still says the buffer from 0. */
	refresh = b->rx.advertised_at + refresh_ns;
	poll_at(refresh);
	tx_wan_all(&s);
	assert_int_equal(s.control, 1);
	assert_true(s.last_control.flags & CREDIT_OPT_F_GRANT);
	assert_int_equal(s.last_control.grant_limit, buf_bytes);

	/* Resume: the three leave toward the DC, their bytes return as credit. */
	rx_pfc(3, 0);
	t = refresh + 1000;
	poll_at(t);
	assert_int_equal(w->counters.pfc.queued, 0);
	assert_int_equal(rte_ring_count(tx_ring[dc_port]), 3);
	assert_int_equal(b->rx.occupancy_bytes, 0);
	tx_wan_all(&s);
	assert_int_equal(s.control, 0); /* moved less than update_bytes: waits for the refresh */

	/* That refresh is lost on the WAN (dropped here); the next one says the same. */
	refresh = b->rx.advertised_at + refresh_ns;
	poll_at(refresh);
	tx_wan_all(&s);
	assert_int_equal(s.control, 1);
	assert_int_equal(s.last_control.grant_limit, peer_sent + buf_bytes);
	poll_at(refresh + refresh_ns - 1);
	tx_wan_all(&s);
	assert_int_equal(s.control, 0);
	poll_at(refresh + refresh_ns);
	tx_wan_all(&s);
	assert_int_equal(s.control, 1);
	assert_int_equal(s.last_control.grant_limit, peer_sent + buf_bytes);
	assert_int_equal(s.last_control.grant_epoch, PEER_EPOCH);
	refresh += refresh_ns;

	/*
	 * The peer says it waits at its report: the grant that would have let it
	 * go may have been lost. Answered in the next poll with the whole limit,
	 * though the limit did not move; once.
	 */
	rx_peer_ctrl(CREDIT_OPT_F_REPORT | CREDIT_OPT_F_WAIT, 0, 0, peer_sent);
	poll_at(refresh + 1000);
	tx_wan_all(&s);
	assert_int_equal(s.control, 1);
	assert_true(s.last_control.flags & CREDIT_OPT_F_GRANT);
	assert_int_equal(s.last_control.grant_limit, peer_sent + buf_bytes);
	poll_at(refresh + 2000);
	tx_wan_all(&s);
	assert_int_equal(s.control, 0);

	/* A data packet lost on the WAN: the next report brings its credit back. */
	rx_peer_data(3, true);
	rx_peer_data(4, false);
	t = refresh + 3000;
	poll_at(t);
	assert_int_equal(b->rx.lost_bytes, s_bytes);
	assert_int_equal(b->rx.occupancy_bytes, 0);
	poll_at(b->rx.advertised_at + refresh_ns);
	tx_wan_all(&s);
	assert_int_equal(s.control, 1);
	assert_int_equal(s.last_control.grant_limit - peer_sent, buf_bytes); /* no leak */
	assert_int_equal(cc->lost_bytes, s_bytes);
	assert_int_equal(cc->overrun_bytes, 0);
	flush_ring(dc_port);
	check_sums();
	now_ns = b->rx.advertised_at;
}

/* One bad frame from the peer's address: dropped with reason r, no credit state changed. */
static void
bad_frame(const uint8_t *f, uint32_t len, enum ls_drop_reason r)
{
	uint64_t before = w->counters.drops[r];
	struct credit_tx tx = peer_b()->tx;
	struct credit_rx rxs = peer_b()->rx;

	rx(wan_port, f, len);
	poll_at(++now_ns);
	assert_int_equal(w->counters.drops[r], before + 1);
	assert_memory_equal(&tx, &peer_b()->tx, sizeof(tx));
	assert_int_equal(rxs.reported, peer_b()->rx.reported);
	assert_int_equal(rxs.occupancy_bytes, peer_b()->rx.occupancy_bytes);
	flush_ring(dc_port);
	flush_ring(wan_port);
}

static void
test_bad_input(void **state)
{
	uint8_t f[1024], o[2 * CREDIT_OPT_BYTES], good[CREDIT_OPT_BYTES];
	const uint16_t gr = CREDIT_OPT_F_GRANT | CREDIT_OPT_F_REPORT;
	uint64_t huge = UINT64_C(1) << 40;
	struct ut_pkt p;

	(void)state;
	peer_inner(&p, 100);
	peer_opt(good, gr, w->credit.epoch, huge, PEER_EPOCH, peer_sent);

	/* The option's length says 7 words. */
	memcpy(o, good, 32);
	o[3] = 7;
	bad_frame(f, peer_frame(f, 2, 100, o, 32, 8, true, NULL), LS_DROP_CREDIT_OPT_BAD);
	/* Cut short: the GENEVE header promises 9 words of options, the datagram has 6. */
	bad_frame(f, peer_frame(f, 2, 100, good, 24, 9, true, NULL), LS_DROP_GENEVE_TRUNC);
	/*
	 * Version 2, priority 8, unknown flags, no field valid, charged or wait
	 * without report, reserved.
	 */
	memcpy(o, good, sizeof(good));
	o[4] = 2;
	bad_frame(f, peer_frame(f, 2, 100, o, 36, 9, true, NULL), LS_DROP_CREDIT_OPT_BAD);
	memcpy(o, good, sizeof(good));
	o[5] = 8;
	bad_frame(f, peer_frame(f, 2, 100, o, 36, 9, true, NULL), LS_DROP_CREDIT_OPT_BAD);
	memcpy(o, good, sizeof(good));
	o[6] = 0x80;
	bad_frame(f, peer_frame(f, 2, 100, o, 36, 9, true, NULL), LS_DROP_CREDIT_OPT_BAD);
	memcpy(o, good, sizeof(good));
	ut_put16(o + 6, 0);
	bad_frame(f, peer_frame(f, 2, 100, o, 36, 9, true, NULL), LS_DROP_CREDIT_OPT_BAD);
	memcpy(o, good, sizeof(good));
	ut_put16(o + 6, CREDIT_OPT_F_GRANT | CREDIT_OPT_F_CHARGED);
	bad_frame(f, peer_frame(f, 2, 100, o, 36, 9, true, NULL), LS_DROP_CREDIT_OPT_BAD);
	memcpy(o, good, sizeof(good));
	ut_put16(o + 6, CREDIT_OPT_F_GRANT | CREDIT_OPT_F_WAIT);
	bad_frame(f, peer_frame(f, 2, 100, o, 36, 9, true, NULL), LS_DROP_CREDIT_OPT_BAD);
	memcpy(o, good, sizeof(good));
	o[27] = 1;
	bad_frame(f, peer_frame(f, 2, 100, o, 36, 9, true, NULL), LS_DROP_CREDIT_OPT_BAD);
	/* Two credit options in one packet. */
	memcpy(o, good, sizeof(good));
	memcpy(o + sizeof(good), good, sizeof(good));
	bad_frame(f, peer_frame(f, 2, 100, o, 72, 18, true, NULL), LS_DROP_CREDIT_OPT_BAD);
	/* A control packet with an inner packet behind it, or without a credit option. */
	bad_frame(f, peer_frame(f, 2, 100, good, 36, 9, true, &p), LS_DROP_GENEVE_OAM);
	bad_frame(f, peer_frame(f, 2, 100, o, 0, 0, true, NULL), LS_DROP_GENEVE_OAM);
	/* From a peer without lossless = credit (site-c, VNI 200), and from no peer at all. */
	bad_frame(f, peer_frame(f, 3, 200, good, 36, 9, true, NULL), LS_DROP_CREDIT_NOT_ENABLED);
	bad_frame(f, peer_frame(f, 3, 200, good, 36, 9, false, &p), LS_DROP_CREDIT_NOT_ENABLED);
	bad_frame(f, peer_frame(f, 9, 100, good, 36, 9, true, NULL), LS_DROP_UNKNOWN_PEER);
	check_sums();

	/* The well-formed one is obeyed. */
	rx(wan_port, f, peer_frame(f, 2, 100, good, 36, 9, true, NULL));
	poll_at(++now_ns);
	assert_int_equal(peer_b()->tx.limit, huge);
	flush_ring(wan_port);
	check_sums();
}

static int
setup_ports(const struct ls_config *cfg)
{
	unsigned int i;

	for (i = 0; i < cfg->n_ports; i++) {
		char name[RTE_RING_NAMESIZE];

		snprintf(name, sizeof(name), "ut_cr_rx%u", i);
		rx_ring[i] = rte_ring_create(name, 256, 0, RING_F_SP_ENQ | RING_F_SC_DEQ);
		snprintf(name, sizeof(name), "ut_cr_tx%u", i);
		tx_ring[i] = rte_ring_create(name, 1024, 0, RING_F_SP_ENQ | RING_F_SC_DEQ);
		if (rx_ring[i] == NULL || tx_ring[i] == NULL)
			return -1;
		if (rte_eth_from_rings(cfg->ports[i].dev + 9, &rx_ring[i], 1, &tx_ring[i], 1, 0) < 0)
			return -1;
		if (cfg->ports[i].role == LS_PORT_WAN)
			wan_port = i;
		else
			dc_port = i;
	}
	return 0;
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_idle_control_on_refresh),
		cmocka_unit_test(test_sender_stops_at_limit),
		cmocka_unit_test(test_receiver_grants_survive_loss),
		cmocka_unit_test(test_bad_input),
	};
	const char *dump_path = getenv("LS_CREDIT_DUMP");
	int rc;

	(void)argc;
	if (dump_path != NULL && (dump = fopen(dump_path, "w")) == NULL)
		return 1;
	if (ut_eal_init(argv[0], "ut_credit", 256) != 0)
		return 1;
	w = ut_runtime_init(&rt, "ut_credit", conf_text, 2047);
	if (w == NULL || setup_ports(rt.cfg) != 0 ||
	    ports_setup(rt.cfg, rt.pool, rt.port_ids, stderr) != 0 || ut_runtime_publish(&rt) != 0)
		return 1;
	rc = cmocka_run_group_tests_name("dataplane_wan_credit", tests, NULL, NULL);
	flush_ring(dc_port);
	flush_ring(wan_port);
	if (dump != NULL)
		fclose(dump);
	ut_eal_fini();
	return rc;
}
