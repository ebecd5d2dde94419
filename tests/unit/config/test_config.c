/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests for the config loader (control/config.c): every value type,
 * defaults, error format and line numbers, cross-field rules, dump ->
 * load round trips, the shipped example configs, the bad-config corpus in
 * tests/configs/bad and the generated docs/config.md.
 *
 * Arguments: CONFIGS_DIR (tests/configs) EXAMPLES_DIR (config) DOC (docs/config.md)
 */

#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "control/config.h"
#include "control/config_keys.h"

static const char *configs_dir = "tests/configs";
static const char *examples_dir = "config";
static const char *doc_path = "docs/config.md";

/* A small valid config every test starts from. */
static const char base_conf[] =
	"[gateway]\n"
	"name = t\n"
	"\n"
	"[port dc]\n"
	"role = dc\n"
	"dev = net_ring0\n"
	"ipv4 = 10.1.0.254/16\n"
	"ipv6 = fd00:1::fe/64\n"
	"\n"
	"[port wan]\n"
	"role = wan\n"
	"dev = net_ring1\n"
	"ipv4 = 192.0.2.1/24\n"
	"ipv6 = 2001:db8::1/64\n"
	"\n"
	"[peer b]\n"
	"port = wan\n"
	"remote = 192.0.2.2\n"
	"vni = 7\n"
	"rtt = 1ms\n"
	"prefix = 10.2.0.0/16\n"
	"\n"
	"[eal]\n"
	"\n"
	"[congestion]\n";

struct load_result {
	int rc;
	char *errors; /* everything written to err */
	unsigned int n_lines; /* lines in errors */
};

static void
load_result_free(struct load_result *r)
{
	free(r->errors);
	r->errors = NULL;
}

static unsigned int
count_lines(const char *s)
{
	unsigned int n = 0;

	for (; *s != '\0'; s++)
		n += *s == '\n';
	return n;
}

/* Load TEXT (LEN bytes) as file "t.conf". */
static struct load_result
load_bytes(const char *text, size_t len, struct ls_config *cfg)
{
	struct load_result r = { 0 };
	size_t size = 0;
	FILE *err = open_memstream(&r.errors, &size);
	FILE *in = fmemopen((void *)(uintptr_t)text, len, "r");

	assert_non_null(err);
	if (len == 0) /* fmemopen rejects size 0 */
		in = fopen("/dev/null", "r");
	assert_non_null(in);
	r.rc = config_load_stream(in, "t.conf", cfg, err);
	fclose(in);
	fclose(err);
	r.n_lines = count_lines(r.errors);
	return r;
}

static struct load_result
load_text(const char *text, struct ls_config *cfg)
{
	return load_bytes(text, strlen(text), cfg);
}

/* TEXT with SNIPPET inserted after the line HEADER (a new string). */
static char *
insert_after(const char *text, const char *header, const char *snippet)
{
	const char *at = strstr(text, header);
	size_t head, size;
	char *out;

	assert_non_null(at);
	head = (size_t)(at - text) + strlen(header) + 1; /* + '\n' */
	size = strlen(text) + strlen(snippet) + 2;
	out = malloc(size);
	assert_non_null(out);
	snprintf(out, size, "%.*s%s\n%s", (int)head, text, snippet, text + head);
	return out;
}

static char *
with_snippet(const char *header, const char *snippet)
{
	return insert_after(base_conf, header, snippet);
}

static struct ls_config cfg, cfg2;

static void
expect_ok(struct load_result *r)
{
	if (r->rc != 0)
		fail_msg("load failed (%d):\n%s", r->rc, r->errors);
	assert_int_equal(r->n_lines, 0);
}

static void
expect_error(struct load_result *r, const char *want)
{
	if (r->rc != -EINVAL || strstr(r->errors, want) == NULL)
		fail_msg("rc %d, want -EINVAL with '%s'; got:\n%s", r->rc, want, r->errors);
}

/* config_warn() of TEXT loaded; its output in *text (caller frees). */
static unsigned int
warn_of(const char *text, char **out)
{
	struct load_result r = load_text(text, &cfg);
	size_t size = 0;
	FILE *f = open_memstream(out, &size);
	unsigned int n;

	expect_ok(&r);
	load_result_free(&r);
	assert_non_null(f);
	n = config_warn(&cfg, f);
	fclose(f);
	return n;
}

/* base_conf with the DC port's device DEV and mtu MTU (a new string). */
static char *
with_dc_dev(const char *dev, unsigned int mtu)
{
	const char *at = strstr(base_conf, "dev = net_ring0\n");
	size_t size = sizeof(base_conf) + strlen(dev) + 32;
	char *out = malloc(size);

	assert_non_null(at);
	assert_non_null(out);
	snprintf(out, size, "%.*sdev = %s\nmtu = %u\n%s", (int)(at - base_conf), base_conf, dev, mtu,
		 at + strlen("dev = net_ring0\n"));
	return out;
}

/*
 * net_memif (DPDK 22.11) delivers a frame larger than its buffer size many
 * times over when such frames mix with small ones: a memif port whose bsize
 * (default 2048) cannot hold the port's frames is warned about.
 */
static void
test_warn_memif_bsize(void **state)
{
	static const struct {
		const char *dev;
		unsigned int mtu;
		const char *warning; /* NULL: none */
	} cases[] = {
		{ "net_memif0,role=server,socket=/run/x.sock,id=0", 4200,
		  "t.conf: warning: [port dc] dev: net_memif buffer size 2048 (the default) is "
		  "below the port's 4218-byte frames" },
		{ "net_memif0,role=server,bsize=4096,socket=/run/x.sock", 4200,
		  "t.conf: warning: [port dc] dev: net_memif buffer size 4096 is below the "
		  "port's 4218-byte frames" },
		{ "net_memif0,role=server,socket=/run/x.sock,bsize=8192", 4200, NULL },
		{ "net_memif0,role=server", 1500, NULL }, /* 1518 B frames fit 2048 */
		{ "net_memif0,bsize=1024", 1500,
		  "t.conf: warning: [port dc] dev: net_memif buffer size 1024 is below the "
		  "port's 1518-byte frames" },
		{ "net_ring0", 9000, NULL }, /* not memif */
		{ "net_memifx0,bsize=64", 1500, NULL }, /* another driver's name */
	};
	char *out = NULL;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *t = with_dc_dev(cases[i].dev, cases[i].mtu);
		unsigned int n = warn_of(t, &out);

		if (cases[i].warning == NULL) {
			if (n != 0)
				fail_msg("%s: unexpected warning: %s", cases[i].dev, out);
		} else {
			if (n != 1 || strstr(out, cases[i].warning) == NULL)
				fail_msg("%s: want '%s', got %u: %s", cases[i].dev, cases[i].warning, n,
					 out);
		}
		free(out);
		free(t);
	}
}

