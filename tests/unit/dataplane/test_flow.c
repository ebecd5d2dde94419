/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Per-QP flow table (dataplane/flow.c): create and find, every key field
 * counts, reuse after the idle time (lazy aging), a full probe window, the
 * probe chain surviving in-place reuse, and the rate meter.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <cmocka.h>

#include "dataplane/flow.h"

#define IDLE_NS 1000000u /* 1 ms */

static struct flow_table ft;
static void *mem;

static int
setup_table(uint32_t entries)
{
	mem = aligned_alloc(64, flow_table_mem_size(entries));
	if (mem == NULL)
		return -1;
	memset(mem, 0x5a, flow_table_mem_size(entries)); /* init must clear it */
	flow_table_init(&ft, mem, entries, IDLE_NS);
	return 0;
}

static int
setup_1024(void **state)
{
	(void)state;
	return setup_table(1024);
}

/* 16 entries: the probe window is the whole table. */
static int
setup_16(void **state)
{
	(void)state;
	return setup_table(FLOW_PROBE_MAX);
}

static int
teardown(void **state)
{
	(void)state;
	free(mem);
	mem = NULL;
	return 0;
}

static struct flow_key
key4(uint32_t n)
{
	struct flow_key k;

	memset(&k, 0, sizeof(k)); /* padding and the unused address bytes are hashed */
	k.family = AF_INET;
	k.sport = (uint16_t)(0xc000 | (n & 0x3fff));
	k.dqpn = 0x100000 + n;
	k.src[0] = 10;
	k.src[1] = 1;
	k.src[3] = 1;
	k.dst[0] = 10;
	k.dst[1] = 2;
	k.dst[2] = (uint8_t)(n >> 8);
	k.dst[3] = (uint8_t)n;
	return k;
}

static void
test_create_find(void **state)
{
	struct flow_key k = key4(1);
	struct flow_entry *e, *f;
	bool created;

	(void)state;
	assert_null(flow_table_find(&ft, &k, 0));
	e = flow_table_get(&ft, &k, 1000, &created);
	assert_non_null(e);
	assert_true(created);
	assert_memory_equal(&e->key, &k, sizeof(k));
	assert_int_not_equal(e->hash, 0);
	assert_int_equal(e->first_ns, 1000);
	assert_int_equal(e->last_ns, 1000);
	assert_int_equal(e->pkts, 0);
	assert_int_equal(e->meter.bytes, 0); /* its first packet opens the rate window */
	assert_int_equal(e->meter.rate_bps, 0);
	e->pkts = 5;
	/* Same key later: same entry, not created, last_ns refreshed. */
	f = flow_table_get(&ft, &k, 2000, &created);
	assert_ptr_equal(f, e);
	assert_false(created);
	assert_int_equal(e->last_ns, 2000);
	assert_int_equal(e->first_ns, 1000);
	assert_int_equal(e->pkts, 5);
	/* find does not refresh. */
	assert_ptr_equal(flow_table_find(&ft, &k, 3000), e);
	assert_int_equal(e->last_ns, 2000);
}

/* Every key field tells flows apart, in both address families. */
static void
test_key_fields(void **state)
{
	struct flow_key base = key4(7), k;
	struct flow_entry *e0, *e;
	bool created;
	unsigned int i;

	(void)state;
	e0 = flow_table_get(&ft, &base, 0, &created);
	assert_true(created);
	for (i = 0; i < 6; i++) {
		k = base;
		switch (i) {
		case 0: k.family = AF_INET6; break;
		case 1: k.sport ^= 1; break;
		case 2: k.dqpn ^= 0x800000; break;
		case 3: k.src[3] ^= 1; break;
		case 4: k.dst[0] ^= 0x80; break;
		case 5: k.dst[15] = 1; break; /* beyond the IPv4 bytes: still a different key */
		}
		assert_null(flow_table_find(&ft, &k, 0));
		e = flow_table_get(&ft, &k, 0, &created);
		assert_non_null(e);
		assert_true(created);
		assert_ptr_not_equal(e, e0);
		assert_ptr_equal(flow_table_find(&ft, &base, 0), e0);
		assert_ptr_equal(flow_table_find(&ft, &k, 0), e);
	}
}

static void
test_reuse_after_idle(void **state)
{
	struct flow_key k = key4(2), other = key4(3);
	struct flow_entry *e, *f;
	bool created;

	(void)state;
	e = flow_table_get(&ft, &k, 0, &created);
	e->pkts = 10;
	e->bytes = 10000;
	e->qpn_known = 1;
	e->sender_qpn = 0xabc;
	/* Exactly the idle time: still live. */
	assert_ptr_equal(flow_table_find(&ft, &k, IDLE_NS), e);
	assert_true(flow_entry_live(&ft, e, IDLE_NS));
	/* One nanosecond more: gone for find, and get starts it afresh in place. */
	assert_null(flow_table_find(&ft, &k, IDLE_NS + 1));
	assert_false(flow_entry_live(&ft, e, IDLE_NS + 1));
	f = flow_table_get(&ft, &k, IDLE_NS + 1, &created);
	assert_ptr_equal(f, e);
	assert_true(created);
	assert_int_equal(e->pkts, 0);
	assert_int_equal(e->bytes, 0);
	assert_int_equal(e->qpn_known, 0);
	assert_int_equal(e->first_ns, IDLE_NS + 1);
	/* An idle slot of another flow is taken over by a new key. */
	e = flow_table_get(&ft, &other, 5 * IDLE_NS, &created);
	assert_true(created);
	assert_non_null(e);
}

