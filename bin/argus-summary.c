/*
 * argus-summary: the first look at a capture, as perf sched latency gives
 * one: how long it lasts, what it holds and lost, and the threads that
 * ran most, were blocked most and waited longest for a CPU.
 *
 * One pass over the events, keeping each thread's state as the
 * scheduler's events tell it: on a CPU from its switch-in to its
 * switch-out; blocked from a switch-out that is a wait to its wake-up;
 * runnable from a wake-up, or from a switch-out while still runnable
 * (preempted, yielding), to its switch-in, which is its scheduling delay
 * as perf sched latency measures it.  A thread's state is unknown until
 * an event says it, and a CPU's time before its first event is no one's.
 */
#include <getopt.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <uthash.h>

#include "event.h"
#include "graph.h"
#include "show.h"
#include "util.h"

static const char usage[] =
"usage: argus-summary [-aLP] [-n COUNT] [-s TIME] [-u TIME] [-p PID] [-t TID]\n"
"                     [-c COMM] [FILE ...]\n"
"The first look at a capture: its span, events by type, what was lost,\n"
"CPUs; then the threads that ran most (time on CPU), were blocked most\n"
"(off CPU, not runnable: how often, the longest wait and its system\n"
"call), and waited longest for a CPU once runnable (scheduling delay,\n"
"as perf sched latency shows it).\n"
"\n"
"  -n, --count COUNT   threads in each table (default 10; 0: all)\n"
"  -s, --since TIME    only what happened from TIME\n"
"  -u, --until TIME    only what happened to TIME\n"
"                      TIME is CLOCK_MONOTONIC nanoseconds, +DURATION\n"
"                      (e.g. +1.5s) from the first record's time, or a\n"
"                      clock time: 10:22:15, '2026-11-25 10:22:15.5'\n"
"  -a, --all           idle threads too: those only their own timers woke\n"
"                      that woke no one (a loop idling), kernel threads\n"
"                      idle (state I); left out of the blocked by default\n"
"  -p, --pid PID       only this process's threads in the tables\n"
"  -t, --tid TID       only this thread\n"
"  -c, --comm NAME     only threads named NAME, or of a process whose main\n"
"                      thread is\n"
"  -L, --live          files may still be being written (a flight\n"
"                      recorder's): read each up to its last flush\n"
"  -P, --progress      say on stderr how far the reading has come\n"
"  -h, --help          this text\n"
"  -V, --version       version and record stream version\n"
"\n"
"Times are in milliseconds.  Without FILE, or with -, read stdin.\n"
"Exit: 0 ok, 64 usage, 65 bad input, 66 cannot open.  See\n"
"argus-summary(1).\n";

#define COMM_LEN	16	/* the kernel's TASK_COMM_LEN */
#define CALL_LEN	24
#define MS(ns)		((ns) / 1e6)

enum tstate {
	TS_UNKNOWN,	/* no event has said yet */
	TS_NEW,		/* forked, not yet woken */
	TS_RUNNING,
	TS_RUNNABLE,
	TS_BLOCKED,
	TS_DEAD,
};

struct thread {
	uint32_t	 tid, pid;
	char		 comm[COMM_LEN];
	enum tstate	 state;
	int		 woken;		/* woken before its switch-out: no wait */
	uint64_t	 since;		/* blocked or runnable since */
	char		 call[CALL_LEN];	/* the system call it is in */
	char		 blocked_in[CALL_LEN];
	uint64_t	 oncpu, runs;
	uint64_t	 blocked, waits, longest;
	char		 longest_in[CALL_LEN];
	int		 longest_open;	/* still waiting when the trace ended */
	uint64_t	 delay, delays, delay_max, delay_max_at;
	/* Whether it is idle: see idle(). */
	uint64_t	 sleeps, isleeps;	/* blocking switch-outs; in I */
	uint64_t	 closed, by_timer;	/* waits ended; by a timer */
	int		 woke;		/* it woke another thread */
	struct thread	*retired;	/* its tid went to a new thread */
	UT_hash_handle	 hh;
};

