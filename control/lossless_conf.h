/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LONGSPAN_LOSSLESS_CONF_H
#define LONGSPAN_LOSSLESS_CONF_H

/*
 * Mechanism B's part of a dataplane snapshot (struct dp_lossless_conf),
 * built by the control thread from the config and the WAN traffic
 * managers' derived parameters.
 */

#include <stdio.h>

#include "config.h"
#include "dataplane/dp_conf.h"

/* Priorities of the DSCP -> priority map ([congestion] data_dscp, cnp_dscp). */
#define LOSSLESS_DATA_PRIORITY 3
#define LOSSLESS_CNP_PRIORITY 6

/*
 * Fill OUT for CFG, whose WAN traffic managers C->tm are already built.
 * Returns 0, or -EINVAL after printing why to ERR (a lossless peer on a
 * WAN port without link_rate: no bounded queue to pause against).
 */
int lossless_conf_build(const struct ls_config *cfg, const struct dp_conf *c,
			struct dp_lossless_conf *out, FILE *err);

#endif /* LONGSPAN_LOSSLESS_CONF_H */
