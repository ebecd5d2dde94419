/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LONGSPAN_FUZZ_H
#define LONGSPAN_FUZZ_H

/*
 * Fuzz targets in libFuzzer's interface. run.sh links them with clang's
 * -fsanitize=fuzzer; replay.c drives the same function over a corpus in
 * the unit suite, without libFuzzer.
 */

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A broken invariant is a crash: libFuzzer saves the input, replay fails. */
#define FUZZ_CHECK(cond)                                                                          \
	do {                                                                                      \
		if (!(cond)) {                                                                    \
			fprintf(stderr, "%s:%d: invariant broken: %s\n", __FILE__, __LINE__,     \
				#cond);                                                           \
			abort();                                                                  \
		}                                                                                 \
	} while (0)

#endif /* LONGSPAN_FUZZ_H */
