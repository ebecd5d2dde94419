/* SPDX-License-Identifier: BSD-3-Clause */
#include "wanem.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>

#define WANEM_BURST 32
#define WANEM_NOMINAL_RATE_BPS UINT64_C(10000000000) /* sizing when no --rate */
#define WANEM_MIN_QUEUE_BYTES (64u * 1024)
#define WANEM_MIN_SLOTS 1024u
#define WANEM_SLOT_SIZING_BYTES 512u /* slots assume this average frame size */
#define WANEM_PORT_DESC 1024u
#define WANEM_IDLE_MIN_NS 5000u
#define WANEM_IDLE_SPIN_POLLS 32

void
wanem_opts_default(struct wanem_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->delay_ns = 500000;
	o->reorder_gap = 3;
	o->seed = 1;
	o->stats_interval_ns = 1000000000;
	o->idle_mode = IDLE_INTERRUPT;
	o->max_sleep_ns = 100000;
	o->mbuf_data_bytes = RTE_MBUF_DEFAULT_DATAROOM;
}

/* Bytes the line can hold per direction: the fibre plus the buffer. */
static uint64_t
wanem_held_bytes_max(const struct wanem_opts *o)
{
	uint64_t rate = o->rate_bps ? o->rate_bps : WANEM_NOMINAL_RATE_BPS;
	uint64_t delay = RTE_MAX(o->delay_ns, o->delay_alt_ns);
	uint64_t wire = (uint64_t)((unsigned __int128)rate * delay / 8000000000u);
	uint64_t queue = o->rate_bps ? o->queue_bytes : 2 * wire;

	return wire + queue;
}

int
wanem_opts_resolve(struct wanem_opts *o)
{
	uint64_t held, mbufs;

	if (o->rate_bps != 0 && o->queue_bytes == 0) {
		/* One BDP of buffer: rate x RTT, RTT = 2 x one-way delay. */
		o->queue_bytes = (uint64_t)((unsigned __int128)o->rate_bps * 2 *
					    RTE_MAX(o->delay_ns, o->delay_alt_ns) / 8000000000u);
		if (o->queue_bytes < WANEM_MIN_QUEUE_BYTES)
			o->queue_bytes = WANEM_MIN_QUEUE_BYTES;
	}
	if (o->reorder_max_ns == 0)
		o->reorder_max_ns = RTE_MAX(o->delay_ns, (uint64_t)1000000);
	held = wanem_held_bytes_max(o);
	if (o->queue_pkts == 0)
		o->queue_pkts = lab_pow2(
			RTE_MAX((uint64_t)WANEM_MIN_SLOTS, held / WANEM_SLOT_SIZING_BYTES));
	else
		o->queue_pkts = lab_pow2(o->queue_pkts);
	if (o->queue_pkts > (1u << 24)) {
		fprintf(stderr, "wanem: --queue-pkts %u: at most 16M\n", o->queue_pkts);
		return -EINVAL;
	}
	if (o->mbufs == 0) {
		/* Both directions full (frames may span several mbufs), plus the ports. */
		mbufs = 2 *
				((uint64_t)o->queue_pkts + held / o->mbuf_data_bytes +
				 WANEM_LINE_READY + WANEM_LINE_STASH) +
			4 * WANEM_PORT_DESC + 4 * WANEM_BURST;
		if (mbufs > UINT32_MAX / 2) {
			fprintf(stderr, "wanem: the buffer needs %" PRIu64 " mbufs: too many\n",
				mbufs);
			return -EINVAL;
		}
		o->mbufs = (uint32_t)mbufs;
	}
	return 0;
}

