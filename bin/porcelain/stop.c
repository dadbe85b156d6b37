/* argus stop: end the recorder that start started, by its pid alone. */
#include <signal.h>
#include <stdio.h>
#include <unistd.h>

#include "porcelain.h"

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
	for (i = 0; i < 100 && kill(pid, 0) == 0; i++)
		usleep(100000);
	unlinkat(ring_open(0), "recorder.pid", 0);
	printf("argus: the recorder stopped; the recording stays in %s\n", ring);
	return 0;
}

const struct command cmd_stop = { "stop", usage, stop };
