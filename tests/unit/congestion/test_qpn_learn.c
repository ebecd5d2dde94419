/* SPDX-License-Identifier: BSD-3-Clause */
/* QPN-pair learner: learning, PSN windows, ambiguity, aging, bounded probing. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>

#include <cmocka.h>

#include "congestion/qpn_learn.h"

#define ENTRIES 64
#define MS 1000000ull

static struct qpn_learn_entry mem[ENTRIES];

static const struct qpn_learn_params params = {
	.idle_ns = 100 * MS, .max_probe = 16, .psn_window = 1u << 20,
};

static void
ip4(uint8_t a[16], uint8_t last)
{
	memset(a, 0, 16);
	a[0] = 10;
	a[1] = 0;
	a[2] = 1;
	a[3] = last;
}

/* Data flow from 10.0.1.<s> to 10.0.1.<d>, receiver QPN q. */
static struct qpn_learn_key
flow(uint8_t s, uint8_t d, uint32_t q)
{
	struct qpn_learn_key k;

	memset(&k, 0, sizeof(k));
	k.family = AF_INET;
	ip4(k.src, s);
	ip4(k.dst, d);
	k.dest_qpn = q;
	return k;
}

/* ACK of that flow: from the data destination back to the data source. */
static enum qpn_learn_result
ack(struct qpn_learn *t, const struct qpn_learn_key *k, uint32_t sender_qpn, uint32_t psn,
		uint64_t now)
{
	return qpn_learn_on_ack(t, k->family, k->dst, k->src, sender_qpn, psn, now);
}

static void
setup(struct qpn_learn *t, const struct qpn_learn_params *p, size_t entries)
{
	assert_int_equal(qpn_learn_init(t, mem, entries, p), 0);
}

static void
test_init_validation(void **state)
{
	struct qpn_learn t;
	struct qpn_learn_params p = params;

	(void)state;
	assert_int_equal(qpn_learn_mem_size(8), 8 * sizeof(struct qpn_learn_entry));
	assert_int_equal(qpn_learn_init(&t, NULL, 8, &p), -EINVAL);
	assert_int_equal(qpn_learn_init(&t, mem, 0, &p), -EINVAL);
	assert_int_equal(qpn_learn_init(&t, mem, 48, &p), -EINVAL); /* not a power of 2 */
	assert_int_equal(qpn_learn_init(&t, (char *)mem + 1, 8, &p), -EINVAL);
	assert_int_equal(qpn_learn_init(&t, mem, 8, &p), -EINVAL); /* probe 16 > 8 */
	p.max_probe = 8;
	assert_int_equal(qpn_learn_init(&t, mem, 8, &p), 0);
	p.psn_window = (1u << 23) + 1;
	assert_int_equal(qpn_learn_init(&t, mem, 8, &p), -EINVAL);
	p.psn_window = 0;
	assert_int_equal(qpn_learn_init(&t, mem, 8, &p), -EINVAL);
	p = params;
	p.idle_ns = 0;
	assert_int_equal(qpn_learn_init(&t, mem, ENTRIES, &p), -EINVAL);
	assert_string_equal(qpn_learn_result_name(QPN_LEARN_ACK_LEARNED), "ack_learned");
	assert_string_equal(qpn_learn_result_name(QPN_LEARN_DATA_FULL), "data_full");
	assert_string_equal(qpn_learn_result_name(QPN_LEARN_RESULT_MAX), "?");
}

