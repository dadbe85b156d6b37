/*
 * Stacks without frame pointers.  The kernel's own user stack walk
 * (options/userstacktrace) follows the frame-pointer chain, which code
 * built without one (most of Debian) turns into garbage after the first
 * frame.  So perf takes, on the same two tracepoints the capture records
 * (sched_switch, raw_syscalls:sys_enter) and for the chosen processes
 * only, the user registers an unwinder starts from (bp, sp, ip) and a copy
 * of the stack above sp; libdwfl unwinds that copy with each file's CFI,
 * the way `perf record --call-graph dwarf` does.
 *
 * Events are per thread and per CPU, with inherit so that the threads
 * and processes they spawn later are sampled too (the kernel maps an
 * inherited event's buffer only when it is bound to a CPU); the events
 * of one CPU and tracepoint share a buffer.  The capture's reader thread
 * moves the samples to memory as it goes (the formatter may be seconds
 * behind); the formatter asks for a stack when it writes the event, which
 * perf sampled when it happened, and takes the sample of the same thread,
 * tracepoint and time, draining the buffers itself first for the newest.
 * One mutex keeps the two apart.
 *
 * Time alone does not pair them: perf's clock and the trace's disagree
 * by microseconds either way on a busy machine, as much as two system
 * calls of a thread are apart, so one sample missing (or a stamp off)
 * gave each later event its successor's stack.  Each sample carries the
 * tracepoint's record (PERF_SAMPLE_RAW), and an event takes only a sample
 * with its own key: a system call's number and first argument, a
 * switch's state and next thread (the capture may record a system call
 * through its own syscalls: event, whose record is laid out otherwise).
 */
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>

#include <linux/perf_event.h>

#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <uthash.h>

#include "util.h"
#include "dwstack.h"
#include "events.h"
#include "spool.h"
#include "tracefs.h"
#include "unwind.h"

#define RING_PAGES	1024	/* 4 MB a CPU and tracepoint, a power of two */
#define STACK_BYTES	8192	/* copied above sp, as perf's default */
#define HELD_MAX	(256 << 20) /* bytes of stacks waiting for the formatter */
/*
 * A sample is this close to its event.  The two are taken by two
 * handlers of one tracepoint, but a system call's tracepoint runs them
 * preemptible (faultable since Linux 6.14): a preemption, or a page of
 * the stack the host must fault back into a VM, puts a sample hundreds
 * of microseconds, or a time slice, after its event.  The key, not the
 * time, tells neighbours apart.
 */
#define MATCH_NS	20000000
#define KEEP_NS		2000000000 /* unmatched samples older go */

/* PERF_REG_X86_BP, _SP, _IP: the registers a CFI unwinder starts from. */
#define REGS_MASK	((1ULL << 6) | (1ULL << 7) | (1ULL << 8))

struct ring {
	int		 fd;
	int		 kind;		/* the tracepoint its events sample */
	struct perf_event_mmap_page *meta;
	unsigned char	*data;
};

struct sample {
	uint64_t	 time;
	int		 tid, kind;
	uint64_t	 bp, sp, ip;
	uint32_t	 size;
	unsigned char	*stack;
	int		 nkey;
	int64_t		 key[DWSTACK_MAXKEY];	/* dwstack_unwind()'s */
};

struct pending {		/* a thread's samples not yet asked for */
	int		 tid;
	struct sample	*s;
	int		 n, cap;
	UT_hash_handle	 hh;
};

struct proc {
	int		 tgid;
	int		 followed;	/* events opened, or inherited */
	int		*fds;		/* its events, if it opened them */
	int		 nfds;
	struct unwinder	*unwinder;
	uint64_t	 reported_at;
	UT_hash_handle	 hh;
};

static int		 ncpu;
static size_t		 page;
static struct ring	*rings;		/* per CPU and kind */
static int		 nrings;
static uint64_t		 tp_id[2];	/* DW_SWITCH, DW_SYSCALL */
static struct field	 keyf[2][DWSTACK_MAXKEY];	/* in a sample's record */
static char		 sys_filter[8192];
static struct pending	*pendings;
static struct proc	*procs;
static uint64_t		 written, missed, lost;
static size_t		 held, held_max;	/* bytes of pending stacks */
static uint64_t		 overrun;	/* lost in the kernel's buffers */
static pthread_mutex_t	 mu = PTHREAD_MUTEX_INITIALIZER;

