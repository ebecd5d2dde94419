/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LONGSPAN_IDLE_MODE_H
#define LONGSPAN_IDLE_MODE_H

/*
 * How a polling thread waits when its ports are idle ([gateway] idle, the
 * lab tools' --idle). No DPDK here: the config parser uses it too.
 */
enum idle_mode {
	/* Wait for a packet on the ports' rx interrupts; sleep where a port has none. */
	IDLE_INTERRUPT = 0,
	/* Back off: pause, then sleep longer and longer up to a cap. */
	IDLE_SLEEP,
	/* Never give the core away (a dedicated core). */
	IDLE_POLL,
};

#endif /* LONGSPAN_IDLE_MODE_H */