int
wanem_init(struct wanem *w, const struct wanem_opts *o, uint16_t p0, uint16_t p1)
{
	struct wanem_line_params lp;
	struct wanem_line_config lc;
	uint64_t now;
	int d, rc;

	memset(w, 0, sizeof(*w));
	w->opts = *o;
	w->delay_now_ns = o->delay_ns;
	lab_clock_init(&w->clk);
	idle_init(&w->own_idle, o->idle_mode, WANEM_IDLE_SPIN_POLLS, WANEM_IDLE_MIN_NS,
		  o->max_sleep_ns);
	w->idle = &w->own_idle;
	memset(&lp, 0, sizeof(lp));
	lp.hz = w->clk.hz;
	lp.delay_ns = o->delay_ns;
	lp.rate_bps = o->rate_bps;
	lp.overhead_bytes = o->overhead_bytes;
	lp.queue_bytes = o->queue_bytes;
	lp.loss = o->loss;
	lp.reorder = o->reorder;
	lp.reorder_gap = o->reorder_gap;
	lp.reorder_max_ns = o->reorder_max_ns;
	now = rte_rdtsc();
	for (d = 0; d < 2; d++) {
		struct wanem_dir *dir = &w->dir[d];

		/* Independent random streams per direction, reproducible from the seed. */
		lp.seed = o->seed * 2 + (uint64_t)d;
		rc = wanem_line_config_init(&lc, &lp);
		if (rc != 0) {
			fprintf(stderr, "wanem: invalid line parameters\n");
			goto fail;
		}
		dir->slots = calloc(o->queue_pkts, sizeof(*dir->slots));
		if (dir->slots == NULL) {
			rc = -ENOMEM;
			goto fail;
		}
		rc = wanem_line_init(&dir->line, &lc, dir->slots, o->queue_pkts, now);
		if (rc != 0)
			goto fail;
		dir->rx_port = d == 0 ? p0 : p1;
		dir->tx_port = d == 0 ? p1 : p0;
	}
	return 0;

fail:
	for (d = 0; d < 2; d++) {
		free(w->dir[d].slots);
		w->dir[d].slots = NULL;
	}
	return rc;
}

/*
 * Receive a burst, feed it to the line, transmit what is due. Returns work
 * done. The arrival time is read after rx_burst() returned: a time read
 * before it could precede a packet's arrival and release it early.
 */
static unsigned int
wanem_poll_dir(struct wanem_dir *dir)
{
	struct rte_mbuf *pkts[WANEM_BURST];
	void *out[WANEM_BURST];
	uint16_t n, i, sent;
	uint64_t now;
	uint32_t k;

	n = rte_eth_rx_burst(dir->rx_port, 0, pkts, WANEM_BURST);
	now = rte_rdtsc();
	for (i = 0; i < n; i++)
		if (wanem_line_enqueue(&dir->line, pkts[i], pkts[i]->pkt_len, now) !=
		    WANEM_LINE_QUEUED)
			rte_pktmbuf_free(pkts[i]);
	wanem_line_release(&dir->line, now);
	k = wanem_line_ready(&dir->line, out, WANEM_BURST);
	dir->tx_blocked = false;
	if (k == 0)
		return n;
	sent = rte_eth_tx_burst(dir->tx_port, 0, (struct rte_mbuf **)out, (uint16_t)k);
	if (sent < k)
		dir->tx_full++;
	dir->tx_blocked = sent == 0;
	/* Lateness is measured after the burst left: what the next hop sees. */
	wanem_line_sent(&dir->line, sent, rte_rdtsc());
	return n + sent;
}

static uint64_t
wanem_min_due(uint64_t a, uint64_t b)
{
	if (a == UINT64_MAX)
		return b;
	if (b == UINT64_MAX)
		return a;
	return (int64_t)(a - b) < 0 ? a : b;
}

void
wanem_start(struct wanem *w)
{
	uint64_t start = rte_rdtsc();

	w->end_tsc = w->opts.duration_ns ? start + lab_clock_ticks(&w->clk, w->opts.duration_ns)
					 : UINT64_MAX;
	w->next_stats_tsc = w->opts.stats_interval_ns
		? start + lab_clock_ticks(&w->clk, w->opts.stats_interval_ns)
		: UINT64_MAX;
}

unsigned int
wanem_poll(struct wanem *w, uint64_t now, FILE *out)
{
	unsigned int work;

	if (w->end_tsc != UINT64_MAX && (int64_t)(now - w->end_tsc) >= 0) {
		w->finished = true;
		return 0;
	}
	if (unlikely(w->delay_toggle != NULL && *w->delay_toggle != w->delay_toggle_seen)) {
		w->delay_toggle_seen = *w->delay_toggle;
		w->delay_now_ns = w->delay_now_ns == w->opts.delay_ns ? w->opts.delay_alt_ns :
									w->opts.delay_ns;
		for (int d = 0; d < 2; d++)
			wanem_line_set_delay(&w->dir[d].line, w->delay_now_ns);
		w->delay_changes++;
		fprintf(out, "wanem: delay now %" PRIu64 " ns one way\n", w->delay_now_ns);
		fflush(out);
	}
	work = wanem_poll_dir(&w->dir[0]) + wanem_poll_dir(&w->dir[1]);
	w->polls++;
	if (w->next_stats_tsc != UINT64_MAX && (int64_t)(now - w->next_stats_tsc) >= 0) {
		wanem_print_stats(w, out, "");
		w->next_stats_tsc += lab_clock_ticks(&w->clk, w->opts.stats_interval_ns);
	}
	w->busy_polls += work != 0;
	return work;
}

