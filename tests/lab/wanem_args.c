/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * longspan-wanem's options (docs/lab-tools.md), shared by longspan-wanem and
 * longspan-labtools (which runs the delay line beside the hostems).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

#include <rte_mbuf.h>

#include "lab.h"
#include "wanem.h"

#define WANEM_NS_PER_KM 4900u /* light in fibre, one way */
#define WANEM_TOOL "wanem"

static void
wanem_usage(void)
{
	printf("usage: longspan-wanem [EAL options with two ports] -- [options]\n"
	       "  --delay T            one-way delay (default 500us)\n"
	       "  --distance-km K      one-way delay of K km of fibre (4.9 us/km)\n"
	       "  --delay-alt T        a second one-way delay: each SIGUSR1 switches between\n"
	       "                       the two (packets on the line keep their time, no reorder)\n"
	       "  --rate R             bottleneck rate per direction (default: none)\n"
	       "  --overhead B         bytes added per frame for serialization (default 0)\n"
	       "  --queue-bytes S      bottleneck buffer (default: rate x RTT, >= 64KiB)\n"
	       "  --queue-pkts N       packets held per direction (default: from the bytes)\n"
	       "  --loss P             random loss probability (default 0)\n"
	       "  --reorder P          probability a packet is held back (default 0)\n"
	       "  --reorder-gap N      later packets that overtake it (default 3)\n"
	       "  --reorder-max T      longest extra hold (default max(delay, 1ms))\n"
	       "  --seed N             random seed (default 1)\n"
	       "  --stats-interval T   print counters every T, 0 = only at exit (default 1s)\n"
	       "  --idle MODE          interrupt (default; sleep where a port has no rx\n"
	       "                       interrupts), sleep or poll\n"
	       "  --max-sleep T        idle back-off cap (default 100us)\n"
	       "  --duration T         stop after T (default: at SIGINT/SIGTERM)\n"
	       "  --mbufs N            mbuf pool size (default: from the buffer)\n"
	       "  --mbuf-size B        mbuf data room (default 2048)\n"
	       "  --json FILE          write the final counters as JSON\n");
}

int
wanem_parse_args(int argc, char **argv, struct wanem_opts *o)
{
	static const struct option opts[] = {
		{ "delay", required_argument, NULL, 'd' },
		{ "distance-km", required_argument, NULL, 'k' },
		{ "delay-alt", required_argument, NULL, 'a' },
		{ "rate", required_argument, NULL, 'r' },
		{ "overhead", required_argument, NULL, 'o' },
		{ "queue-bytes", required_argument, NULL, 'q' },
		{ "queue-pkts", required_argument, NULL, 'Q' },
		{ "loss", required_argument, NULL, 'l' },
		{ "reorder", required_argument, NULL, 'R' },
		{ "reorder-gap", required_argument, NULL, 'g' },
		{ "reorder-max", required_argument, NULL, 'G' },
		{ "seed", required_argument, NULL, 's' },
		{ "stats-interval", required_argument, NULL, 'i' },
		{ "max-sleep", required_argument, NULL, 'S' },
		{ "idle", required_argument, NULL, 'I' },
		{ "duration", required_argument, NULL, 'D' },
		{ "mbufs", required_argument, NULL, 'm' },
		{ "mbuf-size", required_argument, NULL, 'M' },
		{ "json", required_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	bool have_delay = false, have_km = false;
	uint64_t v;
	double x;
	int opt, rc = 0;

	wanem_opts_default(o);
	optind = 0; /* GNU getopt: start over (EAL, or the caller, parsed before) */
	while ((opt = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (opt) {
		case 'd':
			have_delay = true;
			rc = lab_parse_time(WANEM_TOOL, "--delay", optarg, &o->delay_ns);
			break;
		case 'k':
			have_km = true;
			rc = lab_parse_double(WANEM_TOOL, "--distance-km", optarg, 0, 1e6, &x);
			o->delay_ns = (uint64_t)(x * WANEM_NS_PER_KM + 0.5);
			break;
		case 'a':
			rc = lab_parse_time(WANEM_TOOL, "--delay-alt", optarg, &o->delay_alt_ns);
			if (rc == 0 && o->delay_alt_ns == 0) {
				fprintf(stderr, "wanem: --delay-alt must be above 0\n");
				rc = -EINVAL;
			}
			break;
		case 'r':
			rc = lab_parse_rate(WANEM_TOOL, "--rate", optarg, &o->rate_bps);
			break;
		case 'o':
			rc = lab_parse_u64(WANEM_TOOL, "--overhead", optarg, 0, 1024, &v);
			o->overhead_bytes = (uint32_t)v;
			break;
		case 'q':
			rc = lab_parse_size(WANEM_TOOL, "--queue-bytes", optarg, &o->queue_bytes);
			break;
		case 'Q':
			rc = lab_parse_u64(WANEM_TOOL, "--queue-pkts", optarg, 2, 1u << 24, &v);
			o->queue_pkts = (uint32_t)v;
			break;
		case 'l':
			rc = lab_parse_double(WANEM_TOOL, "--loss", optarg, 0, 1, &o->loss);
			break;
		case 'R':
			rc = lab_parse_double(WANEM_TOOL, "--reorder", optarg, 0, 1, &o->reorder);
			break;
		case 'g':
			rc = lab_parse_u64(WANEM_TOOL, "--reorder-gap", optarg, 1, 1u << 20, &v);
			o->reorder_gap = (uint32_t)v;
			break;
		case 'G':
			rc = lab_parse_time(WANEM_TOOL, "--reorder-max", optarg,
					    &o->reorder_max_ns);
			break;
		case 's':
			rc = lab_parse_u64(WANEM_TOOL, "--seed", optarg, 0, UINT64_MAX, &o->seed);
			break;
		case 'i':
			rc = lab_parse_time(WANEM_TOOL, "--stats-interval", optarg,
					    &o->stats_interval_ns);
			break;
		case 'S':
			rc = lab_parse_time(WANEM_TOOL, "--max-sleep", optarg, &o->max_sleep_ns);
			break;
		case 'I':
			rc = lab_parse_idle(WANEM_TOOL, "--idle", optarg, &o->idle_mode);
			break;
		case 'D':
			rc = lab_parse_time(WANEM_TOOL, "--duration", optarg, &o->duration_ns);
			break;
		case 'm':
			rc = lab_parse_u64(WANEM_TOOL, "--mbufs", optarg, 1024, 1u << 26, &v);
			o->mbufs = (uint32_t)v;
			break;
		case 'M':
			rc = lab_parse_u64(WANEM_TOOL, "--mbuf-size", optarg, 256,
					   65535 - RTE_PKTMBUF_HEADROOM, &v);
			o->mbuf_data_bytes = (uint16_t)v;
			break;
		case 'j':
			o->json_path = optarg;
			break;
		case 'h':
			wanem_usage();
			exit(0);
		default:
			wanem_usage();
			return -EINVAL;
		}
		if (rc != 0)
			return rc;
	}
	if (optind < argc) {
		fprintf(stderr, "wanem: unexpected argument '%s'\n", argv[optind]);
		return -EINVAL;
	}
	if (have_delay && have_km) {
		fprintf(stderr, "wanem: give --delay or --distance-km, not both\n");
		return -EINVAL;
	}
	if (o->reorder > 0 && o->reorder_gap == 0) {
		fprintf(stderr, "wanem: --reorder needs --reorder-gap >= 1\n");
		return -EINVAL;
	}
	return wanem_opts_resolve(o);
}
