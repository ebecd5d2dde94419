/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Peering message codec (docs/wire-format.md, "Peering messages").
 *
 * Decoding is two steps: a reader that bounds every length and count
 * against the buffer and the struct before it copies anything, then the
 * same semantic validation the encoder runs (peer_msg_validate()), so the
 * two cannot disagree on what a valid message is.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>

#include "peer_msg.h"

/* Wire family codes of prefixes and addresses. */
#define PEER_WIRE_FAMILY4 4
#define PEER_WIRE_FAMILY6 6
#define PEER_ROUTE_FLAG_FULL 0x01
#define PEER_HINT_VALID_MAX_MS 600000u

#define PEER_MSG_X_NAME(e, name, desc) name,
static const char *const peer_msg_err_names[] = { PEER_MSG_ERRORS(PEER_MSG_X_NAME) };
#undef PEER_MSG_X_NAME
#define PEER_MSG_X_DESC(e, name, desc) desc,
static const char *const peer_msg_err_descs[] = { PEER_MSG_ERRORS(PEER_MSG_X_DESC) };
#undef PEER_MSG_X_DESC
static_assert(sizeof(peer_msg_err_names) / sizeof(peer_msg_err_names[0]) == PEER_MSG_E_MAX,
	      "one name per error");

const char *
peer_msg_err_name(enum peer_msg_err e)
{
	return (unsigned int)e < PEER_MSG_E_MAX ? peer_msg_err_names[e] : "?";
}

const char *
peer_msg_err_desc(enum peer_msg_err e)
{
	return (unsigned int)e < PEER_MSG_E_MAX ? peer_msg_err_descs[e] : "?";
}

const char *
peer_msg_type_name(enum peer_msg_type t)
{
	switch (t) {
	case PEER_MSG_HELLO:
		return "hello";
	case PEER_MSG_KEEPALIVE:
		return "keepalive";
	case PEER_MSG_ROUTE:
		return "route";
	case PEER_MSG_HINT:
		return "hint";
	case PEER_MSG_CLOSE:
		return "close";
	}
	return "?";
}

const char *
peer_close_reason_name(enum peer_close_reason r)
{
#define PEER_CLOSE_X_CASE(e, code, name, desc)                                                     \
	case PEER_CLOSE_##e:                                                                       \
		return name;
	switch (r) {
		PEER_CLOSE_REASONS(PEER_CLOSE_X_CASE)
	}
#undef PEER_CLOSE_X_CASE
	return "?";
}

static bool
peer_close_reason_ok(unsigned int code)
{
	return strcmp(peer_close_reason_name((enum peer_close_reason)code), "?") != 0;
}

bool
peer_msg_site_ok(const char *s)
{
	size_t n = 0;

	for (; s[n] != '\0'; n++) {
		char c = s[n];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      c == '.' || c == '_' || c == '-'))
			return false;
	}
	return n >= 1 && n <= PEER_MSG_SITE_MAX;
}

/* Printable ASCII from LO (0x21 without blanks, 0x20 with) to '~'. */
static bool
peer_msg_printable(const char *s, char lo, size_t min, size_t max)
{
	size_t n = 0;

	for (; s[n] != '\0'; n++)
		if (s[n] < lo || s[n] > '~')
			return false;
	return n >= min && n <= max;
}

bool
peer_msg_software_ok(const char *s)
{
	return peer_msg_printable(s, '!', 1, PEER_MSG_SOFTWARE_MAX);
}

/* --- semantic validation, shared by encoder and decoder --- */

static enum peer_msg_err
peer_msg_addr_check(const struct conf_addr *a)
{
	unsigned int i;

	if (a->family == AF_INET) {
		for (i = 4; i < 16; i++)
			if (a->a[i] != 0)
				return PEER_MSG_E_ADDR;
		return PEER_MSG_OK;
	}
	return a->family == AF_INET6 ? PEER_MSG_OK : PEER_MSG_E_FAMILY;
}

