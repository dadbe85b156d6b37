/* argus stop: end the recorder that start started, by its pid alone. */
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <unistd.h>

#include "porcelain.h"

#define STOP_WAIT	3000	/* tenths of a second */

static const char usage[] =
"usage: argus stop\n"
"Stop the flight recorder that 'argus start' started (that process only).\n"
"The recording stays in the recorder's directory.  A recorder that does\n"
"not run is no error: stop is done when it is stopped.\n";

static int
stop(int argc, char *argv[])
{
	pid_t pid;
	int i;

	(void)argv;
	if (argc != 1)
		command_usage(&cmd_stop);
	/* Idempotent, as service managers expect: stopped is stopped. */
	if ((pid = recorder()) == 0) {
		printf("argus: the recorder is not running\n");
		return 0;
	}
	if (kill(pid, SIGINT) == -1)
		die(EX_OSERR, "kill %d", (int)pid);
	/*
	 * It writes out its kernel buffers and its spill first: seconds for
	 * a full kernel buffer, tens of seconds for a full spill.
	 */
	for (i = 0; i < STOP_WAIT && recorder() == pid; i++) {
		if (i >= 10 && isatty(STDERR_FILENO))
			fprintf(stderr, "\r\033[Kargus: the recorder writes out "
			    "its kernel buffers and spill: %d s", i / 10);
		usleep(100000);
	}
	if (i >= 10 && isatty(STDERR_FILENO))
		fprintf(stderr, "\r\033[K");
	if (i == STOP_WAIT)
		diex(EX_TEMPFAIL, "the recorder (pid %d) has not stopped after "
		    "%d s", (int)pid, STOP_WAIT / 10);
	unlinkat(ring_open(0), "recorder.pid", 0);
	/* The patched programs' ring directory, once none is left there. */
	patch_dir_remove();
	printf("argus: the recorder stopped; the recording stays in %s\n", ring);
	return 0;
}

const struct command cmd_stop = { "stop", usage, stop };
