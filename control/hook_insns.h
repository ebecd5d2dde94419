/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LONGSPAN_HOOK_INSNS_H
#define LONGSPAN_HOOK_INSNS_H

/*
 * Inside the hook loader (not a public interface): the check in progress
 * and the instruction checks of hook_insns.c, which hook_object_check()
 * (hook_load.c) runs after the ELF, ABI and relocation checks. Each
 * returns 0, or a negative errno after writing why into the check's error
 * buffer.
 */

#include <stddef.h>
#include <stdint.h>

#include <bpf_def.h>

/* One check in progress: where its refusal goes. */
struct hook_chk {
	const char *name;
	const char *section;
	char *err;
	size_t err_size;
};

/* Write "NAME: section 'SECTION': REASON" and return rc (negative errno). */
int hook_refuse(const struct hook_chk *k, int rc, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/*
 * The n instructions one by one (relocated[i]: instruction i loads an
 * external variable's address): what rte_bpf 22.11 would run wrongly or
 * refuse without a reason.
 */
int hook_check_insns(const struct hook_chk *k, const struct ebpf_insn *ins, uint32_t n,
		     const uint8_t *relocated);

/* No loops: rte_bpf 22.11's verifier would walk one until it gives up. */
int hook_check_loops(const struct hook_chk *k, const struct ebpf_insn *ins, uint32_t n);

/* No store through the context pointer or a copy of it (hook ABI 3). */
int hook_check_ctx_stores(const struct hook_chk *k, const struct ebpf_insn *ins, uint32_t n);

#endif /* LONGSPAN_HOOK_INSNS_H */