static enum peer_msg_err
peer_msg_prefix_check(const struct conf_prefix *p)
{
	unsigned int bits, i;
	enum peer_msg_err e = peer_msg_addr_check(&p->addr);

	if (e != PEER_MSG_OK)
		return e;
	bits = p->addr.family == AF_INET ? 32 : 128;
	if (p->len > bits)
		return PEER_MSG_E_PREFIX_LEN;
	for (i = p->len; i < bits; i++)
		if (p->addr.a[i / 8] & (0x80u >> (i % 8)))
			return PEER_MSG_E_HOST_BITS;
	return PEER_MSG_OK;
}

static bool
peer_msg_prefix_eq(const struct conf_prefix *a, const struct conf_prefix *b)
{
	return a->len == b->len && a->addr.family == b->addr.family &&
	       memcmp(a->addr.a, b->addr.a, sizeof(a->addr.a)) == 0;
}

enum peer_msg_err
peer_msg_prefixes_check(const struct conf_prefix *p, unsigned int n)
{
	unsigned int i, j;

	if (n > LS_MAX_PREFIXES)
		return PEER_MSG_E_COUNT;
	for (i = 0; i < n; i++) {
		enum peer_msg_err e = peer_msg_prefix_check(&p[i]);

		if (e != PEER_MSG_OK)
			return e;
		for (j = 0; j < i; j++)
			if (peer_msg_prefix_eq(&p[i], &p[j]))
				return PEER_MSG_E_DUPLICATE;
	}
	return PEER_MSG_OK;
}

static enum peer_msg_err
peer_msg_hello_check(const struct peer_msg_hello *h)
{
	if (!peer_msg_site_ok(h->site))
		return PEER_MSG_E_SITE;
	if (!peer_msg_printable(h->software, '!', 1, PEER_MSG_SOFTWARE_MAX))
		return PEER_MSG_E_SOFTWARE;
	if (h->hold_time_ms < PEER_MSG_HOLD_MIN_MS || h->hold_time_ms > PEER_MSG_HOLD_MAX_MS)
		return PEER_MSG_E_HOLD;
	return peer_msg_prefixes_check(h->prefixes, h->n_prefixes);
}

/*
 * A route update names each prefix once: an add and a withdraw of the same
 * prefix in one message would make the result depend on entry order.
 */
static enum peer_msg_err
peer_msg_route_check(const struct peer_msg_route *r)
{
	unsigned int i, j;

	if (r->n_entries > PEER_MSG_ROUTE_ENTRIES_MAX ||
	    (r->full && r->n_entries > LS_MAX_PREFIXES))
		return PEER_MSG_E_COUNT;
	for (i = 0; i < r->n_entries; i++) {
		const struct peer_msg_route_entry *e = &r->entries[i];
		enum peer_msg_err err;

		if (e->op != PEER_ROUTE_ADD && (e->op != PEER_ROUTE_WITHDRAW || r->full))
			return PEER_MSG_E_ROUTE_OP;
		err = peer_msg_prefix_check(&e->prefix);
		if (err != PEER_MSG_OK)
			return err;
		for (j = 0; j < i; j++)
			if (peer_msg_prefix_eq(&e->prefix, &r->entries[j].prefix))
				return PEER_MSG_E_DUPLICATE;
	}
	return PEER_MSG_OK;
}

static enum peer_msg_err
peer_msg_hint_check(const struct peer_msg_hint *h)
{
	unsigned int i, j;

	if (h->kind != PEER_HINT_SHAPED_QPS)
		return PEER_MSG_E_HINT_KIND;
	if (h->valid_ms == 0 || h->valid_ms > PEER_HINT_VALID_MAX_MS)
		return PEER_MSG_E_VALIDITY;
	if (h->n_qps > PEER_MSG_HINT_QPS_MAX)
		return PEER_MSG_E_COUNT;
	for (i = 0; i < h->n_qps; i++) {
		const struct peer_msg_hint_qp *q = &h->qps[i];
		enum peer_msg_err e = peer_msg_addr_check(&q->dst);

		if (e != PEER_MSG_OK)
			return e;
		if (q->qpn > 0xffffffu)
			return PEER_MSG_E_QPN;
		for (j = 0; j < i; j++)
			if (h->qps[j].qpn == q->qpn && h->qps[j].dst.family == q->dst.family &&
			    memcmp(h->qps[j].dst.a, q->dst.a, sizeof(q->dst.a)) == 0)
				return PEER_MSG_E_DUPLICATE;
	}
	return PEER_MSG_OK;
}

