/* SPDX-License-Identifier: BSD-3-Clause */
#include "lab.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rte_cycles.h>
#include <rte_ethdev.h>

#include "control/units.h"
#include "dataplane/tsc.h"

static uint64_t
lab_timespec_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void
lab_clock_init(struct lab_clock *c)
{
	c->hz = tsc_hz();
	c->ns_per_tick_q32 = (uint64_t)(((unsigned __int128)1000000000u << 32) / c->hz);
	c->mono_ns0 = lab_timespec_ns(CLOCK_MONOTONIC);
	c->real_ns0 = lab_timespec_ns(CLOCK_REALTIME);
	c->tsc0 = rte_rdtsc();
}

uint64_t
lab_clock_ns(const struct lab_clock *c, uint64_t tsc)
{
	if ((int64_t)(tsc - c->tsc0) <= 0)
		return 0;
	return (uint64_t)(((unsigned __int128)(tsc - c->tsc0) * c->ns_per_tick_q32) >> 32);
}

uint64_t
lab_clock_ticks(const struct lab_clock *c, uint64_t ns)
{
	return (uint64_t)(((unsigned __int128)ns * c->hz + 999999999u) / 1000000000u);
}

int
lab_parse_idle(const char *tool, const char *opt, const char *text, enum idle_mode *mode)
{
	static const char *const names[] = { [IDLE_INTERRUPT] = "interrupt",
					     [IDLE_SLEEP] = "sleep",
					     [IDLE_POLL] = "poll" };

	for (unsigned int i = 0; i < RTE_DIM(names); i++)
		if (strcmp(text, names[i]) == 0) {
			*mode = (enum idle_mode)i;
			return 0;
		}
	fprintf(stderr, "%s: %s '%s': not one of interrupt, sleep, poll\n", tool, opt, text);
	return -EINVAL;
}

int
lab_port_start(const char *tool, uint16_t port, struct rte_mempool *pool, uint16_t nb_desc,
	       bool rx_intr)
{
	struct rte_eth_conf conf;
	uint16_t nrx = nb_desc, ntx = nb_desc;
	int rc;

	memset(&conf, 0, sizeof(conf));
	conf.intr_conf.rxq = rx_intr;
	rc = rte_eth_dev_configure(port, 1, 1, &conf);
	if (rc != 0 && rx_intr) {
		conf.intr_conf.rxq = 0;
		rc = rte_eth_dev_configure(port, 1, 1, &conf);
	}
	if (rc == 0)
		rc = rte_eth_dev_adjust_nb_rx_tx_desc(port, &nrx, &ntx);
	if (rc == 0)
		rc = rte_eth_rx_queue_setup(port, 0, nrx, rte_eth_dev_socket_id(port), NULL, pool);
	if (rc == 0)
		rc = rte_eth_tx_queue_setup(port, 0, ntx, rte_eth_dev_socket_id(port), NULL);
	if (rc == 0)
		rc = rte_eth_dev_start(port);
	if (rc != 0)
		fprintf(stderr, "%s: port %u: setup failed: %s\n", tool, port, strerror(-rc));
	return rc;
}

bool
lab_port_wait_link(uint16_t port, uint64_t timeout_ns, const volatile sig_atomic_t *stop)
{
	uint64_t end = rte_get_timer_cycles() + timeout_ns / 1000 * (rte_get_timer_hz() / 1000000);
	struct rte_eth_link link;

	for (;;) {
		memset(&link, 0, sizeof(link));
		rte_eth_link_get_nowait(port, &link);
		if (link.link_status)
			return true;
		if (*stop || rte_get_timer_cycles() >= end)
			return false;
		rte_delay_us_sleep(10000);
	}
}

void
lab_port_close(uint16_t port)
{
	rte_eth_dev_stop(port);
	rte_eth_dev_close(port);
}

static volatile sig_atomic_t *lab_signal_flag;

static void
lab_signal(int sig)
{
	(void)sig;
	if (lab_signal_flag != NULL)
		*lab_signal_flag = 1;
}

void
lab_signals(volatile sig_atomic_t *flag)
{
	lab_signal_flag = flag;
	signal(SIGINT, lab_signal);
	signal(SIGTERM, lab_signal);
	signal(SIGPIPE, SIG_IGN);
}

uint32_t
lab_pow2(uint64_t v)
{
	uint32_t p = 1;

	while (p < v && p < (UINT32_C(1) << 31))
		p <<= 1;
	return p;
}

static int
lab_parse_units(const char *tool, const char *opt, const char *text, enum units_kind kind,
		uint64_t *v)
{
	const char *why = "out of range";
	int rc = units_parse(kind, text, v, &why);

	if (rc != 0)
		fprintf(stderr, "%s: %s '%s': %s\n", tool, opt, text, why);
	return rc == 0 ? 0 : -EINVAL;
}

int
lab_parse_time(const char *tool, const char *opt, const char *text, uint64_t *ns)
{
	return lab_parse_units(tool, opt, text, UNITS_TIME, ns);
}

int
lab_parse_rate(const char *tool, const char *opt, const char *text, uint64_t *bps)
{
	return lab_parse_units(tool, opt, text, UNITS_RATE, bps);
}

int
lab_parse_size(const char *tool, const char *opt, const char *text, uint64_t *bytes)
{
	return lab_parse_units(tool, opt, text, UNITS_SIZE, bytes);
}

int
lab_parse_u64(const char *tool, const char *opt, const char *text, uint64_t min, uint64_t max,
	      uint64_t *v)
{
	char *end = NULL;
	unsigned long long x;

	errno = 0;
	if (text[0] == '-' || text[0] == '\0')
		goto bad;
	x = strtoull(text, &end, 0);
	if (errno != 0 || end == text || *end != '\0')
		goto bad;
	if (x < min || x > max) {
		fprintf(stderr, "%s: %s %s: must be in %llu..%llu\n", tool, opt, text,
			(unsigned long long)min, (unsigned long long)max);
		return -EINVAL;
	}
	*v = x;
	return 0;
bad:
	fprintf(stderr, "%s: %s '%s': not an unsigned integer\n", tool, opt, text);
	return -EINVAL;
}

int
lab_parse_double(const char *tool, const char *opt, const char *text, double min, double max,
		 double *v)
{
	char *end = NULL;
	double x;

	errno = 0;
	x = strtod(text, &end);
	if (errno != 0 || end == text || *end != '\0' || !isfinite(x)) {
		fprintf(stderr, "%s: %s '%s': not a number\n", tool, opt, text);
		return -EINVAL;
	}
	if (x < min || x > max) {
		fprintf(stderr, "%s: %s %s: must be in %g..%g\n", tool, opt, text, min, max);
		return -EINVAL;
	}
	*v = x;
	return 0;
}
