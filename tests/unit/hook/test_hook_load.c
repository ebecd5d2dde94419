/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The hook loader (control/hook_load.c) and the shipped hooks, without EAL:
 * roce_flow and dscp_ce load, JIT and write the records expected for known
 * synthetic packets; every kind of bad object is refused with a message
 * naming the object, the section and the reason.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "control/hook_load.h"
#include "hook_ut.h"

#define SLOTS 131072u /* roce_flow's ROCE_FLOW_SLOTS */
#define IDLE_NS 30000000000ull /* roce_flow's ROCE_FLOW_IDLE_MS */

static struct ls_hook_flow_rec *flows;
static uint64_t counters[LS_HOOK_COUNTERS_MAX];
static char tmpdir[] = "/tmp/ls-hook-load-XXXXXX";

static int
setup(void **state)
{
	(void)state;
	flows = aligned_alloc(4096, SLOTS * sizeof(*flows));
	if (flows == NULL)
		return -1;
	memset(flows, 0, SLOTS * sizeof(*flows));
	memset(counters, 0, sizeof(counters));
	return 0;
}

static int
teardown(void **state)
{
	(void)state;
	free(flows);
	flows = NULL;
	return 0;
}

/* Load NAME's object (section) bound to the test's memory; fails the test on refusal. */
static void
load_good(const char *name, const char *section, struct hook_object **o, struct hook_prog *p)
{
	struct hook_bind b = {
		.flows = flows,
		.flows_bytes = SLOTS * sizeof(*flows),
		.counters = counters,
		.counters_bytes = sizeof(counters),
	};
	char err[HOOK_LOAD_ERR_MAX] = "";
	int rc;

	rc = hook_object_open(hook_ut_obj(name), section, NULL, o, err, sizeof(err));
	if (rc != 0)
		fail_msg("%s", err);
	rc = hook_prog_load(*o, &b, p, err, sizeof(err));
	if (rc != 0)
		fail_msg("%s", err);
	assert_non_null(p->func);
}

/* The record of flow f, found by scanning every slot (independent of the hook's probing). */
static const struct ls_hook_flow_rec *
find(const struct hook_ut_flow *f)
{
	struct ls_hook_ctx c;
	const struct ls_hook_flow_rec *hit = NULL;
	uint32_t i;

	hook_ut_ctx(&c, f, LS_HOOK_DC_RX, 0, 0, 0, 0, 0);
	for (i = 0; i < SLOTS; i++) {
		if (flows[i].hash == c.hash && flows[i].dest_qp == c.dest_qp &&
		    flows[i].sport == c.sport && memcmp(flows[i].src, c.src, 16) == 0 &&
		    memcmp(flows[i].dst, c.dst, 16) == 0 && flows[i].direction == c.direction) {
			assert_null(hit); /* exactly one slot per flow */
			hit = &flows[i];
		}
	}
	return hit;
}

static uint64_t
run(const struct hook_prog *p, struct ls_hook_ctx *c)
{
	return p->func(c);
}

