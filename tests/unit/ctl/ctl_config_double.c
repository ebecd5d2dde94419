/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Stand-ins for config_dump()/config_port_index(), linked only while
 * control/config.c is not part of the build (see meson.build here).
 */
#include <string.h>

#include "control/config.h"

void
config_dump(const struct ls_config *cfg, FILE *out)
{
	fprintf(out, "[gateway]\nname = %s\nsocket = %s\n", cfg->gw.name, cfg->gw.socket_path);
	for (unsigned int i = 0; i < cfg->n_ports; i++)
		fprintf(out, "\n[port %s]\ndev = %s\n", cfg->ports[i].name, cfg->ports[i].dev);
}

int
config_port_index(const struct ls_config *cfg, const char *name)
{
	for (unsigned int i = 0; i < cfg->n_ports; i++)
		if (strcmp(cfg->ports[i].name, name) == 0)
			return (int)i;
	return -1;
}
