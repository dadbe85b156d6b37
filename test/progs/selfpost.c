/*
 * selfpost: a thread waits on what only another thread of its own process
 * will post, the first time (no earlier wait like it), for patterns.bats.
 *
 *   selfpost pipe TRUTH   the main thread reads a pipe this process alone
 *                         holds; the poster writes it after 3 s asleep
 *   selfpost cond TRUTH   the main thread waits on a condition variable
 *                         (a futex nothing names); the poster signals it
 *                         after 3 s asleep
 *
 * The poster falls asleep only once the main thread is asleep in its wait
 * (its state in /proc): its sleep begins after the wait, whatever the
 * machine's load.  Writes the ground truth to TRUTH as patterns.py does:
 * victim_pid, root_pid, root_tid, hang_begin_ns, hang_end_ns.
 */
#include <err.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "procstat.h"

static pthread_mutex_t	lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t	posted = PTHREAD_COND_INITIALIZER;
static int		done, fds[2];
static const char	*mode;
static pid_t		victim;
static FILE		*truth;

static unsigned long long
mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static void
say(const char *key, unsigned long long v)
{
	fprintf(truth, "%s=%llu\n", key, v);
	fflush(truth);
}

/* Whether thread tid of this process sleeps (S). */
static int
asleep(pid_t tid)
{
	char path[64], buf[512];
	const char *f;

	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", (int)tid);
	return (f = procstat_fields(path, buf, sizeof(buf))) != NULL &&
	    *f == 'S';
}

static void *
poster(void *arg)
{
	struct timespec nap = { 0, 10000000 }, slow = { 3, 0 };
	int i;

	(void)arg;
	say("root_tid", syscall(SYS_gettid));
	for (i = 0; i < 1000 && !asleep(victim); i++)
		nanosleep(&nap, NULL);
	nanosleep(&slow, NULL);
	if (strcmp(mode, "pipe") == 0) {
		if (write(fds[1], "x", 1) != 1)
			err(1, "write");
	} else {
		pthread_mutex_lock(&lock);
		done = 1;
		pthread_cond_signal(&posted);
		pthread_mutex_unlock(&lock);
	}
	return NULL;
}

int
main(int argc, char *argv[])
{
	pthread_t t;
	char c;

	if (argc != 3 || (strcmp(argv[1], "pipe") != 0 &&
	    strcmp(argv[1], "cond") != 0))
		errx(64, "usage: selfpost pipe|cond TRUTH");
	mode = argv[1];
	if ((truth = fopen(argv[2], "a")) == NULL)
		err(1, "%s", argv[2]);
	if (pipe(fds) == -1)
		err(1, "pipe");
	victim = getpid();
	say("victim_pid", victim);
	say("root_pid", victim);
	say("hang_begin_ns", mono());
	if ((errno = pthread_create(&t, NULL, poster, NULL)) != 0)
		err(1, "pthread_create");
	if (strcmp(mode, "pipe") == 0) {
		if (read(fds[0], &c, 1) != 1)
			err(1, "read");
	} else {
		pthread_mutex_lock(&lock);
		while (!done)
			pthread_cond_wait(&posted, &lock);
		pthread_mutex_unlock(&lock);
	}
	say("hang_end_ns", mono());
	pthread_join(t, NULL);
	return 0;
}
