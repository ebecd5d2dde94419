/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Mechanism C hold slots (dataplane/hold.c): a slot per QP key, found again
 * by key (sport is not part of it), FIFO order and capacity, release only
 * when empty, and a table of HOLD_SLOTS busy slots refusing one more.
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

#include "dataplane/hold.h"

static struct hold_table ht;
static struct rte_mbuf **ring_mem;

/* Fake mbuf pointers: the table only stores and returns them. */
#define FAKE_MBUF(n) ((struct rte_mbuf *)(uintptr_t)(0x1000 + 8 * (uintptr_t)(n)))

static int
setup(void **state)
{
	(void)state;
	ring_mem = calloc((size_t)HOLD_SLOTS * HOLD_QUEUE, sizeof(*ring_mem));
	if (ring_mem == NULL)
		return -1;
	hold_init(&ht, ring_mem);
	return 0;
}

static int
teardown(void **state)
{
	(void)state;
	free(ring_mem);
	return 0;
}

static struct qpn_learn_key
qp_key(uint32_t n)
{
	struct qpn_learn_key k;

	memset(&k, 0, sizeof(k));
	k.family = AF_INET;
	k.src[0] = 10;
	k.src[1] = 2;
	k.src[3] = (uint8_t)n;
	k.dst[0] = 10;
	k.dst[1] = 1;
	k.dst[3] = 1;
	k.dest_qpn = 0x10000 + n;
	return k;
}

static void
test_get_find_release(void **state)
{
	struct qpn_learn_key k = qp_key(1), k2 = k;
	struct hold_entry *e;

	(void)state;
	assert_null(hold_find(&ht, &k));
	e = hold_get(&ht, &k);
	assert_non_null(e);
	assert_true(e->used);
	assert_int_equal(ht.used, 1);
	assert_int_equal(hold_count(e), 0);
	assert_ptr_equal(hold_get(&ht, &k), e);
	assert_ptr_equal(hold_find(&ht, &k), e);
	assert_int_equal(ht.used, 1);
	/* The source port is stored, not part of the key. */
	k2.sport = 0xbeef;
	assert_ptr_equal(hold_find(&ht, &k2), e);
	/* Each key field counts. */
	k2 = k;
	k2.dest_qpn ^= 1;
	assert_null(hold_find(&ht, &k2));
	k2 = k;
	k2.family = AF_INET6;
	assert_null(hold_find(&ht, &k2));
	k2 = k;
	k2.dst[15] = 1;
	assert_null(hold_find(&ht, &k2));

	/* Not released while packets wait. */
	assert_true(hold_push(e, FAKE_MBUF(1), 1000));
	assert_int_equal(e->bytes, 1000);
	hold_release(&ht, e);
	assert_true(e->used);
	assert_ptr_equal(hold_find(&ht, &k), e);
	assert_ptr_equal(hold_pop(e, 1000), FAKE_MBUF(1)); /* the pipeline sent it */
	assert_int_equal(e->bytes, 0);
	hold_release(&ht, e);
	assert_false(e->used);
	assert_int_equal(ht.used, 0);
	assert_null(hold_find(&ht, &k));
	/* Releasing twice does not underflow the count. */
	hold_release(&ht, e);
	assert_int_equal(ht.used, 0);
}

static void
test_fifo(void **state)
{
	struct qpn_learn_key k = qp_key(2);
	struct hold_entry *e;
	uint32_t i;

	(void)state;
	e = hold_get(&ht, &k);
	/* Packet i is 64 + i % 8 bytes: the backlog is their sum. */
	for (i = 0; i < HOLD_QUEUE; i++)
		assert_true(hold_push(e, FAKE_MBUF(i), 64 + i % 8));
	assert_false(hold_push(e, FAKE_MBUF(99999), 64));
	assert_int_equal(hold_count(e), HOLD_QUEUE);
	assert_int_equal(e->bytes, HOLD_QUEUE * 64 + HOLD_QUEUE / 8 * 28);
	for (i = 0; i < HOLD_QUEUE / 2; i++) {
		assert_ptr_equal(hold_head(e), FAKE_MBUF(i));
		assert_ptr_equal(hold_pop(e, 64 + i % 8), FAKE_MBUF(i));
	}
	/* Wrap around the ring. */
	for (i = 0; i < HOLD_QUEUE / 2; i++)
		assert_true(hold_push(e, FAKE_MBUF(HOLD_QUEUE + i), 64 + i % 8));
	assert_false(hold_push(e, FAKE_MBUF(99999), 64));
	for (i = HOLD_QUEUE / 2; i < HOLD_QUEUE + HOLD_QUEUE / 2; i++)
		assert_ptr_equal(hold_pop(e, 64 + i % 8), FAKE_MBUF(i));
	assert_int_equal(hold_count(e), 0);
	assert_int_equal(e->bytes, 0);
	/* Rings of different slots do not overlap. */
	{
		struct qpn_learn_key k3 = qp_key(3);
		struct hold_entry *f = hold_get(&ht, &k3);

		assert_true(f->ring + HOLD_QUEUE <= e->ring || e->ring + HOLD_QUEUE <= f->ring);
	}
}

static void
test_table_full(void **state)
{
	struct hold_entry *e[HOLD_SLOTS];
	struct qpn_learn_key k;
	unsigned int i, j;

	(void)state;
	for (i = 0; i < HOLD_SLOTS; i++) {
		k = qp_key(i);
		e[i] = hold_get(&ht, &k);
		assert_non_null(e[i]);
		for (j = 0; j < i; j++)
			assert_ptr_not_equal(e[i], e[j]);
	}
	assert_int_equal(ht.used, HOLD_SLOTS);
	k = qp_key(1000);
	assert_null(hold_get(&ht, &k));
	for (i = 0; i < HOLD_SLOTS; i++) {
		k = qp_key(i);
		assert_ptr_equal(hold_find(&ht, &k), e[i]);
	}
	/* One released slot takes the newcomer; everyone else is still found. */
	hold_release(&ht, e[17]);
	k = qp_key(1000);
	assert_ptr_equal(hold_get(&ht, &k), e[17]);
	assert_int_equal(e[17]->head, e[17]->tail);
	for (i = 0; i < HOLD_SLOTS; i++) {
		if (i == 17)
			continue;
		k = qp_key(i);
		assert_ptr_equal(hold_find(&ht, &k), e[i]);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_get_find_release, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fifo, setup, teardown),
		cmocka_unit_test_setup_teardown(test_table_full, setup, teardown),
	};

	return cmocka_run_group_tests_name("dataplane_hold", tests, NULL, NULL);
}