/* A full probe window of live flows: no slot; as soon as one is idle, it is reused. */
static void
test_probe_full(void **state)
{
	struct flow_entry *e[FLOW_PROBE_MAX];
	struct flow_key k;
	bool created;
	unsigned int i;

	(void)state;
	for (i = 0; i < FLOW_PROBE_MAX; i++) {
		k = key4(100 + i);
		e[i] = flow_table_get(&ft, &k, i * 1000, &created);
		assert_non_null(e[i]);
		assert_true(created);
	}
	k = key4(200);
	created = true;
	assert_null(flow_table_get(&ft, &k, 20000, &created));
	assert_false(created);
	assert_null(flow_table_find(&ft, &k, 20000));
	/* Existing flows are still found when the table is full. */
	for (i = 0; i < FLOW_PROBE_MAX; i++) {
		struct flow_key ki = key4(100 + i);

		assert_ptr_equal(flow_table_find(&ft, &ki, 20000), e[i]);
		assert_ptr_equal(flow_table_get(&ft, &ki, 20000 + i, &created), e[i]);
		assert_false(created);
	}
	/* Keep all but flow 5 busy; after the idle time flow 5's slot goes to the newcomer. */
	for (i = 0; i < FLOW_PROBE_MAX; i++) {
		struct flow_key ki = key4(100 + i);

		if (i != 5)
			assert_ptr_equal(flow_table_get(&ft, &ki, IDLE_NS, &created), e[i]);
	}
	assert_ptr_equal(flow_table_get(&ft, &k, IDLE_NS + 20010, &created), e[5]);
	assert_true(created);
	assert_memory_equal(&e[5]->key, &k, sizeof(k));
	/* Every other flow is still reachable behind the reused slot. */
	for (i = 0; i < FLOW_PROBE_MAX; i++) {
		struct flow_key ki = key4(100 + i);

		if (i != 5)
			assert_ptr_equal(flow_table_find(&ft, &ki, IDLE_NS + 20010), e[i]);
	}
	k = key4(105);
	assert_null(flow_table_find(&ft, &k, IDLE_NS + 20010));
}

/* A flow seen again after being pushed down the chain is found, never duplicated. */
static void
test_no_duplicates(void **state)
{
	struct flow_entry *e[FLOW_PROBE_MAX];
	bool created;
	unsigned int i, live;

	(void)state;
	for (i = 0; i < FLOW_PROBE_MAX; i++) {
		struct flow_key k = key4(300 + i);

		e[i] = flow_table_get(&ft, &k, 0, &created);
		assert_non_null(e[i]);
	}
	/* All idle but flow 9; flow 9 comes back: the same entry, not a second one. */
	for (i = 0; i < FLOW_PROBE_MAX; i++) {
		struct flow_key k = key4(300 + i);

		if (i == 9)
			assert_ptr_equal(flow_table_get(&ft, &k, IDLE_NS, &created), e[9]);
	}
	{
		struct flow_key k9 = key4(309);

		assert_ptr_equal(flow_table_get(&ft, &k9, 2 * IDLE_NS, &created), e[9]);
		assert_false(created);
	}
	live = 0;
	for (i = 0; i < FLOW_PROBE_MAX; i++)
		live += flow_entry_live(&ft, &ft.e[i], 2 * IDLE_NS);
	assert_int_equal(live, 1);
	/* Flow 3 after idling: restarted, again exactly one entry holds its key. */
	{
		struct flow_key k3 = key4(303);
		struct flow_entry *n = flow_table_get(&ft, &k3, 3 * IDLE_NS, &created);
		unsigned int holders = 0;

		assert_true(created);
		for (i = 0; i < FLOW_PROBE_MAX; i++)
			holders += memcmp(&ft.e[i].key, &k3, sizeof(k3)) == 0;
		assert_int_equal(holders, 1);
		assert_ptr_equal(n, e[3]);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_create_find, setup_1024, teardown),
		cmocka_unit_test_setup_teardown(test_key_fields, setup_1024, teardown),
		cmocka_unit_test_setup_teardown(test_reuse_after_idle, setup_1024, teardown),
		cmocka_unit_test_setup_teardown(test_probe_full, setup_16, teardown),
		cmocka_unit_test_setup_teardown(test_no_duplicates, setup_16, teardown),
	};

	return cmocka_run_group_tests_name("dataplane_flow", tests, NULL, NULL);
}
