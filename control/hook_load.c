/* SPDX-License-Identifier: BSD-3-Clause */
#include "hook_load.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <bpf_def.h>
#include <rte_bpf.h>
#include <rte_errno.h>
#include <rte_log.h>

#ifndef EM_BPF
#define EM_BPF 247
#endif
#define HOOK_BPF_JMP32 0x06 /* instruction class of -mcpu=v3 32-bit jumps */
#define HOOK_BPF_PSEUDO_KFUNC_CALL 2 /* src_reg of a call to a kernel function */

/* The external variables the ABI offers (every version so far), by name. */
enum hook_xsym {
	HOOK_XSYM_FLOWS,
	HOOK_XSYM_COUNTERS,
	HOOK_XSYM_MAX
};

static const char *const hook_xsym_names[HOOK_XSYM_MAX] = {
	[HOOK_XSYM_FLOWS] = LS_HOOK_XSYM_FLOWS,
	[HOOK_XSYM_COUNTERS] = LS_HOOK_XSYM_COUNTERS,
};

/* One check in progress: where its refusal goes. */
struct hook_chk {
	const char *name;
	const char *section;
	char *err;
	size_t err_size;
};

static int hook_refuse(const struct hook_chk *k, int rc, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Write "NAME: section 'SECTION': REASON" and return rc (negative errno). */
static int
hook_refuse(const struct hook_chk *k, int rc, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (k->err == NULL || k->err_size == 0)
		return rc;
	n = snprintf(k->err, k->err_size, "%s: section '%s': ", k->name, k->section);
	if (n >= 0 && (size_t)n < k->err_size) {
		va_start(ap, fmt);
		vsnprintf(k->err + n, k->err_size - (size_t)n, fmt, ap);
		va_end(ap);
	}
	return rc;
}

/*
 * The ELF header and section header table, checked by hand against the
 * buffer before libelf reads anything, so a truncated file is refused as
 * truncated (with where it ends) rather than as a libelf error.
 */
static int
hook_check_layout(const struct hook_chk *k, const uint8_t *image, size_t size, Elf64_Ehdr *eh)
{
	uint64_t end;
	unsigned int i;

	if (size < SELFMAG || memcmp(image, ELFMAG, SELFMAG) != 0)
		return hook_refuse(k, -ENOEXEC, "not an ELF object (no \\177ELF magic)");
	if (size < sizeof(*eh))
		return hook_refuse(k, -ENOEXEC,
				   "truncated: %zu bytes, shorter than an ELF header (%zu)", size,
				   sizeof(*eh));
	memcpy(eh, image, sizeof(*eh));
	if (eh->e_ident[EI_CLASS] != ELFCLASS64)
		return hook_refuse(k, -ENOEXEC,
				   "not a 64-bit ELF object: build it with clang -target bpf");
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	if (eh->e_ident[EI_DATA] != ELFDATA2LSB)
#else
	if (eh->e_ident[EI_DATA] != ELFDATA2MSB)
#endif
		return hook_refuse(k, -ENOEXEC,
				   "byte order differs from the gateway's: build it with -target bpf");
	if (eh->e_machine != EM_BPF)
		return hook_refuse(k, -ENOEXEC,
				   "not an eBPF object (ELF machine %u): build it with clang -target bpf",
				   eh->e_machine);
	if (eh->e_type != ET_REL)
		return hook_refuse(k, -ENOEXEC,
				   "not a relocatable object (ELF type %u): build it with clang -c",
				   eh->e_type);
	if (eh->e_shoff == 0 || eh->e_shnum == 0 || eh->e_shstrndx == SHN_UNDEF)
		return hook_refuse(k, -ENOEXEC, "no section headers");
	if (eh->e_shentsize != sizeof(Elf64_Shdr))
		return hook_refuse(k, -ENOEXEC, "section headers of %u bytes, expected %zu",
				   eh->e_shentsize, sizeof(Elf64_Shdr));
	if (eh->e_shstrndx >= eh->e_shnum)
		return hook_refuse(k, -ENOEXEC, "section name table %u of %u sections",
				   eh->e_shstrndx, eh->e_shnum);
	end = eh->e_shoff + (uint64_t)eh->e_shnum * sizeof(Elf64_Shdr);
	if (eh->e_shoff > size || end > size)
		return hook_refuse(k, -ENOEXEC,
				   "truncated: the section headers end at byte %llu, the file has %zu",
				   (unsigned long long)end, size);
	for (i = 0; i < eh->e_shnum; i++) {
		Elf64_Shdr sh;

		memcpy(&sh, image + eh->e_shoff + (uint64_t)i * sizeof(sh), sizeof(sh));
		if (sh.sh_type == SHT_NOBITS)
			continue;
		end = sh.sh_offset + sh.sh_size;
		if (sh.sh_offset > size || sh.sh_size > size || end > size)
			return hook_refuse(k, -ENOEXEC,
					   "truncated: section %u ends at byte %llu, the file has %zu",
					   i, (unsigned long long)end, size);
	}
	return 0;
}

/* Sections the other checks need, found by one walk. */
struct hook_scns {
	Elf_Scn *code, *abi, *symtab;
	size_t code_idx, symtab_idx;
	GElf_Shdr code_sh, abi_sh, symtab_sh;
	char code_names[160]; /* executable sections, for a missing-section message */
};

static bool
hook_scn_is_code(const GElf_Shdr *sh)
{
	/* What rte_bpf_elf_load() accepts as the program's section. */
	return sh->sh_type == SHT_PROGBITS && sh->sh_flags == (SHF_ALLOC | SHF_EXECINSTR);
}

static int
hook_find_sections(const struct hook_chk *k, Elf *elf, size_t shstrndx, struct hook_scns *s)
{
	Elf_Scn *scn = NULL;
	size_t len = 0;

	memset(s, 0, sizeof(*s));
	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		GElf_Shdr sh;
		const char *n;

		if (gelf_getshdr(scn, &sh) == NULL)
			return hook_refuse(k, -ENOEXEC, "unreadable section header: %s",
					   elf_errmsg(-1));
		n = elf_strptr(elf, shstrndx, sh.sh_name);
		if (n == NULL)
			return hook_refuse(k, -ENOEXEC, "section %zu has no name: %s",
					   elf_ndxscn(scn), elf_errmsg(-1));
		if (sh.sh_type == SHT_SYMTAB) {
			if (s->symtab != NULL)
				return hook_refuse(k, -ENOEXEC, "more than one symbol table");
			s->symtab = scn;
			s->symtab_idx = elf_ndxscn(scn);
			s->symtab_sh = sh;
		}
		if (strcmp(n, LS_HOOK_ABI_SECTION) == 0) {
			s->abi = scn;
			s->abi_sh = sh;
		}
		if (hook_scn_is_code(&sh) && sh.sh_size > 0) {
			if (strcmp(n, k->section) == 0) {
				s->code = scn;
				s->code_idx = elf_ndxscn(scn);
				s->code_sh = sh;
			}
			if (len < sizeof(s->code_names)) {
				int w = snprintf(s->code_names + len, sizeof(s->code_names) - len,
						 "%s'%s'", len > 0 ? ", " : "", n);

				if (w > 0)
					len += (size_t)w;
			}
		} else if (strcmp(n, k->section) == 0 && s->code == NULL) {
			return hook_refuse(k, -ENOENT, "the section is not executable code");
		}
	}
	if (s->code == NULL)
		return hook_refuse(k, -ENOENT, "no such code section (the object has: %s)",
				   len > 0 ? s->code_names : "none");
	return 0;
}

