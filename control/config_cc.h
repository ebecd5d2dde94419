/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LONGSPAN_CONFIG_CC_H
#define LONGSPAN_CONFIG_CC_H

/*
 * What the congestion core derives a WAN port's parameters from, read off
 * the config: the port's link, the DC port's rate and receive ring, and
 * the [congestion] overrides. The gateway (control/runtime.c, with the
 * measured RTT of rtt = auto peers) and the config check (with the
 * configured one) fill them here, so both derive the same.
 */

#include <stdint.h>
#include <stdio.h>

#include "config.h"
#include "congestion/cc_params.h"

/* The inputs of WAN port PORT of CFG whose peers' longest RTT is RTT_NS. */
void config_cc_inputs(const struct ls_config *cfg, unsigned int port, uint64_t rtt_ns,
		      struct cc_link *link, struct cc_overrides *ov);

/*
 * Warn on OUT about each WAN port with a lossless peer whose WAN queue,
 * at the configured RTTs, leaves less than the PFC headroom above XOFF
 * (cc_params.h): the port cannot be lossless. Returns the warnings.
 */
unsigned int config_cc_warn_lossless(const struct ls_config *cfg, FILE *out);

#endif /* LONGSPAN_CONFIG_CC_H */
