/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Robustness of config_load_stream() against garbage (style.md rule 13):
 * seeded random bytes, mutations and truncations of a real config, and
 * structured "soup" built from the key table with good and bad values.
 * Properties checked on every input:
 *   - it returns 0 or -EINVAL, never crashes (run under ASan/UBSan in CI);
 *   - on failure, at least one message and every line is "FILE:LINE: ...";
 *   - on success, no message, and config_dump() loads back to the same struct.
 *
 * Argument: a valid config to mutate (config/site-a.conf).
 */

#include <ctype.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "control/config.h"
#include "control/config_keys.h"

#define FUZZ_ITERATIONS 3000
#define FUZZ_MAX 8192

static const char *seed_path = "config/site-a.conf";
static char seed_text[FUZZ_MAX];
static size_t seed_len;
static uint64_t rng_state;

static uint64_t
rng(void)
{
	/* xorshift64*: deterministic for a given seed, good enough here. */
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * UINT64_C(2685821657736338717);
}

static unsigned int
rng_below(unsigned int n)
{
	return n == 0 ? 0 : (unsigned int)(rng() % n);
}

static struct ls_config fuzz_cfg, fuzz_cfg2;
static unsigned int fuzz_ok, fuzz_failed;

/* Check the error stream: every line is "f.conf:DIGITS: text". */
static void
check_messages(const char *msg, const char *input, size_t len)
{
	const char *line = msg;

	while (*line != '\0') {
		const char *nl = strchr(line, '\n');
		const char *p = line + 7;

		if (nl == NULL || strncmp(line, "f.conf:", 7) != 0 || !isdigit((unsigned char)*p))
			goto bad;
		while (isdigit((unsigned char)*p))
			p++;
		if (*p != ':' || p[1] != ' ' || p + 2 >= nl)
			goto bad;
		line = nl + 1;
	}
	return;
bad:
	fail_msg("malformed message '%.80s' for input (%zu bytes):\n%.*s", line, len,
		 (int)(len < 2000 ? len : 2000), input);
}

static void
round_trip(const struct ls_config *cfg)
{
	char *text = NULL, *msg = NULL;
	size_t size = 0, msg_size = 0;
	FILE *out = open_memstream(&text, &size);
	FILE *err = open_memstream(&msg, &msg_size);
	FILE *in;
	struct ls_config a;
	int rc;

	assert_non_null(out);
	assert_non_null(err);
	config_dump(cfg, out);
	fclose(out);
	in = fmemopen(text, size, "r");
	assert_non_null(in);
	rc = config_load_stream(in, "f.conf", &fuzz_cfg2, err);
	fclose(in);
	fclose(err);
	if (rc != 0)
		fail_msg("dump does not load back:\n%s\n--- dump:\n%s", msg, text);
	memcpy(&a, cfg, sizeof(a));
	memset(a.path, 0, sizeof(a.path));
	memset(fuzz_cfg2.path, 0, sizeof(fuzz_cfg2.path));
	for (unsigned int i = 0; i < LS_MAX_PORTS; i++)
		a.ports[i].line = fuzz_cfg2.ports[i].line = 0;
	for (unsigned int i = 0; i < LS_MAX_PEERS; i++)
		a.peers[i].line = fuzz_cfg2.peers[i].line = 0;
	if (memcmp(&a, &fuzz_cfg2, sizeof(a)) != 0) {
		/* cmocka truncates long messages: print the dump in full first. */
		fprintf(stderr, "--- dump that loads differently:\n%s", text);
		for (size_t i = 0; i < sizeof(a); i++)
			if (((const uint8_t *)&a)[i] != ((const uint8_t *)&fuzz_cfg2)[i]) {
				fprintf(stderr, "--- first difference at byte %zu of %zu\n", i,
					sizeof(a));
				break;
			}
		fail_msg("dump loads to a different config");
	}
	free(text);
	free(msg);
}

