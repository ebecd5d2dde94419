/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LONGSPAN_HOOK_ABI_H
#define LONGSPAN_HOOK_ABI_H

/*
 * The hook ABI: what a hook program (eBPF, run by DPDK's rte_bpf JIT in the
 * workers) sees and may touch. Shared, byte for byte, by the gateway (gcc)
 * and by hook objects (clang -target bpf -ffreestanding), so it holds
 * fixed-width types only and includes no DPDK or libc header beyond the
 * freestanding <stddef.h> and <stdint.h>. docs/telemetry.md describes it.
 *
 * A hook is one function in its own ELF section, called with a pointer to a
 * struct ls_hook_ctx (RTE_BPF_ARG_PTR: a flat buffer, so the context holds
 * values, never pointers). It returns 0 when it accounted the packet and
 * anything else when it could not (the gateway counts those as the hook's
 * errors). It may write two kinds of per-lcore memory, both bound as
 * rte_bpf external variables (RTE_BPF_XTYPE_VAR) by name:
 *
 *   ls_hook_flows     struct ls_hook_flow_rec[flow_slots]: per-flow records
 *   ls_hook_counters  uint64_t[counters]: free-form counters
 *
 * Both are the mmap'ed values of BPF ARRAY maps that the gateway creates,
 * pins under /sys/fs/bpf and reads from its control thread. The object says
 * how many of each it needs, and which ABI it was built against, with
 * LS_HOOK_DECLARE() (a struct ls_hook_abi_note in section longspan_abi);
 * the loader refuses an object without one, or with another version or
 * context size.
 *
 * Versioning: any change to the context, the note or the record layout
 * bumps LS_HOOK_ABI_VERSION; context fields are only ever appended. Version
 * 2 reordered the flow record (same fields, hot ones first) and passes the
 * flow table slot at tx points too, where the hook may index by it.
 * Version 3 (same layout) makes the context read-only to hooks: the loader
 * refuses an object that stores through its context pointer or a copy of
 * it, because the gateway writes a context's per-worker fields once, its
 * per-burst fields once per burst, and a tx context from the rx one, and
 * every hook of a point is handed the same context.
 */

#include <stddef.h>
#include <stdint.h>

#define LS_HOOK_ABI_VERSION 3 /* 3: the context is read-only to hooks (docs/telemetry.md) */
#define LS_HOOK_ABI_MAGIC 0x4b48534cu /* "LSHK" in a little-endian word */
#define LS_HOOK_ABI_SECTION "longspan_abi"

/* External variables the ABI offers (rte_bpf xsym names). */
#define LS_HOOK_XSYM_FLOWS "ls_hook_flows"
#define LS_HOOK_XSYM_COUNTERS "ls_hook_counters"

/* Limits the loader enforces on what an object declares. */
#define LS_HOOK_FLOW_SLOTS_MAX (1u << 20)
#define LS_HOOK_COUNTERS_MAX 4096u

/*
 * Where a hook runs. Every RoCE packet that passes the flow lookup is seen
 * once at the rx point of its direction and once at the tx point of the same
 * direction: at tx when it leaves, or when it is dropped between the two
 * points (then verdict has no LS_HOOK_V_FORWARDED and drop_reason says why).
 */
enum ls_hook_point {
	LS_HOOK_DC_RX = 0, /* from a DC port, after parse, route and flow lookup */
	LS_HOOK_WAN_RX = 1, /* from a WAN port, after decap, inner parse and flow lookup */
	LS_HOOK_WAN_TX = 2, /* toward a WAN port: traffic manager dequeue, before encap */
	LS_HOOK_DC_TX = 3, /* toward the DC port: after mechanism C, at transmit */
	LS_HOOK_POINT_MAX
};

/* Equal to enum flow_dir of dataplane/flow.h (dataplane/hook.h asserts it). */
enum ls_hook_dir {
	LS_HOOK_DIR_DC_TO_WAN = 0,
	LS_HOOK_DIR_WAN_TO_DC = 1,
};

#define LS_HOOK_FAMILY_IP4 4
#define LS_HOOK_FAMILY_IP6 6