/* The object's struct ls_hook_abi_note against this gateway's ABI. */
static int
hook_check_abi(const struct hook_chk *k, const uint8_t *image, const struct hook_scns *s,
	       struct ls_hook_abi_note *note)
{
	const uint32_t slots_max = LS_HOOK_FLOW_SLOTS_MAX;

	if (s->abi == NULL)
		return hook_refuse(k, -EPROTO,
				   "no " LS_HOOK_ABI_SECTION " section: declare the hook's ABI with "
				   "LS_HOOK_DECLARE() from dataplane/hook_abi.h");
	if (s->abi_sh.sh_type != SHT_PROGBITS || s->abi_sh.sh_size != sizeof(*note))
		return hook_refuse(k, -EPROTO, LS_HOOK_ABI_SECTION " is %llu bytes, expected %zu",
				   (unsigned long long)s->abi_sh.sh_size, sizeof(*note));
	memcpy(note, image + s->abi_sh.sh_offset, sizeof(*note));
	if (note->magic != LS_HOOK_ABI_MAGIC)
		return hook_refuse(k, -EPROTO, LS_HOOK_ABI_SECTION " has the wrong magic 0x%08x",
				   note->magic);
	if (note->abi_version != LS_HOOK_ABI_VERSION)
		return hook_refuse(k, -EPROTO,
				   "built for hook ABI version %u, the gateway runs version %u: "
				   "rebuild it against this dataplane/hook_abi.h",
				   note->abi_version, LS_HOOK_ABI_VERSION);
	if (note->ctx_size != sizeof(struct ls_hook_ctx))
		return hook_refuse(k, -EPROTO,
				   "built with a %u-byte hook context, the gateway's is %zu bytes: "
				   "rebuild it against this dataplane/hook_abi.h",
				   note->ctx_size, sizeof(struct ls_hook_ctx));
	if (note->flow_slots > slots_max || (note->flow_slots & (note->flow_slots - 1)) != 0)
		return hook_refuse(k, -EPROTO,
				   "declares %u flow slots: a power of two up to %u is needed",
				   note->flow_slots, slots_max);
	if (note->flow_slots > 0 && note->flow_rec_size != sizeof(struct ls_hook_flow_rec))
		return hook_refuse(k, -EPROTO,
				   "built with %u-byte flow records, the gateway's are %zu bytes",
				   note->flow_rec_size, sizeof(struct ls_hook_flow_rec));
	if (note->counters > LS_HOOK_COUNTERS_MAX)
		return hook_refuse(k, -EPROTO, "declares %u counters, at most %u are offered",
				   note->counters, LS_HOOK_COUNTERS_MAX);
	return 0;
}