static uint64_t
read_id(const char *rel)
{
	char buf[32];

	if (tfs_read(rel, buf, sizeof(buf)) <= 0)
		diex(EX_UNAVAILABLE, "--stacks: no %s/%s", tfs_instance(), rel);
	return strtoull(buf, NULL, 10);
}

static void
attr(struct perf_event_attr *a, int kind)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->type = PERF_TYPE_TRACEPOINT;
	a->config = tp_id[kind];
	a->sample_period = 1;
	a->sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_RAW |
	    PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
	a->sample_regs_user = REGS_MASK;
	a->sample_stack_user = STACK_BYTES;
	a->use_clockid = 1;
	a->clockid = CLOCK_MONOTONIC;	/* the capture's clock */
}

/*
 * A buffer's owner is an event of no process (a dummy on its CPU), so that
 * the events of a process can be closed when it exits while the others
 * go on writing into the buffer.
 */
static void
ring_open(struct ring *r, int cpu, int kind)
{
	struct perf_event_attr a;
	void *m;

	attr(&a, kind);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_DUMMY;
	r->kind = kind;
	r->fd = syscall(SYS_perf_event_open, &a, -1, cpu, -1,
	    PERF_FLAG_FD_CLOEXEC);
	if (r->fd == -1)
		die(EX_UNAVAILABLE, "--stacks: perf_event_open (buffer of "
		    "CPU %d)", cpu);
	m = mmap(NULL, (RING_PAGES + 1) * page, PROT_READ | PROT_WRITE,
	    MAP_SHARED, r->fd, 0);
	if (m == MAP_FAILED)
		die(EX_UNAVAILABLE, "--stacks: mmap of a perf buffer");
	r->meta = m;
	r->data = (unsigned char *)m + page;
}

void
dwstack_setup(void)
{
	static const char *const switch_key[] = { "prev_state", "next_pid" };
	static const char *const syscall_key[] = { "id", "args" };
	struct rlimit rl;
	struct ring *r;
	ssize_t n;
	char *p;
	int id;

	ncpu = sysconf(_SC_NPROCESSORS_CONF);
	page = sysconf(_SC_PAGESIZE);
	/*
	 * A ring for each tracepoint: a storm of system calls must not
	 * crowd out the blocking waits, whose stacks a diagnosis shows.
	 */
	r = xcalloc(2 * ncpu, sizeof(*r));
	for (n = 0; n < 2 * ncpu; n++)
		ring_open(&r[n], n / 2, n % 2);
	pthread_mutex_lock(&mu);	/* the reader may be looking */
	rings = r;
	nrings = 2 * ncpu;
	pthread_mutex_unlock(&mu);
	tp_id[DW_SWITCH] = read_id("events/sched/sched_switch/id");
	tp_id[DW_SYSCALL] = read_id("events/raw_syscalls/sys_enter/id");
	if (events_load_fields("sched", "sched_switch", switch_key,
	    DWSTACK_MAXKEY, keyf[DW_SWITCH], &id) == -1 ||
	    events_load_fields("raw_syscalls", "sys_enter", syscall_key,
	    DWSTACK_MAXKEY, keyf[DW_SYSCALL], &id) == -1)
		diex(EX_UNAVAILABLE, "--stacks: no format of sched_switch or "
		    "sys_enter in %s", tfs_instance());
	keyf[DW_SYSCALL][1].size = 8;	/* args[0] of args[6] */
	/* The capture's own syscall filter: no samples of what it drops. */
	n = tfs_read("events/raw_syscalls/sys_enter/filter", sys_filter,
	    sizeof(sys_filter) - 1);
	sys_filter[n > 0 ? n : 0] = '\0';
	if ((p = strchr(sys_filter, '\n')) != NULL)
		*p = '\0';
	if (strcmp(sys_filter, "none") == 0)
		sys_filter[0] = '\0';
	/* Threads times CPUs times two events: more fds than the default. */
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
}

