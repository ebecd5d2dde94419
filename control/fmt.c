/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Text and JSON renderers for control/fmt.h. Both print as events arrive;
 * the JSON one is indented two spaces per level so that `longspanctl --json`
 * stays readable without jq.
 */

#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "config.h"
#include "fmt.h"
#include "congestion/cc_params.h"

#define FMT_ADDR_STRLEN (INET6_ADDRSTRLEN + 4) /* address and "/len" */

/* ---- nesting checks shared by every backend ---- */

/* A member may be added at the current level with this key. */
static bool
fmt_member_ok(struct fmt *f, const char *key, bool is_string)
{
	enum fmt_node node = f->node[f->depth];

	if (f->error != 0)
		return false;
	if (node == FMT_LIST) {
		/* Lists hold unkeyed strings only: rte_telemetry arrays are typed. */
		if (key != NULL || !is_string)
			goto misuse;
		return true;
	}
	if (key == NULL)
		goto misuse;
	return true;
misuse:
	f->error = -EINVAL;
	return false;
}

void
fmt_open(struct fmt *f, const char *key, enum fmt_node node)
{
	if (!fmt_member_ok(f, key, false))
		return;
	/* Rows are single text lines: nothing nests inside them. */
	if (f->node[f->depth] == FMT_ROW || f->depth + 1 >= FMT_MAX_DEPTH) {
		f->error = -EINVAL;
		return;
	}
	f->depth++;
	f->node[f->depth] = node;
	f->count[f->depth] = 0;
	f->key_width[f->depth] = 0;
	f->ops->open(f, key, node);
	f->count[f->depth - 1]++;
}

void
fmt_close(struct fmt *f)
{
	if (f->error != 0)
		return;
	if (f->depth == 0) {
		f->error = -EINVAL;
		return;
	}
	f->ops->close(f);
	f->depth--;
}

void
fmt_u64(struct fmt *f, const char *key, uint64_t v)
{
	if (!fmt_member_ok(f, key, false))
		return;
	f->ops->u64(f, key, v);
	f->count[f->depth]++;
	f->width = 0;
}

void
fmt_i64(struct fmt *f, const char *key, int64_t v)
{
	if (!fmt_member_ok(f, key, false))
		return;
	f->ops->i64(f, key, v);
	f->count[f->depth]++;
	f->width = 0;
}

void
fmt_f64(struct fmt *f, const char *key, double v)
{
	if (!fmt_member_ok(f, key, false))
		return;
	if (isfinite(v))
		f->ops->f64(f, key, v);
	else
		f->ops->null(f, key);
	f->count[f->depth]++;
	f->width = 0;
}

void
fmt_str(struct fmt *f, const char *key, const char *s)
{
	if (!fmt_member_ok(f, key, true))
		return;
	f->ops->str(f, key, s != NULL ? s : "");
	f->count[f->depth]++;
	f->width = 0;
}

void
fmt_strf(struct fmt *f, const char *key, const char *format, ...)
{
	char buf[512];
	va_list ap;

	va_start(ap, format);
	vsnprintf(buf, sizeof(buf), format, ap);
	va_end(ap);
	fmt_str(f, key, buf);
}

void
fmt_null(struct fmt *f, const char *key)
{
	if (!fmt_member_ok(f, key, false))
		return;
	f->ops->null(f, key);
	f->count[f->depth]++;
	f->width = 0;
}

void
fmt_none(struct fmt *f, const char *key)
{
	if (!fmt_member_ok(f, key, false))
		return;
	if (f->ops->none != NULL)
		f->ops->none(f, key);
	else
		f->ops->null(f, key);
	f->count[f->depth]++;
	f->width = 0;
}

void
fmt_width(struct fmt *f, unsigned int width)
{
	f->width = width;
}

void
fmt_key_width(struct fmt *f, unsigned int width)
{
	f->key_width[f->depth] = width;
}

void
fmt_bool(struct fmt *f, const char *key, bool v)
{
	if (!fmt_member_ok(f, key, false))
		return;
	f->ops->boolean(f, key, v);
	f->count[f->depth]++;
	f->width = 0;
}

