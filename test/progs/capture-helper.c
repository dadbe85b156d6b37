/*
 * Does known things for test/bats/capture.bats to find in a capture: a
 * pipe write that wakes a blocked reader thread, a timed sleep, a fork,
 * a trace_marker write.  Prints the ids the test needs to check them.
 */
#include <sys/syscall.h>
#include <sys/wait.h>

#include <err.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int p[2];
static volatile int reader_tid;

static void *
reader(void *arg)
{
	char c;

	(void)arg;
	reader_tid = syscall(SYS_gettid);
	if (read(p[0], &c, 1) != 1)
		err(1, "read");
	return NULL;
}

static void
sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000 };

	nanosleep(&ts, NULL);
}

/* "load SECONDS": two threads ping-pong over pipes, for volume. */
static int q[2][2];

static void *
pong(void *arg)
{
	char c;

	(void)arg;
	while (read(q[0][0], &c, 1) == 1)
		if (write(q[1][1], &c, 1) != 1)
			break;
	return NULL;
}

static int
load(double secs)
{
	struct timespec a, b;
	pthread_t t;
	char c = 'x';
	long n = 0;

	if (pipe(q[0]) == -1 || pipe(q[1]) == -1)
		err(1, "pipe");
	if (pthread_create(&t, NULL, pong, NULL) != 0)
		errx(1, "pthread_create");
	clock_gettime(CLOCK_MONOTONIC, &a);
	do {
		if (write(q[0][1], &c, 1) != 1 || read(q[1][0], &c, 1) != 1)
			err(1, "ping");
		if (++n % 1000 == 0)
			clock_gettime(CLOCK_MONOTONIC, &b);
		else
			b = a;
	} while (n % 1000 != 0 || (b.tv_sec - a.tv_sec) +
	    (b.tv_nsec - a.tv_nsec) / 1e9 < secs);
	close(q[0][1]);
	pthread_join(t, NULL);
	printf("round trips %ld\n", n);
	return 0;
}

int
main(int argc, char *argv[])
{
	const char *mpath = getenv("ARGUS_TRACE_MARKER");
	char msg[128], ipath[128];
	pthread_t t;
	pid_t child;
	int fd, st, n;

	if (argc == 3 && strcmp(argv[1], "load") == 0)
		return load(atof(argv[2]));
	/*
	 * Run by argus-capture (its parent): its instance's own marker file
	 * works even on kernels that cannot copy top-level markers into it.
	 */
	if (mpath == NULL) {
		snprintf(ipath, sizeof(ipath),
		    "/sys/kernel/tracing/instances/argus-%d/trace_marker",
		    (int)getppid());
		mpath = access(ipath, W_OK) == 0 ? ipath :
		    "/sys/kernel/tracing/trace_marker";
	}
	if (pipe(p) == -1)
		err(1, "pipe");
	if (pthread_create(&t, NULL, reader, NULL) != 0)
		errx(1, "pthread_create");
	/* Long enough for the reader to block in read(2). */
	sleep_ms(200);
	if (write(p[1], "x", 1) != 1)
		err(1, "write");
	pthread_join(t, NULL);

	sleep_ms(100);			/* the timed sleep */

	if ((child = fork()) == -1)
		err(1, "fork");
	if (child == 0)
		_exit(3);
	if (waitpid(child, &st, 0) == -1)
		err(1, "waitpid");

	n = snprintf(msg, sizeof(msg), "argus-test marker %d, \"quoted\"\n",
	    (int)getpid());
	if ((fd = open(mpath, O_WRONLY)) == -1 || write(fd, msg, n) != n)
		err(1, "%s", mpath);
	close(fd);

	printf("pid %d\nmain_tid %d\nreader_tid %d\nchild %d\n", (int)getpid(),
	    (int)syscall(SYS_gettid), reader_tid, (int)child);
	return 0;
}