/* ctx.flags */
#define LS_HOOK_F_ROCE 0x01 /* a BTH was parsed: opcode, dest_qp, psn valid */
#define LS_HOOK_F_AETH 0x02 /* an AETH was parsed: aeth_syndrome, aeth_msn valid */

/* ctx.verdict: what the gateway did with the packet (tx points; 0 at rx). */
#define LS_HOOK_V_FORWARDED 0x01 /* transmitted */
#define LS_HOOK_V_MARKED 0x02 /* the gateway wrote CE (traffic manager marker) */
#define LS_HOOK_V_CNP_GENERATED 0x04 /* the gateway sent a CNP for it (mechanism A) */
#define LS_HOOK_V_HELD 0x08 /* waited in a mechanism C hold queue */

#define LS_HOOK_NO_PEER 0xffffu
#define LS_HOOK_NO_SLOT 0xffffffffu

/* IB spec vol. 1, 9.2 (BTH opcodes) and 9.3.5 (AETH syndrome bits 6:5). */
#define LS_HOOK_OP_RC_ACK 0x11
#define LS_HOOK_OP_RC_ATOMIC_ACK 0x12
#define LS_HOOK_OP_CNP 0x81
#define LS_HOOK_AETH_TYPE_MASK 0x60
#define LS_HOOK_AETH_RNR_NAK 0x20
#define LS_HOOK_AETH_NAK 0x60

/*
 * The flow key, in the same bytes at the same relative offsets in the
 * context (from ctx.hash) and in a flow record (from its start), so a hook
 * compares six 8-byte words. IPv4 addresses use the first 4 bytes of src and
 * dst; the gateway zeroes the other 12.
 *
 * X(type, name, dimension, description): one table for the struct
 * definitions, the BTF that the gateway builds for bpftool, and the docs.
 */
#define LS_HOOK_KEY_FIELDS(X)                                                                     \
	X(uint32_t, hash, , "flow hash of the key (never 0 for a used slot)")                     \
	X(uint32_t, dest_qp, , "BTH destination QP")                                              \
	X(uint16_t, sport, , "inner UDP source port")                                             \
	X(uint16_t, dport, , "inner UDP destination port (4791)")                                 \
	X(uint8_t, family, , "4 or 6")                                                            \
	X(uint8_t, proto, , "inner IP protocol (17)")                                             \
	X(uint8_t, direction, , "0 DC to WAN, 1 WAN to DC")                                       \
	X(uint8_t, key_pad, , "zero")                                                             \
	X(uint8_t, src, [16], "inner source address")                                             \
	X(uint8_t, dst, [16], "inner destination address")

#define LS_HOOK_KEY_BYTES 48

#define LS_HOOK_FIELD_DECL(type, name, dim, desc) type name dim;

/* The key on its own: the key of the gateway's aggregate flow map. */
struct ls_hook_flow_key {
	LS_HOOK_KEY_FIELDS(LS_HOOK_FIELD_DECL)
};

/*
 * What the gateway hands a hook for each packet at each point. 128 bytes,
 * 8-byte aligned, every field at a fixed offset (asserted below). Ports and
 * QPs are host order; addresses are network order bytes. Read-only to the
 * hook (ABI version 3). Who writes what: abi_version, ctx_size, hook_point,
 * lcore, direction and the pads and reserved words are written once, when
 * the worker starts; tsc and now_ns once per burst; at the rx points
 * verdict, drop_reason and sojourn_ns are always 0; the rest per packet.
 */