void
fmt_notef(struct fmt *f, const char *format, ...)
{
	char buf[512];
	va_list ap;

	if (f->error != 0 || f->ops->note == NULL)
		return;
	va_start(ap, format);
	vsnprintf(buf, sizeof(buf), format, ap);
	va_end(ap);
	f->ops->note(f, buf);
}

int
fmt_finish(struct fmt *f)
{
	while (f->error == 0 && f->depth > 0)
		fmt_close(f);
	if (f->error == 0)
		f->ops->finish(f);
	if (f->error == 0 && f->out != NULL && ferror(f->out))
		f->error = -EIO;
	return f->error;
}

/* ---- text ---- */

static void
text_indent(struct fmt *f, unsigned int level)
{
	fprintf(f->out, "%*s", (int)(2 * level), "");
}

/* Key column for a member at LEVEL, so values line up across levels. */
static void
text_key(struct fmt *f, unsigned int level, const char *key)
{
	int width = FMT_KEY_WIDTH - (int)(2 * level);
	size_t length = strlen(key);

	text_indent(f, level);
	if (width < 1 || length >= (size_t)width)
		fprintf(f->out, "%s ", key);
	else
		fprintf(f->out, "%-*s", width, key);
}

static void
text_open(struct fmt *f, const char *key, enum fmt_node node)
{
	unsigned int parent = f->depth - 1;

	switch (node) {
	case FMT_OBJ:
		/* A blank line between top-level sections. */
		if (parent == 0 && f->any_output)
			fputc('\n', f->out);
		text_indent(f, parent);
		fprintf(f->out, "%s\n", key);
		break;
	case FMT_ROW:
	case FMT_LIST:
		if (node == FMT_ROW && f->key_width[parent] != 0) {
			text_indent(f, parent);
			fprintf(f->out, "%-*s", (int)f->key_width[parent], key);
		} else {
			text_key(f, parent, key);
		}
		break;
	}
	f->any_output = true;
}

static void
text_close(struct fmt *f)
{
	switch (f->node[f->depth]) {
	case FMT_OBJ:
		break;
	case FMT_ROW:
		fputc('\n', f->out);
		break;
	case FMT_LIST:
		fputs(f->count[f->depth] == 0 ? " -\n" : "\n", f->out);
		break;
	}
}

/* Print one scalar already formatted as VALUE; NUMERIC right-aligns in rows. */
static void
text_scalar(struct fmt *f, const char *key, const char *value, bool numeric)
{
	switch (f->node[f->depth]) {
	case FMT_OBJ:
		text_key(f, f->depth, key);
		fprintf(f->out, " %s\n", value);
		break;
	case FMT_ROW:
		if (numeric)
			fprintf(f->out, " %*s", f->width != 0 ? (int)f->width : FMT_NUM_WIDTH,
				value);
		else
			fprintf(f->out, "  %-*s", (int)f->width, value);
		break;
	case FMT_LIST:
		fprintf(f->out, " %s", value);
		break;
	}
	f->any_output = true;
}

static void
text_u64(struct fmt *f, const char *key, uint64_t v)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%" PRIu64, v);
	text_scalar(f, key, buf, true);
}

static void
text_i64(struct fmt *f, const char *key, int64_t v)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%" PRId64, v);
	text_scalar(f, key, buf, true);
}

static void
text_f64(struct fmt *f, const char *key, double v)
{
	char buf[48];

	snprintf(buf, sizeof(buf), "%.2f", v);
	text_scalar(f, key, buf, true);
}

static void
text_str(struct fmt *f, const char *key, const char *s)
{
	text_scalar(f, key, s[0] != '\0' ? s : "-", false);
}

static void
text_null(struct fmt *f, const char *key)
{
	text_scalar(f, key, "n/a", true);
}

static void
text_none(struct fmt *f, const char *key)
{
	text_scalar(f, key, "-", true);
}

static void
text_boolean(struct fmt *f, const char *key, bool v)
{
	text_scalar(f, key, v ? "yes" : "no", true);
}