static const char *
hook_scn_name(Elf *elf, size_t shstrndx, size_t idx)
{
	Elf_Scn *scn = elf_getscn(elf, idx);
	GElf_Shdr sh;
	const char *n;

	if (scn == NULL || gelf_getshdr(scn, &sh) == NULL)
		return "?";
	n = elf_strptr(elf, shstrndx, sh.sh_name);
	return n != NULL ? n : "?";
}

/*
 * The relocations of the code section: each must bind an external variable
 * the ABI offers and the object declares. Marks relocated instructions.
 */
static int
hook_check_relocs(const struct hook_chk *k, Elf *elf, size_t shstrndx, const struct hook_scns *s,
		  const struct ebpf_insn *ins, uint32_t n_insns, uint8_t *relocated,
		  struct hook_object *info)
{
	Elf_Scn *scn = NULL;
	Elf_Data *symdata = NULL;
	size_t n_syms = 0;

	if (s->symtab != NULL) {
		symdata = elf_getdata(s->symtab, NULL);
		if (symdata == NULL)
			return hook_refuse(k, -ENOEXEC, "unreadable symbol table: %s",
					   elf_errmsg(-1));
		n_syms = symdata->d_size / sizeof(Elf64_Sym);
	}
	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		GElf_Shdr sh;
		Elf_Data *d;
		size_t i, n;

