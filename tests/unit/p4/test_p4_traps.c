/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The DPDK 22.11 SWX traps that longspan.spec is written around
 * (docs/p4.md, "22.11 traps"), each shown on DPDK's own loader with a small
 * spec from traps/. tests/p4_spec_lint.py flags the same specs and passes
 * longspan.spec; this file shows that what the lint forbids really goes
 * wrong on the installed DPDK. If a check here fails with "trap gone", the
 * installed DPDK fixed it: the lint rule and docs/p4.md can be relaxed.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <rte_hash_crc.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>
#include <rte_ring.h>
#include <rte_swx_ctl.h>
#include <rte_swx_pipeline.h>

#include "../dataplane/ut_eal.h"
#include "ut_swx.h"

#ifndef LS_P4_TRAPS
#error "LS_P4_TRAPS: directory of the trap specs"
#endif

#define SWX_2211_GROUPS_MAX 85

static struct rte_mempool *mp;

static void
trap_path(char *buf, size_t size, const char *name)
{
	snprintf(buf, size, "%s/%s.spec", LS_P4_TRAPS, name);
}

/*
 * The byte offsets DPDK's translation gave the operand `which` (".dst" or
 * ".mov") of every instruction of type itype, read from codegen's output,
 * where each instruction is exported as a C initializer.
 */
static int
translated_offsets(const char *c_path, const char *itype, uint32_t *off, int max)
{
	char line[256], want[96];
	FILE *f = fopen(c_path, "r");
	int n = 0, in = 0;

	if (f == NULL)
		return -1;
	snprintf(want, sizeof(want), ".type = %s,", itype);
	while (fgets(line, sizeof(line), f) != NULL && n < max) {
		const char *o;

		if (strstr(line, ".type = ") != NULL)
			in = strstr(line, want) != NULL;
		o = strstr(line, ".offset = ");
		if (in && o != NULL) {
			off[n++] = (uint32_t)strtoul(o + 10, NULL, 10);
			in = 0; /* the first offset is the destination's */
		}
	}
	fclose(f);
	return n;
}

static struct rte_swx_pipeline *
trap_load(const char *name, const char *c_path)
{
	char spec[512], so[256], lib[64];
	struct rte_swx_pipeline *p = NULL;

	trap_path(spec, sizeof(spec), name);
	snprintf(lib, sizeof(lib), "%s.so", name);
	ut_swx_tmp(so, sizeof(so), lib);
	assert_int_equal(ut_swx_codegen(spec, c_path), 0);
	if (ut_swx_src_dir() == NULL)
		return NULL;
	assert_int_equal(ut_swx_compile(c_path, so), 0);
	assert_int_equal(ut_swx_load(so, name, 1, 1, &p), 0);
	return p;
}

static struct rte_mbuf *
trap_run(struct rte_swx_pipeline *p, const char *name, const uint8_t *pkt, size_t len)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(mp), *out = NULL;
	int i;

	assert_non_null(m);
	memcpy(rte_pktmbuf_append(m, (uint16_t)len), pkt, len);
	assert_int_equal(rte_ring_enqueue(ut_swx_ring(name, 0), m), 0);
	for (i = 0; i < 64 && out == NULL; i++) {
		rte_swx_pipeline_run(p, 8);
		rte_swx_pipeline_flush(p);
		if (rte_ring_dequeue(ut_swx_ring(name, -1), (void **)&out) != 0)
			out = NULL;
	}
	assert_non_null(out);
	return out;
}

static uint32_t
get32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* Trap 1: the hash destination at metadata byte 36 becomes byte 4. */
static void
test_hash_dst_past_byte_31(void **state)
{
	static const uint8_t key[8] = { 10, 1, 0, 9, 10, 2, 0, 7 };
	struct rte_swx_pipeline *p;
	char c_path[256];
	uint32_t off[4], h;
	struct rte_mbuf *m;
	const uint8_t *o;

	(void)state;
	ut_swx_tmp(c_path, sizeof(c_path), "hash_dst.c");
	p = trap_load("hash_dst", c_path);
	assert_int_equal(translated_offsets(c_path, "INSTR_HASH_FUNC", off, 4), 2);
	assert_int_equal(off[0], 8); /* m.early_hash, byte 8: right */
	if (off[1] == 36)
		fail_msg("trap gone: hash destination at byte 36 translated right");
	assert_int_equal(off[1], 4); /* m.late_hash, byte 36 -> 4 (m.pad0) */
	if (p == NULL)
		return;
	m = trap_run(p, "hash_dst", key, sizeof(key));
	o = rte_pktmbuf_mtod(m, const uint8_t *) + sizeof(key);
	h = rte_hash_crc(key, sizeof(key), 0);
	assert_int_equal(get32(o), h); /* early: the hash */
	assert_int_equal(get32(o + 4), 0); /* late: never written */
	assert_int_equal(get32(o + 8), h); /* pad0: overwritten */
	rte_pktmbuf_free(m);
	rte_swx_pipeline_free(p);
}

