/* SPDX-License-Identifier: BSD-3-Clause */
#include "ut_swx.h"

#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <rte_ring.h>
#include <rte_swx_pipeline.h>
#include <rte_version.h>

const char *
ut_swx_src_dir(void)
{
	static char dir[PATH_MAX];
	char hdr[PATH_MAX + 64];
	const char *env = getenv("LS_DPDK_SRC");
	struct stat st;

	if (env != NULL && env[0] != '\0')
		snprintf(dir, sizeof(dir), "%s", env);
	else
		snprintf(dir, sizeof(dir), "/var/cache/longspan/dpdk-%d.%02d.%d", RTE_VER_YEAR,
			 RTE_VER_MONTH, RTE_VER_MINOR);
	snprintf(hdr, sizeof(hdr), "%s/lib/pipeline/rte_swx_pipeline_internal.h", dir);
	if (stat(hdr, &st) != 0)
		return NULL;
	return dir;
}

static char dir[256];

static int
remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

void
ut_swx_cleanup(void)
{
	if (dir[0] != '\0')
		nftw(dir, remove_one, 8, FTW_DEPTH | FTW_PHYS);
}

void
ut_swx_tmp(char *buf, size_t size, const char *name)
{

	if (dir[0] == '\0') {
		const char *t = getenv("TMPDIR");

		snprintf(dir, sizeof(dir), "%.200s/ls_swx_%d", t != NULL ? t : "/tmp", (int)getpid());
		mkdir(dir, 0700);
	}
	snprintf(buf, size, "%s/%.40s", dir, name);
}

int
ut_swx_codegen(const char *spec_path, const char *c_path)
{
	FILE *spec, *code;
	uint32_t line = 0;
	const char *msg = NULL;
	int status;

	spec = fopen(spec_path, "r");
	if (spec == NULL) {
		fprintf(stderr, "%s: %s\n", spec_path, strerror(errno));
		return -errno;
	}
	code = fopen(c_path, "w");
	if (code == NULL) {
		fclose(spec);
		return -errno;
	}
	status = rte_swx_pipeline_codegen(spec, code, &line, &msg);
	fclose(spec);
	fclose(code);
	if (status != 0)
		fprintf(stderr, "%s:%u: codegen: %s (%d)\n", spec_path, line,
			msg != NULL ? msg : "?", status);
	return status;
}

int
ut_swx_count_groups(const char *c_path)
{
	char line[512];
	FILE *f = fopen(c_path, "r");
	int n = 0;

	if (f == NULL)
		return -1;
	while (fgets(line, sizeof(line), f) != NULL)
		if (strncmp(line, "pipeline_func_", 14) == 0)
			n++;
	fclose(f);
	return n;
}

int
ut_swx_compile(const char *c_path, const char *so_path)
{
	const char *src = ut_swx_src_dir();
	char cmd[4 * PATH_MAX];
	int rc;

	const char *opt = getenv("LS_SWX_OPT");

	if (src == NULL)
		return -ENOENT;
	/* -O1 unless told (-O0 .. -O3): the tests check behaviour, not speed,
	 * and -O3 of a large generated file costs the shared machine seconds
	 * per build; the benchmark asks for -O3. */
	if (opt == NULL || strlen(opt) != 3 || strncmp(opt, "-O", 2) != 0 || opt[2] < '0' ||
	    opt[2] > '3')
		opt = "-O1";
	snprintf(cmd, sizeof(cmd),
		 "gcc %s -fpic -shared -Wno-deprecated-declarations -DALLOW_EXPERIMENTAL_API "
		 "-I '%s/lib/pipeline' $(pkg-config --cflags libdpdk) -o '%s' '%s'",
		 opt, src, so_path, c_path);
	rc = system(cmd);
	return rc == 0 ? 0 : -EIO;
}

struct rte_ring *
ut_swx_ring(const char *name, int i)
{
	char rname[RTE_RING_NAMESIZE];
	struct rte_ring *r;

	if (i < 0)
		snprintf(rname, sizeof(rname), "%s_out", name);
	else
		snprintf(rname, sizeof(rname), "%s_in%d", name, i);
	r = rte_ring_lookup(rname);
	if (r == NULL)
		r = rte_ring_create(rname, 256, 0, RING_F_SP_ENQ | RING_F_SC_DEQ);
	return r;
}

int
ut_swx_load(const char *so_path, const char *name, unsigned int n_in, unsigned int bsz,
	    struct rte_swx_pipeline **p)
{
	char io_path[PATH_MAX], fname[64];
	unsigned int i;
	FILE *io;
	int status;

	snprintf(fname, sizeof(fname), "%s.io", name);
	ut_swx_tmp(io_path, sizeof(io_path), fname);
	io = fopen(io_path, "w");
	if (io == NULL)
		return -errno;
	for (i = 0; i < n_in; i++) {
		if (ut_swx_ring(name, (int)i) == NULL) {
			fclose(io);
			return -ENOMEM;
		}
		fprintf(io, "port in %u ring %s_in%u bsz %u\n", i, name, i, bsz);
	}
	if (ut_swx_ring(name, -1) == NULL) {
		fclose(io);
		return -ENOMEM;
	}
	fprintf(io, "port out 0 ring %s_out bsz %u\n", name, bsz);
	fclose(io);
	io = fopen(io_path, "r");
	if (io == NULL)
		return -errno;
	status = rte_swx_pipeline_build_from_lib(p, name, so_path, io, 0);
	fclose(io);
	return status;
}