static enum peer_msg_err
peer_msg_validate(const struct peer_msg *m)
{
	switch (m->type) {
	case PEER_MSG_HELLO:
		return peer_msg_hello_check(&m->u.hello);
	case PEER_MSG_KEEPALIVE:
		return PEER_MSG_OK;
	case PEER_MSG_ROUTE:
		return peer_msg_route_check(&m->u.route);
	case PEER_MSG_HINT:
		return peer_msg_hint_check(&m->u.hint);
	case PEER_MSG_CLOSE:
		if (!peer_close_reason_ok((unsigned int)m->u.close.reason))
			return PEER_MSG_E_CLOSE_REASON;
		if (!peer_msg_printable(m->u.close.text, ' ', 0, PEER_MSG_TEXT_MAX))
			return PEER_MSG_E_TEXT;
		return PEER_MSG_OK;
	}
	return PEER_MSG_E_TYPE;
}

/* --- reader: every access bounded by what is left of the body --- */

struct peer_rd {
	const uint8_t *p;
	size_t left;
};

static bool
peer_rd_bytes(struct peer_rd *r, void *dst, size_t n)
{
	if (r->left < n)
		return false;
	memcpy(dst, r->p, n);
	r->p += n;
	r->left -= n;
	return true;
}

static bool
peer_rd_uint(struct peer_rd *r, size_t n, uint64_t *v)
{
	uint8_t b[8];
	size_t i;

	if (!peer_rd_bytes(r, b, n))
		return false;
	*v = 0;
	for (i = 0; i < n; i++)
		*v = *v << 8 | b[i];
	return true;
}

#define PEER_RD(r, n, lval)                                                                        \
	do {                                                                                       \
		uint64_t v_;                                                                       \
		if (!peer_rd_uint((r), (n), &v_))                                                  \
			return PEER_MSG_E_BODY_SHORT;                                              \
		(lval) = (__typeof__(lval))v_;                                                     \
	} while (0)

/* A length-prefixed string of at most MAX characters into DST[MAX + 1]. */
static enum peer_msg_err
peer_rd_string(struct peer_rd *r, char *dst, size_t max, enum peer_msg_err bad)
{
	uint8_t n;

	if (!peer_rd_bytes(r, &n, 1))
		return PEER_MSG_E_BODY_SHORT;
	if (n > max)
		return bad;
	if (!peer_rd_bytes(r, dst, n))
		return PEER_MSG_E_BODY_SHORT;
	dst[n] = '\0';
	/* An embedded NUL would shorten the string the validator sees. */
	return strlen(dst) == n ? PEER_MSG_OK : bad;
}

static enum peer_msg_err
peer_rd_family(struct peer_rd *r, struct conf_addr *a, size_t *addr_bytes)
{
	uint8_t f;

	if (!peer_rd_bytes(r, &f, 1))
		return PEER_MSG_E_BODY_SHORT;
	memset(a, 0, sizeof(*a));
	if (f == PEER_WIRE_FAMILY4) {
		a->family = AF_INET;
		*addr_bytes = 4;
	} else if (f == PEER_WIRE_FAMILY6) {
		a->family = AF_INET6;
		*addr_bytes = 16;
	} else {
		return PEER_MSG_E_FAMILY;
	}
	return PEER_MSG_OK;
}

