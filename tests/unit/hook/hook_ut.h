/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LONGSPAN_HOOK_UT_H
#define LONGSPAN_HOOK_UT_H

/*
 * Shared by the hook unit tests: the built hook objects, passed by meson as
 * NAME=PATH arguments, and a builder of synthetic hook contexts (what the
 * pipeline would fill in for one packet of a test flow).
 */

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dataplane/hook_abi.h"

#define HOOK_UT_OBJS_MAX 32

struct hook_ut_obj {
	const char *name, *path;
};

static struct hook_ut_obj hook_ut_objs[HOOK_UT_OBJS_MAX];
static unsigned int hook_ut_n_objs;

/* Take the NAME=PATH arguments; anything else is an error. */
static inline int
hook_ut_args(int argc, char **argv)
{
	int i;

	for (i = 1; i < argc; i++) {
		char *eq = strchr(argv[i], '=');

		if (eq == NULL || hook_ut_n_objs == HOOK_UT_OBJS_MAX) {
			fprintf(stderr, "usage: %s NAME=OBJECT...\n", argv[0]);
			return -1;
		}
		*eq = '\0';
		hook_ut_objs[hook_ut_n_objs].name = argv[i];
		hook_ut_objs[hook_ut_n_objs].path = eq + 1;
		hook_ut_n_objs++;
	}
	return 0;
}

/* Path of the object NAME; aborts the test program when meson did not pass it. */
static inline const char *
hook_ut_obj(const char *name)
{
	unsigned int i;

	for (i = 0; i < hook_ut_n_objs; i++)
		if (strcmp(hook_ut_objs[i].name, name) == 0)
			return hook_ut_objs[i].path;
	fprintf(stderr, "no object %s given\n", name);
	abort();
}

/* The whole file at path, NUL-terminated (a text or an object), or NULL; *size its bytes. */
static inline uint8_t *
hook_ut_read(const char *path, size_t *size)
{
	FILE *f = fopen(path, "rb");
	uint8_t *b = NULL;
	long n;

	if (f == NULL)
		return NULL;
	if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0 &&
	    (b = malloc((size_t)n + 1)) != NULL) {
		if (fread(b, 1, (size_t)n, f) == (size_t)n) {
			b[n] = '\0';
			*size = (size_t)n;
		} else {
			free(b);
			b = NULL;
		}
	}
	fclose(f);
	return b;
}

/* A test flow: IPv4 10.0.0.N -> 10.1.0.N, UDP 49152+N -> 4791, QP 0x100+N. */
struct hook_ut_flow {
	unsigned int n;
	uint8_t direction;
	uint32_t hash; /* 0: derive one from n */
};

/* A context for one RoCE packet of flow f at point, opcode op, PSN psn, ECN ecn. */
static inline void
hook_ut_ctx(struct ls_hook_ctx *c, const struct hook_ut_flow *f, uint8_t point, uint8_t op,
	    uint32_t psn, uint8_t ecn, uint16_t ip_bytes, uint64_t now_ns)
{
	memset(c, 0, sizeof(*c));
	c->abi_version = LS_HOOK_ABI_VERSION;
	c->ctx_size = sizeof(*c);
	c->hook_point = point;
	c->flags = LS_HOOK_F_ROCE;
	c->lcore = 1;
	c->port = point == LS_HOOK_DC_RX || point == LS_HOOK_DC_TX ? 0 : 1;
	c->peer = 0;
	c->frame_bytes = (uint16_t)(ip_bytes + 14);
	c->ip_bytes = ip_bytes;
	c->tsc = now_ns * 3;
	c->now_ns = now_ns;
	c->hash = f->hash != 0 ? f->hash : 0x9e3779b1u * (f->n + 1) | 1;
	c->dest_qp = 0x100 + f->n;
	c->sport = (uint16_t)(49152 + f->n);
	c->dport = 4791;
	c->family = LS_HOOK_FAMILY_IP4;
	c->proto = 17;
	c->direction = f->direction;
	c->src[0] = 10;
	c->src[3] = (uint8_t)f->n;
	c->dst[0] = 10;
	c->dst[1] = 1;
	c->dst[3] = (uint8_t)f->n;
	c->dscp = 26;
	c->ecn = ecn;
	c->bth_opcode = op;
	c->psn = psn;
	c->flow_slot = LS_HOOK_NO_SLOT;
}

#endif /* LONGSPAN_HOOK_UT_H */
