/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LONGSPAN_HOOK_MAPS_H
#define LONGSPAN_HOOK_MAPS_H

/*
 * The BPF maps of one hook (docs/telemetry.md), created with libbpf in the
 * kernel although no kernel program uses them: the kernel gives named
 * storage that bpftool reads, with types it can print.
 *
 *   flows_lcoreN     ARRAY, key u32, value struct ls_hook_flow_rec,
 *                    BPF_F_MMAPABLE: the slots the hook of lcore N writes
 *   counters_lcoreN  ARRAY, key u32, value u64, BPF_F_MMAPABLE: the hook's
 *                    free-form counters
 *   flows            HASH, key struct ls_hook_flow_key, value struct
 *                    hook_flow_total: every live flow's totals over all
 *                    lcores, written by the exporter in batches
 *
 * Each map carries BTF built at run time from the field tables
 * (LS_HOOK_FLOW_FIELDS, LS_HOOK_KEY_FIELDS, HOOK_FLOW_TOTAL_FIELDS), so
 * `bpftool -j map dump pinned DIR/flows` prints fields by name. The maps
 * are pinned in one directory per hook (by default
 * /sys/fs/bpf/longspan/GATEWAY/HOOK/); bpffs is mounted on /sys/fs/bpf
 * first if it is not there. hook_maps_destroy() removes the pins and the
 * directories it created.
 *
 * Ownership: created and destroyed by the control thread. The per-lcore
 * arrays' memory is written by one worker (through its hook) and read by
 * the control thread and by bpftool; the HASH map is written by the control
 * thread only.
 */

#include <assert.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dataplane/hook_abi.h"

#define HOOK_MAPS_LCORES_MAX 16 /* DP_MAX_WORKERS */
#define HOOK_MAPS_PATH_MAX 256
#define HOOK_MAPS_BPFFS "/sys/fs/bpf"

/*
 * One flow's totals over every lcore since the gateway first saw it (the
 * exporter's aggregate): the counters, all u64 and first, then what
 * identifies the flow's place. X(type, name, dimension, description).
 */
#define HOOK_FLOW_TOTAL_COUNTERS(X)                                                               \
	X(uint64_t, pkts, , "packets received")                                                  \
	X(uint64_t, bytes, , "inner IP bytes received")                                          \
	X(uint64_t, ect_pkts, , "packets received ECT(0) or ECT(1)")                              \
	X(uint64_t, ce_pkts, , "packets received CE")                                             \
	X(uint64_t, cnp_seen, , "CNPs received from hosts")                                       \
	X(uint64_t, cnp_generated, , "CNPs the gateway generated")                                \
	X(uint64_t, psn_gaps, , "data PSN jumps ahead")                                           \
	X(uint64_t, psn_skipped, , "PSNs missing in the gaps")                                    \
	X(uint64_t, psn_ooo, , "data PSNs other than the expected one")                           \
	X(uint64_t, retrans, , "data PSN going back")                                             \
	X(uint64_t, naks, , "NAKs")                                                               \
	X(uint64_t, rnr_naks, , "RNR NAKs")                                                       \
	X(uint64_t, marked, , "packets the gateway marked CE")                                    \
	X(uint64_t, held, , "packets held by mechanism C")                                        \
	X(uint64_t, tx_pkts, , "packets transmitted")                                             \
	X(uint64_t, tx_bytes, , "inner IP bytes transmitted")                                     \
	X(uint64_t, tx_drops, , "packets dropped after the rx point")                             \
	X(uint64_t, sojourn_sum_ns, , "sum of sojourn times")                                     \
	X(uint64_t, sojourn_hist, [LS_HOOK_SOJOURN_BUCKETS], "log2 sojourn histogram")

