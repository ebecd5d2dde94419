/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LONGSPAN_UT_SUMS_H
#define LONGSPAN_UT_SUMS_H

#include "dataplane/worker.h"

/*
 * The accounting every packet test checks on worker w (cmocka asserts):
 * received = forwarded + named drops + punted + queued (the WAN port's
 * traffic manager, the DC pause FIFOs); transmitted = forwarded + own
 * packets; own packets built (CNPs, PFC frames, credit control packets,
 * injects, probes) = own sent + own not sent.
 */
void ut_check_sums(const struct dp_worker *w, unsigned int dc_port, unsigned int wan_port);

#endif /* LONGSPAN_UT_SUMS_H */