static void
fuzz_one(const char *input, size_t len)
{
	char *msg = NULL;
	size_t msg_size = 0;
	FILE *err = open_memstream(&msg, &msg_size);
	FILE *in = len > 0 ? fmemopen((void *)(uintptr_t)input, len, "r") : fopen("/dev/null", "r");
	int rc;

	assert_non_null(err);
	assert_non_null(in);
	rc = config_load_stream(in, "f.conf", &fuzz_cfg, err);
	fclose(in);
	fclose(err);
	if (rc != 0 && rc != -EINVAL)
		fail_msg("rc %d", rc);
	if (rc == 0) {
		if (msg_size != 0)
			fail_msg("success with messages:\n%s", msg);
		round_trip(&fuzz_cfg);
		fuzz_ok++;
	} else {
		if (msg_size == 0)
			fail_msg("failure without a message for:\n%.*s", (int)len, input);
		check_messages(msg, input, len);
		fuzz_failed++;
	}
	free(msg);
}

static void
test_fuzz_random_bytes(void **state)
{
	static const char alphabet[] = "[]=:;# \t\n\r\n\nabcdeglmnoprstuvwx0123456789./,-_%";
	static char buf[FUZZ_MAX];

	(void)state;
	rng_state = 1;
	for (int i = 0; i < FUZZ_ITERATIONS; i++) {
		size_t len = rng_below(2048);
		bool binary = (i % 4) == 0;

		for (size_t j = 0; j < len; j++)
			buf[j] = binary ? (char)rng() : alphabet[rng_below(sizeof(alphabet) - 1)];
		fuzz_one(buf, len);
	}
}

/* Byte flips, inserts, deletes, line duplication and truncation of a real
 * config: mostly near-valid input that reaches the deeper checks. */
static void
test_fuzz_mutations(void **state)
{
	static const char bytes[] = "[]=;#:/.,% \t\n0123456789abcdefx\x00\xff\xef\xbb\xbf";
	static char buf[FUZZ_MAX * 2];

	(void)state;
	rng_state = 2;
	for (int i = 0; i < FUZZ_ITERATIONS; i++) {
		size_t len = seed_len;
		unsigned int edits = 1 + rng_below(4);

		memcpy(buf, seed_text, seed_len);
		for (unsigned int e = 0; e < edits && len > 0; e++) {
			size_t at = rng_below((unsigned int)len);

			switch (rng_below(5)) {
			case 0: /* replace a byte */
				buf[at] = bytes[rng_below(sizeof(bytes) - 1)];
				break;
			case 1: /* insert a byte */
				if (len + 1 < sizeof(buf)) {
					memmove(buf + at + 1, buf + at, len - at);
					buf[at] = bytes[rng_below(sizeof(bytes) - 1)];
					len++;
				}
				break;
			case 2: { /* delete a run */
				size_t n = 1 + rng_below(40);

				if (at + n > len)
					n = len - at;
				memmove(buf + at, buf + at + n, len - at - n);
				len -= n;
				break;
			}
			case 3: { /* duplicate the line at AT */
				size_t s = at, t = at;

				while (s > 0 && buf[s - 1] != '\n')
					s--;
				while (t < len && buf[t] != '\n')
					t++;
				if (t < len && len + (t - s + 1) < sizeof(buf)) {
					memmove(buf + t + 1 + (t - s), buf + t + 1, len - t - 1);
					memcpy(buf + t + 1, buf + s, t - s);
					buf[t + 1 + (t - s)] = '\n';
					len += t - s + 1;
				}
				break;
			}
			default: /* truncate */
				len = at;
				break;
			}
		}
		fuzz_one(buf, len);
	}
}

