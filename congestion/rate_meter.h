/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LONGSPAN_RATE_METER_H
#define LONGSPAN_RATE_METER_H

/*
 * The arrival rate of one QP, in windows: the rate mechanism C's reaction
 * point cuts from (trp_on_cnp()), measured the same way by the gateway
 * (its flow table) and the simulator.
 *
 * A window starts with a packet and closes at the first packet at least
 * window_ns and min_bytes after its start; that packet starts the next
 * window, so a closed window measures what arrived between its first
 * packet and the packet that closed it. The byte floor keeps a slow QP's
 * window long enough to hold several packets (at 16 us alone a 125 Mb/s
 * QP's window holds one packet or none, and the rate it gives is a
 * multiple of one packet per window). A window still open idle_ns after
 * its start is dropped and the rate becomes unknown (0): a QP that paused
 * does not come back with the rate of its pause.
 *
 * The defaults: 16 us, about 190 full-size packets at 100 Gb/s and 20 at
 * 10 Gb/s; 8 KB, two 4 KB RoCE MTUs; idle at 1 ms, the floor reached at
 * 65 Mb/s.
 */

#include <stdint.h>

#define RATE_METER_WINDOW_NS 16000u
#define RATE_METER_MIN_BYTES 8192u
#define RATE_METER_IDLE_NS 1000000u

struct rate_meter {
	uint64_t start_ns; /* the open window's first packet */
	uint64_t bytes; /* its bytes so far */
	uint64_t rate_bps; /* the last closed window's rate; 0 = unknown */
};

/* Count a packet of bytes arriving at now_ns (non-decreasing). */
static inline void
rate_meter_add(struct rate_meter *m, uint32_t bytes, uint64_t now_ns)
{
	uint64_t dt = now_ns - m->start_ns;

	if (m->bytes == 0 || dt >= RATE_METER_IDLE_NS) {
		if (m->bytes != 0)
			m->rate_bps = 0; /* idle for long: unknown */
		m->start_ns = now_ns;
		m->bytes = 0;
	} else if (dt >= RATE_METER_WINDOW_NS && m->bytes >= RATE_METER_MIN_BYTES) {
		m->rate_bps = m->bytes * UINT64_C(8000000000) / dt;
		m->start_ns = now_ns;
		m->bytes = 0;
	}
	m->bytes += bytes;
}

#endif /* LONGSPAN_RATE_METER_H */
