/*
 * fdhog: a process with many threads blocked and many fds open, for
 * bench/waitfor: THREADS threads each read a pipe of their own that
 * nobody writes, and FDS descriptors in all are open (pipes).
 *
 *	fdhog THREADS FDS
 *
 * prints "ready" once every thread has started, and waits to be killed
 * (a minute at most).
 */
#include <sys/resource.h>

#include <err.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static void *
reader(void *arg)
{
	char b;

	if (read((int)(long)arg, &b, 1) == -1)
		err(1, "read");
	return NULL;
}

int
main(int argc, char *argv[])
{
	struct rlimit rl;
	pthread_t t;
	long i, threads, fds;
	int p[2];

	if (argc != 3 || (threads = atol(argv[1])) < 0 ||
	    (fds = atol(argv[2])) < 2 * threads)
		errx(64, "usage: fdhog THREADS FDS (FDS at least 2 * THREADS)");
	/* Up to the hard limit: more fds take more processes. */
	if (getrlimit(RLIMIT_NOFILE, &rl) == -1)
		err(1, "getrlimit");
	if ((rlim_t)fds + 64 > rl.rlim_max)
		errx(1, "%ld fds: this process may have %llu", fds,
		    (unsigned long long)rl.rlim_max - 64);
	rl.rlim_cur = fds + 64;
	if (setrlimit(RLIMIT_NOFILE, &rl) == -1)
		err(1, "setrlimit %ld fds", fds + 64);
	alarm(60);
	for (i = 0; i + 2 <= fds; i += 2) {
		if (pipe(p) == -1)
			err(1, "pipe");
		if (i / 2 < threads && pthread_create(&t, NULL, reader,
		    (void *)(long)p[0]) != 0)
			errx(1, "pthread_create");
	}
	puts("ready");
	fflush(stdout);
	for (;;)
		pause();
}