struct cpu {
	struct thread	*cur;		/* on it since `since' */
	uint64_t	 since;
	int		 in_timer;	/* in a timer's callback */
	int		 seen;
	uint64_t	 lost;
};

/* Record kinds other than event, as met. */
struct kind {
	char		 name[24];
	uint64_t	 n;
};

static struct thread	*threads, *retired;
static struct cpu	*cpus;
static size_t		 ncpus;		/* seen: the highest CPU + 1 */
static struct kind	 kinds[32];
static size_t		 nkinds;
static uint64_t		 ntype[E_NTYPES], nevents, nlost, nexited;
static uint64_t		 npending;	/* meta records before the window */

/* The window: from its first record, or -s, to its last, or -u. */
static struct when	 since, until;
static uint64_t		 wfrom = NO_TIME, wto = UINT64_MAX, first = NO_TIME,
			 last = NO_TIME;

/* What the stream says of itself (meta records), the latest of each. */
static struct {
	char		 source[32], host[64], kernel[64], program[64];
	uint64_t	 cpus, lost;
	int		 has_lost;
} meta;

/* A name into its field, cut to fit: once an event, so no printf. */
static void
copy(char *dst, size_t size, const char *src)
{
	size_t n = strnlen(src, size - 1);

	memcpy(dst, src, n);
	dst[n] = '\0';
}

/* The part of [from, to] within the window. */
static uint64_t
within(uint64_t from, uint64_t to)
{
	if (from < wfrom)
		from = wfrom;
	if (to > wto)
		to = wto;
	return to > from ? to - from : 0;
}

static struct thread *
thread(uint32_t tid, uint32_t pid)
{
	struct thread *t;

	HASH_FIND(hh, threads, &tid, sizeof(tid), t);
	if (t == NULL) {
		t = xcalloc(1, sizeof(*t));
		t->tid = tid;
		HASH_ADD(hh, threads, tid, sizeof(t->tid), t);
	}
	if (pid != 0)
		t->pid = pid;
	return t;
}

/* A new thread by an old one's tid: the old one is kept for the tables. */
static struct thread *
thread_new(uint32_t tid, uint32_t pid)
{
	struct thread *t;

	HASH_FIND(hh, threads, &tid, sizeof(tid), t);
	if (t != NULL && t->state == TS_DEAD) {
		HASH_DEL(threads, t);
		t->retired = retired;
		retired = t;
	}
	t = thread(tid, pid);
	t->state = TS_NEW;
	return t;
}

static struct cpu *
cpu(uint32_t c)
{
	size_t n;

	if (c >= ncpus) {
		n = c + 1 > 2 * ncpus ? c + 1 : 2 * ncpus;
		cpus = xrealloc(cpus, n * sizeof(*cpus));
		memset(cpus + ncpus, 0, (n - ncpus) * sizeof(*cpus));
		ncpus = c + 1;
	}
	return &cpus[c];
}

/* The wait of t ends at `now' (its wake-up), or with the trace (open). */
static void
end_wait(struct thread *t, uint64_t now, int open)
{
	uint64_t len = within(t->since, now);

	if (now < wfrom)
		return;
	t->blocked += len;
	t->waits++;
	t->closed += !open;
	if (len >= t->longest) {
		t->longest = len;
		t->longest_open = open;
		memcpy(t->longest_in, t->blocked_in, sizeof(t->longest_in));
	}
}

static void
switch_in(struct thread *t, uint64_t now)
{
	uint64_t d;

	if (t->state == TS_RUNNABLE && now >= wfrom) {
		d = within(t->since, now);
		t->delay += d;
		t->delays++;
		if (d >= t->delay_max) {
			t->delay_max = d;
			t->delay_max_at = now;
		}
	} else if (t->state == TS_BLOCKED)
		end_wait(t, now, 0);	/* its wake-up was not seen */
	if (now >= wfrom)
		t->runs++;
	t->state = TS_RUNNING;
	t->woken = 0;
}

