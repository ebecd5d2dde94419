/* SPDX-License-Identifier: BSD-3-Clause */
#include "lab.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>

#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_pause.h>

#include "control/units.h"

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
	c->hz = rte_get_tsc_hz();
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

void
lab_idle_init(struct lab_idle *d, uint64_t min_ns, uint64_t max_ns)
{
	memset(d, 0, sizeof(*d));
	d->min_ns = min_ns;
	d->max_ns = max_ns < min_ns ? min_ns : max_ns;
	d->sleep_ns = d->min_ns;
}

void
lab_idle_wait(struct lab_idle *d, const struct lab_clock *c, uint64_t now_tsc, uint64_t due_tsc)
{
	uint64_t sleep_ns = d->sleep_ns;

	if (++d->polls < LAB_IDLE_SPIN_POLLS) {
		rte_pause();
		return;
	}
	if (due_tsc != UINT64_MAX) {
		uint64_t wait_ns;

		if ((int64_t)(due_tsc - now_tsc) <= 0) {
			rte_pause();
			return;
		}
		wait_ns = (due_tsc - now_tsc) * 1000000000u / c->hz;
		if (wait_ns < LAB_IDLE_MIN_SLEEP_NS) {
			rte_pause();
			return;
		}
		wait_ns -= LAB_IDLE_WAKE_EARLY_NS;
		if (wait_ns < sleep_ns)
			sleep_ns = wait_ns;
	}
	rte_delay_us_sleep((unsigned int)((sleep_ns + 999) / 1000));
	d->sleeps++;
	d->slept_ns += sleep_ns;
	if (d->sleep_ns < d->max_ns)
		d->sleep_ns = RTE_MIN(d->sleep_ns * 2, d->max_ns);
}

void
lab_timer_slack(void)
{
	prctl(PR_SET_TIMERSLACK, 1000UL, 0UL, 0UL, 0UL);
}

int
lab_port_start(const char *tool, uint16_t port, struct rte_mempool *pool, uint16_t nb_desc)
{
	struct rte_eth_conf conf;
	uint16_t nrx = nb_desc, ntx = nb_desc;
	int rc;

	memset(&conf, 0, sizeof(conf));
	rc = rte_eth_dev_configure(port, 1, 1, &conf);
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
