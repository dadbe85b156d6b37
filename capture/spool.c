/*
 * Reading trace_pipe_raw.  read(2) on it returns one sub-buffer (page) per
 * call, a partial one when the writer is still on it (or the rest of one
 * read partially before), and EAGAIN when the CPU's buffer is empty.
 *
 * The merge may emit an event only when no page still to come can hold an
 * earlier one: the watermark, the least over CPUs of a time before which
 * all of that CPU's events have been read.  For a CPU read empty by a read
 * begun at T, that is T (less a slack for events reserved but not yet
 * committed); for one that was not, the stamp in the header of the last
 * page read, since every earlier event lies in an earlier page.
 *
 * We poll on a timer rather than sleep in poll(2): trace_pipe_raw wakes a
 * reader only when buffer_percent of the buffer is full, and waking on
 * every event would trace ourselves into a loop.
 *
 * The reader never takes a lock the formatter may hold: the formatter runs
 * at idle priority and, preempted inside a critical section, would stall
 * the reader for as long as the workload keeps the CPUs busy, which is
 * exactly when the kernel's buffers overrun.  Pages travel through
 * single-producer single-consumer rings instead: one per CPU from the
 * reader to the formatter, one back for pages to reuse.
 */
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "util.h"
#include "spill.h"
#include "spool.h"
#include "tracefs.h"

#define IDLE_NS		(50 * 1000000ULL)	/* between passes when quiet */
#define BUSY_NS		(10 * 1000000ULL)	/* when a buffer fills fast */
#define WAIT_NS		(100 * 1000000ULL)	/* the formatter, when idle */
#define BUSY_PAGES	32	/* a pass reading this many pages goes again */
#define SLACK_NS	(2 * 1000000ULL)	/* events reserved, not committed */

/* One producer, one consumer; head and tail only grow. */
struct ring {
	struct page	**slot;
	size_t		  mask;
	_Atomic size_t	  head, tail;
};

static int		 ncpus;
static int		*fds;
static int		*bfds;		/* the bridge's (tfs_bridge_create) */
static _Atomic int	 switched;	/* the bridge off, ours on */
static pthread_mutex_t	 onoff = PTHREAD_MUTEX_INITIALIZER;
static size_t		 pgsize, npages;
static struct ring	*queues;	/* reader -> formatter, per CPU */
static struct ring	 freed;		/* formatter -> reader */
static _Atomic size_t	 allocated;	/* pages in existence */
static _Atomic size_t	 queued;	/* pages in the queues */
static _Atomic uint64_t	 total;
static _Atomic uint64_t	 watermark;
static _Atomic int	 tracing_off, finished;
static _Atomic uint64_t	*lost;
static _Atomic uint64_t	 stop_at;
static _Atomic uint64_t	 request, served;	/* spool_request()'s times */
static _Atomic int	 child, child_status = -1;
static const char *_Atomic error;
static volatile int	 reader_tid;
static struct spool_conf conf;
/* ARGUS_CAPTURE_DEBUG: how well the reader keeps up. */
static int		 debug;
static uint64_t		 dbg_prev, dbg_maxgap, dbg_passes;
static pthread_t	 thread;

static void
ring_init(struct ring *r, size_t n)
{
	size_t cap = 1;

	while (cap < n)
		cap <<= 1;
	r->slot = xcalloc(cap, sizeof(*r->slot));
	r->mask = cap - 1;
}

static int
ring_put(struct ring *r, struct page *p)
{
	size_t t = atomic_load_explicit(&r->tail, memory_order_relaxed);

	if (t - atomic_load_explicit(&r->head, memory_order_acquire) >
	    r->mask)
		return 0;
	r->slot[t & r->mask] = p;
	atomic_store_explicit(&r->tail, t + 1, memory_order_release);
	return 1;
}

static struct page *
ring_get(struct ring *r)
{
	size_t h = atomic_load_explicit(&r->head, memory_order_relaxed);
	struct page *p;

	if (h == atomic_load_explicit(&r->tail, memory_order_acquire))
		return NULL;
	p = r->slot[h & r->mask];
	atomic_store_explicit(&r->head, h + 1, memory_order_release);
	return p;
}