/* switch,STATE,TPID,TTID,TCOMM: t leaves the CPU to the next. */
static void
take_switch(const struct event *ev, struct thread *t, struct cpu *c)
{
	const char *state = event_str(ev, 0);
	struct thread *n;

	n = thread(event_u64(ev, 2), event_pid(ev, 1));
	if (n->comm[0] == '\0')
		copy(n->comm, sizeof(n->comm), event_str(ev, 3));
	t->oncpu += within(c->since, ev->time);
	if (t->tid != 0 && t->state != TS_DEAD) {
		if (state[0] == '\0')
			t->state = TS_UNKNOWN;
		else if (state_is_wait(state) && !t->woken) {
			if (ev->time >= wfrom) {
				t->sleeps++;
				t->isleeps += state[0] == 'I';
			}
			t->state = TS_BLOCKED;
			memcpy(t->blocked_in, t->call, sizeof(t->blocked_in));
		} else
			t->state = TS_RUNNABLE;
		t->since = ev->time;
		t->woken = 0;
	}
	if (n->tid != 0)
		switch_in(n, ev->time);
	c->cur = n;
	c->since = ev->time;
}

/*
 * waking, wakeup_new: TPID,TTID,TARGET_CPU,TCOMM, by t on CPU c: in a
 * timer's callback, a timer's doing; in a task, that task's.
 */
static void
take_waking(const struct event *ev, struct thread *t, const struct cpu *c)
{
	struct thread *w;

	w = thread(event_u64(ev, 1), event_pid(ev, 0));
	if (ev->time >= wfrom && ev->ctx == '-' && t != w && t->tid != 0)
		t->woke = 1;
	if (w->comm[0] == '\0')
		copy(w->comm, sizeof(w->comm), event_str(ev, 3));
	if (w->tid == 0)
		return;
	switch (w->state) {
	case TS_UNKNOWN:
		if (ev->type == E_WAKEUP_NEW)
			break;
		/* Asleep since before the window, in no call it showed. */
		w->since = wfrom;
		w->blocked_in[0] = '\0';
		/* FALLTHROUGH */
	case TS_BLOCKED:
		end_wait(w, ev->time, 0);
		if (ev->time >= wfrom && c->in_timer)
			w->by_timer++;
		break;
	case TS_RUNNING:
		w->woken = 1;	/* it had not left its CPU yet */
		return;
	case TS_NEW:
		break;
	default:
		return;
	}
	w->state = TS_RUNNABLE;
	w->since = ev->time;
}

/* exec's FILENAME: the thread takes its base name, as the kernel cuts it. */
static void
take_exec(const struct event *ev, struct thread *t)
{
	const char *name = event_str(ev, 0), *slash;

	if ((slash = strrchr(name, '/')) != NULL)
		name = slash + 1;
	copy(t->comm, sizeof(t->comm), name);
}

static void
take_event(const struct event *ev)
{
	struct thread *t = thread(ev->tid, ev->pid);
	struct cpu *c = cpu(ev->cpu);
	const char *name;

	if (ev->time >= wfrom) {
		nevents++;
		ntype[ev->type]++;
	}
	/*
	 * Any event runs on its CPU (one in an interrupt, in the task it
	 * interrupted): the first of a CPU says who runs there, and one of
	 * another thread than the CPU's says a switch was lost.
	 */
	if (!c->seen || c->cur != t) {
		if (c->seen)
			c->cur->oncpu += within(c->since, ev->time);
		c->seen = 1;
		c->cur = t;
		c->since = ev->time;
		if (t->state == TS_UNKNOWN || t->state == TS_NEW)
			t->state = TS_RUNNING;
		else if (t->state != TS_RUNNING && t->state != TS_DEAD &&
		    t->tid != 0)
			switch_in(t, ev->time);
	}
	/* A wake-up that came as it went to sleep, then something else. */
	if (t->woken && ev->ctx == '-' && ev->type != E_SWITCH)
		t->woken = 0;
	switch (ev->type) {
	case E_SWITCH:
		take_switch(ev, t, c);
		break;
	case E_WAKING:
	case E_WAKEUP_NEW:
		take_waking(ev, t, c);
		break;
	case E_HRT_EXPIRE_ENTRY:
	case E_TIMER_EXPIRE_ENTRY:
		c->in_timer = 1;
		break;
	case E_HRT_EXPIRE_EXIT:
	case E_TIMER_EXPIRE_EXIT:
		c->in_timer = 0;
		break;
	case E_FORK:
		t = thread_new(event_u64(ev, 1), event_pid(ev, 0));
		copy(t->comm, sizeof(t->comm), event_str(ev, 3));
		break;
	case E_EXEC:
		take_exec(ev, t);
		break;
	case E_COMM:
		t = thread(event_u64(ev, 1), event_pid(ev, 0));
		copy(t->comm, sizeof(t->comm), event_str(ev, 3));
		break;
	case E_EXIT:
		if (t->state != TS_DEAD && ev->time >= wfrom)
			nexited++;
		t->state = TS_DEAD;
		break;
	case E_SYS_ENTER:
		name = event_str(ev, 1);
		if (*name != '\0')
			copy(t->call, sizeof(t->call), name);
		else
			snprintf(t->call, sizeof(t->call), "syscall %s",
			    event_str(ev, 0));
		break;
	case E_SYS_EXIT:
		t->call[0] = '\0';
		break;
	default:
		break;
	}
}

