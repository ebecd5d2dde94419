/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Congestion hints (control/peering_hints.h): the QPs mechanism C shapes,
 * read from the worker's hold table, go to the peer whose prefix holds the
 * sender (configured or learned), each as a valid hint on the wire; free,
 * unshaped and changing slots are left out.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include <arpa/inet.h>

#include "control/peer_msg.h"
#include "control/peering_hints.h"
#include "control/runtime.h"
#include "dataplane/worker.h"
#include "ut_eal.h"
#include "ut_runtime.h"

static const char conf_text[] =
	"[gateway]\nname = hints\n"
	"[port dc]\nrole = dc\ndev = net_null_hints_dc\nipv4 = 10.1.0.254/16\n"
	"[port wan]\nrole = wan\ndev = net_null_hints_wan\nipv4 = 192.0.2.1/24\n"
	"[peer site-b]\nport = wan\nremote = 192.0.2.2\nvni = 100\nrtt = 1ms\n"
	"prefix = 10.2.0.0/16\n"
	"[peer site-c]\nport = wan\nremote = 192.0.2.3\nvni = 101\nrtt = 1ms\n"
	"prefix = 10.3.0.0/16\n";

static struct ls_runtime rt;
static struct dp_worker *w;

/* A QP from SRC to 10.1.0.DST (QPN) that mechanism C shapes (phase). */
static struct hold_entry *
shaped(const char *src, uint8_t dst, uint32_t qpn, enum trp_phase phase, uint64_t rate)
{
	struct qpn_learn_key k = { .family = AF_INET, .dest_qpn = qpn };
	struct hold_entry *e;

	assert_int_equal(inet_pton(AF_INET, src, k.src), 1);
	k.dst[0] = 10;
	k.dst[1] = 1;
	k.dst[3] = dst;
	e = hold_get(&w->hold, &k);
	assert_non_null(e);
	e->trp.phase = phase;
	e->trp.rate_bps = rate;
	return e;
}

/* H encodes and decodes to itself: a hint the peer takes. */
static void
on_the_wire(const struct peer_msg_hint *h)
{
	static uint8_t buf[PEER_MSG_MAX_BYTES];
	struct peer_msg m = { .type = PEER_MSG_HINT }, back;
	size_t used;
	int n;

	m.u.hint = *h;
	n = peer_msg_encode(&m, buf, sizeof(buf));
	assert_true(n > 0);
	assert_int_equal(peer_msg_decode(buf, (size_t)n, &back, &used), PEER_MSG_OK);
	assert_int_equal(back.u.hint.n_qps, h->n_qps);
	for (unsigned int i = 0; i < h->n_qps; i++) {
		assert_int_equal(back.u.hint.qps[i].qpn, h->qps[i].qpn);
		assert_int_equal(back.u.hint.qps[i].rate_bps, h->qps[i].rate_bps);
		assert_memory_equal(back.u.hint.qps[i].dst.a, h->qps[i].dst.a, 16);
	}
}

static void
test_shaped_qps_by_peer(void **state)
{
	static struct peer_msg_hint h;
	struct hold_entry *changing;
	uint64_t left;

	(void)state;
	peering_hints_collect(&rt, 0, &h, &left);
	assert_int_equal(h.n_qps, 0); /* nothing shaped: an empty snapshot */
	assert_int_equal(h.kind, PEER_HINT_SHAPED_QPS);
	assert_int_equal(h.valid_ms, PEERING_HINT_VALID_MS);
	on_the_wire(&h);

	shaped("10.2.0.5", 7, 0x123456, TRP_HOLD, 5000000000ull);
	shaped("10.2.9.9", 8, 0x000042, TRP_RAMP, 2500000000ull);
	shaped("10.3.0.1", 9, 0x000077, TRP_RAMP, 1000000000ull); /* site-c's */
	shaped("10.9.0.1", 10, 0x000088, TRP_RAMP, 1000000000ull); /* nobody's */
	shaped("10.2.0.6", 11, 0x000099, TRP_INACTIVE, 0); /* no longer shaped */
	changing = shaped("10.2.0.7", 12, 0x0000aa, TRP_RAMP, 1000000000ull);
	changing->seq++; /* the worker is taking or giving back this slot */

	peering_hints_collect(&rt, 0, &h, &left);
	assert_int_equal(left, 0);
	assert_int_equal(h.n_qps, 2);
	for (unsigned int i = 0; i < 2; i++) {
		const struct peer_msg_hint_qp *q = &h.qps[i];

		assert_int_equal(q->dst.family, AF_INET);
		assert_int_equal(q->dst.a[0], 10);
		if (q->qpn == 0x123456) {
			assert_int_equal(q->dst.a[3], 7);
			assert_int_equal(q->rate_bps, 0); /* held: not rated yet */
		} else {
			assert_int_equal(q->qpn, 0x42);
			assert_int_equal(q->dst.a[3], 8);
			assert_int_equal(q->rate_bps, 2500000000ull);
		}
	}
	on_the_wire(&h);

	peering_hints_collect(&rt, 1, &h, &left);
	assert_int_equal(h.n_qps, 1);
	assert_int_equal(h.qps[0].qpn, 0x77);

	/* The slot settled: in the next snapshot. */
	changing->seq++;
	peering_hints_collect(&rt, 0, &h, &left);
	assert_int_equal(h.n_qps, 3);
}

/* A prefix learned over the session counts like a configured one. */
static void
test_learned_prefix(void **state)
{
	static struct runtime_learned learned;
	static struct peer_msg_hint h;
	const char *why = NULL;
	uint64_t left;

	(void)state;
	shaped("172.16.5.5", 20, 0x000abc, TRP_RAMP, 3000000000ull);
	peering_hints_collect(&rt, 1, &h, &left);
	assert_int_equal(h.n_qps, 1); /* site-c's 10.3/16 only */
	learned.n_peers = 1;
	snprintf(learned.peers[0].name, sizeof(learned.peers[0].name), "site-c");
	learned.peers[0].n = 1;
	assert_int_equal(conf_prefix_parse("172.16.0.0/12", AF_INET, &learned.peers[0].p[0], &why),
			 0);
	rt.learned = &learned;
	peering_hints_collect(&rt, 1, &h, &left);
	rt.learned = NULL;
	assert_int_equal(h.n_qps, 2);
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_shaped_qps_by_peer),
		cmocka_unit_test(test_learned_prefix),
	};

	(void)argc;
	if (ut_eal_init(argv[0], "ut_hints", 128) != 0)
		return 1;
	w = ut_runtime_init(&rt, "ut_hints", conf_text, 511);
	if (w == NULL)
		return 1;
	return cmocka_run_group_tests_name("dataplane_peering_hints", tests, NULL, NULL);
}