static struct page *
page_alloc(void)
{
	struct page *p;

	if ((p = ring_get(&freed)) != NULL)
		return p;
	if (atomic_load(&allocated) >= npages)
		return NULL;	/* the spool is full */
	if ((p = malloc(sizeof(*p) + pgsize)) == NULL)
		return NULL;
	atomic_fetch_add(&allocated, 1);
	return p;
}

/* Overruns and drops of one CPU's buffer, from its stats file. */
static uint64_t
cpu_lost(int cpu)
{
	char rel[64], buf[1024], *p;
	uint64_t n = 0;
	static const char *const keys[] = {
		"\noverrun:", "\ncommit overrun:", "\ndropped events:",
	};
	size_t i;

	snprintf(rel, sizeof(rel), "per_cpu/cpu%d/stats", cpu);
	if (tfs_read(rel, buf + 1, sizeof(buf) - 1) <= 0)
		return 0;
	buf[0] = '\n';
	for (i = 0; i < ARRAY_LEN(keys); i++)
		if ((p = strstr(buf, keys[i])) != NULL)
			n += strtoull(p + strlen(keys[i]), NULL, 10);
	return n;
}

/*
 * The bridge's losses count too, also once it is gone.  Atomic: the
 * spiller reads them (spool_page_lost()).
 */
static _Atomic uint64_t *blost;

/* A CPU's losses since the start, ours and the bridge's as last read. */
static uint64_t
cpu_total_lost(int cpu)
{
	uint64_t n = cpu_lost(cpu) + blost[cpu];

	atomic_store(&lost[cpu], n);
	return n;
}

static void
read_stats(void)
{
	int cpu;

	if (bfds != NULL) {
		tfs_bridge_select(1);
		for (cpu = 0; cpu < ncpus; cpu++)
			blost[cpu] = cpu_lost(cpu);
		tfs_bridge_select(0);
	}
	for (cpu = 0; cpu < ncpus; cpu++)
		cpu_total_lost(cpu);
}

static int should_stop(void);
static size_t max_read;		/* by one CPU in the last pass */
static uint64_t *bound;		/* per CPU: all events before it are read */


/* Bytes of events in a page, from its header's commit word. */
static size_t
page_used(const struct page *p)
{
	uint64_t commit;

	memcpy(&commit, p->data + 8, sizeof(commit));
	return commit & (PAGE_MISSED_STORED - 1);	/* without the flags */
}

int
page_mark(const char *page, size_t len, uint64_t *n)
{
	uint64_t commit;
	size_t used;

	*n = 0;
	if (len < PAGE_HEADER)
		return 0;
	memcpy(&commit, page + 8, sizeof(commit));
	if (!(commit & PAGE_MISSED_EVENTS))
		return 0;
	used = commit & (PAGE_MISSED_STORED - 1);
	if ((commit & PAGE_MISSED_STORED) && used <= len - PAGE_HEADER &&
	    len - PAGE_HEADER - used >= sizeof(*n))
		memcpy(n, page + PAGE_HEADER + used, sizeof(*n));
	return 1;
}

/*
 * Per CPU: the losses given a page to be said at.  Pages leave a CPU's
 * buffer one at a time, the spiller's and the reader's in turn
 * (spill_lock()), so that each loss is placed once.
 */
static uint64_t *placed;

uint64_t
spool_page_lost(int cpu, const char *page, size_t len)
{
	uint64_t n, total;

	if (!page_mark(page, len, &n))
		return 0;
	if (n == 0) {
		/*
		 * No room on the page for the count: the CPU's count since
		 * the start, read now, less what pages before said.  It may
		 * hold a few lost since, which the next marked page lacks.
		 */
		total = cpu_total_lost(cpu);
		n = total > placed[cpu] ? total - placed[cpu] : 0;
	}
	placed[cpu] += n;
	return n;
}