static void
test_warn_mechanisms_workers(void **state)
{
	char *a = insert_after(base_conf, "[gateway]", "workers = 2");
	char *b = insert_after(a, "[congestion]", "mechanisms = A,C");
	char *c = insert_after(base_conf, "[congestion]", "mechanisms = A");
	char *out = NULL;

	(void)state;
	/* Two workers with mechanisms: one warning, naming both settings. */
	assert_int_equal(warn_of(b, &out), 1);
	assert_non_null(strstr(out, "t.conf: warning: [congestion] mechanisms = A,C with "
				    "[gateway] workers = 2"));
	assert_int_equal(count_lines(out), 1);
	free(out);
	/* One worker with mechanisms, or two workers without: nothing to say. */
	assert_int_equal(warn_of(c, &out), 0);
	assert_string_equal(out, "");
	free(out);
	assert_int_equal(warn_of(a, &out), 0);
	assert_string_equal(out, "");
	free(out);
	free(a);
	free(b);
	free(c);
}

/*
 * A lossless peer whose WAN queue leaves less than the PFC headroom above
 * XOFF is warned about. With workers that sleep when idle (the default,
 * idle = interrupt) the headroom holds the DC port's full receive ring.
 */
static void
test_warn_lossless_headroom(void **state)
{
	char *rate = insert_after(base_conf, "[port wan]", "link_rate = 1G");
	char *pfc = insert_after(rate, "[peer b]", "lossless = pfc");
	char *poll = insert_after(pfc, "[gateway]", "idle = poll");
	char *big = insert_after(pfc, "[congestion]", "buffer = 4MB");
	char *high = insert_after(big, "[congestion]", "pfc_xoff = 3900KB");
	char *high_poll = insert_after(high, "[gateway]", "idle = poll");
	char *out = NULL;

	(void)state;
	/* 1 Gb/s x 1 ms: a buffer of about one BDP, under the ring's 1024 x 1518 bytes. */
	assert_int_equal(warn_of(pfc, &out), 1);
	assert_non_null(strstr(out, "t.conf:17: warning: [peer b] lossless: the WAN queue of port "
				    "'wan' (buffer "));
	assert_non_null(strstr(out, "the headroom holds the DC port 'dc''s full receive ring "
				    "(1554.4 kB: rx_desc 1024 x 1518-byte frames)"));
	assert_int_equal(count_lines(out), 1);
	free(out);
	/* Polling workers: the DC round trip and 3 MTU fit the derived buffer. */
	assert_int_equal(warn_of(poll, &out), 0);
	free(out);
	/* A buffer of two headrooms and more: XOFF is derived a headroom below its top. */
	assert_int_equal(warn_of(big, &out), 0);
	free(out);
	/* XOFF set 100 kB under the top: too little for the ring, enough when polling. */
	assert_int_equal(warn_of(high, &out), 1);
	assert_non_null(strstr(out, "(buffer 4000.0 kB) leaves 100.0 kB above XOFF, less than "
				    "its PFC headroom of 1560.2 kB"));
	free(out);
	assert_int_equal(warn_of(high_poll, &out), 0);
	free(out);
	/* Not lossless: no PFC, nothing to say. */
	assert_int_equal(warn_of(rate, &out), 0);
	free(out);
	free(rate);
	free(pfc);
	free(poll);
	free(big);
	free(high);
	free(high_poll);
}

/* Without [peer] nothing routes: every DC packet would be a no_route drop. */
static void
test_warn_no_peer(void **state)
{
	char *text = strdup(base_conf);
	char *out = NULL;

	(void)state;
	assert_non_null(text);
	*strstr(text, "[peer b]") = '\0';
	assert_int_equal(warn_of(text, &out), 1);
	assert_string_equal(out, "t.conf: warning: no [peer] section: no prefix leads anywhere, so "
				 "all traffic from the DC port will be dropped as no_route\n");
	free(out);
	assert_int_equal(warn_of(base_conf, &out), 0);
	free(out);
	free(text);
}

static void
test_base_loads(void **state)
{
	struct load_result r = load_text(base_conf, &cfg);

	(void)state;
	expect_ok(&r);
	assert_string_equal(cfg.path, "t.conf");
	assert_int_equal(cfg.n_ports, 2);
	assert_int_equal(cfg.n_peers, 1);
	assert_int_equal(cfg.dc_port, 0);
	assert_int_equal(cfg.peers[0].port_index, 1);
	assert_int_equal(cfg.ports[0].line, 4);
	assert_int_equal(cfg.peers[0].line, 16);
	assert_int_equal(config_port_index(&cfg, "wan"), 1);
	assert_int_equal(config_port_index(&cfg, "nope"), -1);
	load_result_free(&r);
}

/*
 * A peer with neither rtt nor distance follows the measured RTT (rtt =
 * auto); one with a distance keeps it fixed; without probes a measured RTT
 * is refused.
 */
static void
test_rtt_auto_default(void **state)
{
	char text[sizeof(base_conf) + 64], *at;
	struct load_result r;

	(void)state;
	memcpy(text, base_conf, sizeof(base_conf));
	at = strstr(text, "rtt = 1ms\n");
	assert_non_null(at);
	memmove(at, at + 10, strlen(at + 10) + 1);
	r = load_text(text, &cfg);
	expect_ok(&r);
	assert_true(cfg.peers[0].rtt_auto);
	assert_int_equal(cfg.peers[0].rtt_ns, 0);
	load_result_free(&r);

	/* "rtt = 1ms\n" (10 bytes) -> "distance = 1km\n" (15 bytes). */
	memcpy(text, base_conf, sizeof(base_conf));
	at = strstr(text, "rtt = 1ms\n");
	memmove(at + 15, at + 10, strlen(at + 10) + 1);
	memcpy(at, "distance = 1km\n", 15);
	r = load_text(text, &cfg);
	expect_ok(&r);
	assert_false(cfg.peers[0].rtt_auto);
	assert_int_equal(cfg.peers[0].rtt_ns, 9800);
	load_result_free(&r);

	memcpy(text, base_conf, sizeof(base_conf));
	at = strstr(text, "rtt = 1ms\n");
	memcpy(at, "\n\n\n\n\n\n\n\n\n\n", 10);
	at = strstr(text, "name = t\n");
	memmove(at + 19, at + 9, strlen(at + 9) + 1);
	memcpy(at + 9, "probe_interval = 0\n", 19);
	r = load_text(text, &cfg);
	assert_int_equal(r.rc, -EINVAL);
	assert_non_null(strstr(r.errors, "[gateway] probe_interval = 0 sends no probes"));
	load_result_free(&r);
}