/* Trap 2: a metadata field at byte 260 aliases byte 4 (the output port). */
static void
test_struct_field_past_byte_255(void **state)
{
	char spec[512], c_path[256];
	uint32_t off[4];
	int n;

	(void)state;
	trap_path(spec, sizeof(spec), "offset256");
	ut_swx_tmp(c_path, sizeof(c_path), "offset256.c");
	assert_int_equal(ut_swx_codegen(spec, c_path), 0);
	n = translated_offsets(c_path, "INSTR_MOV_I", off, 4);
	assert_int_equal(n, 2);
	assert_int_equal(off[0], 4); /* mov m.port_out: byte 4, right */
	if (off[1] == 260)
		fail_msg("trap gone: field at byte 260 translated right");
	assert_int_equal(off[1], 4); /* mov m.far (byte 260): also byte 4 */
}

/* RFC 1071 over an even number of bytes. */
static uint16_t
csum(const uint8_t *p, size_t n)
{
	uint32_t s = 0;
	size_t i;

	for (i = 0; i < n; i += 2)
		s += (uint32_t)(p[i] << 8 | p[i + 1]);
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return (uint16_t)~s;
}

/* Trap 3: ckadd/cksub of the TOS byte at odd offset 1 gives a wrong sum. */
static void
test_cksum_odd_offset(void **state)
{
	uint8_t pkt[24];
	struct rte_swx_pipeline *p;
	char c_path[256];
	struct rte_mbuf *m;
	const uint8_t *o;
	int i;

	(void)state;
	ut_swx_tmp(c_path, sizeof(c_path), "cksum_odd.c");
	p = trap_load("cksum_odd", c_path);
	if (p == NULL) {
		fprintf(stderr, "skipped the run: no DPDK pipeline sources (docs/p4.md)\n");
		skip();
	}
	/* Two copies of 12 header bytes whose checksum (bytes 10-11) is right
	 * over the 12 bytes, TOS = ECT(0). */
	memset(pkt, 0, sizeof(pkt));
	for (i = 0; i < 2; i++) {
		uint8_t *h = pkt + 12 * i;

		h[0] = 0x45;
		h[1] = 0x02;
		h[3] = 60;
		h[8] = 64;
		h[9] = 17;
		h[10] = (uint8_t)(csum(h, 12) >> 8);
		h[11] = (uint8_t)csum(h, 12);
	}
	m = trap_run(p, "cksum_odd", pkt, sizeof(pkt));
	o = rte_pktmbuf_mtod(m, const uint8_t *);
	assert_int_equal(o[1], 0x03);
	assert_int_equal(o[12 + 1], 0x03);
	assert_int_equal(csum(o + 12, 12), 0); /* 16-bit field: right */
	if (csum(o, 12) == 0)
		fail_msg("trap gone: ckadd of an odd-offset byte summed right");
	rte_pktmbuf_free(m);
	rte_swx_pipeline_free(p);
}

