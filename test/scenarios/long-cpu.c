/*
 * long-cpu: long CPU work on the main thread, started by a request from
 * another process.  The paper's editors: TeXstudio froze each time another
 * program touched the bibliography it had open, because a file-change
 * callback from fseventd made its main thread reparse the whole file;
 * Sublime Text, TextMate, CotEditor and TextEdit froze the same way on
 * paste or copy of a large text.
 *
 * The editor (lc-editor, the process started) waits on a pipe for file
 * change notices from a watcher (lc-watcher, forked).  On each notice its
 * main thread reloads the document and lays it out again: pure CPU, no
 * system call.  Small documents take a couple of milliseconds; the last
 * notice is for a big one and the main thread computes for seconds.
 *
 * The layout work is real (every line is shaped), but a document's size
 * is given as the time its layout takes, so that the hang lasts -H
 * seconds on any machine.
 */
#include <sys/resource.h>

#include "scenario.h"

enum { NOTICE_CHANGED, NOTICE_QUIT };

struct notice {
	int		kind;
	int		seq;
	int		big;		/* the hang: ground truth, not semantics */
	long long	layout_ns;	/* the document's size, as layout time */
};

#define NORMAL_LAYOUT_NS	(2 * MS)

/* --- the watcher ---------------------------------------------------- */

static FRAME void
send_notice(int fd, const struct notice *n)
{
	if (write(fd, n, sizeof(*n)) != sizeof(*n))
		err(1, "watcher: write");
}

static FRAME void
notify_file_changed(int fd, int seq, int big)
{
	struct notice n = { .kind = NOTICE_CHANGED, .seq = seq, .big = big,
	    .layout_ns = big ? sc.hang_ns : NORMAL_LAYOUT_NS };

	send_notice(fd, &n);
}

static FRAME void
watcher_main(int fd)
{
	struct notice quit = { .kind = NOTICE_QUIT };
	int i;

	name_thread("lc-watcher");
	for (i = 1; i <= sc.episodes; i++) {
		sleep_ns(SPACING_NS);
		truth_ns("episode_begin_ns", now_ns());
		mark_episode(i);
		notify_file_changed(fd, i, 0);
	}
	if (sc.hang) {
		sleep_ns(SPACING_NS);
		truth_ns("hang_begin_ns", now_ns());
		mark("hang-begin");
		notify_file_changed(fd, i, 1);
	}
	send_notice(fd, &quit);
}

/* --- the editor ----------------------------------------------------- */

static volatile unsigned long layout_hash;	/* the work is not elided */
static unsigned long	lines_shaped;

/* One line of text through a toy shaper: a few hundred ns of CPU. */
static FRAME unsigned long
shape_line(unsigned long line)
{
	unsigned long h = line * 0x9e3779b97f4a7c15UL;
	int i;

	for (i = 0; i < 256; i++)
		h = (h ^ (h >> 29)) * 0xbf58476d1ce4e5b9UL + i;
	return h;
}

/* The long operation: lay out lines until the document is done. */
static FRAME void
layout_document(long long layout_ns)
{
	long long end = now_ns() + layout_ns;
	unsigned long line = 0;

	do {
		layout_hash ^= shape_line(line++);
		if (line % 64 == 0 && now_ns() >= end)	/* vDSO: no syscall */
			break;
	} while (1);
	lines_shaped += line;
}

static FRAME void
reload_document(const struct notice *n)
{
	layout_document(n->layout_ns);
}

/*
 * What the main thread's time went to: on CPU, waiting for a CPU (from
 * schedstat; -1 without it), and how often it gave up the CPU itself (a
 * wait) or had it taken (preemption).
 */
struct usage {
	long long	wall, cpu, runq;
	long		voluntary, involuntary;
};

static void
get_usage(struct usage *u)
{
	struct timespec ts;
	struct rusage ru;
	char path[64];
	long long oncpu;
	FILE *f;

	u->wall = now_ns();
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	u->cpu = (long long)ts.tv_sec * SEC + ts.tv_nsec;
	getrusage(RUSAGE_THREAD, &ru);
	u->voluntary = ru.ru_nvcsw;
	u->involuntary = ru.ru_nivcsw;
	u->runq = -1;
	snprintf(path, sizeof(path), "/proc/self/task/%d/schedstat",
	    (int)gettid());
	if ((f = fopen(path, "r")) != NULL) {
		if (fscanf(f, "%lld %lld", &oncpu, &u->runq) != 2)
			u->runq = -1;
		fclose(f);
	}
}

static FRAME void
handle_file_changed(const struct notice *n)
{
	struct usage a, b;

	if (n->big)
		get_usage(&a);
	reload_document(n);
	if (!n->big) {
		truth_ns("episode_end_ns", now_ns());
		return;
	}
	get_usage(&b);
	truth_ns("hang_end_ns", b.wall);
	truth_ns("victim_wall_ns", b.wall - a.wall);
	truth_ns("victim_cpu_ns", b.cpu - a.cpu);
	truth_ns("victim_runq_ns", a.runq < 0 || b.runq < 0 ? -1 :
	    b.runq - a.runq);
	truth("victim_voluntary_switches", "%ld", b.voluntary - a.voluntary);
	truth("victim_involuntary_switches", "%ld",
	    b.involuntary - a.involuntary);
}

/* 0 at end of file. */
static FRAME int
wait_for_notice(int fd, struct notice *n)
{
	ssize_t r;

	while ((r = read(fd, n, sizeof(*n))) == -1 && errno == EINTR)
		;
	if (r == -1)
		err(1, "editor: read");
	if (r != 0 && r != sizeof(*n))
		errx(1, "editor: short notice");
	return r != 0;
}

static FRAME void
editor_main_loop(int fd)
{
	struct notice n;

	while (wait_for_notice(fd, &n) && n.kind == NOTICE_CHANGED)
		handle_file_changed(&n);
}

int
main(int argc, char *argv[])
{
	pid_t watcher;
	int fd[2];

	scenario_init(argc, argv, "long-cpu", "LongRunning");
	if (pipe2(fd, O_CLOEXEC) == -1)
		err(1, "pipe");
	name_thread("lc-editor");
	truth_thread("victim", "lc-editor");
	truth("victim_function", "layout_document");
	truth_thread("root", "lc-editor");
	truth("root_function", "layout_document");
	if ((watcher = fork_child()) == 0) {
		close(fd[0]);
		watcher_main(fd[1]);
		_exit(0);
	}
	close(fd[1]);
	truth("trigger_pid", "%d", (int)watcher);
	truth("trigger_tid", "%d", (int)watcher);
	truth("trigger_comm", "lc-watcher");
	truth("trigger_function", "notify_file_changed");

	editor_main_loop(fd[0]);
	reap_children();
	truth("lines_shaped", "%lu", lines_shaped);
	return 0;
}
