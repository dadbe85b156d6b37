/*
 * argus: the porcelain.  The filters are the plumbing; this runs them the
 * way the paper's user does: a recorder always on (start, stop, mark), a
 * debugger when a program hangs (debug), a watcher that runs it when
 * nobody is there (watch), and a demonstration (demo).
 * Each subcommand is a file of bin/porcelain/ and a line of this table.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "porcelain/porcelain.h"

static const struct command *commands[] = {
	&cmd_start, &cmd_stop, &cmd_status, &cmd_flush, &cmd_mark,
	&cmd_summary, &cmd_waits, &cmd_debug, &cmd_demo,
	&cmd_run,
	&cmd_patch,
	&cmd_watch,
};

static const char usage[] =
"usage: argus [--ring DIR] COMMAND [ARGS]\n"
"Find out why a program hung.\n"
"\n"
"  start [--ring-size SIZE] [--live] [CAPTURE-OPTIONS]\n"
"                             run the flight recorder in the background\n"
"  stop                       stop it (if it runs)\n"
"  status                     whether it runs, and what it holds\n"
"  flush                      have it write out its kernel buffers now\n"
"  mark [--no-snapshot] [TEXT] note in the recording that it hangs now, and\n"
"                             what blocked threads wait on (argus-waitfor)\n"
"  summary [-n COUNT] [--all] [--pid PID | --comm NAME] [FILE]\n"
"                             the first look at a capture or the last\n"
"                             minute: span, events, CPU time, waits, delays\n"
"  waits [-n COUNT] [--all] [--pid PID | --comm NAME] [FILE]\n"
"                             the longest waits, of a capture or the last\n"
"                             minute: who waited, in what, ended by whom\n"
"  debug [--pid PID | --tid TID | --comm NAME] [--at MOMENT] [--last TIME]\n"
"        [--auto | --answers FILE] [--threshold TIME] [--json FILE]\n"
"        [--keep N|SIZE] [--no-snapshot] [-v]\n"
"                             diagnose the hang going on now (or at --at)\n"
"                             from the recent recording; the report on\n"
"                             stdout, with where the chain's threads wait\n"
"  demo [SCENARIO]            capture a built-in hang while it happens and\n"
"                             diagnose it (default: circular-wait)\n"
"  run --probes SET -- COMMAND\n"
"                             run COMMAND under the patcher, its probe\n"
"                             sets' events into the recorder (argus-patch(7))\n"
"  patch --pid PID --probes SET\n"
"                             the same for a process that runs already\n"
"  watch --config FILE | --check CMD | --blocked-for TIME [OPTIONS]\n"
"                             diagnose each hang of what it watches while\n"
"                             it lasts\n"
"\n"
"  --ring DIR     the recorder's directory, private to you (default\n"
"                 $ARGUS_RING, else /var/lib/argus for root and\n"
"                 $XDG_STATE_HOME/argus or ~/.local/state/argus)\n"
"  -h, --help     this text; 'argus COMMAND --help' for a command's\n"
USAGE_VERSION("  ") "\n"
"Exit: 0 ok, 1 no hang found, 3 (status) not running, 64 usage, 65 bad\n"
"input, 69 unavailable, 73 cannot create, 77 the directory is not yours\n"
"alone.\n"
"See argus(1).\n";

int
main(int argc, char *argv[])
{
	struct common com = { NULL, Z_AUTO };
	size_t i;

	if (getenv("ARGUS_RING") != NULL && getenv("ARGUS_RING")[0] != '\0')
		ring = getenv("ARGUS_RING");
	if (argc >= 3 && strcmp(argv[1], "--ring") == 0) {
		ring = argv[2];
		argc -= 2;
		argv += 2;
	}
	if (argc < 2)
		usage_error(usage);
	if (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0)
		common_option(&com, 'h', NULL, usage);
	if (strcmp(argv[1], "-V") == 0 || strcmp(argv[1], "--version") == 0)
		common_option(&com, 'V', NULL, usage);
	if (ring == NULL)
		ring_default();
	find_bindir();
	for (i = 0; i < ARRAY_LEN(commands); i++)
		if (strcmp(argv[1], commands[i]->name) == 0) {
			command_help(commands[i], argc - 1, argv + 1);
			return commands[i]->run(argc - 1, argv + 1);
		}
	warnx_("'%s' is not a command", argv[1]);
	usage_error(usage);
}
