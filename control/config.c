/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * config_load(): read an INI file into a struct ls_config as a transaction
 * (style.md rule 2): parse every line through the key table
 * (config_keys.c), fill defaults, check required keys, run the cross-field
 * rules over the whole file, and only then copy the result out. Every error
 * is reported as "FILE:LINE: [section] key: message"; parsing continues
 * after an error so that one run shows them all.
 *
 * The file is read whole (conf_file.c: regular files of at most
 * LS_CONFIG_MAX_BYTES only) and split into headers and key lines by the
 * INI reader every Longspan tool shares (conf_ini.c); this file gives those
 * their meaning.
 */

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>

#include "conf_file.h"
#include "config_cc.h"
#include "conf_ini.h"
#include "config_int.h"
#include "units.h"

/* Longest line: libinih's (200-byte buffer, less its newline and NUL), the
 * reader before conf_ini.c, so that every file that loaded still loads. */
#define CONFIG_LINE_MAX 198

void
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

/*
 * Parse VALUE for key K of section instance IN and store it through the
 * key's type (config_types[]). LINE is the value's line, or 0 for a default
 * from the key table. Returns 0 or -EINVAL after reporting the error.
 */
static int
config_set(struct config_parser *p, struct config_inst *in, const struct conf_key *k,
	   const char *value, unsigned int line)
{
	struct conf_set_ctx ctx = { .line = line, .elem_line = in->elem_line };

	if (conf_key_set(&config_table, k, in->base, value, &ctx) < 0) {
		config_error(p, line, in, k->name, "%s", ctx.msg);
		return -EINVAL;
	}
	return 0;
}

/* Fill the defaults of every key of IN's section. */
static void
config_apply_defaults(struct config_parser *p, struct config_inst *in)
{
	for (unsigned int i = 0; i < config_n_keys; i++) {
		const struct conf_key *k = &config_keys[i];

		if (k->section == in->section && k->def != NULL)
			config_set(p, in, k, k->def, 0);
	}
}

/* ---- Reading lines ------------------------------------------------------- */

/* conf_ini's section(): "[TYPE NAME]" at LINE. */
static int
config_on_section(void *ctx, unsigned int line, const char *type, const char *name)
{
	struct config_parser *p = ctx;
	struct config_inst *in;
	enum config_section sec;
	const char *hint = NULL;
	unsigned int i;

	p->line = line;
	p->cur = NULL;
	for (sec = 0; sec < CONFIG_SEC_MAX; sec++)
		if (strcmp(type, config_section_names[sec]) == 0)
			break;
	if (sec == CONFIG_SEC_MAX) {
		for (i = 0; i < CONFIG_SEC_MAX; i++)
			if (conf_distance(type, config_section_names[i]) < 3)
				hint = config_section_names[i];
		if (hint != NULL)
			config_error(p, p->line, NULL, NULL,
				     "unknown section [%s] (did you mean [%s]?)", type, hint);
		else
			config_error(p, p->line, NULL, NULL,
				     "unknown section [%s] (known: [gateway], [eal], [port NAME], "
				     "[peer NAME], [congestion], [hook NAME], [telemetry], [peering])",
				     type);
		return -1;
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
			return -1;
		}
		if (strlen(name) >= LS_NAME_MAX || !conf_name_ok(name) ||
		    strcspn(name, " \t") != strlen(name)) {
			config_error(p, p->line, NULL, NULL,
				     "[%s %.40s]: the name must be 1 to %d letters, digits, '.', "
				     "'_' or '-'",
				     type, name, LS_NAME_MAX - 1);
			return -1;
		}
		for (i = 0; i < *n; i++) {
			const char *other = port ? p->cfg->ports[i].name
					   : hook ? p->cfg->hooks[i].name : p->cfg->peers[i].name;

			if (strcmp(other, name) == 0) {
				config_error(p, p->line, NULL, NULL,
					     "[%s %s]: duplicate section (first on line %u)", type,
					     name, p->inst[first + i].line);
				return -1;
			}
		}
		if (*n >= max) {
			config_error(p, p->line, NULL, NULL,
				     "[%s %s]: too many [%s] sections (at most %u)", type, name,
				     type, max);
			return -1;
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
			      : sec == CONFIG_SEC_PEERING   ? CONFIG_INST_PEERING
							     : CONFIG_INST_CONGESTION];
		if (*name != '\0') {
			config_error(p, p->line, NULL, NULL, "[%s %.40s]: [%s] takes no name", type,
				     name, type);
			return -1;
		}
		if (in->line != 0) {
			config_error(p, p->line, NULL, NULL,
				     "[%s]: duplicate section (first on line %u)", type, in->line);
			return -1;
		}
		in->line = p->line;
	}
	p->cur = in;
	return 0;
}

