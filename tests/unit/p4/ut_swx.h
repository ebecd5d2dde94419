/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LONGSPAN_UT_SWX_H
#define LONGSPAN_UT_SWX_H

/*
 * DPDK 22.11's two steps from a .spec file to a running SWX pipeline, for
 * the tests: rte_swx_pipeline_codegen() (parses the spec, configures a
 * pipeline from it, translates every instruction and writes C), then that C
 * compiled into a shared object by gcc and loaded by
 * rte_swx_pipeline_build_from_lib() with an I/O spec of ring ports.
 *
 * The generated C includes two headers that DPDK keeps inside its source
 * tree (lib/pipeline/rte_swx_pipeline_internal.h and
 * rte_swx_pipeline_spec.h); Debian's libdpdk-dev does not install them.
 * ut_swx_src_dir() finds a source tree of the installed DPDK version
 * (docs/p4.md, "Running the tests"); without one the library steps are
 * skipped and say so.
 */

#include <stdint.h>
#include <stdio.h>

struct rte_swx_pipeline;
struct rte_mempool;

/* Directory holding lib/pipeline of the installed DPDK's sources, or NULL. */
const char *ut_swx_src_dir(void);

/*
 * Run rte_swx_pipeline_codegen() on spec_path, writing c_path. Returns its
 * status and prints the spec line and message on failure.
 */
int ut_swx_codegen(const char *spec_path, const char *c_path);

/* Number of pipeline_func_N() functions in generated C (custom instructions). */
int ut_swx_count_groups(const char *c_path);

/* Compile c_path into so_path with gcc; 0 on success. */
int ut_swx_compile(const char *c_path, const char *so_path);

/*
 * Build pipeline NAME from so_path with n_in ring input ports
 * (rings NAME_in0 ..) and one ring output port (NAME_out), the rings
 * created here, the ports reading and writing bursts of bsz. Returns
 * build_from_lib's status.
 */
int ut_swx_load(const char *so_path, const char *name, unsigned int n_in, unsigned int bsz,
		struct rte_swx_pipeline **p);

/* The ring of input port i, or of the output port when i < 0. */
struct rte_ring *ut_swx_ring(const char *name, int i);

/* A scratch file name under the test's temporary directory. */
void ut_swx_tmp(char *buf, size_t size, const char *name);

/* Remove the temporary directory and what is in it. */
void ut_swx_cleanup(void);

#endif /* LONGSPAN_UT_SWX_H */