/* Values to try per type: good ones, edge ones and bad ones. */
static const char *
fuzz_value(const struct conf_key *k)
{
	static const char *const bools[] = { "yes", "no", "on", "off", "1", "0", "maybe" };
	static const char *const counts[] = { "0", "1", "2", "7", "16", "32", "64", "100", "1024",
					      "4094", "4096", "6081", "65535", "16777215",
					      "16777216", "99999999999999999999", "-1", "1.5" };
	static const char *const rates[] = { "0", "1M", "10G", "2.5G", "400Gbps", "1.6T", "2T",
					     "10X" };
	static const char *const sizes[] = { "0", "1500", "64KiB", "100kB", "12.5MB", "1GB",
					     "64K", "4GB", "5GB" };
	static const char *const times[] = { "0", "1ns", "100ns", "4us", "1.5us", "1ms", "1s",
					     "2s", "1h", "500", "10ms", "300s" };
	static const char *const dists[] = { "0", "1m", "100km", "640km", "20000km", "30000km" };
	static const char *const fracs[] = { "0", "0.2", "20%", "0.95", "1", "1.5", "0.05" };
	static const char *const enums[] = { "dc", "wan", "red", "none", "sojourn", "phantom",
					     "codel" };
	static const char *const mechs[] = { "none", "A", "C", "A,C", "C, a", "B", "A," };
	static const char *const strings[] = { "x", "site-a", "net_ring5", "net_ring0",
					       "net_memif3,role=server", "0000:03:00.0", "a b",
					       "0-3", "0,1", "--log-level=8",
					       "01234567890123456789012345678901234567" };
	static const char *const if4[] = { "192.0.2.1/24", "10.1.0.254/16", "10.9.0.1/8",
					   "192.0.2.0/24", "1.2.3.4", "198.51.100.1/24" };
	static const char *const if6[] = { "fd00:1::fe/64", "2001:db8::9/64", "2001:db8::1/64",
					   "fd00::/8" };
	static const char *const addrs[] = { "192.0.2.2", "192.0.2.3", "2001:db8::2", "0.0.0.0",
					     "fe80::1", "10.1.0.1", "198.51.100.2" };
	static const char *const macs[] = { "02:00:00:00:00:01", "01:00:00:00:00:01", "02:00" };
	static const char *const neighs[] = { "192.0.2.2 02:00:00:00:00:02",
					      "2001:db8::2 02:00:00:00:00:03",
					      "10.1.0.1 02:00:00:00:00:04", "192.0.2.2" };
	static const char *const prefixes[] = { "10.2.0.0/16", "10.3.0.0/24", "fd00:2::/64",
						"0.0.0.0/0", "10.1.0.0/24", "10.2.0.1/16",
						"10.2.128.0/17" };
#define PICK(a) a[rng_below(sizeof(a) / sizeof(a[0]))]
	switch (k->type) {
	case CONFIG_T_BOOL:
		return PICK(bools);
	case CONFIG_T_UINT:
		switch (k->units) {
		case UNITS_RATE:
			return PICK(rates);
		case UNITS_SIZE:
			return PICK(sizes);
		case UNITS_TIME:
			return PICK(times);
		case UNITS_DISTANCE:
			return PICK(dists);
		case UNITS_FRACTION:
			return PICK(fracs);
		case UNITS_COUNT:
		default:
			return PICK(counts);
		}
	case CONFIG_T_ENUM:
		return PICK(enums);
	case CONFIG_T_MECH:
		return PICK(mechs);
	case CONFIG_T_STRING:
		return PICK(strings);
	case CONFIG_T_IFADDR4:
		return PICK(if4);
	case CONFIG_T_IFADDR6:
		return PICK(if6);
	case CONFIG_T_ADDR:
	case CONFIG_T_ADDR4:
	case CONFIG_T_ADDR6:
		return PICK(addrs);
	case CONFIG_T_MAC:
		return PICK(macs);
	case CONFIG_T_NEIGH:
		return PICK(neighs);
	case CONFIG_T_PREFIX:
	default:
		return PICK(prefixes);
	}
#undef PICK
}

/* Add up to MAX random key lines of section SEC to BUF. */
static size_t
fuzz_keys(char *buf, size_t len, size_t size, enum config_section sec, unsigned int max)
{
	unsigned int n = rng_below(max + 1);

	for (unsigned int i = 0; i < n; i++) {
		const struct conf_key *k = &config_keys[rng_below(config_n_keys)];
		int w;

		if (k->section != sec)
			continue;
		w = snprintf(buf + len, size - len, "%s = %s\n", k->name, fuzz_value(k));
		if (w > 0 && (size_t)w < size - len)
			len += (size_t)w;
	}
	return len;
}