static void
test_learn_from_ack(void **state)
{
	struct qpn_learn t;
	struct qpn_learn_key k = flow(1, 2, 0x000abc);
	uint32_t q = 0, psn;

	(void)state;
	setup(&t, &params, ENTRIES);
	for (psn = 100; psn < 200; psn++)
		assert_int_equal(qpn_learn_on_data(&t, &k, psn, psn, &q), QPN_LEARN_DATA_UNKNOWN);
	assert_int_equal(qpn_learn_lookup(&t, &k, 200)->first_psn, 100);
	assert_int_equal(qpn_learn_lookup(&t, &k, 200)->last_psn, 199);
	/* ACK PSNs outside [100, 199] teach nothing. */
	assert_int_equal(ack(&t, &k, 0x123456, 99, 300), QPN_LEARN_ACK_PSN_OUTSIDE);
	assert_int_equal(ack(&t, &k, 0x123456, 200, 300), QPN_LEARN_ACK_PSN_OUTSIDE);
	/* The same direction as the data is not an ACK of it. */
	assert_int_equal(qpn_learn_on_ack(&t, AF_INET, k.src, k.dst, 0x123456, 150, 300),
			QPN_LEARN_ACK_NO_FLOW);
	assert_int_equal(qpn_learn_on_data(&t, &k, 200, 301, &q), QPN_LEARN_DATA_UNKNOWN);
	/* Both ends of the window are inside. */
	assert_int_equal(ack(&t, &k, 0x123456, 100, 400), QPN_LEARN_ACK_LEARNED);
	assert_int_equal(qpn_learn_on_data(&t, &k, 201, 401, &q), QPN_LEARN_DATA_KNOWN);
	assert_int_equal(q, 0x123456);
	assert_int_equal(ack(&t, &k, 0x123456, 201, 402), QPN_LEARN_ACK_CONFIRMED);
	/* QPs are reused: a different sender QPN replaces the old one. */
	assert_int_equal(ack(&t, &k, 0x654321, 201, 403), QPN_LEARN_ACK_CHANGED);
	assert_int_equal(qpn_learn_on_data(&t, &k, 202, 404, &q), QPN_LEARN_DATA_KNOWN);
	assert_int_equal(q, 0x654321);
	/* Only 24 bits of QPN and PSN count. */
	assert_int_equal(ack(&t, &k, 0xff654321, 0x01000000 | 150, 405),
			QPN_LEARN_ACK_CONFIRMED);
	assert_int_equal(qpn_learn_count(&t, 405), 1);
}

/* The hashed entry point is the same operation: learn through one, read through the other. */
static void
test_on_data_hashed(void **state)
{
	struct qpn_learn t;
	struct qpn_learn_key k = flow(3, 4, 0x000def), other = flow(4, 3, 0x000def);
	uint32_t h = qpn_learn_pair_hash(k.family, k.src, k.dst), q = 0;

	(void)state;
	setup(&t, &params, ENTRIES);
	assert_int_not_equal(h, 0);
	assert_int_not_equal(h, qpn_learn_pair_hash(other.family, other.src, other.dst));
	qpn_learn_prefetch(&t, h);
	assert_int_equal(qpn_learn_on_data_hashed(&t, &k, h, 500, 10, &q), QPN_LEARN_DATA_UNKNOWN);
	assert_int_equal(qpn_learn_on_data(&t, &k, 501, 11, &q), QPN_LEARN_DATA_UNKNOWN);
	assert_int_equal(qpn_learn_lookup(&t, &k, 12)->first_psn, 500);
	assert_int_equal(qpn_learn_lookup(&t, &k, 12)->last_psn, 501);
	assert_int_equal(ack(&t, &k, 0x0a0b0c, 500, 20), QPN_LEARN_ACK_LEARNED);
	assert_int_equal(qpn_learn_on_data_hashed(&t, &k, h, 502, 21, &q), QPN_LEARN_DATA_KNOWN);
	assert_int_equal(q, 0x0a0b0c);
	assert_int_equal(qpn_learn_count(&t, 21), 1);
}

static void
test_psn_wrap(void **state)
{
	struct qpn_learn t;
	struct qpn_learn_key k = flow(3, 4, 77);
	uint32_t i, psn = 0xfffff0;

	(void)state;
	setup(&t, &params, ENTRIES);
	for (i = 0; i < 32; i++)
		qpn_learn_on_data(&t, &k, (psn + i) & QPN_LEARN_PSN_MASK, 10, NULL);
	/* Window [0xfffff0, 0x00000f] modulo 2^24. */
	assert_int_equal(ack(&t, &k, 9, 0xffffef, 11), QPN_LEARN_ACK_PSN_OUTSIDE);
	assert_int_equal(ack(&t, &k, 9, 0x000010, 11), QPN_LEARN_ACK_PSN_OUTSIDE);
	assert_int_equal(ack(&t, &k, 9, 0x000005, 11), QPN_LEARN_ACK_LEARNED);
	assert_int_equal(ack(&t, &k, 9, 0xfffff0, 12), QPN_LEARN_ACK_CONFIRMED);
}

