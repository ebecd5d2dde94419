/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The hook maps (control/hook_maps.c): created with BTF, mmap'ed, pinned;
 * records written through the mapping (as a hook writes them) and the
 * aggregate HASH map's batch updates read back by bpftool by field name
 * (bpftool_check.py); pins and directories gone after destroy; bpffs
 * mounted where there is none. Needs root and bpffs: skipped without.
 *
 *   test_hook_maps PYTHON BPFTOOL_CHECK
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "control/hook_maps.h"

static const char *python, *checker;
static char gw[64], dir[HOOK_MAPS_PATH_MAX];

static bool
can_run(void)
{
	if (geteuid() != 0) {
		print_message("not root: BPF maps need CAP_BPF\n");
		return false;
	}
	if (system("bpftool version >/dev/null 2>&1") != 0) {
		print_message("no bpftool\n");
		return false;
	}
	return true;
}

static bool
exists(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0;
}

/* Run the checker on PIN with EXPECT (JSON); true when it passes. */
static bool
check(const char *pin, const char *expect)
{
	char path[] = "/tmp/ls-hook-maps-XXXXXX";
	char cmd[1024];
	int fd = mkstemp(path), rc;

	assert_true(fd >= 0);
	assert_int_equal(write(fd, expect, strlen(expect)), (ssize_t)strlen(expect));
	close(fd);
	snprintf(cmd, sizeof(cmd), "'%s' '%s' '%s' '%s'", python, checker, pin, path);
	rc = system(cmd);
	unlink(path);
	return rc != -1 && WIFEXITED(rc) && WEXITSTATUS(rc) == 0;
}

static void
params(struct hook_maps_params *p)
{
	memset(p, 0, sizeof(*p));
	p->dir = dir;
	p->n_lcores = 2;
	p->lcores[0] = 1;
	p->lcores[1] = 3;
	p->flow_slots = 64;
	p->counters = 8;
	p->totals_max = 128;
}

static void
test_arrays_by_name(void **state)
{
	struct hook_maps_params p;
	struct hook_maps m;
	struct ls_hook_flow_rec *r;
	uint64_t *n;
	char err[256] = "", pin[HOOK_MAPS_PATH_MAX + 32];

	(void)state;
	if (!can_run())
		skip();
	params(&p);
	if (hook_maps_create(&m, &p, err, sizeof(err)) != 0)
		fail_msg("%s", err);
	assert_non_null(m.flows[1].mem);
	assert_int_equal(m.flows[1].entries, 64);
	assert_int_equal(m.flows[1].value_size, sizeof(struct ls_hook_flow_rec));
	assert_true(m.flows[1].mem_bytes >= 64 * sizeof(struct ls_hook_flow_rec));

	/* Plain stores into lcore 3's slots 5 and 63, as the hook makes them. */
	r = m.flows[1].mem;
	r[5].hash = 0xabcd;
	r[5].dest_qp = 0x123456;
	r[5].sport = 49153;
	r[5].dport = 4791;
	r[5].family = 4;
	r[5].src[0] = 10;
	r[5].src[3] = 7;
	r[5].pkts = 1000;
	r[5].bytes = 1024000;
	r[5].ce_pkts = 17;
	r[5].cnp_seen = 3;
	r[5].psn_gaps = 1;
	r[5].naks = 1;
	r[5].sojourn_hist[4] = 99;
	r[63].hash = 9;
	r[63].last_ns = 123456789012ull;
	n = m.counters[0].mem;
	n[2] = 26;
	n[7] = 1ull << 40;

	snprintf(pin, sizeof(pin), "%s/flows_lcore3", dir);
	assert_true(check(pin, "{\"entries\": 64, \"match\": ["
			       "{\"key\": 5, \"value\": {\"hash\": 43981, \"dest_qp\": 1193046, "
			       "\"sport\": 49153, \"dport\": 4791, \"family\": 4, "
			       "\"src\": [10,0,0,7,0,0,0,0,0,0,0,0,0,0,0,0], \"pkts\": 1000, "
			       "\"bytes\": 1024000, \"ce_pkts\": 17, \"cnp_seen\": 3, "
			       "\"psn_gaps\": 1, \"naks\": 1, "
			       "\"sojourn_hist\": [0,0,0,0,99,0,0,0,0,0,0,0,0,0,0,0]}},"
			       "{\"key\": 63, \"value\": {\"hash\": 9, \"last_ns\": 123456789012}},"
			       "{\"key\": 0, \"value\": {\"hash\": 0, \"pkts\": 0}}]}"));
	/* A wrong expectation fails: the check can fail. */
	assert_false(check(pin, "{\"match\": [{\"key\": 5, \"value\": {\"pkts\": 1001}}]}"));
	assert_false(check(pin, "{\"match\": [{\"key\": 5, \"value\": {\"no_such_field\": 0}}]}"));
	/* lcore 1's flows are untouched. */
	snprintf(pin, sizeof(pin), "%s/flows_lcore1", dir);
	assert_true(check(pin, "{\"entries\": 64, \"match\": [{\"key\": 5, \"value\": {\"hash\": 0}}]}"));
	snprintf(pin, sizeof(pin), "%s/counters_lcore1", dir);
	assert_true(check(pin, "{\"entries\": 8, \"match\": [{\"key\": 2, \"value\": 26},"
			       "{\"key\": 7, \"value\": 1099511627776}, {\"key\": 0, \"value\": 0}]}"));
	hook_maps_destroy(&m);
}