uint64_t
wanem_due(const struct wanem *w)
{
	/*
	 * A direction whose port refused everything (peer slow or gone) is
	 * not due now: the back-off paces the retries.
	 */
	uint64_t due = wanem_min_due(
		w->dir[0].tx_blocked ? UINT64_MAX : wanem_line_next_due(&w->dir[0].line),
		w->dir[1].tx_blocked ? UINT64_MAX : wanem_line_next_due(&w->dir[1].line));

	due = wanem_min_due(due, w->next_stats_tsc);
	return wanem_min_due(due, w->end_tsc);
}

void
wanem_run(struct wanem *w, const volatile sig_atomic_t *stop, FILE *out)
{
	/* On this thread: its epoll instance waits for both ports. */
	idle_start(w->idle);
	for (int d = 0; d < 2; d++)
		if (idle_add_queue(w->idle, w->dir[d].rx_port, 0) != 0) {
			if (w->opts.idle_mode == IDLE_INTERRUPT)
				fprintf(out, "wanem: port %u has no rx interrupts: idle = sleep\n",
					w->dir[d].rx_port);
			break;
		}
	wanem_start(w);
	while (!*stop && !w->finished) {
		uint64_t now = rte_rdtsc();

		if (wanem_poll(w, now, out) != 0) {
			idle_work(w->idle);
			continue;
		}
		if (!w->finished)
			idle_wait(w->idle, now, wanem_due(w));
	}
	idle_fini(w->idle);
}

void
wanem_fini(struct wanem *w)
{
	void *pkts[WANEM_BURST];
	uint32_t n, i;
	int d;

	for (d = 0; d < 2; d++) {
		if (w->dir[d].slots == NULL)
			continue;
		while ((n = wanem_line_drain(&w->dir[d].line, pkts, WANEM_BURST)) > 0)
			for (i = 0; i < n; i++)
				rte_pktmbuf_free(pkts[i]);
		free(w->dir[d].slots);
		w->dir[d].slots = NULL;
	}
}

static double
wanem_us(const struct wanem *w, uint64_t ticks)
{
	return (double)ticks * 1e6 / (double)w->clk.hz;
}

void
wanem_print_stats(struct wanem *w, FILE *out, const char *tag)
{
	uint64_t now = rte_rdtsc();
	double t = (double)lab_clock_ns(&w->clk, now) / 1e9;
	int d;

	for (d = 0; d < 2; d++) {
		struct wanem_dir *dir = &w->dir[d];
		const struct wanem_line_stats *s = &dir->line.st;
		struct rte_eth_stats ps;
		uint64_t dbytes = s->tx_bytes - dir->last_tx_bytes;

		dir->last_tx_bytes = s->tx_bytes;
		memset(&ps, 0, sizeof(ps));
		rte_eth_stats_get(dir->rx_port, &ps);
		fprintf(out,
			"wanem%s t=%.3fs %u>%u rx %" PRIu64 " tx %" PRIu64 " (%.1f Mb/s since last)"
			" drop loss %" PRIu64 " queue %" PRIu64 " slots %" PRIu64
			" port-nombuf %" PRIu64 " port-missed %" PRIu64 " reordered %" PRIu64
			" held %" PRIu64 "p/%" PRIu64 "B"
			" max-held %" PRIu64 "p/%" PRIu64 "B backlog %" PRIu64 "B max %" PRIu64 "B"
			" late avg %.1fus max %.1fus\n",
			tag, t, dir->rx_port, dir->tx_port, s->rx_pkts, s->tx_pkts,
			w->opts.stats_interval_ns
				? (double)dbytes * 8 * 1e3 / (double)w->opts.stats_interval_ns
				: 0.0,
			s->drop_loss, s->drop_queue, s->drop_slots, ps.rx_nombuf, ps.imissed,
			s->reordered, s->held_pkts, s->held_bytes, s->max_held_pkts,
			s->max_held_bytes, wanem_line_backlog_bytes(&dir->line, now),
			s->max_backlog_bytes,
			s->tx_pkts ? wanem_us(w, s->late_sum_ticks) / (double)s->tx_pkts : 0.0,
			wanem_us(w, s->late_max_ticks));
	}
	fflush(out);
}