/* The length of the first n words of s. */
static size_t
words(const char *s, int n)
{
	size_t len = 0;

	while (n-- > 0 && s[len] != '\0') {
		len += s[len] == ' ';
		len += strcspn(s + len, " ");
	}
	return len;
}

/* meta,TIME,,,KEY,VALUE: what the summary's header tells. */
static void
take_meta(const struct record *rec)
{
	const char *key = record_str(rec, COL_FIRST_OWN);
	const char *v = record_str(rec, COL_FIRST_OWN + 1);
	uint64_t n;

	wall_learn(rec);
	if (strcmp(key, "source") == 0)
		copy(meta.source, sizeof(meta.source), v);
	else if (strcmp(key, "hostname") == 0)
		copy(meta.host, sizeof(meta.host), v);
	else if (strcmp(key, "capture") == 0 || strcmp(key, "import") == 0 ||
	    strcmp(key, "recorder") == 0)
		copy(meta.program, sizeof(meta.program), v);
	else if (strcmp(key, "kernel") == 0)	/* its name and release */
		snprintf(meta.kernel, sizeof(meta.kernel), "%.*s",
		    (int)words(v, 2), v);
	else if (strcmp(key, "cpus") == 0) {
		if ((n = record_u64(rec, COL_FIRST_OWN + 1)) > meta.cpus)
			meta.cpus = n;
	} else if (strcmp(key, META_LOST) == 0) {
		meta.lost = record_u64(rec, COL_FIRST_OWN + 1);
		meta.has_lost = 1;
	}
}

/* lost,TIME,,,CPU,COUNT */
static void
take_lost(const struct record *rec)
{
	uint64_t c = record_u64(rec, COL_FIRST_OWN);
	uint64_t n = record_u64(rec, COL_FIRST_OWN + 1);

	if (c >= MAX_CPUS)
		diex(EX_DATAERR, "%s:%lu: lost record: CPU out of range: %llu",
		    rec->file, rec->line, (unsigned long long)c);
	if (rec->time != NO_TIME && rec->time < wfrom)
		return;
	cpu(c)->lost += n;
	nlost += n;
}

static void
count_kind(const char *name)
{
	size_t i;

	for (i = 0; i < nkinds; i++)
		if (strcmp(kinds[i].name, name) == 0)
			break;
	if (i == nkinds) {
		if (nkinds == ARRAY_LEN(kinds))
			return;		/* a user's many kinds: the first few */
		copy(kinds[nkinds++].name, sizeof(kinds[0].name), name);
	}
	kinds[i].n++;
}

/*
 * The window, once the stream has said what it needs: the first time for
 * +DURATION, the wall-clock anchor for a clock time, which come with the
 * meta records at its start.  It opens at the first timed record, or at
 * -s.
 */
