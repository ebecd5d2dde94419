/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Build the EAL argv from the config and the command line (eal_args.h).
 *
 * The builder recognises the EAL options that take a value, so that in
 * "-m 512" it knows "512" is not an option, and the option groups a config
 * key can also set. Unknown tokens pass through untouched: EAL itself
 * reports what it does not understand.
 */

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <string.h>

#include "eal_args.h"

enum eal_args_group {
	EAL_G_NONE = 0,
	EAL_G_CORES,
	EAL_G_MAIN,
	EAL_G_MEMORY,
	EAL_G_PREFIX,
	EAL_G_IN_MEMORY,
	EAL_G_NO_PCI,
	EAL_G_NO_HUGE,
	EAL_G_VDEV,
	EAL_G_ALLOW,
	EAL_G_MAX,
};

struct eal_args_option {
	const char *name; /* "-l" or "--lcores" */
	bool has_value;
	enum eal_args_group group;
	const char *key; /* the [eal] key for the same setting */
};

/* EAL 22.11 options (lib/eal/common/eal_common_options.c) that take a
 * value, plus the value-less ones a config key also sets. */
static const struct eal_args_option eal_args_options[] = {
	{ "-l", true, EAL_G_CORES, "lcores" },
	{ "-c", true, EAL_G_CORES, "lcores" },
	{ "--lcores", true, EAL_G_CORES, "lcores" },
	{ "--main-lcore", true, EAL_G_MAIN, "main_lcore" },
	{ "-m", true, EAL_G_MEMORY, "memory" },
	{ "--socket-mem", true, EAL_G_MEMORY, "memory" },
	{ "--file-prefix", true, EAL_G_PREFIX, "file_prefix" },
	{ "--in-memory", false, EAL_G_IN_MEMORY, "in_memory" },
	{ "--no-pci", false, EAL_G_NO_PCI, "no_pci" },
	{ "--no-huge", false, EAL_G_NO_HUGE, "no_huge" },
	{ "--vdev", true, EAL_G_VDEV, NULL },
	{ "-a", true, EAL_G_ALLOW, NULL },
	{ "--allow", true, EAL_G_ALLOW, NULL },
	{ "-b", true, EAL_G_NONE, NULL },
	{ "--block", true, EAL_G_NONE, NULL },
	{ "-n", true, EAL_G_NONE, NULL },
	{ "-r", true, EAL_G_NONE, NULL },
	{ "-d", true, EAL_G_NONE, NULL },
	{ "-s", true, EAL_G_NONE, NULL },
	{ "-S", true, EAL_G_NONE, NULL },
	{ "--service-corelist", true, EAL_G_NONE, NULL },
	{ "--log-level", true, EAL_G_NONE, NULL },
	{ "--iova-mode", true, EAL_G_NONE, NULL },
	{ "--proc-type", true, EAL_G_NONE, NULL },
	{ "--huge-dir", true, EAL_G_NONE, NULL },
	{ "--base-virtaddr", true, EAL_G_NONE, NULL },
	{ "--socket-limit", true, EAL_G_NONE, NULL },
	{ "--mbuf-pool-ops-name", true, EAL_G_NONE, NULL },
	{ "--vfio-intr", true, EAL_G_NONE, NULL },
	{ "--vfio-vf-token", true, EAL_G_NONE, NULL },
	{ "--trace", true, EAL_G_NONE, NULL },
	{ "--trace-dir", true, EAL_G_NONE, NULL },
	{ "--trace-bufsz", true, EAL_G_NONE, NULL },
	{ "--trace-mode", true, EAL_G_NONE, NULL },
	{ "--force-max-simd-bitwidth", true, EAL_G_NONE, NULL },
};

#define EAL_ARGS_N_OPTIONS (sizeof(eal_args_options) / sizeof(eal_args_options[0]))

/*
 * Match TOKEN against the option table. *value is the attached value
 * ("--file-prefix=x", "-l0,1") or NULL when the value is the next token.
 */