		if (gelf_getshdr(scn, &sh) == NULL || sh.sh_info != s->code_idx)
			continue;
		if (sh.sh_type == SHT_RELA)
			return hook_refuse(k, -ENOEXEC,
					   "RELA relocations: rte_bpf 22.11 reads REL only");
		if (sh.sh_type != SHT_REL)
			continue;
		if (symdata == NULL || sh.sh_link != s->symtab_idx)
			return hook_refuse(k, -ENOEXEC, "relocations without the symbol table");
		/*
		 * rte_bpf 22.11 looks relocated symbols' names up in the
		 * section name table; clang writes one table for both.
		 */
		if (s->symtab_sh.sh_link != shstrndx)
			return hook_refuse(k, -ENOEXEC,
					   "symbol names and section names in different string "
					   "tables, which rte_bpf 22.11 cannot read: build it with clang");
		d = elf_getdata(scn, NULL);
		if (d == NULL)
			return hook_refuse(k, -ENOEXEC, "unreadable relocations: %s", elf_errmsg(-1));
		n = d->d_size / sizeof(Elf64_Rel);
		for (i = 0; i < n; i++) {
			GElf_Rel rel;
			GElf_Sym sym;
			const char *sn;
			uint64_t at;
			size_t si;
			unsigned int x;

			if (gelf_getrel(d, (int)i, &rel) == NULL)
				return hook_refuse(k, -ENOEXEC, "unreadable relocation %zu", i);
			at = rel.r_offset / sizeof(struct ebpf_insn);
			if (rel.r_offset % sizeof(struct ebpf_insn) != 0 || at >= n_insns)
				return hook_refuse(k, -ENOEXEC,
						   "relocation %zu at byte %llu, not an instruction", i,
						   (unsigned long long)rel.r_offset);
			si = GELF_R_SYM(rel.r_info);
			if (si == 0 || si >= n_syms || gelf_getsym(symdata, (int)si, &sym) == NULL)
				return hook_refuse(k, -ENOEXEC,
						   "relocation at instruction %llu names symbol %zu of %zu",
						   (unsigned long long)at, si, n_syms);
			if (GELF_ST_TYPE(sym.st_info) == STT_SECTION && sym.st_shndx < SHN_LORESERVE)
				sn = hook_scn_name(elf, shstrndx, sym.st_shndx);
			else
				sn = elf_strptr(elf, s->symtab_sh.sh_link, sym.st_name);
			if (sn == NULL)
				sn = "?";
			if (ins[at].code == (BPF_JMP | EBPF_CALL)) {
				if (sym.st_shndx != SHN_UNDEF)
					return hook_refuse(k, -ENOTSUP,
							   "call to function '%s' at instruction %llu "
							   "(a BPF-to-BPF call, which rte_bpf 22.11 "
							   "cannot run): make it static inline "
							   "__attribute__((always_inline))",
							   sn, (unsigned long long)at);
				return hook_refuse(k, -ENOTSUP,
						   "call to external function '%s' at instruction %llu: "
						   "hook ABI version %u offers no functions",
						   sn, (unsigned long long)at, LS_HOOK_ABI_VERSION);
			}
			if (ins[at].code != (BPF_LD | BPF_IMM | EBPF_DW) || at + 1 >= n_insns)
				return hook_refuse(k, -ENOEXEC,
						   "relocation against '%s' at instruction %llu (code "
						   "0x%02x), neither a call nor a 64-bit load",
						   sn, (unsigned long long)at, ins[at].code);
			if (sym.st_shndx != SHN_UNDEF)
				return hook_refuse(k, -ENOTSUP,
						   "instruction %llu refers to data in section '%s' "
						   "(static or global data, or a string literal): "
						   "rte_bpf 22.11 loads the code section only",
						   (unsigned long long)at,
						   sym.st_shndx < SHN_LORESERVE
							   ? hook_scn_name(elf, shstrndx, sym.st_shndx)
							   : "?");
			for (x = 0; x < HOOK_XSYM_MAX; x++)
				if (strcmp(sn, hook_xsym_names[x]) == 0)
					break;
			if (x == HOOK_XSYM_MAX)
				return hook_refuse(k, -ENOTSUP,
						   "external symbol '%s' at instruction %llu is not "
						   "offered by hook ABI version %u (it offers "
						   LS_HOOK_XSYM_FLOWS ", " LS_HOOK_XSYM_COUNTERS ")",
						   sn, (unsigned long long)at, LS_HOOK_ABI_VERSION);
			if (x == HOOK_XSYM_FLOWS && info->abi.flow_slots == 0)
				return hook_refuse(k, -ENOTSUP,
						   "uses " LS_HOOK_XSYM_FLOWS
						   " but declares no flow slots (LS_HOOK_DECLARE)");
			if (x == HOOK_XSYM_COUNTERS && info->abi.counters == 0)
				return hook_refuse(k, -ENOTSUP,
						   "uses " LS_HOOK_XSYM_COUNTERS
						   " but declares no counters (LS_HOOK_DECLARE)");
			if (x == HOOK_XSYM_FLOWS)
				info->uses_flows = true;
			else
				info->uses_counters = true;
			relocated[at] = 1;
		}
	}
	return 0;
}