static void
open_window(void)
{
	uint64_t t;

	wfrom = first;
	if (since.set && (t = when_resolve(&since, first)) > first)
		wfrom = t;
	if (until.set)
		wto = when_resolve(&until, first);
	/* The meta records before: at the stream's start, as a rule. */
	if (wfrom == first && nkinds == 0 && npending > 0) {
		copy(kinds[0].name, sizeof(kinds[0].name), KIND_META);
		kinds[nkinds++].n = npending;
	}
}

/*
 * Records before the window say who runs, sleeps or waits, and are not
 * counted.  Past -u there is nothing more to count: 0.
 */
static int
take(const struct record *rec)
{
	struct event ev;
	int meta_rec;

	if (rec->comment)
		return 1;
	meta_rec = strcmp(rec->f[COL_KIND], KIND_META) == 0;
	if (rec->time != NO_TIME) {
		if (first == NO_TIME)
			first = rec->time;
		if (wfrom == NO_TIME && !meta_rec)
			open_window();
		if (rec->time > wto)
			return 0;
		if (rec->time >= wfrom || wfrom == NO_TIME)
			last = last == NO_TIME || rec->time > last ?
			    rec->time : last;
	}
	if (event_parse(rec, &ev)) {
		take_event(&ev);
		return 1;
	}
	if (wfrom == NO_TIME)
		npending++;
	else if (rec->time == NO_TIME || rec->time >= wfrom)
		count_kind(rec->f[COL_KIND]);
	if (meta_rec)
		take_meta(rec);
	else if (strcmp(rec->f[COL_KIND], KIND_LOST) == 0)
		take_lost(rec);
	else if (strcmp(rec->f[COL_KIND], KIND_TASK) == 0 &&
	    rec->time != NO_TIME && rec->nf > COL_FIRST_OWN)
		copy(thread(record_u64(rec, COL_TID), record_pid(rec, COL_PID))->
		    comm, COMM_LEN, rec->f[COL_FIRST_OWN]);
	return 1;
}

/* What goes on when the trace ends: a CPU's thread, a wait. */
static void
close_all(uint64_t end)
{
	struct thread *t;
	size_t i;

	for (i = 0; i < ncpus; i++)
		if (cpus[i].seen)
			cpus[i].cur->oncpu += within(cpus[i].since, end);
	for (t = threads; t != NULL; t = t->hh.next)
		if (t->state == TS_BLOCKED)
			end_wait(t, end, 1);
}

/* A moment: a clock time where the stream has its anchor. */
static void
moment(char *buf, size_t size, uint64_t ns, int date)
{
	char *t;

	if (!wall_set) {
		snprintf(buf, size, "%llu", (unsigned long long)ns);
		return;
	}
	wall_format(buf, size, ns);
	if (!date && (t = strchr(buf, 'T')) != NULL)
		memmove(buf, t + 1, strlen(t + 1) + 1);
}

/* "LABEL    word n, word n, ..." wrapped under itself at 78 columns. */
static void
wrapped(int *col, const char *item)
{
	if (*col + 2 + (int)strlen(item) > 78) {
		printf(",\n%9s", "");
		*col = 9;
	} else if (*col > 9) {
		printf(", ");
		*col += 2;
	}
	*col += printf("%s", item);
}

/* The events by type, the most frequent first. */
static void
by_type(int col)
{
	char item[64];
	size_t i, best;
	int head;

	for (head = 1;; head = 0) {
		for (best = E_NTYPES, i = 0; i < E_NTYPES; i++)
			if (ntype[i] && (best == E_NTYPES ||
			    ntype[i] > ntype[best]))
				best = i;
		if (best == E_NTYPES)
			break;
		snprintf(item, sizeof(item), "%s %llu", best == E_OTHER ?
		    "other" : etype_name(best), (unsigned long long)ntype[best]);
		if (head) {
			printf(":\n%9s", "");
			col = 9;
		}
		wrapped(&col, item);
		ntype[best] = 0;
	}
	printf("\n");
}

