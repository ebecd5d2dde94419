/* SPDX-License-Identifier: BSD-3-Clause */
/* Unit tests for control/eal_args.c: the EAL argv from config + command line. */

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "control/eal_args.h"

static struct ls_config eal_cfg;
static struct eal_args eal_out;

/* A writable argv copy of string literals (EAL's argv is char **). */
#define CLI(...) cli_copy((const char *const[]){ __VA_ARGS__, NULL })
static char *cli_pool[64];
static unsigned int cli_pool_used;

static char **
cli_copy(const char *const *lit)
{
	char **argv = &cli_pool[cli_pool_used];

	for (; *lit != NULL; lit++) {
		assert_true(cli_pool_used + 1 < sizeof(cli_pool) / sizeof(cli_pool[0]));
		cli_pool[cli_pool_used] = strdup(*lit);
		assert_non_null(cli_pool[cli_pool_used]);
		cli_pool_used++;
	}
	cli_pool[cli_pool_used++] = NULL;
	return argv;
}

static int
cli_free(void **state)
{
	(void)state;
	for (unsigned int i = 0; i < cli_pool_used; i++)
		free(cli_pool[i]);
	cli_pool_used = 0;
	return 0;
}

/* A config with every [eal] key set and one vdev and one PCI port. */
static int
eal_setup(void **state)
{
	(void)state;
	memset(&eal_cfg, 0, sizeof(eal_cfg));
	strcpy(eal_cfg.eal.lcores, "0,1");
	eal_cfg.eal.main_lcore = 1;
	eal_cfg.eal.main_lcore_set = true;
	eal_cfg.eal.memory_mb = 256;
	strcpy(eal_cfg.eal.file_prefix, "lsa");
	eal_cfg.eal.in_memory = true;
	eal_cfg.eal.no_pci = true;
	eal_cfg.eal.no_huge = true;
	eal_cfg.n_ports = 2;
	strcpy(eal_cfg.ports[0].dev, "net_ring0");
	strcpy(eal_cfg.ports[1].dev, "0000:03:00.0,txq_inline_max=0");
	return 0;
}

/* Assert OUT's argv equals the NULL-terminated list WANT. */
static void
eal_expect(const struct eal_args *out, const char *const *want)
{
	int n = 0;

	while (want[n] != NULL)
		n++;
	for (int i = 0; i < n || i < out->argc; i++) {
		const char *got = i < out->argc ? out->argv[i] : "(end)";
		const char *exp = i < n ? want[i] : "(end)";

		if (strcmp(got, exp) != 0)
			fail_msg("argv[%d] = '%s', want '%s'", i, got, exp);
	}
	assert_int_equal(out->argc, n);
	assert_null(out->argv[out->argc]);
}

static void
test_eal_config_only(void **state)
{
	static const char *const want[] = {
		"longspand", "-l", "0,1", "--main-lcore=1", "-m", "256", "--file-prefix=lsa",
		"--in-memory", "--no-pci", "--no-huge", "--vdev=net_ring0",
		"-a", "0000:03:00.0,txq_inline_max=0", NULL,
	};

	(void)state;
	assert_int_equal(eal_args_build(&eal_out, "longspand", &eal_cfg, 0, NULL, NULL), 0);
	eal_expect(&eal_out, want);
}

static void
test_eal_empty_config(void **state)
{
	static const char *const want[] = { "/usr/bin/longspand", NULL };

	(void)state;
	memset(&eal_cfg, 0, sizeof(eal_cfg));
	assert_int_equal(eal_args_build(&eal_out, "/usr/bin/longspand", &eal_cfg, 0, NULL, NULL),
			 0);
	eal_expect(&eal_out, want);
}

/* Each option group on the command line removes the config's value. */
static void
test_eal_cli_wins(void **state)
{
	char **cli = CLI("-l", "2,3", "--file-prefix=cli", "--socket-mem", "512,0", "--in-memory",
			 "--main-lcore", "3", "--no-huge", "--no-pci");
	static const char *const want[] = {
		"x", "--vdev=net_ring0", "-a", "0000:03:00.0,txq_inline_max=0",
		"-l", "2,3", "--file-prefix=cli", "--socket-mem", "512,0", "--in-memory",
		"--main-lcore", "3", "--no-huge", "--no-pci", NULL,
	};

	(void)state;
	assert_int_equal(eal_args_build(&eal_out, "x", &eal_cfg, 10, cli, NULL), 0);
	eal_expect(&eal_out, want);
	/* Command-line strings are used in place, not copied. */
	assert_ptr_equal(eal_out.argv[5], cli[1]);
}

