/* SPDX-License-Identifier: BSD-3-Clause */
#include "hook_load.h"
#include "hook_insns.h"

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

int
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
