/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LONGSPAN_P4_PIPELINE_H
#define LONGSPAN_P4_PIPELINE_H

/*
 * [gateway] pipeline = p4, the control thread's side (docs/p4.md, "p4
 * mode"): the spec through DPDK 22.11's codegen, the generated C compiled
 * into a shared object, one SWX pipeline per worker loaded from it with
 * ring ports (dataplane/p4_stage.h), its tables filled from the
 * configuration and committed (control/p4_tables.c).
 *
 * A set is what one snapshot runs: built before the snapshot is published,
 * published with it (dp_conf.p4[]), freed after the grace period that
 * retires it, like the hooks. A reload builds a new set with the new tables
 * and publishes it; the running one keeps running until then, so a spec
 * that does not build or a table that refuses an entry leaves it alone.
 * Control thread only.
 */

#include <stdint.h>
#include <stdio.h>

struct ls_config;
struct dp_conf;
struct p4_set;

/*
 * Build the set for cfg, the snapshot dp (ports and peers indexed as in
 * dp) and the routes learned over peering (NULL: none) with one pipeline per worker (numa_node[w] for worker w). prev, the
 * running set or NULL, lends its compiled spec when the spec file's
 * content is the same. On failure every error is on err and nothing is
 * left behind. Returns 0 or a negative errno.
 */
struct runtime_learned;
int p4_set_build(const struct ls_config *cfg, const struct dp_conf *dp,
		 const struct runtime_learned *learned, unsigned int n_workers, const int *numa_node,
		 const struct p4_set *prev, struct p4_set **out, FILE *err);

/* Point dp->p4[w] at worker w's pipeline of s (s NULL: the C path). */
void p4_set_attach(struct p4_set *s, struct dp_conf *dp);

/* Free s (NULL: nothing); no worker may run it any more. */
void p4_set_free(struct p4_set *s);

/* Remove the generated files of this process (at exit). */
void p4_cleanup(void);

/* The spec longspand runs when [gateway] p4_spec is not set. */
const char *p4_spec_default(void);

#endif /* LONGSPAN_P4_PIPELINE_H */
