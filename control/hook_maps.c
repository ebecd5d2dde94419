/* SPDX-License-Identifier: BSD-3-Clause */
#include "hook_maps.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <linux/magic.h>

#define HOOK_MAPS_BATCH 256u /* records per BPF_MAP_*_BATCH call */

static int hook_maps_fail(char *err, size_t err_size, int rc, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int
hook_maps_fail(char *err, size_t err_size, int rc, const char *fmt, ...)
{
	va_list ap;

	if (err != NULL && err_size > 0) {
		va_start(ap, fmt);
		vsnprintf(err, err_size, fmt, ap);
		va_end(ap);
	}
	return rc;
}

/* A struct for BTF: each field's name, offset, size and element size. */
struct hook_btf_field {
	const char *name;
	uint32_t offset, size, elem_size;
};

struct hook_btf_struct {
	const char *name;
	uint32_t size;
	const struct hook_btf_field *fields;
	unsigned int n_fields;
};

#define HOOK_BTF_FIELD(type, fname, dim, desc)                                                    \
	{ #fname, offsetof(HOOK_BTF_TYPE, fname), sizeof(((HOOK_BTF_TYPE *)0)->fname),            \
	  sizeof(type) },

#define HOOK_BTF_TYPE struct ls_hook_flow_rec
static const struct hook_btf_field hook_btf_rec_fields[] = {
	LS_HOOK_FLOW_FIELDS(HOOK_BTF_FIELD)
};
#undef HOOK_BTF_TYPE
#define HOOK_BTF_TYPE struct ls_hook_flow_key
static const struct hook_btf_field hook_btf_key_fields[] = {
	LS_HOOK_KEY_FIELDS(HOOK_BTF_FIELD)
};
#undef HOOK_BTF_TYPE
#define HOOK_BTF_TYPE struct hook_flow_total
static const struct hook_btf_field hook_btf_total_fields[] = {
	HOOK_FLOW_TOTAL_FIELDS(HOOK_BTF_FIELD)
};
#undef HOOK_BTF_TYPE

#define HOOK_BTF_STRUCT(sname, fields)                                                           \
	{ #sname, sizeof(struct sname), fields, sizeof(fields) / sizeof(fields[0]) }

static const struct hook_btf_struct hook_btf_rec =
	HOOK_BTF_STRUCT(ls_hook_flow_rec, hook_btf_rec_fields);
static const struct hook_btf_struct hook_btf_key =
	HOOK_BTF_STRUCT(ls_hook_flow_key, hook_btf_key_fields);
static const struct hook_btf_struct hook_btf_total =
	HOOK_BTF_STRUCT(hook_flow_total, hook_btf_total_fields);

/* Type ids of the unsigned integers in a struct btf under construction. */
struct hook_btf_ints {
	int by_size[9]; /* by_size[n]: the n-byte unsigned integer */
};

static int
hook_btf_add_ints(struct btf *btf, struct hook_btf_ints *ints)
{
	static const struct {
		const char *name;
		size_t size;
	} t[] = { { "__u8", 1 }, { "__u16", 2 }, { "__u32", 4 }, { "__u64", 8 } };
	unsigned int i;

	memset(ints, 0, sizeof(*ints));
	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		int id = btf__add_int(btf, t[i].name, t[i].size, 0);

		if (id < 0)
			return id;
		ints->by_size[t[i].size] = id;
	}
	return 0;
}

/* Add struct S (its array types first: fields must follow their struct). */
static int
hook_btf_add_struct(struct btf *btf, const struct hook_btf_ints *ints,
		    const struct hook_btf_struct *s)
{
	int types[64], id;
	unsigned int i;

	if (s->n_fields > sizeof(types) / sizeof(types[0]))
		return -E2BIG;
	for (i = 0; i < s->n_fields; i++) {
		const struct hook_btf_field *f = &s->fields[i];
		int elem = ints->by_size[f->elem_size];

		types[i] = elem;
		if (f->size != f->elem_size) {
			types[i] = btf__add_array(btf, ints->by_size[4], elem, f->size / f->elem_size);
			if (types[i] < 0)
				return types[i];
		}
	}
	id = btf__add_struct(btf, s->name, s->size);
	if (id < 0)
		return id;
	for (i = 0; i < s->n_fields; i++) {
		int rc = btf__add_field(btf, s->fields[i].name, types[i], s->fields[i].offset * 8, 0);

		if (rc < 0)
			return rc;
	}
	return id;
}

/*
 * BTF with the key and value types of one map, loaded into the kernel.
 * key == NULL: a u32 key (an ARRAY's index); value == NULL: a u64 value.
 */
static struct btf *
hook_btf_build(const struct hook_btf_struct *key, const struct hook_btf_struct *value,
	       int *key_id, int *value_id)
{
	struct hook_btf_ints ints;
	struct btf *btf = btf__new_empty();
	int rc;

	if (btf == NULL)
		return NULL;
	rc = hook_btf_add_ints(btf, &ints);
	if (rc < 0)
		goto fail;
	*key_id = key != NULL ? hook_btf_add_struct(btf, &ints, key) : ints.by_size[4];
	*value_id = value != NULL ? hook_btf_add_struct(btf, &ints, value) : ints.by_size[8];
	if (*key_id < 0 || *value_id < 0) {
		rc = *key_id < 0 ? *key_id : *value_id;
		goto fail;
	}
	rc = btf__load_into_kernel(btf);
	if (rc < 0)
		goto fail;
	return btf;
fail:
	btf__free(btf);
	errno = -rc;
	return NULL;
}

static void
hook_map_init(struct hook_map *m)
{
	memset(m, 0, sizeof(*m));
	m->fd = -1;
}

static void
hook_map_close(struct hook_map *m)
{
	if (m->mem != NULL)
		munmap(m->mem, m->mem_bytes);
	if (m->pin[0] != '\0')
		unlink(m->pin);
	if (m->fd >= 0)
		close(m->fd);
	hook_map_init(m);
}

/*
 * Create one map with BTF (key, value as in hook_btf_build), mmap an ARRAY's
 * values, pin it as DIR/NAME. NAME is also the kernel's map name (15 bytes).
 */
static int
hook_map_create(struct hook_map *m, enum bpf_map_type type, const char *dir, const char *name,
		const struct hook_btf_struct *key, const struct hook_btf_struct *value,
		uint32_t entries, char *err, size_t err_size)
{
	uint32_t key_size = key != NULL ? key->size : sizeof(uint32_t);
	uint32_t value_size = value != NULL ? value->size : sizeof(uint64_t);
	LIBBPF_OPTS(bpf_map_create_opts, opts);
	char kname[16];
	struct btf *btf;
	int key_id, value_id, rc;

	hook_map_init(m);
	btf = hook_btf_build(key, value, &key_id, &value_id);
	if (btf == NULL)
		return hook_maps_fail(err, err_size, -errno, "%s/%s: BTF: %s", dir, name,
				      strerror(errno));
	opts.btf_fd = (uint32_t)btf__fd(btf);
	opts.btf_key_type_id = (uint32_t)key_id;
	opts.btf_value_type_id = (uint32_t)value_id;
	if (type == BPF_MAP_TYPE_ARRAY)
		opts.map_flags = BPF_F_MMAPABLE;
	snprintf(kname, sizeof(kname), "%s", name);
	m->fd = bpf_map_create(type, kname, key_size, value_size, entries, &opts);
	rc = m->fd < 0 ? -errno : 0;
	btf__free(btf); /* the map holds its own reference to the kernel's BTF */
	if (rc < 0)
		return hook_maps_fail(err, err_size, rc, "%s/%s: bpf_map_create: %s", dir, name,
				      strerror(-rc));
	m->entries = entries;
	m->value_size = value_size;
	if (type == BPF_MAP_TYPE_ARRAY) {
		long page = sysconf(_SC_PAGESIZE);
		size_t bytes = (size_t)entries * value_size;

		m->mem_bytes = (bytes + (size_t)page - 1) / (size_t)page * (size_t)page;
		m->mem = mmap(NULL, m->mem_bytes, PROT_READ | PROT_WRITE, MAP_SHARED, m->fd, 0);
		if (m->mem == MAP_FAILED) {
			rc = -errno;
			m->mem = NULL;
			hook_map_close(m);
			return hook_maps_fail(err, err_size, rc, "%s/%s: mmap: %s", dir, name,
					      strerror(-rc));
		}
	}
	if ((size_t)snprintf(m->pin, sizeof(m->pin), "%s/%s", dir, name) >= sizeof(m->pin)) {
		m->pin[0] = '\0';
		hook_map_close(m);
		return hook_maps_fail(err, err_size, -ENAMETOOLONG, "%s/%s: path too long", dir,
				      name);
	}
	unlink(m->pin); /* a pin left by a gateway that did not exit cleanly */
	if (bpf_obj_pin(m->fd, m->pin) != 0) {
		rc = -errno;
		m->pin[0] = '\0';
		hook_map_close(m);
		return hook_maps_fail(err, err_size, rc, "%s/%s: pin: %s", dir, name,
				      strerror(-rc));
	}
	return 0;
}

int
hook_maps_default_dir(char *out, size_t out_size, const char *gateway, const char *hook)
{
	size_t base = strlen(HOOK_MAPS_BPFFS "/longspan/"), i;
	int n = snprintf(out, out_size, "%s/longspan/%s/%s", HOOK_MAPS_BPFFS, gateway, hook);

	if (n < 0 || (size_t)n >= out_size)
		return -ENAMETOOLONG;
	/* bpffs refuses names with a '.' (EPERM), which gateway names may have. */
	for (i = base; out[i] != '\0'; i++)
		if (out[i] == '.')
			out[i] = '_';
	return 0;
}

int
hook_maps_bpffs_ensure(const char *mnt, char *err, size_t err_size)
{
	struct statfs st;

	if (statfs(mnt, &st) == 0 && st.f_type == BPF_FS_MAGIC)
		return 0;
	if (mount("bpffs", mnt, "bpf", 0, "mode=0700") != 0)
		return hook_maps_fail(err, err_size, -errno, "mount bpffs on %s: %s", mnt,
				      strerror(errno));
	return 1;
}

/* mkdir -p DIR (mode 0700), remembering what was made for hook_maps_destroy(). */
static int
hook_maps_mkdirs(struct hook_maps *m, const char *dir, char *err, size_t err_size)
{
	char path[HOOK_MAPS_PATH_MAX];
	size_t i, len = strlen(dir);

	if (len == 0 || len >= sizeof(path))
		return hook_maps_fail(err, err_size, -ENAMETOOLONG, "pin directory '%s'", dir);
	memcpy(path, dir, len + 1);
	for (i = 1; i <= len; i++) {
		if (path[i] != '/' && path[i] != '\0')
			continue;
		path[i] = '\0';
		if (mkdir(path, 0700) == 0) {
			if (m->n_made < sizeof(m->made) / sizeof(m->made[0]))
				snprintf(m->made[m->n_made++], sizeof(m->made[0]), "%s", path);
		} else if (errno != EEXIST) {
			return hook_maps_fail(err, err_size, -errno, "mkdir %s: %s", path,
					      strerror(errno));
		}
		path[i] = dir[i];
	}
	return 0;
}

static bool
hook_maps_under_bpffs(const char *dir)
{
	size_t n = strlen(HOOK_MAPS_BPFFS);

	return strncmp(dir, HOOK_MAPS_BPFFS, n) == 0 && (dir[n] == '/' || dir[n] == '\0');
}

int
hook_maps_create(struct hook_maps *m, const struct hook_maps_params *p, char *err,
		 size_t err_size)
{
	unsigned int i;
	char name[32];
	int rc;

	memset(m, 0, sizeof(*m));
	hook_map_init(&m->totals);
	for (i = 0; i < HOOK_MAPS_LCORES_MAX; i++) {
		hook_map_init(&m->flows[i]);
		hook_map_init(&m->counters[i]);
	}
	if (p->n_lcores == 0 || p->n_lcores > HOOK_MAPS_LCORES_MAX)
		return hook_maps_fail(err, err_size, -EINVAL, "%u lcores (1 to %u)", p->n_lcores,
				      HOOK_MAPS_LCORES_MAX);
	if ((size_t)snprintf(m->dir, sizeof(m->dir), "%s", p->dir) >= sizeof(m->dir))
		return hook_maps_fail(err, err_size, -ENAMETOOLONG, "pin directory too long");
	if (hook_maps_under_bpffs(m->dir)) {
		rc = hook_maps_bpffs_ensure(HOOK_MAPS_BPFFS, err, err_size);
		if (rc < 0)
			return rc;
	}
	rc = hook_maps_mkdirs(m, m->dir, err, err_size);
	if (rc < 0)
		goto fail;
	m->n_lcores = p->n_lcores;
	memcpy(m->lcores, p->lcores, sizeof(m->lcores));
	for (i = 0; i < p->n_lcores; i++) {
		if (p->flow_slots > 0) {
			snprintf(name, sizeof(name), "flows_lcore%u", p->lcores[i]);
			rc = hook_map_create(&m->flows[i], BPF_MAP_TYPE_ARRAY, m->dir, name, NULL,
					     &hook_btf_rec, p->flow_slots, err, err_size);
			if (rc < 0)
				goto fail;
		}
		if (p->counters > 0) {
			snprintf(name, sizeof(name), "counters_lcore%u", p->lcores[i]);
			rc = hook_map_create(&m->counters[i], BPF_MAP_TYPE_ARRAY, m->dir, name,
					     NULL, NULL, p->counters, err, err_size);
			if (rc < 0)
				goto fail;
		}
	}
	if (p->flow_slots > 0) {
		rc = hook_map_create(&m->totals, BPF_MAP_TYPE_HASH, m->dir, "flows", &hook_btf_key,
				     &hook_btf_total, p->totals_max > 0 ? p->totals_max : 1, err,
				     err_size);
		if (rc < 0)
			goto fail;
	}
	return 0;
fail:
	hook_maps_destroy(m);
	return rc;
}

void
hook_maps_destroy(struct hook_maps *m)
{
	unsigned int i;

	for (i = 0; i < HOOK_MAPS_LCORES_MAX; i++) {
		hook_map_close(&m->flows[i]);
		hook_map_close(&m->counters[i]);
	}
	hook_map_close(&m->totals);
	/* Deepest first; a directory someone else put things in stays. */
	while (m->n_made > 0)
		rmdir(m->made[--m->n_made]);
	m->n_lcores = 0;
}

int
hook_maps_totals_update(struct hook_maps *m, const struct ls_hook_flow_key *keys,
			const struct hook_flow_total *values, uint32_t n)
{
	LIBBPF_OPTS(bpf_map_batch_opts, opts, .elem_flags = BPF_ANY);
	uint32_t done = 0;

	if (m->totals.fd < 0)
		return -EBADF;
	while (done < n) {
		uint32_t count = n - done < HOOK_MAPS_BATCH ? n - done : HOOK_MAPS_BATCH;

		if (bpf_map_update_batch(m->totals.fd, keys + done, values + done, &count, &opts) !=
		    0)
			return -errno;
		done += count;
	}
	return 0;
}

int
hook_maps_totals_delete(struct hook_maps *m, const struct ls_hook_flow_key *keys, uint32_t n)
{
	LIBBPF_OPTS(bpf_map_batch_opts, opts);
	uint32_t done = 0;

	if (m->totals.fd < 0)
		return -EBADF;
	while (done < n) {
		uint32_t count = n - done < HOOK_MAPS_BATCH ? n - done : HOOK_MAPS_BATCH;

		if (bpf_map_delete_batch(m->totals.fd, keys + done, &count, &opts) != 0) {
			if (errno != ENOENT)
				return -errno;
			count++; /* the batch stopped at an absent key: skip it */
		}
		done += count;
	}
	return 0;
}
