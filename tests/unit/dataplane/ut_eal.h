/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LONGSPAN_UT_EAL_H
#define LONGSPAN_UT_EAL_H

/*
 * EAL for the dataplane unit tests that need mbufs, rte_malloc or LPM
 * memory: no hugepages, no PCI, no shared config, no telemetry, one lcore,
 * a per-process file prefix so parallel runs never meet.
 */

/*
 * Start EAL for test NAME with memory_mb of (anonymous, not hugepage)
 * memory; returns 0 or prints why and returns -1.
 */
int ut_eal_init(const char *argv0, const char *name, unsigned int memory_mb);

/* Stop EAL and remove the per-process runtime directory. */
void ut_eal_fini(void);

#endif /* LONGSPAN_UT_EAL_H */
