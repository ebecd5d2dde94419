/* SPDX-License-Identifier: BSD-3-Clause */
/* The credential files of [peering], as the daemon loads them (peering.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "peering_files.h"

void
peering_files(const struct ls_peering_conf *pg, struct peer_tls_files *f)
{
	memset(f, 0, sizeof(*f));
	snprintf(f->ca, sizeof(f->ca), "%s", pg->ca);
	snprintf(f->cert, sizeof(f->cert), "%s", pg->cert);
	snprintf(f->key, sizeof(f->key), "%s", pg->key);
	snprintf(f->crl, sizeof(f->crl), "%s", pg->crl);
}

int
peering_check_files(const struct ls_config *cfg, FILE *err)
{
	struct peer_tls_files files;
	struct peer_tls_ctx tls;
	char msg[256];

	if (!cfg->peering.enabled)
		return 0;
	peering_files(&cfg->peering, &files);
	if (peer_tls_ctx_init(&tls, &files, msg, sizeof(msg)) != 0) {
		fprintf(err, "%s: %s\n", cfg->path, msg);
		return -EINVAL;
	}
	peer_tls_ctx_free(&tls);
	return 0;
}