/*
 * A page read from a CPU: every event before its first is read, and the
 * events lost just before it go with it, to be said at its first event.
 */
static int
enqueue(int cpu, struct page *p, ssize_t got)
{
	uint64_t ts;

	p->len = got;
	p->lost = spool_page_lost(cpu, p->data, got);
	memcpy(&ts, p->data, sizeof(ts));
	if (ts > bound[cpu])
		bound[cpu] = ts;
	if (!ring_put(&queues[cpu], p)) {
		atomic_store(&error, "spool queue overflow");
		return -1;
	}
	atomic_fetch_add(&queued, 1);
	atomic_fetch_add(&total, got);
	return 0;
}

/*
 * Read one CPU until it is empty, or a partial page says we caught up with
 * its writer, or n pages were read; returns the pages read, or -1.
 */
static int
drain_cpu(int cpu, int n)
{
	struct page *p;
	ssize_t got;
	uint64_t t;
	int i;

	for (i = 0; i < n; i++) {
		/* A full spool: the kernel's buffer takes the strain. */
		if ((p = page_alloc()) == NULL)
			return i;
		t = now_ns();
		got = read(fds[cpu], p->data, pgsize);
		if (got <= 0) {
			ring_put(&freed, p);
			if (got == 0 || errno == EAGAIN) {
				if (t > SLACK_NS && t - SLACK_NS > bound[cpu])
					bound[cpu] = t - SLACK_NS;
				return i;
			}
			if (errno == EINTR)
				continue;
			atomic_store(&error, strerror(errno));
			return -1;
		}
		if (enqueue(cpu, p, got) == -1)
			return -1;
		/*
		 * Reading on after a partial page would spin on pages of a
		 * few events each (what `cat` does); the next pass comes
		 * soon enough.
		 */
		if (page_used(p) < (pgsize - PAGE_HEADER) * 3 / 4)
			return i + 1;
	}
	return i;
}

/* Returns 1 when some CPU had more to give than one pass takes. */
static void
publish(void)
{
	uint64_t mark = UINT64_MAX;
	int cpu;

	for (cpu = 0; cpu < ncpus; cpu++)
		if (bound[cpu] < mark)
			mark = bound[cpu];
	if (mark > atomic_load(&watermark))
		atomic_store(&watermark, mark);
}

static int
pass(void)
{
	uint64_t before;
	int cpu, n, busy = 0;

	max_read = 0;
	for (cpu = 0; cpu < ncpus; cpu++) {
		before = atomic_load(&total);
		n = drain_cpu(cpu, BUSY_PAGES);
		if (n < 0)
			return -1;
		if (atomic_load(&total) - before > max_read)
			max_read = atomic_load(&total) - before;
		if (n >= BUSY_PAGES)
			busy = 1;
	}
	publish();
	return busy;
}

/*
 * One CPU until it is empty: returns 1 when a full spool stopped us first,
 * to be called again, -1 on error.  Emptied while tracing goes on, the
 * CPU's events are all read up to the moment of the read, less the slack
 * for events reserved but not yet committed; once tracing is off, all.
 */
static int
empty_cpu(int cpu, int fd, int off)
{
	struct page *p;
	ssize_t got;
	uint64_t t;

	for (;;) {
		if ((p = page_alloc()) == NULL)
			return 1;
		t = now_ns();
		got = read(fd, p->data, pgsize);
		if (got <= 0) {
			ring_put(&freed, p);
			if (got < 0 && errno == EINTR)
				continue;
			if (got < 0 && errno != EAGAIN) {
				atomic_store(&error, strerror(errno));
				return -1;
			}
			if (off)
				bound[cpu] = UINT64_MAX;	/* no more */
			else if (t > SLACK_NS && t - SLACK_NS > bound[cpu])
				bound[cpu] = t - SLACK_NS;
			return 0;
		}
		if (enqueue(cpu, p, got) == -1)
			return -1;
	}
}