static void
test_window_slides_and_restarts(void **state)
{
	struct qpn_learn_params p = params;
	struct qpn_learn t;
	struct qpn_learn_key k = flow(5, 6, 1);
	const struct qpn_learn_entry *e;
	uint32_t psn;

	(void)state;
	p.psn_window = 1000;
	setup(&t, &p, ENTRIES);
	for (psn = 0; psn <= 5000; psn++)
		qpn_learn_on_data(&t, &k, psn, 1, NULL);
	e = qpn_learn_lookup(&t, &k, 1);
	assert_int_equal(e->first_psn, 4001); /* the newest 1000 PSNs */
	assert_int_equal(e->last_psn, 5000);
	assert_int_equal(ack(&t, &k, 42, 4000, 2), QPN_LEARN_ACK_PSN_OUTSIDE);
	assert_int_equal(ack(&t, &k, 42, 4001, 2), QPN_LEARN_ACK_LEARNED);
	/* A go-back-N retransmission inside the window changes nothing. */
	qpn_learn_on_data(&t, &k, 4500, 3, NULL);
	assert_int_equal(e->first_psn, 4001);
	assert_int_equal(e->last_psn, 5000);
	/* A jump far behind is a new connection: window restarts, QPN forgotten. */
	assert_int_equal(qpn_learn_on_data(&t, &k, 100, 4, NULL), QPN_LEARN_DATA_UNKNOWN);
	assert_int_equal(e->first_psn, 100);
	assert_int_equal(e->last_psn, 100);
	assert_int_equal(e->learned, 0);
}

static void
test_two_qps_same_hosts(void **state)
{
	struct qpn_learn t;
	struct qpn_learn_key a = flow(7, 8, 0x100), b = flow(7, 8, 0x200);
	uint32_t q, psn;

	(void)state;
	setup(&t, &params, ENTRIES);
	/* Disjoint PSN windows: each ACK finds its own flow. */
	for (psn = 1000; psn < 1100; psn++) {
		qpn_learn_on_data(&t, &a, psn, 1, NULL);
		qpn_learn_on_data(&t, &b, psn + 500000, 1, NULL);
	}
	assert_int_equal(ack(&t, &a, 0xa1, 1050, 2), QPN_LEARN_ACK_LEARNED);
	assert_int_equal(ack(&t, &b, 0xb1, 501050, 2), QPN_LEARN_ACK_LEARNED);
	assert_int_equal(qpn_learn_on_data(&t, &a, 1100, 3, &q), QPN_LEARN_DATA_KNOWN);
	assert_int_equal(q, 0xa1);
	assert_int_equal(qpn_learn_on_data(&t, &b, 501100, 3, &q), QPN_LEARN_DATA_KNOWN);
	assert_int_equal(q, 0xb1);
	/* Overlapping windows: an ACK both could own teaches nothing. */
	qpn_learn_on_data(&t, &b, 1090, 4, NULL); /* within psn_window: b extends down */
	qpn_learn_on_data(&t, &b, 1095, 4, NULL);
	assert_int_equal(ack(&t, &a, 0xcc, 1092, 5), QPN_LEARN_ACK_AMBIGUOUS);
	assert_int_equal(qpn_learn_on_data(&t, &a, 1101, 6, &q), QPN_LEARN_DATA_KNOWN);
	assert_int_equal(q, 0xa1);
	/* An unrelated host pair has no flow. */
	{
		struct qpn_learn_key other = flow(9, 10, 1);

		assert_int_equal(ack(&t, &other, 1, 1050, 7), QPN_LEARN_ACK_NO_FLOW);
	}
}

