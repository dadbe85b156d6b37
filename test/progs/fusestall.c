/*
 * fusestall: a program run from another user's FUSE file system whose
 * daemon then takes requests and answers none, for the tests of what
 * root's tools open (lib/procopen.h).
 *
 *	fusestall UID PROGRAM [ARG...]
 *
 * Mounts a FUSE file system of one file, prog, PROGRAM's bytes, as user
 * UID would with fusermount and allow_other, naming it "user_id=0" (a
 * source is anyone's to name), in a mount namespace of its own on a tmpfs
 * of its own: nothing is left mounted when it dies.  Runs
 * prog from there with ARGs and, once it has started, answers no request
 * again: a request it took waits for it uninterruptibly, until it dies
 * (and it dies in two minutes in any case).  Prints "program PID" and
 * "ready" on stdout, or "unsupported" where there is no FUSE.
 */
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>

#include <err.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "fusefile.h"

#define LIFETIME	120
#define PROG		"/mnt/fs/prog"
/* The source a user names: mountinfo shows it before the real owner. */
#define FSNAME		"user_id=0"

static void
unsupported(void)
{
	puts("unsupported");
	exit(0);
}

int
main(int argc, char *argv[])
{
	struct fusefile ff = { -1, "prog", NULL, 0, 0755, 0, 0 };
	struct pollfd p[2];
	int started[2], f;
	struct stat st;
	char *data;
	pid_t c;

	if (argc < 3)
		errx(64, "usage: fusestall UID PROGRAM [ARG...]");
	alarm(LIFETIME);
	setvbuf(stdout, NULL, _IOLBF, 0);
	if ((f = open(argv[2], O_RDONLY | O_CLOEXEC)) == -1 ||
	    fstat(f, &st) == -1 || (data = malloc(st.st_size)) == NULL ||
	    read(f, data, st.st_size) != st.st_size)
		err(1, "%s", argv[2]);
	close(f);
	ff.data = data;
	ff.size = st.st_size;
	if (unshare(CLONE_NEWNS) == -1 ||
	    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) == -1 ||
	    mount("fusestall", "/mnt", "tmpfs", 0, "mode=0755") == -1 ||
	    fusefile_mount(&ff, FSNAME, "/mnt/fs", argv[1]) == -1)
		unsupported();
	/* Its end closes at the exec: the program has started. */
	if (pipe2(started, O_CLOEXEC) == -1)
		err(1, "pipe");
	if ((c = fork()) == -1)
		err(1, "fork");
	if (c == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		close(started[0]);
		execv(PROG, argv + 2);
		err(127, "%s", PROG);
	}
	close(started[1]);
	p[0] = (struct pollfd){ ff.fd, POLLIN, 0 };
	p[1] = (struct pollfd){ started[0], POLLIN, 0 };
	while (p[1].fd != -1) {
		if (poll(p, 2, -1) == -1)
			err(1, "poll");
		if (p[0].revents & POLLIN)
			fusefile_serve(&ff);
		if (p[1].revents & (POLLIN | POLLHUP))
			p[1].fd = -1;
	}
	printf("program %d\nready\n", (int)c);
	ff.stalled = 1;
	for (;;)
		fusefile_serve(&ff);
}