/*
 * Every CPU until it is empty.  Returns 1 while a full spool keeps some
 * CPU from being emptied, to be called again.
 */
static int
empty_all(int off)
{
	int cpu, rc, more = 0, gone = atomic_load(&switched);

	/*
	 * Never the spill: it is older than every kernel page and read
	 * back only when a request needs it (emit_spill(), deepening), into
	 * a ring file of its own, so that what is asked most, the recent
	 * seconds, waits for no spilled page.
	 */
	for (cpu = 0; cpu < ncpus; cpu++) {
		/*
		 * The bridge's events of a CPU come before ours (it was
		 * turned off before ours on): its pages first, and none of
		 * ours while some of its are left.
		 */
		if (bfds != NULL && (rc = empty_cpu(cpu, bfds[cpu], 0)) != 0) {
			if (rc < 0)
				return -1;
			more = 1;
			continue;
		}
		if ((rc = empty_cpu(cpu, fds[cpu], off)) < 0)
			return -1;
		more |= rc;
	}
	/* Off and read empty: it holds nothing more, ever. */
	if (bfds != NULL && gone && !more) {
		read_stats();
		for (cpu = 0; cpu < ncpus; cpu++)
			close(bfds[cpu]);
		free(bfds);
		bfds = NULL;
		tfs_bridge_remove();
	}
	publish();
	return more;
}

/*
 * A request (spool_request()) in deferred mode: what the kernel's ring
 * holds now, all of it.  The events of the moment of the request are
 * committed within the slack, so we wait that long first; then the
 * watermark passes the request and the formatter can say it is served.
 */
static void
serve(void)
{
	struct timespec ts = { 0, 2 * SLACK_NS };

	nanosleep(&ts, NULL);
	spill_lock();
	while (atomic_load(&error) == NULL && empty_all(0) > 0 &&
	    !should_stop())
		usleep(1000);
	spill_unlock();
}

static int
should_stop(void)
{
	uint64_t at = atomic_load(&stop_at);
	int st, c = atomic_load(&child);

	if (interrupted)
		return 1;
	if (at != 0 && now_ns() >= at)
		return 1;
	if (c > 0 && waitpid(c, &st, WNOHANG) == c) {
		atomic_store(&child_status, st);
		return 1;
	}
	return 0;
}

