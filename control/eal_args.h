/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LONGSPAN_EAL_ARGS_H
#define LONGSPAN_EAL_ARGS_H

/*
 * The EAL command line of longspand, built from the config's [eal] section
 * and each port's device, merged with the EAL arguments given on the real
 * command line. Plain libc: it runs before rte_eal_init().
 *
 * Precedence: an option group given on the command line wins and the
 * config's value for it is left out:
 *   cores   -l, -c, --lcores           (config: lcores)
 *   main    --main-lcore               (config: main_lcore)
 *   memory  -m, --socket-mem           (config: memory)
 *   prefix  --file-prefix              (config: file_prefix)
 *   flags   --in-memory, --no-pci, --no-huge (config: the bools)
 * Devices add up: each port's dev becomes `-a BDF[,args]` (PCI) or
 * `--vdev=STRING`, unless the command line already names the same device.
 * [eal] extra comes after the config's options (dropping any option of a
 * group the command line gives), the command line's own arguments last.
 */

#include <stddef.h>
#include <stdio.h>

#include "config.h"

#define EAL_ARGS_MAX 160 /* argv entries, besides the NULL terminator */
#define EAL_ARGS_STORAGE 8192 /* bytes for the strings the builder creates */

/* An argv for rte_eal_init(). Self-contained: argv points into storage or
 * into the caller's cli_argv, which must outlive it. */
struct eal_args {
	int argc;
	char *argv[EAL_ARGS_MAX + 1]; /* argv[argc] == NULL */
	size_t storage_used;
	char storage[EAL_ARGS_STORAGE];
};

/*
 * Build OUT from PROG (argv[0]), CFG and the EAL part of the command line
 * (cli_argv[0..cli_argc-1], without the program name). Returns 0, -E2BIG
 * when the result does not fit struct eal_args, or -EINVAL for an EAL
 * option without its value; a message goes to err (if not NULL).
 */
int eal_args_build(struct eal_args *out, const char *prog, const struct ls_config *cfg,
		   int cli_argc, char *const cli_argv[], FILE *err);

enum eal_args_dev_kind {
	EAL_ARGS_DEV_INVALID = 0,
	EAL_ARGS_DEV_PCI, /* [DOMAIN:]BUS:DEV.FN[,devargs] */
	EAL_ARGS_DEV_VDEV, /* net_NAME[,devargs] */
};

/* What kind of device string DEV is. */
enum eal_args_dev_kind eal_args_dev_kind(const char *dev);

/*
 * The device name EAL registers for DEV: the vdev name before the first
 * comma ("net_memif0"), or the PCI address with its domain
 * ("0000:03:00.0"), as rte_eth_dev_get_port_by_name() expects. Returns the
 * length, or -EINVAL (bad device) / -ENOSPC.
 */
int eal_args_dev_name(const char *dev, char *name, size_t size);

/*
 * The [eal] key that EAL option OPT (one argv token, "--file-prefix=x" or
 * "-l") overlaps, or NULL: lets config validation reject an `extra` that
 * repeats a dedicated key.
 */
const char *eal_args_option_key(const char *opt);

#endif /* LONGSPAN_EAL_ARGS_H */