static const struct eal_args_option *
eal_args_match(const char *token, const char **value)
{
	*value = NULL;
	for (size_t i = 0; i < EAL_ARGS_N_OPTIONS; i++) {
		const struct eal_args_option *o = &eal_args_options[i];
		size_t n = strlen(o->name);

		if (strncmp(token, o->name, n) != 0)
			continue;
		if (token[n] == '\0')
			return o;
		if (!o->has_value)
			continue;
		if (o->name[1] == '-' && token[n] == '=') {
			*value = token + n + 1;
			return o;
		}
		if (o->name[1] != '-') { /* short option with attached value */
			*value = token + n;
			return o;
		}
	}
	return NULL;
}

const char *
eal_args_option_key(const char *opt)
{
	const char *value;
	const struct eal_args_option *o = eal_args_match(opt, &value);

	return o != NULL ? o->key : NULL;
}

static bool
eal_args_hex(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!isxdigit((unsigned char)s[i]))
			return false;
	return true;
}

/* Length of the PCI address at the start of DEV (BUS:DEV.FN with an
 * optional 4-digit DOMAIN: prefix), or 0. */
static size_t
eal_args_pci_len(const char *dev)
{
	size_t off = 0;

	if (eal_args_hex(dev, 4) && dev[4] == ':')
		off = 5;
	if (!eal_args_hex(dev + off, 2) || dev[off + 2] != ':' || !eal_args_hex(dev + off + 3, 2) ||
	    dev[off + 5] != '.' || dev[off + 6] < '0' || dev[off + 6] > '7')
		return 0;
	return off + 7;
}

enum eal_args_dev_kind
eal_args_dev_kind(const char *dev)
{
	size_t n = eal_args_pci_len(dev);
	const char *p;

	if (n > 0 && (dev[n] == '\0' || dev[n] == ','))
		return EAL_ARGS_DEV_PCI;
	if (strncmp(dev, "net_", 4) != 0)
		return EAL_ARGS_DEV_INVALID;
	for (p = dev + 4; *p != '\0' && *p != ','; p++)
		if (!isalnum((unsigned char)*p) && *p != '_')
			return EAL_ARGS_DEV_INVALID;
	if (p == dev + 4)
		return EAL_ARGS_DEV_INVALID;
	return EAL_ARGS_DEV_VDEV;
}

int
eal_args_dev_name(const char *dev, char *name, size_t size)
{
	size_t n;
	int len;

	switch (eal_args_dev_kind(dev)) {
	case EAL_ARGS_DEV_PCI:
		n = eal_args_pci_len(dev);
		len = snprintf(name, size, "%s%.*s", n == 7 ? "0000:" : "", (int)n, dev);
		if (len < 0 || (size_t)len >= size)
			return -ENOSPC;
		for (char *c = name; *c != '\0'; c++)
			*c = (char)tolower((unsigned char)*c);
		return len;
	case EAL_ARGS_DEV_VDEV:
		n = strcspn(dev, ",");
		len = snprintf(name, size, "%.*s", (int)n, dev);
		return len < 0 || (size_t)len >= size ? -ENOSPC : len;
	case EAL_ARGS_DEV_INVALID:
	default:
		return -EINVAL;
	}
}

/* What the command line already says. */
struct eal_args_cli {
	bool group[EAL_G_MAX];
	/* Device names given with --vdev / -a, to skip the config's copy. */
	unsigned int n_devs;
	char devs[LS_MAX_PORTS * 2][LS_DEVARGS_MAX];
};

