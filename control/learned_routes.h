/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LONGSPAN_LEARNED_ROUTES_H
#define LONGSPAN_LEARNED_ROUTES_H

/*
 * Routes learned from peering sessions and accepted against the config
 * (control/peering.c writes them; runtime_dp_build() puts them into the C
 * route tables and control/p4_tables.c into the P4 program's; all on the
 * control thread). Keyed by peer name, so a reload that reorders peers
 * keeps them with their peer.
 */

#include <string.h>

#include "conf_addr.h"
#include "config.h"

struct runtime_learned_peer {
	char name[LS_NAME_MAX];
	unsigned int n;
	struct conf_prefix p[LS_MAX_PREFIXES];
};

struct runtime_learned {
	unsigned int n_peers;
	struct runtime_learned_peer peers[LS_MAX_PEERS];
};

/* The routes LEARNED (NULL: none) holds for the peer NAME, or NULL. */
static inline const struct runtime_learned_peer *
runtime_learned_find(const struct runtime_learned *learned, const char *name)
{
	for (unsigned int i = 0; learned != NULL && i < learned->n_peers; i++)
		if (strcmp(learned->peers[i].name, name) == 0)
			return &learned->peers[i];
	return NULL;
}

#endif /* LONGSPAN_LEARNED_ROUTES_H */
