/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * config_load(): read an INI file into a struct ls_config as a transaction
 * (style.md rule 2): parse every line through the key table
 * (config_keys.c), fill defaults, check required keys, run the cross-field
 * rules over the whole file, and only then copy the result out. Every error
 * is reported as "FILE:LINE: [section] key: message"; parsing continues
 * after an error so that one run shows them all.
 *
 * libinih splits lines into section, key and value and strips comments, but
 * Debian's build gives its handler no line number and says nothing about
 * section headers. So config.c hands inih its lines through a reader
 * (config_read_line) that counts them, parses section headers itself, and
 * reports lines inih would silently reject, and passes inih only key lines.
 */

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <ini.h>

#include "config.h"
#include "config_keys.h"
#include "eal_args.h"
#include "units.h"

/* Reporting stops after this many errors: garbage input is not worth more. */
#define CONFIG_MAX_ERRORS 100u
/* Longest line read; inih's own limit (its reader argument) is lower. */
#define CONFIG_LINE_MAX 1024

/* Section instances: the singletons, then ports, peers and hooks. */
enum {
	CONFIG_INST_GATEWAY = 0,
	CONFIG_INST_EAL,
	CONFIG_INST_CONGESTION,
	CONFIG_INST_TELEMETRY,
	CONFIG_INST_PORT0,
	CONFIG_INST_PEER0 = CONFIG_INST_PORT0 + LS_MAX_PORTS,
	CONFIG_INST_HOOK0 = CONFIG_INST_PEER0 + LS_MAX_PEERS,
	CONFIG_INST_MAX = CONFIG_INST_HOOK0 + LS_MAX_HOOKS,
};

/* What the parser knows about one section of the file. */
struct config_inst {
	enum config_section section;
	void *base; /* the struct in ls_config the keys write */
	char label[LS_NAME_MAX + 16]; /* "[peer site-b]" */
	unsigned int line; /* line of the header; 0 = not in the file */
	unsigned int key_line[CONFIG_KEYS_MAX]; /* first line a key was given */
	bool key_bad[CONFIG_KEYS_MAX]; /* the key was given with a bad value */
	unsigned int elem_line[CONFIG_ELEMS_MAX]; /* line of each repeated value */
};

/* One reported error, kept until the end so that all print in line order. */
struct config_msg {
	unsigned int line;
	unsigned int seq; /* order of discovery, to sort stably */
	char text[512];
};

struct config_parser {
	const char *file; /* name in messages */
	const char *text; /* the whole file, in memory */
	size_t size, pos; /* its length; the next byte to read */
	FILE *err;
	struct ls_config *cfg; /* being built; copied out on success */
	unsigned int line; /* current line */
	unsigned int n_errors;
	bool eof;
	struct config_inst *cur; /* section of the current line, or NULL */
	bool skip_section; /* after a bad header: ignore its keys quietly */
	struct config_inst inst[CONFIG_INST_MAX];
	struct config_msg msgs[CONFIG_MAX_ERRORS];
	char buf[CONFIG_LINE_MAX];
};

static void
config_error(struct config_parser *p, unsigned int line, const struct config_inst *in,
	     const char *key, const char *fmt, ...) __attribute__((format(printf, 5, 6)));

/* Record an error: "[section] key: message" at LINE (IN and KEY optional). */
static void
config_error(struct config_parser *p, unsigned int line, const struct config_inst *in,
	     const char *key, const char *fmt, ...)
{
	struct config_msg *m;
	size_t used = 0;
	va_list ap;

	if (p->n_errors++ >= CONFIG_MAX_ERRORS)
		return;
	m = &p->msgs[p->n_errors - 1];
	m->line = line;
	m->seq = p->n_errors;
	if (in != NULL)
		used += (size_t)snprintf(m->text, sizeof(m->text), "%s%s", in->label,
					 key != NULL ? " " : ": ");
	if (key != NULL && used < sizeof(m->text))
		used += (size_t)snprintf(m->text + used, sizeof(m->text) - used, "%s: ", key);
	if (used < sizeof(m->text)) {
		va_start(ap, fmt);
		vsnprintf(m->text + used, sizeof(m->text) - used, fmt, ap);
		va_end(ap);
	}
}

