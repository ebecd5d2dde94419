/* SPDX-License-Identifier: BSD-3-Clause */
#include "p4_pipeline.h"

#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <rte_errno.h>
#include <rte_mbuf.h>
#include <rte_ring.h>
#include <rte_swx_ctl.h>
#include <rte_swx_pipeline.h>
#include <rte_version.h>

#include "control/config.h"
#include "control/p4_tables.h"
#include "dataplane/dp_conf.h"
#include "dataplane/p4_stage.h"

#ifndef LS_P4_SPEC_DEFAULT
#error "LS_P4_SPEC_DEFAULT: path of dataplane/p4/longspan.spec"
#endif

/* A spec larger than this is not a pipeline spec (longspan.spec: 30 KiB). */
#define P4_SPEC_MAX_BYTES (4u << 20)
/* Ring size per pipeline port: four bursts of the largest size. */
#define P4_RING_SIZE (4 * DP_MAX_BURST)
/* Packets the ring ports move per read and write. */
#define P4_PORT_BURST 32

struct p4_set {
	unsigned int n_workers;
	unsigned int id; /* unique in the process: names rings and pipelines */
	uint64_t spec_hash;
	size_t spec_size;
	char so_path[PATH_MAX]; /* the compiled spec this set was loaded from */
	struct dp_p4 w[DP_MAX_WORKERS];
	struct rte_swx_ctl_pipeline *ctl[DP_MAX_WORKERS];
};

/* Generated files of this process: one directory, removed at exit. */
static char p4_dir[PATH_MAX];
static unsigned int p4_next_id;

const char *
p4_spec_default(void)
{
	return LS_P4_SPEC_DEFAULT;
}

/* lib/pipeline of the installed DPDK's sources (scripts/dpdk-pipeline-src.sh), or NULL. */
static const char *
p4_dpdk_src(char *buf, size_t size)
{
	const char *env = getenv("LS_DPDK_SRC");
	char hdr[PATH_MAX + 64];
	struct stat st;

	if (env != NULL && env[0] != '\0')
		snprintf(buf, size, "%s", env);
	else
		snprintf(buf, size, "/var/cache/longspan/dpdk-%d.%02d.%d", RTE_VER_YEAR,
			 RTE_VER_MONTH, RTE_VER_MINOR);
	snprintf(hdr, sizeof(hdr), "%s/lib/pipeline/rte_swx_pipeline_internal.h", buf);
	return stat(hdr, &st) == 0 ? buf : NULL;
}