static void *
reader(void *arg)
{
	struct sched_param sp = { .sched_priority = 1 };
	struct timespec ts = { 0, IDLE_NS };
	uint64_t last_stats = 0, t, at, nap;
	int busy;

	(void)arg;
	/*
	 * Keep up with the buffers even when every CPU is busy: among
	 * hundreds of runnable threads even a niced reader waits long
	 * enough for the buffers to overrun.  The lowest real-time
	 * priority runs it when it wakes; it copies pages and sleeps.
	 */
	if (pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp) != 0)
		setpriority(PRIO_PROCESS, syscall(SYS_gettid), -10);
	reader_tid = syscall(SYS_gettid);
	while (!should_stop()) {
		/* Deferred: the kernel's ring keeps the events until asked. */
		if (conf.defer) {
			t = atomic_load(&request);
			if (t > atomic_load(&served)) {
				serve();
				atomic_store(&served, t);
			}
			busy = 0;
			max_read = 0;
		} else {
			if (debug) {
				t = now_ns();
				if (dbg_prev && t - dbg_prev > dbg_maxgap)
					dbg_maxgap = t - dbg_prev;
				dbg_prev = t;
				dbg_passes++;
			}
			if ((busy = pass()) < 0)
				break;
			if (conf.pass)
				conf.pass();
		}
		t = now_ns();
		if (t - last_stats >= 1000000000ULL) {
			read_stats();
			last_stats = t;
			if (conf.tick)
				conf.tick();
		}
		if (!busy) {
			/* Wake for the deadline on time, not a pass later. */
			at = atomic_load(&stop_at);
			/* Come back sooner when a buffer fills fast. */
			nap = max_read * 8 > conf.bufsize ? BUSY_NS : IDLE_NS;
			/* Stack samples fill their buffers faster. */
			if (conf.pass != NULL)
				nap = BUSY_NS;
			ts.tv_nsec = nap;
			if (at != 0 && at > t && at - t < nap)
				ts.tv_nsec = at - t;
			nanosleep(&ts, NULL);
		}
	}
	pthread_mutex_lock(&onoff);
	tfs_write("tracing_on", "0");
	if (tfs_bridge()) {
		tfs_bridge_select(1);
		tfs_write("tracing_on", "0");
		tfs_bridge_select(0);
	}
	atomic_store(&tracing_off, 1);
	pthread_mutex_unlock(&onoff);
	spill_stop();
	/* The moment it was cut, before anything else can change. */
	if (conf.stopped)
		conf.stopped();
	/* Take everything that is left, waiting for room if need be. */
	while (atomic_load(&error) == NULL && (busy = empty_all(1)) > 0)
		usleep(1000);
	read_stats();
	if (debug) {
		struct rusage ru;

		getrusage(RUSAGE_THREAD, &ru);
		fprintf(stderr, "argus-capture: reader: %llu passes, longest "
		    "gap %.1f ms, %llu bytes, %zu pages allocated, CPU %.3f s "
		    "user %.3f s system\n",
		    (unsigned long long)dbg_passes, dbg_maxgap / 1e6,
		    (unsigned long long)atomic_load(&total),
		    atomic_load(&allocated), ru.ru_utime.tv_sec +
		    ru.ru_utime.tv_usec / 1e6, ru.ru_stime.tv_sec +
		    ru.ru_stime.tv_usec / 1e6);
	}
	atomic_store(&watermark, UINT64_MAX);
	atomic_store(&finished, 1);
	return NULL;
}

static void
close_at_exit(void)
{
	int cpu;

	/* An exit through die(): the instance cannot go while these are open. */
	if (fds != NULL)
		for (cpu = 0; cpu < ncpus; cpu++)
			if (fds[cpu] != -1)
				close(fds[cpu]);
	if (bfds != NULL)
		for (cpu = 0; cpu < ncpus; cpu++)
			if (bfds[cpu] != -1)
				close(bfds[cpu]);
}

/* The bridge's buffers, read before ours; before tracing starts. */
void
spool_bridge(void)
{
	char rel[64];
	int cpu, *b;

	b = xcalloc(ncpus, sizeof(*b));
	tfs_bridge_select(1);
	for (cpu = 0; cpu < ncpus; cpu++) {
		snprintf(rel, sizeof(rel), "per_cpu/cpu%d/trace_pipe_raw", cpu);
		if ((b[cpu] = tfs_open(rel, O_RDONLY | O_NONBLOCK)) == -1)
			die(EX_UNAVAILABLE, "%s: %s", tfs_instance(), rel);
	}
	tfs_bridge_select(0);
	bfds = b;
}

/*
 * Ours takes over from the bridge: the bridge off first, so that every
 * CPU's events in the bridge come before those in ours (the events of
 * the microseconds between the two writes are not recorded).  Not once
 * the reader stopped tracing: 0 then.
 */
int
spool_switch(void)
{
	int r = 0;

	pthread_mutex_lock(&onoff);
	if (!atomic_load(&tracing_off)) {
		tfs_bridge_select(1);
		tfs_write("tracing_on", "0");
		tfs_bridge_select(0);
		if (tfs_write("tracing_on", "1") == -1)
			die(EX_UNAVAILABLE, "%s/tracing_on", tfs_instance());
		atomic_store(&switched, 1);
		r = 1;
	}
	pthread_mutex_unlock(&onoff);
	return r;
}

