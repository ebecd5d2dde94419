/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The running hooks (hook_set.h): building them from the config, handing
 * maps and exporters over across a reload, retiring the old ones after the
 * grace period, the exporter's share of every control loop iteration and
 * the copies other threads read.
 */

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <arpa/inet.h>
#include <rte_common.h>

#include "dataplane/worker.h"
#include "hook_load.h"
#include "hook_maps.h"
#include "hook_prom.h"
#include "prom_server.h"
#include "hook_set.h"

/* The control loop steps the exporter this often at most (docs/telemetry.md). */
#define HOOK_SET_STEP_NS (10u * 1000 * 1000)

struct hook_set_inst {
	char name[LS_NAME_MAX];
	char object[LS_HOOK_PATH_MAX];
	unsigned int points;
	uint8_t order[LS_HOOK_POINT_MAX];
	unsigned int n_points;
	struct hook_object *obj;
	struct hook_prog prog[DP_MAX_WORKERS];
	unsigned int n_prog;
	struct hook_maps *maps; /* NULL once handed over */
	struct hook_export *exp; /* NULL once handed over or when no flows */
	/* Worker counters at the time this hook got its stats index. */
	struct dp_hook_stats base[DP_MAX_WORKERS];
	uint16_t id; /* index into struct dp_hook_io.stats */
};

struct hook_set {
	unsigned int n, n_workers;
	struct hook_set_inst h[LS_MAX_HOOKS];
	struct dp_hooks *dp[DP_MAX_WORKERS];
	struct prom_server *prom; /* the runtime's (hook section), or NULL */
	struct hook_ipfix *ipfix;
	char ipfix_conf[LS_HOOK_PATH_MAX]; /* as configured, for reloads */
	struct ls_telemetry_conf tel;
	uint64_t since_step_ns;
	uint32_t step_slots; /* exporter slots per step: a pass per interval */
	/* What other threads read (hook_set_flows()), replaced after each pass. */
	pthread_mutex_t view_lock;
	struct hook_set_export_view view;
	struct hook_set_flow *flows;
	uint32_t flows_cap;
};

static void
hook_set_inst_unload(struct hook_set_inst *h)
{
	for (unsigned int w = 0; w < h->n_prog; w++)
		hook_prog_unload(&h->prog[w]);
	h->n_prog = 0;
	hook_object_free(h->obj);
	h->obj = NULL;
}

static void
hook_set_inst_drop_maps(struct hook_set_inst *h, uint64_t now_ns)
{
	if (h->exp != NULL) {
		hook_export_flush(h->exp, now_ns);
		hook_export_free(h->exp);
		h->exp = NULL;
	}
	if (h->maps != NULL) {
		hook_maps_destroy(h->maps);
		free(h->maps);
		h->maps = NULL;
	}
}

/* The running hook that can hand its maps to the new hook HC over OBJ, or NULL. */
static struct hook_set_inst *
hook_set_same(struct hook_set *old, const struct ls_hook_conf *hc, const struct hook_object *obj,
	      const char *dir)
{
	if (old == NULL)
		return NULL;
	for (unsigned int i = 0; i < old->n; i++) {
		struct hook_set_inst *h = &old->h[i];

		if (strcmp(h->name, hc->name) == 0 && h->maps != NULL &&
		    strcmp(h->maps->dir, dir) == 0 && h->obj->abi.flow_slots == obj->abi.flow_slots &&
		    h->obj->abi.counters == obj->abi.counters)
			return h;
	}
	return NULL;
}

/*
 * A running hook whose maps are pinned in DIR but cannot be handed over
 * (its object declares other maps): its pins go now, so that the new maps
 * can take the names. Its programs keep writing their (unpinned) maps
 * until it is retired.
 */
