/* SPDX-License-Identifier: BSD-3-Clause */
/* IP addresses and prefixes of config files (conf_addr.h). */
#include "conf_addr.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

unsigned int
conf_addr_len(const struct conf_addr *a)
{
	return a->family == AF_INET ? 4 : 16;
}

unsigned int
conf_family_bits(int family)
{
	return family == AF_INET ? 32 : 128;
}

int
conf_addr_parse(const char *s, int family, struct conf_addr *out)
{
	uint8_t a[16];

	memset(out, 0, sizeof(*out));
	if (family != AF_INET6 && inet_pton(AF_INET, s, a) == 1) {
		out->family = AF_INET;
		memcpy(out->a, a, 4);
		return 0;
	}
	if (family != AF_INET && inet_pton(AF_INET6, s, a) == 1) {
		out->family = AF_INET6;
		memcpy(out->a, a, 16);
		return 0;
	}
	return -EINVAL;
}

int
conf_prefix_parse(const char *s, int family, struct conf_prefix *out, const char **why)
{
	char addr[INET6_ADDRSTRLEN + 1];
	const char *slash = strchr(s, '/');
	const char *l;
	unsigned int len = 0;
	size_t n;

	memset(out, 0, sizeof(*out));
	if (slash == NULL) {
		*why = "needs a prefix length (ADDRESS/LEN)";
		return -EINVAL;
	}
	n = (size_t)(slash - s);
	if (n < sizeof(addr)) {
		memcpy(addr, s, n);
		addr[n] = '\0';
	}
	if (n >= sizeof(addr) || conf_addr_parse(addr, family, &out->addr) < 0) {
		*why = family == AF_INET    ? "is not an IPv4 address/len"
		       : family == AF_INET6 ? "is not an IPv6 address/len"
					    : "is not an IP prefix (ADDRESS/LEN)";
		return -EINVAL;
	}
	for (l = slash + 1; *l != '\0'; l++) {
		if (!isdigit((unsigned char)*l) || l - slash > 3) {
			*why = "has a bad prefix length";
			return -EINVAL;
		}
		len = len * 10 + (unsigned int)(*l - '0');
	}
	if (l == slash + 1 || len > conf_family_bits(out->addr.family)) {
		*why = out->addr.family == AF_INET ? "has a bad prefix length (0 .. 32)"
						   : "has a bad prefix length (0 .. 128)";
		return -EINVAL;
	}
	out->len = (uint8_t)len;
	return 0;
}

bool
conf_prefix_contains(const struct conf_prefix *p, const struct conf_addr *a)
{
	unsigned int full = p->len / 8, rest = p->len % 8;

	if (p->addr.family != a->family)
		return false;
	if (memcmp(p->addr.a, a->a, full) != 0)
		return false;
	if (rest == 0)
		return true;
	return ((p->addr.a[full] ^ a->a[full]) & (uint8_t)(0xff << (8 - rest))) == 0;
}

bool
conf_clear_host_bits(struct conf_addr *a, unsigned int len)
{
	bool had = false;

	for (unsigned int i = 0; i < conf_addr_len(a); i++) {
		unsigned int bit0 = i * 8;
		uint8_t keep = bit0 >= len ? 0 : bit0 + 8 <= len ? 0xff : (uint8_t)(0xff << (8 - (len - bit0)));

		if (a->a[i] & ~keep)
			had = true;
		a->a[i] &= keep;
	}
	return had;
}

void
conf_addr_text(const struct conf_addr *a, char *buf, size_t size)
{
	if (a->family == 0 || inet_ntop(a->family, a->a, buf, (socklen_t)size) == NULL)
		snprintf(buf, size, "%s", "(unset)");
}

void
conf_prefix_text(const struct conf_prefix *p, char *buf, size_t size)
{
	char a[INET6_ADDRSTRLEN];

	conf_addr_text(&p->addr, a, sizeof(a));
	snprintf(buf, size, "%s/%u", a, p->len);
}