static enum peer_msg_err
peer_rd_prefix(struct peer_rd *r, struct conf_prefix *p)
{
	size_t n;
	enum peer_msg_err e = peer_rd_family(r, &p->addr, &n);

	if (e != PEER_MSG_OK)
		return e;
	if (!peer_rd_bytes(r, &p->len, 1) || !peer_rd_bytes(r, p->addr.a, n))
		return PEER_MSG_E_BODY_SHORT;
	return PEER_MSG_OK;
}

static enum peer_msg_err
peer_rd_hello(struct peer_rd *r, struct peer_msg_hello *h)
{
	enum peer_msg_err e;
	unsigned int i;

	e = peer_rd_string(r, h->site, PEER_MSG_SITE_MAX, PEER_MSG_E_SITE);
	if (e != PEER_MSG_OK)
		return e;
	e = peer_rd_string(r, h->software, PEER_MSG_SOFTWARE_MAX, PEER_MSG_E_SOFTWARE);
	if (e != PEER_MSG_OK)
		return e;
	PEER_RD(r, 8, h->instance_id);
	PEER_RD(r, 8, h->capabilities);
	PEER_RD(r, 4, h->hold_time_ms);
	PEER_RD(r, 4, h->route_generation);
	PEER_RD(r, 2, h->n_prefixes);
	if (h->n_prefixes > LS_MAX_PREFIXES)
		return PEER_MSG_E_COUNT;
	for (i = 0; i < h->n_prefixes; i++) {
		e = peer_rd_prefix(r, &h->prefixes[i]);
		if (e != PEER_MSG_OK)
			return e;
	}
	return PEER_MSG_OK;
}

static enum peer_msg_err
peer_rd_route(struct peer_rd *r, struct peer_msg_route *rt)
{
	uint8_t flags, reserved;
	unsigned int i;

	PEER_RD(r, 4, rt->generation);
	PEER_RD(r, 1, flags);
	PEER_RD(r, 1, reserved);
	if ((flags & ~PEER_ROUTE_FLAG_FULL) != 0 || reserved != 0)
		return PEER_MSG_E_RESERVED;
	rt->full = (flags & PEER_ROUTE_FLAG_FULL) != 0;
	PEER_RD(r, 2, rt->n_entries);
	if (rt->n_entries > PEER_MSG_ROUTE_ENTRIES_MAX)
		return PEER_MSG_E_COUNT;
	for (i = 0; i < rt->n_entries; i++) {
		enum peer_msg_err e;

		PEER_RD(r, 1, rt->entries[i].op);
		e = peer_rd_prefix(r, &rt->entries[i].prefix);
		if (e != PEER_MSG_OK)
			return e;
	}
	return PEER_MSG_OK;
}

static enum peer_msg_err
peer_rd_hint(struct peer_rd *r, struct peer_msg_hint *h)
{
	uint8_t reserved;
	unsigned int i;

	PEER_RD(r, 1, h->kind);
	PEER_RD(r, 1, reserved);
	if (reserved != 0)
		return PEER_MSG_E_RESERVED;
	PEER_RD(r, 2, h->n_qps);
	PEER_RD(r, 4, h->valid_ms);
	if (h->n_qps > PEER_MSG_HINT_QPS_MAX)
		return PEER_MSG_E_COUNT;
	for (i = 0; i < h->n_qps; i++) {
		struct peer_msg_hint_qp *q = &h->qps[i];
		size_t n;
		enum peer_msg_err e = peer_rd_family(r, &q->dst, &n);

		if (e != PEER_MSG_OK)
			return e;
		PEER_RD(r, 3, q->qpn);
		/* The address field is 16 bytes for both families. */
		if (!peer_rd_bytes(r, q->dst.a, 16))
			return PEER_MSG_E_BODY_SHORT;
		PEER_RD(r, 8, q->rate_bps);
	}
	return PEER_MSG_OK;
}

static enum peer_msg_err
peer_rd_close(struct peer_rd *r, struct peer_msg_close *c)
{
	PEER_RD(r, 2, c->reason);
	return peer_rd_string(r, c->text, PEER_MSG_TEXT_MAX, PEER_MSG_E_TEXT);
}