static void
hook_set_unpin_old(struct hook_set *old, const char *dir)
{
	for (unsigned int i = 0; old != NULL && i < old->n; i++) {
		struct hook_maps *m = old->h[i].maps;

		if (m == NULL || strcmp(m->dir, dir) != 0)
			continue;
		for (unsigned int w = 0; w < m->n_lcores; w++) {
			struct hook_map *mm[2] = { &m->flows[w], &m->counters[w] };

			for (unsigned int k = 0; k < 2; k++)
				if (mm[k]->pin[0] != '\0') {
					unlink(mm[k]->pin);
					mm[k]->pin[0] = '\0';
				}
		}
		if (m->totals.pin[0] != '\0') {
			unlink(m->totals.pin);
			m->totals.pin[0] = '\0';
		}
	}
}

/* Pin directory of a hook: its pin_dir or the default. */
static int
hook_set_dir(const struct ls_config *cfg, const struct ls_hook_conf *hc, char *dir, size_t size)
{
	if (hc->pin_dir[0] != '\0') {
		snprintf(dir, size, "%s", hc->pin_dir);
		return 0;
	}
	return hook_maps_default_dir(dir, size, cfg->gw.name, hc->name);
}

/* A stats index for NAME: its running one, else one no running or new hook uses. */
static uint16_t
hook_set_id(const struct hook_set *s, const struct hook_set *old, const char *name, bool *fresh)
{
	bool used[DP_HOOKS_MAX] = { false };
	unsigned int i;

	*fresh = false;
	if (old != NULL)
		for (i = 0; i < old->n; i++) {
			if (strcmp(old->h[i].name, name) == 0)
				return old->h[i].id;
			used[old->h[i].id] = true;
		}
	for (i = 0; i < s->n; i++)
		used[s->h[i].id] = true;
	for (i = 0; i < DP_HOOKS_MAX && used[i]; i++)
		;
	if (i == DP_HOOKS_MAX) /* every index held by a running or new hook: reuse one */
		for (i = 0; i < DP_HOOKS_MAX; i++) {
			bool taken = false;

			for (unsigned int j = 0; j < s->n; j++)
				taken |= s->h[j].id == i;
			if (!taken)
				break;
		}
	*fresh = true;
	return (uint16_t)i;
}

static int
hook_set_outputs(struct hook_set *s, const struct ls_config *cfg, struct hook_set *old,
		 uint64_t now_ns, FILE *err)
{
	const struct ls_telemetry_conf *t = &cfg->tel;
	char msg[HOOK_LOAD_ERR_MAX], host[INET6_ADDRSTRLEN];

	snprintf(s->ipfix_conf, sizeof(s->ipfix_conf), "%s", t->ipfix);
	if (old != NULL) {
		if (strcmp(old->ipfix_conf, s->ipfix_conf) != 0) {
			fprintf(err, "reload: [telemetry] ipfix changed: this needs a restart; running "
				     "config kept\n");
			return -EINVAL;
		}
		return 0; /* taken over when the build succeeds */
	}
	if (t->ipfix[0] != '\0') {
		struct hook_ipfix_params xp = {
			.transport = (enum hook_ipfix_transport)t->ipfix_transport,
			.host = host,
			.port = t->ipfix_port,
			.path = t->ipfix_path,
			.observation_domain = t->ipfix_domain,
			.pen = t->ipfix_pen,
			.mtu = t->ipfix_mtu,
			.template_refresh_ns = t->template_refresh_ns,
		};

		if (t->ipfix_transport != HOOK_IPFIX_FILE)
			inet_ntop(t->ipfix_addr.family, t->ipfix_addr.a, host, sizeof(host));
		s->ipfix = hook_ipfix_open(&xp, now_ns, msg, sizeof(msg));
		if (s->ipfix == NULL) {
			fprintf(err, "%s: [telemetry] ipfix: %s\n", cfg->path, msg);
			return -EINVAL;
		}
	}
	return 0;
}

/* Is [telemetry] as OLD's exporters were made with (all but interval)? */
static bool
hook_set_tel_same(const struct ls_telemetry_conf *a, const struct ls_telemetry_conf *b)
{
	return a->idle_timeout_ns == b->idle_timeout_ns &&
	       a->active_timeout_ns == b->active_timeout_ns && a->max_flows == b->max_flows &&
	       a->top_k == b->top_k;
}