/*
 * The instructions themselves: what rte_bpf 22.11 would run wrongly or
 * refuse without a reason. (Its verifier checks memory access, registers
 * and reachability next.)
 */
static int
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
static int
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
static int
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

int
hook_object_check(const uint8_t *image, size_t size, const char *name, const char *section,
		  const struct hook_load_limits *lim, struct hook_object *info, char *err,
		  size_t err_size)
{
	const struct hook_chk k = { name, section, err, err_size };
	uint32_t max_insns = lim != NULL && lim->max_insns > 0 ? lim->max_insns :
								  HOOK_LOAD_MAX_INSNS_DEFAULT;
	struct ebpf_insn *ins = NULL;
	uint8_t *relocated = NULL;
	struct hook_scns s;
	Elf64_Ehdr eh;
	Elf *elf = NULL;
	uint32_t n;
	int rc;

	info->section[0] = '\0';
	memset(&info->abi, 0, sizeof(info->abi));
	info->n_insns = 0;
	info->uses_flows = info->uses_counters = false;
	if (strlen(section) >= sizeof(info->section))
		return hook_refuse(&k, -ENAMETOOLONG, "section name longer than %zu bytes",
				   sizeof(info->section) - 1);
	rc = hook_check_layout(&k, image, size, &eh);
	if (rc < 0)
		return rc;
	if (elf_version(EV_CURRENT) == EV_NONE)
		return hook_refuse(&k, -ENOTSUP, "libelf: %s", elf_errmsg(-1));
	/* elf_memory() takes char * but only reads in ELF_C_READ mode. */
	elf = elf_memory((char *)(uintptr_t)image, size);
	if (elf == NULL || elf_kind(elf) != ELF_K_ELF) {
		rc = hook_refuse(&k, -ENOEXEC, "not an ELF object: %s", elf_errmsg(-1));
		goto out_elf;
	}
	rc = hook_find_sections(&k, elf, eh.e_shstrndx, &s);
	if (rc < 0)
		goto out_elf;
	if (s.code_sh.sh_size % sizeof(struct ebpf_insn) != 0) {
		rc = hook_refuse(&k, -ENOEXEC, "%llu bytes, not a whole number of instructions",
				 (unsigned long long)s.code_sh.sh_size);
		goto out_elf;
	}
	if (s.code_sh.sh_size / sizeof(struct ebpf_insn) > max_insns) {
		rc = hook_refuse(&k, -E2BIG, "program too large: %llu instructions, the limit is %u",
				 (unsigned long long)(s.code_sh.sh_size / sizeof(struct ebpf_insn)),
				 max_insns);
		goto out_elf;
	}
	n = (uint32_t)(s.code_sh.sh_size / sizeof(struct ebpf_insn));
	rc = hook_check_abi(&k, image, &s, &info->abi);
	if (rc < 0)
		goto out_elf;
	/* A copy: image may be unaligned for 8-byte instructions. */
	ins = malloc(n * sizeof(*ins));
	relocated = calloc(n, 1);
	if (ins == NULL || relocated == NULL) {
		rc = hook_refuse(&k, -ENOMEM, "out of memory");
		goto out_mem;
	}
	memcpy(ins, image + s.code_sh.sh_offset, n * sizeof(*ins));
	rc = hook_check_relocs(&k, elf, eh.e_shstrndx, &s, ins, n, relocated, info);
	if (rc < 0)
		goto out_mem;
	rc = hook_check_insns(&k, ins, n, relocated);
	if (rc < 0)
		goto out_mem;
	rc = hook_check_loops(&k, ins, n);
	if (rc < 0)
		goto out_mem;
	rc = hook_check_ctx_stores(&k, ins, n);
	if (rc < 0)
		goto out_mem;
	snprintf(info->section, sizeof(info->section), "%s", section);
	info->n_insns = n;
out_mem:
	free(relocated);
	free(ins);
out_elf:
	elf_end(elf);
	return rc;
}