static void
header(uint64_t span, size_t nthreads, size_t nprocs)
{
	char a[48], b[48], item[SHOW_SIZE(24) + 24];
	uint64_t busy = 0, n;
	struct thread *t;
	size_t i;
	int col;

	if (last == NO_TIME) {
		printf("span     none: no record in %s\n",
		    since.set || until.set ? "the window" : "the input");
		return;
	}
	moment(a, sizeof(a), wfrom, 1);
	moment(b, sizeof(b), last, 1);
	printf("span     %s to %s%s, %.3f s\n", a, b, wall_set ? "" : " ns",
	    span / 1e9);
	if (meta.source[0] || meta.program[0]) {
		printf("source   %s", meta.source[0] ? show(meta.source) :
		    "-");
		if (meta.host[0])
			printf(" on %s", show(meta.host));
		if (meta.kernel[0])
			printf(", %s", show(meta.kernel));
		if (meta.program[0])
			printf(" (%s)", show(meta.program));
		printf("\n");
	}
	for (t = threads; t != NULL; t = t->hh.next)
		busy += t->tid != 0 ? t->oncpu : 0;
	for (t = retired; t != NULL; t = t->retired)
		busy += t->oncpu;
	n = meta.cpus > ncpus ? meta.cpus : ncpus;
	printf("cpus     %llu", (unsigned long long)n);
	if (n > 0 && span > 0)
		printf(", busy %.1f%% of the span", 100.0 * busy / (n * span));
	printf("\n");
	col = printf("events   %llu", (unsigned long long)nevents);
	if (span > 0)
		col += printf(", %.0f a second", nevents / (span / 1e9));
	by_type(col);
	if (nkinds > 0) {
		col = printf("records ");
		for (i = 0; i < nkinds; i++) {
			snprintf(item, sizeof(item), "%s %llu", show(kinds[i].name),
			    (unsigned long long)kinds[i].n);
			if (i == 0)
				col += printf(" %s", item);
			else
				wrapped(&col, item);
		}
		printf("\n");
	}
	if (nlost > 0) {
		col = printf("lost     %llu events:", (unsigned long long)nlost);
		for (i = 0; i < ncpus; i++)
			if (cpus[i].lost) {
				snprintf(item, sizeof(item), "cpu%zu %llu", i,
				    (unsigned long long)cpus[i].lost);
				if (col > 21)
					wrapped(&col, item);
				else
					col += printf(" %s", item);
			}
		if (meta.has_lost && meta.lost != nlost)
			printf("; %llu in the whole capture",
			    (unsigned long long)meta.lost);
		printf("\n");
	} else if (meta.has_lost && meta.lost == 0)
		printf("lost     none\n");
	else if (meta.has_lost)
		printf("lost     none in the window; %llu in the whole "
		    "capture\n", (unsigned long long)meta.lost);
	else if (until.set)
		printf("lost     none in the window\n");
	else
		printf("lost     none said: no closing meta lost (a capture "
		    "cut short, or still recording)\n");
	printf("threads  %zu in %zu processes, %llu exited\n", nthreads,
	    nprocs, (unsigned long long)nexited);
}

