/*
 * scenario.h: what every hang scenario shares.  Each scenario is one
 * program (NAME.c), and this header gives them one command line, one way
 * to write ground truth and one way to die on SIGTERM, so that tests and
 * `argus demo` drive them all alike:
 *
 *	NAME [-n EPISODES] [-H HANG_SECONDS] [-t TRUTH_FILE] [--no-hang]
 *
 * The ground truth is "key=value" lines, each written with one write(2)
 * on an O_APPEND descriptor as soon as it is known, so that threads and
 * forked processes can add to it and a capture cut during the hang finds
 * hang_begin_ns already there.  Times are CLOCK_MONOTONIC nanoseconds, the
 * clock of the trace.
 *
 * Function names are ground truth too: a diagnosis must name them.  GCC at
 * -O2 inlines, clones (foo.constprop.0) and tail-calls small functions and
 * omits frame pointers, and any of these takes a name off the stack a
 * tracer sees.  Hence FRAME on every function the truth names, and frame
 * pointers and no sibling calls for all code here.  A frame-pointer walk
 * still loses the function that called the libc wrapper directly (the
 * wrapper keeps no frame), so a function the truth names never calls into
 * libc itself where it waits: it calls a helper below that does.
 */
#ifndef SCENARIO_H
#define SCENARIO_H

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize ("no-omit-frame-pointer", "no-optimize-sibling-calls")
#define FRAME	__attribute__((noipa, used))
#else
#define FRAME	__attribute__((noinline, used))
#endif
/* Not every scenario uses every helper. */
#define SHARED	static __attribute__((unused))

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <sys/prctl.h>
#include <sys/wait.h>

#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MS		1000000LL
#define SEC		1000000000LL
#define SPACING_NS	(150 * MS)	/* between episodes: separate in a trace */
#define MAX_CHILDREN	8

static struct scenario {
	const char	*name;
	int		 episodes;	/* normal episodes before the hang */
	long long	 hang_ns;	/* how long the hang lasts */
	int		 hang;		/* 0 with --no-hang */
	int		 truth_fd;	/* -1: no truth file */
	int		 marker_fd;	/* -1: no trace_marker */
	pid_t		 children[MAX_CHILDREN];
	int		 nchildren;
} sc = { .truth_fd = -1, .marker_fd = -1 };

SHARED long long
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * SEC + ts.tv_nsec;
}

/* Sleep the whole duration: a signal that interrupts it is not the end. */
SHARED FRAME void
sleep_ns(long long ns)
{
	struct timespec ts = { ns / SEC, ns % SEC };

	while (clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, &ts) == EINTR)
		;
}

/* One line, one write: lines from threads and processes never mix. */
SHARED void __attribute__((format(printf, 2, 3)))
truth(const char *key, const char *fmt, ...)
{
	char line[512];
	va_list ap;
	int n;

	if (sc.truth_fd == -1)
		return;
	n = snprintf(line, sizeof(line), "%s=", key);
	va_start(ap, fmt);
	n += vsnprintf(line + n, sizeof(line) - n - 1, fmt, ap);
	va_end(ap);
	if (n > (int)sizeof(line) - 2)
		n = sizeof(line) - 2;
	line[n++] = '\n';
	if (write(sc.truth_fd, line, n) != n)
		warn("truth file");
}

SHARED void
truth_ns(const char *key, long long ns)
{
	truth(key, "%lld", ns);
}

/* Who this thread is, in the truth file's terms: PREFIX_pid, _tid, _comm. */
SHARED void
truth_thread(const char *prefix, const char *comm)
{
	char key[64];

	snprintf(key, sizeof(key), "%s_pid", prefix);
	truth(key, "%d", (int)getpid());
	snprintf(key, sizeof(key), "%s_tid", prefix);
	truth(key, "%d", (int)gettid());
	snprintf(key, sizeof(key), "%s_comm", prefix);
	truth(key, "%s", comm);
}

/* A trace_marker annotation, if a tracer is there to read it. */
SHARED void
mark(const char *what)
{
	char line[128];
	int n;

	if (sc.marker_fd == -1)
		return;
	n = snprintf(line, sizeof(line), "argus-scenario %s %s", sc.name, what);
	/* A full or stopped buffer is not our problem. */
	if (write(sc.marker_fd, line, n) == -1)
		return;
}

/*
 * The same marker for every episode, normal or not: a hang whose vertex
 * held one more write than its baseline would look less like it.
 */
SHARED void
mark_episode(int i)
{
	char what[32];

	snprintf(what, sizeof(what), "episode-begin %d", i);
	mark(what);
}