int
hook_object_open(const char *path, const char *section, const struct hook_load_limits *lim,
		 struct hook_object **out, char *err, size_t err_size)
{
	const struct hook_chk k = { path, section, err, err_size };
	struct hook_object *o;
	struct stat st;
	ssize_t got;
	size_t done = 0;
	int fd, rc;

	*out = NULL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return hook_refuse(&k, -errno, "cannot open: %s", strerror(errno));
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		rc = hook_refuse(&k, -EINVAL, "not a regular file");
		goto out_fd;
	}
	if ((uint64_t)st.st_size > HOOK_LOAD_MAX_OBJECT_BYTES) {
		rc = hook_refuse(&k, -EFBIG, "%lld bytes, larger than the %u-byte limit",
				 (long long)st.st_size, HOOK_LOAD_MAX_OBJECT_BYTES);
		goto out_fd;
	}
	o = calloc(1, sizeof(*o));
	if (o == NULL || (o->name = strdup(path)) == NULL ||
	    (o->image = malloc((size_t)st.st_size + 1)) == NULL) {
		rc = hook_refuse(&k, -ENOMEM, "out of memory");
		goto out_obj;
	}
	while (done < (size_t)st.st_size) {
		got = read(fd, o->image + done, (size_t)st.st_size - done);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			break;
		done += (size_t)got;
	}
	if (done != (size_t)st.st_size) {
		rc = hook_refuse(&k, -EIO, "short read: %zu of %lld bytes", done,
				 (long long)st.st_size);
		goto out_obj;
	}
	o->size = done;
	rc = hook_object_check(o->image, o->size, path, section, lim, o, err, err_size);
	if (rc < 0)
		goto out_obj;
	close(fd);
	*out = o;
	return 0;
out_obj:
	hook_object_free(o);
out_fd:
	close(fd);
	return rc;
}

void
hook_object_free(struct hook_object *o)
{
	if (o == NULL)
		return;
	free(o->image);
	free(o->name);
	free(o);
}

/*
 * rte_bpf logs why it refuses (verifier, ELF, JIT) through rte_log; for the
 * refusal message the log stream is pointed at a memory buffer for the call.
 * Other control-plane threads logging meanwhile would land there too and be
 * lost: only the control thread loads, and it does so rarely.
 */
struct hook_logcap {
	FILE *prev, *mem;
	char *text;
	size_t len;
};

static void
hook_logcap_begin(struct hook_logcap *c)
{
	memset(c, 0, sizeof(*c));
	c->prev = rte_log_get_stream();
	c->mem = open_memstream(&c->text, &c->len);
	if (c->mem != NULL)
		rte_openlog_stream(c->mem);
}

/* The first line rte_bpf logged that is not about success, or "". */
static const char *
hook_logcap_end(struct hook_logcap *c)
{
	char *nl;

	if (c->mem == NULL)
		return "";
	rte_openlog_stream(c->prev == stderr ? NULL : c->prev);
	fclose(c->mem);
	c->mem = NULL;
	if (c->text == NULL)
		return "";
	nl = strchr(c->text, '\n');
	if (nl != NULL)
		*nl = '\0';
	return c->text;
}

static void
hook_logcap_free(struct hook_logcap *c)
{
	free(c->text);
	c->text = NULL;
}