enum peer_msg_err
peer_msg_decode(const uint8_t *buf, size_t len, struct peer_msg *out, size_t *msg_bytes)
{
	struct peer_rd r;
	uint32_t length;
	enum peer_msg_err e;

	if (len < 4)
		return PEER_MSG_E_SHORT;
	length = (uint32_t)buf[0] << 24 | (uint32_t)buf[1] << 16 | (uint32_t)buf[2] << 8 | buf[3];
	if (length < PEER_MSG_HDR_BYTES || length > PEER_MSG_MAX_BYTES)
		return PEER_MSG_E_LENGTH;
	if (len < 5)
		return PEER_MSG_E_SHORT;
	if (buf[4] != PEER_MSG_VERSION)
		return PEER_MSG_E_VERSION;
	if (len < 6)
		return PEER_MSG_E_SHORT;
	if (buf[5] < PEER_MSG_HELLO || buf[5] > PEER_MSG_CLOSE)
		return PEER_MSG_E_TYPE;
	if (len < PEER_MSG_HDR_BYTES)
		return PEER_MSG_E_SHORT;
	if (buf[6] != 0 || buf[7] != 0)
		return PEER_MSG_E_RESERVED;
	if (len < length)
		return PEER_MSG_E_SHORT;

	memset(out, 0, sizeof(*out));
	out->type = (enum peer_msg_type)buf[5];
	r.p = buf + PEER_MSG_HDR_BYTES;
	r.left = length - PEER_MSG_HDR_BYTES;
	switch (out->type) {
	case PEER_MSG_HELLO:
		e = peer_rd_hello(&r, &out->u.hello);
		break;
	case PEER_MSG_KEEPALIVE: {
		struct peer_msg_keepalive *k = &out->u.keepalive;

		e = PEER_MSG_OK;
		if (!peer_rd_uint(&r, 8, &k->tx_ns) || !peer_rd_uint(&r, 8, &k->echo_ns) ||
		    !peer_rd_uint(&r, 8, &k->echo_delay_ns) ||
		    !peer_rd_uint(&r, 8, &k->measured_rtt_ns))
			e = PEER_MSG_E_BODY_SHORT;
		break;
	}
	case PEER_MSG_ROUTE:
		e = peer_rd_route(&r, &out->u.route);
		break;
	case PEER_MSG_HINT:
		e = peer_rd_hint(&r, &out->u.hint);
		break;
	case PEER_MSG_CLOSE:
	default:
		e = peer_rd_close(&r, &out->u.close);
		break;
	}
	if (e != PEER_MSG_OK)
		return e;
	if (r.left != 0)
		return PEER_MSG_E_TRAILING;
	e = peer_msg_validate(out);
	if (e != PEER_MSG_OK)
		return e;
	*msg_bytes = length;
	return PEER_MSG_OK;
}

/* --- writer --- */

struct peer_wr {
	uint8_t *p;
	size_t left;
	bool overflow;
};

static void
peer_wr_bytes(struct peer_wr *w, const void *src, size_t n)
{
	if (w->overflow || w->left < n) {
		w->overflow = true;
		return;
	}
	memcpy(w->p, src, n);
	w->p += n;
	w->left -= n;
}

static void
peer_wr_uint(struct peer_wr *w, size_t n, uint64_t v)
{
	uint8_t b[8];
	size_t i;

	for (i = 0; i < n; i++)
		b[i] = (uint8_t)(v >> (8 * (n - 1 - i)));
	peer_wr_bytes(w, b, n);
}

static void
peer_wr_string(struct peer_wr *w, const char *s)
{
	size_t n = strlen(s);

	peer_wr_uint(w, 1, n);
	peer_wr_bytes(w, s, n);
}

static void
peer_wr_family(struct peer_wr *w, const struct conf_addr *a)
{
	peer_wr_uint(w, 1, a->family == AF_INET ? PEER_WIRE_FAMILY4 : PEER_WIRE_FAMILY6);
}