static int
config_msg_cmp(const void *a, const void *b)
{
	const struct config_msg *x = a, *y = b;

	if (x->line != y->line)
		return x->line < y->line ? -1 : 1;
	/* Same line: keep the order of discovery (qsort is not stable). */
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Print the recorded errors sorted by line. */
static void
config_print_errors(struct config_parser *p)
{
	unsigned int n = p->n_errors < CONFIG_MAX_ERRORS ? p->n_errors : CONFIG_MAX_ERRORS;

	if (p->err == NULL)
		return;
	qsort(p->msgs, n, sizeof(p->msgs[0]), config_msg_cmp);
	for (unsigned int i = 0; i < n; i++)
		fprintf(p->err, "%s:%u: %s\n", p->file, p->msgs[i].line, p->msgs[i].text);
	if (p->n_errors > CONFIG_MAX_ERRORS)
		fprintf(p->err, "%s:%u: too many errors, giving up (%u shown)\n", p->file,
			p->line, CONFIG_MAX_ERRORS);
}

/* Edit distance of two short strings, for "did you mean" hints; large
 * when either is too long to bother. */
static unsigned int
config_distance(const char *a, const char *b)
{
	unsigned int row[40], n = (unsigned int)strlen(b), m = (unsigned int)strlen(a);

	if (n >= 40 || m >= 40)
		return 99;
	for (unsigned int j = 0; j <= n; j++)
		row[j] = j;
	for (unsigned int i = 1; i <= m; i++) {
		unsigned int diag = row[0];

		row[0] = i;
		for (unsigned int j = 1; j <= n; j++) {
			unsigned int up = row[j];
			unsigned int best = diag + (a[i - 1] != b[j - 1]);

			if (up + 1 < best)
				best = up + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			diag = up;
			row[j] = best;
		}
	}
	return row[n];
}

/* The known name closest to NAME, if it is a likely typo. */
static const char *
config_suggest_key(enum config_section section, const char *name)
{
	const char *best = NULL;
	unsigned int best_d = 3;

	for (unsigned int i = 0; i < config_n_keys; i++) {
		unsigned int d;

		if (config_keys[i].section != section)
			continue;
		d = config_distance(name, config_keys[i].name);
		if (d < best_d) {
			best_d = d;
			best = config_keys[i].name;
		}
	}
	return best;
}

static bool
config_name_ok(const char *s)
{
	for (; *s != '\0'; s++)
		if (!isalnum((unsigned char)*s) && *s != '.' && *s != '_' && *s != '-')
			return false;
	return true;
}

/* ---- Values ------------------------------------------------------------ */

static void
config_put_uint(void *field, size_t size, uint64_t v)
{
	uint8_t u8 = (uint8_t)v;
	uint16_t u16 = (uint16_t)v;
	uint32_t u32 = (uint32_t)v;

	switch (size) {
	case 1:
		memcpy(field, &u8, 1);
		break;
	case 2:
		memcpy(field, &u16, 2);
		break;
	case 4:
		memcpy(field, &u32, 4);
		break;
	default:
		memcpy(field, &v, 8);
		break;
	}
}

static uint64_t
config_get_uint(const void *field, size_t size)
{
	uint8_t u8;
	uint16_t u16;
	uint32_t u32;
	uint64_t u64;

	switch (size) {
	case 1:
		memcpy(&u8, field, 1);
		return u8;
	case 2:
		memcpy(&u16, field, 2);
		return u16;
	case 4:
		memcpy(&u32, field, 4);
		return u32;
	default:
		memcpy(&u64, field, 8);
		return u64;
	}
}

static unsigned int
config_addr_len(const struct ls_addr *a)
{
	return a->family == AF_INET ? 4 : 16;
}

static unsigned int
config_family_bits(int family)
{
	return family == AF_INET ? 32 : 128;
}

static int
config_family_version(int family)
{
	return family == AF_INET ? 4 : 6;
}

/* Parse an address of FAMILY (0: either). */
static int
config_parse_addr(const char *s, int family, struct ls_addr *out)
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

static void
config_addr_text(const struct ls_addr *a, char *buf, size_t size)
{
	if (a->family == 0 || inet_ntop(a->family, a->a, buf, (socklen_t)size) == NULL)
		snprintf(buf, size, "%s", "(unset)");
}

static void
config_prefix_text(const struct ls_prefix *p, char *buf, size_t size)
{
	char a[INET6_ADDRSTRLEN];

	config_addr_text(&p->addr, a, sizeof(a));
	snprintf(buf, size, "%s/%u", a, p->len);
}

/* Why A cannot be a unicast host address, or NULL. */
static const char *
config_addr_not_unicast(const struct ls_addr *a)
{
	static const uint8_t zero[16];

	if (memcmp(a->a, zero, config_addr_len(a)) == 0)
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

/* Does A fall inside prefix P (same family)? */
static bool
config_prefix_contains(const struct ls_prefix *p, const struct ls_addr *a)
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

/* Clear the host bits of A beyond LEN; report whether any was set. */
static bool
config_clear_host_bits(struct ls_addr *a, unsigned int len)
{
	bool had = false;

	for (unsigned int i = 0; i < config_addr_len(a); i++) {
		unsigned int bit0 = i * 8;
		uint8_t keep = bit0 >= len ? 0 : bit0 + 8 <= len ? 0xff : (uint8_t)(0xff << (8 - (len - bit0)));

		if (a->a[i] & ~keep)
			had = true;
		a->a[i] &= keep;
	}
	return had;
}

/* "ADDR/LEN" of FAMILY (0: either). */
static int
config_parse_prefix(const char *s, int family, struct ls_prefix *out, const char **why)
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
	if (n >= sizeof(addr) || config_parse_addr(addr, family, &out->addr) < 0) {
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
	if (l == slash + 1 || len > config_family_bits(out->addr.family)) {
		*why = out->addr.family == AF_INET ? "has a bad prefix length (0 .. 32)"
						   : "has a bad prefix length (0 .. 128)";
		return -EINVAL;
	}
	out->len = (uint8_t)len;
	return 0;
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

/* "none" or a comma list of mechanism letters ("A,C"). */
static int
config_parse_mech(const char *s, unsigned int *out, const char **why)
{
	unsigned int bits = 0;

	if (strcasecmp(s, "none") == 0) {
		*out = 0;
		return 0;
	}
	while (*s != '\0') {
		unsigned int bit;
		size_t n;

		s += strspn(s, " \t");
		n = strcspn(s, ", \t");
		if (n != 1) {
			*why = "is not a mechanism list (none, A, C or A,C)";
			return -EINVAL;
		}
		if (*s == 'A' || *s == 'a') {
			bit = LS_MECH_A;
		} else if (*s == 'C' || *s == 'c') {
			bit = LS_MECH_C;
		} else {
			*why = "names an unknown mechanism (none, A, C or A,C)";
			return -EINVAL;
		}
		if (bits & bit) {
			*why = "names a mechanism twice";
			return -EINVAL;
		}
		bits |= bit;
		s += n;
		s += strspn(s, " \t");
		if (*s == ',') {
			s++;
			if (s[strspn(s, " \t")] == '\0') {
				*why = "ends with ','";
				return -EINVAL;
			}
		} else if (*s != '\0') {
			*why = "is not a mechanism list (none, A, C or A,C)";
			return -EINVAL;
		}
	}
	*out = bits;
	return 0;
}

const char *
config_mechanisms_name(unsigned int bits)
{
	switch (bits & (LS_MECH_A | LS_MECH_C)) {
	case LS_MECH_A:
		return "A";
	case LS_MECH_C:
		return "C";
	case LS_MECH_A | LS_MECH_C:
		return "A,C";
	default:
		return "none";
	}
}

static void
config_names_text(const struct config_enum_name *names, char *buf, size_t size)
{
	size_t used = 0;

	buf[0] = '\0';
	for (; names->name != NULL && used < size; names++) {
		int n = snprintf(buf + used, size - used, "%s%s", used ? ", " : "", names->name);

		if (n < 0)
			break;
		used += (size_t)n;
	}
}

static unsigned int *
config_count_field(const struct config_inst *in, const struct config_key *k)
{
	return (unsigned int *)((char *)in->base + k->count_offset);
}

/*
 * Parse VALUE for key K of section instance IN and store it. LINE is the
 * value's line, or 0 for a default from the key table. Returns 0 or
 * -EINVAL after reporting the error.
 */
static int
config_set(struct config_parser *p, struct config_inst *in, const struct config_key *k,
	   const char *value, unsigned int line)
{
	void *field = (char *)in->base + k->offset;
	char range[96], text[INET6_ADDRSTRLEN + 24];
	const char *why = NULL;
	uint64_t v;
	size_t len = strlen(value);

#define CONFIG_FAIL(...)                                                 \
	do {                                                             \
		config_error(p, line, in, k->name, __VA_ARGS__);         \
		return -EINVAL;                                          \
	} while (0)

	if (len == 0)
		CONFIG_FAIL("missing value");
	for (const char *c = value; *c != '\0'; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f)
			CONFIG_FAIL("value contains a control character");
	/* inih reads " ;..." as a comment: such a value would not load back
	 * from config_dump()'s "key = value". */
	if (value[0] == ';')
		CONFIG_FAIL("value starts with ';' (a comment)");

	switch (k->type) {
	case CONFIG_T_BOOL: {
		bool b;

		if (units_parse_bool(value, &b) < 0)
			CONFIG_FAIL("'%s' is not a boolean (yes, no, true, false, on, off, 1, 0)",
				    value);
		*(bool *)field = b;
		break;
	}
	case CONFIG_T_UINT:
		if (units_parse(k->units, value, &v, &why) < 0)
			CONFIG_FAIL("bad value '%s': %s", value, why);
		if (!((k->flags & CONFIG_F_ZERO) && v == 0) && (v < k->min || v > k->max)) {
			config_key_range_text(k, range, sizeof(range));
			CONFIG_FAIL("%s out of range (%s)", value, range);
		}
		if ((k->flags & CONFIG_F_POW2) && (v & (v - 1)) != 0)
			CONFIG_FAIL("%s is not a power of two", value);
		config_put_uint(field, k->size, v);
		break;
	case CONFIG_T_ENUM: {
		const struct config_enum_name *e;

		for (e = k->names; e->name != NULL; e++)
			if (strcasecmp(e->name, value) == 0)
				break;
		if (e->name == NULL) {
			config_names_text(k->names, range, sizeof(range));
			CONFIG_FAIL("'%s' is not one of: %s", value, range);
		}
		config_put_uint(field, k->size, e->value);
		break;
	}
	case CONFIG_T_MECH: {
		unsigned int bits;

		if (config_parse_mech(value, &bits, &why) < 0)
			CONFIG_FAIL("'%s' %s", value, why);
		config_put_uint(field, k->size, bits);
		break;
	}
	case CONFIG_T_STRING:
		if (len > k->max)
			CONFIG_FAIL("'%.40s...' is longer than %u characters", value,
				    (unsigned int)k->max);
		if ((k->flags & CONFIG_F_NAMECHARS) && !config_name_ok(value))
			CONFIG_FAIL("'%s' may contain only letters, digits, '.', '_' and '-'",
				    value);
		memset(field, 0, k->size);
		memcpy(field, value, len);
		break;
	case CONFIG_T_IFADDR4:
	case CONFIG_T_IFADDR6: {
		int family = k->type == CONFIG_T_IFADDR4 ? AF_INET : AF_INET6;
		struct ls_prefix pfx;

		if (config_parse_prefix(value, family, &pfx, &why) < 0)
			CONFIG_FAIL("'%s' %s", value, why);
		if (pfx.len == 0)
			CONFIG_FAIL("'%s' needs a prefix length of at least 1", value);
		why = config_addr_not_unicast(&pfx.addr);
		if (why != NULL)
			CONFIG_FAIL("%s is %s", value, why);
		if (family == AF_INET && pfx.len <= 30) {
			uint32_t host_mask = UINT32_MAX >> pfx.len, a;

			memcpy(&a, pfx.addr.a, 4);
			a = ntohl(a) & host_mask;
			if (a == 0)
				CONFIG_FAIL("%s is the network address of its subnet", value);
			if (a == host_mask)
				CONFIG_FAIL("%s is the broadcast address of its subnet", value);
		}
		memcpy(field, &pfx, sizeof(pfx));
		break;
	}
	case CONFIG_T_ADDR:
	case CONFIG_T_ADDR4:
	case CONFIG_T_ADDR6: {
		int family = k->type == CONFIG_T_ADDR4 ? AF_INET
			     : k->type == CONFIG_T_ADDR6 ? AF_INET6 : 0;
		struct ls_addr a;

		if (config_parse_addr(value, family, &a) < 0)
			CONFIG_FAIL("'%s' is not an %s address", value,
				    family == AF_INET ? "IPv4" : family == AF_INET6 ? "IPv6" : "IP");
		why = config_addr_not_unicast(&a);
		if (why != NULL)
			CONFIG_FAIL("%s is %s", value, why);
		memcpy(field, &a, sizeof(a));
		break;
	}
	case CONFIG_T_MAC: {
		uint8_t mac[6];

		if (config_parse_mac(value, mac) < 0)
			CONFIG_FAIL("'%s' is not a MAC address (02:00:00:00:00:01)", value);
		why = config_mac_not_unicast(mac);
		if (why != NULL)
			CONFIG_FAIL("%s %s", value, why);
		memcpy(field, mac, 6);
		break;
	}
	case CONFIG_T_NEIGH: {
		unsigned int *count = config_count_field(in, k);
		struct ls_static_neigh n, *arr = field;
		char ip[INET6_ADDRSTRLEN + 1];
		size_t iplen = strcspn(value, " \t");
		const char *mac = value + iplen + strspn(value + iplen, " \t");

		memset(&n, 0, sizeof(n));
		if (iplen >= sizeof(ip) || *mac == '\0')
			CONFIG_FAIL("'%s' is not 'IP MAC'", value);
		memcpy(ip, value, iplen);
		ip[iplen] = '\0';
		if (config_parse_addr(ip, 0, &n.ip) < 0)
			CONFIG_FAIL("'%s' is not an IP address", ip);
		why = config_addr_not_unicast(&n.ip);
		if (why != NULL)
			CONFIG_FAIL("%s is %s", ip, why);
		if (config_parse_mac(mac, n.mac) < 0)
			CONFIG_FAIL("'%s' is not a MAC address (02:00:00:00:00:01)", mac);
		why = config_mac_not_unicast(n.mac);
		if (why != NULL)
			CONFIG_FAIL("%s %s", mac, why);
		for (unsigned int i = 0; i < *count; i++)
			if (memcmp(&arr[i].ip, &n.ip, sizeof(n.ip)) == 0)
				CONFIG_FAIL("%s is already a neighbor (line %u)", ip,
					    in->elem_line[i]);
		if (*count >= k->max_count)
			CONFIG_FAIL("more than %u neighbors", (unsigned int)k->max_count);
		in->elem_line[*count] = line;
		arr[(*count)++] = n;
		break;
	}
	case CONFIG_T_PREFIX: {
		unsigned int *count = config_count_field(in, k);
		struct ls_prefix pfx, *arr = field;

		if (config_parse_prefix(value, 0, &pfx, &why) < 0)
			CONFIG_FAIL("'%s' %s", value, why);
		if (config_clear_host_bits(&pfx.addr, pfx.len)) {
			config_prefix_text(&pfx, text, sizeof(text));
			CONFIG_FAIL("%s has host bits set (did you mean %s?)", value, text);
		}
		for (unsigned int i = 0; i < *count; i++)
			if (memcmp(&arr[i], &pfx, sizeof(pfx)) == 0)
				CONFIG_FAIL("%s is already a prefix of this peer (line %u)", value,
					    in->elem_line[i]);
		if (*count >= k->max_count)
			CONFIG_FAIL("more than %u prefixes", (unsigned int)k->max_count);
		in->elem_line[*count] = line;
		arr[(*count)++] = pfx;
		break;
	}
	default:
		CONFIG_FAIL("internal error: key type %d", (int)k->type);
	}
	if (k->set_offset != CONFIG_NO_OFFSET)
		*(bool *)((char *)in->base + k->set_offset) = true;
	return 0;
#undef CONFIG_FAIL
}

/* Fill the defaults of every key of IN's section. */
static void
config_apply_defaults(struct config_parser *p, struct config_inst *in)
{
	for (unsigned int i = 0; i < config_n_keys; i++) {
		const struct config_key *k = &config_keys[i];

		if (k->section == in->section && k->def != NULL)
			config_set(p, in, k, k->def, 0);
	}
}

/* ---- Reading lines ------------------------------------------------------- */

static void
config_section_header(struct config_parser *p, char *s)
{
	char *end, *type, *name, *rest;
	struct config_inst *in;
	enum config_section sec;
	const char *hint = NULL;
	unsigned int i;

	p->cur = NULL;
	p->skip_section = true;
	/* Where inih would find it: the first ']' before an inline comment. */
	for (end = s + 1; *end != '\0' && *end != ']'; end++)
		if (*end == ';' && isspace((unsigned char)end[-1]))
			break;
	if (*end != ']') {
		config_error(p, p->line, NULL, NULL, "section header without a closing ']'");
		return;
	}
	*end = '\0';
	rest = end + 1;
	rest += strspn(rest, " \t");
	if (*rest != '\0' && *rest != ';' && *rest != '#') {
		config_error(p, p->line, NULL, NULL, "[%s]: text after ']'", s + 1);
		return;
	}
	type = s + 1;
	type += strspn(type, " \t");
	name = type + strcspn(type, " \t");
	if (*name != '\0') {
		*name++ = '\0';
		name += strspn(name, " \t");
		for (char *t = name + strlen(name); t > name && isspace((unsigned char)t[-1]); t--)
			t[-1] = '\0';
	}

	for (sec = 0; sec < CONFIG_SEC_MAX; sec++)
		if (strcmp(type, config_section_names[sec]) == 0)
			break;
	if (sec == CONFIG_SEC_MAX) {
		for (i = 0; i < CONFIG_SEC_MAX; i++)
			if (config_distance(type, config_section_names[i]) < 3)
				hint = config_section_names[i];
		if (hint != NULL)
			config_error(p, p->line, NULL, NULL,
				     "unknown section [%s] (did you mean [%s]?)", type, hint);
		else
			config_error(p, p->line, NULL, NULL,
				     "unknown section [%s] (known: [gateway], [eal], [port NAME], "
				     "[peer NAME], [congestion], [hook NAME], [telemetry])",
				     type);
		return;
	}

	if (sec == CONFIG_SEC_PORT || sec == CONFIG_SEC_PEER || sec == CONFIG_SEC_HOOK) {
		bool port = sec == CONFIG_SEC_PORT, hook = sec == CONFIG_SEC_HOOK;
		unsigned int *n = port ? &p->cfg->n_ports : hook ? &p->cfg->n_hooks : &p->cfg->n_peers;
		unsigned int max = port ? LS_MAX_PORTS : hook ? LS_MAX_HOOKS : LS_MAX_PEERS;
		unsigned int first = port ? CONFIG_INST_PORT0 : hook ? CONFIG_INST_HOOK0
								     : CONFIG_INST_PEER0;

		if (*name == '\0') {
			config_error(p, p->line, NULL, NULL, "[%s]: needs a name: [%s NAME]", type,
				     type);
			return;
		}
		if (strlen(name) >= LS_NAME_MAX || !config_name_ok(name) ||
		    strcspn(name, " \t") != strlen(name)) {
			config_error(p, p->line, NULL, NULL,
				     "[%s %.40s]: the name must be 1 to %d letters, digits, '.', "
				     "'_' or '-'",
				     type, name, LS_NAME_MAX - 1);
			return;
		}
		for (i = 0; i < *n; i++) {
			const char *other = port ? p->cfg->ports[i].name
					   : hook ? p->cfg->hooks[i].name : p->cfg->peers[i].name;

			if (strcmp(other, name) == 0) {
				config_error(p, p->line, NULL, NULL,
					     "[%s %s]: duplicate section (first on line %u)", type,
					     name, p->inst[first + i].line);
				return;
			}
		}
		if (*n >= max) {
			config_error(p, p->line, NULL, NULL,
				     "[%s %s]: too many [%s] sections (at most %u)", type, name,
				     type, max);
			return;
		}
		in = &p->inst[first + *n];
		if (hook) {
			struct ls_hook_conf *hc = &p->cfg->hooks[*n];

			memcpy(hc->name, name, strlen(name) + 1);
			hc->line = p->line;
			in->base = hc;
		} else if (port) {
			struct ls_port_conf *pc = &p->cfg->ports[*n];

			memcpy(pc->name, name, strlen(name) + 1);
			pc->line = p->line;
			in->base = pc;
		} else {
			struct ls_peer_conf *pc = &p->cfg->peers[*n];

			memcpy(pc->name, name, strlen(name) + 1);
			pc->line = p->line;
			pc->port_index = -1;
			in->base = pc;
		}
		(*n)++;
		in->section = sec;
		in->line = p->line;
		snprintf(in->label, sizeof(in->label), "[%s %s]", type, name);
		config_apply_defaults(p, in);
	} else {
		in = &p->inst[sec == CONFIG_SEC_GATEWAY	     ? CONFIG_INST_GATEWAY
			      : sec == CONFIG_SEC_EAL	     ? CONFIG_INST_EAL
			      : sec == CONFIG_SEC_TELEMETRY ? CONFIG_INST_TELEMETRY
							     : CONFIG_INST_CONGESTION];
		if (*name != '\0') {
			config_error(p, p->line, NULL, NULL, "[%s %.40s]: [%s] takes no name", type,
				     name, type);
			return;
		}
		if (in->line != 0) {
			config_error(p, p->line, NULL, NULL,
				     "[%s]: duplicate section (first on line %u)", type, in->line);
			return;
		}
		in->line = p->line;
	}
	p->cur = in;
	p->skip_section = false;
}

/* Does a key line have inih's '=' or ':' before any inline comment? */
static bool
config_has_separator(const char *s)
{
	for (const char *c = s; *c != '\0'; c++) {
		if (*c == '=' || *c == ':')
			return true;
		if (*c == ';' && c > s && isspace((unsigned char)c[-1]))
			return false;
	}
	return false;
}

/*
 * inih's reader (fgets-like): read the next physical line, count it,
 * handle section headers and malformed lines here, and give inih only
 * key lines, without leading blanks (so inih never joins continuation
 * lines). Everything else becomes an empty line for inih.
 */
static char *
config_read_line(char *str, int num, void *stream)
{
	struct config_parser *p = stream;
	size_t len = 0, max, n;
	bool nul, long_line;
	const char *at, *nl;
	char *s, *e;

	if (p->eof || p->n_errors > CONFIG_MAX_ERRORS || num < 3)
		return NULL;
	if (p->pos >= p->size) {
		p->eof = true;
		return NULL;
	}
	at = p->text + p->pos;
	nl = memchr(at, '\n', p->size - p->pos);
	n = nl != NULL ? (size_t)(nl - at) : p->size - p->pos;
	p->pos += n + (nl != NULL);
	if (nl == NULL)
		p->eof = true;
	long_line = n > sizeof(p->buf) - 1;
	len = long_line ? sizeof(p->buf) - 1 : n;
	nul = memchr(at, '\0', n) != NULL;
	memcpy(p->buf, at, len);
	p->buf[len] = '\0';
	p->line++;

	s = p->buf;
	if (p->line == 1 && strncmp(s, "\xef\xbb\xbf", 3) == 0) /* UTF-8 BOM */
		s += 3;
	while (isspace((unsigned char)*s))
		s++;
	for (e = s + strlen(s); e > s && isspace((unsigned char)e[-1]); e--)
		e[-1] = '\0';

	strcpy(str, "\n");
	/* inih needs room for the newline and the NUL. */
	max = (size_t)num - 2 < sizeof(p->buf) - 1 ? (size_t)num - 2 : sizeof(p->buf) - 1;
	if (nul) {
		config_error(p, p->line, NULL, NULL, "line contains a NUL byte");
	} else if (long_line || strlen(s) > max) {
		config_error(p, p->line, NULL, NULL, "line is longer than %zu characters", max);
	} else if (*s == '\0' || *s == ';' || *s == '#') {
		/* blank or comment */
	} else if (*s == '[') {
		config_section_header(p, s);
	} else if (!config_has_separator(s)) {
		if (!p->skip_section)
			config_error(p, p->line, p->cur, NULL,
				     "expected 'key = value' or '[section]', not '%.40s'", s);
	} else {
		snprintf(str, (size_t)num, "%s\n", s);
	}
	return str;
}

static int
config_on_key(struct config_parser *p, const char *name, const char *value)
{
	struct config_inst *in = p->cur;
	const struct config_key *k;
	unsigned int ki;

	if (in == NULL) {
		if (!p->skip_section)
			config_error(p, p->line, NULL, name,
				     "key outside any section (put it under [gateway], [eal], "
				     "[port NAME], [peer NAME], [congestion], [hook NAME] or "
				     "[telemetry])");
		return 1;
	}
	if (name[0] == '\0') {
		config_error(p, p->line, in, NULL, "missing key name before '='");
		return 1;
	}
	k = config_key_find(in->section, name);
	if (k == NULL) {
		const char *hint = config_suggest_key(in->section, name);

		if (hint != NULL)
			config_error(p, p->line, in, name, "unknown key (did you mean %s?)", hint);
		else
			config_error(p, p->line, in, name, "unknown key");
		return 1;
	}
	ki = config_key_index(k);
	if (!(k->flags & CONFIG_F_REPEAT) && in->key_line[ki] != 0) {
		config_error(p, p->line, in, name, "duplicate key (first set on line %u)",
			     in->key_line[ki]);
		return 1;
	}
	if (in->key_line[ki] == 0)
		in->key_line[ki] = p->line;
	if (config_set(p, in, k, value, p->line) < 0)
		in->key_bad[ki] = true;
	return 1;
}

#if INI_HANDLER_LINENO
static int
config_handler(void *user, const char *section, const char *name, const char *value, int lineno)
{
	(void)section;
	(void)lineno;
	return config_on_key(user, name, value);
}
#else
static int
config_handler(void *user, const char *section, const char *name, const char *value)
{
	(void)section;
	return config_on_key(user, name, value);
}
#endif

/* ---- Cross-field rules ---------------------------------------------------- */

/*
 * The rules below name keys by string. An unknown name is a bug in this
 * file; it reads as "not given" (config_index() returns CONFIG_KEYS_MAX,
 * whose slots are never set) rather than as an out-of-bounds access.
 */
static unsigned int
config_index(const struct config_inst *in, const char *name)
{
	const struct config_key *k = config_key_find(in->section, name);

	return k != NULL ? config_key_index(k) : CONFIG_KEYS_MAX;
}

/* Was key NAME given in IN with a good value? */
static bool
config_given(const struct config_inst *in, const char *name)
{
	unsigned int ki = config_index(in, name);

	return ki < CONFIG_KEYS_MAX && in->key_line[ki] != 0 && !in->key_bad[ki];
}

/* Does IN hold a usable value for NAME (given, or its default)? */
static bool
config_valid(const struct config_inst *in, const char *name)
{
	unsigned int ki = config_index(in, name);

	return ki < CONFIG_KEYS_MAX && !in->key_bad[ki];
}

/* Line to blame for NAME in IN: where it was given, else the header. */
static unsigned int
config_line(const struct config_inst *in, const char *name)
{
	unsigned int ki = config_index(in, name);

	return ki < CONFIG_KEYS_MAX && in->key_line[ki] != 0 ? in->key_line[ki] : in->line;
}

static const struct ls_prefix *
config_port_addr(const struct ls_port_conf *pc, int family)
{
	const struct ls_prefix *a = family == AF_INET ? &pc->ipv4 : &pc->ipv6;

	return a->addr.family == family ? a : NULL;
}

/* Count the lcores of a plain list ("0,2-5"): -1 for EAL's richer forms
 * ('@', '()'), which are left to EAL, -2 if malformed. MAIN_IN reports
 * whether lcore MAIN is in the list. */
static int
config_lcores_count(const char *s, unsigned int main, bool *main_in)
{
	uint8_t seen[1024 / 8];
	int count = 0;

	memset(seen, 0, sizeof(seen));
	*main_in = false;
	if (strpbrk(s, "@()") != NULL)
		return -1;
	while (*s != '\0') {
		unsigned long lo, hi;
		char *end;

		if (!isdigit((unsigned char)*s))
			return -2;
		lo = strtoul(s, &end, 10);
		hi = lo;
		if (*end == '-') {
			if (!isdigit((unsigned char)end[1]))
				return -2;
			hi = strtoul(end + 1, &end, 10);
		}
		if (lo > hi || hi >= 1024)
			return -2;
		for (unsigned long c = lo; c <= hi; c++) {
			if (!(seen[c / 8] & (1u << (c % 8))))
				count++;
			seen[c / 8] |= (uint8_t)(1u << (c % 8));
			if (c == main)
				*main_in = true;
		}
		s = end;
		if (*s == ',') {
			s++;
			if (*s == '\0')
				return -2;
		} else if (*s != '\0') {
			return -2;
		}
	}
	return count;
}

static void
config_check_eal(struct config_parser *p)
{
	const struct config_inst *gw = &p->inst[CONFIG_INST_GATEWAY];
	const struct config_inst *in = &p->inst[CONFIG_INST_EAL];
	const struct ls_eal_conf *eal = &p->cfg->eal;
	const char *x = eal->extra;

	if (config_given(in, "lcores")) {
		bool main_in;
		int n = config_lcores_count(eal->lcores, eal->main_lcore, &main_in);

		if (n == -2)
			config_error(p, config_line(in, "lcores"), in, "lcores",
				     "'%s' is not an lcore list (like 0,1 or 2-5, lcores below 1024)",
				     eal->lcores);
		if (n >= 0 && config_valid(gw, "workers") &&
		    (unsigned int)n < p->cfg->gw.workers + 1)
			config_error(p, config_line(in, "lcores"), in, "lcores",
				     "'%s' names %d lcore%s but workers = %u needs %u (one per "
				     "worker plus the main lcore)",
				     eal->lcores, n, n == 1 ? "" : "s", p->cfg->gw.workers,
				     p->cfg->gw.workers + 1);
		if (n >= 0 && config_given(in, "main_lcore") && !main_in)
			config_error(p, config_line(in, "main_lcore"), in, "main_lcore",
				     "%u is not in lcores '%s'", eal->main_lcore, eal->lcores);
	}

	while (config_given(in, "extra") && *(x += strspn(x, " \t")) != '\0') {
		char opt[64];
		size_t n = strcspn(x, " \t");
		const char *key;

		snprintf(opt, sizeof(opt), "%.*s", (int)(n < sizeof(opt) ? n : sizeof(opt) - 1), x);
		key = eal_args_option_key(opt);
		if (key != NULL && config_given(in, key))
			config_error(p, config_line(in, "extra"), in, "extra",
				     "option %s repeats key %s; set only one of them", opt, key);
		x += n;
	}
}

static void
config_check_gateway(struct config_parser *p)
{
	struct ls_gateway_conf *gw = &p->cfg->gw;

	/* The socket default depends on the name. */
	if (gw->socket_path[0] == '\0')
		snprintf(gw->socket_path, sizeof(gw->socket_path), "/run/longspan/%s.sock",
			 gw->name);
}

/* Check a router or neighbor address A against the port's subnet. */
static const char *
config_onlink_problem(const struct ls_port_conf *pc, const struct ls_addr *a, char *buf,
		      size_t size)
{
	const struct ls_prefix *own = config_port_addr(pc, a->family);
	char net[INET6_ADDRSTRLEN + 8];

	if (own == NULL) {
		snprintf(buf, size, "is IPv%d but the port has no ipv%d address",
			 config_family_version(a->family), config_family_version(a->family));
		return buf;
	}
	if (memcmp(own->addr.a, a->a, config_addr_len(a)) == 0) {
		snprintf(buf, size, "is the port's own address");
		return buf;
	}
	if (!config_prefix_contains(own, a)) {
		struct ls_prefix n = *own;

		config_clear_host_bits(&n.addr, n.len);
		config_prefix_text(&n, net, sizeof(net));
		snprintf(buf, size, "is outside the port's subnet %s", net);
		return buf;
	}
	return NULL;
}

static void
config_check_ports(struct config_parser *p)
{
	struct ls_config *cfg = p->cfg;
	bool roles_known = true;
	unsigned int n_wan = 0, eof_line = p->line > 0 ? p->line : 1;
	char msg[160], text[INET6_ADDRSTRLEN + 8];
	int dc = -1;

	for (unsigned int i = 0; i < cfg->n_ports; i++) {
		struct config_inst *in = &p->inst[CONFIG_INST_PORT0 + i];
		struct ls_port_conf *pc = &cfg->ports[i];

		if (!config_given(in, "role")) {
			roles_known = false;
		} else if (pc->role == LS_PORT_WAN) {
			n_wan++;
		} else if (dc >= 0) {
			config_error(p, config_line(in, "role"), in, "role",
				     "a second dc port: [port %s] (line %u) is the dc port, and "
				     "exactly one is allowed",
				     cfg->ports[dc].name, cfg->ports[dc].line);
		} else {
			dc = (int)i;
		}

		if (config_given(in, "dev")) {
			enum eal_args_dev_kind kind = eal_args_dev_kind(pc->dev);
			char name[LS_DEVARGS_MAX], other[LS_DEVARGS_MAX];

			if (kind == EAL_ARGS_DEV_INVALID)
				config_error(p, config_line(in, "dev"), in, "dev",
					     "'%.60s' is neither a PCI address (0000:03:00.0) nor a "
					     "virtual device (net_NAME[,args])",
					     pc->dev);
			if (kind == EAL_ARGS_DEV_PCI && cfg->eal.no_pci)
				config_error(p, config_line(in, "dev"), in, "dev",
					     "%.60s is a PCI device but [eal] no_pci = yes", pc->dev);
			for (unsigned int j = 0; kind != EAL_ARGS_DEV_INVALID && j < i; j++) {
				if (!config_given(&p->inst[CONFIG_INST_PORT0 + j], "dev") ||
				    eal_args_dev_name(pc->dev, name, sizeof(name)) < 0 ||
				    eal_args_dev_name(cfg->ports[j].dev, other, sizeof(other)) < 0 ||
				    strcmp(name, other) != 0)
					continue;
				config_error(p, config_line(in, "dev"), in, "dev",
					     "device %s is already used by [port %s] (line %u)", name,
					     cfg->ports[j].name, cfg->ports[j].line);
				break;
			}
		}

		if (pc->ipv4.addr.family == 0 && pc->ipv6.addr.family == 0 &&
		    config_valid(in, "ipv4") && config_valid(in, "ipv6"))
			config_error(p, in->line, in, NULL, "needs an address: set ipv4, ipv6 or both");
		if (pc->ipv6.addr.family != 0 && config_valid(in, "mtu") && pc->mtu < 1280)
			config_error(p, config_line(in, "mtu"), in, "mtu",
				     "%u is below 1280, the IPv6 minimum MTU (RFC 8200)", pc->mtu);

		for (unsigned int j = 0; j < i; j++) {
			const struct ls_port_conf *o = &cfg->ports[j];

			if (pc->ipv4.addr.family != 0 && o->ipv4.addr.family != 0 &&
			    memcmp(pc->ipv4.addr.a, o->ipv4.addr.a, 4) == 0) {
				config_addr_text(&pc->ipv4.addr, text, sizeof(text));
				config_error(p, config_line(in, "ipv4"), in, "ipv4",
					     "%s is also the address of [port %s]", text, o->name);
			}
			if (pc->ipv6.addr.family != 0 && o->ipv6.addr.family != 0 &&
			    memcmp(pc->ipv6.addr.a, o->ipv6.addr.a, 16) == 0) {
				config_addr_text(&pc->ipv6.addr, text, sizeof(text));
				config_error(p, config_line(in, "ipv6"), in, "ipv6",
					     "%s is also the address of [port %s]", text, o->name);
			}
		}

		if (config_given(in, "gateway4") && config_valid(in, "ipv4") &&
		    config_onlink_problem(pc, &pc->gateway4, msg, sizeof(msg)) != NULL) {
			config_addr_text(&pc->gateway4, text, sizeof(text));
			config_error(p, config_line(in, "gateway4"), in, "gateway4", "%s %s", text,
				     msg);
		}
		if (config_given(in, "gateway6") && config_valid(in, "ipv6") &&
		    !(pc->gateway6.a[0] == 0xfe && (pc->gateway6.a[1] & 0xc0) == 0x80) &&
		    config_onlink_problem(pc, &pc->gateway6, msg, sizeof(msg)) != NULL) {
			config_addr_text(&pc->gateway6, text, sizeof(text));
			config_error(p, config_line(in, "gateway6"), in, "gateway6", "%s %s", text,
				     msg);
		}
		for (unsigned int k = 0; k < pc->n_neigh; k++) {
			if (!config_valid(in, pc->neigh[k].ip.family == AF_INET ? "ipv4" : "ipv6") ||
			    config_onlink_problem(pc, &pc->neigh[k].ip, msg, sizeof(msg)) == NULL)
				continue;
			config_addr_text(&pc->neigh[k].ip, text, sizeof(text));
			config_error(p, in->elem_line[k], in, "neighbor", "%s %s", text, msg);
		}
	}

	cfg->dc_port = dc;
	if (!roles_known)
		return;
	if (dc < 0)
		config_error(p, eof_line, NULL, NULL,
			     "no [port] has role = dc; exactly one is required");
	if (n_wan == 0)
		config_error(p, eof_line, NULL, NULL,
			     "no [port] has role = wan; at least one is required");
}

static void
config_check_peer(struct config_parser *p, unsigned int i)
{
	struct ls_config *cfg = p->cfg;
	struct config_inst *in = &p->inst[CONFIG_INST_PEER0 + i];
	struct ls_peer_conf *pc = &cfg->peers[i];
	const struct ls_port_conf *wan = NULL, *dc = cfg->dc_port >= 0 ? &cfg->ports[cfg->dc_port] : NULL;
	char text[INET6_ADDRSTRLEN + 8], net[INET6_ADDRSTRLEN + 8];
	bool rtt = config_given(in, "rtt"), dist = config_given(in, "distance");

	if (config_given(in, "port")) {
		int idx = config_port_index(cfg, pc->port);

		if (idx < 0) {
			config_error(p, config_line(in, "port"), in, "port",
				     "no [port %s] in this file", pc->port);
		} else if (config_given(&p->inst[CONFIG_INST_PORT0 + idx], "role") &&
			   cfg->ports[idx].role != LS_PORT_WAN) {
			config_error(p, config_line(in, "port"), in, "port",
				     "[port %s] is a dc port; a peer needs a wan port", pc->port);
		} else {
			pc->port_index = idx;
			wan = &cfg->ports[idx];
		}
	}

	if (rtt && dist) {
		bool rtt_last = config_line(in, "rtt") > config_line(in, "distance");

		config_error(p, config_line(in, rtt_last ? "rtt" : "distance"), in,
			     rtt_last ? "rtt" : "distance", "set rtt or distance, not both");
	} else if (!rtt && !dist && config_valid(in, "rtt") && config_valid(in, "distance")) {
		config_error(p, in->line, in, NULL,
			     "set rtt or distance (the WAN round-trip time sizes buffers and "
			     "marking)");
	} else if (dist) {
		pc->rtt_ns = pc->distance_m * 2 * LS_FIBRE_NS_PER_KM / 1000;
	}

	if (config_given(in, "remote") && wan != NULL) {
		int fam = pc->remote.family;
		const struct ls_prefix *own = config_port_addr(wan, fam);

		config_addr_text(&pc->remote, text, sizeof(text));
		if (config_given(in, "local")) {
			if (pc->local.family != fam)
				config_error(p, config_line(in, "local"), in, "local",
					     "is IPv%d but remote %s is IPv%d",
					     config_family_version(pc->local.family), text,
					     config_family_version(fam));
		} else if (own == NULL &&
			   config_valid(&p->inst[CONFIG_INST_PORT0 + pc->port_index],
					fam == AF_INET ? "ipv4" : "ipv6")) {
			config_error(p, config_line(in, "remote"), in, "remote",
				     "%s is IPv%d but [port %s] has no ipv%d address (set one "
				     "there, or set local)",
				     text, config_family_version(fam), wan->name,
				     config_family_version(fam));
		}
		if (own != NULL && memcmp(own->addr.a, pc->remote.a, config_addr_len(&own->addr)) == 0)
			config_error(p, config_line(in, "remote"), in, "remote",
				     "%s is this gateway's own address on [port %s]", text,
				     wan->name);
		for (unsigned int j = 0; j < i; j++) {
			const struct ls_peer_conf *o = &cfg->peers[j];

			if (o->port_index == pc->port_index &&
			    memcmp(&o->remote, &pc->remote, sizeof(o->remote)) == 0) {
				config_error(p, config_line(in, "remote"), in, "remote",
					     "%s is already the remote of [peer %s] (line %u)", text,
					     o->name, o->line);
				break;
			}
		}
	}

	for (unsigned int k = 0; k < pc->n_prefixes; k++) {
		const struct ls_prefix *pfx = &pc->prefixes[k];
		const struct ls_prefix *own = dc != NULL ? config_port_addr(dc, pfx->addr.family) : NULL;
		unsigned int line = in->elem_line[k];

		config_prefix_text(pfx, text, sizeof(text));
		/* A dc port without any address is reported once, at the port. */
		if (dc != NULL && own == NULL &&
		    (dc->ipv4.addr.family != 0 || dc->ipv6.addr.family != 0) &&
		    config_valid(&p->inst[CONFIG_INST_PORT0 + cfg->dc_port],
				 pfx->addr.family == AF_INET ? "ipv4" : "ipv6"))
			config_error(p, line, in, "prefix",
				     "%s is IPv%d but the dc port [port %s] has no ipv%d address",
				     text, config_family_version(pfx->addr.family), dc->name,
				     config_family_version(pfx->addr.family));
		if (own != NULL && pfx->len >= own->len && config_prefix_contains(own, &pfx->addr)) {
			struct ls_prefix n = *own;

			config_clear_host_bits(&n.addr, n.len);
			config_prefix_text(&n, net, sizeof(net));
			config_error(p, line, in, "prefix",
				     "%s is inside the dc port's subnet %s: local destinations "
				     "cannot belong to a peer",
				     text, net);
		}
		for (unsigned int j = 0; j < i; j++) {
			const struct ls_peer_conf *o = &cfg->peers[j];
			bool dup = false;

			for (unsigned int m = 0; m < o->n_prefixes && !dup; m++)
				dup = memcmp(&o->prefixes[m], pfx, sizeof(*pfx)) == 0;
			if (dup) {
				config_error(p, line, in, "prefix",
					     "%s is also a prefix of [peer %s] (line %u); nested "
					     "prefixes are allowed, equal ones are not",
					     text, o->name, o->line);
				break;
			}
		}
	}
}

static void
config_check_congestion(struct config_parser *p)
{
	struct config_inst *in = &p->inst[CONFIG_INST_CONGESTION];
	const struct ls_congestion_conf *c = &p->cfg->cong;
	char a[UNITS_TEXT_MAX], b[UNITS_TEXT_MAX];

	if (!config_valid(in, "kmin") || !config_valid(in, "kmax"))
		return;
	units_format(UNITS_SIZE, c->kmin_bytes, a, sizeof(a));
	units_format(UNITS_SIZE, c->kmax_bytes, b, sizeof(b));
	if ((c->kmin_bytes == 0) != (c->kmax_bytes == 0)) {
		const char *set = c->kmin_bytes != 0 ? "kmin" : "kmax";

		config_error(p, config_line(in, set), in, set,
			     "is set but %s is 0 (derived); set both or neither",
			     c->kmin_bytes != 0 ? "kmax" : "kmin");
	} else if (c->kmin_bytes != 0 && c->kmin_bytes >= c->kmax_bytes) {
		config_error(p, config_line(in, "kmin"), in, "kmin", "%s must be below kmax (%s)", a,
			     b);
	}
	if (c->buffer_bytes != 0 && c->kmax_bytes > c->buffer_bytes && config_valid(in, "buffer")) {
		units_format(UNITS_SIZE, c->buffer_bytes, a, sizeof(a));
		config_error(p, config_line(in, "kmax"), in, "kmax", "%s exceeds buffer (%s)", b, a);
	}
}

/* config_hooks_check()'s errors, at the key's line of its section. */
static void
config_hooks_error(void *arg, unsigned int hook, const char *key, const char *msg)
{
	struct config_parser *p = arg;
	struct config_inst *in =
		&p->inst[hook == UINT32_MAX ? CONFIG_INST_TELEMETRY : CONFIG_INST_HOOK0 + hook];

	config_error(p, key != NULL ? config_line(in, key) : in->line, in, key, "%s", msg);
}

static void
config_check_required(struct config_parser *p)
{
	for (unsigned int i = CONFIG_INST_PORT0; i < CONFIG_INST_MAX; i++) {
		struct config_inst *in = &p->inst[i];

		if (in->line == 0)
			continue;
		for (unsigned int k = 0; k < config_n_keys; k++) {
			const struct config_key *key = &config_keys[k];

			if (key->section == in->section && (key->flags & CONFIG_F_REQUIRED) &&
			    in->key_line[k] == 0)
				config_error(p, in->line, in, key->name, "missing required key");
		}
	}
}

static void
config_parser_init(struct config_parser *p, const char *text, size_t size, const char *name,
		   FILE *err, struct ls_config *cfg)
{
	static const enum config_section singles[] = { CONFIG_SEC_GATEWAY, CONFIG_SEC_EAL,
						       CONFIG_SEC_CONGESTION, CONFIG_SEC_TELEMETRY };
	void *bases[] = { &cfg->gw, &cfg->eal, &cfg->cong, &cfg->tel };

	memset(p, 0, sizeof(*p));
	memset(cfg, 0, sizeof(*cfg));
	p->file = name;
	p->text = text;
	p->size = size;
	p->err = err;
	p->cfg = cfg;
	cfg->dc_port = -1;
	for (unsigned int i = 0; i < 4; i++) {
		struct config_inst *inst = &p->inst[i];

		inst->section = singles[i];
		inst->base = bases[i];
		snprintf(inst->label, sizeof(inst->label), "[%s]", config_section_names[singles[i]]);
		config_apply_defaults(p, inst);
	}
}

/* "a directory", ... for a file that is not a regular one. */
static const char *
config_file_kind(mode_t mode)
{
	if (S_ISDIR(mode))
		return "a directory";
	if (S_ISFIFO(mode))
		return "a FIFO";
	if (S_ISCHR(mode))
		return "a character device";
	if (S_ISBLK(mode))
		return "a block device";
	if (S_ISSOCK(mode))
		return "a socket";
	return "not a file";
}

static int
config_not_regular(const char *name, mode_t mode, FILE *err)
{
	if (err != NULL)
		fprintf(err, "%s: not a regular file (%s); a config must be a regular file\n", name,
			config_file_kind(mode));
	return -EINVAL;
}

static int
config_too_big(const char *name, size_t size, FILE *err)
{
	if (err != NULL)
		fprintf(err, "%s: %zu bytes: larger than the %u-byte limit of a config file\n", name,
			size, LS_CONFIG_MAX_BYTES);
	return -EFBIG;
}

int
config_load_buffer(const char *text, size_t size, const char *name, struct ls_config *cfg,
		   FILE *err)
{
	struct config_parser *p;
	struct ls_config *tmp;
	int rc;

	p = calloc(1, sizeof(*p));
	tmp = calloc(1, sizeof(*tmp));
	if (p == NULL || tmp == NULL) {
		rc = -ENOMEM;
		if (err != NULL)
			fprintf(err, "%s: out of memory\n", name);
		goto out_free;
	}
	if (size > LS_CONFIG_MAX_BYTES) {
		rc = config_too_big(name, size, err);
		goto out_free;
	}
	config_parser_init(p, text, size, name, err, tmp);

	rc = ini_parse_stream(config_read_line, p, config_handler, p);
	if (rc == -2)
		config_error(p, p->line, NULL, NULL, "out of memory");
	else if (rc != 0 && p->n_errors == 0) /* inih saw what the reader did not */
		config_error(p, rc > 0 ? (unsigned int)rc : p->line, NULL, NULL, "syntax error");

	if (p->n_errors <= CONFIG_MAX_ERRORS) {
		config_check_required(p);
		config_check_gateway(p);
		config_check_eal(p);
		config_check_ports(p);
		for (unsigned int i = 0; i < tmp->n_peers; i++)
			config_check_peer(p, i);
		config_check_congestion(p);
		config_hooks_check(p->cfg, config_hooks_error, p);
	}

	if (p->n_errors > 0) {
		config_print_errors(p);
		rc = -EINVAL;
		goto out_free;
	}
	snprintf(tmp->path, sizeof(tmp->path), "%s", name);
	memcpy(cfg, tmp, sizeof(*cfg));
	rc = 0;
out_free:
	free(tmp);
	free(p);
	return rc;
}

/* DPDK 22.11 net_memif's buffer size when devargs give no bsize. */
#define CONFIG_MEMIF_DEFAULT_BSIZE 2048u

static uint32_t
config_pow2(uint32_t v)
{
	uint32_t p = 1;

	while (p < v && p < (UINT32_C(1) << 31))
		p <<= 1;
	return p;
}

uint32_t
config_port_frame_bytes(const struct ls_port_conf *pc)
{
	return pc->mtu + 14u + 4u;
}

uint32_t
config_memif_bsize(const char *dev, bool *given)
{
	const char *p = strchr(dev, ',');
	size_t name_len = p != NULL ? (size_t)(p - dev) : strlen(dev);
	uint32_t bsize = CONFIG_MEMIF_DEFAULT_BSIZE;
	size_t i = strlen("net_memif");

	*given = false;
	/* net_memif followed by digits only: the driver's device names. */
	if (name_len < i || strncmp(dev, "net_memif", i) != 0)
		return 0;
	for (; i < name_len; i++)
		if (!isdigit((unsigned char)dev[i]))
			return 0;
	while (p != NULL) {
		const char *arg = p + 1;

		p = strchr(arg, ',');
		if (strncmp(arg, "bsize=", 6) == 0) {
			unsigned long v = strtoul(arg + 6, NULL, 0);

			bsize = v > UINT32_MAX ? UINT32_MAX : (uint32_t)v;
			*given = true;
		}
	}
	return bsize;
}

unsigned int
config_warn(const struct ls_config *cfg, FILE *out)
{
	unsigned int n = 0;

	for (unsigned int i = 0; i < cfg->n_ports; i++) {
		const struct ls_port_conf *pc = &cfg->ports[i];
		uint32_t frame = config_port_frame_bytes(pc);
		bool given;
		uint32_t bsize = config_memif_bsize(pc->dev, &given);

		/*
		 * DPDK 22.11's net_memif chains buffers for larger frames and,
		 * with large and small frames mixed, delivers them many times
		 * over (docs/lab.md).
		 */
		if (bsize != 0 && bsize < frame) {
			fprintf(out,
				"%s: warning: [port %s] dev: net_memif buffer size %u%s is below "
				"the port's %u-byte frames (mtu %u); such frames get duplicated: "
				"add bsize=%u or more to the device string\n",
				cfg->path, pc->name, bsize, given ? "" : " (the default)", frame,
				pc->mtu, config_pow2(frame));
			n++;
		}
	}

	if (cfg->cong.mechanisms != 0 && cfg->gw.workers > 1) {
		fprintf(out,
			"%s: warning: [congestion] mechanisms = %s with [gateway] workers = %u: "
			"the QPN learners and mechanism C's holds are per worker, and RSS does not "
			"keep a QP's data and its returning ACKs and CNPs on one worker, so gateway "
			"CNPs and holds will miss most QPs; use workers = 1 for exact mechanisms "
			"(docs/architecture.md)\n",
			cfg->path, config_mechanisms_name(cfg->cong.mechanisms), cfg->gw.workers);
		n++;
	}
	if (cfg->n_peers == 0) {
		fprintf(out,
			"%s: warning: no [peer] section: no prefix leads anywhere, so all traffic "
			"from the DC port will be dropped as no_route\n",
			cfg->path);
		n++;
	}
	return n;
}

int
config_load_stream(FILE *in, const char *name, struct ls_config *cfg, FILE *err)
{
	/* One byte more than allowed tells a file at the limit from a larger one. */
	char *text = malloc(LS_CONFIG_MAX_BYTES + 1);
	size_t size;
	int rc;

	if (text == NULL) {
		if (err != NULL)
			fprintf(err, "%s: out of memory\n", name);
		return -ENOMEM;
	}
	size = fread(text, 1, LS_CONFIG_MAX_BYTES + 1, in);
	if (ferror(in)) {
		rc = -EIO;
		if (err != NULL)
			fprintf(err, "%s: read error\n", name);
	} else {
		rc = config_load_buffer(text, size, name, cfg, err);
	}
	free(text);
	return rc;
}

/*
 * The loader of longspand -c, --check-config, --dump-config and reload, so
 * it runs on the control thread and must not wait on anything: only a
 * regular file of at most LS_CONFIG_MAX_BYTES is read. stat() first so that
 * a device is never opened; O_NONBLOCK so that a FIFO swapped in meanwhile
 * cannot block the open; fstat() of the open file decides.
 */
int
config_load(const char *path, struct ls_config *cfg, FILE *err)
{
	struct stat st;
	char *text = NULL;
	size_t size = 0;
	int fd = -1, rc;

	if (stat(path, &st) == 0 && !S_ISREG(st.st_mode))
		return config_not_regular(path, st.st_mode, err);
	fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) != 0) {
		rc = -errno;
		if (err != NULL)
			fprintf(err, "%s: cannot open: %s\n", path, strerror(-rc));
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		rc = config_not_regular(path, st.st_mode, err);
		goto out;
	}
	if ((uint64_t)st.st_size > LS_CONFIG_MAX_BYTES) {
		rc = config_too_big(path, (size_t)st.st_size, err);
		goto out;
	}
	text = malloc(LS_CONFIG_MAX_BYTES + 1);
	if (text == NULL) {
		rc = -ENOMEM;
		if (err != NULL)
			fprintf(err, "%s: out of memory\n", path);
		goto out;
	}
	/* Read to EOF: the file may have grown since fstat. */
	while (size < LS_CONFIG_MAX_BYTES + 1) {
		ssize_t n = read(fd, text + size, LS_CONFIG_MAX_BYTES + 1 - size);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			rc = -errno;
			if (err != NULL)
				fprintf(err, "%s: read error: %s\n", path, strerror(-rc));
			goto out;
		}
		if (n == 0)
			break;
		size += (size_t)n;
	}
	close(fd);
	fd = -1;
	rc = config_load_buffer(text, size, path, cfg, err);
out:
	if (fd >= 0)
		close(fd);
	free(text);
	return rc;
}