int
hook_prog_load(const struct hook_object *o, const struct hook_bind *bind, struct hook_prog *p,
	       char *err, size_t err_size)
{
	const struct hook_chk k = { o->name, o->section, err, err_size };
	struct rte_bpf_xsym xsym[HOOK_XSYM_MAX];
	size_t flows_bytes = (size_t)o->abi.flow_slots * sizeof(struct ls_hook_flow_rec);
	size_t counters_bytes = (size_t)o->abi.counters * sizeof(uint64_t);
	struct rte_bpf_prm prm;
	struct rte_bpf_jit jit;
	struct hook_logcap cap;
	char path[64];
	uint32_t nx = 0;
	int fd, rc, e;

	memset(p, 0, sizeof(*p));
	memset(xsym, 0, sizeof(xsym));
	if (o->abi.flow_slots > 0) {
		if (bind->flows == NULL || bind->flows_bytes < flows_bytes)
			return hook_refuse(&k, -EINVAL, "needs %zu bytes of flow records, bound %zu",
					   flows_bytes, bind->flows == NULL ? 0 : bind->flows_bytes);
		xsym[nx].name = LS_HOOK_XSYM_FLOWS;
		xsym[nx].type = RTE_BPF_XTYPE_VAR;
		xsym[nx].var.val = bind->flows;
		xsym[nx].var.desc.type = RTE_BPF_ARG_PTR;
		xsym[nx].var.desc.size = flows_bytes;
		nx++;
	}
	if (o->abi.counters > 0) {
		if (bind->counters == NULL || bind->counters_bytes < counters_bytes)
			return hook_refuse(&k, -EINVAL, "needs %zu bytes of counters, bound %zu",
					   counters_bytes,
					   bind->counters == NULL ? 0 : bind->counters_bytes);
		xsym[nx].name = LS_HOOK_XSYM_COUNTERS;
		xsym[nx].type = RTE_BPF_XTYPE_VAR;
		xsym[nx].var.val = bind->counters;
		xsym[nx].var.desc.type = RTE_BPF_ARG_PTR;
		xsym[nx].var.desc.size = counters_bytes;
		nx++;
	}
	memset(&prm, 0, sizeof(prm));
	prm.xsym = xsym;
	prm.nb_xsym = nx;
	prm.prog_arg.type = RTE_BPF_ARG_PTR;
	prm.prog_arg.size = sizeof(struct ls_hook_ctx);

	/* rte_bpf_elf_load() takes a path: give it the checked bytes. */
	fd = memfd_create("longspan-hook", MFD_CLOEXEC);
	if (fd < 0)
		return hook_refuse(&k, -errno, "memfd_create: %s", strerror(errno));
	if (write(fd, o->image, o->size) != (ssize_t)o->size) {
		rc = hook_refuse(&k, -EIO, "cannot copy the object to a memfd");
		goto out_fd;
	}
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);

	hook_logcap_begin(&cap);
	p->bpf = rte_bpf_elf_load(&prm, path, o->section);
	e = rte_errno;
	{
		const char *why = hook_logcap_end(&cap);

		if (p->bpf == NULL) {
			rc = hook_refuse(&k, -(e != 0 ? e : EINVAL),
					 "rte_bpf refused it (rte_errno %d: %s): %s", e,
					 rte_strerror(e), why[0] != '\0' ? why : "no reason logged");
			hook_logcap_free(&cap);
			goto out_fd;
		}
	}
	hook_logcap_free(&cap);
	if (rte_bpf_get_jit(p->bpf, &jit) != 0 || jit.func == NULL) {
		rc = hook_refuse(&k, -ENOTSUP,
				 "rte_bpf could not JIT-compile it (x86-64 and arm64 only); the "
				 "interpreter is an order of magnitude slower and not used");
		rte_bpf_destroy(p->bpf);
		p->bpf = NULL;
		goto out_fd;
	}
	p->func = jit.func;
	p->jit_bytes = jit.sz;
	rc = 0;
out_fd:
	close(fd);
	return rc;
}

void
hook_prog_unload(struct hook_prog *p)
{
	if (p->bpf != NULL)
		rte_bpf_destroy(p->bpf);
	memset(p, 0, sizeof(*p));
}
