/*
 * burn: run a command on a machine kept busy, as a shared CI machine is.
 *
 *	burn [-j N] COMMAND [ARG ...]
 *
 * N threads (default: one per online CPU) spin at normal priority while
 * COMMAND runs; burn exits with COMMAND's status.  The spinners are
 * threads of burn itself, so they end with it however it ends: nothing is
 * left burning after `make check-loaded', even when it is interrupted.
 * stress-ng would do, but it is one more package for one loop.
 */
#include <sys/wait.h>

#include <err.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void *
spin(void *arg)
{
	volatile unsigned long n = 0;

	(void)arg;
	for (;;)
		n++;
	return NULL;
}

int
main(int argc, char *argv[])
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	pthread_t t;
	pid_t pid;
	int ch, status;

	while ((ch = getopt(argc, argv, "+j:")) != -1) {
		switch (ch) {
		case 'j':
			n = strtol(optarg, NULL, 10);
			break;
		default:
			fprintf(stderr, "usage: burn [-j N] COMMAND [ARG ...]\n");
			return 64;
		}
	}
	if (optind == argc || n < 0) {
		fprintf(stderr, "usage: burn [-j N] COMMAND [ARG ...]\n");
		return 64;
	}
	/* Fork first: the command is not a copy of a spinning process. */
	if ((pid = fork()) == -1)
		err(71, "fork");
	if (pid == 0) {
		execvp(argv[optind], argv + optind);
		err(errno == ENOENT ? 127 : 126, "%s", argv[optind]);
	}
	fprintf(stderr, "burn: %ld spinning threads while %s runs\n", n,
	    argv[optind]);
	while (n-- > 0)
		if ((errno = pthread_create(&t, NULL, spin, NULL)) != 0)
			err(71, "pthread_create");
	while (waitpid(pid, &status, 0) == -1)
		if (errno != EINTR)
			err(71, "waitpid");
	return WIFEXITED(status) ? WEXITSTATUS(status) :
	    128 + WTERMSIG(status);
}
