/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * longspan-sim command line and event loop.
 *
 *   longspan-sim --topology FILE --flows FILE [--hpcc-config FILE]
 *       [--config FILE.ini] [--gateways ID,ID] [--mechanisms none|A|C|A,C|A,B,C]
 *       [--marker red|sojourn|phantom|red-as-switch] [--seed N] --out DIR
 *       [--host-model hpcc|firmware|paper] [--window auto|on|off]
 *       [--ts-interval T] [--end T] [-o section.key=value]...
 *       [--check-config] [--dump-config] [--progress T] [--quiet]
 *       [--waits] [--trace-flows ID,...]
 *
 * Precedence: built-in defaults < --hpcc-config < --config < command line.
 * A status line goes to stderr every --progress of wall time (default 2 s,
 * 0 = none; --quiet: none, and no closing line).  SIGINT or SIGTERM ends
 * the run early: every output is written for what was simulated,
 * summary.json says "partial": true, and the exit status is 128 + the
 * signal's number, as a shell reports a process the signal killed.
 * --waits and --trace-flows add the analysis outputs of sim_trace.h; they
 * observe the run and change nothing in it.
 */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sim.h"
#include "sim_progress.h"
#include "sim_trace.h"

#define SIM_MAX_OVERRIDES 64
#define SIM_PROGRESS_DEFAULT_NS 2000000000ull /* wall time between status lines */

struct sim_cli_set {
	const char *section;
	const char *key;
	const char *value;
};

static void
sim_usage(FILE *f)
{
	fprintf(f,
		"usage: longspan-sim --topology FILE --flows FILE [--hpcc-config FILE]\n"
		"         [--config FILE.ini] [--gateways ID,ID] [--mechanisms none|A|C|A,C|A,B,C]\n"
		"         [--marker red|sojourn|phantom|red-as-switch] [--seed N] --out DIR\n"
		"         [--host-model hpcc|firmware|paper] [--window auto|on|off]\n"
		"         [--ts-interval TIME] [--end TIME] [-o section.key=value]...\n"
		"         [--check-config] [--dump-config] [--progress TIME] [--quiet]\n"
		"         [--waits] [--trace-flows ID,...]\n");
}