/* The documented production defaults. */
static void
test_defaults(void **state)
{
	struct load_result r = load_text(base_conf, &cfg);
	const struct ls_port_conf *p = &cfg.ports[1];

	(void)state;
	expect_ok(&r);
	assert_string_equal(cfg.gw.socket_path, "/run/longspan/t.sock");
	assert_int_equal(cfg.gw.workers, 1);
	assert_int_equal(cfg.gw.burst, 32);
	assert_int_equal(cfg.gw.mbufs, 0);
	assert_int_equal(cfg.gw.mbuf_data_size, 2176);
	assert_int_equal(cfg.gw.idle_sleep_ns, 100000);
	assert_int_equal(cfg.gw.geneve_port, 6081);
	assert_int_equal(cfg.gw.stats_interval_ns, 1000000000);
	assert_int_equal(cfg.gw.neigh_timeout_ns, UINT64_C(300000000000));
	assert_string_equal(cfg.eal.lcores, "");
	assert_false(cfg.eal.main_lcore_set);
	assert_int_equal(cfg.eal.memory_mb, 0);
	assert_false(cfg.eal.in_memory || cfg.eal.no_pci || cfg.eal.no_huge);
	assert_int_equal(p->mtu, 1500);
	assert_int_equal(p->vlan, 0);
	assert_int_equal(p->link_rate_bps, 0);
	assert_int_equal(p->rx_desc, 1024);
	assert_int_equal(p->tx_desc, 1024);
	assert_false(p->mac_set);
	assert_int_equal(p->gateway4.family, 0);
	assert_int_equal(cfg.peers[0].local.family, 0);
	assert_int_equal(cfg.cong.marker, LS_MARKER_RED);
	assert_int_equal(cfg.cong.mechanisms, 0);
	assert_int_equal(cfg.cong.kmin_bytes, 0);
	assert_int_equal(cfg.cong.kmax_bytes, 0);
	assert_int_equal(cfg.cong.pmax_ppm, 0);
	assert_int_equal(cfg.cong.target_delay_ns, 0);
	assert_int_equal(cfg.cong.phantom_ratio_ppm, 950000);
	assert_int_equal(cfg.cong.buffer_bytes, 0);
	assert_int_equal(cfg.cong.cnp_interval_ns, 0); /* derived */
	assert_int_equal(cfg.cong.cnp_dscp, 48);
	assert_true(cfg.cong.ce_clear);
	assert_int_equal(cfg.cong.hold_ns, 0);
	assert_int_equal(cfg.cong.flow_idle_ns, 1000000000);
	load_result_free(&r);
}

/* One good value of every type, checked in the struct. */
static void
test_every_type(void **state)
{
	static const char port_keys[] =
		"mac = 02:AB:cd:00:00:01\n"
		"gateway4 = 192.0.2.254\n"
		"gateway6 = fe80::1\n"
		"vlan = 4094\n"
		"mtu = 9000\n"
		"link_rate = 400Gbps\n"
		"rx_desc = 4096\n"
		"neighbor = 192.0.2.2 02:00:00:00:0b:02\n"
		"neighbor = 2001:db8::2   02:00:00:00:0b:03\n";
	static const char peer_keys[] =
		"local = 192.0.2.9\n"
		"prefix = fd00:2::/64\n"
		"prefix = 10.2.3.0/24\n";
	static const char cong_keys[] =
		"marker = Phantom\n"
		"mechanisms = c , A\n"
		"kmin = 100kB\n"
		"kmax = 12.5MB\n"
		"pmax = 20%\n"
		"target_delay = 50us\n"
		"phantom_ratio = 0.9\n"
		"buffer = 16MiB\n"
		"cnp_interval = 0\n"
		"cnp_dscp = 46\n"
		"ce_clear = off\n"
		"hold = 1.5ms\n"
		"flow_idle = 2s\n";
	static const char eal_keys[] =
		"lcores = 0-2\n"
		"main_lcore = 0\n"
		"memory = 1024\n"
		"file_prefix = lsa\n"
		"in_memory = TRUE\n"
		"no_pci = 1\n"
		"no_huge = On\n"
		"extra = --log-level=lib.eal:8 -n 4\n";
	char *a = with_snippet("[port wan]", port_keys);
	char *b = insert_after(a, "[peer b]", peer_keys);
	char *c = insert_after(b, "[eal]", eal_keys);
	char *d = insert_after(c, "[congestion]", cong_keys);
	struct load_result r;
	const struct ls_port_conf *p;
	uint8_t want6[16];

	(void)state;
	r = load_text(d, &cfg);
	expect_ok(&r);
	p = &cfg.ports[1];
	assert_true(p->mac_set);
	assert_memory_equal(p->mac, ((uint8_t[]){ 0x02, 0xab, 0xcd, 0, 0, 1 }), 6);
	assert_int_equal(p->gateway4.family, AF_INET);
	assert_memory_equal(p->gateway4.a, ((uint8_t[]){ 192, 0, 2, 254 }), 4);
	assert_int_equal(p->gateway6.family, AF_INET6);
	assert_int_equal(p->vlan, 4094);
	assert_int_equal(p->mtu, 9000);
	assert_int_equal(p->link_rate_bps, UINT64_C(400000000000));
	assert_int_equal(p->rx_desc, 4096);
	assert_int_equal(p->n_neigh, 2);
	assert_int_equal(p->neigh[1].ip.family, AF_INET6);
	inet_pton(AF_INET6, "2001:db8::2", want6);
	assert_memory_equal(p->neigh[1].ip.a, want6, 16);
	assert_int_equal(p->neigh[1].mac[5], 3);
	assert_int_equal(p->ipv4.len, 24);
	assert_memory_equal(p->ipv4.addr.a, ((uint8_t[]){ 192, 0, 2, 1 }), 4);
	assert_int_equal(p->ipv6.len, 64);

	assert_int_equal(cfg.peers[0].local.family, AF_INET);
	assert_int_equal(cfg.peers[0].n_prefixes, 3);
	/* In file order: the snippet's two, then base_conf's 10.2.0.0/16. */
	assert_int_equal(cfg.peers[0].prefixes[0].addr.family, AF_INET6);
	assert_int_equal(cfg.peers[0].prefixes[0].len, 64);
	assert_int_equal(cfg.peers[0].prefixes[1].len, 24);
	assert_int_equal(cfg.peers[0].prefixes[2].len, 16);
	assert_int_equal(cfg.peers[0].rtt_ns, 1000000);
	assert_int_equal(cfg.peers[0].vni, 7);

	assert_int_equal(cfg.cong.marker, LS_MARKER_PHANTOM);
	assert_int_equal(cfg.cong.mechanisms, LS_MECH_A | LS_MECH_C);
	assert_int_equal(cfg.cong.kmin_bytes, 100000);
	assert_int_equal(cfg.cong.kmax_bytes, 12500000);
	assert_int_equal(cfg.cong.pmax_ppm, 200000);
	assert_int_equal(cfg.cong.target_delay_ns, 50000);
	assert_int_equal(cfg.cong.phantom_ratio_ppm, 900000);
	assert_int_equal(cfg.cong.buffer_bytes, 16777216);
	assert_int_equal(cfg.cong.cnp_interval_ns, 0);
	assert_int_equal(cfg.cong.cnp_dscp, 46);
	assert_false(cfg.cong.ce_clear);
	assert_int_equal(cfg.cong.hold_ns, 1500000);
	assert_int_equal(cfg.cong.flow_idle_ns, 2000000000);

	assert_string_equal(cfg.eal.lcores, "0-2");
	assert_true(cfg.eal.main_lcore_set);
	assert_int_equal(cfg.eal.main_lcore, 0);
	assert_int_equal(cfg.eal.memory_mb, 1024);
	assert_string_equal(cfg.eal.file_prefix, "lsa");
	assert_true(cfg.eal.in_memory && cfg.eal.no_pci && cfg.eal.no_huge);
	assert_string_equal(cfg.eal.extra, "--log-level=lib.eal:8 -n 4");
	load_result_free(&r);
	free(a);
	free(b);
	free(c);
	free(d);
}