/* FNV-1a over the spec file, which must be a regular file of sane size. */
static int
p4_spec_hash(const char *path, uint64_t *hash, size_t *size, FILE *err)
{
	struct stat st;
	uint64_t h = 0xcbf29ce484222325ull;
	size_t n = 0;
	FILE *f;
	int ch;

	if (stat(path, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size > P4_SPEC_MAX_BYTES) {
		fprintf(err, "p4: spec %s: %s\n", path,
			errno != 0 && !S_ISREG(st.st_mode) ? strerror(errno) :
							      "not a regular file of at most 4 MiB");
		return -EINVAL;
	}
	f = fopen(path, "r");
	if (f == NULL) {
		fprintf(err, "p4: spec %s: %s\n", path, strerror(errno));
		return -errno;
	}
	while ((ch = fgetc(f)) != EOF && n <= P4_SPEC_MAX_BYTES) {
		h = (h ^ (uint8_t)ch) * 0x100000001b3ull;
		n++;
	}
	fclose(f);
	*hash = h;
	*size = n;
	return 0;
}

/* The spec through codegen and gcc into so_path. */
static int
p4_compile(const char *spec_path, unsigned int id, char *so_path, size_t so_size, FILE *err)
{
	char src[PATH_MAX], c_path[PATH_MAX + 16], cmd[4 * PATH_MAX];
	const char *opt = getenv("LS_SWX_OPT"), *msg = NULL;
	uint32_t line = 0;
	FILE *spec, *code;
	int status;

	if (p4_dpdk_src(src, sizeof(src)) == NULL) {
		fprintf(err, "p4: no DPDK pipeline sources at %s (run scripts/dpdk-pipeline-src.sh "
			     "or set LS_DPDK_SRC): the generated C needs them\n", src);
		return -ENOENT;
	}
	if (p4_dir[0] == '\0') {
		const char *t = getenv("TMPDIR");

		snprintf(p4_dir, sizeof(p4_dir), "%.200s/longspan-p4.%d", t != NULL ? t : "/tmp",
			 (int)getpid());
		if (mkdir(p4_dir, 0700) != 0 && errno != EEXIST) {
			fprintf(err, "p4: %s: %s\n", p4_dir, strerror(errno));
			p4_dir[0] = '\0';
			return -errno;
		}
	}
	snprintf(c_path, sizeof(c_path), "%s/gen%u.c", p4_dir, id);
	snprintf(so_path, so_size, "%s/gen%u.so", p4_dir, id);
	spec = fopen(spec_path, "r");
	if (spec == NULL) {
		fprintf(err, "p4: spec %s: %s\n", spec_path, strerror(errno));
		return -errno;
	}
	code = fopen(c_path, "w");
	if (code == NULL) {
		fprintf(err, "p4: %s: %s\n", c_path, strerror(errno));
		fclose(spec);
		return -errno;
	}
	status = rte_swx_pipeline_codegen(spec, code, &line, &msg);
	fclose(spec);
	fclose(code);
	if (status != 0) {
		fprintf(err, "p4: %s:%u: the spec does not build: %s (%s)\n", spec_path, line,
			msg != NULL ? msg : "codegen failed", strerror(-status));
		return status;
	}
	/* -O2 unless told (-O0 .. -O3), as the tests' LS_SWX_OPT. */
	if (opt == NULL || strlen(opt) != 3 || strncmp(opt, "-O", 2) != 0 || opt[2] < '0' ||
	    opt[2] > '3')
		opt = "-O2";
	snprintf(cmd, sizeof(cmd),
		 "gcc %s -fpic -shared -w -DALLOW_EXPERIMENTAL_API -I '%s/lib/pipeline' "
		 "$(pkg-config --cflags libdpdk) -o '%s' '%s'",
		 opt, src, so_path, c_path);
	status = system(cmd);
	if (status != 0) {
		fprintf(err, "p4: %s: gcc could not compile the generated %s (status %d)\n",
			spec_path, c_path, WIFEXITED(status) ? WEXITSTATUS(status) : status);
		return -EIO;
	}
	return 0;
}

/* One worker's pipeline from the compiled spec: 8 ring input ports, one ring output. */
static int
p4_worker_load(struct p4_set *s, unsigned int w, int numa, FILE *err)
{
	struct dp_p4 *p = &s->w[w];
	char io_path[PATH_MAX + 32], name[RTE_RING_NAMESIZE], pl_name[32];
	unsigned int i;
	FILE *io;
	int rc;

	snprintf(io_path, sizeof(io_path), "%s/set%u.w%u.io", p4_dir, s->id, w);
	io = fopen(io_path, "w");
	if (io == NULL) {
		fprintf(err, "p4: %s: %s\n", io_path, strerror(errno));
		return -errno;
	}
	for (i = 0; i <= DP_P4_PORTS_IN; i++) {
		struct rte_ring *r;

		if (i < DP_P4_PORTS_IN)
			snprintf(name, sizeof(name), "lsp4_%u_%u_i%u", s->id, w, i);
		else
			snprintf(name, sizeof(name), "lsp4_%u_%u_o", s->id, w);
		r = rte_ring_create(name, P4_RING_SIZE, numa, RING_F_SP_ENQ | RING_F_SC_DEQ);
		if (r == NULL) {
			fprintf(err, "p4: worker %u: ring %s: %s\n", w, name, rte_strerror(rte_errno));
			fclose(io);
			return -ENOMEM;
		}
		if (i < DP_P4_PORTS_IN) {
			p->in[i] = r;
			fprintf(io, "port in %u ring %s bsz %u\n", i, name, P4_PORT_BURST);
		} else {
			p->out = r;
			fprintf(io, "port out 0 ring %s bsz %u\n", name, P4_PORT_BURST);
		}
	}
	fclose(io);
	io = fopen(io_path, "r");
	if (io == NULL)
		return -errno;
	snprintf(pl_name, sizeof(pl_name), "lsp4_%u_%u", s->id, w);
	rc = rte_swx_pipeline_build_from_lib(&p->pl, pl_name, s->so_path, io, numa);
	fclose(io);
	unlink(io_path);
	if (rc != 0) {
		fprintf(err, "p4: worker %u: the compiled spec does not load: %s\n", w,
			strerror(-rc));
		p->pl = NULL;
		return rc;
	}
	s->ctl[w] = rte_swx_ctl_pipeline_create(p->pl);
	if (s->ctl[w] == NULL) {
		fprintf(err, "p4: worker %u: no control handle for the pipeline\n", w);
		return -ENOMEM;
	}
	/* The option's worker id; the C stage writes its own when it encapsulates. */
	rte_swx_ctl_pipeline_regarray_write(p->pl, "worker_id", 0, w);
	return 0;
}

int
p4_set_build(const struct ls_config *cfg, const struct dp_conf *dp,
	     const struct runtime_learned *learned, unsigned int n_workers, const int *numa_node,
	     const struct p4_set *prev, struct p4_set **out, FILE *err)
{
	const char *spec = cfg->gw.p4_spec[0] != '\0' ? cfg->gw.p4_spec : p4_spec_default();
	struct p4_set *s;
	unsigned int w;
	int rc;

	if (n_workers > DP_MAX_WORKERS)
		return -EINVAL;
	s = calloc(1, sizeof(*s));
	if (s == NULL)
		return -ENOMEM;
	s->n_workers = n_workers;
	s->id = p4_next_id++;
	rc = p4_spec_hash(spec, &s->spec_hash, &s->spec_size, err);
	if (rc != 0)
		goto fail;
	if (prev != NULL && prev->spec_hash == s->spec_hash && prev->spec_size == s->spec_size)
		snprintf(s->so_path, sizeof(s->so_path), "%s", prev->so_path);
	else if ((rc = p4_compile(spec, s->id, s->so_path, sizeof(s->so_path), err)) != 0)
		goto fail;
	for (w = 0; w < n_workers; w++) {
		char msg[512] = "";

		rc = p4_worker_load(s, w, numa_node != NULL ? numa_node[w] : SOCKET_ID_ANY, err);
		if (rc != 0)
			goto fail;
		rc = p4_tables_check(s->w[w].pl, cfg, dp, learned, msg, sizeof(msg));
		if (rc == 0)
			rc = p4_tables_load(s->ctl[w], cfg, dp, learned, msg, sizeof(msg));
		if (rc == 0)
			rc = p4_tables_flow_timeout(s->w[w].pl, cfg, msg, sizeof(msg));
		if (rc != 0) {
			fprintf(err, "%s: [gateway] pipeline = p4: %s\n", cfg->path, msg);
			goto fail;
		}
	}
	*out = s;
	return 0;
fail:
	p4_set_free(s);
	return rc != 0 ? rc : -EINVAL;
}

void
p4_set_attach(struct p4_set *s, struct dp_conf *dp)
{
	unsigned int w;

	for (w = 0; w < DP_MAX_WORKERS; w++)
		dp->p4[w] = s != NULL && w < s->n_workers ? &s->w[w] : NULL;
}

void
p4_set_free(struct p4_set *s)
{
	unsigned int w, i;

	if (s == NULL)
		return;
	for (w = 0; w < s->n_workers; w++) {
		struct dp_p4 *p = &s->w[w];
		struct rte_mbuf *m;

		rte_swx_ctl_pipeline_free(s->ctl[w]);
		rte_swx_pipeline_free(p->pl);
		for (i = 0; i < DP_P4_PORTS_IN; i++)
			rte_ring_free(p->in[i]);
		/* Nothing is left on the rings between bursts; free it if so. */
		while (p->out != NULL && rte_ring_sc_dequeue(p->out, (void **)&m) == 0)
			rte_pktmbuf_free(m);
		rte_ring_free(p->out);
	}
	free(s);
}

static int
p4_remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

void
p4_cleanup(void)
{
	if (p4_dir[0] != '\0')
		nftw(p4_dir, p4_remove_one, 8, FTW_DEPTH | FTW_PHYS);
	p4_dir[0] = '\0';
}
