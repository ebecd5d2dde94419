/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The gateway's own value types in the key table (config_keys.h):
 * mechanism lists, interface addresses, addresses, MACs, static neighbors
 * and peer prefixes, each with one setter and one dumper, after the
 * built-in bool, integer-with-units, enum and string of conf_key.c.
 */

#include <arpa/inet.h>
#include <assert.h>
#include <ctype.h>
#include <errno.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>

#include "config_int.h"

/* One mechanism list parser (conf_mech.c) for the gateway's LS_MECH_* bits. */
static_assert(LS_MECH_A == CONF_MECH_A && LS_MECH_C == CONF_MECH_C, "mechanism bits");

/* ---- Addresses (conf_addr.c) and MACs ------------------------------------- */

int
config_family_version(int family)
{
	return family == AF_INET ? 4 : 6;
}

/* Why A cannot be a unicast host address, or NULL. */
static const char *
config_addr_not_unicast(const struct conf_addr *a)
{
	static const uint8_t zero[16];

	if (memcmp(a->a, zero, conf_addr_len(a)) == 0)
		return "the unspecified address";
	if (a->family == AF_INET) {
		if (a->a[0] >= 224)
			return a->a[0] < 240 ? "a multicast address" : "a reserved address";
		if (a->a[0] == 127)
			return "a loopback address";
	} else {
		static const uint8_t loop6[16] = { [15] = 1 };

		if (a->a[0] == 0xff)
			return "a multicast address";
		if (memcmp(a->a, loop6, 16) == 0)
			return "the loopback address";
	}
	return NULL;
}

static unsigned int
config_hex_nibble(char c)
{
	return isdigit((unsigned char)c) ? (unsigned int)(c - '0')
					 : (unsigned int)(tolower((unsigned char)c) - 'a' + 10);
}

/* Exactly six ':'-separated pairs of hex digits. */
static int
config_parse_mac(const char *s, uint8_t mac[6])
{
	for (unsigned int i = 0; i < 6; i++) {
		const char *h = s + i * 3;

		if (!isxdigit((unsigned char)h[0]) || !isxdigit((unsigned char)h[1]) ||
		    h[2] != (i == 5 ? '\0' : ':'))
			return -EINVAL;
		mac[i] = (uint8_t)(config_hex_nibble(h[0]) << 4 | config_hex_nibble(h[1]));
	}
	return 0;
}

static const char *
config_mac_not_unicast(const uint8_t mac[6])
{
	static const uint8_t zero[6];

	if (mac[0] & 1)
		return "is a multicast MAC address";
	if (memcmp(mac, zero, 6) == 0)
		return "is the all-zero MAC address";
	return NULL;
}


/* ---- Setters ----------------------------------------------------------------- */

static int
config_set_mech(const struct conf_key *k, void *base, const char *value, struct conf_set_ctx *ctx)
{
	const char *why = NULL;
	unsigned int bits;

	if (conf_mech_parse(value, CONF_MECH_A | CONF_MECH_C, &bits, &why) < 0)
		return conf_fail(ctx, "'%s' %s", value, why);
	conf_put_uint((char *)base + k->offset, k->size, bits);
	return 0;
}

static int
config_set_ifaddr(const struct conf_key *k, void *base, const char *value,
		  struct conf_set_ctx *ctx)
{
	int family = k->type == CONFIG_T_IFADDR4 ? AF_INET : AF_INET6;
	const char *why = NULL;
	struct conf_prefix pfx;

	if (conf_prefix_parse(value, family, &pfx, &why) < 0)
		return conf_fail(ctx, "'%s' %s", value, why);
	if (pfx.len == 0)
		return conf_fail(ctx, "'%s' needs a prefix length of at least 1", value);
	why = config_addr_not_unicast(&pfx.addr);
	if (why != NULL)
		return conf_fail(ctx, "%s is %s", value, why);
	if (family == AF_INET && pfx.len <= 30) {
		uint32_t host_mask = UINT32_MAX >> pfx.len, a;

		memcpy(&a, pfx.addr.a, 4);
		a = ntohl(a) & host_mask;
		if (a == 0)
			return conf_fail(ctx, "%s is the network address of its subnet", value);
		if (a == host_mask)
			return conf_fail(ctx, "%s is the broadcast address of its subnet", value);
	}
	memcpy((char *)base + k->offset, &pfx, sizeof(pfx));
	return 0;
}

