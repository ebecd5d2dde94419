/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Peering message codec: round trips of every type at its limits, and
 * malformed input built byte by byte from docs/wire-format.md ("Peering
 * messages"), not from the encoder, each with the error it must give.
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
#include <sys/socket.h>

#include <cmocka.h>

#include "control/peer_msg.h"

/* --- a byte builder following the documented layout --- */

struct bb {
	uint8_t b[8192];
	size_t n;
};

/* V in BYTES bytes, network order; beyond 8 bytes the leading ones are 0. */
static void
put(struct bb *b, uint64_t v, unsigned int bytes)
{
	while (bytes-- > 0)
		b->b[b->n++] = bytes < 8 ? (uint8_t)(v >> (8 * bytes)) : 0;
}

static void
put_str(struct bb *b, const char *s)
{
	size_t n = strlen(s);

	put(b, n, 1);
	memcpy(b->b + b->n, s, n);
	b->n += n;
}

/* Header with the length patched by done(). */
static void
hdr(struct bb *b, uint8_t type)
{
	b->n = 0;
	put(b, 0, 4);
	put(b, PEER_MSG_VERSION, 1);
	put(b, type, 1);
	put(b, 0, 2);
}

static void
done(struct bb *b)
{
	b->b[0] = (uint8_t)(b->n >> 24);
	b->b[1] = (uint8_t)(b->n >> 16);
	b->b[2] = (uint8_t)(b->n >> 8);
	b->b[3] = (uint8_t)b->n;
}

static void
put_p4(struct bb *b, const char *a, uint8_t len)
{
	struct in_addr x;

	assert_int_equal(inet_pton(AF_INET, a, &x), 1);
	put(b, 4, 1);
	put(b, len, 1);
	memcpy(b->b + b->n, &x, 4);
	b->n += 4;
}

static void
put_p6(struct bb *b, const char *a, uint8_t len)
{
	struct in6_addr x;

	assert_int_equal(inet_pton(AF_INET6, a, &x), 1);
	put(b, 6, 1);
	put(b, len, 1);
	memcpy(b->b + b->n, &x, 16);
	b->n += 16;
}

/* A hello body up to the prefix count; the caller appends count and prefixes. */
static void
hello_head(struct bb *b, const char *site, const char *sw, uint32_t hold_ms)
{
	hdr(b, PEER_MSG_HELLO);
	put_str(b, site);
	put_str(b, sw);
	put(b, 0x1122334455667788ull, 8); /* instance */
	put(b, 3, 8); /* capabilities */
	put(b, hold_ms, 4);
	put(b, 7, 4); /* route generation */
}

static enum peer_msg_err
decode(const struct bb *b, struct peer_msg *m)
{
	/* An exactly-sized heap copy: ASan sees any read past the message. */
	uint8_t *p = calloc(1, b->n ? b->n : 1);
	size_t used = 0;
	enum peer_msg_err e;

	memcpy(p, b->b, b->n);
	e = peer_msg_decode(p, b->n, m, &used);
	if (e == PEER_MSG_OK)
		assert_int_equal(used, b->n);
	free(p);
	return e;
}

static void
prefix4(struct conf_prefix *p, const char *a, uint8_t len)
{
	memset(p, 0, sizeof(*p));
	p->addr.family = AF_INET;
	assert_int_equal(inet_pton(AF_INET, a, p->addr.a), 1);
	p->len = len;
}

static void
prefix6(struct conf_prefix *p, const char *a, uint8_t len)
{
	memset(p, 0, sizeof(*p));
	p->addr.family = AF_INET6;
	assert_int_equal(inet_pton(AF_INET6, a, p->addr.a), 1);
	p->len = len;
}

/* Encode M, decode it back, compare, and check every shorter prefix is SHORT. */
static size_t
round_trip(const struct peer_msg *m)
{
	static uint8_t buf[PEER_MSG_MAX_BYTES];
	static struct peer_msg out;
	size_t used = 0, k;
	int n = peer_msg_encode(m, buf, sizeof(buf));

	assert_true(n >= PEER_MSG_HDR_BYTES);
	assert_true(n <= PEER_MSG_MAX_BYTES);
	assert_int_equal(peer_msg_decode(buf, (size_t)n, &out, &used), PEER_MSG_OK);
	assert_int_equal(used, (size_t)n);
	assert_int_equal(out.type, m->type);
	switch (m->type) {
	case PEER_MSG_HELLO:
		assert_string_equal(out.u.hello.site, m->u.hello.site);
		assert_string_equal(out.u.hello.software, m->u.hello.software);
		assert_true(out.u.hello.instance_id == m->u.hello.instance_id);
		assert_true(out.u.hello.capabilities == m->u.hello.capabilities);
		assert_int_equal(out.u.hello.hold_time_ms, m->u.hello.hold_time_ms);
		assert_int_equal(out.u.hello.route_generation, m->u.hello.route_generation);
		assert_int_equal(out.u.hello.n_prefixes, m->u.hello.n_prefixes);
		assert_memory_equal(out.u.hello.prefixes, m->u.hello.prefixes,
				    sizeof(m->u.hello.prefixes[0]) * m->u.hello.n_prefixes);
		break;
	case PEER_MSG_KEEPALIVE:
		assert_memory_equal(&out.u.keepalive, &m->u.keepalive, sizeof(m->u.keepalive));
		break;
	case PEER_MSG_ROUTE:
		assert_int_equal(out.u.route.generation, m->u.route.generation);
		assert_int_equal(out.u.route.full, m->u.route.full);
		assert_int_equal(out.u.route.n_entries, m->u.route.n_entries);
		assert_memory_equal(out.u.route.entries, m->u.route.entries,
				    sizeof(m->u.route.entries[0]) * m->u.route.n_entries);
		break;
	case PEER_MSG_HINT:
		assert_int_equal(out.u.hint.kind, m->u.hint.kind);
		assert_int_equal(out.u.hint.valid_ms, m->u.hint.valid_ms);
		assert_int_equal(out.u.hint.n_qps, m->u.hint.n_qps);
		assert_memory_equal(out.u.hint.qps, m->u.hint.qps,
				    sizeof(m->u.hint.qps[0]) * m->u.hint.n_qps);
		break;
	case PEER_MSG_CLOSE:
		assert_int_equal(out.u.close.reason, m->u.close.reason);
		assert_string_equal(out.u.close.text, m->u.close.text);
		break;
	}
	for (k = 0; k < (size_t)n; k++)
		assert_int_equal(peer_msg_decode(buf, k, &out, &used), PEER_MSG_E_SHORT);
	/* Too small a buffer is -ENOSPC, never a partial message. */
	assert_int_equal(peer_msg_encode(m, buf, (size_t)n - 1), -ENOSPC);
	return (size_t)n;
}

static void
test_round_trip_hello(void **state)
{
	static struct peer_msg m;
	unsigned int i;

	(void)state;
	memset(&m, 0, sizeof(m));
	m.type = PEER_MSG_HELLO;
	strcpy(m.u.hello.site, "site-a");
	strcpy(m.u.hello.software, "0.1.0");
	m.u.hello.instance_id = 0xdeadbeefcafef00dull;
	m.u.hello.capabilities = PEER_MSG_CAP_ROUTES | PEER_MSG_CAP_HINTS | (UINT64_C(1) << 63);
	m.u.hello.hold_time_ms = 3000;
	m.u.hello.route_generation = 0xffffffffu;
	prefix4(&m.u.hello.prefixes[0], "10.1.0.0", 16);
	prefix6(&m.u.hello.prefixes[1], "fd00:1::", 48);
	prefix4(&m.u.hello.prefixes[2], "0.0.0.0", 0);
	prefix6(&m.u.hello.prefixes[3], "2001:db8::1", 128);
	m.u.hello.n_prefixes = 4;
	/* 8 + 7 + 6 + 8 + 8 + 4 + 4 + 2 + 6 + 18 + 6 + 18 */
	assert_int_equal(round_trip(&m), 95);

	/* The largest hello: longest names, every prefix IPv6. */
	memset(m.u.hello.site, 'x', PEER_MSG_SITE_MAX);
	m.u.hello.site[PEER_MSG_SITE_MAX] = '\0';
	memset(m.u.hello.software, '~', PEER_MSG_SOFTWARE_MAX);
	m.u.hello.software[PEER_MSG_SOFTWARE_MAX] = '\0';
	for (i = 0; i < LS_MAX_PREFIXES; i++) {
		prefix6(&m.u.hello.prefixes[i], "fd00::", 64);
		m.u.hello.prefixes[i].addr.a[2] = (uint8_t)i;
	}
	m.u.hello.n_prefixes = LS_MAX_PREFIXES;
	assert_int_equal(round_trip(&m), PEER_MSG_HELLO_MAX_BYTES);

	/* No prefixes at all is a valid hello (a gateway that serves none yet). */
	m.u.hello.n_prefixes = 0;
	round_trip(&m);
}

static void
test_round_trip_keepalive_close(void **state)
{
	struct peer_msg m;

	(void)state;
	memset(&m, 0, sizeof(m));
	m.type = PEER_MSG_KEEPALIVE;
	m.u.keepalive.tx_ns = UINT64_MAX;
	m.u.keepalive.echo_ns = 1;
	m.u.keepalive.echo_delay_ns = 12345;
	m.u.keepalive.measured_rtt_ns = 1000000;
	assert_int_equal(round_trip(&m), 8 + 32);

	memset(&m, 0, sizeof(m));
	m.type = PEER_MSG_CLOSE;
	m.u.close.reason = PEER_CLOSE_DUPLICATE;
	assert_int_equal(round_trip(&m), 8 + 3);
	memset(m.u.close.text, ' ', PEER_MSG_TEXT_MAX);
	m.u.close.text[0] = '!';
	m.u.close.reason = PEER_CLOSE_REVOKED;
	assert_int_equal(round_trip(&m), 8 + 3 + PEER_MSG_TEXT_MAX);
}

static void
test_round_trip_route_hint(void **state)
{
	static struct peer_msg m;
	unsigned int i;

	(void)state;
	memset(&m, 0, sizeof(m));
	m.type = PEER_MSG_ROUTE;
	m.u.route.generation = 8;
	m.u.route.entries[0].op = PEER_ROUTE_ADD;
	prefix4(&m.u.route.entries[0].prefix, "10.3.0.0", 16);
	m.u.route.entries[1].op = PEER_ROUTE_WITHDRAW;
	prefix6(&m.u.route.entries[1].prefix, "fd00:2::", 48);
	m.u.route.n_entries = 2;
	assert_int_equal(round_trip(&m), 8 + 8 + 7 + 19);
	/* Withdraw every prefix and announce a new full set: the largest update. */
	for (i = 0; i < PEER_MSG_ROUTE_ENTRIES_MAX; i++) {
		m.u.route.entries[i].op = i % 2 ? PEER_ROUTE_ADD : PEER_ROUTE_WITHDRAW;
		prefix6(&m.u.route.entries[i].prefix, "fd00::", 64);
		m.u.route.entries[i].prefix.addr.a[6] = (uint8_t)i;
	}
	m.u.route.n_entries = PEER_MSG_ROUTE_ENTRIES_MAX;
	assert_int_equal(round_trip(&m), PEER_MSG_ROUTE_MAX_BYTES);
	/* A full set with no entries withdraws everything. */
	m.u.route.full = true;
	m.u.route.n_entries = 0;
	round_trip(&m);

	memset(&m, 0, sizeof(m));
	m.type = PEER_MSG_HINT;
	m.u.hint.kind = PEER_HINT_SHAPED_QPS;
	m.u.hint.valid_ms = 500;
	for (i = 0; i < PEER_MSG_HINT_QPS_MAX; i++) {
		struct peer_msg_hint_qp *q = &m.u.hint.qps[i];

		q->dst.family = i % 2 ? AF_INET : AF_INET6;
		q->dst.a[0] = 10;
		q->dst.a[3] = (uint8_t)i;
		q->qpn = 0xffffff - i;
		q->rate_bps = 1000000000ull * i;
	}
	m.u.hint.n_qps = PEER_MSG_HINT_QPS_MAX;
	assert_int_equal(round_trip(&m), PEER_MSG_HINT_MAX_BYTES);
}

/* What the encoder refuses: the same rules as the decoder. */
static void
test_encode_validates(void **state)
{
	static struct peer_msg m;
	uint8_t buf[PEER_MSG_MAX_BYTES];

	(void)state;
	memset(&m, 0, sizeof(m));
	m.type = PEER_MSG_HELLO;
	strcpy(m.u.hello.site, "site a"); /* blank */
	strcpy(m.u.hello.software, "1");
	m.u.hello.hold_time_ms = 1000;
	assert_int_equal(peer_msg_encode(&m, buf, sizeof(buf)), -EINVAL);
	strcpy(m.u.hello.site, "site-a");
	assert_true(peer_msg_encode(&m, buf, sizeof(buf)) > 0);
	m.u.hello.hold_time_ms = PEER_MSG_HOLD_MIN_MS - 1;
	assert_int_equal(peer_msg_encode(&m, buf, sizeof(buf)), -EINVAL);
	m.u.hello.hold_time_ms = 1000;
	prefix4(&m.u.hello.prefixes[0], "10.1.0.1", 16); /* host bits */
	m.u.hello.n_prefixes = 1;
	assert_int_equal(peer_msg_encode(&m, buf, sizeof(buf)), -EINVAL);
	prefix4(&m.u.hello.prefixes[0], "10.1.0.0", 16);
	m.u.hello.prefixes[0].addr.a[9] = 1; /* IPv4 with bytes past its 4 */
	assert_int_equal(peer_msg_encode(&m, buf, sizeof(buf)), -EINVAL);
	m.u.hello.n_prefixes = LS_MAX_PREFIXES + 1;
	assert_int_equal(peer_msg_encode(&m, buf, sizeof(buf)), -EINVAL);

	memset(&m, 0, sizeof(m));
	m.type = PEER_MSG_HINT;
	m.u.hint.kind = PEER_HINT_SHAPED_QPS;
	m.u.hint.valid_ms = 10;
	m.u.hint.n_qps = 1;
	m.u.hint.qps[0].dst.family = AF_INET;
	m.u.hint.qps[0].qpn = 0x1000000; /* 25 bits */
	assert_int_equal(peer_msg_encode(&m, buf, sizeof(buf)), -EINVAL);

	memset(&m, 0, sizeof(m));
	m.type = PEER_MSG_CLOSE;
	m.u.close.reason = (enum peer_close_reason)99;
	assert_int_equal(peer_msg_encode(&m, buf, sizeof(buf)), -EINVAL);
	m.type = (enum peer_msg_type)9;
	assert_int_equal(peer_msg_encode(&m, buf, sizeof(buf)), -EINVAL);
}

/* The header: length and version are judged from the first bytes. */
static void
test_header_errors(void **state)
{
	static struct peer_msg m;
	struct bb b;
	size_t used;

	(void)state;
	b.n = 0;
	assert_int_equal(decode(&b, &m), PEER_MSG_E_SHORT);
	put(&b, 7, 4);
	assert_int_equal(decode(&b, &m), PEER_MSG_E_LENGTH);
	b.n = 0;
	put(&b, PEER_MSG_MAX_BYTES + 1, 4);
	assert_int_equal(decode(&b, &m), PEER_MSG_E_LENGTH);
	b.n = 0;
	put(&b, 0xffffffffu, 4);
	assert_int_equal(decode(&b, &m), PEER_MSG_E_LENGTH);
	/* A version 2 peer is told so before its body arrives. */
	b.n = 0;
	put(&b, 100, 4);
	put(&b, 2, 1);
	assert_int_equal(decode(&b, &m), PEER_MSG_E_VERSION);
	b.n = 0;
	put(&b, 100, 4);
	put(&b, 0, 1);
	assert_int_equal(decode(&b, &m), PEER_MSG_E_VERSION);
	b.n = 0;
	put(&b, 100, 4);
	put(&b, 1, 1);
	assert_int_equal(decode(&b, &m), PEER_MSG_E_SHORT);
	put(&b, 0, 1);
	assert_int_equal(decode(&b, &m), PEER_MSG_E_TYPE);
	b.b[5] = 6;
	assert_int_equal(decode(&b, &m), PEER_MSG_E_TYPE);
	b.b[5] = PEER_MSG_KEEPALIVE;
	put(&b, 0, 1);
	put(&b, 1, 1);
	assert_int_equal(decode(&b, &m), PEER_MSG_E_RESERVED);
	b.b[7] = 0;
	assert_int_equal(decode(&b, &m), PEER_MSG_E_SHORT);
	/* Two messages back to back: the first is taken alone. */
	hdr(&b, PEER_MSG_KEEPALIVE);
	put(&b, 1, 8);
	put(&b, 2, 8);
	put(&b, 3, 8);
	put(&b, 4, 8);
	done(&b);
	memcpy(b.b + b.n, b.b, b.n);
	b.n *= 2;
	assert_int_equal(peer_msg_decode(b.b, b.n, &m, &used), PEER_MSG_OK);
	assert_int_equal(used, 40);
	assert_true(m.u.keepalive.echo_delay_ns == 3);
}

struct bad_case {
	const char *what;
	enum peer_msg_err expect;
};

/* Body errors of every type, each built from the documented layout. */
static void
test_body_errors(void **state)
{
	static struct peer_msg m;
	struct bb b;
	unsigned int i;

	(void)state;
	/* Keepalive: exactly 32 bytes of body. */
	hdr(&b, PEER_MSG_KEEPALIVE);
	put(&b, 0, 8 * 3 + 7);
	done(&b);
	assert_int_equal(decode(&b, &m), PEER_MSG_E_BODY_SHORT);
	hdr(&b, PEER_MSG_KEEPALIVE);
	put(&b, 0, 8 * 4 + 1);
	done(&b);
	assert_int_equal(decode(&b, &m), PEER_MSG_E_TRAILING);

	/* Hello. */
	hello_head(&b, "site-a", "0.1.0", 3000);
	put(&b, 1, 2);
	put_p4(&b, "10.1.0.0", 16);
	done(&b);
	assert_int_equal(decode(&b, &m), PEER_MSG_OK);
	assert_string_equal(m.u.hello.site, "site-a");
	assert_true(m.u.hello.instance_id == 0x1122334455667788ull);
	assert_int_equal(m.u.hello.route_generation, 7);
	assert_int_equal(m.u.hello.prefixes[0].addr.family, AF_INET);
	assert_int_equal(m.u.hello.prefixes[0].addr.a[1], 1);
	b.n -= 1; /* prefix cut short */
	done(&b);
	assert_int_equal(decode(&b, &m), PEER_MSG_E_BODY_SHORT);
	hello_head(&b, "site-a", "0.1.0", 3000);
	put(&b, 0, 2);
	put(&b, 0, 1);
	done(&b);
	assert_int_equal(decode(&b, &m), PEER_MSG_E_TRAILING);
	hello_head(&b, "", "0.1.0", 3000);
	put(&b, 0, 2);
	done(&b);
	assert_int_equal(decode(&b, &m), PEER_MSG_E_SITE);
	hello_head(&b, "site/a", "0.1.0", 3000);
	put(&b, 0, 2);
	done(&b);
	assert_int_equal(decode(&b, &m), PEER_MSG_E_SITE);
	hello_head(&b, "abcdefghijabcdefghijabcdefghijab", "0.1.0", 3000); /* 32 */
	put(&b, 0, 2);
	done(&b);
	assert_int_equal(decode(&b, &m), PEER_MSG_E_SITE);
	/* An embedded NUL would make the site id read shorter than sent. */
	hello_head(&b, "site-a", "0.1.0", 3000);
	b.b[PEER_MSG_HDR_BYTES + 3] = '\0';
	put(&b, 0, 2);
	done(&b);
	assert_int_equal(decode(&b, &m), PEER_MSG_E_SITE);
	/* A site length running past the body. */
	hdr(&b, PEER_MSG_HELLO);
	put(&b, 20, 1);
	put(&b, 'a', 1);
	done(&b);
	assert_int_equal(decode(&b, &m), PEER_MSG_E_BODY_SHORT);
	hello_head(&b, "site-a", "0.1 0", 3000);
	put(&b, 0, 2);
	done(&b);
	assert_int_equal(decode(&b, &m), PEER_MSG_E_SOFTWARE);
	hello_head(&b, "site-a", "", 3000);
	put(&b, 0, 2);
	done(&b);
	assert_int_equal(decode(&b, &m), PEER_MSG_E_SOFTWARE);
	hello_head(&b, "site-a", "0.1.0", PEER_MSG_HOLD_MIN_MS - 1);
	put(&b, 0, 2);
	done(&b);
	assert_int_equal(decode(&b, &m), PEER_MSG_E_HOLD);
	hello_head(&b, "site-a", "0.1.0", PEER_MSG_HOLD_MAX_MS + 1);
	put(&b, 0, 2);
	done(&b);
	assert_int_equal(decode(&b, &m), PEER_MSG_E_HOLD);
	/* The count is refused before a single prefix is read. */
	hello_head(&b, "site-a", "0.1.0", 3000);
	put(&b, LS_MAX_PREFIXES + 1, 2);
	done(&b);
	assert_int_equal(decode(&b, &m), PEER_MSG_E_COUNT);
	hello_head(&b, "site-a", "0.1.0", 3000);
	put(&b, 0xffff, 2);
	done(&b);
	assert_int_equal(decode(&b, &m), PEER_MSG_E_COUNT);
	{
		static const struct {
			int family;
			const char *addr;
			uint8_t len;
			enum peer_msg_err expect;
		} p[] = {
			{ 5, "10.0.0.0", 8, PEER_MSG_E_FAMILY },
			{ 4, "10.0.0.0", 33, PEER_MSG_E_PREFIX_LEN },
			{ 6, "fd00::", 129, PEER_MSG_E_PREFIX_LEN },
			{ 4, "10.1.0.0", 8, PEER_MSG_E_HOST_BITS },
			{ 4, "10.1.0.1", 31, PEER_MSG_E_HOST_BITS },
			{ 6, "fd00::1", 127, PEER_MSG_E_HOST_BITS },
			{ 4, "10.1.0.1", 32, PEER_MSG_OK },
			{ 6, "fd00::1", 128, PEER_MSG_OK },
		};

		for (i = 0; i < sizeof(p) / sizeof(p[0]); i++) {
			hello_head(&b, "site-a", "0.1.0", 3000);
			put(&b, 1, 2);
			if (p[i].family == 6)
				put_p6(&b, p[i].addr, p[i].len);
			else
				put_p4(&b, p[i].addr, p[i].len);
			b.b[b.n - (p[i].family == 6 ? 18 : 6)] = (uint8_t)p[i].family;
			done(&b);
			assert_int_equal(decode(&b, &m), p[i].expect);
		}
	}
	hello_head(&b, "site-a", "0.1.0", 3000);
	put(&b, 2, 2);
	put_p4(&b, "10.1.0.0", 16);
	put_p4(&b, "10.1.0.0", 16);
	done(&b);
	assert_int_equal(decode(&b, &m), PEER_MSG_E_DUPLICATE);
	/* The same address with another length is another prefix. */
	b.b[b.n - 5] = 17;
	assert_int_equal(decode(&b, &m), PEER_MSG_OK);
	b.b[b.n - 1] = 1;
	assert_int_equal(decode(&b, &m), PEER_MSG_E_HOST_BITS);

	/* Route update. */
	hdr(&b, PEER_MSG_ROUTE);
	put(&b, 9, 4);
	put(&b, 0, 1);
	put(&b, 0, 1);
	put(&b, 1, 2);
	put(&b, PEER_ROUTE_WITHDRAW, 1);
	put_p4(&b, "10.3.0.0", 16);
	done(&b);
	assert_int_equal(decode(&b, &m), PEER_MSG_OK);
	assert_int_equal(m.u.route.generation, 9);
	assert_false(m.u.route.full);
	b.b[PEER_MSG_HDR_BYTES + 8] = 3; /* op */
	assert_int_equal(decode(&b, &m), PEER_MSG_E_ROUTE_OP);
	b.b[PEER_MSG_HDR_BYTES + 8] = 0;
	assert_int_equal(decode(&b, &m), PEER_MSG_E_ROUTE_OP);
	b.b[PEER_MSG_HDR_BYTES + 8] = PEER_ROUTE_WITHDRAW;
	b.b[PEER_MSG_HDR_BYTES + 4] = 1; /* full: withdrawals make no sense */
	assert_int_equal(decode(&b, &m), PEER_MSG_E_ROUTE_OP);
	b.b[PEER_MSG_HDR_BYTES + 4] = 2; /* an undefined flag */
	assert_int_equal(decode(&b, &m), PEER_MSG_E_RESERVED);
	b.b[PEER_MSG_HDR_BYTES + 4] = 0;
	b.b[PEER_MSG_HDR_BYTES + 5] = 1; /* reserved byte */
	assert_int_equal(decode(&b, &m), PEER_MSG_E_RESERVED);
	hdr(&b, PEER_MSG_ROUTE);
	put(&b, 9, 4);
	put(&b, 0, 2);
	put(&b, PEER_MSG_ROUTE_ENTRIES_MAX + 1, 2);
	done(&b);
	assert_int_equal(decode(&b, &m), PEER_MSG_E_COUNT);
	/* A full set is limited to what a hello carries. */
	hdr(&b, PEER_MSG_ROUTE);
	put(&b, 9, 4);
	put(&b, 1, 1);
	put(&b, 0, 1);
	put(&b, LS_MAX_PREFIXES + 1, 2);
	for (i = 0; i < LS_MAX_PREFIXES + 1; i++) {
		put(&b, PEER_ROUTE_ADD, 1);
		put_p4(&b, "10.0.0.0", 24);
		b.b[b.n - 2] = (uint8_t)i;
	}
	done(&b);
	assert_int_equal(decode(&b, &m), PEER_MSG_E_COUNT);
	/* Add and withdraw of one prefix in one update would depend on order. */
	hdr(&b, PEER_MSG_ROUTE);
	put(&b, 9, 4);
	put(&b, 0, 2);
	put(&b, 2, 2);
	put(&b, PEER_ROUTE_ADD, 1);
	put_p6(&b, "fd00:3::", 48);
	put(&b, PEER_ROUTE_WITHDRAW, 1);
	put_p6(&b, "fd00:3::", 48);
	done(&b);
	assert_int_equal(decode(&b, &m), PEER_MSG_E_DUPLICATE);

	/* Congestion hint. */
	hdr(&b, PEER_MSG_HINT);
	put(&b, PEER_HINT_SHAPED_QPS, 1);
	put(&b, 0, 1);
	put(&b, 1, 2);
	put(&b, 250, 4);
	put(&b, 4, 1);
	put(&b, 0xabcdef, 3);
	put(&b, 0x0a020001, 4);
	put(&b, 0, 12);
	put(&b, 25000000000ull, 8);
	done(&b);
	assert_int_equal(decode(&b, &m), PEER_MSG_OK);
	assert_int_equal(m.u.hint.qps[0].qpn, 0xabcdef);
	assert_int_equal(m.u.hint.qps[0].dst.family, AF_INET);
	assert_int_equal(m.u.hint.qps[0].dst.a[3], 1);
	assert_true(m.u.hint.qps[0].rate_bps == 25000000000ull);
	b.b[PEER_MSG_HDR_BYTES + 8 + 1 + 3 + 5] = 1; /* IPv4 with a byte past its 4 */
	assert_int_equal(decode(&b, &m), PEER_MSG_E_ADDR);
	b.b[PEER_MSG_HDR_BYTES + 8 + 1 + 3 + 5] = 0;
	b.b[PEER_MSG_HDR_BYTES] = 2;
	assert_int_equal(decode(&b, &m), PEER_MSG_E_HINT_KIND);
	b.b[PEER_MSG_HDR_BYTES] = PEER_HINT_SHAPED_QPS;
	b.b[PEER_MSG_HDR_BYTES + 1] = 1;
	assert_int_equal(decode(&b, &m), PEER_MSG_E_RESERVED);
	b.b[PEER_MSG_HDR_BYTES + 1] = 0;
	b.b[PEER_MSG_HDR_BYTES + 7] = 0; /* valid 0 ms */
	assert_int_equal(decode(&b, &m), PEER_MSG_E_VALIDITY);
	b.b[PEER_MSG_HDR_BYTES + 7] = 250;
	b.b[PEER_MSG_HDR_BYTES + 8] = 5;
	assert_int_equal(decode(&b, &m), PEER_MSG_E_FAMILY);
	b.b[PEER_MSG_HDR_BYTES + 8] = 4;
	b.b[PEER_MSG_HDR_BYTES + 3] = 2; /* two QPs, one present */
	assert_int_equal(decode(&b, &m), PEER_MSG_E_BODY_SHORT);
	memcpy(b.b + b.n, b.b + PEER_MSG_HDR_BYTES + 8, PEER_MSG_HINT_QP_BYTES);
	b.n += PEER_MSG_HINT_QP_BYTES;
	done(&b);
	assert_int_equal(decode(&b, &m), PEER_MSG_E_DUPLICATE);
	b.b[b.n - PEER_MSG_HINT_QP_BYTES + 4 + 3] ^= 1; /* another address: fine */
	assert_int_equal(decode(&b, &m), PEER_MSG_OK);
	hdr(&b, PEER_MSG_HINT);
	put(&b, PEER_HINT_SHAPED_QPS, 1);
	put(&b, 0, 1);
	put(&b, PEER_MSG_HINT_QPS_MAX + 1, 2);
	put(&b, 250, 4);
	done(&b);
	assert_int_equal(decode(&b, &m), PEER_MSG_E_COUNT);

	/* Close. */
	hdr(&b, PEER_MSG_CLOSE);
	put(&b, PEER_CLOSE_HOLD, 2);
	put_str(&b, "nothing for 3000 ms");
	done(&b);
	assert_int_equal(decode(&b, &m), PEER_MSG_OK);
	assert_int_equal(m.u.close.reason, PEER_CLOSE_HOLD);
	assert_string_equal(m.u.close.text, "nothing for 3000 ms");
	b.b[PEER_MSG_HDR_BYTES + 3] = '\n';
	assert_int_equal(decode(&b, &m), PEER_MSG_E_TEXT);
	b.b[PEER_MSG_HDR_BYTES + 3] = 0x80;
	assert_int_equal(decode(&b, &m), PEER_MSG_E_TEXT);
	b.b[PEER_MSG_HDR_BYTES + 3] = 'n';
	b.b[PEER_MSG_HDR_BYTES + 1] = 0;
	assert_int_equal(decode(&b, &m), PEER_MSG_E_CLOSE_REASON);
	b.b[PEER_MSG_HDR_BYTES + 1] = 11;
	assert_int_equal(decode(&b, &m), PEER_MSG_E_CLOSE_REASON);
	hdr(&b, PEER_MSG_CLOSE);
	put(&b, PEER_CLOSE_HOLD, 2);
	put(&b, PEER_MSG_TEXT_MAX + 1, 1);
	for (i = 0; i < PEER_MSG_TEXT_MAX + 1; i++)
		put(&b, 'x', 1);
	done(&b);
	assert_int_equal(decode(&b, &m), PEER_MSG_E_TEXT);
}

static void
test_names(void **state)
{
	unsigned int i, j;

	(void)state;
	for (i = 0; i < PEER_MSG_E_MAX; i++) {
		const char *n = peer_msg_err_name((enum peer_msg_err)i);

		assert_true(strlen(n) > 1);
		assert_true(strlen(peer_msg_err_desc((enum peer_msg_err)i)) > 1);
		for (j = 0; j < i; j++)
			assert_string_not_equal(n, peer_msg_err_name((enum peer_msg_err)j));
	}
	assert_string_equal(peer_msg_err_name(PEER_MSG_E_MAX), "?");
	assert_string_equal(peer_msg_err_name(PEER_MSG_E_VERSION), "version_mismatch");
	assert_string_equal(peer_close_reason_name(PEER_CLOSE_DUPLICATE), "duplicate_connection");
	assert_string_equal(peer_close_reason_name((enum peer_close_reason)0), "?");
	assert_string_equal(peer_msg_type_name(PEER_MSG_ROUTE), "route");
	assert_true(peer_msg_site_ok("site-a.b_c"));
	assert_false(peer_msg_site_ok(""));
	assert_false(peer_msg_site_ok("a b"));
}

static const char *corpus_dir;

/*
 * The fuzz seeds (tests/fuzz/make_peer_corpus.py) are encoded from the
 * documented layout by another program: each must be a stream of valid
 * messages, so the two encoders agree.
 */
static void
test_corpus_seeds_valid(void **state)
{
	static struct peer_msg m;
	struct dirent *de;
	unsigned int files = 0, msgs = 0;
	DIR *d;

	(void)state;
	if (corpus_dir == NULL)
		skip();
	d = opendir(corpus_dir);
	assert_non_null(d);
	while ((de = readdir(d)) != NULL) {
		static uint8_t buf[4 * PEER_MSG_MAX_BYTES];
		char path[1024];
		size_t n, off = 0, used;
		FILE *f;

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", corpus_dir, de->d_name);
		f = fopen(path, "rb");
		assert_non_null(f);
		n = fread(buf, 1, sizeof(buf), f);
		fclose(f);
		while (off < n) {
			enum peer_msg_err e = peer_msg_decode(buf + off, n - off, &m, &used);

			if (e != PEER_MSG_OK)
				fprintf(stderr, "%s at %zu: %s\n", de->d_name, off, peer_msg_err_name(e));
			assert_int_equal(e, PEER_MSG_OK);
			off += used;
			msgs++;
		}
		files++;
	}
	closedir(d);
	assert_true(files >= 10);
	assert_true(msgs > files);
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip_hello),
		cmocka_unit_test(test_round_trip_keepalive_close),
		cmocka_unit_test(test_round_trip_route_hint),
		cmocka_unit_test(test_encode_validates),
		cmocka_unit_test(test_header_errors),
		cmocka_unit_test(test_body_errors),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_corpus_seeds_valid),
	};

	if (argc > 1)
		corpus_dir = argv[1];
	return cmocka_run_group_tests(tests, NULL, NULL);
}