/* Known traffic through rx and tx: every counter the record has. */
static void
test_roce_flow_records(void **state)
{
	const struct hook_ut_flow data = { .n = 1, .direction = LS_HOOK_DIR_DC_TO_WAN };
	const struct hook_ut_flow acks = { .n = 2, .direction = LS_HOOK_DIR_WAN_TO_DC };
	const struct hook_ut_flow cnps = { .n = 3, .direction = LS_HOOK_DIR_DC_TO_WAN };
	/* PSNs 100..104, 106..109 (105 lost: one gap of 1), then 103 again (going back). */
	static const uint32_t psns[] = { 100, 101, 102, 103, 104, 106, 107, 108, 109, 103 };
	static const uint64_t sojourn_ns[] = { 0, 500, 1023, 1024, 2047, 2048, 100000, 1u << 24, 1u << 30 };
	struct hook_object *o;
	struct hook_prog p;
	struct ls_hook_ctx c;
	const struct ls_hook_flow_rec *r;
	unsigned int i;
	uint64_t t = 1000000;

	(void)state;
	load_good("roce_flow", "roce_flow", &o, &p);
	assert_true(o->uses_flows);
	assert_int_equal(o->abi.flow_slots, SLOTS);

	for (i = 0; i < sizeof(psns) / sizeof(psns[0]); i++) {
		/* 8 ECT(0), then CE twice. */
		hook_ut_ctx(&c, &data, LS_HOOK_DC_RX, 0x0a, psns[i], i < 8 ? 2 : 3, 1000, t += 1000);
		assert_int_equal(run(&p, &c), 0);
	}
	for (i = 0; i < sizeof(sojourn_ns) / sizeof(sojourn_ns[0]); i++) {
		hook_ut_ctx(&c, &data, LS_HOOK_WAN_TX, 0x0a, 0, 2, 1000, t += 1000);
		c.verdict = LS_HOOK_V_FORWARDED | (i == 2 ? LS_HOOK_V_MARKED : 0) |
			    (i == 3 ? LS_HOOK_V_MARKED | LS_HOOK_V_CNP_GENERATED : 0);
		c.sojourn_ns = sojourn_ns[i];
		assert_int_equal(run(&p, &c), 0);
	}
	hook_ut_ctx(&c, &data, LS_HOOK_WAN_TX, 0x0a, 0, 2, 1000, t += 1000);
	c.verdict = 0;
	c.drop_reason = 47; /* any reason: the hook counts drops, not why */
	assert_int_equal(run(&p, &c), 0);

	/* The reverse direction: ACK, NAK (sequence error), RNR NAK, ACK without AETH flag. */
	hook_ut_ctx(&c, &acks, LS_HOOK_WAN_RX, LS_HOOK_OP_RC_ACK, 100, 0, 60, t += 1000);
	c.flags |= LS_HOOK_F_AETH;
	c.aeth_syndrome = 0x1f;
	assert_int_equal(run(&p, &c), 0);
	c.aeth_syndrome = 0x60;
	assert_int_equal(run(&p, &c), 0);
	c.aeth_syndrome = 0x21;
	assert_int_equal(run(&p, &c), 0);
	c.flags &= (uint8_t)~LS_HOOK_F_AETH;
	c.aeth_syndrome = 0x60;
	assert_int_equal(run(&p, &c), 0);
	/* CNPs from a host. */
	for (i = 0; i < 3; i++) {
		hook_ut_ctx(&c, &cnps, LS_HOOK_DC_RX, LS_HOOK_OP_CNP, 0, 1, 60, t += 1000);
		assert_int_equal(run(&p, &c), 0);
	}
	/* Not RoCE: nothing recorded, not an error. */
	hook_ut_ctx(&c, &(struct hook_ut_flow){ .n = 9 }, LS_HOOK_DC_RX, 0, 0, 0, 100, t);
	c.flags = 0;
	assert_int_equal(run(&p, &c), 0);
	assert_null(find(&(struct hook_ut_flow){ .n = 9 }));

	r = find(&data);
	assert_non_null(r);
	assert_int_equal(r->pkts, 10);
	assert_int_equal(r->bytes, 10000);
	assert_int_equal(r->ect_pkts, 8);
	assert_int_equal(r->ce_pkts, 2);
	assert_int_equal(r->psn_gaps, 1);
	assert_int_equal(r->psn_skipped, 1);
	assert_int_equal(r->retrans, 1);
	assert_int_equal(r->psn_ooo, 2);
	assert_int_equal(r->next_psn, 104);
	assert_int_equal(r->psn_valid, 1);
	assert_int_equal(r->naks, 0);
	assert_int_equal(r->tx_pkts, 9);
	assert_int_equal(r->tx_bytes, 9000);
	assert_int_equal(r->tx_drops, 1);
	assert_int_equal(r->marked, 2);
	assert_int_equal(r->cnp_generated, 1);
	assert_int_equal(r->held, 0);
	assert_int_equal(r->sojourn_sum_ns,
			 0 + 500 + 1023 + 1024 + 2047 + 2048 + 100000 + (1u << 24) + (1u << 30));
	/* Buckets: <1024 ns: 0, 500, 1023; [1024, 2048): 1024, 2047; [2048, 4096): 2048;
	 * 100000 ns: [65536, 131072) = bucket 7; 2^24 and 2^30: bucket 15. */
	assert_int_equal(r->sojourn_hist[0], 3);
	assert_int_equal(r->sojourn_hist[1], 2);
	assert_int_equal(r->sojourn_hist[2], 1);
	assert_int_equal(r->sojourn_hist[7], 1);
	assert_int_equal(r->sojourn_hist[14], 0);
	assert_int_equal(r->sojourn_hist[15], 2);
	assert_int_equal(r->dscp, 26);
	assert_int_equal(r->port, 0);
	assert_int_equal(r->peer, 0);
	assert_int_equal(r->dport, 4791);
	assert_int_equal(r->family, LS_HOOK_FAMILY_IP4);
	assert_int_equal(r->first_ns, 1000000 + 1000);
	assert_int_equal(r->last_ns, 1000000 + 20 * 1000);

	r = find(&acks);
	assert_non_null(r);
	assert_int_equal(r->pkts, 4);
	assert_int_equal(r->naks, 1);
	assert_int_equal(r->rnr_naks, 1);
	assert_int_equal(r->psn_ooo, 0); /* ACK PSNs are not tracked */
	assert_int_equal(r->direction, LS_HOOK_DIR_WAN_TO_DC);

	r = find(&cnps);
	assert_non_null(r);
	assert_int_equal(r->cnp_seen, 3);
	assert_int_equal(r->ect_pkts, 3);
	assert_int_equal(r->psn_valid, 0);

	hook_prog_unload(&p);
	hook_object_free(o);
}

