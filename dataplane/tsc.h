/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LONGSPAN_TSC_H
#define LONGSPAN_TSC_H

/*
 * The TSC's rate, measured. DPDK 22.11 on Linux takes the rate from the CPU
 * when it says, and otherwise measures it over 100 ms and rounds it to
 * 10 MHz: on this project's VMs 2100 MHz for a TSC the kernel calibrated at
 * 2096.016 MHz, 0.19% fast. Every TSC-timed duration was that far off (the
 * shaper's rate, PFC pause lengths, the delay line), and the workers'
 * GENEVE timestamp clock (realtime at start plus ticks / rate) ran 0.19%
 * fast, so two gateways started seconds apart disagreed by milliseconds
 * (8.8 ms for a peer restarted 4.6 s later).
 *
 * tsc_calibrate() measures the rate against CLOCK_MONOTONIC_RAW once per
 * process, after rte_eal_init() and before any worker or timer needs it;
 * tsc_hz() returns it (rte_get_tsc_hz() before the calibration, or when the
 * measurement disagrees with DPDK's by more than 1%).
 */

#include <stdint.h>

/* Measure over about window_ns; returns the rate now in use. */
uint64_t tsc_calibrate(uint64_t window_ns);

/* The calibrated rate in Hz. */
uint64_t tsc_hz(void);

#define TSC_CALIBRATE_NS UINT64_C(100000000) /* 100 ms: about 1e-6 here */

#endif /* LONGSPAN_TSC_H */
