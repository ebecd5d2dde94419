/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A stand-in longspand for the longspanctl tests: serves the fixture
 * runtime on the API socket given as argv[1], polling every millisecond
 * like the control loop, until SIGTERM or SIGINT.
 */
#include <signal.h>
#include <stdio.h>
#include <unistd.h>

#include "control/api.h"
#include "ctl_fixture.h"

static volatile sig_atomic_t fake_stop; /* signal handler flag */

static void
fake_on_signal(int sig)
{
	(void)sig;
	fake_stop = 1;
}

int
main(int argc, char **argv)
{
	struct ctl_fixture *fx;
	int fd;

	if (argc != 2) {
		fprintf(stderr, "usage: %s SOCKET\n", argv[0]);
		return 2;
	}
	signal(SIGTERM, fake_on_signal);
	signal(SIGINT, fake_on_signal);
	fx = ctl_fixture_new();
	fd = api_listen(argv[1], stderr);
	if (fd < 0)
		return 1;
	while (!fake_stop) {
		api_poll(&fx->rt, fd);
		usleep(1000);
	}
	api_close(fd, argv[1]);
	ctl_fixture_free(fx);
	return 0;
}