/* One tracepoint of one thread on one CPU; -1 if the thread is gone. */
static int
open_event(int tid, int cpu, int kind)
{
	struct perf_event_attr a;
	char filter[32];
	int fd;

	attr(&a, kind);
	a.inherit = 1;
	fd = syscall(SYS_perf_event_open, &a, tid, cpu, -1,
	    PERF_FLAG_FD_CLOEXEC);
	if (fd == -1) {
		if (errno == ESRCH)
			return -1;
		die(EX_UNAVAILABLE, "--stacks: perf_event_open (thread %d)",
		    tid);
	}
	/* Blocking switches only; the system calls the capture records. */
	if (kind == DW_SWITCH) {
		snprintf(filter, sizeof(filter), "prev_state & %d",
		    STATE_BLOCKED);
		ioctl(fd, PERF_EVENT_IOC_SET_FILTER, filter);
	} else if (sys_filter[0] != '\0')
		ioctl(fd, PERF_EVENT_IOC_SET_FILTER, sys_filter);
	if (ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, rings[2 * cpu + kind].fd) == -1)
		die(EX_UNAVAILABLE, "--stacks: PERF_EVENT_IOC_SET_OUTPUT");
	return fd;
}

static struct proc *
proc_get(int tgid)
{
	struct proc *p;

	HASH_GET(hh, procs, tgid, &tgid, p);
	return p;
}

void
dwstack_follow(int tgid)
{
	char path[64];
	struct dirent *de;
	struct proc *p;
	int tid, cpu, kind, fd;
	DIR *d;

	if (rings == NULL || tgid <= 0 || (p = proc_get(tgid))->followed)
		return;
	p->followed = 1;
	snprintf(path, sizeof(path), "/proc/%d/task", tgid);
	if ((d = opendir(path)) == NULL)
		return;		/* gone already */
	pthread_mutex_lock(&mu);
	while ((de = readdir(d)) != NULL) {
		if ((tid = atoi(de->d_name)) <= 0)
			continue;
		for (cpu = 0; cpu < ncpu; cpu++)
			for (kind = 0; kind < 2; kind++)
				if ((fd = open_event(tid, cpu, kind)) != -1) {
					p->fds = xrealloc(p->fds, (p->nfds + 1) *
					    sizeof(*p->fds));
					p->fds[p->nfds++] = fd;
				}
	}
	pthread_mutex_unlock(&mu);
	closedir(d);
}

void
dwstack_inherit(int parent, int child)
{
	struct proc *p;

	HASH_FIND_INT(procs, &parent, p);
	if (p != NULL && p->followed)
		proc_get(child)->followed = 1;
}

void
dwstack_forget(int tgid)
{
	struct proc *p;

	HASH_FIND_INT(procs, &tgid, p);
	if (p != NULL && p->unwinder != NULL) {
		unwinder_close(p->unwinder);
		p->unwinder = NULL;
	}
}

void
dwstack_exit(int tgid)
{
	struct proc *p;
	int i;

	HASH_FIND_INT(procs, &tgid, p);
	if (p == NULL)
		return;
	/* Its samples are in the buffers already: they outlive the events. */
	for (i = 0; i < p->nfds; i++)
		close(p->fds[i]);
	if (p->unwinder != NULL)
		unwinder_close(p->unwinder);
	HASH_DEL(procs, p);
	free(p->fds);
	free(p);
}

static void
pend(struct sample *s)
{
	struct pending *p;
	int i;

	HASH_FIND_INT(pendings, &s->tid, p);
	if (p == NULL) {
		p = xcalloc(1, sizeof(*p));
		p->tid = s->tid;
		HASH_ADD_INT(pendings, tid, p);
	}
	if (p->n == p->cap) {
		p->cap = p->cap ? 2 * p->cap : 16;
		p->s = xrealloc(p->s, p->cap * sizeof(*p->s));
	}
	/* In time order: a thread that migrated has samples in two rings. */
	for (i = p->n; i > 0 && p->s[i - 1].time > s->time; i--)
		p->s[i] = p->s[i - 1];
	p->s[i] = *s;
	p->n++;
}

static void
drop(struct sample *s)
{
	held -= s->size;
	free(s->stack);
}

static void
copy_out(const struct ring *r, uint64_t at, void *to, size_t n)
{
	size_t size = RING_PAGES * page, off = at % size;
	size_t first = n < size - off ? n : size - off;

	memcpy(to, r->data + off, first);
	memcpy((unsigned char *)to + first, r->data, n - first);
}

/*
 * A sample: pid, tid; time; raw size, raw[size] (the tracepoint's
 * record); abi, bp, sp, ip (abi 0: no user registers, a kernel thread);
 * size, stack[size], dyn_size.
 */
