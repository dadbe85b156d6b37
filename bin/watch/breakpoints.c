/*
 * Hardware watchpoints through perf.  x86 debug registers can trap on
 * writes, or on reads and writes, not on reads alone; so each thread gets
 * two: a write watchpoint and a read-or-write one.  A write trips both,
 * and its read-or-write twin (same thread, same instruction, a moment
 * later: the traps are taken one after the other) is dropped.  inherit makes threads created later watched too; the kernel
 * maps an inherited event's buffer only when it is bound to a CPU, so each
 * thread has its watchpoints once per CPU.
 */
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>

#include <linux/hw_breakpoint.h>
#include <linux/perf_event.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "watch.h"

#define RING_PAGES	16	/* data pages per buffer, a power of two */
#define TWIN_NS		10000000 /* a write's two traps come within this */

struct ring {
	int		 fd;
	int		 write;
	struct perf_event_mmap_page *meta;
	unsigned char	*data;
};

struct watch {
	pid_t		 pid;
	uint64_t	 addr;
	int		 len, mem;
	struct ring	*r;
	int		 nr;
	struct hit	*hits;
	int		 nhits, cap;
	size_t		 page;
};

static int
open_bp(struct watch *w, pid_t tid, int cpu, int type)
{
	struct perf_event_attr a;
	struct ring *r;
	void *m;
	int fd;

	memset(&a, 0, sizeof(a));
	a.type = PERF_TYPE_BREAKPOINT;
	a.size = sizeof(a);
	a.bp_type = type;
	a.bp_addr = w->addr;
	a.bp_len = w->len;
	a.sample_period = 1;
	a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
	    PERF_SAMPLE_CPU;
	a.use_clockid = 1;
	a.clockid = CLOCK_MONOTONIC;	/* the capture's clock */
	a.inherit = 1;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	a.wakeup_events = 1;
	fd = syscall(SYS_perf_event_open, &a, tid, cpu, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd == -1) {
		if (errno == ESRCH)
			return 0;	/* the thread is gone already */
		die(EX_UNAVAILABLE, "perf_event_open (breakpoint on thread %d)",
		    (int)tid);
	}
	m = mmap(NULL, (RING_PAGES + 1) * w->page, PROT_READ | PROT_WRITE,
	    MAP_SHARED, fd, 0);
	if (m == MAP_FAILED)
		die(EX_UNAVAILABLE, "mmap of a perf buffer");
	w->r = xrealloc(w->r, (w->nr + 1) * sizeof(*w->r));
	r = &w->r[w->nr++];
	r->fd = fd;
	r->write = type == HW_BREAKPOINT_W;
	r->meta = m;
	r->data = (unsigned char *)m + w->page;
	return 1;
}