#define HOOK_FLOW_TOTAL_FIELDS(X)                                                                 \
	HOOK_FLOW_TOTAL_COUNTERS(X)                                                               \
	X(uint64_t, first_ns, , "first packet, gateway ns")                                       \
	X(uint64_t, last_ns, , "last packet, gateway ns")                                         \
	X(uint16_t, port, , "config port index of the last packet received")                     \
	X(uint16_t, peer, , "config peer index, 65535 when none")                                 \
	X(uint8_t, dscp, , "DSCP of the last packet received")                                    \
	X(uint8_t, lcores, , "number of lcores that saw the flow")                                \
	X(uint8_t, total_pad, [2], "zero")

struct hook_flow_total {
	HOOK_FLOW_TOTAL_FIELDS(LS_HOOK_FIELD_DECL)
};

/* The counters are the first HOOK_FLOW_TOTAL_N_COUNTERS u64 words. */
#define HOOK_FLOW_TOTAL_N_COUNTERS (18 + LS_HOOK_SOJOURN_BUCKETS)
static_assert(offsetof(struct hook_flow_total, first_ns) == HOOK_FLOW_TOTAL_N_COUNTERS * 8,
	      "counters first, all u64");

/* One map: its fd, its pin, and for an ARRAY its mmap'ed values. */
struct hook_map {
	int fd; /* -1 when absent */
	void *mem; /* ARRAY: the values, entries * value_size bytes */
	size_t mem_bytes; /* length of the mapping (whole pages) */
	uint32_t entries;
	uint32_t value_size;
	char pin[HOOK_MAPS_PATH_MAX]; /* "" when not pinned */
};

struct hook_maps_params {
	const char *dir; /* pin directory: created if absent, under a bpffs */
	unsigned int n_lcores;
	unsigned int lcores[HOOK_MAPS_LCORES_MAX]; /* lcore ids, for the pin names */
	uint32_t flow_slots; /* per lcore; 0 = no flow maps (and no aggregate) */
	uint32_t counters; /* per lcore; 0 = no counter maps */
	uint32_t totals_max; /* entries of the aggregate HASH map (when flow_slots > 0) */
};

struct hook_maps {
	char dir[HOOK_MAPS_PATH_MAX];
	char made[4][HOOK_MAPS_PATH_MAX]; /* directories this module created, deepest last */
	unsigned int n_made;
	unsigned int n_lcores;
	unsigned int lcores[HOOK_MAPS_LCORES_MAX];
	struct hook_map flows[HOOK_MAPS_LCORES_MAX];
	struct hook_map counters[HOOK_MAPS_LCORES_MAX];
	struct hook_map totals; /* HASH, the exporter's */
};

/*
 * The default pin directory of a hook: /sys/fs/bpf/longspan/GATEWAY/HOOK,
 * with every '.' of the two names made '_' (bpffs refuses names with a dot).
 */
int hook_maps_default_dir(char *out, size_t out_size, const char *gateway, const char *hook);

/*
 * Mount a bpffs on MNT unless one is there already. Returns 1 when it
 * mounted one, 0 when there was one, a negative errno on failure.
 */
int hook_maps_bpffs_ensure(const char *mnt, char *err, size_t err_size);

/*
 * Create, mmap and pin every map of one hook (bpffs mounted on
 * HOOK_MAPS_BPFFS first when the directory is under it). On failure
 * nothing is left behind and err says what failed.
 */
int hook_maps_create(struct hook_maps *m, const struct hook_maps_params *p, char *err,
		     size_t err_size);

/* Unmap, unpin and close everything; removes the directories it made. Idempotent. */
void hook_maps_destroy(struct hook_maps *m);

/*
 * Write N records into the aggregate map (keys[i] -> values[i]) with
 * BPF_MAP_UPDATE_BATCH, BATCH records per system call at most.
 */
int hook_maps_totals_update(struct hook_maps *m, const struct ls_hook_flow_key *keys,
			    const struct hook_flow_total *values, uint32_t n);

/* Remove N keys from the aggregate map (BPF_MAP_DELETE_BATCH); absent keys are ignored. */
int hook_maps_totals_delete(struct hook_maps *m, const struct ls_hook_flow_key *keys, uint32_t n);

#endif /* LONGSPAN_HOOK_MAPS_H */