/* Trap 4: more than 85 instruction groups load in codegen, not in the lib. */
static void
test_instruction_groups_max(void **state)
{
	char spec[256], c_path[256], so[256];
	struct rte_swx_pipeline *p = NULL;
	FILE *f;
	int i, groups;

	(void)state;
	ut_swx_tmp(spec, sizeof(spec), "groups.spec");
	f = fopen(spec, "w");
	assert_non_null(f);
	fprintf(f, "struct meta_t {\n\tbit<32> port_in\n\tbit<32> port_out\n\tbit<32> a\n}\n"
		   "metadata instanceof meta_t\n"
		   "action nop args none {\n\treturn\n}\n"
		   "table t {\n\tactions {\n\t\tnop\n\t}\n\tdefault_action nop args none\n"
		   "\tsize 0x1\n}\n"
		   "apply {\n\trx m.port_in\n\tmov m.port_out 0x0\n");
	/* Each mov, add, table run is one group of the codegen. */
	for (i = 0; i < SWX_2211_GROUPS_MAX + 5; i++)
		fprintf(f, "\tmov m.a 0x1\n\tadd m.a 0x2\n\ttable t\n");
	fprintf(f, "\ttx m.port_out\n}\n");
	fclose(f);
	ut_swx_tmp(c_path, sizeof(c_path), "groups.c");
	assert_int_equal(ut_swx_codegen(spec, c_path), 0);
	groups = ut_swx_count_groups(c_path);
	assert_true(groups > SWX_2211_GROUPS_MAX);
	if (ut_swx_src_dir() == NULL) {
		fprintf(stderr, "skipped the load: no DPDK pipeline sources (docs/p4.md)\n");
		return;
	}
	ut_swx_tmp(so, sizeof(so), "groups.so");
	assert_int_equal(ut_swx_compile(c_path, so), 0);
	if (ut_swx_load(so, "groups", 1, 1, &p) == 0) {
		rte_swx_pipeline_free(p);
		fail_msg("trap gone: %d instruction groups loaded", groups);
	}
}

/* Trap 5: no extern objects in the codegen flow. */
static void
test_no_extern_in_codegen(void **state)
{
	char spec[512], c_path[256];

	(void)state;
	trap_path(spec, sizeof(spec), "extern");
	ut_swx_tmp(c_path, sizeof(c_path), "extern.c");
	if (ut_swx_codegen(spec, c_path) == 0)
		fail_msg("trap gone: codegen accepted an extern object");
}

/*
 * Trap 6: regadd and regwr with an immediate index and value act on
 * register array 0 (first), not on the array they name (counter).
 */
static void
test_reg_imm_array_0(void **state)
{
	static const uint8_t pkt[16];
	uint64_t first0 = 0, first1 = 0, counter0 = 0, counter1 = 0;
	struct rte_swx_pipeline *p;
	char c_path[256];

	(void)state;
	ut_swx_tmp(c_path, sizeof(c_path), "reg_imm.c");
	p = trap_load("reg_imm", c_path);
	if (p == NULL)
		return;
	rte_pktmbuf_free(trap_run(p, "reg_imm", pkt, sizeof(pkt)));
	assert_int_equal(rte_swx_ctl_pipeline_regarray_read(p, "first", 0, &first0), 0);
	assert_int_equal(rte_swx_ctl_pipeline_regarray_read(p, "first", 1, &first1), 0);
	assert_int_equal(rte_swx_ctl_pipeline_regarray_read(p, "counter", 0, &counter0), 0);
	assert_int_equal(rte_swx_ctl_pipeline_regarray_read(p, "counter", 1, &counter1), 0);
	if (counter0 == 1 && counter1 == 7)
		fail_msg("trap gone: regadd and regwr with immediates reached their array");
	assert_int_equal(counter0, 0);
	assert_int_equal(counter1, 0);
	assert_int_equal(first0, 1);
	assert_int_equal(first1, 7);
	rte_swx_pipeline_free(p);
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hash_dst_past_byte_31),
		cmocka_unit_test(test_struct_field_past_byte_255),
		cmocka_unit_test(test_cksum_odd_offset),
		cmocka_unit_test(test_instruction_groups_max),
		cmocka_unit_test(test_no_extern_in_codegen),
		cmocka_unit_test(test_reg_imm_array_0),
	};
	int rc;

	(void)argc;
	if (ut_eal_init(argv[0], "test_p4_traps", 256) != 0)
		return 1;
	mp = rte_pktmbuf_pool_create("p4t_mp", 256, 0, 0, RTE_MBUF_DEFAULT_BUF_SIZE,
				     SOCKET_ID_ANY);
	if (mp == NULL)
		return 1;
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	rte_mempool_free(mp);
	ut_eal_fini();
	ut_swx_cleanup();
	return rc;
}
