/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Cross-field rules of [hook NAME] and [telemetry] (config_keys.h): the
 * hook points list, the defaults that depend on the section's name, and the
 * numeric addresses of the Prometheus listener and the IPFIX collector.
 * What needs the object itself (its ABI note, its flow_idle_ms against
 * [telemetry] interval, the verifier) is checked when it loads
 * (control/hook_set.c), at start and at every reload.
 */

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include "config_keys.h"

static const char *const config_hook_point_names[] = { "dc_rx", "wan_rx", "wan_tx", "dc_tx" };

/* Parse "a, b, c" into h->order / h->points; false with msg on error. */
static bool
config_hook_points(struct ls_hook_conf *h, char *msg, size_t size)
{
	const char *s = h->points_text;

	h->points = 0;
	h->n_points = 0;
	while (*s != '\0') {
		size_t len;
		unsigned int i;

		s += strspn(s, " \t,");
		len = strcspn(s, " \t,");
		if (len == 0)
			break;
		for (i = 0; i < 4; i++)
			if (strlen(config_hook_point_names[i]) == len &&
			    strncmp(s, config_hook_point_names[i], len) == 0)
				break;
		if (i == 4) {
			snprintf(msg, size, "unknown hook point '%.*s' (dc_rx, wan_rx, wan_tx, dc_tx)",
				 (int)(len > 20 ? 20 : len), s);
			return false;
		}
		if (h->points & (1u << i)) {
			snprintf(msg, size, "hook point %s given twice", config_hook_point_names[i]);
			return false;
		}
		h->points |= 1u << i;
		h->order[h->n_points++] = (uint8_t)i;
		s += len;
	}
	if (h->n_points == 0) {
		snprintf(msg, size, "no hook point given");
		return false;
	}
	return true;
}

/* "IP:PORT" or "[IP6]:PORT", numeric. */
static bool
config_hook_hostport(const char *s, struct conf_addr *a, uint16_t *port, char *msg, size_t size)
{
	char host[INET6_ADDRSTRLEN + 2];
	const char *colon, *hs = s, *he;
	char *end;
	unsigned long v;

	if (*s == '[') {
		hs = s + 1;
		he = strchr(hs, ']');
		if (he == NULL || he[1] != ':') {
			snprintf(msg, size, "'%s' is not [IPv6]:PORT", s);
			return false;
		}
		colon = he + 1;
	} else {
		colon = strrchr(s, ':');
		if (colon == NULL) {
			snprintf(msg, size, "'%s' has no :PORT", s);
			return false;
		}
		he = colon;
	}
	if ((size_t)(he - hs) >= sizeof(host)) {
		snprintf(msg, size, "'%s': address too long", s);
		return false;
	}
	memcpy(host, hs, (size_t)(he - hs));
	host[he - hs] = '\0';
	memset(a, 0, sizeof(*a));
	if (inet_pton(AF_INET, host, a->a) == 1) {
		a->family = AF_INET;
	} else if (inet_pton(AF_INET6, host, a->a) == 1) {
		a->family = AF_INET6;
	} else {
		snprintf(msg, size, "'%s' is not a numeric IP address (no name lookups)", host);
		return false;
	}
	errno = 0;
	v = strtoul(colon + 1, &end, 10);
	if (colon[1] == '\0' || *end != '\0' || errno != 0 || v == 0 || v > 65535 ||
	    !isdigit((unsigned char)colon[1])) {
		snprintf(msg, size, "'%s' is not a port (1 .. 65535)", colon + 1);
		return false;
	}
	*port = (uint16_t)v;
	return true;
}

static void
config_hooks_telemetry(struct ls_telemetry_conf *t, config_hooks_err_fn err, void *arg)
{
	char msg[320];

	if (t->prometheus[0] != '\0' &&
	    !config_hook_hostport(t->prometheus, &t->prom_addr, &t->prom_port, msg, sizeof(msg)))
		err(arg, UINT32_MAX, "prometheus", msg);
	if (t->ipfix[0] != '\0') {
		if (strncmp(t->ipfix, "udp://", 6) == 0 || strncmp(t->ipfix, "tcp://", 6) == 0) {
			t->ipfix_transport = t->ipfix[0] == 'u' ? 0 : 1;
			if (!config_hook_hostport(t->ipfix + 6, &t->ipfix_addr, &t->ipfix_port, msg,
						  sizeof(msg)))
				err(arg, UINT32_MAX, "ipfix", msg);
		} else if (strncmp(t->ipfix, "file:", 5) == 0 && t->ipfix[5] != '\0') {
			t->ipfix_transport = 2;
			snprintf(t->ipfix_path, sizeof(t->ipfix_path), "%s", t->ipfix + 5);
		} else {
			snprintf(msg, sizeof(msg),
				 "'%s' is not udp://IP:PORT, tcp://IP:PORT or file:PATH", t->ipfix);
			err(arg, UINT32_MAX, "ipfix", msg);
		}
	}
	if (t->active_timeout_ns < t->interval_ns)
		err(arg, UINT32_MAX, "active_timeout", "must be at least interval");
	if (t->idle_timeout_ns < t->interval_ns)
		err(arg, UINT32_MAX, "idle_timeout", "must be at least interval");
}

void
config_hooks_check(struct ls_config *cfg, config_hooks_err_fn err, void *arg)
{
	char msg[LS_HOOK_PATH_MAX + 96];
	unsigned int i, j;

	for (i = 0; i < cfg->n_hooks; i++) {
		struct ls_hook_conf *h = &cfg->hooks[i];
		struct stat st;

		if (h->section[0] == '\0') {
			/* Not snprintf: gcc -O0 sees one object (cfg) and warns on restrict. */
			size_t n = strnlen(h->name, sizeof(h->name));

			if (n >= sizeof(h->section))
				n = sizeof(h->section) - 1;
			memcpy(h->section, h->name, n);
			h->section[n] = '\0';
		}
		if (!config_hook_points(h, msg, sizeof(msg)))
			err(arg, i, "points", msg);
		if (h->object[0] != '\0') {
			if (stat(h->object, &st) != 0) {
				snprintf(msg, sizeof(msg), "%s: %s", h->object, strerror(errno));
				err(arg, i, "object", msg);
			} else if (!S_ISREG(st.st_mode)) {
				snprintf(msg, sizeof(msg), "%s: not a regular file", h->object);
				err(arg, i, "object", msg);
			}
		}
		if (h->pin_dir[0] != '\0' && h->pin_dir[0] != '/')
			err(arg, i, "pin_dir", "must be an absolute path");
		for (j = 0; j < i; j++)
			if (h->pin_dir[0] != '\0' && strcmp(h->pin_dir, cfg->hooks[j].pin_dir) == 0) {
				snprintf(msg, sizeof(msg), "%s is also the pin_dir of [hook %s]",
					 h->pin_dir, cfg->hooks[j].name);
				err(arg, i, "pin_dir", msg);
			}
	}
	config_hooks_telemetry(&cfg->tel, err, arg);
}