static int
hook_set_exporter(struct hook_set *s, struct hook_set_inst *h, const struct ls_config *cfg,
		  const struct hook_set_env *env, FILE *err)
{
	struct hook_export_source src[DP_MAX_WORKERS];
	const char *peers[LS_MAX_PEERS], *ports[LS_MAX_PORTS];
	struct hook_export_params p = {
		.idle_timeout_ns = cfg->tel.idle_timeout_ns,
		.active_timeout_ns = cfg->tel.active_timeout_ns,
		.max_flows = cfg->tel.max_flows,
		.top_k = cfg->tel.top_k,
		.n_peers = RTE_MIN(cfg->n_peers, (unsigned int)HOOK_EXPORT_NAMES_MAX),
		.peer_names = peers,
		.n_ports = RTE_MIN(cfg->n_ports, (unsigned int)HOOK_EXPORT_NAMES_MAX),
		.port_names = ports,
	};
	char msg[HOOK_LOAD_ERR_MAX];
	unsigned int i;

	for (i = 0; i < cfg->n_peers; i++)
		peers[i] = cfg->peers[i].name;
	for (i = 0; i < cfg->n_ports; i++)
		ports[i] = cfg->ports[i].name;
	for (i = 0; i < env->n_workers; i++)
		src[i] = (struct hook_export_source){ h->maps->flows[i].mem, h->maps->flows[i].entries,
						      env->workers[i]->lcore };
	/* IPFIX records of the first exporter only: one flow, one record. */
	h->exp = hook_export_create(&p, src, env->n_workers, h->maps,
				    s->ipfix != NULL ? hook_ipfix_record : NULL, s->ipfix, msg,
				    sizeof(msg));
	if (h->exp == NULL) {
		fprintf(err, "[hook %s]: exporter: %s\n", h->name, msg);
		return -ENOMEM;
	}
	return 0;
}

/* Check, load and bind one hook; maps from OLD when unchanged. */
static int
hook_set_load_one(struct hook_set *s, struct hook_set_inst *h, const struct ls_config *cfg,
		  const struct ls_hook_conf *hc, struct hook_set *old,
		  const struct hook_set_env *env, FILE *err)
{
	struct hook_load_limits lim = { hc->max_insns };
	char msg[HOOK_LOAD_ERR_MAX], dir[HOOK_MAPS_PATH_MAX];
	struct hook_set_inst *same;
	unsigned int w;
	int rc;

	snprintf(h->name, sizeof(h->name), "%s", hc->name);
	snprintf(h->object, sizeof(h->object), "%s", hc->object);
	h->points = hc->points;
	h->n_points = hc->n_points;
	memcpy(h->order, hc->order, sizeof(h->order));
	rc = hook_object_open(hc->object, hc->section, &lim, &h->obj, msg, sizeof(msg));
	if (rc != 0) {
		fprintf(err, "[hook %s]: %s\n", hc->name, msg);
		return rc;
	}
	if (h->obj->abi.flow_slots > 0 && h->obj->abi.flow_idle_ms != 0 &&
	    cfg->tel.interval_ns >= (uint64_t)h->obj->abi.flow_idle_ms * 1000000u) {
		fprintf(err,
			"[hook %s]: %s: section '%s': [telemetry] interval (%" PRIu64
			" ms) must be below the object's flow_idle_ms (%u): the exporter must read "
			"a slot before the hook gives it to another flow\n",
			hc->name, hc->object, hc->section, cfg->tel.interval_ns / 1000000u,
			h->obj->abi.flow_idle_ms);
		return -EINVAL;
	}
	rc = hook_set_dir(cfg, hc, dir, sizeof(dir));
	if (rc != 0) {
		fprintf(err, "[hook %s]: pin_dir: too long\n", hc->name);
		return rc;
	}
	same = hook_set_same(old, hc, h->obj, dir);
	if (same != NULL && (same->exp == NULL || hook_set_tel_same(&old->tel, &cfg->tel))) {
		/* Taken over at publication (hook_set_retire() sees them moved). */
		h->maps = same->maps;
		h->exp = same->exp;
	} else {
		struct hook_maps_params mp = {
			.dir = dir,
			.n_lcores = env->n_workers,
			.flow_slots = h->obj->abi.flow_slots,
			.counters = h->obj->abi.counters,
			.totals_max = cfg->tel.max_flows,
		};

		for (w = 0; w < env->n_workers; w++)
			mp.lcores[w] = env->workers[w]->lcore;
		if (same != NULL) {
			fprintf(err, "[hook %s]: [telemetry] timeouts, max_flows or top_k changed: "
				     "this needs a restart; running config kept\n",
				hc->name);
			return -EINVAL;
		}
		hook_set_unpin_old(old, dir);
		h->maps = calloc(1, sizeof(*h->maps));
		if (h->maps == NULL)
			return -ENOMEM;
		rc = hook_maps_create(h->maps, &mp, msg, sizeof(msg));
		if (rc != 0) {
			fprintf(err, "[hook %s]: maps in %s: %s\n", hc->name, dir, msg);
			free(h->maps);
			h->maps = NULL;
			return rc;
		}
		if (h->obj->abi.flow_slots > 0) {
			rc = hook_set_exporter(s, h, cfg, env, err);
			if (rc != 0)
				return rc;
		}
	}
	for (w = 0; w < env->n_workers; w++) {
		struct hook_bind b = {
			.flows = h->maps->flows[w].mem,
			.flows_bytes = (size_t)h->maps->flows[w].entries * h->maps->flows[w].value_size,
			.counters = h->maps->counters[w].mem,
			.counters_bytes =
				(size_t)h->maps->counters[w].entries * h->maps->counters[w].value_size,
		};

		rc = hook_prog_load(h->obj, &b, &h->prog[w], msg, sizeof(msg));
		if (rc != 0) {
			fprintf(err, "[hook %s]: %s\n", hc->name, msg);
			return rc;
		}
		h->n_prog = w + 1;
	}
	return 0;
}

