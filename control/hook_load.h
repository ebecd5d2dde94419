/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LONGSPAN_HOOK_LOAD_H
#define LONGSPAN_HOOK_LOAD_H

/*
 * Loading hook objects (docs/telemetry.md): an ELF object built from a
 * .bpf.c against dataplane/hook_abi.h is read once, checked in full, and
 * then loaded through DPDK's rte_bpf (verifier + x86-64 JIT) once per worker
 * lcore, each instance bound to that lcore's maps.
 *
 * The checks run before rte_bpf sees the object, because rte_bpf 22.11
 * accepts objects it then runs wrongly (an unrelocated helper call `call N`
 * calls its N-th external symbol) or refuses them with a bare EINVAL: not
 * an ELF file or a truncated one, the section missing or not code, the ABI
 * note missing or for another ABI version or context size, unrelocated
 * helper or kernel calls, BPF-to-BPF calls, map references, external
 * symbols the ABI does not offer, references to data sections, loops,
 * -mcpu=v3 jumps, a program larger than the limit. rte_bpf's verifier runs
 * next, then the JIT; a refusal at any step names the object, the section
 * and the reason:
 *
 *   OBJECT: section 'SECTION': REASON
 *
 * The program is loaded from the checked bytes (a memfd), not by path
 * again, so what runs is what was checked.
 *
 * Ownership: control thread only (loading allocates, logs and may take
 * milliseconds). A struct hook_prog is immutable once loaded and may be
 * called from a worker until the control thread unloads it after an RCU
 * grace period.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dataplane/hook_abi.h"

struct rte_bpf;

#define HOOK_LOAD_MAX_INSNS_DEFAULT 4096u
#define HOOK_LOAD_MAX_OBJECT_BYTES (16u << 20)
#define HOOK_LOAD_ERR_MAX 512 /* bytes of a refusal message */
#define HOOK_SECTION_MAX 64 /* bytes of a section name, NUL included */

struct hook_load_limits {
	uint32_t max_insns; /* largest program accepted, instructions; 0 = the default */
};

/* One checked object: its bytes and what the checks learned. */
struct hook_object {
	char *name; /* path as given, for messages */
	char section[HOOK_SECTION_MAX];
	uint8_t *image; /* the checked bytes */
	size_t size;
	struct ls_hook_abi_note abi; /* as the object declares it */
	uint32_t n_insns;
	bool uses_flows, uses_counters; /* the code references ls_hook_flows / _counters */
};

/* Memory bound to an instance's externals: one lcore's maps. */
struct hook_bind {
	void *flows; /* struct ls_hook_flow_rec[abi.flow_slots] */
	size_t flows_bytes;
	uint64_t *counters; /* uint64_t[abi.counters] */
	size_t counters_bytes;
};

/* One loaded instance. */
struct hook_prog {
	struct rte_bpf *bpf;
	uint64_t (*func)(void *ctx); /* JIT'd code: call with a struct ls_hook_ctx * */
	size_t jit_bytes;
};

/*
 * Check IMAGE (SIZE bytes) as a hook object with its program in SECTION.
 * NAME is used in messages only. On success fills info's section, abi,
 * n_insns and uses_* (not name, image or size) and returns 0; otherwise
 * writes the refusal into err and returns a negative errno. Pure: no file,
 * no rte_bpf (the fuzz target).
 */
int hook_object_check(const uint8_t *image, size_t size, const char *name, const char *section,
		      const struct hook_load_limits *lim, struct hook_object *info, char *err,
		      size_t err_size);

/* Read PATH and check it (hook_object_check); *out is freed with hook_object_free(). */
int hook_object_open(const char *path, const char *section, const struct hook_load_limits *lim,
		     struct hook_object **out, char *err, size_t err_size);
void hook_object_free(struct hook_object *o);

/*
 * Load one instance of a checked object, its externals bound to BIND (each
 * region at least as large as the object declares), verified by rte_bpf
 * and JIT-compiled. Refuses (with the verifier's own message and rte_errno)
 * what rte_bpf refuses, and an object it could not JIT.
 */
int hook_prog_load(const struct hook_object *o, const struct hook_bind *bind,
		   struct hook_prog *p, char *err, size_t err_size);
void hook_prog_unload(struct hook_prog *p);

#endif /* LONGSPAN_HOOK_LOAD_H */
