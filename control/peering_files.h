/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LONGSPAN_PEERING_FILES_H
#define LONGSPAN_PEERING_FILES_H

/* The credential files of [peering] (docs/peering.md, "Certificates"). No EAL. */

#include <stdio.h>

#include "config.h"
#include "peer_tls.h"

/* The credential paths of [peering] PG. */
void peering_files(const struct ls_peering_conf *pg, struct peer_tls_files *f);

/*
 * --check-config: load the credential files as the daemon would, so a bad
 * key or certificate is a config error naming the file. 0 or -EINVAL.
 */
int peering_check_files(const struct ls_config *cfg, FILE *err);

#endif /* LONGSPAN_PEERING_FILES_H */
