/*
 * argus: the porcelain.  The filters are the plumbing; this runs them the
 * way the paper's user does: a recorder always on, a debugger when a
 * program hangs.
 */
#include <stdio.h>
#include <string.h>

#include "util.h"

static const char usage[] =
"usage: argus COMMAND [ARGS]\n"
"Find out why a program hung.\n"
"\n"
"  start     run the flight recorder in the background\n"
"  stop      stop it\n"
"  mark      put a note into the recording (\"it hangs now\")\n"
"  debug     cut the recent past out of the recording and diagnose a hang\n"
"  demo      capture a built-in hang and diagnose it\n"
"\n"
"  -h, --help     this text\n"
"  -V, --version  version\n"
"Exit: 0 ok, 64 usage, 69 unavailable.  See argus(1).\n";

/* Each command names the issue that brings it, until it lands. */
static const struct command {
	const char	*name;
	const char	*lands_with;
} commands[] = {
	{ "start",	"the flight recorder (argus-capture --ring)" },
	{ "stop",	"the flight recorder (argus-capture --ring)" },
	{ "mark",	"the flight recorder (argus-capture --ring)" },
	{ "debug",	"diagnosis (argus-spin, argus-similar, argus-slice)" },
	{ "demo",	"diagnosis (argus-spin, argus-similar, argus-slice)" },
};

int
main(int argc, char *argv[])
{
	struct common com = { NULL, Z_AUTO };
	size_t i;

	if (argc < 2)
		usage_error(usage);
	if (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0)
		common_option(&com, 'h', NULL, usage);
	if (strcmp(argv[1], "-V") == 0 || strcmp(argv[1], "--version") == 0)
		common_option(&com, 'V', NULL, usage);
	for (i = 0; i < ARRAY_LEN(commands); i++)
		if (strcmp(argv[1], commands[i].name) == 0)
			diex(EX_UNAVAILABLE, "%s: not yet available: it comes "
			    "with %s", argv[1], commands[i].lands_with);
	warnx_("'%s' is not a command", argv[1]);
	usage_error(usage);
}
