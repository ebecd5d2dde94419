/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Replay driver for a fuzz target without libFuzzer, for the unit suite:
 *
 *   replay [--mutations N] PATH...
 *
 * Runs LLVMFuzzerTestOneInput on every file (directories: every regular
 * file in them, in name order), then, with --mutations N, on N mutants of
 * each file from a fixed-seed generator (byte flips, insertions, deletions,
 * truncations, splices of two files), so the same inputs run every time.
 * Exits non-zero if no input was found; a broken invariant aborts.
 */
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz.h"

#define REPLAY_MAX_INPUT (1u << 20)

struct input {
	uint8_t *data;
	size_t size;
};

static struct input *inputs;
static size_t n_inputs, cap_inputs;

static void
add_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	struct input in = { 0 };
	long size;

	if (f == NULL) {
		fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
		exit(2);
	}
	if (fseek(f, 0, SEEK_END) != 0 || (size = ftell(f)) < 0 ||
	    (unsigned long)size > REPLAY_MAX_INPUT || fseek(f, 0, SEEK_SET) != 0) {
		fprintf(stderr, "replay: %s: cannot size, or larger than %u bytes\n", path,
			REPLAY_MAX_INPUT);
		exit(2);
	}
	in.size = (size_t)size;
	in.data = malloc(in.size ? in.size : 1);
	if (in.data == NULL || fread(in.data, 1, in.size, f) != in.size) {
		fprintf(stderr, "replay: %s: cannot read\n", path);
		exit(2);
	}
	fclose(f);
	if (n_inputs == cap_inputs) {
		cap_inputs = cap_inputs ? 2 * cap_inputs : 64;
		inputs = realloc(inputs, cap_inputs * sizeof(*inputs));
		if (inputs == NULL)
			exit(2);
	}
	inputs[n_inputs++] = in;
}

static int
name_cmp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static void
add_path(const char *path)
{
	struct stat st;
	DIR *d;
	struct dirent *de;
	char **names = NULL;
	size_t n = 0, i;

	if (stat(path, &st) != 0) {
		fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
		exit(2);
	}
	if (!S_ISDIR(st.st_mode)) {
		add_file(path);
		return;
	}
	d = opendir(path);
	if (d == NULL) {
		fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
		exit(2);
	}
	while ((de = readdir(d)) != NULL) {
		char full[4096];

		if (de->d_name[0] == '.')
			continue;
		snprintf(full, sizeof(full), "%s/%s", path, de->d_name);
		if (stat(full, &st) != 0 || !S_ISREG(st.st_mode))
			continue;
		names = realloc(names, (n + 1) * sizeof(*names));
		if (names == NULL || (names[n] = strdup(full)) == NULL)
			exit(2);
		n++;
	}
	closedir(d);
	if (n > 0)
		qsort(names, n, sizeof(*names), name_cmp);
	for (i = 0; i < n; i++) {
		add_file(names[i]);
		free(names[i]);
	}
	free(names);
}

static uint64_t
rnd(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * UINT64_C(2685821657736338717);
}

/* One mutant of inputs[i] into buf (capacity cap); returns its size. */
static size_t
mutate(size_t i, uint64_t *s, uint8_t *buf, size_t cap)
{
	size_t size = inputs[i].size < cap ? inputs[i].size : cap;
	unsigned int k, n = 1 + (unsigned int)(rnd(s) % 8);

	memcpy(buf, inputs[i].data, size);
	for (k = 0; k < n; k++) {
		size_t at = size ? (size_t)(rnd(s) % size) : 0;

		switch (rnd(s) % 7) {
		case 0: /* flip a bit */
		case 1:
			if (size)
				buf[at] ^= (uint8_t)(1u << (rnd(s) % 8));
			break;
		case 2: /* an interesting byte */
			if (size) {
				static const uint8_t v[] = { 0, 1, 0x7f, 0x80, 0xff, '\n', '=', '[',
							     ']', ' ', '#', ';', '0', '9' };
				buf[at] = v[rnd(s) % sizeof(v)];
			}
			break;
		case 3: /* insert a byte */
			if (size < cap) {
				memmove(buf + at + 1, buf + at, size - at);
				buf[at] = (uint8_t)rnd(s);
				size++;
			}
			break;
		case 4: /* delete a run */
			if (size) {
				size_t run = 1 + (size_t)(rnd(s) % 8);

				if (run > size - at)
					run = size - at;
				memmove(buf + at, buf + at + run, size - at - run);
				size -= run;
			}
			break;
		case 5: /* truncate */
			size = at;
			break;
		default: { /* splice the tail of another input */
			const struct input *o = &inputs[rnd(s) % n_inputs];
			size_t from = o->size ? (size_t)(rnd(s) % o->size) : 0;
			size_t len = o->size - from;

			if (len > cap - at)
				len = cap - at;
			memcpy(buf + at, o->data + from, len);
			size = at + len;
			break;
		}
		}
	}
	return size;
}

int
main(int argc, char **argv)
{
	unsigned long mutations = 0, m;
	uint64_t seed = 0x4c6f6e677370616eu; /* "Longspan" */
	size_t i, runs = 0;
	uint8_t *buf;
	int a = 1;

	if (argc > 2 && strcmp(argv[1], "--mutations") == 0) {
		mutations = strtoul(argv[2], NULL, 10);
		a = 3;
	}
	for (; a < argc; a++)
		add_path(argv[a]);
	if (n_inputs == 0) {
		fprintf(stderr, "replay: no inputs\n");
		return 1;
	}
	buf = malloc(REPLAY_MAX_INPUT);
	if (buf == NULL)
		return 2;
	for (i = 0; i < n_inputs; i++) {
		/* An exactly-sized copy: ASan sees reads past the input. */
		uint8_t *exact = malloc(inputs[i].size ? inputs[i].size : 1);

		memcpy(exact, inputs[i].data, inputs[i].size);
		LLVMFuzzerTestOneInput(exact, inputs[i].size);
		free(exact);
		runs++;
	}
	for (m = 0; m < mutations; m++) {
		for (i = 0; i < n_inputs; i++) {
			size_t size = mutate(i, &seed, buf, 64 * 1024);
			uint8_t *exact = malloc(size ? size : 1);

			memcpy(exact, buf, size);
			LLVMFuzzerTestOneInput(exact, size);
			free(exact);
			runs++;
		}
	}
	printf("replay: %zu inputs, %zu runs\n", n_inputs, runs);
	free(buf);
	for (i = 0; i < n_inputs; i++)
		free(inputs[i].data);
	free(inputs);
	return 0;
}