static void
test_aging_and_reuse(void **state)
{
	struct qpn_learn t;
	struct qpn_learn_key k = flow(11, 12, 5), n = flow(11, 12, 6);
	uint32_t q;

	(void)state;
	setup(&t, &params, ENTRIES);
	qpn_learn_on_data(&t, &k, 10, 0, NULL);
	assert_int_equal(ack(&t, &k, 77, 10, 50 * MS), QPN_LEARN_ACK_LEARNED);
	/* The ACK refreshed the entry: alive 100 ms after it, not after that. */
	assert_non_null(qpn_learn_lookup(&t, &k, 150 * MS));
	assert_null(qpn_learn_lookup(&t, &k, 150 * MS + 1));
	assert_int_equal(qpn_learn_count(&t, 150 * MS + 1), 0);
	assert_int_equal(ack(&t, &k, 77, 10, 150 * MS + 1), QPN_LEARN_ACK_NO_FLOW);
	/* The dead slot is reused; the expired flow comes back unknown. */
	assert_int_equal(qpn_learn_on_data(&t, &n, 1, 200 * MS, NULL), QPN_LEARN_DATA_UNKNOWN);
	assert_int_equal(qpn_learn_on_data(&t, &k, 11, 200 * MS, &q), QPN_LEARN_DATA_UNKNOWN);
	assert_int_equal(qpn_learn_count(&t, 200 * MS), 2);
}

static void
test_bounded_probing(void **state)
{
	struct qpn_learn_params p = params;
	struct qpn_learn t;
	struct qpn_learn_key k1 = flow(13, 14, 1), k2 = flow(13, 14, 2), k3 = flow(13, 14, 3);

	(void)state;
	p.max_probe = 2;
	setup(&t, &p, 8);
	/* All QPs of one host pair share a probe sequence of 2 slots. */
	assert_int_equal(qpn_learn_on_data(&t, &k1, 1, 0, NULL), QPN_LEARN_DATA_UNKNOWN);
	assert_int_equal(qpn_learn_on_data(&t, &k2, 1, 0, NULL), QPN_LEARN_DATA_UNKNOWN);
	assert_int_equal(qpn_learn_on_data(&t, &k3, 1, 0, NULL), QPN_LEARN_DATA_FULL);
	assert_null(qpn_learn_lookup(&t, &k3, 0));
	/* Once k1 ages out, k3 takes its slot. */
	qpn_learn_on_data(&t, &k2, 2, 60 * MS, NULL);
	assert_int_equal(qpn_learn_on_data(&t, &k3, 1, 120 * MS, NULL), QPN_LEARN_DATA_UNKNOWN);
	assert_null(qpn_learn_lookup(&t, &k1, 120 * MS));
	assert_non_null(qpn_learn_lookup(&t, &k2, 120 * MS));
}

static void
test_ipv6_and_many_flows(void **state)
{
	struct qpn_learn t;
	struct qpn_learn_key k;
	unsigned int i, learned = 0;
	uint32_t q;

	(void)state;
	setup(&t, &params, ENTRIES);
	/* 48 IPv6 flows (75% load) between distinct hosts all learn. */
	for (i = 0; i < 48; i++) {
		memset(&k, 0, sizeof(k));
		k.family = AF_INET6;
		k.src[0] = 0xfd;
		k.src[15] = (uint8_t)i;
		k.dst[0] = 0xfd;
		k.dst[14] = 1;
		k.dst[15] = (uint8_t)(i * 7);
		k.dest_qpn = 1000 + i;
		assert_int_not_equal(qpn_learn_on_data(&t, &k, i * 10, 1, NULL),
				QPN_LEARN_DATA_FULL);
		learned += ack(&t, &k, 5000 + i, i * 10, 2) == QPN_LEARN_ACK_LEARNED;
		assert_int_equal(qpn_learn_on_data(&t, &k, i * 10 + 1, 3, &q), QPN_LEARN_DATA_KNOWN);
		assert_int_equal(q, 5000 + i);
	}
	assert_int_equal(learned, 48);
	assert_int_equal(qpn_learn_count(&t, 3), 48);
	/* An IPv4 key with the same bytes is a different flow. */
	k.family = AF_INET;
	assert_null(qpn_learn_lookup(&t, &k, 3));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_init_validation),
		cmocka_unit_test(test_learn_from_ack),
		cmocka_unit_test(test_on_data_hashed),
		cmocka_unit_test(test_psn_wrap),
		cmocka_unit_test(test_window_slides_and_restarts),
		cmocka_unit_test(test_two_qps_same_hosts),
		cmocka_unit_test(test_aging_and_reuse),
		cmocka_unit_test(test_bounded_probing),
		cmocka_unit_test(test_ipv6_and_many_flows),
	};

	return cmocka_run_group_tests_name("qpn_learn", tests, NULL, NULL);
}