int
config_port_index(const struct ls_config *cfg, const char *name)
{
	for (unsigned int i = 0; i < cfg->n_ports; i++)
		if (strcmp(cfg->ports[i].name, name) == 0)
			return (int)i;
	return -1;
}

/* ---- Dump ------------------------------------------------------------------- */

/* Write key K of the struct at BASE as "key = value" line(s), unless unset. */
static void
config_dump_key(FILE *out, const struct config_key *k, const void *base)
{
	const void *field = (const char *)base + k->offset;
	char text[LS_DEVARGS_MAX + 64], a[INET6_ADDRSTRLEN + 8];
	uint64_t v;

	if (k->set_offset != CONFIG_NO_OFFSET && !*(const bool *)((const char *)base + k->set_offset))
		return;
	switch (k->type) {
	case CONFIG_T_BOOL:
		fprintf(out, "%s = %s\n", k->name, *(const bool *)field ? "yes" : "no");
		break;
	case CONFIG_T_UINT:
		v = config_get_uint(field, k->size);
		/* Keys without a default or a "set" flag (rtt, distance) are unset at 0. */
		if (v == 0 && k->def == NULL && !(k->flags & CONFIG_F_REQUIRED) &&
		    k->set_offset == CONFIG_NO_OFFSET)
			return;
		/* A peer's rtt derived from its distance is not written back. */
		if (k->section == CONFIG_SEC_PEER && strcmp(k->name, "rtt") == 0 &&
		    ((const struct ls_peer_conf *)base)->distance_m != 0)
			return;
		units_format(k->units, v, text, sizeof(text));
		fprintf(out, "%s = %s\n", k->name, text);
		break;
	case CONFIG_T_ENUM:
		v = config_get_uint(field, k->size);
		for (const struct config_enum_name *e = k->names; e->name != NULL; e++)
			if (e->value == v)
				fprintf(out, "%s = %s\n", k->name, e->name);
		break;
	case CONFIG_T_MECH:
		fprintf(out, "%s = %s\n", k->name,
			config_mechanisms_name((unsigned int)config_get_uint(field, k->size)));
		break;
	case CONFIG_T_STRING:
		if (*(const char *)field != '\0')
			fprintf(out, "%s = %.*s\n", k->name, (int)k->size, (const char *)field);
		break;
	case CONFIG_T_IFADDR4:
	case CONFIG_T_IFADDR6: {
		const struct ls_prefix *pfx = field;

		if (pfx->addr.family != 0) {
			config_prefix_text(pfx, text, sizeof(text));
			fprintf(out, "%s = %s\n", k->name, text);
		}
		break;
	}
	case CONFIG_T_ADDR:
	case CONFIG_T_ADDR4:
	case CONFIG_T_ADDR6:
		if (((const struct ls_addr *)field)->family != 0) {
			config_addr_text(field, text, sizeof(text));
			fprintf(out, "%s = %s\n", k->name, text);
		}
		break;
	case CONFIG_T_MAC: {
		const uint8_t *m = field;

		fprintf(out, "%s = %02x:%02x:%02x:%02x:%02x:%02x\n", k->name, m[0], m[1], m[2], m[3],
			m[4], m[5]);
		break;
	}
	case CONFIG_T_NEIGH: {
		const struct ls_static_neigh *n = field;
		unsigned int count = *(const unsigned int *)((const char *)base + k->count_offset);

		for (unsigned int i = 0; i < count; i++) {
			const uint8_t *m = n[i].mac;

			config_addr_text(&n[i].ip, a, sizeof(a));
			fprintf(out, "%s = %s %02x:%02x:%02x:%02x:%02x:%02x\n", k->name, a, m[0], m[1],
				m[2], m[3], m[4], m[5]);
		}
		break;
	}
	case CONFIG_T_PREFIX: {
		const struct ls_prefix *pfx = field;
		unsigned int count = *(const unsigned int *)((const char *)base + k->count_offset);

		for (unsigned int i = 0; i < count; i++) {
			config_prefix_text(&pfx[i], text, sizeof(text));
			fprintf(out, "%s = %s\n", k->name, text);
		}
		break;
	}
	default:
		break;
	}
}

