/*
 * burst: probe hits at a given rate from N threads, for bench/burst and
 * the patcher's loss tests.  burst RATE SECONDS [THREADS] has each of
 * THREADS threads (default 1) call bu_probe (an empty function whose
 * first instruction, 5 bytes, the patcher takes alone) RATE times a
 * second for SECONDS seconds: RATE/1000 calls each millisecond, then a
 * sleep to the next one, as a busy event loop makes them, not a spin
 * that would take the recorder's CPU.  Prints the calls made and the ns
 * per call, the sleeps untimed.  burst RATE SECONDS THREADS hang: then
 * hangs, its main thread waiting for a read from a pipe no one writes
 * to, until killed: a hang whose last events a burst may have lost.
 */
#include <err.h>
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

__asm__(".text\n"
    ".globl bu_probe\n.type bu_probe,@function\n"
    "bu_probe:\n\tmovl $0,%eax\n\tret\n.size bu_probe,.-bu_probe\n");
int	bu_probe(long);

#define TICK_NS	1000000L

static long	rate, seconds;

struct worker {
	pthread_t	 t;
	long		 made;
	uint64_t	 spent;
};

static uint64_t
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static void *
run(void *arg)
{
	struct worker *w = arg;
	struct timespec next;
	long ticks = seconds * 1000, k, i, per;
	uint64_t t;

	clock_gettime(CLOCK_MONOTONIC, &next);
	for (k = 0; k < ticks; k++) {
		/* The calls of tick k: rate * (k + 1) / 1000 made by its end. */
		per = rate * (k + 1) / 1000 - w->made;
		t = now();
		for (i = 0; i < per; i++)
			bu_probe(w->made + i);
		w->spent += now() - t;
		w->made += per;
		next.tv_nsec += TICK_NS;
		if (next.tv_nsec >= 1000000000L) {
			next.tv_sec++;
			next.tv_nsec -= 1000000000L;
		}
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL);
	}
	return NULL;
}

int
main(int argc, char *argv[])
{
	struct worker *w;
	long nthreads, i, made = 0;
	uint64_t spent = 0;

	if (argc < 3 || (rate = atol(argv[1])) <= 0 ||
	    (seconds = atol(argv[2])) <= 0 || (nthreads = argc > 3 ?
	    atol(argv[3]) : 1) <= 0 || nthreads > 1024)
		errx(64, "usage: burst RATE SECONDS [THREADS]");
	if ((w = calloc(nthreads, sizeof(*w))) == NULL)
		err(71, NULL);
	for (i = 0; i < nthreads; i++)
		if ((errno = pthread_create(&w[i].t, NULL, run, &w[i])) != 0)
			err(71, "pthread_create");
	for (i = 0; i < nthreads; i++) {
		pthread_join(w[i].t, NULL);
		made += w[i].made;
		spent += w[i].spent;
	}
	printf("pid %d threads %ld calls %ld ns_per_call %.1f\n",
	    (int)getpid(), nthreads, made, made ? (double)spent / made : 0.0);
	if (argc > 4 && strcmp(argv[4], "hang") == 0) {
		int p[2];
		char c;

		fflush(stdout);
		if (pipe(p) == -1)
			err(71, "pipe");
		if (read(p[0], &c, 1) == -1)
			err(71, "read");
	}
	return 0;
}