static void
test_distance_gives_rtt(void **state)
{
	char *t = with_snippet("[peer b]", "distance = 100km");
	struct load_result r;

	(void)state;
	*strstr(t, "rtt = 1ms") = ';'; /* comment the rtt out */
	r = load_text(t, &cfg);
	expect_ok(&r);
	assert_int_equal(cfg.peers[0].distance_m, 100000);
	/* 2 x 100 km x 4.9 us/km */
	assert_int_equal(cfg.peers[0].rtt_ns, 980000);
	load_result_free(&r);
	free(t);
}

/* Syntax inih accepts besides "key = value", and what the reader adds. */
static void
test_syntax_variants(void **state)
{
	static const char text[] =
		"\xef\xbb\xbf; a BOM, CRLF endings, indentation, ':' and inline comments\r\n"
		"[gateway]\r\n"
		"   name: x   ; the gateway name\r\n"
		"\tworkers=2\r\n"
		"# hash comment\r\n"
		"[ port  dc ]\n"
		"role = dc\n"
		"dev = net_ring0,arg=a;b\n"
		"ipv4 = 10.1.0.254/16\n"
		"[port wan]\n"
		"role = wan\n"
		"dev = net_ring1\n"
		"ipv4 = 192.0.2.1/24\n"
		"[eal] ; trailing comment\n"
		"lcores = 0-2";
	struct load_result r = load_text(text, &cfg);

	(void)state;
	expect_ok(&r);
	assert_string_equal(cfg.gw.name, "x");
	assert_int_equal(cfg.gw.workers, 2);
	assert_string_equal(cfg.ports[0].name, "dc");
	assert_string_equal(cfg.ports[0].dev, "net_ring0,arg=a;b");
	assert_string_equal(cfg.eal.lcores, "0-2");
	assert_int_equal(cfg.n_peers, 0);
	load_result_free(&r);
}

struct bad_value {
	const char *header; /* section to put the line in */
	const char *line;
	const char *want; /* substring of the message */
};

/* Bad values of each type: message names the key and the problem. */
static const struct bad_value bad_values[] = {
	{ "[eal]", "no_pci = maybe", "[eal] no_pci: 'maybe' is not a boolean" },
	{ "[gateway]", "workers = 0", "[gateway] workers: 0 out of range (1 .. 16)" },
	{ "[gateway]", "burst = 65", "burst: 65 out of range (1 .. 64 packets)" },
	{ "[gateway]", "mbufs = 100", "mbufs: 100 out of range (0 or 1024 .. 67108864)" },
	{ "[gateway]", "idle_sleep = 1s", "idle_sleep: 1s out of range (0 .. 10ms)" },
	{ "[gateway]", "idle_sleep = 100", "idle_sleep: bad value '100': needs a unit" },
	{ "[gateway]", "geneve_port = 0x17c1", "bad value '0x17c1': not a whole number" },
	{ "[gateway]", "name = a b", "name: 'a b' may contain only letters" },
	{ "[gateway]", "name = 0123456789012345678901234567890123",
	  "name: '0123456789012345678901234567890123...' is longer than 31 characters" },
	{ "[gateway]", "socket =", "[gateway] socket: missing value" },
	{ "[port wan]", "role = router", "role: 'router' is not one of: dc, wan" },
	{ "[port wan]", "mac = 01:00:5e:00:00:01", "mac: 01:00:5e:00:00:01 is a multicast MAC" },
	{ "[port wan]", "mac = 02:00:00:00:00", "mac: '02:00:00:00:00' is not a MAC address" },
	{ "[port wan]", "mac = 00:00:00:00:00:00", "is the all-zero MAC address" },
	{ "[port wan]", "ipv4 = 192.0.2.1", "t.conf:14: [port wan] ipv4: duplicate key (first set on line 11)" },
	{ "[port wan]", "gateway4 = 192.0.2.300", "gateway4: '192.0.2.300' is not an IPv4 address" },
	{ "[port wan]", "gateway4 = 2001:db8::9", "gateway4: '2001:db8::9' is not an IPv4 address" },
	{ "[port wan]", "gateway6 = 192.0.2.9", "gateway6: '192.0.2.9' is not an IPv6 address" },
	{ "[port wan]", "vlan = 4095", "vlan: 4095 out of range (0 .. 4094)" },
	{ "[port wan]", "mtu = 9217", "mtu: 9217 out of range (576 .. 9216 bytes)" },
	{ "[port wan]", "link_rate = 2T", "link_rate: 2T out of range (0 or 1M .. 1.6T)" },
	{ "[port wan]", "link_rate = 10Gbit", "link_rate: bad value '10Gbit': unknown unit" },
	{ "[port wan]", "rx_desc = 1000", "rx_desc: 1000 is not a power of two" },
	{ "[port wan]", "neighbor = 192.0.2.2", "neighbor: '192.0.2.2' is not 'IP MAC'" },
	{ "[port wan]", "neighbor = 192.0.2.2 zz:00:00:00:00:01", "'zz:00:00:00:00:01' is not a MAC" },
	{ "[port wan]", "neighbor = 224.0.0.1 02:00:00:00:00:01", "224.0.0.1 is a multicast address" },
	{ "[peer b]", "remote = 0.0.0.0", "duplicate key" },
	{ "[peer b]", "local = ::", "local: :: is the unspecified address" },
	{ "[peer b]", "local = 127.0.0.1", "local: 127.0.0.1 is a loopback address" },
	{ "[peer b]", "vni = 16777216", "vni: 16777216 out of range (0 .. 16777215)" },
	{ "[peer b]", "vni = -1", "vni: bad value '-1'" },
	{ "[peer b]", "distance = 20001km", "distance: 20001km out of range (1m .. 20000km)" },
	{ "[peer b]", "prefix = 10.2.0.1/16", "10.2.0.1/16 has host bits set (did you mean 10.2.0.0/16?)" },
	{ "[peer b]", "prefix = 10.2.0.0/16", "t.conf:22: [peer b] prefix: 10.2.0.0/16 is already a prefix of this peer (line 17)" },
	{ "[peer b]", "prefix = 10.3.0.0", "'10.3.0.0' needs a prefix length" },
	{ "[peer b]", "prefix = 10.3.0.0/33", "'10.3.0.0/33' has a bad prefix length (0 .. 32)" },
	{ "[peer b]", "prefix = fd00::/129", "has a bad prefix length (0 .. 128)" },
	{ "[peer b]", "prefix = 10.3.0.0/1x", "'10.3.0.0/1x' has a bad prefix length" },
	{ "[peer b]", "prefix = fd00:3::1/64", "has host bits set (did you mean fd00:3::/64?)" },
	{ "[congestion]", "marker = codel", "marker: 'codel' is not one of: none, red, sojourn, phantom" },
	{ "[congestion]", "mechanisms = B", "mechanisms: 'B' names an unknown mechanism" },
	{ "[congestion]", "mechanisms = A,A", "'A,A' names a mechanism twice" },
	{ "[congestion]", "mechanisms = A,", "'A,' ends with ','" },
	{ "[congestion]", "mechanisms = AC", "'AC' is not a mechanism list" },
	{ "[congestion]", "pmax = 1.5", "pmax: 1.5 out of range (0 .. 1)" },
	{ "[congestion]", "pmax = 0.00000001", "not a whole number" },
	{ "[congestion]", "phantom_ratio = 5%", "phantom_ratio: 5% out of range (0.1 .. 1)" },
	{ "[congestion]", "kmin = 64K", "kmin: bad value '64K': ambiguous unit" },
	{ "[congestion]", "cnp_dscp = 64", "cnp_dscp: 64 out of range (0 .. 63)" },
	{ "[congestion]", "buffer = 1kB", "buffer: 1kB out of range (0 or 64KiB .. 4GB)" },
	{ "[congestion]", "hold = 1.5ns", "hold: bad value '1.5ns': not a whole number" },
	{ "[congestion]", "speed = 1", "[congestion] speed: unknown key" },
	{ "[congestion]", "kmn = 1", "[congestion] kmn: unknown key (did you mean kmin?)" },
	{ "[congestion]", "= 1", "[congestion]: missing key name before '='" },
	{ "[congestion]", "ce_clear", "[congestion]: expected 'key = value' or '[section]'" },
	{ "[congestion]", "ce_clear = \x01", "value contains a control character" },
	{ "[congestion]", "ce_clear=;yes", "value starts with ';'" },
	{ "[eal]", "main_lcore = 1024", "main_lcore: 1024 out of range (0 .. 1023)" },
	{ "[eal]", "file_prefix = a/b", "file_prefix: 'a/b' may contain only" },
};