static void
config_dump_section(FILE *out, enum config_section sec, const char *name, const void *base)
{
	fprintf(out, "\n[%s%s%s]\n", config_section_names[sec], name != NULL ? " " : "",
		name != NULL ? name : "");
	for (unsigned int i = 0; i < config_n_keys; i++)
		if (config_keys[i].section == sec)
			config_dump_key(out, &config_keys[i], base);
}

void
config_dump(const struct ls_config *cfg, FILE *out)
{
	fprintf(out, "; Effective configuration of %s with every default filled in\n",
		cfg->path[0] != '\0' ? cfg->path : "(unnamed)");
	fprintf(out, "; (longspand --dump-config); it loads back to the same settings.\n");
	config_dump_section(out, CONFIG_SEC_GATEWAY, NULL, &cfg->gw);
	config_dump_section(out, CONFIG_SEC_EAL, NULL, &cfg->eal);
	for (unsigned int i = 0; i < cfg->n_ports; i++)
		config_dump_section(out, CONFIG_SEC_PORT, cfg->ports[i].name, &cfg->ports[i]);
	for (unsigned int i = 0; i < cfg->n_peers; i++)
		config_dump_section(out, CONFIG_SEC_PEER, cfg->peers[i].name, &cfg->peers[i]);
	config_dump_section(out, CONFIG_SEC_CONGESTION, NULL, &cfg->cong);
	for (unsigned int i = 0; i < cfg->n_hooks; i++)
		config_dump_section(out, CONFIG_SEC_HOOK, cfg->hooks[i].name, &cfg->hooks[i]);
	config_dump_section(out, CONFIG_SEC_TELEMETRY, NULL, &cfg->tel);
}