int
wanem_write_json(const struct wanem *w, const char *path, unsigned int mbufs_in_use)
{
	FILE *f = fopen(path, "w");
	int d;

	if (f == NULL)
		return -errno;
	fprintf(f, "{\n  \"tool\": \"longspan-wanem\",\n");
	fprintf(f,
		"  \"delay_ns\": %" PRIu64 ",\n  \"delay_alt_ns\": %" PRIu64 ",\n"
		"  \"delay_changes\": %" PRIu64 ",\n  \"rate_bps\": %" PRIu64 ",\n"
		"  \"queue_bytes\": %" PRIu64 ",\n  \"queue_pkts\": %u,\n"
		"  \"loss\": %.9g,\n  \"reorder\": %.9g,\n  \"reorder_gap\": %u,\n"
		"  \"seed\": %" PRIu64 ",\n  \"tsc_hz\": %" PRIu64 ",\n  \"tsc0\": %" PRIu64 ",\n"
		"  \"mbufs\": %u,\n  \"mbufs_in_use\": %u,\n"
		"  \"polls\": %" PRIu64 ",\n  \"busy_polls\": %" PRIu64 ",\n"
		"  \"sleeps\": %" PRIu64 ",\n  \"slept_ns\": %" PRIu64 ",\n"
		"  \"rx_interrupts\": %s,\n  \"intr_waits\": %" PRIu64 ",\n"
		"  \"intr_wakeups\": %" PRIu64 ",\n  \"timer_wakeups\": %" PRIu64 ",\n"
		"  \"timer_arms\": %" PRIu64 ",\n  \"directions\": [\n",
		w->opts.delay_ns, w->opts.delay_alt_ns, w->delay_changes, w->opts.rate_bps,
		w->opts.queue_bytes, w->opts.queue_pkts,
		w->opts.loss, w->opts.reorder, w->opts.reorder_gap, w->opts.seed, w->clk.hz,
		w->clk.tsc0, w->opts.mbufs, mbufs_in_use, w->polls, w->busy_polls, w->idle->sleeps,
		w->idle->slept_ns, w->idle->intr_used ? "true" : "false", w->idle->intr_waits,
		w->idle->intr_wakeups, w->idle->timer_wakeups, w->idle->timer_arms);
	for (d = 0; d < 2; d++) {
		const struct wanem_dir *dir = &w->dir[d];
		const struct wanem_line_stats *s = &dir->line.st;

		fprintf(f,
			"    {\"from\": %u, \"to\": %u, \"rx_pkts\": %" PRIu64
			", \"rx_bytes\": %" PRIu64 ", \"tx_pkts\": %" PRIu64
			", \"tx_bytes\": %" PRIu64 ", \"drop_loss\": %" PRIu64
			", \"drop_queue\": %" PRIu64 ", \"drop_slots\": %" PRIu64
			", \"reordered\": %" PRIu64 ", \"reorder_timeouts\": %" PRIu64
			", \"held_pkts\": %" PRIu64 ", \"drained\": %" PRIu64
			", \"max_held_pkts\": %" PRIu64 ", \"max_held_bytes\": %" PRIu64
			", \"max_backlog_bytes\": %" PRIu64 ", \"late_avg_ns\": %.0f"
			", \"late_max_ns\": %.0f, \"tx_full\": %" PRIu64 "}%s\n",
			dir->rx_port, dir->tx_port, s->rx_pkts, s->rx_bytes, s->tx_pkts,
			s->tx_bytes, s->drop_loss, s->drop_queue, s->drop_slots, s->reordered,
			s->reorder_timeouts, s->held_pkts, s->drained, s->max_held_pkts,
			s->max_held_bytes, s->max_backlog_bytes,
			s->tx_pkts ? wanem_us(w, s->late_sum_ticks) * 1e3 / (double)s->tx_pkts
				   : 0.0,
			wanem_us(w, s->late_max_ticks) * 1e3, dir->tx_full, d == 0 ? "," : "");
	}
	fprintf(f, "  ]\n}\n");
	return fclose(f) == 0 ? 0 : -errno;
}