static void
test_bad_values(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(bad_values) / sizeof(bad_values[0]); i++) {
		char *t = with_snippet(bad_values[i].header, bad_values[i].line);
		struct load_result r = load_text(t, &cfg);

		if (r.rc != -EINVAL || strstr(r.errors, bad_values[i].want) == NULL)
			fail_msg("'%s': rc %d, want '%s', got:\n%s", bad_values[i].line, r.rc,
				 bad_values[i].want, r.errors);
		/* A bad value is reported once, with this file's name and a line. */
		if (strncmp(r.errors, "t.conf:", 7) != 0)
			fail_msg("'%s': message without FILE:LINE: %s", bad_values[i].line, r.errors);
		load_result_free(&r);
		free(t);
	}
}

/* Failure leaves the caller's struct exactly as it was. */
static void
test_failure_leaves_cfg(void **state)
{
	char *t = with_snippet("[peer b]", "vni = 1");
	struct load_result r;

	(void)state;
	memset(&cfg, 0xa5, sizeof(cfg));
	memset(&cfg2, 0xa5, sizeof(cfg2));
	r = load_text(t, &cfg);
	/* "vni = 1" is on line 17, the original one on 20. */
	expect_error(&r, "t.conf:20: [peer b] vni: duplicate key (first set on line 17)");
	assert_memory_equal(&cfg, &cfg2, sizeof(cfg));
	load_result_free(&r);
	free(t);
}

/* Every error of a file comes out, each with its line, sorted by line. */
static void
test_all_errors_reported(void **state)
{
	static const char text[] =
		"[gateway]\n"                    /* 1 */
		"workers = 99\n"                 /* 2 */
		"burst = 32\n"                   /* 3 */
		"burst = 16\n"                   /* 4 */
		"[port dc]\n"                    /* 5 */
		"role = dc\n"                    /* 6 */
		"dev = net_ring0\n"              /* 7 */
		"ipv4 = 10.1.0.0/16\n"           /* 8 */
		"bogus = 1\n"                    /* 9 */
		"[port wan]\n"                   /* 10 */
		"role = wan\n"                   /* 11 */
		"ipv4 = 192.0.2.1/24\n"          /* 12 */
		"[peer b]\n"                     /* 13 */
		"port = wan\n"                   /* 14 */
		"remote = 192.0.2.2\n"           /* 15 */
		"vni = 16777216\n"               /* 16 */
		"rtt = 1ms\n"                    /* 17 */
		"distance = 100km\n"             /* 18 */
		"prefix = 10.2.0.0/16\n"         /* 19 */
		"[whatever]\n"                   /* 20 */
		"x = 1\n"                        /* 21 */
		"[congestion]\n"                 /* 22 */
		"kmin = 2MB\n"                   /* 23 */
		"kmax = 1MB\n";                  /* 24 */
	static const char *const want[] = {
		"t.conf:2: [gateway] workers: 99 out of range (1 .. 16)\n",
		"t.conf:4: [gateway] burst: duplicate key (first set on line 3)\n",
		"t.conf:8: [port dc] ipv4: 10.1.0.0/16 is the network address of its subnet\n",
		"t.conf:9: [port dc] bogus: unknown key\n",
		"t.conf:10: [port wan] dev: missing required key\n",
		"t.conf:16: [peer b] vni: 16777216 out of range (0 .. 16777215)\n",
		"t.conf:18: [peer b] distance: set rtt or distance, not both\n",
		"t.conf:20: unknown section [whatever] (known: [gateway], [eal], [port NAME], "
		"[peer NAME], [congestion], [hook NAME], [telemetry], [peering])\n",
		"t.conf:23: [congestion] kmin: 2MB, kmax 1MB: kmin must be below kmax\n",
	};
	struct load_result r = load_text(text, &cfg);
	const char *at = r.errors;

	(void)state;
	assert_int_equal(r.rc, -EINVAL);
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		const char *hit = strstr(at, want[i]);

		if (hit == NULL)
			fail_msg("missing or out of order: %s\ngot:\n%s", want[i], r.errors);
		at = hit + strlen(want[i]);
	}
	/* The dc port is missing ipv6 but has ipv4 (bad): no extra message. */
	if (r.n_lines != sizeof(want) / sizeof(want[0]))
		fail_msg("%u error lines, want %zu:\n%s", r.n_lines, sizeof(want) / sizeof(want[0]),
			 r.errors);
	load_result_free(&r);
}