static void
eal_args_error(FILE *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void
eal_args_error(FILE *err, const char *fmt, ...)
{
	va_list ap;

	if (err == NULL)
		return;
	fputs("eal: ", err);
	va_start(ap, fmt);
	vfprintf(err, fmt, ap);
	va_end(ap);
	fputc('\n', err);
}

static int
eal_args_scan_cli(struct eal_args_cli *cli, int argc, char *const argv[], FILE *err)
{
	for (int i = 0; i < argc; i++) {
		const char *value;
		const struct eal_args_option *o = eal_args_match(argv[i], &value);

		if (o == NULL)
			continue;
		if (o->has_value && value == NULL) {
			if (i + 1 >= argc) {
				eal_args_error(err, "option %s needs a value", argv[i]);
				return -EINVAL;
			}
			value = argv[++i];
		}
		cli->group[o->group] = true;
		if (value == NULL) /* a value-less flag, or a NULL inside argc */
			continue;
		if ((o->group == EAL_G_VDEV || o->group == EAL_G_ALLOW) &&
		    cli->n_devs < sizeof(cli->devs) / sizeof(cli->devs[0]) &&
		    eal_args_dev_name(value, cli->devs[cli->n_devs], sizeof(cli->devs[0])) > 0)
			cli->n_devs++;
	}
	return 0;
}

static bool
eal_args_cli_has_dev(const struct eal_args_cli *cli, const char *dev)
{
	char name[LS_DEVARGS_MAX];

	if (eal_args_dev_name(dev, name, sizeof(name)) < 0)
		return false;
	for (unsigned int i = 0; i < cli->n_devs; i++)
		if (strcmp(cli->devs[i], name) == 0)
			return true;
	return false;
}

/* Append a pointer to a string that outlives OUT. */
static int
eal_args_push(struct eal_args *out, char *arg)
{
	if (out->argc >= EAL_ARGS_MAX)
		return -E2BIG;
	out->argv[out->argc++] = arg;
	out->argv[out->argc] = NULL;
	return 0;
}

/* Append a copy of the first LEN bytes of S. */
static int
eal_args_push_copy(struct eal_args *out, const char *s, size_t len)
{
	char *dst = out->storage + out->storage_used;

	if (len + 1 > sizeof(out->storage) - out->storage_used)
		return -E2BIG;
	memcpy(dst, s, len);
	dst[len] = '\0';
	out->storage_used += len + 1;
	return eal_args_push(out, dst);
}

static int
eal_args_push_str(struct eal_args *out, const char *s)
{
	return eal_args_push_copy(out, s, strlen(s));
}

/* Append an option and its value as two tokens. */
static int
eal_args_push_pair(struct eal_args *out, const char *opt, const char *value)
{
	int rc = eal_args_push_str(out, opt);

	return rc == 0 ? eal_args_push_str(out, value) : rc;
}

static int
eal_args_push_fmt(struct eal_args *out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int
eal_args_push_fmt(struct eal_args *out, const char *fmt, ...)
{
	char buf[LS_DEVARGS_MAX + 16];
	va_list ap;
	int len;

	va_start(ap, fmt);
	len = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (len < 0 || (size_t)len >= sizeof(buf))
		return -E2BIG;
	return eal_args_push_copy(out, buf, (size_t)len);
}

/* The options derived from dedicated [eal] keys and the ports' devices. */
static int
eal_args_from_config(struct eal_args *out, const struct ls_config *cfg,
		     const struct eal_args_cli *cli)
{
	const struct ls_eal_conf *eal = &cfg->eal;
	int rc = 0;

	if (eal->lcores[0] != '\0' && !cli->group[EAL_G_CORES]) {
		rc = eal_args_push_pair(out, "-l", eal->lcores);
	}
	if (rc == 0 && eal->main_lcore_set && !cli->group[EAL_G_MAIN])
		rc = eal_args_push_fmt(out, "--main-lcore=%u", eal->main_lcore);
	if (rc == 0 && eal->memory_mb != 0 && !cli->group[EAL_G_MEMORY]) {
		char mb[16];

		snprintf(mb, sizeof(mb), "%u", (unsigned int)eal->memory_mb);
		rc = eal_args_push_pair(out, "-m", mb);
	}
	if (rc == 0 && eal->file_prefix[0] != '\0' && !cli->group[EAL_G_PREFIX])
		rc = eal_args_push_fmt(out, "--file-prefix=%s", eal->file_prefix);
	if (rc == 0 && eal->in_memory && !cli->group[EAL_G_IN_MEMORY])
		rc = eal_args_push_str(out, "--in-memory");
	if (rc == 0 && eal->no_pci && !cli->group[EAL_G_NO_PCI])
		rc = eal_args_push_str(out, "--no-pci");
	if (rc == 0 && eal->no_huge && !cli->group[EAL_G_NO_HUGE])
		rc = eal_args_push_str(out, "--no-huge");

	for (unsigned int i = 0; rc == 0 && i < cfg->n_ports; i++) {
		const char *dev = cfg->ports[i].dev;

		if (eal_args_cli_has_dev(cli, dev))
			continue;
		switch (eal_args_dev_kind(dev)) {
		case EAL_ARGS_DEV_PCI:
			rc = eal_args_push_pair(out, "-a", dev);
			break;
		case EAL_ARGS_DEV_VDEV:
			rc = eal_args_push_fmt(out, "--vdev=%s", dev);
			break;
		case EAL_ARGS_DEV_INVALID:
		default:
			/* config_load() rejects these; pass it on for EAL to name. */
			rc = eal_args_push_fmt(out, "--vdev=%s", dev);
			break;
		}
	}
	return rc;
}

/* [eal] extra, split on blanks, without options the command line overrides. */
static int
eal_args_from_extra(struct eal_args *out, const char *extra, const struct eal_args_cli *cli,
		    FILE *err)
{
	enum { EAL_VALUE_NONE, EAL_VALUE_KEEP, EAL_VALUE_DROP } pending = EAL_VALUE_NONE;
	const char *p = extra;
	int rc = 0;

	while (rc == 0) {
		const struct eal_args_option *o;
		const char *value;
		size_t len;
		char token[sizeof(((struct ls_eal_conf *)0)->extra)];

		p += strspn(p, " \t");
		if (*p == '\0')
			break;
		len = strcspn(p, " \t");
		memcpy(token, p, len);
		token[len] = '\0';
		p += len;

		/* The separate value of the previous option, whatever it looks like. */
		if (pending != EAL_VALUE_NONE) {
			if (pending == EAL_VALUE_KEEP)
				rc = eal_args_push_copy(out, token, len);
			pending = EAL_VALUE_NONE;
			continue;
		}
		o = eal_args_match(token, &value);
		if (o != NULL && o->group != EAL_G_NONE && o->group != EAL_G_VDEV &&
		    o->group != EAL_G_ALLOW && cli->group[o->group]) {
			if (o->has_value && value == NULL)
				pending = EAL_VALUE_DROP;
			continue;
		}
		if (o != NULL && o->has_value && value == NULL)
			pending = EAL_VALUE_KEEP;
		rc = eal_args_push_copy(out, token, len);
	}
	if (rc == 0 && pending != EAL_VALUE_NONE) {
		eal_args_error(err, "[eal] extra: the last option needs a value");
		return -EINVAL;
	}
	return rc;
}

int
eal_args_build(struct eal_args *out, const char *prog, const struct ls_config *cfg,
	       int cli_argc, char *const cli_argv[], FILE *err)
{
	struct eal_args_cli cli;
	int rc;

	memset(&cli, 0, sizeof(cli));
	out->argc = 0;
	out->argv[0] = NULL;
	out->storage_used = 0;

	rc = eal_args_scan_cli(&cli, cli_argc, cli_argv, err);
	if (rc < 0)
		return rc;
	rc = eal_args_push_str(out, prog != NULL ? prog : "longspand");
	if (rc == 0)
		rc = eal_args_from_config(out, cfg, &cli);
	if (rc == 0)
		rc = eal_args_from_extra(out, cfg->eal.extra, &cli, err);
	for (int i = 0; rc == 0 && i < cli_argc; i++)
		rc = eal_args_push(out, cli_argv[i]);
	if (rc == -E2BIG)
		eal_args_error(err, "too many EAL arguments (max %d, %d bytes)", EAL_ARGS_MAX,
			       EAL_ARGS_STORAGE);
	return rc;
}