/* Eight flows on one hash fill the probe window; a ninth is an error until one idles out. */
static void
test_roce_flow_probe_window(void **state)
{
	struct hook_object *o;
	struct hook_prog p;
	struct ls_hook_ctx c;
	const struct ls_hook_flow_rec *r;
	unsigned int i;
	uint64_t t = 5000;

	(void)state;
	load_good("roce_flow", "roce_flow", &o, &p);
	for (i = 0; i < 8; i++) {
		struct hook_ut_flow f = { .n = 20 + i, .hash = 0x77 };

		hook_ut_ctx(&c, &f, LS_HOOK_DC_RX, 0x0a, i, 0, 100, t + i);
		assert_int_equal(run(&p, &c), 0);
		hook_ut_ctx(&c, &f, LS_HOOK_DC_RX, 0x0a, i + 1, 0, 100, t + i);
		assert_int_equal(run(&p, &c), 0);
	}
	for (i = 0; i < 8; i++) {
		r = find(&(struct hook_ut_flow){ .n = 20 + i, .hash = 0x77 });
		assert_non_null(r);
		assert_int_equal(r->pkts, 2);
		assert_ptr_equal(r, &flows[(0x77 + i) % SLOTS]);
	}
	/* Window full of live flows: not accounted, the hook says so. */
	hook_ut_ctx(&c, &(struct hook_ut_flow){ .n = 40, .hash = 0x77 }, LS_HOOK_DC_RX, 0x0a, 0, 0,
		    100, t + 100);
	assert_int_equal(run(&p, &c), 1);
	assert_null(find(&(struct hook_ut_flow){ .n = 40, .hash = 0x77 }));
	/* Keep flow 20 alive, let the others idle out: the new flow takes slot 0x78. */
	hook_ut_ctx(&c, &(struct hook_ut_flow){ .n = 20, .hash = 0x77 }, LS_HOOK_DC_RX, 0x0a, 2, 0,
		    100, t + IDLE_NS);
	assert_int_equal(run(&p, &c), 0);
	hook_ut_ctx(&c, &(struct hook_ut_flow){ .n = 40, .hash = 0x77 }, LS_HOOK_DC_RX, 0x0a, 7, 0,
		    300, t + IDLE_NS + 10);
	assert_int_equal(run(&p, &c), 0);
	r = find(&(struct hook_ut_flow){ .n = 40, .hash = 0x77 });
	assert_ptr_equal(r, &flows[0x78]);
	assert_int_equal(r->pkts, 1);
	assert_int_equal(r->bytes, 300);
	assert_int_equal(r->psn_ooo, 0); /* the previous owner's PSN state is gone */
	assert_int_equal(r->first_ns, t + IDLE_NS + 10);
	assert_null(find(&(struct hook_ut_flow){ .n = 21, .hash = 0x77 }));
	r = find(&(struct hook_ut_flow){ .n = 20, .hash = 0x77 });
	assert_int_equal(r->pkts, 3);

	hook_prog_unload(&p);
	hook_object_free(o);
}