/* Every spelling of the cores option overrides lcores. */
static void
test_eal_core_spellings(void **state)
{
	char **forms[] = {
		CLI("-c", "0x3"), CLI("-c0x3"), CLI("-l1-2"), CLI("--lcores=1@0"),
		CLI("--lcores", "(1,2)@0"), CLI("-l", "5"),
	};

	(void)state;
	for (size_t i = 0; i < sizeof(forms) / sizeof(forms[0]); i++) {
		int n = forms[i][1] != NULL ? 2 : 1;


		assert_int_equal(eal_args_build(&eal_out, "x", &eal_cfg, n, forms[i], NULL), 0);
		for (int a = 0; a < eal_out.argc - n; a++)
			if (strcmp(eal_out.argv[a], "-l") == 0)
				fail_msg("form %zu (%s) kept the config's -l", i, forms[i][0]);
		/* The memory option of the config is still there. */
		assert_string_equal(eal_out.argv[2], "-m");
	}
}

/* Devices add up; a device the command line names is not added twice. */
static void
test_eal_devices(void **state)
{
	char **cli = CLI("--vdev=net_ring0,nodeaction=r0:0:CREATE", "-a", "03:00.0", "--vdev",
			 "net_tap0,iface=x");
	static const char *const want[] = {
		"x", "-l", "0,1", "--main-lcore=1", "-m", "256", "--file-prefix=lsa",
		"--in-memory", "--no-pci", "--no-huge",
		"--vdev=net_ring0,nodeaction=r0:0:CREATE", "-a", "03:00.0", "--vdev",
		"net_tap0,iface=x", NULL,
	};

	(void)state;
	assert_int_equal(eal_args_build(&eal_out, "x", &eal_cfg, 5, cli, NULL), 0);
	eal_expect(&eal_out, want);
}

/* [eal] extra passes through, minus options of groups the command line sets. */
static void
test_eal_extra(void **state)
{
	char **cli = CLI("--file-prefix", "cli");
	static const char *const want[] = {
		"x", "-l", "0,1", "--main-lcore=1", "-m", "256", "--in-memory", "--no-pci",
		"--no-huge", "--vdev=net_ring0", "-a", "0000:03:00.0,txq_inline_max=0",
		"--log-level=lib.eal:8", "-n", "4", "--iova-mode", "va",
		"--file-prefix", "cli", NULL,
	};

	(void)state;
	strcpy(eal_cfg.eal.extra, "  --log-level=lib.eal:8 --file-prefix\tfoo -n 4 "
				  "--file-prefix=bar --iova-mode va ");
	assert_int_equal(eal_args_build(&eal_out, "x", &eal_cfg, 2, cli, NULL), 0);
	eal_expect(&eal_out, want);
}

static void
test_eal_errors(void **state)
{
	char **cli_missing = CLI("--vdev=net_null0", "-l");
	char **cli_prefix = CLI("--file-prefix=z");
	char *many[EAL_ARGS_MAX + 10];
	char **many_arg = CLI("--no-shconf");
	char *msg = NULL;
	size_t msg_size = 0;
	FILE *err = open_memstream(&msg, &msg_size);

	(void)state;
	assert_non_null(err);
	assert_int_equal(eal_args_build(&eal_out, "x", &eal_cfg, 2, cli_missing, err), -EINVAL);
	fflush(err);
	assert_non_null(strstr(msg, "option -l needs a value"));

	strcpy(eal_cfg.eal.extra, "-n 4 --file-prefix");
	assert_int_equal(eal_args_build(&eal_out, "x", &eal_cfg, 1, cli_prefix, err), -EINVAL);
	fflush(err);
	assert_non_null(strstr(msg, "[eal] extra: the last option needs a value"));

	eal_cfg.eal.extra[0] = '\0';
	for (size_t i = 0; i < sizeof(many) / sizeof(many[0]); i++)
		many[i] = many_arg[0];
	assert_int_equal(eal_args_build(&eal_out, "x", &eal_cfg, (int)(sizeof(many) / sizeof(many[0])),
					many, err),
			 -E2BIG);
	fflush(err);
	assert_non_null(strstr(msg, "too many EAL arguments"));
	fclose(err);
	free(msg);
}