static int
config_set_addr(const struct conf_key *k, void *base, const char *value, struct conf_set_ctx *ctx)
{
	int family = k->type == CONFIG_T_ADDR4 ? AF_INET : k->type == CONFIG_T_ADDR6 ? AF_INET6 : 0;
	const char *why;
	struct conf_addr a;

	if (conf_addr_parse(value, family, &a) < 0)
		return conf_fail(ctx, "'%s' is not an %s address", value,
				 family == AF_INET ? "IPv4" : family == AF_INET6 ? "IPv6" : "IP");
	why = config_addr_not_unicast(&a);
	/* A kernel socket address (peering) may be loopback: the lab's is. */
	if (why != NULL && !((k->flags & CONFIG_F_LOOPBACK) && strstr(why, "loopback")))
		return conf_fail(ctx, "%s is %s", value, why);
	memcpy((char *)base + k->offset, &a, sizeof(a));
	return 0;
}

static int
config_set_mac(const struct conf_key *k, void *base, const char *value, struct conf_set_ctx *ctx)
{
	const char *why;
	uint8_t mac[6];

	if (config_parse_mac(value, mac) < 0)
		return conf_fail(ctx, "'%s' is not a MAC address (02:00:00:00:00:01)", value);
	why = config_mac_not_unicast(mac);
	if (why != NULL)
		return conf_fail(ctx, "%s %s", value, why);
	memcpy((char *)base + k->offset, mac, 6);
	return 0;
}

static unsigned int *
config_count_field(const struct conf_key *k, void *base)
{
	return (unsigned int *)((char *)base + k->count_offset);
}

static int
config_set_neigh(const struct conf_key *k, void *base, const char *value, struct conf_set_ctx *ctx)
{
	unsigned int *count = config_count_field(k, base);
	struct ls_static_neigh n, *arr = (struct ls_static_neigh *)((char *)base + k->offset);
	char ip[INET6_ADDRSTRLEN + 1];
	size_t iplen = strcspn(value, " \t");
	const char *mac = value + iplen + strspn(value + iplen, " \t");
	const char *why;

	memset(&n, 0, sizeof(n));
	if (iplen >= sizeof(ip) || *mac == '\0')
		return conf_fail(ctx, "'%s' is not 'IP MAC'", value);
	memcpy(ip, value, iplen);
	ip[iplen] = '\0';
	if (conf_addr_parse(ip, 0, &n.ip) < 0)
		return conf_fail(ctx, "'%s' is not an IP address", ip);
	why = config_addr_not_unicast(&n.ip);
	if (why != NULL)
		return conf_fail(ctx, "%s is %s", ip, why);
	if (config_parse_mac(mac, n.mac) < 0)
		return conf_fail(ctx, "'%s' is not a MAC address (02:00:00:00:00:01)", mac);
	why = config_mac_not_unicast(n.mac);
	if (why != NULL)
		return conf_fail(ctx, "%s %s", mac, why);
	for (unsigned int i = 0; i < *count; i++)
		if (memcmp(&arr[i].ip, &n.ip, sizeof(n.ip)) == 0)
			return conf_fail(ctx, "%s is already a neighbor (line %u)", ip,
					 ctx->elem_line[i]);
	if (*count >= k->max_count)
		return conf_fail(ctx, "more than %u neighbors", (unsigned int)k->max_count);
	ctx->elem_line[*count] = ctx->line;
	arr[(*count)++] = n;
	return 0;
}

static int
config_set_prefix(const struct conf_key *k, void *base, const char *value,
		  struct conf_set_ctx *ctx)
{
	unsigned int *count = config_count_field(k, base);
	struct conf_prefix pfx, *arr = (struct conf_prefix *)((char *)base + k->offset);
	char text[INET6_ADDRSTRLEN + 24];
	const char *why = NULL;

	if (conf_prefix_parse(value, 0, &pfx, &why) < 0)
		return conf_fail(ctx, "'%s' %s", value, why);
	if (conf_clear_host_bits(&pfx.addr, pfx.len)) {
		conf_prefix_text(&pfx, text, sizeof(text));
		return conf_fail(ctx, "%s has host bits set (did you mean %s?)", value, text);
	}
	for (unsigned int i = 0; i < *count; i++)
		if (memcmp(&arr[i], &pfx, sizeof(pfx)) == 0)
			return conf_fail(ctx, "%s is already a prefix of this peer (line %u)", value,
					 ctx->elem_line[i]);
	if (*count >= k->max_count)
		return conf_fail(ctx, "more than %u prefixes", (unsigned int)k->max_count);
	ctx->elem_line[*count] = ctx->line;
	arr[(*count)++] = pfx;
	return 0;
}

/* ---- Dumpers ----------------------------------------------------------------- */

