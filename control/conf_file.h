/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LONGSPAN_CONF_FILE_H
#define LONGSPAN_CONF_FILE_H

/*
 * Bounded reading of a configuration file, shared by every reader of one
 * (longspand's config, longspan-sim's INI and HPCC config.txt,
 * longspan-hostem's INI).
 *
 * A reader on longspand's control thread must never wait, and no reader
 * should load an unbounded amount of memory: only a regular file of at most
 * MAX bytes is read. stat() first so that a device is never opened;
 * O_NONBLOCK so that a FIFO swapped in meanwhile cannot block the open;
 * fstat() of the open file decides. The messages are the same for every
 * tool:
 *
 *   FILE: not a regular file (a FIFO); a config must be a regular file
 *   FILE: N bytes: larger than the M-byte limit of a config file
 *   FILE: cannot open: REASON
 */

#include <stddef.h>
#include <stdio.h>

/* The limit of every config file: one at every limit of longspand's key
 * table (8 ports with 64 neighbours, 32 peers with 64 IPv6 prefixes) is
 * about 150 KB. */
#define CONF_FILE_MAX_BYTES (1u << 20)

/*
 * Read PATH, a regular file of at most MAX bytes, into a new NUL-terminated
 * buffer: *text (free() it) and *size (without the NUL). Returns 0, or
 * -EINVAL for anything but a regular file, -EFBIG when larger than MAX,
 * -ENOMEM, or -errno of open/read, each after one line on err (if not NULL).
 */
int conf_file_read(const char *path, size_t max, char **text, size_t *size, FILE *err);

/*
 * Read at most MAX bytes of what an open stream holds into a new
 * NUL-terminated buffer (more is -EFBIG). Reading may block (a pipe): the
 * caller chose the stream. NAME names it in messages.
 */
int conf_file_read_stream(FILE *in, const char *name, size_t max, char **text, size_t *size,
			  FILE *err);

/* The -EFBIG message for SIZE bytes of NAME against MAX, for a buffer given
 * by a caller (config_load_buffer()). Returns -EFBIG. */
int conf_file_too_big(const char *name, size_t size, size_t max, FILE *err);

#endif /* LONGSPAN_CONF_FILE_H */