/* A field of a record, sign-extended as the capture's field_i64() reads it. */
static int64_t
field_int(const unsigned char *p, int size)
{
	int32_t i32;
	int16_t i16;
	int64_t i64;

	switch (size) {
	case 1: return (int8_t)*p;
	case 2: memcpy(&i16, p, 2); return i16;
	case 4: memcpy(&i32, p, 4); return i32;
	default: memcpy(&i64, p, 8); return i64;
	}
}

static void
parse(const unsigned char *rec, size_t len, int kind)
{
	struct sample s;
	const struct field *f;
	uint64_t abi, size, dyn;
	uint32_t rawlen;
	size_t o = sizeof(struct perf_event_header);
	int i;

	if (len < o + 20)
		return;
	memset(&s, 0, sizeof(s));
	s.kind = kind;
	memcpy(&s.tid, rec + o + 4, 4);
	memcpy(&s.time, rec + o + 8, 8);
	memcpy(&rawlen, rec + o + 16, 4);
	o += 20;
	if (len < o + rawlen + 8)
		return;
	for (i = 0; i < DWSTACK_MAXKEY; i++) {
		f = &keyf[kind][i];
		if (f->off < 0 || (uint32_t)f->off + f->size > rawlen)
			break;
		s.key[s.nkey++] = field_int(rec + o + f->off, f->size);
	}
	o += rawlen;
	memcpy(&abi, rec + o, 8);
	o += 8;
	if (abi == 0)
		return;
	if (len < o + 32)
		return;
	memcpy(&s.bp, rec + o, 8);
	memcpy(&s.sp, rec + o + 8, 8);
	memcpy(&s.ip, rec + o + 16, 8);
	memcpy(&size, rec + o + 24, 8);
	o += 32;
	if (size == 0 || len < o + size + 8)
		return;
	memcpy(&dyn, rec + o + size, 8);
	s.size = dyn < size ? dyn : size;
	if (held + s.size > HELD_MAX) {
		lost++;		/* the formatter is too far behind */
		return;
	}
	held += s.size;
	if (held > held_max)
		held_max = held;
	s.stack = xmalloc(s.size);
	memcpy(s.stack, rec + o, s.size);
	pend(&s);
}

static void
drain(struct ring *r)
{
	static unsigned char *rec;
	struct perf_event_header h;
	uint64_t head, tail, n;

	if (rec == NULL)
		rec = xmalloc(65536);
	head = __atomic_load_n(&r->meta->data_head, __ATOMIC_ACQUIRE);
	tail = r->meta->data_tail;
	while (tail < head) {
		copy_out(r, tail, &h, sizeof(h));
		if (h.size < sizeof(h))
			break;
		copy_out(r, tail, rec, h.size);
		tail += h.size;
		if (h.type == PERF_RECORD_SAMPLE)
			parse(rec, h.size, r->kind);
		else if (h.type == PERF_RECORD_LOST) {
			memcpy(&n, rec + sizeof(h) + 8, 8);
			lost += n;
			overrun += n;
		}
	}
	__atomic_store_n(&r->meta->data_tail, tail, __ATOMIC_RELEASE);
}

/*
 * The process's mappings, as libdwfl modules: read when its first stack
 * is unwound and again, at most once a second, when an address falls in
 * none (a library loaded since).
 */
static struct unwinder *
unwinder_of(int tgid, uint64_t ip)
{
	struct proc *p = proc_get(tgid);

	if (p->unwinder != NULL && (unwinder_knows(p->unwinder, ip) ||
	    now_ns() - p->reported_at < 1000000000))
		return p->unwinder;
	if (p->unwinder != NULL)
		unwinder_close(p->unwinder);
	p->reported_at = now_ns();
	p->unwinder = unwinder_open(tgid);
	return p->unwinder;
}

/* Its memory is the copied stack alone: the process has moved on. */
static int
unwind(int tgid, const struct sample *s, uint64_t *pcs)
{
	struct ustack us;
	struct unwinder *u;
	int n = 0;

	if ((u = unwinder_of(tgid, s->ip)) != NULL) {
		us = (struct ustack){ .tid = s->tid, .has_bp = 1, .bp = s->bp,
		    .sp = s->sp, .pc = s->ip, .stack = s->stack,
		    .size = s->size };
		n = unwinder_frames(u, &us, pcs, DWSTACK_MAXFRAMES);
	}
	if (n == 0)
		pcs[n++] = s->ip;	/* where it was, at least */
	return n;
}