static void
test_eal_dev_kind_and_name(void **state)
{
	static const struct {
		const char *dev;
		enum eal_args_dev_kind kind;
		const char *name;
	} cases[] = {
		{ "0000:03:00.0", EAL_ARGS_DEV_PCI, "0000:03:00.0" },
		{ "03:00.1", EAL_ARGS_DEV_PCI, "0000:03:00.1" },
		{ "0000:AF:1F.7,arg=1", EAL_ARGS_DEV_PCI, "0000:af:1f.7" },
		{ "net_memif0,role=server,socket=/run/x.sock", EAL_ARGS_DEV_VDEV, "net_memif0" },
		{ "net_ring0", EAL_ARGS_DEV_VDEV, "net_ring0" },
		{ "net_af_packet1,iface=veth0", EAL_ARGS_DEV_VDEV, "net_af_packet1" },
		{ "03:00.8", EAL_ARGS_DEV_INVALID, NULL },
		{ "0000:03:00.0x", EAL_ARGS_DEV_INVALID, NULL },
		{ "eth0", EAL_ARGS_DEV_INVALID, NULL },
		{ "net_", EAL_ARGS_DEV_INVALID, NULL },
		{ "net_ring 0", EAL_ARGS_DEV_INVALID, NULL },
		{ "", EAL_ARGS_DEV_INVALID, NULL },
	};
	char name[64];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int len = eal_args_dev_name(cases[i].dev, name, sizeof(name));

		if (eal_args_dev_kind(cases[i].dev) != cases[i].kind)
			fail_msg("'%s': kind %d, want %d", cases[i].dev,
				 (int)eal_args_dev_kind(cases[i].dev), (int)cases[i].kind);
		if (cases[i].name == NULL) {
			assert_int_equal(len, -EINVAL);
			continue;
		}
		assert_int_equal(len, (int)strlen(cases[i].name));
		assert_string_equal(name, cases[i].name);
	}
	assert_int_equal(eal_args_dev_name("net_memif0,x", name, 5), -ENOSPC);
}

static void
test_eal_option_key(void **state)
{
	(void)state;
	assert_string_equal(eal_args_option_key("-l"), "lcores");
	assert_string_equal(eal_args_option_key("-l0-3"), "lcores");
	assert_string_equal(eal_args_option_key("-c"), "lcores");
	assert_string_equal(eal_args_option_key("--lcores=0@1"), "lcores");
	assert_string_equal(eal_args_option_key("--file-prefix=x"), "file_prefix");
	assert_string_equal(eal_args_option_key("--socket-mem"), "memory");
	assert_string_equal(eal_args_option_key("--no-pci"), "no_pci");
	assert_null(eal_args_option_key("--no-pcix"));
	assert_null(eal_args_option_key("--vdev=net_ring0"));
	assert_null(eal_args_option_key("--log-level=8"));
	assert_null(eal_args_option_key("--file-prefixes"));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_eal_config_only, eal_setup, cli_free),
		cmocka_unit_test_setup_teardown(test_eal_empty_config, eal_setup, cli_free),
		cmocka_unit_test_setup_teardown(test_eal_cli_wins, eal_setup, cli_free),
		cmocka_unit_test_setup_teardown(test_eal_core_spellings, eal_setup, cli_free),
		cmocka_unit_test_setup_teardown(test_eal_devices, eal_setup, cli_free),
		cmocka_unit_test_setup_teardown(test_eal_extra, eal_setup, cli_free),
		cmocka_unit_test_setup_teardown(test_eal_errors, eal_setup, cli_free),
		cmocka_unit_test(test_eal_dev_kind_and_name),
		cmocka_unit_test(test_eal_option_key),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