static void
test_totals_batches(void **state)
{
	enum { N = 300 }; /* more than one batch */
	struct hook_maps_params p;
	struct hook_maps m;
	static struct ls_hook_flow_key keys[N];
	static struct hook_flow_total t[N];
	char err[256] = "", pin[HOOK_MAPS_PATH_MAX + 32];
	unsigned int i;

	(void)state;
	if (!can_run())
		skip();
	params(&p);
	p.totals_max = 512;
	if (hook_maps_create(&m, &p, err, sizeof(err)) != 0)
		fail_msg("%s", err);
	memset(keys, 0, sizeof(keys));
	memset(t, 0, sizeof(t));
	for (i = 0; i < N; i++) {
		keys[i].hash = 1000 + i;
		keys[i].dest_qp = i;
		keys[i].family = 4;
		keys[i].dport = 4791;
		t[i].pkts = i * 10;
		t[i].bytes = i * 10000;
		t[i].ce_pkts = i;
		t[i].sojourn_hist[15] = 2;
		t[i].peer = 65535;
	}
	assert_int_equal(hook_maps_totals_update(&m, keys, t, N), 0);
	snprintf(pin, sizeof(pin), "%s/flows", dir);
	assert_true(check(pin, "{\"entries\": 300, \"match\": ["
			       "{\"key\": {\"hash\": 1299, \"dest_qp\": 299, \"dport\": 4791}, "
			       "\"value\": {\"pkts\": 2990, \"bytes\": 2990000, \"ce_pkts\": 299, "
			       "\"peer\": 65535, \"sojourn_hist\": [0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,2]}},"
			       "{\"key\": {\"hash\": 1000}, \"value\": {\"pkts\": 0}}]}"));
	/* Update in place, delete some (one of them twice, one never there). */
	t[7].pkts = 7777;
	assert_int_equal(hook_maps_totals_update(&m, &keys[7], &t[7], 1), 0);
	keys[N - 1].hash = 5; /* not in the map */
	assert_int_equal(hook_maps_totals_delete(&m, &keys[N - 3], 3), 0);
	assert_int_equal(hook_maps_totals_delete(&m, &keys[N - 3], 1), 0);
	assert_true(check(pin, "{\"entries\": 298, \"match\": ["
			       "{\"key\": {\"hash\": 1007}, \"value\": {\"pkts\": 7777}}],"
			       "\"absent\": [{\"hash\": 1297}, {\"hash\": 1298}]}"));
	hook_maps_destroy(&m);
}

