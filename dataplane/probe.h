/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LONGSPAN_PROBE_H
#define LONGSPAN_PROBE_H

/*
 * Path probes (docs/wire-format.md, "Path measurement"): every
 * probe_interval each worker sends each peer one small GENEVE control
 * packet (O = 1, protocol 0) carrying the telemetry option (its sequence
 * number and transmit timestamp, t3 for the peer) and the echo option
 * (the last packet this worker received from the peer: t1 and t2). The
 * peer's worker that receives it records t1..t4 (dataplane/path_meas.h).
 *
 * A probe rides the high-priority class: DSCP = [congestion] cnp_dscp,
 * PCP 6 when tagged, and it is sent ahead of the traffic manager's queues,
 * as the control class is, so its RTT is the path's and not the queue's.
 */

#include "dp_conf.h"
#include "pipeline.h"
#include "worker.h"

/* Send the probes that are due now; called once per poll. */
void dp_probe_poll(struct dp_worker *w, const struct dp_conf *c, const struct dp_clock *clk,
		   struct dp_tx *tx);

#endif /* LONGSPAN_PROBE_H */