/* The per-worker tables, points in config order. */
static int
hook_set_tables(struct hook_set *s, FILE *err)
{
	for (unsigned int w = 0; w < s->n_workers; w++) {
		struct dp_hooks *t = calloc(1, sizeof(*t));

		if (t == NULL)
			return -ENOMEM;
		s->dp[w] = t;
		for (unsigned int i = 0; i < s->n; i++) {
			const struct hook_set_inst *h = &s->h[i];

			for (unsigned int k = 0; k < h->n_points; k++) {
				unsigned int p = h->order[k];

				if (t->n[p] == DP_HOOKS_PER_POINT) {
					fprintf(err, "[hook %s]: more than %u hooks at one point\n",
						h->name, DP_HOOKS_PER_POINT);
					return -EINVAL;
				}
				t->at[p][t->n[p]++] = (struct dp_hook){
					.func = h->prog[w].func,
					.flows = h->obj->abi.flow_slots > 0 ? h->maps->flows[w].mem : NULL,
					.flow_mask = h->obj->abi.flow_slots - 1,
					.id = h->id,
				};
			}
		}
	}
	return 0;
}

static void
hook_set_release(struct hook_set *s, struct hook_set *old, uint64_t now_ns)
{
	for (unsigned int i = 0; i < s->n; i++) {
		struct hook_set_inst *h = &s->h[i];
		bool borrowed = false;

		for (unsigned int j = 0; old != NULL && j < old->n; j++)
			borrowed |= h->maps != NULL && old->h[j].maps == h->maps;
		hook_set_inst_unload(h);
		if (!borrowed)
			hook_set_inst_drop_maps(h, now_ns);
	}
	for (unsigned int w = 0; w < DP_MAX_WORKERS; w++)
		free(s->dp[w]);
	if (old == NULL) {
		if (s->ipfix != NULL)
			hook_ipfix_close(s->ipfix);
	}
	pthread_mutex_destroy(&s->view_lock);
	free(s->flows);
	free(s);
}

int
hook_set_build(const struct ls_config *cfg, struct hook_set *old, const struct hook_set_env *env,
	       struct hook_set **out, FILE *err)
{
	struct hook_set *s;
	uint64_t slots = 0;
	int rc;

