/*
 * argus flush: the recorder's kernel buffers written out, now: before a
 * cron job archives the ring, or a script reads it.
 */
#include <stdio.h>

#include "porcelain.h"

static const char usage[] =
"usage: argus flush\n"
"Have the flight recorder write out what its kernel buffers and its spill\n"
"hold, and wait until it has: the ring's files then hold everything recorded up to\n"
"now.  'argus mark' and 'argus debug' do it themselves; a script that\n"
"reads or archives the ring does it first.\n"
"Exit: 0 written out, 69 the recorder does not run or did not answer.\n";

static int
flush(int argc, char *argv[])
{
	uint64_t reach, oldest;
	pid_t pid;

	(void)argv;
	if (argc != 1)
		command_usage(&cmd_flush);
	if ((pid = recorder()) == 0)
		diex(EX_UNAVAILABLE, "the recorder is not running ('argus start')");
	if (recorder_drain(pid) != 0)
		return EX_UNAVAILABLE;
	/* Everything: what it spilled too, older than the kernel's. */
	if (recorder_reach() != 0 &&
	    recorder_deepen(pid, 1, &reach, &oldest) != 0)
		return EX_UNAVAILABLE;
	return 0;
}

const struct command cmd_flush = { "flush", usage, flush };