static void
test_dscp_ce(void **state)
{
	const struct hook_ut_flow f = { .n = 5 };
	struct hook_object *o;
	struct hook_prog p;
	struct ls_hook_ctx c;
	unsigned int i;

	(void)state;
	load_good("dscp_ce", "dscp_ce", &o, &p);
	assert_true(o->uses_counters);
	assert_false(o->uses_flows);
	assert_int_equal(o->abi.counters, 64);
	for (i = 0; i < 3; i++) {
		hook_ut_ctx(&c, &f, LS_HOOK_DC_RX, 0x0a, i, 3, 100, 1);
		run(&p, &c);
	}
	hook_ut_ctx(&c, &f, LS_HOOK_WAN_RX, 0x0a, 0, 3, 100, 1);
	c.dscp = 46;
	run(&p, &c);
	hook_ut_ctx(&c, &f, LS_HOOK_WAN_RX, 0x0a, 0, 2, 100, 1); /* ECT, not CE */
	run(&p, &c);
	hook_ut_ctx(&c, &f, LS_HOOK_WAN_TX, 0x0a, 0, 3, 100, 1); /* tx: ignored */
	run(&p, &c);
	assert_int_equal(counters[26], 3);
	assert_int_equal(counters[46], 1);
	for (i = 0; i < 64; i++)
		if (i != 26 && i != 46)
			assert_int_equal(counters[i], 0);
	hook_prog_unload(&p);
	hook_object_free(o);
}

/* Refused by hook_object_open() or hook_prog_load() with "PATH: section 'S': " + want. */
static void
expect_refused(const char *path, const char *section, const struct hook_load_limits *lim,
	       const char *want)
{
	struct hook_bind b = {
		.flows = flows,
		.flows_bytes = SLOTS * sizeof(*flows),
		.counters = counters,
		.counters_bytes = sizeof(counters),
	};
	char err[HOOK_LOAD_ERR_MAX] = "", prefix[512];
	struct hook_object *o = NULL;
	struct hook_prog p;
	int rc;

	rc = hook_object_open(path, section, lim, &o, err, sizeof(err));
	if (rc == 0) {
		rc = hook_prog_load(o, &b, &p, err, sizeof(err));
		hook_object_free(o);
		if (rc == 0) {
			hook_prog_unload(&p);
			fail_msg("%s (%s) loaded, expected: %s", path, section, want);
		}
	} else {
		assert_null(o);
	}
	assert_true(rc < 0);
	snprintf(prefix, sizeof(prefix), "%s: section '%s': ", path, section);
	if (strncmp(err, prefix, strlen(prefix)) != 0 || strstr(err, want) == NULL)
		fail_msg("%s (%s): got \"%s\", expected \"%s\" after the prefix", path, section,
			 err, want);
	print_message("refused: %s\n", err);
}

static void
test_refuse_bad_objects(void **state)
{
	static const struct {
		const char *obj, *want;
	} cases[] = {
		{ "helper_call", "call to kernel helper 5 at instruction" },
		{ "loop", "loop: the jump at instruction" },
		{ "unknown_extern", "external symbol 'ls_hook_secret' at instruction" },
		{ "abi_version", "built for hook ABI version 101, the gateway runs version 3" },
		{ "ctx_size", "built with a 64-byte hook context, the gateway's is 128 bytes" },
		{ "no_abi", "no longspan_abi section" },
		{ "bpf_call", "call to function '.text' at instruction 1 (a BPF-to-BPF call" },
		{ "global_data", "refers to data in section '.bss'" },
		{ "v3", "32-bit jump at instruction" },
		{ "ctx_store", "store to the hook context at instruction " },
		{ "oob", "rte_bpf refused it (rte_errno 22: Invalid argument): "
			 "evaluate: memory boundary violation at pc" },
	};
	unsigned int i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		expect_refused(hook_ut_obj(cases[i].obj), "hook", NULL, cases[i].want);
	/* The same through the context register itself; the copy above went through another. */
	expect_refused(hook_ut_obj("ctx_store"), "hook", NULL, ", a copy of it): the context is "
							      "read-only to hooks");
	expect_refused(hook_ut_obj("ctx_store"), "direct", NULL,
		       "store to the hook context at instruction 1 (through r1): ");
}

static void
test_refuse_section(void **state)
{
	(void)state;
	expect_refused(hook_ut_obj("roce_flow"), "nope",
		       NULL, "no such code section (the object has: 'roce_flow')");
	expect_refused(hook_ut_obj("roce_flow"), LS_HOOK_ABI_SECTION, NULL,
		       "the section is not executable code");
}