/* conf_ini's key(): "NAME = VALUE" at LINE. */
static void
config_on_key(void *ctx, unsigned int line, const char *name, const char *value)
{
	struct config_parser *p = ctx;
	struct config_inst *in = p->cur;
	const struct conf_key *k;
	unsigned int ki;

	p->line = line;
	if (in == NULL) {
		config_error(p, p->line, NULL, name,
			     "key outside any section (put it under [gateway], [eal], "
			     "[port NAME], [peer NAME], [congestion], [hook NAME] or "
			     "[telemetry])");
		return;
	}
	if (name[0] == '\0') {
		config_error(p, p->line, in, NULL, "missing key name before '='");
		return;
	}
	k = config_key_find(in->section, name);
	if (k == NULL) {
		const char *hint = conf_key_suggest(&config_table, in->section, name);

		if (hint != NULL)
			config_error(p, p->line, in, name, "unknown key (did you mean %s?)", hint);
		else
			config_error(p, p->line, in, name, "unknown key");
		return;
	}
	ki = config_key_index(k);
	if (!(k->flags & CONF_F_REPEAT) && in->key_line[ki] != 0) {
		config_error(p, p->line, in, name, "duplicate key (first set on line %u)",
			     in->key_line[ki]);
		return;
	}
	if (in->key_line[ki] == 0)
		in->key_line[ki] = p->line;
	if (config_set(p, in, k, value, p->line) < 0)
		in->key_bad[ki] = true;
}

/* conf_ini's error(): a malformed line, inside the current section or not. */
static void
config_on_syntax(void *ctx, unsigned int line, enum conf_ini_where where, const char *msg)
{
	struct config_parser *p = ctx;

	p->line = line;
	config_error(p, line, where == CONF_INI_SECTION ? p->cur : NULL, NULL, "%s", msg);
}

static bool
config_stop(void *ctx)
{
	const struct config_parser *p = ctx;

	return p->n_errors > CONFIG_MAX_ERRORS;
}

static const struct conf_ini_ops config_ini_ops = {
	.section = config_on_section,
	.key = config_on_key,
	.error = config_on_syntax,
	.stop = config_stop,
};

static void
config_parser_init(struct config_parser *p, const char *name, FILE *err, struct ls_config *cfg)
{
	static const enum config_section singles[] = { CONFIG_SEC_GATEWAY, CONFIG_SEC_EAL,
						       CONFIG_SEC_CONGESTION, CONFIG_SEC_TELEMETRY,
						       CONFIG_SEC_PEERING };
	void *bases[] = { &cfg->gw, &cfg->eal, &cfg->cong, &cfg->tel, &cfg->peering };

	memset(p, 0, sizeof(*p));
	memset(cfg, 0, sizeof(*cfg));
	p->file = name;
	p->err = err;
	p->cfg = cfg;
	cfg->dc_port = -1;
	for (unsigned int i = 0; i < sizeof(singles) / sizeof(singles[0]); i++) {
		struct config_inst *inst = &p->inst[i];

		inst->section = singles[i];
		inst->base = bases[i];
		snprintf(inst->label, sizeof(inst->label), "[%s]", config_section_names[singles[i]]);
		config_apply_defaults(p, inst);
	}
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
		rc = conf_file_too_big(name, size, LS_CONFIG_MAX_BYTES, err);
		goto out_free;
	}
	config_parser_init(p, name, err, tmp);
	p->line = conf_ini_parse(text, size, CONFIG_LINE_MAX, &config_ini_ops, p);

	if (p->n_errors <= CONFIG_MAX_ERRORS) {
		config_check(p);
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
			cfg->path, conf_mech_name(cfg->cong.mechanisms), cfg->gw.workers);
		n++;
	}
	if (!cfg->cong.cnp_forward &&
	    (cfg->cong.cnp_forward_gap_ns != 0 || cfg->cong.cnp_forward_backlog_bytes != 0)) {
		fprintf(out,
			"%s: warning: [congestion] cnp_forward_gap and cnp_forward_backlog "
			"have no effect with cnp_forward = no: no receiver CNP the reaction "
			"point acts on goes on to the sender\n",
			cfg->path);
		n++;
	}
	n += config_cc_warn_lossless(cfg, out);
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
	char *text;
	size_t size;
	int rc;

	rc = conf_file_read_stream(in, name, LS_CONFIG_MAX_BYTES, &text, &size, err);
	if (rc < 0)
		return rc;
	rc = config_load_buffer(text, size, name, cfg, err);
	free(text);
	return rc;
}

/*
 * The loader of longspand -c, --check-config, --dump-config and reload, so
 * it runs on the control thread and must not wait on anything:
 * conf_file_read() reads only a regular file of at most LS_CONFIG_MAX_BYTES.
 */
int
config_load(const char *path, struct ls_config *cfg, FILE *err)
{
	char *text;
	size_t size;
	int rc;

	rc = conf_file_read(path, LS_CONFIG_MAX_BYTES, &text, &size, err);
	if (rc < 0)
		return rc;
	rc = config_load_buffer(text, size, path, cfg, err);
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
config_dump_key(FILE *out, const struct conf_key *k, const void *base)
{
	/* A peer's rtt derived from its distance is not written back (auto is). */
	if (k->section == CONFIG_SEC_PEER && strcmp(k->name, "rtt") == 0 &&
	    ((const struct ls_peer_conf *)base)->distance_m != 0 &&
	    !((const struct ls_peer_conf *)base)->rtt_auto)
		return;
	conf_key_dump(&config_table, k, base, out);
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
	if (cfg->peering.enabled)
		config_dump_section(out, CONFIG_SEC_PEERING, NULL, &cfg->peering);
}