	*out = NULL;
	if (cfg->n_hooks == 0)
		return 0;
	s = calloc(1, sizeof(*s));
	if (s == NULL) {
		fprintf(err, "hooks: out of memory\n");
		return -ENOMEM;
	}
	pthread_mutex_init(&s->view_lock, NULL);
	s->n_workers = env->n_workers;
	s->tel = cfg->tel;
	rc = hook_set_outputs(s, cfg, old, env->now_ns, err);
	if (rc != 0)
		goto fail;
	s->prom = env->prom;
	if (old != NULL)
		s->ipfix = old->ipfix;
	for (unsigned int i = 0; i < cfg->n_hooks; i++) {
		struct hook_set_inst *h = &s->h[i];
		bool fresh;

		h->id = hook_set_id(s, old, cfg->hooks[i].name, &fresh);
		s->n = i + 1;
		if (fresh || old == NULL)
			for (unsigned int w = 0; w < env->n_workers; w++)
				h->base[w] = env->workers[w]->hook.stats[h->id];
		else
			for (unsigned int j = 0; j < old->n; j++)
				if (old->h[j].id == h->id)
					memcpy(h->base, old->h[j].base, sizeof(h->base));
		rc = hook_set_load_one(s, h, cfg, &cfg->hooks[i], old, env, err);
		if (rc != 0)
			goto fail;
		if (h->exp != NULL)
			slots += (uint64_t)h->obj->abi.flow_slots * env->n_workers;
	}
	rc = hook_set_tables(s, err);
	if (rc != 0)
		goto fail;
	/* A pass per interval, in steps of HOOK_SET_STEP_NS. */
	s->step_slots = (uint32_t)RTE_MIN((slots * HOOK_SET_STEP_NS + cfg->tel.interval_ns - 1) /
						  cfg->tel.interval_ns,
					  (uint64_t)UINT32_MAX);
	*out = s;
	return 0;
fail:
	hook_set_release(s, old, env->now_ns);
	return rc;
}

const struct dp_hooks *
hook_set_worker(const struct hook_set *s, unsigned int w)
{
	return s != NULL && w < s->n_workers ? s->dp[w] : NULL;
}

void
hook_set_abandon(struct hook_set *s, struct hook_set *old)
{
	if (s != NULL)
		hook_set_release(s, old, 0);
}

void
hook_set_retire(struct hook_set *old, const struct hook_set *cur, uint64_t now_ns)
{
	if (old == NULL)
		return;
	/* What the running set took over is its own now. */
	for (unsigned int i = 0; i < old->n; i++)
		for (unsigned int j = 0; cur != NULL && j < cur->n; j++)
			if (old->h[i].maps != NULL && old->h[i].maps == cur->h[j].maps) {
				old->h[i].maps = NULL;
				old->h[i].exp = NULL;
			}
	if (cur != NULL && cur->ipfix == old->ipfix)
		old->ipfix = NULL;
	hook_set_release(old, NULL, now_ns);
}

static void
hook_set_publish(struct hook_set *s, struct hook_set_inst *h)
{
	uint32_t n = hook_export_n_flows(h->exp), i, got;
	struct hook_export_flow_view v[64];
	struct hook_set_flow *buf = s->flows;

	if (n > s->flows_cap || buf == NULL) {
		buf = malloc(((size_t)n + 1) * sizeof(*buf));
		if (buf == NULL)
			return; /* keep the previous pages */
	}
	/* Built outside the lock only when a new buffer is needed. */
	pthread_mutex_lock(&s->view_lock);
	if (buf != s->flows) {
		free(s->flows);
		s->flows = buf;
		s->flows_cap = n + 1;
	}
	for (i = 0; i < n; i += got) {
		got = hook_export_flows(h->exp, i, RTE_DIM(v), v);
		if (got == 0)
			break;
		for (uint32_t k = 0; k < got && i + k < n; k++) {
			s->flows[i + k].key = *v[k].key;
			s->flows[i + k].total = *v[k].total;
		}
	}
	s->view.pass++;
	s->view.total = i;
	snprintf(s->view.hook, sizeof(s->view.hook), "%s", h->name);
	s->view.exp = *hook_export_stats(h->exp);
	s->view.has_ipfix = s->ipfix != NULL;
	if (s->ipfix != NULL)
		s->view.ipfix = *hook_ipfix_stats(s->ipfix);
	s->view.prom_port = s->prom != NULL ? prom_server_port(s->prom) : 0;
	s->view.prom_requests = s->prom != NULL ? prom_server_requests(s->prom) : 0;
	pthread_mutex_unlock(&s->view_lock);
}

