/*
 * pthread-wake: the two ways one thread wakes another through glibc's
 * pthreads, for the pthread.probes tests.
 *
 * A producer hands ROUNDS jobs to a consumer through a condition variable:
 * it sets the job under the mutex, unlocks, then signals, so the wake-up
 * happens inside pthread_cond_signal (the consumer takes the mutex without
 * contention).  Then a holder keeps a priority-inheritance mutex locked
 * while a contender blocks on it, ROUNDS times: the wake-up happens inside
 * pthread_mutex_unlock.  A PI mutex waits in FUTEX_LOCK_PI, which the
 * glibc futex lock protocol does not show, so only the unlock probe tells
 * that hand-off from intent.
 *
 * Each step waits until the other thread is asleep (its state in
 * /proc), so that it is really woken: a fixed nap is too short on a
 * machine whose CPUs are busy, where the other thread may not yet have
 * run to its wait.  Prints key=value lines: the threads and the
 * addresses of the objects.
 *
 * pthread-wake N: a benchmark instead, for bench/overhead: N rounds of
 * lock, signal (no one waits), unlock, what a producer does per job; prints
 * the ns per round, to measure what the pthread probes cost.
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

#define ROUNDS	5

static pthread_mutex_t	jobs_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t	jobs_ready = PTHREAD_COND_INITIALIZER;
static int		jobs, done;

static pthread_mutex_t	pi_lock;
static pthread_barrier_t contend;

static volatile pid_t tid_consumer, tid_producer, tid_holder, tid_contender;

static void
nap(long ms)
{
	struct timespec ts = { 0, ms * 1000000 };

	nanosleep(&ts, NULL);
}

static pid_t
gettid_(void)
{
	return (pid_t)syscall(SYS_gettid);
}

/* Thread tid's state letter, from /proc/self/task/TID/stat; '?' if none. */
static char
state_of(pid_t tid)
{
	char path[64], buf[512];
	const char *f;

	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", (int)tid);
	return (f = procstat_fields(path, buf, sizeof(buf))) != NULL ? f[0] : '?';
}

/*
 * Until thread *tid (set once it has started) sleeps: at most 10 s, then
 * on regardless (the test then counts one wake-up fewer and says so).
 */
static void
await_asleep(volatile pid_t *tid)
{
	int i;

	for (i = 0; i < 10000; i++) {
		if (*tid != 0 && state_of(*tid) == 'S')
			return;
		nap(1);
	}
}

static void *
consumer(void *arg)
{
	(void)arg;
	tid_consumer = gettid_();
	pthread_mutex_lock(&jobs_lock);
	while (done < ROUNDS) {
		while (jobs == 0)
			pthread_cond_wait(&jobs_ready, &jobs_lock);
		jobs--;
		done++;
	}
	pthread_mutex_unlock(&jobs_lock);
	return NULL;
}

static void *
producer(void *arg)
{
	int i;

	(void)arg;
	tid_producer = gettid_();
	for (i = 0; i < ROUNDS; i++) {
		await_asleep(&tid_consumer);	/* in pthread_cond_wait */
		pthread_mutex_lock(&jobs_lock);
		jobs++;
		pthread_mutex_unlock(&jobs_lock);
		pthread_cond_signal(&jobs_ready);
	}
	return NULL;
}

static void *
contender(void *arg)
{
	int i;

	(void)arg;
	tid_contender = gettid_();
	for (i = 0; i < ROUNDS; i++) {
		pthread_barrier_wait(&contend);
		pthread_mutex_lock(&pi_lock);
		pthread_mutex_unlock(&pi_lock);
	}
	return NULL;
}

static void *
holder(void *arg)
{
	int i;

	(void)arg;
	tid_holder = gettid_();
	for (i = 0; i < ROUNDS; i++) {
		pthread_mutex_lock(&pi_lock);
		pthread_barrier_wait(&contend);
		await_asleep(&tid_contender);	/* blocked on pi_lock */
		pthread_mutex_unlock(&pi_lock);
		nap(2);		/* and takes it before the next round */
	}
	return NULL;
}

static void
run2(void *(*a)(void *), void *(*b)(void *))
{
	pthread_t ta, tb;

	if ((errno = pthread_create(&ta, NULL, a, NULL)) != 0 ||
	    (errno = pthread_create(&tb, NULL, b, NULL)) != 0)
		err(1, "pthread_create");
	pthread_join(ta, NULL);
	pthread_join(tb, NULL);
}

static int
bench(long n)
{
	struct timespec a, b;
	long i;

	clock_gettime(CLOCK_MONOTONIC, &a);
	for (i = 0; i < n; i++) {
		pthread_mutex_lock(&jobs_lock);
		jobs++;
		pthread_cond_signal(&jobs_ready);
		pthread_mutex_unlock(&jobs_lock);
	}
	clock_gettime(CLOCK_MONOTONIC, &b);
	printf("rounds %d ns_per_round %.0f\n", jobs,
	    ((b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec)) / n);
	return 0;
}

int
main(int argc, char *argv[])
{
	pthread_mutexattr_t ma;

	if (argc > 1)
		return bench(atol(argv[1]) > 0 ? atol(argv[1]) : 1);

	pthread_mutexattr_init(&ma);
	if ((errno = pthread_mutexattr_setprotocol(&ma,
	    PTHREAD_PRIO_INHERIT)) != 0)
		err(1, "pthread_mutexattr_setprotocol");
	pthread_mutex_init(&pi_lock, &ma);
	pthread_barrier_init(&contend, NULL, 2);

	run2(consumer, producer);
	run2(contender, holder);

	printf("pid=%d\n", (int)getpid());
	printf("consumer=%d\nproducer=%d\ncond=%p\n", (int)tid_consumer,
	    (int)tid_producer, (void *)&jobs_ready);
	printf("contender=%d\nholder=%d\nmutex=%p\n", (int)tid_contender,
	    (int)tid_holder, (void *)&pi_lock);
	return 0;
}
