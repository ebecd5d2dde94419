/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Fuzz target: the credit GENEVE option codec (dataplane/credit_opt.c) and
 * the credit state machine it feeds (congestion/credit.c), as a gateway's
 * receive path chains them for packets from a peer.
 *
 * Input: a sequence of records, each one byte of length L (the option's
 * bytes, header included) then L bytes of option, then 2 bytes of "inner
 * bytes" (little-endian) the packet carried. Each option is copied into a
 * heap buffer of exactly its size, so ASan reports any read past it.
 * Invariants: a parsed option writes back to the same bytes; the sender's
 * limit never goes back within an epoch and only a grant for its epoch
 * moves it; the receiver's grant is always its largest report plus the
 * room left, never above report + buffer; drained buffer never goes
 * negative.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "congestion/credit.h"
#include "dataplane/credit_opt.h"
#include "fuzz.h"

#define FUZZ_BUFFER 100000

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct credit_params p = { .buffer_bytes = FUZZ_BUFFER, .update_bytes = 1000,
		.refresh_ticks = 10 };
	struct credit_config c;
	struct credit_tx tx;
	struct credit_rx rx;
	size_t off = 0;
	uint64_t now = 0;

	FUZZ_CHECK(credit_config_init(&c, &p) == 0);
	credit_tx_init(&tx, 7);
	credit_rx_init(&rx);
	while (off < size) {
		uint32_t len = data[off++];
		struct credit_opt o, back;
		uint8_t *opt, out[CREDIT_OPT_BYTES];
		uint32_t inner = 0;
		uint64_t limit_before = tx.limit, lim;
		bool granted_before = tx.granted;
		uint32_t ep;

		if (len > size - off)
			len = (uint32_t)(size - off);
		opt = malloc(len ? len : 1);
		if (opt == NULL)
			return 0;
		memcpy(opt, data + off, len);
		off += len;
		if (off + 2 <= size) {
			inner = (uint32_t)data[off] | (uint32_t)data[off + 1] << 8;
			off += 2;
		}
		now += 3;
		if (len >= 4 && credit_opt_parse(opt, len, &o) == CREDIT_OPT_OK) {
			FUZZ_CHECK(len == CREDIT_OPT_BYTES);
			FUZZ_CHECK(o.priority <= 7);
			FUZZ_CHECK((o.flags & (CREDIT_OPT_F_GRANT | CREDIT_OPT_F_REPORT)) != 0);
			credit_opt_write(out, &o);
			/*
			 * The same bytes back, but class, type and the R bits, which
			 * the caller matched before (geneve.c) and the parser ignores.
			 */
			FUZZ_CHECK((out[3] & 0x1f) == (opt[3] & 0x1f));
			FUZZ_CHECK(memcmp(out + 4, opt + 4, CREDIT_OPT_DATA_BYTES) == 0);
			FUZZ_CHECK(credit_opt_parse(out, sizeof(out), &back) == CREDIT_OPT_OK);
			FUZZ_CHECK(back.priority == o.priority && back.flags == o.flags &&
				   back.grant_epoch == o.grant_epoch && back.grant_limit == o.grant_limit &&
				   back.report_epoch == o.report_epoch && back.report == o.report);

			/* As wan_credit_rx() applies it. */
			if (o.flags & CREDIT_OPT_F_GRANT) {
				bool applied = credit_tx_grant(&tx, o.grant_epoch, o.grant_limit);

				FUZZ_CHECK(applied == (o.grant_epoch == tx.epoch &&
						       (!granted_before ||
							(int64_t)(o.grant_limit - limit_before) > 0)));
				FUZZ_CHECK(applied ? tx.limit == o.grant_limit : tx.limit == limit_before);
			}
			if ((o.flags & CREDIT_OPT_F_CHARGED) && inner != 0)
				credit_rx_arrive(&c, &rx, inner);
			if (o.flags & CREDIT_OPT_F_REPORT)
				credit_rx_report(&rx, o.report_epoch, o.report,
						 (o.flags & CREDIT_OPT_F_WAIT) != 0);
		}
		/* Some of the buffer leaves toward the DC. */
		credit_rx_drain(&rx, inner / 2);
		if (credit_rx_advertise(&c, &rx, now, &lim, &ep)) {
			FUZZ_CHECK(ep == rx.sender_epoch);
			FUZZ_CHECK(lim - rx.reported <= FUZZ_BUFFER);
			FUZZ_CHECK(lim - rx.reported ==
				   (rx.occupancy_bytes < FUZZ_BUFFER ? FUZZ_BUFFER - rx.occupancy_bytes : 0));
		}
		/* The sender never has more credit than the last limit allows. */
		FUZZ_CHECK(credit_tx_available(&tx) == 0 || tx.granted);
		free(opt);
	}
	return 0;
}