struct ls_hook_ctx {
	uint16_t abi_version; /* LS_HOOK_ABI_VERSION */
	uint16_t ctx_size; /* sizeof(struct ls_hook_ctx) */
	uint8_t hook_point; /* enum ls_hook_point */
	uint8_t flags; /* LS_HOOK_F_* */
	uint16_t lcore; /* DPDK lcore id of the worker */
	uint16_t port; /* config port index: received on (rx) or leaving by (tx) */
	uint16_t peer; /* config peer index, LS_HOOK_NO_PEER when none */
	uint16_t frame_bytes; /* Ethernet frame at this point (outer frame on a WAN port) */
	uint16_t ip_bytes; /* inner IP packet, header included */
	uint64_t tsc; /* TSC of the worker's burst clock */
	uint64_t now_ns; /* ns of the same clock (the gateway's flow timestamps) */
	/* Inner headers: the flow key first (LS_HOOK_KEY_FIELDS). */
	uint32_t hash;
	uint32_t dest_qp;
	uint16_t sport;
	uint16_t dport;
	uint8_t family;
	uint8_t proto;
	uint8_t direction;
	uint8_t key_pad;
	uint8_t src[16];
	uint8_t dst[16];
	/* More inner headers. */
	uint8_t dscp; /* inner DSCP */
	uint8_t ecn; /* inner ECN at this point: as received (rx), as sent (tx) */
	uint8_t bth_opcode;
	uint8_t aeth_syndrome;
	uint32_t psn; /* BTH PSN */
	uint32_t aeth_msn; /* AETH MSN */
	uint8_t verdict; /* LS_HOOK_V_* (tx points) */
	uint8_t verdict_pad;
	uint16_t drop_reason; /* enum ls_drop_reason, 0 = not dropped */
	uint32_t flow_slot; /* slot in the worker's flow table, LS_HOOK_NO_SLOT when none;
			       one live flow's at a time, the same at its rx and tx points */
	uint32_t ctx_pad;
	uint64_t sojourn_ns; /* tx points: time queued in the gateway (TM or hold queue) */
	uint64_t reserved[2]; /* zero */
};

/*
 * One flow (one QP direction) in the per-lcore flow map, written only by the
 * hook of that lcore; the control thread and bpftool read it concurrently.
 * Laid out by how often a packet touches a field (ABI version 2): line 0
 * holds the key and the packet and byte counts, line 1 the rest of what
 * every packet writes at either point (so a packet's rx and tx points touch
 * the same two lines), line 2 the sojourn histogram (one bucket per packet
 * sent), line 3 what only exceptions write (PSN gaps, NAKs, CNPs, drops,
 * marks) and first_ns.
 *
 * Sojourn histogram: bucket 0 counts sojourns below 1024 ns, bucket k
 * (1..14) those in [2^(9+k), 2^(10+k)) ns, bucket 15 those of 2^24 ns
 * (16.8 ms) and more. The u32 counters wrap; readers take differences.
 */
#define LS_HOOK_SOJOURN_BUCKETS 16
#define LS_HOOK_SOJOURN_SHIFT 10 /* bucket 0 ends at 2^10 ns */

#define LS_HOOK_FLOW_FIELDS(X)                                                                    \
	LS_HOOK_KEY_FIELDS(X)                                                                     \
	X(uint64_t, pkts, , "packets received (rx points)")                                      \
	X(uint64_t, bytes, , "inner IP bytes received")                                          \
	X(uint64_t, last_ns, , "last packet seen, gateway ns")                                    \
	X(uint64_t, ect_pkts, , "packets received ECT(0) or ECT(1)")                              \
	X(uint64_t, ce_pkts, , "packets received CE")                                             \
	X(uint64_t, tx_pkts, , "packets transmitted (tx points)")                                 \
	X(uint64_t, tx_bytes, , "inner IP bytes transmitted")                                     \
	X(uint64_t, sojourn_sum_ns, , "sum of the sojourn times of transmitted packets")          \
	X(uint32_t, next_psn, , "next expected data PSN")                                         \
	X(uint32_t, psn_ooo, , "data PSN other than the expected one")                            \
	X(uint16_t, port, , "config port index of the last packet received")                     \
	X(uint16_t, peer, , "config peer index, 65535 when none")                                 \
	X(uint8_t, dscp, , "DSCP of the last packet received")                                    \
	X(uint8_t, psn_valid, , "1 once next_psn holds a PSN")                                    \
	X(uint8_t, rec_pad, [2], "zero")                                                          \
	X(uint32_t, sojourn_hist, [LS_HOOK_SOJOURN_BUCKETS], "log2 sojourn histogram")            \
	X(uint64_t, first_ns, , "first packet seen, gateway ns")                                  \
	X(uint32_t, psn_gaps, , "data PSN ahead of the expected one (loss upstream)")             \
	X(uint32_t, retrans, , "data PSN behind the expected one (retransmission)")              \
	X(uint32_t, naks, , "NAKs (AETH syndrome 011xxxxx)")                                      \
	X(uint32_t, cnp_seen, , "CNPs received from hosts")                                       \
	X(uint32_t, marked, , "packets the gateway marked CE")                                    \
	X(uint32_t, cnp_generated, , "CNPs the gateway generated for the flow")                  \
	X(uint32_t, held, , "packets held by mechanism C")                                        \
	X(uint32_t, tx_drops, , "packets dropped between the rx and tx points")                   \
	X(uint32_t, psn_skipped, , "PSNs missing in the gaps (sum of gap sizes)")                 \
	X(uint32_t, rnr_naks, , "RNR NAKs (AETH syndrome 001xxxxx)")                              \
	X(uint32_t, rec_reserved, [4], "zero")

