/*
 * Does known things for test/bats/capture.bats to find in a capture: a
 * pipe write that wakes a blocked reader thread, a timed sleep, a fork,
 * a trace_marker write.  Prints the ids the test needs to check them.
 * "orphan MARKER": a thread that is born, buries its birth under markers
 * and exits while the capture is stopped (see orphan()).
 */
#include <sys/syscall.h>
#include <sys/wait.h>

#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "procstat.h"

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

/*
 * "orphan MARKER": a thread whose process the capture cannot learn.  The
 * test stops the capture (SIGSTOP), then says go on stdin.  The thread is
 * born, writes far more markers than the capture's kernel buffer holds
 * (16 MiB: eight times the test's 2 MiB, of which the last survive the
 * machine's other work while the capture is stopped), so that the
 * buffer, overwriting its oldest pages, forgets the fork;
 * waits for the main thread, so that a wakeup and a switch name it after
 * that; and exits.  Its
 * fork was never read and /proc no longer has it when the capture
 * resumes: its process is unknown.  One CPU for all: the fork and the
 * markers share a buffer.  Stays until stdin ends.
 */
static int orphan_fd;
static volatile int orphan_tid;

static void
markers(int n)
{
	static char msg[1000];
	int i;

	memset(msg, 'm', sizeof(msg) - 1);
	msg[sizeof(msg) - 1] = '\n';
	for (i = 0; i < n; i++)
		if (write(orphan_fd, msg, sizeof(msg)) == -1)
			err(1, "trace_marker");
}

static void *
orphan_thread(void *arg)
{
	char c = 'x';

	(void)arg;
	orphan_tid = syscall(SYS_gettid);
	markers(16384);
	if (write(q[1][1], &c, 1) != 1 || read(q[0][0], &c, 1) != 1)
		err(1, "orphan");
	return NULL;
}

static int
orphan(const char *marker)
{
	char line[64], path[64], c;
	cpu_set_t cpus;
	pthread_t t;
	int i;

	CPU_ZERO(&cpus);
	CPU_SET(sched_getcpu(), &cpus);
	if (sched_setaffinity(0, sizeof(cpus), &cpus) == -1)
		err(1, "sched_setaffinity");
	if ((orphan_fd = open(marker, O_WRONLY)) == -1)
		err(1, "%s", marker);
	printf("pid %d\n", (int)getpid());
	fflush(stdout);
	if (fgets(line, sizeof(line), stdin) == NULL)
		errx(1, "no go on stdin");
	/*
	 * The page the capture's reader last took may be the one the kernel
	 * writes to, and it is never overwritten: fill it first (the capture
	 * sets 64 KiB sub-buffers), so that the fork lands in the ring.
	 */
	markers(128);
	if (pipe(q[0]) == -1 || pipe(q[1]) == -1)
		err(1, "pipe");
	if (pthread_create(&t, NULL, orphan_thread, NULL) != 0)
		errx(1, "pthread_create");
	if (read(q[1][0], &c, 1) != 1 || write(q[0][1], &c, 1) != 1)
		err(1, "orphan");
	pthread_join(t, NULL);
	close(orphan_fd);	/* or the capture could not remove its instance */
	/* Joined when it cleared its tid; /proc forgets it a moment later. */
	snprintf(path, sizeof(path), "/proc/%d/status", orphan_tid);
	for (i = 0; i < 1000 && access(path, F_OK) == 0; i++)
		sleep_ms(1);
	if (access(path, F_OK) == 0 || errno != ENOENT)
		errx(1, "%s is still there", path);
	printf("orphan_tid %d\n", orphan_tid);
	fflush(stdout);
	while (fgets(line, sizeof(line), stdin) != NULL)
		;
	return 0;
}

/* The ppid of process pid, from /proc; 0 if none. */
static pid_t
parent_of(pid_t pid)
{
	char path[64], buf[512];
	const char *f;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if ((f = procstat_fields(path, buf, sizeof(buf))) == NULL)
		return 0;
	return (pid_t)strtol(f + 2, NULL, 10);	/* "S PPID" */
}

/* The marker of the nearest ancestor's argus-capture instance. */
static const char *
capture_marker(char *path, size_t len)
{
	pid_t pid;

	for (pid = getppid(); pid > 1; pid = parent_of(pid)) {
		snprintf(path, len,
		    "/sys/kernel/tracing/instances/argus-%d/trace_marker",
		    (int)pid);
		if (access(path, W_OK) == 0)
			return path;
	}
	return "/sys/kernel/tracing/trace_marker";
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
	if (argc == 3 && strcmp(argv[1], "orphan") == 0)
		return orphan(argv[2]);
	/*
	 * Run by argus-capture (its parent, or further up: a shell between):
	 * its instance's own marker file works even on kernels that cannot
	 * copy top-level markers into it, and whatever the top-level
	 * buffer's state, which is not ours.
	 */
	if (mpath == NULL)
		mpath = capture_marker(ipath, sizeof(ipath));
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
