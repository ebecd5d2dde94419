/* SPDX-License-Identifier: BSD-3-Clause */
/* Bounded reading of configuration files (conf_file.h). */

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "conf_file.h"

/* "a directory", ... for a file that is not a regular one. */
static const char *
conf_file_kind(mode_t mode)
{
	if (S_ISDIR(mode))
		return "a directory";
	if (S_ISFIFO(mode))
		return "a FIFO";
	if (S_ISCHR(mode))
		return "a character device";
	if (S_ISBLK(mode))
		return "a block device";
	if (S_ISSOCK(mode))
		return "a socket";
	return "not a file";
}

static int
conf_file_not_regular(const char *name, mode_t mode, FILE *err)
{
	if (err != NULL)
		fprintf(err, "%s: not a regular file (%s); a config must be a regular file\n", name,
			conf_file_kind(mode));
	return -EINVAL;
}

int
conf_file_too_big(const char *name, size_t size, size_t max, FILE *err)
{
	if (err != NULL)
		fprintf(err, "%s: %zu bytes: larger than the %zu-byte limit of a config file\n", name,
			size, max);
	return -EFBIG;
}

static char *
conf_file_alloc(const char *name, size_t max, FILE *err)
{
	/* One byte more than allowed tells a file at the limit from a larger
	 * one, and one more for the NUL. */
	char *text = malloc(max + 2);

	if (text == NULL && err != NULL)
		fprintf(err, "%s: out of memory\n", name);
	return text;
}

int
conf_file_read(const char *path, size_t max, char **textp, size_t *sizep, FILE *err)
{
	struct stat st;
	char *text = NULL;
	size_t size = 0;
	int fd = -1, rc;

	if (stat(path, &st) == 0 && !S_ISREG(st.st_mode))
		return conf_file_not_regular(path, st.st_mode, err);
	fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) != 0) {
		rc = -errno;
		if (err != NULL)
			fprintf(err, "%s: cannot open: %s\n", path, strerror(-rc));
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		rc = conf_file_not_regular(path, st.st_mode, err);
		goto out;
	}
	if ((uint64_t)st.st_size > max) {
		rc = conf_file_too_big(path, (size_t)st.st_size, max, err);
		goto out;
	}
	text = conf_file_alloc(path, max, err);
	if (text == NULL) {
		rc = -ENOMEM;
		goto out;
	}
	/* Read to EOF: the file may have grown since fstat. */
	while (size < max + 1) {
		ssize_t n = read(fd, text + size, max + 1 - size);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			rc = -errno;
			if (err != NULL)
				fprintf(err, "%s: read error: %s\n", path, strerror(-rc));
			goto out;
		}
		if (n == 0)
			break;
		size += (size_t)n;
	}
	if (size > max) {
		rc = conf_file_too_big(path, size, max, err);
		goto out;
	}
	text[size] = '\0';
	*textp = text;
	*sizep = size;
	text = NULL;
	rc = 0;
out:
	if (fd >= 0)
		close(fd);
	free(text);
	return rc;
}

int
conf_file_read_stream(FILE *in, const char *name, size_t max, char **textp, size_t *sizep,
		      FILE *err)
{
	char *text = conf_file_alloc(name, max, err);
	size_t size;

	if (text == NULL)
		return -ENOMEM;
	size = fread(text, 1, max + 1, in);
	if (ferror(in)) {
		if (err != NULL)
			fprintf(err, "%s: read error\n", name);
		free(text);
		return -EIO;
	}
	if (size > max) {
		free(text);
		return conf_file_too_big(name, size, max, err);
	}
	text[size] = '\0';
	*textp = text;
	*sizep = size;
	return 0;
}