/* The exporter's pass as the endpoint's hook section. */
static void
hook_set_prom(struct prom_server *prom, const struct hook_export *e)
{
	size_t len;
	char *text = hook_prom_render(e, &len);

	if (text != NULL)
		prom_server_set(prom, PROM_SECTION_HOOKS, text, len);
}

void
hook_set_step(struct hook_set *s, uint64_t now_ns, uint64_t elapsed_ns)
{
	bool first = true;

	if (s == NULL)
		return;
	s->since_step_ns += elapsed_ns;
	if (s->since_step_ns < HOOK_SET_STEP_NS)
		return;
	s->since_step_ns = 0;
	for (unsigned int i = 0; i < s->n; i++) {
		struct hook_set_inst *h = &s->h[i];

		if (h->exp == NULL)
			continue;
		if (hook_export_step(h->exp, now_ns, s->step_slots) && first) {
			if (s->prom != NULL)
				hook_set_prom(s->prom, h->exp);
			if (s->ipfix != NULL)
				hook_ipfix_flush(s->ipfix, now_ns);
			hook_set_publish(s, h);
		}
		first = false;
	}
}

void
hook_set_free(struct hook_set *s, uint64_t now_ns)
{
	if (s == NULL)
		return;
	for (unsigned int i = 0; i < s->n; i++)
		if (s->h[i].exp != NULL) {
			hook_export_flush(s->h[i].exp, now_ns);
			hook_export_free(s->h[i].exp);
			s->h[i].exp = NULL;
		}
	if (s->ipfix != NULL)
		hook_ipfix_close(s->ipfix); /* flushes the last records */
	s->ipfix = NULL;
	hook_set_release(s, NULL, now_ns);
}

unsigned int
hook_set_stats(const struct hook_set *s, const struct dp_worker *const *workers,
	       unsigned int n_workers, struct hook_set_hook_stats *out, unsigned int max)
{
	unsigned int i, w;

	if (s == NULL)
		return 0;
	for (i = 0; i < s->n && i < max; i++) {
		const struct hook_set_inst *h = &s->h[i];
		struct hook_set_hook_stats *o = &out[i];

		memset(o, 0, sizeof(*o));
		snprintf(o->name, sizeof(o->name), "%s", h->name);
		snprintf(o->object, sizeof(o->object), "%s", h->object);
		snprintf(o->section, sizeof(o->section), "%s", h->obj->section);
		snprintf(o->pin_dir, sizeof(o->pin_dir), "%s", h->maps != NULL ? h->maps->dir : "");
		o->points = h->points;
		o->n_insns = h->obj->n_insns;
		o->jit_bytes = h->n_prog > 0 ? h->prog[0].jit_bytes : 0;
		o->flow_slots = h->obj->abi.flow_slots;
		o->counters = h->obj->abi.counters;
		o->exporter = h->exp != NULL;
		for (w = 0; w < n_workers && w < DP_MAX_WORKERS; w++) {
			const struct dp_hook_stats *st = &workers[w]->hook.stats[h->id];

			o->calls += st->calls - h->base[w].calls;
			o->errors += st->errors - h->base[w].errors;
			o->cycles += st->cycles - h->base[w].cycles;
		}
	}
	return i;
}

unsigned int
hook_set_flows(struct hook_set *s, uint32_t first, uint32_t max, struct hook_set_flow *buf,
	       struct hook_set_export_view *view)
{
	uint32_t n = 0;

	memset(view, 0, sizeof(*view));
	if (s == NULL)
		return 0;
	pthread_mutex_lock(&s->view_lock);
	*view = s->view;
	for (; first + n < s->view.total && n < max; n++)
		buf[n] = s->flows[first + n];
	pthread_mutex_unlock(&s->view_lock);
	return n;
}
