/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LONGSPAN_MEASURE_PROM_H
#define LONGSPAN_MEASURE_PROM_H

/*
 * The peer section of the Prometheus exposition (prom_server.h): the
 * measured distance to each peer (measure.h), the numbers `show peers`
 * gives under "measured", as gauges and counters labelled {peer="NAME"}
 * (docs/telemetry.md lists every metric):
 *
 *   longspan_peer_*      RTT (measured, configured, in use), clock offset,
 *                        one-way delays, jitter, loss and reordering, when
 *                        each was last updated, the probe counters and the
 *                        republishes the peer's RTT caused
 *   longspan_measure_*   the measurement's own counters
 *
 * A number never measured has no sample (not a 0): Prometheus then says
 * "no data" instead of a distance of zero.
 */

#include <stddef.h>
#include <stdint.h>

#include "measure.h"

struct dp_worker;

/*
 * The section for cfg's peers as a NUL-terminated string the caller frees,
 * or NULL when out of memory; *len its length. The probe counters are the
 * workers' own, read now. Control thread (it writes m).
 */
char *measure_prom_render(const struct measure *m, const struct ls_config *cfg,
			  struct dp_worker *const *workers, unsigned int n_workers, size_t *len);

#endif /* LONGSPAN_MEASURE_PROM_H */
