/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LONGSPAN_PEERING_HINTS_H
#define LONGSPAN_PEERING_HINTS_H

/*
 * Congestion hints to the peers (docs/wire-format.md, "hint"): once per
 * PEERING_HINT_PERIOD_NS the control thread tells each peer whose session
 * is up which of its queue pairs mechanism C is shaping here (the QPs whose
 * data arrives from that peer's prefixes, held or paced toward the DC), as
 * a complete snapshot valid for PEERING_HINT_VALID_MS, so the source
 * gateway can count them. An empty snapshot says "none any more".
 *
 * The QPs come from the workers' hold tables (dataplane/hold.h), read
 * without locks under each slot's sequence count: a slot that changed
 * while it was read is left out of this snapshot and is in the next.
 * The shaping rate is advisory (read while its worker may change it).
 */

#include <stdint.h>

#include "peer_msg.h"

#define PEERING_HINT_PERIOD_NS (1000u * 1000 * 1000)
#define PEERING_HINT_VALID_MS 3000u

struct ls_runtime;

/*
 * The snapshot for cfg's peer PEER: the shaped QPs whose sender is in one
 * of its prefixes (configured or learned), at most PEER_MSG_HINT_QPS_MAX
 * (the rest counted in *left_out).
 */
void peering_hints_collect(const struct ls_runtime *rt, unsigned int peer, struct peer_msg_hint *h,
			   uint64_t *left_out);

#endif /* LONGSPAN_PEERING_HINTS_H */