struct ls_hook_flow_rec {
	LS_HOOK_FLOW_FIELDS(LS_HOOK_FIELD_DECL)
};

/* Declared by every hook object (LS_HOOK_DECLARE), read by the loader. */
struct ls_hook_abi_note {
	uint32_t magic; /* LS_HOOK_ABI_MAGIC */
	uint16_t abi_version; /* LS_HOOK_ABI_VERSION the object was built with */
	uint16_t ctx_size; /* sizeof(struct ls_hook_ctx) the object was built with */
	uint32_t flow_slots; /* entries of ls_hook_flows (a power of two), 0 = not used */
	uint16_t flow_rec_size; /* sizeof(struct ls_hook_flow_rec), 0 when flow_slots is 0 */
	uint16_t counters; /* entries of ls_hook_counters, 0 = not used */
	uint32_t flow_idle_ms; /* the hook reclaims a slot idle this long */
	uint32_t note_reserved; /* zero */
};

/*
 * Layout: C11 _Static_assert rather than static_assert, because hook
 * objects are built freestanding, without <assert.h>.
 */
#define LS_HOOK_AT(type, field, off) \
	_Static_assert(offsetof(struct type, field) == (off), #type "." #field " at " #off)
LS_HOOK_AT(ls_hook_ctx, abi_version, 0);
LS_HOOK_AT(ls_hook_ctx, ctx_size, 2);
LS_HOOK_AT(ls_hook_ctx, hook_point, 4);
LS_HOOK_AT(ls_hook_ctx, flags, 5);
LS_HOOK_AT(ls_hook_ctx, lcore, 6);
LS_HOOK_AT(ls_hook_ctx, port, 8);
LS_HOOK_AT(ls_hook_ctx, peer, 10);
LS_HOOK_AT(ls_hook_ctx, frame_bytes, 12);
LS_HOOK_AT(ls_hook_ctx, ip_bytes, 14);
LS_HOOK_AT(ls_hook_ctx, tsc, 16);
LS_HOOK_AT(ls_hook_ctx, now_ns, 24);
LS_HOOK_AT(ls_hook_ctx, hash, 32);
LS_HOOK_AT(ls_hook_ctx, dest_qp, 36);
LS_HOOK_AT(ls_hook_ctx, sport, 40);
LS_HOOK_AT(ls_hook_ctx, dport, 42);
LS_HOOK_AT(ls_hook_ctx, family, 44);
LS_HOOK_AT(ls_hook_ctx, proto, 45);
LS_HOOK_AT(ls_hook_ctx, direction, 46);
LS_HOOK_AT(ls_hook_ctx, key_pad, 47);
LS_HOOK_AT(ls_hook_ctx, src, 48);
LS_HOOK_AT(ls_hook_ctx, dst, 64);
LS_HOOK_AT(ls_hook_ctx, dscp, 80);
LS_HOOK_AT(ls_hook_ctx, ecn, 81);
LS_HOOK_AT(ls_hook_ctx, bth_opcode, 82);
LS_HOOK_AT(ls_hook_ctx, aeth_syndrome, 83);
LS_HOOK_AT(ls_hook_ctx, psn, 84);
LS_HOOK_AT(ls_hook_ctx, aeth_msn, 88);
LS_HOOK_AT(ls_hook_ctx, verdict, 92);
LS_HOOK_AT(ls_hook_ctx, verdict_pad, 93);
LS_HOOK_AT(ls_hook_ctx, drop_reason, 94);
LS_HOOK_AT(ls_hook_ctx, flow_slot, 96);
LS_HOOK_AT(ls_hook_ctx, ctx_pad, 100);
LS_HOOK_AT(ls_hook_ctx, sojourn_ns, 104);
LS_HOOK_AT(ls_hook_ctx, reserved, 112);
_Static_assert(sizeof(struct ls_hook_ctx) == 128, "hook context is 128 bytes");
_Static_assert(_Alignof(struct ls_hook_ctx) == 8, "hook context is 8-byte aligned");

/* The key block of the context is the record's first LS_HOOK_KEY_BYTES bytes. */
#define LS_HOOK_KEY_AT(field)                                                                     \
	_Static_assert(offsetof(struct ls_hook_ctx, field) - offsetof(struct ls_hook_ctx, hash) == \
			       offsetof(struct ls_hook_flow_rec, field),                           \
		       "key field " #field " at the same place in context and record")
LS_HOOK_KEY_AT(dest_qp);
LS_HOOK_KEY_AT(sport);
LS_HOOK_KEY_AT(dport);
LS_HOOK_KEY_AT(family);
LS_HOOK_KEY_AT(proto);
LS_HOOK_KEY_AT(direction);
LS_HOOK_KEY_AT(key_pad);
LS_HOOK_KEY_AT(src);
LS_HOOK_KEY_AT(dst);
_Static_assert(offsetof(struct ls_hook_flow_rec, pkts) == LS_HOOK_KEY_BYTES, "key is 48 bytes");
_Static_assert(sizeof(struct ls_hook_flow_key) == LS_HOOK_KEY_BYTES, "key is 48 bytes");
_Static_assert(offsetof(struct ls_hook_ctx, hash) % 8 == 0, "context key block is 8-aligned");

LS_HOOK_AT(ls_hook_flow_rec, hash, 0);
LS_HOOK_AT(ls_hook_flow_rec, pkts, 48);
LS_HOOK_AT(ls_hook_flow_rec, bytes, 56);
LS_HOOK_AT(ls_hook_flow_rec, last_ns, 64);
LS_HOOK_AT(ls_hook_flow_rec, ect_pkts, 72);
LS_HOOK_AT(ls_hook_flow_rec, ce_pkts, 80);
LS_HOOK_AT(ls_hook_flow_rec, tx_pkts, 88);
LS_HOOK_AT(ls_hook_flow_rec, tx_bytes, 96);
LS_HOOK_AT(ls_hook_flow_rec, sojourn_sum_ns, 104);
LS_HOOK_AT(ls_hook_flow_rec, next_psn, 112);
LS_HOOK_AT(ls_hook_flow_rec, psn_ooo, 116);
LS_HOOK_AT(ls_hook_flow_rec, port, 120);
LS_HOOK_AT(ls_hook_flow_rec, peer, 122);
LS_HOOK_AT(ls_hook_flow_rec, dscp, 124);
LS_HOOK_AT(ls_hook_flow_rec, psn_valid, 125);
LS_HOOK_AT(ls_hook_flow_rec, rec_pad, 126);
LS_HOOK_AT(ls_hook_flow_rec, sojourn_hist, 128);
LS_HOOK_AT(ls_hook_flow_rec, first_ns, 192);
LS_HOOK_AT(ls_hook_flow_rec, psn_gaps, 200);
LS_HOOK_AT(ls_hook_flow_rec, retrans, 204);
LS_HOOK_AT(ls_hook_flow_rec, naks, 208);
LS_HOOK_AT(ls_hook_flow_rec, cnp_seen, 212);
LS_HOOK_AT(ls_hook_flow_rec, marked, 216);
LS_HOOK_AT(ls_hook_flow_rec, cnp_generated, 220);
LS_HOOK_AT(ls_hook_flow_rec, held, 224);
LS_HOOK_AT(ls_hook_flow_rec, tx_drops, 228);
LS_HOOK_AT(ls_hook_flow_rec, psn_skipped, 232);
LS_HOOK_AT(ls_hook_flow_rec, rnr_naks, 236);
LS_HOOK_AT(ls_hook_flow_rec, rec_reserved, 240);
/* Lines 0-2: what a packet without exceptions writes (the gateway prefetches them). */
#define LS_HOOK_REC_HOT_BYTES 192
_Static_assert(offsetof(struct ls_hook_flow_rec, first_ns) == LS_HOOK_REC_HOT_BYTES,
	       "only exceptions and first_ns after the hot lines");
_Static_assert(sizeof(struct ls_hook_flow_rec) == 256, "flow record is four cache lines");

LS_HOOK_AT(ls_hook_abi_note, magic, 0);
LS_HOOK_AT(ls_hook_abi_note, abi_version, 4);
LS_HOOK_AT(ls_hook_abi_note, ctx_size, 6);
LS_HOOK_AT(ls_hook_abi_note, flow_slots, 8);
LS_HOOK_AT(ls_hook_abi_note, flow_rec_size, 12);
LS_HOOK_AT(ls_hook_abi_note, counters, 14);
LS_HOOK_AT(ls_hook_abi_note, flow_idle_ms, 16);
_Static_assert(sizeof(struct ls_hook_abi_note) == 24, "ABI note is 24 bytes");

/*
 * In a hook object: declare the ABI and the memory the hook uses. SLOTS is
 * the number of flow records (a power of two, or 0), COUNTERS the number of
 * uint64_t counters (or 0), IDLE_MS how long a flow slot must be idle before
 * the hook may give it to another flow.
 */
#define LS_HOOK_DECLARE(slots, counters_, idle_ms)                                                \
	__attribute__((section(LS_HOOK_ABI_SECTION), used)) const struct ls_hook_abi_note          \
		ls_hook_abi = {                                                                   \
			.magic = LS_HOOK_ABI_MAGIC,                                               \
			.abi_version = LS_HOOK_ABI_VERSION,                                       \
			.ctx_size = sizeof(struct ls_hook_ctx),                                   \
			.flow_slots = (slots),                                                    \
			.flow_rec_size = (slots) ? sizeof(struct ls_hook_flow_rec) : 0,           \
			.counters = (counters_),                                                  \
			.flow_idle_ms = (idle_ms),                                                \
	}

#ifdef __bpf__
/*
 * Helpers for hook sources, working around rte_bpf 22.11's verifier
 * (docs/telemetry.md, "Writing a hook"):
 *
 * LS_HOOK_SEC(name): put the hook function in ELF section NAME.
 * LS_HOOK_INLINE: every function but the hook itself (no BPF-to-BPF calls).
 * ls_hook_ptr_add(p, off): p + off with the pointer as the destination
 *   register; clang may otherwise emit `off += p`, whose result the 22.11
 *   verifier no longer treats as a pointer.
 * ls_hook_index(v, mask): v &= mask, with v hidden from the optimiser on
 *   both sides, for an index into an array of records. The 22.11 verifier
 *   loses the range of a value after a right shift, and bounds `x & m` by
 *   m rounded up to 2^n - 1; so mask the index itself with a 2^n - 1 mask
 *   before scaling it, and keep clang from turning `(v & m) * size` into
 *   `(v * size) & (m * size)`, whose bound would pass the array's end.
 * ls_hook_barrier(): keep stores on either side in program order (a slot's
 *   key is complete before its hash says the slot is taken).
 */
#define LS_HOOK_SEC(name) __attribute__((section(name), used))
#define LS_HOOK_INLINE static inline __attribute__((always_inline))
#define ls_hook_ptr_add(p, off) __asm__("%0 += %1" : "+r"(p) : "r"((uint64_t)(off)))
#define ls_hook_opaque(v) __asm__("" : "+r"(v))
#define ls_hook_index(v, mask)                                                                    \
	do {                                                                                      \
		ls_hook_opaque(v);                                                                \
		(v) &= (mask);                                                                    \
		ls_hook_opaque(v);                                                                \
	} while (0)
#define ls_hook_barrier() __asm__ __volatile__("" ::: "memory")
#endif /* __bpf__ */

#endif /* LONGSPAN_HOOK_ABI_H */