static void
test_line_limits(void **state)
{
	char text[4096];
	struct load_result r;

	(void)state;
	/* A line longer than inih's buffer is an error, not silently split. */
	snprintf(text, sizeof(text), "%skmin = %0300d\n", base_conf, 7);
	r = load_text(text, &cfg);
	expect_error(&r, "t.conf:26: line is longer than");
	assert_int_equal(r.n_lines, 1);
	load_result_free(&r);

	/* A NUL byte inside a line. */
	memcpy(text, "[gateway]\nna\0me = x\n", 20);
	r = load_bytes(text, 20, &cfg);
	expect_error(&r, "t.conf:2: line contains a NUL byte");
	load_result_free(&r);

	/* An empty file: no ports. */
	r = load_bytes("", 0, &cfg);
	expect_error(&r, "t.conf:1: no [port] has role = dc; exactly one is required");
	expect_error(&r, "t.conf:1: no [port] has role = wan; at least one is required");
	load_result_free(&r);

	/* Garbage after a header, a header without ']', a key outside sections. */
	r = load_text("x = 1\n[gateway] junk\nname = y\n[port dc\nrole = dc\n", &cfg);
	expect_error(&r, "t.conf:1: x: key outside any section");
	expect_error(&r, "t.conf:2: [gateway]: text after ']'");
	expect_error(&r, "t.conf:4: section header without a closing ']'");
	/* Keys of a rejected section are not reported again. */
	assert_int_equal(r.n_lines, 5);
	load_result_free(&r);
}

/*
 * config_load(PATH) in a child process, so that a loader that blocks fails
 * the test instead of hanging it: the child exits 0 when the load returned
 * within LOAD_DEADLINE_MS with rc WANT_RC (0: success) and, for a failure,
 * exactly one message line containing WANT.
 */
#define LOAD_DEADLINE_MS 3000

static void
load_path_bounded(const char *path, int want_rc, const char *want)
{
	struct timespec start, now;
	int status = 0;
	pid_t pid, done = 0;

	fflush(NULL);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		char *msg = NULL;
		size_t size = 0;
		FILE *err = open_memstream(&msg, &size);
		int rc = config_load(path, &cfg, err);

		fclose(err);
		if (rc != want_rc || (want != NULL && (strstr(msg, want) == NULL ||
						       count_lines(msg) != 1))) {
			fprintf(stderr, "%s: rc %d (want %d), messages:\n%s", path, rc, want_rc, msg);
			_exit(1);
		}
		_exit(0);
	}
	clock_gettime(CLOCK_MONOTONIC, &start);
	do {
		usleep(2000);
		done = waitpid(pid, &status, WNOHANG);
		clock_gettime(CLOCK_MONOTONIC, &now);
	} while (done == 0 && (now.tv_sec - start.tv_sec) * 1000 +
				      (now.tv_nsec - start.tv_nsec) / 1000000 < LOAD_DEADLINE_MS);
	if (done == 0) {
		kill(pid, SIGKILL);
		waitpid(pid, &status, 0);
		fail_msg("config_load(%s) still running after %d ms", path, LOAD_DEADLINE_MS);
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		fail_msg("config_load(%s): wrong result (status %d)", path, status);
}

/* BASE_CONF padded with comment lines to exactly SIZE bytes, written to PATH. */
static void
write_padded(const char *path, size_t size)
{
	static const char pad[] = "; padding padding padding padding padding padding padding\n";
	size_t left = size - strlen(base_conf);
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	assert_true(size > strlen(base_conf) + 1);
	fputs(base_conf, f);
	while (left > sizeof(pad) - 1) {
		fputs(pad, f);
		left -= sizeof(pad) - 1;
	}
	/* The rest: one short comment line of exactly LEFT bytes. */
	fputc(';', f);
	for (left--; left > 1; left--)
		fputc(' ', f);
	if (left == 1)
		fputc('\n', f);
	assert_int_equal(fclose(f), 0);
}

/*
 * Only a regular file of at most LS_CONFIG_MAX_BYTES is read: a FIFO, a
 * character device, a directory or a huge file are refused at once, never
 * waited on or read (the reload path runs on the control thread).
 */
static void
test_load_refuses_non_regular(void **state)
{
	char dir[] = "/tmp/test-config-XXXXXX", path[128];
	struct stat st;

	(void)state;
	assert_non_null(mkdtemp(dir));
	load_path_bounded(dir, -EINVAL, "not a regular file (a directory)");

	/* Nobody writes the FIFO: an open without O_NONBLOCK waits forever. */
	snprintf(path, sizeof(path), "%s/fifo.conf", dir);
	assert_int_equal(mkfifo(path, 0600), 0);
	load_path_bounded(path, -EINVAL, "not a regular file (a FIFO)");
	unlink(path);

	/* Endless zeros: a reader of lines never finds the end of the first. */
	load_path_bounded("/dev/zero", -EINVAL, "/dev/zero: not a regular file (a character device)");

	snprintf(path, sizeof(path), "%s/missing.conf", dir);
	load_path_bounded(path, -ENOENT, "missing.conf: cannot open: No such file or directory");

	/* At the limit it loads; one byte more is refused before reading. */
	snprintf(path, sizeof(path), "%s/big.conf", dir);
	write_padded(path, LS_CONFIG_MAX_BYTES);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal((size_t)st.st_size, LS_CONFIG_MAX_BYTES);
	load_path_bounded(path, 0, NULL);
	write_padded(path, LS_CONFIG_MAX_BYTES + 1);
	load_path_bounded(path, -EFBIG, "big.conf: 1048577 bytes: larger than the 1048576-byte limit");
	/* A sparse 300 MB file: refused by its size, not read for seconds. */
	assert_int_equal(truncate(path, 300ll << 20), 0);
	load_path_bounded(path, -EFBIG, "big.conf: 314572800 bytes: larger than");
	unlink(path);
	assert_int_equal(rmdir(dir), 0);
}

/* The cap on reported errors. */
static void
test_error_cap(void **state)
{
	char *text = malloc(200 * 16 + 16);
	struct load_result r;

	(void)state;
	assert_non_null(text);
	strcpy(text, "[gateway]\n");
	for (int i = 0; i < 200; i++)
		strcat(text, "bogus = 1\n");
	r = load_text(text, &cfg);
	expect_error(&r, "too many errors, giving up");
	assert_int_equal(r.n_lines, 101);
	load_result_free(&r);
	free(text);
}

/* Dump, load the dump, compare: the structs must be identical (but for
 * the file name and the header lines, which name the source file). */
static void
round_trip(const struct ls_config *orig)
{
	char *text = NULL, *text2 = NULL;
	size_t size = 0, size2 = 0;
	FILE *f = open_memstream(&text, &size);
	struct ls_config a, b;
	struct load_result r;

	assert_non_null(f);
	config_dump(orig, f);
	fclose(f);
	r = load_text(text, &b);
	if (r.rc != 0)
		fail_msg("dump does not load:\n%s\n--- dump:\n%s", r.errors, text);
	memcpy(&a, orig, sizeof(a));
	memset(a.path, 0, sizeof(a.path));
	memset(b.path, 0, sizeof(b.path));
	for (unsigned int i = 0; i < LS_MAX_PORTS; i++)
		a.ports[i].line = b.ports[i].line = 0;
	for (unsigned int i = 0; i < LS_MAX_PEERS; i++)
		a.peers[i].line = b.peers[i].line = 0;
	for (unsigned int i = 0; i < LS_MAX_HOOKS; i++)
		a.hooks[i].line = b.hooks[i].line = 0;
	if (memcmp(&a, &b, sizeof(a)) != 0)
		fail_msg("dump loads to a different config; dump:\n%s", text);

	/* And the dump of the reloaded config is the same text. */
	f = open_memstream(&text2, &size2);
	assert_non_null(f);
	b.path[0] = '\0';
	a.path[0] = '\0';
	config_dump(&b, f);
	fclose(f);
	free(text);
	text = NULL;
	f = open_memstream(&text, &size);
	config_dump(&a, f);
	fclose(f);
	assert_string_equal(text, text2);
	load_result_free(&r);
	free(text);
	free(text2);
}

