/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The instruction checks of a hook object (docs/telemetry.md, "Writing a
 * hook"): after hook_load.c has read the ELF object, its sections, ABI note
 * and relocations, what the program's instructions may do before rte_bpf's
 * own verifier sees them: no kernel helpers or functions, no instruction
 * classes rte_bpf 22.11 runs wrongly, no loops, no stores through the
 * context pointer (hook ABI 3).
 */
#include "hook_insns.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "dataplane/hook_abi.h"

#define HOOK_BPF_JMP32 0x06 /* instruction class of -mcpu=v3 32-bit jumps */
#define HOOK_BPF_PSEUDO_KFUNC_CALL 2 /* src_reg of a call to a kernel function */

/*
 * The instructions themselves: what rte_bpf 22.11 would run wrongly or
 * refuse without a reason. (Its verifier checks memory access, registers
 * and reachability next.)
 */
int
hook_check_insns(const struct hook_chk *k, const struct ebpf_insn *ins, uint32_t n,
		 const uint8_t *relocated)
{
	uint32_t i;

	for (i = 0; i < n; i++) {
		uint8_t cls = BPF_CLASS(ins[i].code), op = BPF_OP(ins[i].code);

		if (ins[i].code == (BPF_LD | BPF_IMM | EBPF_DW)) {
			if (i + 1 >= n)
				return hook_refuse(k, -ENOEXEC,
						   "64-bit load at the last instruction %u", i);
			if (ins[i].src_reg != 0)
				return hook_refuse(k, -ENOTSUP,
						   "map reference (64-bit load, src_reg %u) at "
						   "instruction %u: rte_bpf has no kernel maps; write to "
						   LS_HOOK_XSYM_FLOWS " or " LS_HOOK_XSYM_COUNTERS,
						   ins[i].src_reg, i);
			i++; /* the second half of the load */
			continue;
		}
		if (cls == HOOK_BPF_JMP32)
			return hook_refuse(k, -ENOTSUP,
					   "32-bit jump at instruction %u (-mcpu=v3): rte_bpf "
					   "22.11 needs -mcpu=v2",
					   i);
		if (cls != BPF_JMP || op == EBPF_EXIT)
			continue;
		if (op == EBPF_CALL) {
			if (relocated[i])
				continue;
			if (ins[i].src_reg == EBPF_PSEUDO_CALL)
				return hook_refuse(k, -ENOTSUP,
						   "BPF-to-BPF call at instruction %u: rte_bpf 22.11 "
						   "cannot run it; make the callee static inline "
						   "__attribute__((always_inline))",
						   i);
			if (ins[i].src_reg == HOOK_BPF_PSEUDO_KFUNC_CALL)
				return hook_refuse(k, -ENOTSUP,
						   "call to a kernel function at instruction %u: the "
						   "hook ABI offers none",
						   i);
			return hook_refuse(k, -ENOTSUP,
					   "call to kernel helper %d at instruction %u: rte_bpf "
					   "22.11 does not relocate helper IDs and would call "
					   "whatever is its external symbol %d; the hook ABI offers "
					   "no helpers",
					   ins[i].imm, i, ins[i].imm);
		}
		if ((int64_t)i + ins[i].off + 1 < 0 || (int64_t)i + ins[i].off + 1 >= (int64_t)n)
			return hook_refuse(k, -ENOEXEC,
					   "instruction %u jumps outside the program", i);
	}
	return 0;
}

/* Successors of instruction i in the control flow graph (0, 1 or 2 of them). */
static unsigned int
hook_insn_succ(const struct ebpf_insn *ins, uint32_t i, uint32_t succ[2])
{
	uint8_t cls = BPF_CLASS(ins[i].code), op = BPF_OP(ins[i].code);

	if (ins[i].code == (BPF_LD | BPF_IMM | EBPF_DW)) {
		succ[0] = i + 2;
		return 1;
	}
	if (cls != BPF_JMP || op == EBPF_CALL) {
		succ[0] = i + 1;
		return 1;
	}
	if (op == EBPF_EXIT)
		return 0;
	succ[0] = (uint32_t)((int64_t)i + ins[i].off + 1);
	if (op == BPF_JA)
		return 1;
	succ[1] = i + 1;
	return 2;
}

/*
 * Loops: a back edge of a depth-first walk of the control flow graph from
 * the first instruction (a backward jump alone is not one: clang often
 * places a shared `return` block before its users). Jump targets were
 * checked to lie inside the program.
 */
int
hook_check_loops(const struct hook_chk *k, const struct ebpf_insn *ins, uint32_t n)
{
	enum { WHITE, GREY, BLACK };
	struct frame {
		uint32_t insn, next; /* next: index of the successor to visit */
	} *stack;
	uint8_t *colour;
	uint32_t depth = 0;
	int rc = 0;

	stack = calloc(n, sizeof(*stack));
	colour = calloc(n, 1);
	if (stack == NULL || colour == NULL) {
		rc = hook_refuse(k, -ENOMEM, "out of memory");
		goto out;
	}
	stack[depth++] = (struct frame){ 0, 0 };
	colour[0] = GREY;
	while (depth > 0 && rc == 0) {
		struct frame *f = &stack[depth - 1];
		uint32_t succ[2], ns = hook_insn_succ(ins, f->insn, succ), to;

		if (f->next == ns) {
			colour[f->insn] = BLACK;
			depth--;
			continue;
		}
		to = succ[f->next++];
		if (to >= n)
			rc = hook_refuse(k, -ENOEXEC, "instruction %u runs past the end of the program",
					 f->insn);
		else if (colour[to] == GREY)
			rc = hook_refuse(k, -ENOTSUP,
					 "loop: the jump at instruction %u to %u closes a cycle; rte_bpf 22.11 "
					 "verifies no loops: bound it at compile time and unroll it "
					 "(#pragma unroll)",
					 f->insn, to);
		else if (colour[to] == WHITE) {
			colour[to] = GREY;
			stack[depth++] = (struct frame){ to, 0 };
		}
	}
out:
	free(colour);
	free(stack);
	return rc;
}

/*
 * Where the context pointer may be, per instruction: registers that may
 * hold it (or a pointer computed from it), registers that may point into
 * the stack, and 8-byte stack slots that may hold either.
 */
struct hook_ptrs {
	uint16_t ctx, fp; /* bit r: register r */
	uint64_t ctx_slots, fp_slots; /* bit s: the stack's bytes [8s - 512, 8s - 504) */
};

#define HOOK_STACK_BYTES 512 /* rte_bpf's MAX_BPF_STACK_SIZE */

/* Bytes a load or store of size code sz (BPF_SIZE()) moves. */
static uint32_t
hook_bpf_size(uint8_t sz)
{
	return sz == EBPF_DW ? 8 : sz == BPF_W ? 4 : sz == BPF_H ? 2 : 1;
}

/* The slots that bytes [off, off + size) below the frame pointer cover, 0 outside the stack. */
static uint64_t
hook_stack_slots(int32_t off, uint32_t size)
{
	int32_t lo = off + HOOK_STACK_BYTES, hi = lo + (int32_t)size - 1;
	uint64_t m = 0;
	int32_t s;

	if (lo < 0 || hi >= HOOK_STACK_BYTES)
		return 0;
	for (s = lo / 8; s <= hi / 8; s++)
		m |= 1ull << s;
	return m;
}

/*
 * The context is read-only to hooks (hook ABI version 3): the gateway
 * writes its per-worker fields once and hands one context to every hook of
 * a point, and rte_bpf 22.11's verifier lets a program store through its
 * RTE_BPF_ARG_PTR argument (it protects only some mbuf fields). So follow
 * the context pointer from r1 through moves, arithmetic and stack spills
 * (loads from other memory give the verifier a scalar, never a pointer)
 * and refuse any store whose base may be it. The control flow graph has
 * no cycles here (hook_check_loops()), so the walk ends.
 */
int
hook_check_ctx_stores(const struct hook_chk *k, const struct ebpf_insn *ins, uint32_t n)
{
	struct hook_ptrs *in = calloc(n, sizeof(*in));
	uint8_t *seen = calloc(n, 1);
	bool changed = true;
	uint32_t i;
	int rc = 0;

	if (in == NULL || seen == NULL) {
		rc = hook_refuse(k, -ENOMEM, "out of memory");
		goto out;
	}
	in[0].ctx = 1u << EBPF_REG_1;
	in[0].fp = 1u << EBPF_REG_10;
	seen[0] = 1;
	while (changed && rc == 0) {
		changed = false;
		for (i = 0; i < n && rc == 0; i++) {
			const struct ebpf_insn *x = &ins[i];
			uint8_t cls = BPF_CLASS(x->code), op = BPF_OP(x->code);
			uint16_t d = (uint16_t)(1u << x->dst_reg), sr = (uint16_t)(1u << x->src_reg);
			struct hook_ptrs st;
			uint32_t succ[2], ns, j;

			if (!seen[i])
				continue;
			st = in[i];
			if (x->code == (BPF_LD | BPF_IMM | EBPF_DW)) {
				st.ctx &= (uint16_t)~d; /* an external variable's address */
				st.fp &= (uint16_t)~d;
			} else if (cls == BPF_ALU || cls == EBPF_ALU64) {
				bool x_src = BPF_SRC(x->code) == BPF_X;

				if (op == EBPF_MOV) {
					st.ctx = (uint16_t)((st.ctx & ~d) | (x_src && (st.ctx & sr) ? d : 0));
					st.fp = (uint16_t)((st.fp & ~d) | (x_src && (st.fp & sr) ? d : 0));
				} else if (x_src && op != BPF_NEG && op != EBPF_END) {
					st.ctx |= (st.ctx & sr) ? d : 0;
					st.fp |= (st.fp & sr) ? d : 0;
				}
			} else if (cls == BPF_LDX) {
				uint64_t sl = x->src_reg == EBPF_REG_10 ?
						      hook_stack_slots(x->off, hook_bpf_size(BPF_SIZE(x->code))) :
						      (st.fp & sr) ? UINT64_MAX : 0;

				st.ctx = (uint16_t)((st.ctx & ~d) | ((st.ctx_slots & sl) ? d : 0));
				st.fp = (uint16_t)((st.fp & ~d) | ((st.fp_slots & sl) ? d : 0));
			} else if (cls == BPF_ST || cls == BPF_STX) {
				uint32_t size = hook_bpf_size(BPF_SIZE(x->code));
				bool whole = size == 8 && BPF_MODE(x->code) == BPF_MEM;
				uint64_t sl;

				if (st.ctx & d) {
					rc = hook_refuse(k, -EACCES,
							 "store to the hook context at instruction %u "
							 "(through r%u%s): the context is read-only to "
							 "hooks since hook ABI version 3; keep state in "
							 LS_HOOK_XSYM_FLOWS " or " LS_HOOK_XSYM_COUNTERS,
							 i, x->dst_reg,
							 x->dst_reg == EBPF_REG_1 ? "" : ", a copy of it");
					break;
				}
				if (x->dst_reg == EBPF_REG_10) {
					sl = hook_stack_slots(x->off, size);
				} else if (st.fp & d) {
					sl = UINT64_MAX; /* somewhere in the stack */
					whole = false;
				} else {
					sl = 0;
				}
				if (whole && sl != 0 && (sl & (sl - 1)) == 0) {
					st.ctx_slots &= ~sl;
					st.fp_slots &= ~sl;
				}
				if (cls == BPF_STX && (st.ctx & sr))
					st.ctx_slots |= sl;
				if (cls == BPF_STX && (st.fp & sr))
					st.fp_slots |= sl;
			} else if (cls == BPF_JMP && op == EBPF_CALL) {
				/* r0 is the result, r1-r5 are undefined after a call. */
				st.ctx &= (uint16_t)~0x3fu;
				st.fp &= (uint16_t)~0x3fu;
			} else if (cls == BPF_LD) {
				/* Packet loads (BPF_ABS, BPF_IND): r0 and r1-r5 as after a call. */
				st.ctx &= (uint16_t)~0x3fu;
				st.fp &= (uint16_t)~0x3fu;
			}
			ns = hook_insn_succ(ins, i, succ);
			for (j = 0; j < ns; j++) {
				struct hook_ptrs *t;

				if (succ[j] >= n)
					continue; /* refused by hook_check_loops() already */
				t = &in[succ[j]];
				if (seen[succ[j]] && (t->ctx | st.ctx) == t->ctx &&
				    (t->fp | st.fp) == t->fp &&
				    (t->ctx_slots | st.ctx_slots) == t->ctx_slots &&
				    (t->fp_slots | st.fp_slots) == t->fp_slots)
					continue;
				t->ctx |= st.ctx;
				t->fp |= st.fp;
				t->ctx_slots |= st.ctx_slots;
				t->fp_slots |= st.fp_slots;
				seen[succ[j]] = 1;
				changed = true;
			}
		}
	}
out:
	free(seen);
	free(in);
	return rc;
}

