/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LONGSPAN_DP_LIMITS_H
#define LONGSPAN_DP_LIMITS_H

/*
 * What the dataplane and the control thread's config share: table sizes,
 * the port role and the mechanism bits. The dataplane's headers include
 * only this one; control/config.h includes it too, so one definition
 * serves both sides and the dataplane never includes a control header.
 */

#define LS_NAME_MAX 32
#define LS_MAX_PORTS 8
#define LS_MAX_PEERS 32
#define LS_MAX_WORKERS 16 /* worker lcores, and GENEVE sequence spaces per peer */
#define LS_MAX_BURST 64 /* rx burst size */

enum ls_port_role {
	LS_PORT_DC = 0,
	LS_PORT_WAN = 1,
};

/* Mechanism bits (docs/congestion-core.md). */
#define LS_MECH_A (1u << 0) /* near-source CNP */
#define LS_MECH_C (1u << 2) /* destination-side temporary reaction point */

#endif /* LONGSPAN_DP_LIMITS_H */