static void
text_note(struct fmt *f, const char *line)
{
	text_indent(f, f->depth);
	fprintf(f->out, "%s\n", line);
	f->any_output = true;
}

static void
text_finish(struct fmt *f)
{
	(void)f;
}

static const struct fmt_ops fmt_text_ops = {
	.open = text_open,
	.close = text_close,
	.u64 = text_u64,
	.i64 = text_i64,
	.f64 = text_f64,
	.str = text_str,
	.null = text_null,
	.boolean = text_boolean,
	.none = text_none,
	.note = text_note,
	.finish = text_finish,
};

void
fmt_text_init(struct fmt *f, FILE *out)
{
	memset(f, 0, sizeof(*f));
	f->ops = &fmt_text_ops;
	f->out = out;
	f->node[0] = FMT_OBJ;
}

/* ---- shared reports ---- */

void
fmt_cc_derived(struct fmt *f, const struct cc_derived *d)
{
	fmt_u64(f, "rate_bps", d->rate_bps);
	fmt_u64(f, "rtt_ns", d->rtt_ns);
	fmt_u64(f, "dc_rtt_ns", d->dc_rtt_ns);
	fmt_u64(f, "loop_rtt_ns", d->loop_rtt_ns);
	fmt_bool(f, "near_source_cnp", d->near_source_cnp);
	fmt_u64(f, "mtu_bytes", d->mtu_bytes);
	fmt_u64(f, "bdp_bytes", d->bdp_bytes);
	fmt_u64(f, "kmin_bytes", d->kmin_bytes);
	fmt_u64(f, "kmax_bytes", d->kmax_bytes);
	fmt_u64(f, "pmax_ppm", d->pmax_ppm);
	fmt_u64(f, "target_delay_ns", d->target_delay_ns);
	fmt_u64(f, "sojourn_interval_ns", d->sojourn_interval_ns);
	fmt_u64(f, "phantom_ratio_ppm", d->phantom_ratio_ppm);
	fmt_u64(f, "phantom_threshold_bytes", d->phantom_threshold_bytes);
	fmt_u64(f, "buffer_bytes", d->buffer_bytes);
	fmt_u64(f, "cnp_interval_ns", d->cnp_interval_ns);
	fmt_u64(f, "cut_interval_ns", d->cut_interval_ns);
	fmt_u64(f, "hold_ns", d->hold_ns);
	fmt_u64(f, "flow_idle_ns", d->flow_idle_ns);
	/* Mechanism B (PFC at the DC port, the credit hop). */
	fmt_u64(f, "dc_rate_bps", d->dc_rate_bps);
	fmt_u64(f, "dc_rx_ring_bytes", d->dc_rx_ring_bytes);
	fmt_u64(f, "pfc_headroom_bytes", d->pfc_headroom_bytes);
	fmt_u64(f, "pfc_xoff_bytes", d->pfc_xoff_bytes);
	fmt_u64(f, "pfc_xon_bytes", d->pfc_xon_bytes);
	fmt_u64(f, "pfc_quanta", d->pfc_quanta);
	fmt_u64(f, "pfc_pause_ns", d->pfc_pause_ns);
	fmt_bool(f, "pfc_lossless", d->pfc_lossless);
	fmt_u64(f, "credit_buffer_bytes", d->credit_buffer_bytes);
	fmt_u64(f, "credit_update_bytes", d->credit_update_bytes);
	fmt_u64(f, "credit_refresh_ns", d->credit_refresh_ns);
}

static void
fmt_addr_format(const struct conf_addr *a, char *buf, size_t size)
{
	buf[0] = '\0';
	if (a->family == AF_INET || a->family == AF_INET6)
		inet_ntop(a->family, a->a, buf, size);
}

void
fmt_addr(struct fmt *f, const char *key, const struct conf_addr *a)
{
	char buf[FMT_ADDR_STRLEN];

	fmt_addr_format(a, buf, sizeof(buf));
	fmt_str(f, key, buf);
}

