/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LONGSPAN_UT_RUNTIME_H
#define LONGSPAN_UT_RUNTIME_H

/*
 * A runtime with one worker for the dataplane unit tests that run the real
 * pipeline (after ut_eal_init()): the config from text, the mbuf dynamic
 * field, a pool, empty neighbour tables and the worker's rings and state.
 */

#include <stddef.h>

#include "control/config.h"
#include "control/runtime.h"
#include "dataplane/worker.h"

/*
 * Load the config TEXT (messages name it NAME), create rt->pool with MBUFS
 * mbufs, the neighbour tables and worker 0 (punt and inject rings, flow
 * and learner tables). rt->cfg is the config until ut_runtime_publish().
 * Returns the worker, or NULL after printing why.
 */
struct dp_worker *ut_runtime_init(struct ls_runtime *rt, const char *name, const char *text,
				  unsigned int mbufs);

/*
 * Build the dataplane snapshot from rt->cfg and publish it (the static
 * neighbours are installed); call after any port setup. 0 or -1.
 */
int ut_runtime_publish(struct ls_runtime *rt);

/*
 * Load the config TEXT (messages name it NAME) and publish its snapshot in
 * place of the running one, as a reload does; the ports stay as they are.
 * 0 or -1.
 */
int ut_runtime_reload(struct ls_runtime *rt, const char *name, const char *text);

#endif /* LONGSPAN_UT_RUNTIME_H */