static void
test_refuse_too_large(void **state)
{
	const struct hook_load_limits lim = { .max_insns = 100 };

	(void)state;
	expect_refused(hook_ut_obj("roce_flow"), "roce_flow", &lim,
		       "program too large: ");
	expect_refused(hook_ut_obj("roce_flow"), "roce_flow", &lim, ", the limit is 100");
}

#define TMP_FILES_MAX 16
static char tmp_files[TMP_FILES_MAX][256];
static unsigned int n_tmp_files;

static const char *
write_tmp(const char *name, const void *data, size_t size)
{
	char *path;
	FILE *f;

	assert_true(n_tmp_files < TMP_FILES_MAX);
	path = tmp_files[n_tmp_files++];
	snprintf(path, sizeof(tmp_files[0]), "%s/%s", tmpdir, name);
	f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(data, 1, size, f), size);
	fclose(f);
	return path;
}

static void
test_refuse_truncated_and_not_elf(void **state)
{
	size_t size = 0;
	uint8_t *img = hook_ut_read(hook_ut_obj("roce_flow"), &size);
	uint64_t shoff;
	uint8_t *bad;

	(void)state;
	assert_non_null(img);
	expect_refused(write_tmp("header.o", img, 40), "roce_flow", NULL,
		       "truncated: 40 bytes, shorter than an ELF header (64)");
	expect_refused(write_tmp("tail.o", img, size - 1), "roce_flow", NULL,
		       "truncated: the section headers end at byte");
	expect_refused(write_tmp("half.o", img, size / 2), "roce_flow", NULL, "truncated: ");
	/* A section that claims more bytes than the file has. */
	bad = malloc(size);
	assert_non_null(bad);
	memcpy(bad, img, size);
	memcpy(&shoff, bad + 0x28, sizeof(shoff)); /* e_shoff */
	memset(bad + shoff + 3 * 64 + 32, 0x7f, 8); /* section 3's sh_size */
	expect_refused(write_tmp("section.o", bad, size), "roce_flow", NULL,
		       "truncated: section 3 ends at byte");
	free(bad);
	expect_refused(write_tmp("text.o", "not an object\n", 14), "roce_flow", NULL,
		       "not an ELF object");
	expect_refused(write_tmp("empty.o", "", 0), "roce_flow", NULL, "not an ELF object");
	expect_refused("/nonexistent/hook.o", "roce_flow", NULL, "cannot open: ");
	expect_refused(tmpdir, "roce_flow", NULL, "not a regular file");
	free(img);
}

/* The bound memory must cover what the object declares. */
static void
test_refuse_small_binding(void **state)
{
	struct hook_bind b = { .flows = flows, .flows_bytes = 4096 };
	char err[HOOK_LOAD_ERR_MAX];
	struct hook_object *o;
	struct hook_prog p;

	(void)state;
	assert_int_equal(hook_object_open(hook_ut_obj("roce_flow"), "roce_flow", NULL, &o, err,
					  sizeof(err)),
			 0);
	assert_true(hook_prog_load(o, &b, &p, err, sizeof(err)) < 0);
	assert_non_null(strstr(err, "needs 33554432 bytes of flow records, bound 4096"));
	hook_object_free(o);
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_roce_flow_records, setup, teardown),
		cmocka_unit_test_setup_teardown(test_roce_flow_probe_window, setup, teardown),
		cmocka_unit_test_setup_teardown(test_dscp_ce, setup, teardown),
		cmocka_unit_test_setup_teardown(test_refuse_bad_objects, setup, teardown),
		cmocka_unit_test_setup_teardown(test_refuse_section, setup, teardown),
		cmocka_unit_test_setup_teardown(test_refuse_too_large, setup, teardown),
		cmocka_unit_test_setup_teardown(test_refuse_truncated_and_not_elf, setup, teardown),
		cmocka_unit_test_setup_teardown(test_refuse_small_binding, setup, teardown),
	};
	int rc;

	if (hook_ut_args(argc, argv) != 0 || mkdtemp(tmpdir) == NULL)
		return 2;
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	while (n_tmp_files > 0)
		unlink(tmp_files[--n_tmp_files]);
	rmdir(tmpdir);
	return rc;
}