static void
config_dump_mech(const struct conf_key *k, const void *base, FILE *out)
{
	fprintf(out, "%s = %s\n", k->name,
		conf_mech_name(
			(unsigned int)conf_get_uint((const char *)base + k->offset, k->size)));
}

static void
config_dump_ifaddr(const struct conf_key *k, const void *base, FILE *out)
{
	const struct conf_prefix *pfx = (const void *)((const char *)base + k->offset);
	char text[INET6_ADDRSTRLEN + 8];

	if (pfx->addr.family != 0) {
		conf_prefix_text(pfx, text, sizeof(text));
		fprintf(out, "%s = %s\n", k->name, text);
	}
}

static void
config_dump_addr(const struct conf_key *k, const void *base, FILE *out)
{
	const struct conf_addr *a = (const void *)((const char *)base + k->offset);
	char text[INET6_ADDRSTRLEN + 8];

	if (a->family != 0) {
		conf_addr_text(a, text, sizeof(text));
		fprintf(out, "%s = %s\n", k->name, text);
	}
}

static void
config_dump_mac(const struct conf_key *k, const void *base, FILE *out)
{
	const uint8_t *m = (const uint8_t *)base + k->offset;

	fprintf(out, "%s = %02x:%02x:%02x:%02x:%02x:%02x\n", k->name, m[0], m[1], m[2], m[3], m[4],
		m[5]);
}

static void
config_dump_neigh(const struct conf_key *k, const void *base, FILE *out)
{
	const struct ls_static_neigh *n = (const void *)((const char *)base + k->offset);
	unsigned int count = *(const unsigned int *)((const char *)base + k->count_offset);
	char a[INET6_ADDRSTRLEN + 8];

	for (unsigned int i = 0; i < count; i++) {
		const uint8_t *m = n[i].mac;

		conf_addr_text(&n[i].ip, a, sizeof(a));
		fprintf(out, "%s = %s %02x:%02x:%02x:%02x:%02x:%02x\n", k->name, a, m[0], m[1], m[2],
			m[3], m[4], m[5]);
	}
}

static void
config_dump_prefix(const struct conf_key *k, const void *base, FILE *out)
{
	const struct conf_prefix *pfx = (const void *)((const char *)base + k->offset);
	unsigned int count = *(const unsigned int *)((const char *)base + k->count_offset);
	char text[INET6_ADDRSTRLEN + 8];

	for (unsigned int i = 0; i < count; i++) {
		conf_prefix_text(&pfx[i], text, sizeof(text));
		fprintf(out, "%s = %s\n", k->name, text);
	}
}

/* ---- [peer] rtt: a time, or auto ----------------------------------------- */

static int
config_set_rtt(const struct conf_key *k, void *base, const char *value, struct conf_set_ctx *ctx)
{
	struct ls_peer_conf *pc = base;
	struct conf_key as_uint = *k;

	if (strcasecmp(value, "auto") == 0) {
		pc->rtt_auto = true;
		pc->rtt_ns = 0;
		return 0;
	}
	pc->rtt_auto = false;
	as_uint.type = CONF_T_UINT; /* its range message */
	return conf_set_uint(&as_uint, base, value, ctx);
}

static void
config_dump_rtt(const struct conf_key *k, const void *base, FILE *out)
{
	const struct ls_peer_conf *pc = base;

	if (pc->rtt_auto)
		fprintf(out, "%s = auto\n", k->name);
	else
		conf_dump_uint(k, base, out);
}

const struct conf_type config_types[CONFIG_T_MAX] = {
	CONF_TYPE_BUILTINS,
	[CONFIG_T_MECH] = { "mechanism list", config_set_mech, config_dump_mech },
	[CONFIG_T_IFADDR4] = { "IPv4/len", config_set_ifaddr, config_dump_ifaddr },
	[CONFIG_T_IFADDR6] = { "IPv6/len", config_set_ifaddr, config_dump_ifaddr },
	[CONFIG_T_ADDR] = { "IP address", config_set_addr, config_dump_addr },
	[CONFIG_T_ADDR4] = { "IPv4 address", config_set_addr, config_dump_addr },
	[CONFIG_T_ADDR6] = { "IPv6 address", config_set_addr, config_dump_addr },
	[CONFIG_T_MAC] = { "MAC", config_set_mac, config_dump_mac },
	[CONFIG_T_NEIGH] = { "IP MAC", config_set_neigh, config_dump_neigh },
	[CONFIG_T_PREFIX] = { "prefix", config_set_prefix, config_dump_prefix },
	[CONFIG_T_RTT] = { "time or auto", config_set_rtt, config_dump_rtt },
};