static void
test_pins_removed(void **state)
{
	struct hook_maps_params p;
	struct hook_maps m;
	char err[256] = "", parent[HOOK_MAPS_PATH_MAX], pins[5][HOOK_MAPS_PATH_MAX + 32];
	unsigned int i;

	(void)state;
	if (!can_run())
		skip();
	params(&p);
	if (hook_maps_create(&m, &p, err, sizeof(err)) != 0)
		fail_msg("%s", err);
	snprintf(pins[0], sizeof(pins[0]), "%s/flows_lcore1", dir);
	snprintf(pins[1], sizeof(pins[1]), "%s/flows_lcore3", dir);
	snprintf(pins[2], sizeof(pins[2]), "%s/counters_lcore1", dir);
	snprintf(pins[3], sizeof(pins[3]), "%s/counters_lcore3", dir);
	snprintf(pins[4], sizeof(pins[4]), "%s/flows", dir);
	for (i = 0; i < 5; i++)
		assert_true(exists(pins[i]));
	hook_maps_destroy(&m);
	for (i = 0; i < 5; i++)
		assert_false(exists(pins[i]));
	assert_false(exists(dir));
	snprintf(parent, sizeof(parent), "%s/longspan/ut_maps-%d", HOOK_MAPS_BPFFS, (int)getpid());
	assert_false(exists(parent));
	hook_maps_destroy(&m); /* idempotent */

	/* Only flow maps when no counters are declared, none of either when 0. */
	p.counters = 0;
	if (hook_maps_create(&m, &p, err, sizeof(err)) != 0)
		fail_msg("%s", err);
	assert_true(exists(pins[0]));
	assert_false(exists(pins[2]));
	assert_true(m.counters[0].fd < 0);
	hook_maps_destroy(&m);
	assert_false(exists(dir));
}

static void
test_refused(void **state)
{
	struct hook_maps_params p;
	struct hook_maps m;
	char err[256] = "";

	(void)state;
	if (!can_run())
		skip();
	params(&p);
	p.flow_slots = 0x7fffffff; /* more than the kernel gives */
	assert_true(hook_maps_create(&m, &p, err, sizeof(err)) < 0);
	assert_non_null(strstr(err, "flows_lcore1: "));
	assert_false(exists(dir)); /* nothing left behind */
	params(&p);
	p.n_lcores = 0;
	assert_true(hook_maps_create(&m, &p, err, sizeof(err)) < 0);
	assert_non_null(strstr(err, "0 lcores"));
}

/* Gateway names may have dots; bpffs names may not. */
static void
test_default_dir(void **state)
{
	char d[HOOK_MAPS_PATH_MAX];

	(void)state;
	assert_int_equal(hook_maps_default_dir(d, sizeof(d), "site.a-1", "roce.flow"), 0);
	assert_string_equal(d, "/sys/fs/bpf/longspan/site_a-1/roce_flow");
	assert_true(hook_maps_default_dir(d, 20, "site", "roce_flow") < 0);
}

static void
test_bpffs_mount(void **state)
{
	char mnt[] = "/tmp/ls-hook-bpffs-XXXXXX";
	char err[256] = "";
	int rc;

	(void)state;
	if (!can_run())
		skip();
	assert_non_null(mkdtemp(mnt));
	rc = hook_maps_bpffs_ensure(mnt, err, sizeof(err));
	if (rc < 0) {
		rmdir(mnt);
		if (strstr(err, "Operation not permitted") != NULL)
			skip(); /* a container without mount rights */
		fail_msg("%s", err);
	}
	assert_int_equal(rc, 1);
	assert_int_equal(hook_maps_bpffs_ensure(mnt, err, sizeof(err)), 0);
	assert_int_equal(umount(mnt), 0);
	assert_int_equal(rmdir(mnt), 0);
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_arrays_by_name),
		cmocka_unit_test(test_totals_batches),
		cmocka_unit_test(test_pins_removed),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_default_dir),
		cmocka_unit_test(test_bpffs_mount),
	};

	if (argc != 3) {
		fprintf(stderr, "usage: %s PYTHON BPFTOOL_CHECK\n", argv[0]);
		return 2;
	}
	python = argv[1];
	checker = argv[2];
	snprintf(gw, sizeof(gw), "ut.maps-%d", (int)getpid()); /* a dot, as gateway names may have */
	if (hook_maps_default_dir(dir, sizeof(dir), gw, "roce_flow") != 0)
		return 2;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