static void
peer_wr_prefix(struct peer_wr *w, const struct conf_prefix *p)
{
	peer_wr_family(w, &p->addr);
	peer_wr_uint(w, 1, p->len);
	peer_wr_bytes(w, p->addr.a, p->addr.family == AF_INET ? 4 : 16);
}

static void
peer_wr_body(struct peer_wr *w, const struct peer_msg *m)
{
	unsigned int i;

	switch (m->type) {
	case PEER_MSG_HELLO: {
		const struct peer_msg_hello *h = &m->u.hello;

		peer_wr_string(w, h->site);
		peer_wr_string(w, h->software);
		peer_wr_uint(w, 8, h->instance_id);
		peer_wr_uint(w, 8, h->capabilities);
		peer_wr_uint(w, 4, h->hold_time_ms);
		peer_wr_uint(w, 4, h->route_generation);
		peer_wr_uint(w, 2, h->n_prefixes);
		for (i = 0; i < h->n_prefixes; i++)
			peer_wr_prefix(w, &h->prefixes[i]);
		break;
	}
	case PEER_MSG_KEEPALIVE: {
		const struct peer_msg_keepalive *k = &m->u.keepalive;

		peer_wr_uint(w, 8, k->tx_ns);
		peer_wr_uint(w, 8, k->echo_ns);
		peer_wr_uint(w, 8, k->echo_delay_ns);
		peer_wr_uint(w, 8, k->measured_rtt_ns);
		break;
	}
	case PEER_MSG_ROUTE: {
		const struct peer_msg_route *r = &m->u.route;

		peer_wr_uint(w, 4, r->generation);
		peer_wr_uint(w, 1, r->full ? PEER_ROUTE_FLAG_FULL : 0);
		peer_wr_uint(w, 1, 0);
		peer_wr_uint(w, 2, r->n_entries);
		for (i = 0; i < r->n_entries; i++) {
			peer_wr_uint(w, 1, r->entries[i].op);
			peer_wr_prefix(w, &r->entries[i].prefix);
		}
		break;
	}
	case PEER_MSG_HINT: {
		const struct peer_msg_hint *h = &m->u.hint;

		peer_wr_uint(w, 1, h->kind);
		peer_wr_uint(w, 1, 0);
		peer_wr_uint(w, 2, h->n_qps);
		peer_wr_uint(w, 4, h->valid_ms);
		for (i = 0; i < h->n_qps; i++) {
			peer_wr_family(w, &h->qps[i].dst);
			peer_wr_uint(w, 3, h->qps[i].qpn);
			peer_wr_bytes(w, h->qps[i].dst.a, 16);
			peer_wr_uint(w, 8, h->qps[i].rate_bps);
		}
		break;
	}
	case PEER_MSG_CLOSE:
		peer_wr_uint(w, 2, (uint64_t)m->u.close.reason);
		peer_wr_string(w, m->u.close.text);
		break;
	}
}

int
peer_msg_encode(const struct peer_msg *m, uint8_t *buf, size_t cap)
{
	struct peer_wr w = { .p = buf, .left = cap, .overflow = false };
	size_t size;

	if (peer_msg_validate(m) != PEER_MSG_OK)
		return -EINVAL;
	peer_wr_uint(&w, 4, 0); /* length, patched below */
	peer_wr_uint(&w, 1, PEER_MSG_VERSION);
	peer_wr_uint(&w, 1, (uint64_t)m->type);
	peer_wr_uint(&w, 2, 0);
	peer_wr_body(&w, m);
	if (w.overflow)
		return -ENOSPC;
	size = cap - w.left;
	/* The static_asserts in peer_msg.h bound every valid message. */
	if (size > PEER_MSG_MAX_BYTES)
		return -EINVAL;
	buf[0] = (uint8_t)(size >> 24);
	buf[1] = (uint8_t)(size >> 16);
	buf[2] = (uint8_t)(size >> 8);
	buf[3] = (uint8_t)size;
	return (int)size;
}