static int
cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * Idle: a kernel thread that only ever slept in state I, or a loop that
 * only its own timers woke and that woke no one (a daemon's housekeeping,
 * a kernel thread's period).  A hang is neither: its thread is woken by
 * another, or not at all, and the one it waits on wakes it when done.
 */
static int	 all;
static uint64_t	 only_pid, only_tid;
static const char *only_comm;
static size_t	 nidle;

static int
idle(const struct thread *t)
{
	if (t->sleeps > 0 && t->isleeps == t->sleeps)
		return 1;
	return t->closed > 0 && t->by_timer == t->closed && !t->woke;
}

static struct thread *
thread_find(uint32_t tid)
{
	struct thread *t;

	HASH_FIND(hh, threads, &tid, sizeof(tid), t);
	return t;
}

static int
wanted(const struct thread *t)
{
	const struct thread *m;

	if ((only_pid && t->pid != only_pid) || (only_tid && t->tid != only_tid))
		return 0;
	if (only_comm != NULL && strcmp(t->comm, only_comm) != 0 &&
	    ((m = thread_find(t->pid)) == NULL || strcmp(m->comm, only_comm)))
		return 0;
	return 1;
}

/* The threads, idle tasks aside; and how many processes they make. */
static struct thread **
all_threads(size_t *n, size_t *nprocs)
{
	struct thread **v, *t;
	uint32_t *pids;
	size_t i, np = 0;

	*n = HASH_COUNT(threads);
	for (t = retired; t != NULL; t = t->retired)
		(*n)++;
	v = xcalloc(*n + 1, sizeof(*v));
	pids = xcalloc(*n + 1, sizeof(*pids));
	*n = 0;
	for (t = threads; t != NULL; t = t->hh.next)
		if (t->tid != 0)
			v[(*n)++] = t;
	for (t = retired; t != NULL; t = t->retired)
		v[(*n)++] = t;
	for (i = 0; i < *n; i++)
		if (v[i]->pid != 0)
			pids[np++] = v[i]->pid;
	qsort(pids, np, sizeof(*pids), cmp_u32);
	for (*nprocs = 0, i = 0; i < np; i++)
		if (i == 0 || pids[i] != pids[i - 1])
			(*nprocs)++;
	free(pids);
	return v;
}

/* Sorted by one figure, the largest first; ties by tid, then the newest. */
static size_t	 key_off;

static int
largest(const void *a, const void *b)
{
	const struct thread *x = *(struct thread *const *)a;
	const struct thread *y = *(struct thread *const *)b;
	uint64_t u = *(const uint64_t *)((const char *)x + key_off);
	uint64_t v = *(const uint64_t *)((const char *)y + key_off);

	if (u != v)
		return u > v ? -1 : 1;
	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

static const char *
who(const struct thread *t)
{
	static char buf[SHOW_SIZE(COMM_LEN) + 32];

	if (t->pid != 0)
		snprintf(buf, sizeof(buf), "%s %u/%u", t->comm[0] ?
		    show(t->comm) : "?", t->pid, t->tid);
	else
		snprintf(buf, sizeof(buf), "%s ?/%u", t->comm[0] ?
		    show(t->comm) : "?", t->tid);
	return buf;
}

enum table { BY_CPU, BY_BLOCKED, BY_DELAY };

static void
row(enum table tab, const struct thread *t, uint64_t span)
{
	char at[48];

	switch (tab) {
	case BY_CPU:
		printf("%12.3f  %5.1f%%  %8llu  %s\n", MS(t->oncpu),
		    span ? 100.0 * t->oncpu / span : 0.0,
		    (unsigned long long)t->runs, who(t));
		break;
	case BY_BLOCKED:
		printf("%12.3f  %6llu  %12.3f  %-32s %s%s%s\n", MS(t->blocked),
		    (unsigned long long)t->waits, MS(t->longest), who(t),
		    t->longest_in[0] || !t->longest_open ?
		    show(t->longest_in) : "",
		    t->longest_in[0] && t->longest_open ? ", " : "",
		    t->longest_open ? "still waiting" :
		    t->longest_in[0] ? "" : "-");
		break;
	case BY_DELAY:
		moment(at, sizeof(at), t->delay_max_at, 0);
		printf("%12.3f  %12.3f  %8llu  %-32s %s\n", MS(t->delay_max),
		    MS(t->delay / t->delays), (unsigned long long)t->delays,
		    who(t), at);
		break;
	}
}

static void
table(enum table tab, struct thread **v, size_t n, uint64_t count,
    uint64_t span)
{
	static const struct {
		const char	*title, *head;
		size_t		 key;
	} tabs[] = {
		[BY_CPU] = { "on CPU",
		    "   ON-CPU ms   CPU%      RUNS  THREAD",
		    offsetof(struct thread, oncpu) },
		[BY_BLOCKED] = { "blocked (off CPU, not runnable)",
		    "  BLOCKED ms   WAITS    LONGEST ms  THREAD"
		    "                           LONGEST IN",
		    offsetof(struct thread, blocked) },
		[BY_DELAY] = { "waiting for a CPU once runnable "
		    "(scheduling delay)",
		    "MAX DELAY ms  AVG DELAY ms    DELAYS  THREAD"
		    "                           MAX AT",
		    offsetof(struct thread, delay_max) },
	};
	size_t i, shown = 0, more = 0;

	key_off = tabs[tab].key;
	qsort(v, n, sizeof(*v), largest);
	printf("\nThreads by time %s:\n%s\n", tabs[tab].title, tabs[tab].head);
	for (i = 0; i < n; i++) {
		/* A thread the table's figure never saw is not in it. */
		if ((tab == BY_CPU && v[i]->oncpu == 0 && v[i]->runs == 0) ||
		    (tab == BY_BLOCKED && v[i]->waits == 0) ||
		    (tab == BY_DELAY && v[i]->delays == 0))
			continue;
		/* Blocked is what an idle thread mostly is: not a hang. */
		if (tab == BY_BLOCKED && !all && idle(v[i])) {
			nidle++;
			continue;
		}
		if (count != 0 && shown == count) {
			more++;
			continue;
		}
		row(tab, v[i], span);
		shown++;
	}
	if (more > 0)
		printf("(%zu more: -n 0 for all)\n", more);
}

int
main(int argc, char *argv[])
{
	static const struct option longopts[] = {
		{ "count",	required_argument, NULL, 'n' },
		{ "since",	required_argument, NULL, 's' },
		{ "until",	required_argument, NULL, 'u' },
		{ "live",	no_argument,	   NULL, 'L' },
		{ "progress",	no_argument,	   NULL, 'P' },
		{ "all",	no_argument,	   NULL, 'a' },
		{ "pid",	required_argument, NULL, 'p' },
		{ "tid",	required_argument, NULL, 't' },
		{ "comm",	required_argument, NULL, 'c' },
		{ "help",	no_argument,	   NULL, 'h' },
		{ "version",	no_argument,	   NULL, 'V' },
		{ NULL, 0, NULL, 0 }
	};
	struct common com = { NULL, Z_AUTO };
	const struct record *rec;
	struct source *src;
	struct thread **v;
	uint64_t count = 10, nrec = 0, seen = NO_TIME, span;
	size_t n, nprocs, i, k;
	int ch, show = 0;

	while ((ch = getopt_long(argc, argv, "n:s:u:LPap:t:c:hV", longopts,
	    NULL)) != -1) {
		switch (ch) {
		case 'n': count = parse_u64("--count", optarg); break;
		case 's': when_parse(&since, "--since", optarg); break;
		case 'u': when_parse(&until, "--until", optarg); break;
		case 'L': reader_live = 1; break;
		case 'P': show = 1; break;
		case 'a': all = 1; break;
		case 'p': only_pid = parse_u64("--pid", optarg); break;
		case 't': only_tid = parse_u64("--tid", optarg); break;
		case 'c': only_comm = optarg; break;
		default: common_option(&com, ch, optarg, usage);
		}
	}
	catch_signals();
	show = progress_start(show);
	src = source_open(argv + optind, argc - optind);
	while ((rec = source_next(src)) != NULL) {
		if (!take(rec))
			break;
		if (rec->time != NO_TIME)
			seen = rec->time;
		if (show && (++nrec & (PROGRESS_EVERY - 1)) == 0)
			progress("reading", nrec, seen, first);
	}
	if (show && !interrupted)
		progress_end("read", nrec, seen, first);
	source_close(src);
	stop_if_interrupted();
	if (wfrom == NO_TIME && first != NO_TIME)
		open_window();		/* meta records alone */
	if (last != NO_TIME && last < wfrom)
		last = NO_TIME;
	if (last != NO_TIME)
		close_all(last);
	span = last != NO_TIME && last > wfrom ? last - wfrom : 0;
	v = all_threads(&n, &nprocs);
	header(span, n, nprocs);
	for (i = k = 0; i < n; i++)
		if (wanted(v[i]))
			v[k++] = v[i];
	table(BY_CPU, v, k, count, span);
	table(BY_BLOCKED, v, k, count, span);
	table(BY_DELAY, v, k, count, span);
	if (nidle > 0)
		printf("\n(%zu idle thread%s left out of the blocked: only "
		    "their own timers woke them and they woke no one, or kernel "
		    "threads idle; -a shows them)\n", nidle,
		    nidle == 1 ? "" : "s");
	free(v);
	return exit_status(1);
}
