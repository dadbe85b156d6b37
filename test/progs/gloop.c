/*
 * gloop: a plain GMainLoop (no GTK) for the probe tests.  A repeating
 * 20 ms timeout ticks TICKS times; each tick adds an idle source, which
 * runs once and adds a one-shot 5 ms timeout, which runs once; after the
 * last of those, an idle quits the loop (not a timer after the last
 * tick: on a busy machine it fired before the last one-shot had run).
 * Every callback is one dispatch, so the trace should hold 3 * TICKS + 1
 * callouts of the main thread, and an attach (submit) before each
 * source's first dispatch.  Prints "pid N" and the callback count.
 *
 * gloop ticks N: the same with N ticks (a loop that runs for a while, for
 * argus patch --pid).
 *
 * gloop N: a benchmark instead: N one-shot idle sources, each added by
 * the one before (an attach and a dispatch each); prints the ns per
 * callback, to measure what the probes cost.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <glib.h>

#define TICKS	5

static GMainLoop *loop;
static int ticks, onces, calls, nticks = TICKS;

static gboolean
quit(gpointer data)
{
	(void)data;
	calls++;
	g_main_loop_quit(loop);
	return G_SOURCE_REMOVE;
}

static gboolean
once(gpointer data)
{
	(void)data;
	calls++;
	usleep(1000);		/* some work: a vertex with time on a CPU */
	if (++onces == nticks)
		g_idle_add(quit, NULL);
	return G_SOURCE_REMOVE;
}

static gboolean
idle(gpointer data)
{
	(void)data;
	calls++;
	g_timeout_add(5, once, NULL);
	return G_SOURCE_REMOVE;
}

static gboolean
tick(gpointer data)
{
	(void)data;
	calls++;
	g_idle_add(idle, NULL);
	return ++ticks < nticks ? G_SOURCE_CONTINUE : G_SOURCE_REMOVE;
}

static long left;

static gboolean
chain(gpointer data)
{
	(void)data;
	calls++;
	if (--left > 0)
		g_idle_add(chain, NULL);
	else
		g_main_loop_quit(loop);
	return G_SOURCE_REMOVE;
}

static int
bench(long n)
{
	struct timespec a, b, ca, cb;
	double ns, cpu;

	loop = g_main_loop_new(NULL, FALSE);
	left = n;
	g_idle_add(chain, NULL);
	clock_gettime(CLOCK_MONOTONIC, &a);
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ca);
	g_main_loop_run(loop);
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &cb);
	clock_gettime(CLOCK_MONOTONIC, &b);
	ns = (b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec);
	cpu = (cb.tv_sec - ca.tv_sec) * 1e9 + (cb.tv_nsec - ca.tv_nsec);
	/* The CPU time too: on a busy machine the wall time is mostly the
	 * wait for a CPU (bench/patchers). */
	printf("callbacks %d ns_per_callback %.0f cpu_ns_per_callback %.0f\n",
	    calls, ns / calls, cpu / calls);
	g_main_loop_unref(loop);
	return 0;
}

int
main(int argc, char *argv[])
{
	if (argc > 2 && strcmp(argv[1], "ticks") == 0)
		nticks = atoi(argv[2]) > 0 ? atoi(argv[2]) : 1;
	else if (argc > 1)
		return bench(atol(argv[1]) > 0 ? atol(argv[1]) : 1);
	printf("pid %d\n", (int)getpid());
	fflush(stdout);
	loop = g_main_loop_new(NULL, FALSE);
	g_timeout_add(20, tick, NULL);
	g_main_loop_run(loop);
	g_main_loop_unref(loop);
	printf("calls %d\n", calls);
	return 0;
}