/* Thread names are how a system-wide trace finds us: at most 15 chars. */
SHARED void
name_thread(const char *name)
{
	prctl(PR_SET_NAME, name, 0, 0, 0);
}

SHARED void
reap_children(void)
{
	int i;

	for (i = 0; i < sc.nchildren; i++)
		if (sc.children[i] > 0 && waitpid(sc.children[i], NULL, 0) != -1)
			sc.children[i] = 0;
}

/* SIGTERM or SIGINT: take the children down with us, leave nothing. */
static void
on_term(int sig)
{
	int i;

	for (i = 0; i < sc.nchildren; i++)
		if (sc.children[i] > 0)
			kill(sc.children[i], SIGKILL);
	for (i = 0; i < sc.nchildren; i++)
		if (sc.children[i] > 0)
			waitpid(sc.children[i], NULL, 0);
	_exit(128 + sig);
}

/* A child dies with its parent, however the parent goes. */
SHARED pid_t
fork_child(void)
{
	pid_t parent = getpid(), pid;

	if (sc.nchildren == MAX_CHILDREN)
		errx(1, "too many children");
	if ((pid = fork()) == -1)
		err(1, "fork");
	if (pid == 0) {
		signal(SIGTERM, SIG_DFL);
		signal(SIGINT, SIG_DFL);
		sc.nchildren = 0;
		prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
		if (getppid() != parent)
			_exit(1);
		return 0;
	}
	sc.children[sc.nchildren++] = pid;
	return pid;
}

static void __attribute__((noreturn))
usage(void)
{
	fprintf(stderr, "usage: %s [-n episodes] [-H hang-seconds] "
	    "[-t truth-file] [--no-hang]\n", sc.name);
	exit(64);
}

SHARED void
scenario_init(int argc, char *argv[], const char *name, const char *pattern)
{
	static const struct option longopts[] = {
		{ "episodes",	required_argument,	NULL, 'n' },
		{ "hang",	required_argument,	NULL, 'H' },
		{ "truth",	required_argument,	NULL, 't' },
		{ "no-hang",	no_argument,		NULL, 'N' },
		{ "help",	no_argument,		NULL, 'h' },
		{ NULL,		0,			NULL, 0 }
	};
	struct sigaction sa;
	const char *truthfile = NULL, *marker;
	double hang = 3;
	char *end;
	long n;
	int ch;

	sc.name = name;
	sc.episodes = 3;
	sc.hang = 1;
	while ((ch = getopt_long(argc, argv, "n:H:t:h", longopts, NULL)) != -1) {
		switch (ch) {
		case 'n':
			errno = 0;
			n = strtol(optarg, &end, 10);
			if (errno || *end || end == optarg || n < 0 || n > 1000) {
				warnx("-n: not a number of episodes (0 to 1000): "
				    "'%s'", optarg);
				usage();
			}
			sc.episodes = n;
			break;
		case 'H':
			errno = 0;
			hang = strtod(optarg, &end);
			if (errno || *end || end == optarg || !(hang >= 0.1) ||
			    hang > 600) {
				warnx("-H: not a hang in seconds (0.1 to 600): "
				    "'%s'", optarg);
				usage();
			}
			break;
		case 't':
			truthfile = optarg;
			break;
		case 'N':
			sc.hang = 0;
			break;
		default:
			usage();
		}
	}
	if (optind != argc)
		usage();
	sc.hang_ns = hang * SEC;

	if (truthfile != NULL && (sc.truth_fd = open(truthfile,
	    O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_NOFOLLOW | O_CLOEXEC,
	    0600)) == -1)
		err(66, "%s", truthfile);
	/*
	 * The top level's trace_marker reaches an instance only with its
	 * options/copy_trace_marker set (Linux 6.17 on); a capture on an
	 * older kernel names its instance's own marker file here.
	 */
	if ((marker = getenv("ARGUS_TRACE_MARKER")) != NULL)
		sc.marker_fd = open(marker, O_WRONLY | O_CLOEXEC);
	else if ((sc.marker_fd = open("/sys/kernel/tracing/trace_marker",
	    O_WRONLY | O_CLOEXEC)) == -1)
		sc.marker_fd = open("/sys/kernel/debug/tracing/trace_marker",
		    O_WRONLY | O_CLOEXEC);

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_term;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);	/* a peer gone is an error, not a death */

	truth("scenario", "%s", name);
	truth("pattern", "%s", pattern);
	truth("episodes", "%d", sc.episodes);
	truth("hang", "%d", sc.hang);
	truth_ns("hang_ns", sc.hang_ns);
}

#endif