static double
sim_clock_s(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void
sim_run(struct sim *s, struct sim_progress *prog)
{
	struct sim_ev ev;
	uint64_t events = 0;

	while (sim_next_event(s, &ev)) {
		uint32_t idx = ev.arg & SIM_EV_IDX_MASK;
		uint64_t t_ns = ev.key >> SIM_EV_SEQ_BITS;

		if (t_ns > s->end_ns)
			break;
		if ((events & (SIM_PROGRESS_POLL_EVENTS - 1)) == 0) {
			s->stop_signal = sim_progress_poll(s, prog, events);
			if (s->stop_signal != 0)
				break;
		}
		s->now_ns = t_ns;
		events++;
		/* Link events are ~98% of the run: test for them before the switch. */
		if (ev.arg >> SIM_EV_IDX_BITS == SIM_EV_ARRIVE) {
			sim_net_arrive(s, idx);
			if (s->flows_done == s->nflows)
				break;
			continue;
		}
		if (ev.arg >> SIM_EV_IDX_BITS == SIM_EV_PORT_TX) {
			struct sim_port *port = &s->ports[idx];

			/* Transmitting only: no flow finishes here. */
			port->tx_pending = 0;
			if (s->nodes[port->node].kind == SIM_NODE_HOST)
				sim_host_kick(s, s->nodes[port->node].host);
			else
				sim_net_port_tx(s, idx);
			continue;
		}
		switch (ev.arg >> SIM_EV_IDX_BITS) {
		case SIM_EV_HOST_WAKE:
			sim_host_wake(s, idx);
			break;
		case SIM_EV_FLOW_START:
			sim_host_flow_start(s, idx);
			if (idx + 1 < s->nflows)
				sim_schedule(s, s->flows[idx + 1].start_ns, SIM_EV_FLOW_START,
					     idx + 1);
			break;
		case SIM_EV_RP:
			sim_host_rp_event(s, idx);
			break;
		case SIM_EV_CNP_RX:
			sim_host_cnp_rx(s, idx, false);
			break;
		case SIM_EV_GW_CNP:
			sim_gw_cnp_event(s, idx);
			break;
		case SIM_EV_GW_SHAPE:
			sim_gw_shape_event(s, idx);
			break;
		case SIM_EV_GW_CREDIT:
			sim_gw_b_credit_event(s, idx);
			break;
		case SIM_EV_GW_PFC:
			sim_gw_b_pfc_event(s, idx);
			break;
		case SIM_EV_SAMPLE:
			sim_out_sample(s);
			if (s->flows_done < s->nflows)
				sim_schedule(s, s->now_ns + s->cfg.stats_interval_ns,
					     SIM_EV_SAMPLE, 0);
			break;
		default:
			break;
		}
		if (s->flows_done == s->nflows)
			break;
	}
	s->st.events = events;
}

static int
sim_split_override(char *arg, struct sim_cli_set *o)
{
	char *dot = strchr(arg, '.');
	char *eq = strchr(arg, '=');

	if (dot == NULL || eq == NULL || eq < dot)
		return -EINVAL;
	*dot = '\0';
	*eq = '\0';
	o->section = arg;
	o->key = dot + 1;
	o->value = eq + 1;
	return 0;
}

int
main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "topology", required_argument, NULL, 't' },
		{ "flows", required_argument, NULL, 'f' },
		{ "hpcc-config", required_argument, NULL, 'H' },
		{ "config", required_argument, NULL, 'c' },
		{ "gateways", required_argument, NULL, 'g' },
		{ "mechanisms", required_argument, NULL, 'm' },
		{ "marker", required_argument, NULL, 'k' },
		{ "seed", required_argument, NULL, 's' },
		{ "out", required_argument, NULL, 'O' },
		{ "host-model", required_argument, NULL, 'M' },
		{ "window", required_argument, NULL, 'w' },
		{ "ts-interval", required_argument, NULL, 'i' },
		{ "end", required_argument, NULL, 'e' },
		{ "check-config", no_argument, NULL, 'C' },
		{ "dump-config", no_argument, NULL, 'D' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "progress", required_argument, NULL, 'P' },
		{ "waits", no_argument, NULL, 'W' },
		{ "trace-flows", required_argument, NULL, 'T' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct sim_cli_set sets[SIM_MAX_OVERRIDES];
	uint32_t nsets = 0;
	bool check = false, dump = false, quiet = false, waits = false;
	const char *trace_flows = NULL;
	uint64_t progress_ns = SIM_PROGRESS_DEFAULT_NS;
	const char *why;
	struct sim_progress prog;
	static struct sim sim;
	struct sim *s = &sim;
	double t0, c0, wall, cpu;
	int errors = 0;
	int opt;
	uint32_t i;
	int rc;

	sim_config_defaults(&s->cfg);
	while ((opt = getopt_long(argc, argv, "o:hq", opts, NULL)) != -1) {
		struct sim_cli_set *o = nsets < SIM_MAX_OVERRIDES ? &sets[nsets] : NULL;

		if (o == NULL && opt != 't' && opt != 'f' && opt != 'H' && opt != 'c' &&
		    opt != 'O' && opt != 'C' && opt != 'D' && opt != 'q' && opt != 'P' &&
		    opt != 'W' && opt != 'T' && opt != 'h') {
			fprintf(stderr, "longspan-sim: too many options\n");
			return 2;
		}
		switch (opt) {
		case 't':
			s->cfg.topology = optarg;
			break;
		case 'f':
			s->cfg.flows = optarg;
			break;
		case 'H':
			s->cfg.hpcc_config = optarg;
			break;
		case 'c':
			s->cfg.ini = optarg;
			break;
		case 'O':
			s->cfg.out_dir = optarg;
			break;
		case 'g':
			*o = (struct sim_cli_set){ "gateway", "ids", optarg };
			nsets++;
			break;
		case 'm':
			*o = (struct sim_cli_set){ "gateway", "mechanisms", optarg };
			nsets++;
			break;
		case 'k':
			*o = (struct sim_cli_set){ "gateway", "marker", optarg };
			nsets++;
			break;
		case 's':
			*o = (struct sim_cli_set){ "sim", "seed", optarg };
			nsets++;
			break;
		case 'M':
			*o = (struct sim_cli_set){ "sim", "host_model", optarg };
			nsets++;
			break;
		case 'w':
			*o = (struct sim_cli_set){ "sim", "window", optarg };
			nsets++;
			break;
		case 'i':
			*o = (struct sim_cli_set){ "sim", "ts_interval", optarg };
			nsets++;
			break;
		case 'e':
			*o = (struct sim_cli_set){ "sim", "end", optarg };
			nsets++;
			break;
		case 'o':
			if (sim_split_override(optarg, o) < 0) {
				fprintf(stderr, "longspan-sim: -o: expected section.key=value\n");
				return 2;
			}
			nsets++;
			break;
		case 'C':
			check = true;
			break;
		case 'D':
			dump = true;
			break;
		case 'q':
			quiet = true;
			break;
		case 'W':
			waits = true;
			break;
		case 'T':
			trace_flows = optarg;
			break;
		case 'P':
			if (sim_parse_time_ns(optarg, &progress_ns, &why) < 0) {
				fprintf(stderr, "longspan-sim: --progress: expected a wall time "
					"such as 5s or 500ms, got '%s': %s\n", optarg, why);
				return 2;
			}
			break;
		case 'h':
			sim_usage(stdout);
			return 0;
		default:
			sim_usage(stderr);
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "longspan-sim: unexpected argument '%s'\n", argv[optind]);
		sim_usage(stderr);
		return 2;
	}
	/* Configuration, as a transaction: every source, then validation. */
	if (s->cfg.hpcc_config != NULL && sim_config_load_hpcc(&s->cfg, s->cfg.hpcc_config,
							       stderr) < 0)
		errors++;
	if (s->cfg.ini != NULL && sim_config_load_ini(&s->cfg, s->cfg.ini, stderr) < 0)
		errors++;
	for (i = 0; i < nsets; i++)
		if (sim_config_set(&s->cfg, sets[i].section, sets[i].key, sets[i].value,
				   "command line", stderr) < 0)
			errors++;
	if (!s->cfg.host_model_set && s->cfg.hpcc_loaded)
		s->cfg.host_model = SIM_HOST_HPCC;
	if (errors == 0 && sim_config_validate(&s->cfg, stderr) < 0)
		errors++;
	if (errors)
		return 1;
	if (dump) {
		sim_config_dump(&s->cfg, stdout);
		return 0;
	}
	if (check)
		return 0;
	if (s->cfg.topology == NULL || s->cfg.flows == NULL || s->cfg.out_dir == NULL) {
		fprintf(stderr, "longspan-sim: --topology, --flows and --out are required\n");
		sim_usage(stderr);
		return 2;
	}

	if (sim_progress_catch_signals() < 0) {
		perror("longspan-sim: sigaction");
		return 1;
	}
	t0 = sim_clock_s(CLOCK_MONOTONIC);
	c0 = sim_clock_s(CLOCK_PROCESS_CPUTIME_ID);
	rc = sim_topo_load(s, s->cfg.topology);
	if (rc == 0)
		rc = sim_flows_load(s, s->cfg.flows);
	if (rc == 0)
		rc = sim_topo_routes(s);
	if (rc == 0)
		rc = sim_net_pool_init(s);
	if (rc == 0)
		rc = sim_events_init(s, 1024, 4096);
	if (rc == 0)
		rc = sim_net_setup(s);
	if (rc == 0)
		rc = sim_gw_setup(s);
	if (rc == 0)
		rc = sim_host_setup(s);
	if (rc == 0)
		rc = sim_out_open(s, s->cfg.out_dir);
	if (rc == 0)
		rc = sim_trace_open(s, s->cfg.out_dir, waits, trace_flows);
	if (rc < 0) {
		sim_trace_close(s);
		sim_out_close(s);
		sim_free(s);
		return 1;
	}
	if (s->cfg.end_ns != 0)
		s->end_ns = s->cfg.end_ns;
	else if (s->cfg.stop_time_s > 0)
		s->end_ns = (uint64_t)(s->cfg.stop_time_s * 1e9 + 0.5);
	else
		s->end_ns = SIM_EV_MAX_NS;
	if (s->end_ns > SIM_EV_MAX_NS)
		s->end_ns = SIM_EV_MAX_NS;
	if (s->nflows > 0) {
		sim_schedule(s, s->flows[0].start_ns, SIM_EV_FLOW_START, 0);
		sim_schedule(s, s->flows[0].start_ns, SIM_EV_SAMPLE, 0);
	}
	sim_progress_init(&prog, quiet ? 0 : progress_ns, stderr);
	sim_run(s, &prog);
	wall = sim_clock_s(CLOCK_MONOTONIC) - t0;
	cpu = sim_clock_s(CLOCK_PROCESS_CPUTIME_ID) - c0;
	rc = sim_out_finish(s, wall, cpu);
	if (sim_trace_finish(s) < 0)
		rc = -EIO;
	if (!quiet && s->stop_signal != 0)
		fprintf(stderr, "longspan-sim: stopped by %s at t = %.6f s: %u/%u flows "
			"finished; partial outputs in %s\n",
			sim_progress_signal_name(s->stop_signal), (double)s->now_ns * 1e-9,
			s->flows_done, s->nflows, s->cfg.out_dir);
	if (!quiet) {
		printf("longspan-sim: %u/%u flows finished, %llu events in %.2f s wall, %.2f s CPU "
		       "(%.2f M events/s of CPU), simulated %.6f s; out: %s\n", s->flows_done,
		       s->nflows, (unsigned long long)s->st.events, wall, cpu,
		       cpu > 0 ? (double)s->st.events / cpu / 1e6 : 0.0, (double)s->now_ns * 1e-9,
		       s->cfg.out_dir);
	}
	sim_trace_close(s);
	sim_out_close(s);
	sim_free(s);
	if (rc < 0)
		return 1;
	return s->stop_signal != 0 ? 128 + s->stop_signal : 0;
}