void
spool_start(const struct spool_conf *c)
{
	char rel[64];
	int cpu;

	conf = *c;
	debug = getenv("ARGUS_CAPTURE_DEBUG") != NULL;
	ncpus = c->ncpu;
	pgsize = c->pagesize;
	npages = c->limit / pgsize;
	if (npages < 16)
		npages = 16;
	fds = xcalloc(ncpus, sizeof(*fds));
	queues = xcalloc(ncpus, sizeof(*queues));
	for (cpu = 0; cpu < ncpus; cpu++)
		ring_init(&queues[cpu], npages);
	ring_init(&freed, npages);
	lost = xcalloc(ncpus, sizeof(*lost));
	blost = xcalloc(ncpus, sizeof(*blost));
	placed = xcalloc(ncpus, sizeof(*placed));
	bound = xcalloc(ncpus, sizeof(*bound));
	atexit(close_at_exit);
	for (cpu = 0; cpu < ncpus; cpu++) {
		snprintf(rel, sizeof(rel), "per_cpu/cpu%d/trace_pipe_raw", cpu);
		if ((fds[cpu] = tfs_open(rel, O_RDONLY | O_NONBLOCK)) == -1)
			die(EX_UNAVAILABLE, "%s/%s", tfs_instance(), rel);
	}
	read_stats();
	if (c->defer && c->spill != NULL)
		spill_start(c->spill, c->spill_size, ncpus, pgsize, fds,
		    spool_page_lost);
	else
		conf.spill = NULL;
	if ((errno = pthread_create(&thread, NULL, reader, NULL)) != 0)
		die(EX_OSERR, "pthread_create");
	while (reader_tid == 0)
		usleep(1000);
}

int
spool_reader_tid(void)
{
	return reader_tid;
}

int
spool_spill_tid(void)
{
	return conf.spill != NULL ? spill_tid() : 0;
}

void
spool_deadline(uint64_t at, int c)
{
	atomic_store(&child, c);
	atomic_store(&stop_at, at);
}

int
spool_stopped(void)
{
	return atomic_load(&tracing_off);
}

int
spool_child_status(void)
{
	return atomic_load(&child_status);
}

int
spool_done(void)
{
	int cpu;

	if (!atomic_load(&finished))
		return 0;
	for (cpu = 0; cpu < ncpus; cpu++)
		if (atomic_load(&queues[cpu].head) !=
		    atomic_load(&queues[cpu].tail))
			return 0;
	if (fds != NULL) {
		pthread_join(thread, NULL);
		for (cpu = 0; cpu < ncpus; cpu++)
			close(fds[cpu]);
		free(fds);
		fds = NULL;
	}
	return 1;
}

uint64_t
spool_watermark(void)
{
	return atomic_load(&watermark);
}

struct page *
spool_take(int cpu)
{
	struct page *p;

	if ((p = ring_get(&queues[cpu])) != NULL)
		atomic_fetch_sub(&queued, 1);
	return p;
}

void
spool_give(struct page *p)
{
	/* The ring holds every page there is: it cannot be full. */
	if (!ring_put(&freed, p))
		free(p);
}

void
spool_wait(void)
{
	struct timespec ts = { 0, WAIT_NS };

	if (!atomic_load(&finished))
		nanosleep(&ts, NULL);
}

int
spool_full(void)
{
	/*
	 * No page to read into: every one queued or in the formatter's hands
	 * (it holds one a CPU while merging).
	 */
	return atomic_load(&allocated) >= npages &&
	    (atomic_load(&queued) + 1 >= npages ||
	    atomic_load_explicit(&freed.head, memory_order_acquire) ==
	    atomic_load_explicit(&freed.tail, memory_order_acquire));
}

size_t
spool_bytes(void)
{
	return atomic_load(&queued) * pgsize;
}

uint64_t
spool_total(void)
{
	return atomic_load(&total);
}

void
spool_lost(struct spool_stats *s)
{
	int cpu;

	for (cpu = 0; cpu < ncpus; cpu++)
		s->lost[cpu] = atomic_load(&lost[cpu]);
}

void
spool_request(void)
{
	atomic_store(&request, now_ns());
}

uint64_t
spool_requested(void)
{
	return atomic_load(&request);
}

const char *
spool_error(void)
{
	return atomic_load(&error);
}