/* Structured input: a valid skeleton plus random keys, extra ports and
 * peers. A good share of these load, which exercises the round trip. */
static void
test_fuzz_soup(void **state)
{
	static char buf[FUZZ_MAX];

	(void)state;
	rng_state = 3;
	fuzz_ok = fuzz_failed = 0;
	for (int i = 0; i < FUZZ_ITERATIONS; i++) {
		size_t len = 0, size = sizeof(buf) - 256;
		unsigned int extra_ports = rng_below(3), extra_peers = rng_below(4);

		len += (size_t)snprintf(buf + len, size - len, "[gateway]\n");
		len = fuzz_keys(buf, len, size, CONFIG_SEC_GATEWAY, 3);
		len += (size_t)snprintf(buf + len, size - len, "[eal]\n");
		len = fuzz_keys(buf, len, size, CONFIG_SEC_EAL, 2);
		len += (size_t)snprintf(buf + len, size - len,
					"[port dc]\nrole = dc\ndev = net_ring0\n"
					"ipv4 = 10.1.0.254/16\nipv6 = fd00:1::fe/64\n");
		len = fuzz_keys(buf, len, size, CONFIG_SEC_PORT, 2);
		len += (size_t)snprintf(buf + len, size - len,
					"[port wan]\nrole = wan\ndev = net_ring1\n"
					"ipv4 = 192.0.2.1/24\n");
		len = fuzz_keys(buf, len, size, CONFIG_SEC_PORT, 3);
		for (unsigned int p = 0; p < extra_ports; p++) {
			len += (size_t)snprintf(buf + len, size - len,
						"[port w%u]\nrole = wan\ndev = net_ring%u\n"
						"ipv6 = 2001:db8:%u::1/64\n",
						p, p + 2, p + 1);
			len = fuzz_keys(buf, len, size, CONFIG_SEC_PORT, 4);
		}
		len += (size_t)snprintf(buf + len, size - len,
					"[peer b]\nport = wan\nremote = 192.0.2.2\nvni = 1\n"
					"rtt = 1ms\nprefix = 10.2.0.0/16\n");
		len = fuzz_keys(buf, len, size, CONFIG_SEC_PEER, 2);
		for (unsigned int p = 0; p < extra_peers; p++) {
			len += (size_t)snprintf(buf + len, size - len,
						"[peer p%u]\nport = wan\nremote = 192.0.2.%u\n"
						"vni = %u\nprefix = 10.%u.0.0/16\n",
						p, 10 + p, p, 10 + p);
			if (rng_below(2) != 0)
				len += (size_t)snprintf(buf + len, size - len, "distance = %ukm\n",
							1 + rng_below(1000));
			len = fuzz_keys(buf, len, size, CONFIG_SEC_PEER, 2);
		}
		len += (size_t)snprintf(buf + len, size - len, "[congestion]\n");
		len = fuzz_keys(buf, len, size, CONFIG_SEC_CONGESTION, 5);
		fuzz_one(buf, len);
	}
	print_message("soup: %u loaded and round-tripped, %u rejected\n", fuzz_ok, fuzz_failed);
	/* The property above is only tested if enough inputs are valid. */
	assert_true(fuzz_ok >= FUZZ_ITERATIONS / 20);
	assert_true(fuzz_failed >= FUZZ_ITERATIONS / 20);
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fuzz_random_bytes),
		cmocka_unit_test(test_fuzz_mutations),
		cmocka_unit_test(test_fuzz_soup),
	};
	FILE *f;

	if (argc > 1)
		seed_path = argv[1];
	f = fopen(seed_path, "r");
	if (f == NULL) {
		perror(seed_path);
		return 1;
	}
	seed_len = fread(seed_text, 1, sizeof(seed_text), f);
	fclose(f);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
