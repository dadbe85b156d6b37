/*
 * argus-summary's report: the header (span, source, CPUs, events by
 * type, records, what was lost, threads) and the three tables of
 * threads, idle ones aside.  Reads the figures; changes none but the
 * order of the threads.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "show.h"
#include "summary.h"

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
	if (nlost > 0 || nuncounted > 0) {
		col = nlost > 0 ? printf("lost     %llu events:",
		    (unsigned long long)nlost) : printf("lost     events:");
		for (i = 0; i < ncpus; i++)
			if (cpus[i].lost || cpus[i].uncounted) {
				if (cpus[i].lost)
					snprintf(item, sizeof(item), "cpu%zu %llu%s",
					    i, (unsigned long long)cpus[i].lost,
					    cpus[i].uncounted ? "+?" : "");
				else
					snprintf(item, sizeof(item), "cpu%zu ?", i);
				if (col > 21)
					wrapped(&col, item);
				else
					col += printf(" %s", item);
			}
		if (meta.has_lost && meta.lost != nlost)
			printf("; %llu in the whole capture",
			    (unsigned long long)meta.lost);
		if (nuncounted > 0)
			printf("; ? where the trace said not how many (%llu "
			    "time%s)",
			    (unsigned long long)nuncounted,
			    nuncounted == 1 ? "" : "s");
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
	static char buf[SHOW_SIZE(NAME_LEN) + 32];

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

/* The header and the tables of the threads wanted, count in each. */
void
summary_report(uint64_t span, uint64_t count)
{
	struct thread **v;
	size_t n, nprocs, i, k;

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
}