/* Unmatched samples of threads that never ask (gone, unselected). */
static void
prune(uint64_t ts)
{
	struct pending *p, *tmp;
	int i, k;

	HASH_ITER(hh, pendings, p, tmp) {
		for (k = 0, i = 0; i < p->n; i++)
			if (p->s[i].time + KEEP_NS < ts)
				drop(&p->s[i]);
			else
				p->s[k++] = p->s[i];
		p->n = k;
		if (k == 0) {
			HASH_DEL(pendings, p);
			free(p->s);
			free(p);
		}
	}
}

static void
drain_all(void)
{
	int i;

	for (i = 0; i < nrings; i++)
		drain(&rings[i]);
}

void
dwstack_collect(void)
{
	/* Never make the reader wait: the formatter will drain, or the next pass. */
	if (pthread_mutex_trylock(&mu) != 0)
		return;
	if (rings != NULL)
		drain_all();
	pthread_mutex_unlock(&mu);
}

/*
 * The sample of tid's event, taken out of the pending ones; what came
 * before it will not be asked for again (events come in time order).
 */
static int
take(uint64_t ts, int tid, enum dwstack_kind kind, const int64_t *key,
    int nkey, struct sample *out)
{
	static uint64_t pruned;
	struct pending *p;
	int i, k, best = -1;
	uint64_t d, bestd = MATCH_NS + 1;

	drain_all();
	if (ts > pruned + KEEP_NS) {
		prune(ts);
		pruned = ts;
	}
	HASH_FIND_INT(pendings, &tid, p);
	if (p == NULL)
		return 0;
	for (i = 0; i < p->n; i++) {
		if (p->s[i].kind != (int)kind)
			continue;
		if (nkey > p->s[i].nkey || memcmp(p->s[i].key, key,
		    nkey * sizeof(*key)) != 0)
			continue;
		d = p->s[i].time > ts ? p->s[i].time - ts : ts - p->s[i].time;
		if (d < bestd) {
			bestd = d;
			best = i;
		}
	}
	for (k = 0, i = 0; i < p->n; i++)
		if (i == best) {
			*out = p->s[i];
			held -= out->size;
		} else if (i < best || p->s[i].time + MATCH_NS < ts)
			drop(&p->s[i]);
		else
			p->s[k++] = p->s[i];
	p->n = k;
	return best >= 0;
}

int
dwstack_unwind(uint64_t ts, int tid, int tgid, enum dwstack_kind kind,
    const int64_t *key, int nkey, uint64_t pcs[DWSTACK_MAXFRAMES])
{
	struct sample s = { 0 };	/* take() fills it when found */
	uint64_t now, rest;
	int found, n = 0;

	pthread_mutex_lock(&mu);
	found = take(ts, tid, kind, key, nkey, &s);
	/* An event the formatter met at once: its sample may be on its way. */
	if (!found && (now = now_ns()) < ts + MATCH_NS) {
		pthread_mutex_unlock(&mu);
		rest = ts + MATCH_NS - now;
		nanosleep(&(struct timespec){ rest / 1000000000ULL,
		    rest % 1000000000ULL }, NULL);
		pthread_mutex_lock(&mu);
		found = take(ts, tid, kind, key, nkey, &s);
	}
	if (found)
		written++;
	else
		missed++;
	pthread_mutex_unlock(&mu);
	/* Unwinding is slow: not under the lock the reader wants. */
	if (found) {
		n = unwind(tgid > 0 ? tgid : tid, &s, pcs);
		free(s.stack);
	}
	return n;
}

void
dwstack_stats(uint64_t *w, uint64_t *m, uint64_t *l)
{
	*w = written;
	*m = missed;
	*l = lost;
}

void
dwstack_close(void)
{
	struct proc *p, *tmp;
	int i;

	if (getenv("ARGUS_CAPTURE_DEBUG") != NULL)
		fprintf(stderr, "argus-capture: stacks: %llu lost in the "
		    "kernel's buffers, at most %zu bytes held\n",
		    (unsigned long long)overrun, held_max);
	HASH_ITER(hh, procs, p, tmp)
		dwstack_exit(p->tgid);
	pthread_mutex_lock(&mu);
	for (i = 0; i < nrings; i++) {
		munmap(rings[i].meta, (RING_PAGES + 1) * page);
		close(rings[i].fd);
	}
	nrings = 0;
	pthread_mutex_unlock(&mu);
}