struct watch *
watch_open(pid_t pid, uint64_t addr, int len)
{
	char path[64];
	struct dirent *de;
	struct watch *w;
	pid_t tid;
	int cpu, ncpu;
	DIR *d;

	if (len != 1 && len != 2 && len != 4 && len != 8)
		diex(EX_USAGE, "a watchpoint covers 1, 2, 4 or 8 bytes, not %d",
		    len);
	w = xcalloc(1, sizeof(*w));
	w->pid = pid;
	w->addr = addr;
	w->len = len;
	w->page = sysconf(_SC_PAGESIZE);
	snprintf(path, sizeof(path), "/proc/%d/mem", (int)pid);
	if ((w->mem = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		die(EX_NOINPUT, "%s", path);
	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	if ((d = opendir(path)) == NULL)
		die(EX_NOINPUT, "%s", path);
	ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	while ((de = readdir(d)) != NULL) {
		if ((tid = atoi(de->d_name)) <= 0)
			continue;
		for (cpu = 0; cpu < ncpu; cpu++) {
			open_bp(w, tid, cpu, HW_BREAKPOINT_W);
			open_bp(w, tid, cpu, HW_BREAKPOINT_RW);
		}
	}
	closedir(d);
	if (w->nr == 0)
		diex(EX_NOINPUT, "process %d has no threads left", (int)pid);
	return w;
}

/*
 * Some machines accept a breakpoint and never trap on it: virtual machines
 * that do not pass the debug registers through.  Watching there would
 * trace nothing and look like a flag nobody touches, so try one on a
 * variable of our own first.
 */
void
watch_selftest(void)
{
	static volatile int probe;
	struct perf_event_attr a;
	uint64_t hits = 0;
	int fd;

	memset(&a, 0, sizeof(a));
	a.type = PERF_TYPE_BREAKPOINT;
	a.size = sizeof(a);
	a.bp_type = HW_BREAKPOINT_W;
	a.bp_addr = (uintptr_t)&probe;
	a.bp_len = HW_BREAKPOINT_LEN_4;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	fd = syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd == -1)
		die(EX_UNAVAILABLE, "perf_event_open (a hardware breakpoint)");
	probe = 1;
	probe = 2;
	if (read(fd, &hits, sizeof(hits)) != sizeof(hits))
		hits = 0;
	close(fd);
	if (hits == 0)
		diex(EX_UNAVAILABLE, "hardware watchpoints do not fire on this "
		    "machine (a virtual machine without debug registers?)");
}

int
watch_poll(struct watch *w, int timeout_ms)
{
	struct pollfd *p = xcalloc(w->nr, sizeof(*p));
	int i, alive = 0;

	for (i = 0; i < w->nr; i++) {
		p[i].fd = w->r[i].fd;
		p[i].events = POLLIN;
	}
	if (poll(p, w->nr, timeout_ms) == -1 && errno != EINTR)
		die(EX_OSERR, "poll");
	/* POLLHUP: the watched thread exited; the others may go on. */
	for (i = 0; i < w->nr; i++)
		alive += !(p[i].revents & POLLHUP);
	free(p);
	return alive > 0;
}

static void
add(struct watch *w, const struct hit *h)
{
	if (w->nhits == w->cap) {
		w->cap = w->cap ? 2 * w->cap : 256;
		w->hits = xrealloc(w->hits, w->cap * sizeof(*w->hits));
	}
	w->hits[w->nhits++] = *h;
}

/* Records from one ring: [ip, pid, tid, time, cpu, res]. */
static void
drain(struct watch *w, struct ring *r)
{
	uint64_t head = r->meta->data_head, tail = r->meta->data_tail;
	uint64_t size = RING_PAGES * w->page;
	unsigned char rec[256];
	struct perf_event_header h;
	struct hit hit;
	size_t i;

	__sync_synchronize();	/* data_head before the data */
	while (tail < head) {
		for (i = 0; i < sizeof(h); i++)
			((unsigned char *)&h)[i] = r->data[(tail + i) % size];
		if (h.size < sizeof(h) || h.size > sizeof(rec))
			break;
		for (i = 0; i < h.size; i++)
			rec[i] = r->data[(tail + i) % size];
		tail += h.size;
		if (h.type != PERF_RECORD_SAMPLE)
			continue;
		memset(&hit, 0, sizeof(hit));
		memcpy(&hit.ip, rec + 8, 8);
		memcpy(&hit.pid, rec + 16, 4);
		memcpy(&hit.tid, rec + 20, 4);
		memcpy(&hit.time, rec + 24, 8);
		memcpy(&hit.cpu, rec + 32, 4);
		hit.write = r->write;
		add(w, &hit);
	}
	__sync_synchronize();
	r->meta->data_tail = tail;
}

static int
by_time(const void *a, const void *b)
{
	const struct hit *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return y->write - x->write;	/* a write before its twin */
}

int
watch_hits(struct watch *w, struct hit **out)
{
	int i, j, n;

	w->nhits = 0;
	for (i = 0; i < w->nr; i++)
		drain(w, &w->r[i]);
	if (w->nhits > 1)	/* qsort of no array is undefined */
		qsort(w->hits, w->nhits, sizeof(*w->hits), by_time);
	/* Drop the read-or-write trap of each write. */
	for (i = n = 0; i < w->nhits; i++) {
		if (!w->hits[i].write) {
			for (j = n - 1; j >= 0 && w->hits[i].time -
			    w->hits[j].time <= TWIN_NS; j--)
				if (w->hits[j].write && w->hits[j].tid ==
				    w->hits[i].tid && w->hits[j].ip == w->hits[i].ip)
					break;
			if (j >= 0 && w->hits[i].time - w->hits[j].time <= TWIN_NS)
				continue;
		}
		w->hits[n++] = w->hits[i];
	}
	*out = w->hits;
	return n;
}

uint64_t
watch_value(struct watch *w)
{
	uint64_t v = 0;

	if (pread(w->mem, &v, w->len, w->addr) != w->len)
		return 0;
	return v;
}

void
watch_close(struct watch *w)
{
	int i;

	for (i = 0; i < w->nr; i++) {
		munmap(w->r[i].meta, (RING_PAGES + 1) * w->page);
		close(w->r[i].fd);
	}
	close(w->mem);
	free(w->r);
	free(w->hits);
	free(w);
}