static void
test_round_trip_base(void **state)
{
	struct load_result r = load_text(base_conf, &cfg);

	(void)state;
	expect_ok(&r);
	round_trip(&cfg);
	load_result_free(&r);

	/* With a distance instead of an rtt. */
	char *t = with_snippet("[peer b]", "distance = 640km");
	*strstr(t, "rtt = 1ms") = ';';
	r = load_text(t, &cfg);
	expect_ok(&r);
	round_trip(&cfg);
	load_result_free(&r);
	free(t);
}

/* [hook NAME] and [telemetry]: defaults that depend on the name, points in order, round trip. */
static void
test_hooks_and_telemetry(void **state)
{
	char obj[] = "/tmp/ls-config-hook-XXXXXX";
	int fd = mkstemp(obj);
	char snippet[512], *t, *u;
	struct load_result r;

	(void)state;
	assert_true(fd >= 0);
	close(fd);
	snprintf(snippet, sizeof(snippet),
		 "\n[hook roce.flow]\nobject = %s\npoints = wan_tx, dc_rx\n"
		 "\n[telemetry]\ninterval = 500ms\nprometheus = [::1]:9464\n"
		 "ipfix = udp://192.0.2.9:4739\n",
		 obj);
	t = malloc(strlen(base_conf) + strlen(snippet) + 1);
	assert_non_null(t);
	strcpy(t, base_conf);
	strcat(t, snippet);
	r = load_text(t, &cfg);
	expect_ok(&r);
	assert_int_equal(cfg.n_hooks, 1);
	assert_string_equal(cfg.hooks[0].section, "roce.flow");
	assert_int_equal(cfg.hooks[0].n_points, 2);
	assert_int_equal(cfg.hooks[0].order[0], 2); /* wan_tx */
	assert_int_equal(cfg.hooks[0].order[1], 0); /* dc_rx */
	assert_int_equal(cfg.hooks[0].points, 0x5);
	assert_int_equal(cfg.hooks[0].max_insns, 4096);
	assert_int_equal(cfg.tel.interval_ns, 500000000u);
	assert_int_equal(cfg.tel.prom_addr.family, AF_INET6);
	assert_int_equal(cfg.tel.prom_port, 9464);
	assert_int_equal(cfg.tel.ipfix_transport, 0);
	assert_int_equal(cfg.tel.ipfix_port, 4739);
	round_trip(&cfg);
	load_result_free(&r);

	/* An interval above the timeouts is refused with both keys named. */
	u = insert_after(t, "interval = 500ms", "\nidle_timeout = 1s\nactive_timeout = 1s");
	*strstr(u, "interval = 500ms") = ';';
	free(t);
	t = insert_after(u, "[telemetry]", "\ninterval = 2s");
	r = load_text(t, &cfg);
	assert_non_null(strstr(r.errors, "[telemetry] active_timeout: must be at least interval"));
	assert_non_null(strstr(r.errors, "[telemetry] idle_timeout: must be at least interval"));
	load_result_free(&r);
	free(t);
	free(u);
	unlink(obj);
}

static char *
path_join(const char *dir, const char *name)
{
	size_t n = strlen(dir) + strlen(name) + 2;
	char *p = malloc(n);

	assert_non_null(p);
	snprintf(p, n, "%s/%s", dir, name);
	return p;
}

static void
load_file_ok(const char *path, struct ls_config *out)
{
	char *msg = NULL;
	size_t size = 0;
	FILE *err = open_memstream(&msg, &size);
	int rc;

	assert_non_null(err);
	rc = config_load(path, out, err);
	fclose(err);
	if (rc != 0 || size != 0)
		fail_msg("%s: rc %d:\n%s", path, rc, msg);
	free(msg);
}

/*
 * The shipped lab configs load and round-trip, and the two sites point at
 * each other. (Their tunables belong to the lab and change with it, so only
 * the structure is checked here.)
 */
static void
test_example_configs(void **state)
{
	char *a = path_join(examples_dir, "site-a.conf");
	char *b = path_join(examples_dir, "site-b.conf");
	const struct ls_config *site[2] = { &cfg, &cfg2 };

	(void)state;
	load_file_ok(a, &cfg);
	load_file_ok(b, &cfg2);
	assert_string_equal(cfg.path, a);
	assert_string_equal(cfg.gw.name, "site-a");
	assert_string_equal(cfg2.gw.name, "site-b");
	assert_string_equal(cfg.gw.socket_path, "/run/longspan/site-a.sock");
	for (int s = 0; s < 2; s++) {
		const struct ls_config *c = site[s], *o = site[1 - s];

		assert_true(c->dc_port >= 0);
		assert_int_equal(c->ports[c->dc_port].role, LS_PORT_DC);
		assert_true(c->n_peers >= 1);
		assert_string_equal(c->peers[0].name, o->gw.name);
		assert_true(c->peers[0].rtt_ns > 0);
		assert_int_equal(c->ports[c->peers[0].port_index].role, LS_PORT_WAN);
		/* This site's peer is the other site's wan address, same VNI. */
		assert_int_equal(c->peers[0].remote.family, AF_INET);
		assert_memory_equal(c->peers[0].remote.a,
				    o->ports[o->peers[0].port_index].ipv4.addr.a, 4);
		assert_int_equal(c->peers[0].vni, o->peers[0].vni);
		/* The peer's prefixes cover the other site's dc subnet. */
		assert_int_equal(c->peers[0].prefixes[0].addr.family, AF_INET);
		assert_memory_equal(c->peers[0].prefixes[0].addr.a,
				    o->ports[o->dc_port].ipv4.addr.a, c->peers[0].prefixes[0].len / 8);
		/* Nothing to warn about: every memif buffer holds the port's frames. */
		{
			char *w = NULL;
			size_t size = 0;
			FILE *f = open_memstream(&w, &size);
			unsigned int n;

			assert_non_null(f);
			n = config_warn(c, f);
			fclose(f);
			if (n != 0)
				fail_msg("%s warns: %s", c->path, w);
			free(w);
		}
		round_trip(c);
	}
	free(a);
	free(b);
}

static int
conf_filter(const struct dirent *d)
{
	size_t n = strlen(d->d_name);

	return n > 5 && strcmp(d->d_name + n - 5, ".conf") == 0;
}

