/*
 * nofp: a wait two calls deep in a program built without frame pointers,
 * as Debian builds its binaries, for the --stacks tests.  main calls
 * ask_server, which calls wait_for_reply, which blocks reading a pipe
 * that a child answers after SECONDS (default 1).  Prints "pid=N".
 */
#include <err.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static int replies;

__attribute__((noinline)) static int
wait_for_reply(int fd)
{
	char c;

	if (read(fd, &c, 1) != 1)
		err(1, "read");
	return c;
}

__attribute__((noinline)) static int
ask_server(int fd)
{
	int r = wait_for_reply(fd);

	replies++;		/* not a tail call: ask_server stays a frame */
	return r + replies;
}

int
main(int argc, char *argv[])
{
	struct timespec ts = { argc > 1 ? atoi(argv[1]) : 1, 0 };
	int p[2];

	if (pipe(p) == -1)
		err(1, "pipe");
	printf("pid=%d\n", (int)getpid());
	fflush(stdout);
	switch (fork()) {
	case -1:
		err(1, "fork");
	case 0:
		nanosleep(&ts, NULL);
		if (write(p[1], "x", 1) != 1)
			err(1, "write");
		_exit(0);
	}
	return ask_server(p[0]) == 'x' + 1 ? 0 : 1;
}