void
fmt_prefix(struct fmt *f, const char *key, const struct conf_prefix *p)
{
	char buf[FMT_ADDR_STRLEN];
	size_t length;

	fmt_addr_format(&p->addr, buf, sizeof(buf));
	length = strlen(buf);
	if (length > 0)
		snprintf(buf + length, sizeof(buf) - length, "/%u", p->len);
	fmt_str(f, key, buf);
}

void
fmt_mac(struct fmt *f, const char *key, const uint8_t mac[6])
{
	fmt_strf(f, key, "%02x:%02x:%02x:%02x:%02x:%02x", mac[0], mac[1], mac[2], mac[3],
		 mac[4], mac[5]);
}

/* ---- JSON (RFC 8259) ---- */

void
fmt_json_string(FILE *out, const char *s)
{
	const unsigned char *p;

	fputc('"', out);
	for (p = (const unsigned char *)s; *p != '\0'; p++) {
		switch (*p) {
		case '"':
			fputs("\\\"", out);
			break;
		case '\\':
			fputs("\\\\", out);
			break;
		case '\n':
			fputs("\\n", out);
			break;
		case '\t':
			fputs("\\t", out);
			break;
		case '\r':
			fputs("\\r", out);
			break;
		default:
			if (*p < 0x20 || *p == 0x7f)
				fprintf(out, "\\u%04x", *p);
			else
				fputc(*p, out);
		}
	}
	fputc('"', out);
}

/* Separator, newline, indentation and key of a member of level LEVEL. */
static void
json_member(struct fmt *f, unsigned int level, const char *key)
{
	if (f->count[level] > 0)
		fputc(',', f->out);
	fprintf(f->out, "\n%*s", (int)(2 * (level + 1)), "");
	if (key != NULL) {
		fmt_json_string(f->out, key);
		fputs(": ", f->out);
	}
}

static void
json_open(struct fmt *f, const char *key, enum fmt_node node)
{
	json_member(f, f->depth - 1, key);
	fputc(node == FMT_LIST ? '[' : '{', f->out);
}

static void
json_close(struct fmt *f)
{
	if (f->count[f->depth] > 0)
		fprintf(f->out, "\n%*s", (int)(2 * f->depth), "");
	fputc(f->node[f->depth] == FMT_LIST ? ']' : '}', f->out);
}

static void
json_u64(struct fmt *f, const char *key, uint64_t v)
{
	json_member(f, f->depth, key);
	fprintf(f->out, "%" PRIu64, v);
}

static void
json_i64(struct fmt *f, const char *key, int64_t v)
{
	json_member(f, f->depth, key);
	fprintf(f->out, "%" PRId64, v);
}

static void
json_f64(struct fmt *f, const char *key, double v)
{
	json_member(f, f->depth, key);
	/* %g never prints "nan"/"inf" here (fmt_f64 filters them): valid JSON. */
	fprintf(f->out, "%.6g", v);
}

static void
json_str(struct fmt *f, const char *key, const char *s)
{
	json_member(f, f->depth, key);
	/* Empty is absent (fmt.h), as text's "-" says: an unset address is null. */
	if (s[0] == '\0')
		fputs("null", f->out);
	else
		fmt_json_string(f->out, s);
}

static void
json_null(struct fmt *f, const char *key)
{
	json_member(f, f->depth, key);
	fputs("null", f->out);
}

static void
json_boolean(struct fmt *f, const char *key, bool v)
{
	json_member(f, f->depth, key);
	fputs(v ? "true" : "false", f->out);
}

static void
json_finish(struct fmt *f)
{
	fputs(f->count[0] > 0 ? "\n}\n" : "}\n", f->out);
}

static const struct fmt_ops fmt_json_ops = {
	.open = json_open,
	.close = json_close,
	.u64 = json_u64,
	.i64 = json_i64,
	.f64 = json_f64,
	.str = json_str,
	.null = json_null,
	.boolean = json_boolean,
	.none = NULL,
	.note = NULL,
	.finish = json_finish,
};

void
fmt_json_init(struct fmt *f, FILE *out)
{
	memset(f, 0, sizeof(*f));
	f->ops = &fmt_json_ops;
	f->out = out;
	f->node[0] = FMT_OBJ;
	fputc('{', out);
}