/* Every good config loads and round-trips. */
static void
test_good_corpus(void **state)
{
	char *dir = path_join(configs_dir, "good");
	struct dirent **names;
	int n = scandir(dir, &names, conf_filter, alphasort);

	(void)state;
	assert_true(n >= 3);
	for (int i = 0; i < n; i++) {
		char *p = path_join(dir, names[i]->d_name);

		load_file_ok(p, &cfg);
		round_trip(&cfg);
		free(p);
		free(names[i]);
	}
	free(names);
	free(dir);
}

/*
 * Every bad config fails with its expected messages. The file's leading
 * comment lines hold the expectations:
 *   ; expect: <substring, starting with :LINE:>   (one or more)
 *   ; errors: N                                   (optional exact count)
 * Each expectation must appear right after the file's name, so the
 * message carries FILE:LINE.
 */
static void
check_bad_file(const char *dir, const char *name)
{
	char *path = path_join(dir, name);
	FILE *f = fopen(path, "r");
	char line[512], *msg = NULL;
	char want[16][512];
	unsigned int n_want = 0, n_lines;
	int errors = -1, rc;
	size_t size = 0;
	bool files_only = false;
	FILE *err;

	assert_non_null(f);
	while (fgets(line, sizeof(line), f) != NULL) {
		line[strcspn(line, "\n")] = '\0';
		if (strncmp(line, "; expect: ", 10) == 0 && n_want < 16)
			snprintf(want[n_want++], sizeof(want[0]), "%s%s", name, line + 10);
		else if (strncmp(line, "; errors: ", 10) == 0)
			errors = atoi(line + 10);
		else if (strcmp(line, "; stage: files") == 0)
			files_only = true;
		else
			break;
	}
	fclose(f);
	if (n_want == 0)
		fail_msg("%s: no '; expect:' line at the top", path);
	/* The file parses; --check-config refuses it when it loads the files it names. */
	if (files_only) {
		assert_int_equal(config_load(path, &cfg, NULL), 0);
		free(path);
		return;
	}

	err = open_memstream(&msg, &size);
	assert_non_null(err);
	rc = config_load(path, &cfg, err);
	fclose(err);
	n_lines = count_lines(msg);
	if (rc != -EINVAL)
		fail_msg("%s: rc %d, want -EINVAL; output:\n%s", path, rc, msg);
	for (unsigned int i = 0; i < n_want; i++)
		if (strstr(msg, want[i]) == NULL)
			fail_msg("%s: missing '%s'; output:\n%s", path, want[i], msg);
	if (errors >= 0 && n_lines != (unsigned int)errors)
		fail_msg("%s: %u error lines, want %d; output:\n%s", path, n_lines, errors, msg);
	/* No message may come from a table default (line 0). */
	if (strstr(msg, ":0: ") != NULL)
		fail_msg("%s: a default failed to parse:\n%s", path, msg);
	free(msg);
	free(path);
}

static void
test_bad_corpus(void **state)
{
	char *dir = path_join(configs_dir, "bad");
	struct dirent **names;
	int n = scandir(dir, &names, conf_filter, alphasort);

	(void)state;
	if (n < 30)
		fail_msg("%s: %d bad configs, want at least 30", dir, n);
	for (int i = 0; i < n; i++) {
		check_bad_file(dir, names[i]->d_name);
		free(names[i]);
	}
	free(names);
	free(dir);
}

/* docs/config.md is exactly what the key table generates. */
static void
test_doc_current(void **state)
{
	char *gen = NULL, *file = NULL;
	size_t gen_size = 0, file_size = 0, line = 1;
	FILE *f = open_memstream(&gen, &gen_size);
	FILE *d = fopen(doc_path, "r");

	(void)state;
	assert_non_null(f);
	config_doc_markdown(f);
	fclose(f);
	if (d == NULL)
		fail_msg("%s: %s", doc_path, strerror(errno));
	file = malloc(gen_size + 2);
	assert_non_null(file);
	file_size = fread(file, 1, gen_size + 1, d);
	fclose(d);
	file[file_size] = '\0';
	for (size_t i = 0; i < gen_size && i < file_size; i++) {
		if (gen[i] != file[i]) {
			fail_msg("%s differs from config_doc_markdown() at line %zu; regenerate "
				 "with: config-tool --config-doc > docs/config.md",
				 doc_path, line);
		}
		line += gen[i] == '\n';
	}
	if (file_size != gen_size)
		fail_msg("%s is %zu bytes, the generated text %zu; regenerate with: config-tool "
			 "--config-doc > docs/config.md",
			 doc_path, file_size, gen_size);
	free(gen);
	free(file);
}

/* The key table itself: names unique per section, help in sentences,
 * limits consistent, enum keys with names, repeatable keys with arrays. */
static void
test_key_table(void **state)
{
	(void)state;
	assert_true(config_n_keys <= CONFIG_KEYS_MAX);
	for (unsigned int i = 0; i < config_n_keys; i++) {
		const struct conf_key *k = &config_keys[i];
		size_t h = strlen(k->help);

		assert_ptr_equal(config_key_find(k->section, k->name), k);
		assert_int_equal(config_key_index(k), i);
		if (h < 10 || k->help[h - 1] != '.')
			fail_msg("%s: help is not a sentence", k->name);
		if (k->min > k->max)
			fail_msg("%s: min > max", k->name);
		if (k->type == CONFIG_T_ENUM && k->names == NULL)
			fail_msg("%s: enum without names", k->name);
		if ((k->flags & CONF_F_REPEAT) &&
		    (k->count_offset == CONF_NO_OFFSET || k->max_count == 0))
			fail_msg("%s: repeatable without a count", k->name);
		if ((k->flags & CONF_F_REQUIRED) && k->def != NULL)
			fail_msg("%s: required and defaulted", k->name);
	}
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_key_table),
		cmocka_unit_test(test_base_loads),
		cmocka_unit_test(test_rtt_auto_default),
		cmocka_unit_test(test_warn_mechanisms_workers),
		cmocka_unit_test(test_warn_memif_bsize),
		cmocka_unit_test(test_warn_no_peer),
		cmocka_unit_test(test_warn_lossless_headroom),
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_every_type),
		cmocka_unit_test(test_distance_gives_rtt),
		cmocka_unit_test(test_syntax_variants),
		cmocka_unit_test(test_bad_values),
		cmocka_unit_test(test_failure_leaves_cfg),
		cmocka_unit_test(test_all_errors_reported),
		cmocka_unit_test(test_line_limits),
		cmocka_unit_test(test_error_cap),
		cmocka_unit_test(test_load_refuses_non_regular),
		cmocka_unit_test(test_round_trip_base),
		cmocka_unit_test(test_hooks_and_telemetry),
		cmocka_unit_test(test_example_configs),
		cmocka_unit_test(test_good_corpus),
		cmocka_unit_test(test_bad_corpus),
		cmocka_unit_test(test_doc_current),
	};

	if (argc > 1)
		configs_dir = argv[1];
	if (argc > 2)
		examples_dir = argv[2];
	if (argc > 3)
		doc_path = argv[3];
	return cmocka_run_group_tests(tests, NULL, NULL);
}
