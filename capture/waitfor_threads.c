/*
 * Pass 1 of the wait-for snapshot (waitfor.c): every process and thread
 * from /proc, and for a blocked thread its system call and arguments,
 * wchan and when it last ran.  The later passes look at these threads
 * only.
 */
#include <sys/types.h>
#include <sys/sysinfo.h>

#include <dirent.h>
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <uthash.h>

#include "util.h"
#include "syscalls.h"
#include "waitfor.h"
#include "waitfor_int.h"

#define PF_KTHREAD	0x00200000	/* include/linux/sched.h */

/* Pass 1: threads. */

struct proc *
wf_proc_get(struct wf_snap *s, int pid)
{
	struct proc *p;

	HASH_FIND_INT(s->procs, &pid, p);
	return p;
}

/* "tid (comm) S ppid pgrp session tty tpgid flags ...": comm may hold ')'. */
static int
parse_stat(char *buf, char *comm, char *state, int *ppid, int *pgrp,
    unsigned *flags)
{
	char *open = strchr(buf, '('), *close = strrchr(buf, ')');
	size_t n;

	if (open == NULL || close == NULL || close < open)
		return -1;
	n = close - open - 1;
	if (n > 15)
		n = 15;
	memcpy(comm, open + 1, n);
	comm[n] = '\0';
	return sscanf(close + 1, " %c %d %d %*d %*d %*d %u", state, ppid, pgrp,
	    flags) == 4 ? 0 : -1;
}

static int
in_list(int v, const int *list, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (list[i] == v)
			return 1;
	return 0;
}

static int
named(const struct wf_opts *o, const char *comm, const char *pcomm)
{
	int i;

	for (i = 0; i < o->ncomms; i++)
		if (strcmp(comm, o->comms[i]) == 0 ||
		    strcmp(pcomm, o->comms[i]) == 0)
			return 1;
	return 0;
}

/* "se.exec_start : 8095037.493575": ms of the scheduler's clock. */
static uint64_t
exec_start(const char *path)
{
	char buf[4096], *p;
	unsigned long long ms, frac;

	if (wf_procf(buf, sizeof(buf), "%s", path) <= 0 ||
	    (p = strstr(buf, "se.exec_start")) == NULL ||
	    (p = strchr(p, ':')) == NULL ||
	    sscanf(p + 1, " %llu.%6llu", &ms, &frac) != 2)
		return NO_TIME;
	return ms * 1000000ULL + frac;
}

/*
 * The scheduler's task clock leaves out time stolen by the hypervisor
 * and spent in interrupts, each CPU's own: on a busy VM it falls seconds
 * behind CLOCK_MONOTONIC within the hour, and two CPUs' clocks can be a
 * second apart soon after boot (a sleeper's start read from the other
 * CPU comes out that late).  Our own thread runs now, so its
 * exec_start is now on the clock of the CPU it runs on: the difference,
 * taken on each CPU we may run on, once a snapshot, brings a thread's
 * to CLOCK_MONOTONIC by the CPU it last ran on (late by what that CPU
 * had stolen since).  Where we may not run, the CPU we run on says.
 */
static int64_t	 sched_skew;
static int64_t	*cpu_skew;	/* INT64_MIN: not taken there */
static int	 ncpu_skew;

static int64_t
skew_here(void)
{
	uint64_t t = exec_start("/proc/thread-self/sched");

	return t == NO_TIME ? 0 : (int64_t)(now_ns() - t);
}

void
wf_sched_calibrate(void)
{
	cpu_set_t mine, one;
	int c;

	sched_skew = skew_here();
	if (cpu_skew == NULL) {
		ncpu_skew = get_nprocs_conf();
		cpu_skew = xcalloc(ncpu_skew, sizeof(*cpu_skew));
	}
	for (c = 0; c < ncpu_skew; c++)
		cpu_skew[c] = INT64_MIN;
	if (sched_getaffinity(0, sizeof(mine), &mine) == -1)
		return;
	for (c = 0; c < ncpu_skew && c < CPU_SETSIZE; c++) {
		if (!CPU_ISSET(c, &mine))
			continue;
		CPU_ZERO(&one);
		CPU_SET(c, &one);
		if (sched_setaffinity(0, sizeof(one), &one) == 0 &&
		    sched_getcpu() == c)
			cpu_skew[c] = skew_here();
	}
	sched_setaffinity(0, sizeof(mine), &mine);
}

/*
 * When the thread was born, on CLOCK_MONOTONIC, from its stat's 22nd
 * field, "starttime" (clock ticks since boot, CLOCK_BOOTTIME's): NO_TIME
 * if unknown.
 */
uint64_t
wf_stat_born(const struct wf_snap *s, const char *buf)
{
	const char *p = strrchr(buf, ')');
	unsigned long long ticks;
	long hz = sysconf(_SC_CLK_TCK);
	uint64_t t;

	if (p == NULL || hz <= 0 || sscanf(p + 1, " %*c %*d %*d %*d %*d %*d "
	    "%*u %*u %*u %*u %*u %*u %*u %*d %*d %*d %*d %*d %*d %llu",
	    &ticks) != 1)
		return NO_TIME;
	t = ticks * (1000000000ULL / hz);
	return t > s->boot_off ? t - s->boot_off : 0;
}

/*
 * When the thread last ran, brought to CLOCK_MONOTONIC: never before it
 * was born, however far its CPU's task clock fell behind the snapshot's
 * (seconds, on a VM whose CPUs are stolen unevenly).
 */
static uint64_t
last_ran(int pid, int tid, int cpu, uint64_t born)
{
	char path[64];
	uint64_t t;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/sched", pid, tid);
	if ((t = exec_start(path)) == NO_TIME)
		return NO_TIME;
	if (cpu >= 0 && cpu < ncpu_skew && cpu_skew[cpu] != INT64_MIN)
		t += cpu_skew[cpu];
	else
		t += sched_skew;
	return born != NO_TIME && t < born ? born : t;
}

/* The CPU a thread last ran on: its stat's 39th field, "processor". */
static int
stat_cpu(const char *buf)
{
	const char *p = strrchr(buf, ')');
	int field;

	if (p == NULL)
		return -1;
	/* Field 3, the state, is the first after the comm. */
	for (field = 2, p++; *p != '\0' && field < 39; p++)
		if (*p == ' ')
			field++;
	return field == 39 ? atoi(p) : -1;
}

/*
 * "NR A1 .. A6 SP PC", "-1 SP PC" (blocked outside a call), "running".
 * -1 if we may not read it (another user's process, or one the kernel
 * keeps from root too): such a thread says nothing of its wait.
 */
static int
thread_call(struct thr *t)
{
	char buf[256], *p, *end;
	long nr;
	int i;

	t->call = "";
	if (wf_procf(buf, sizeof(buf), "/proc/%d/task/%d/syscall", t->pid,
	    t->tid) <= 0)
		return errno == EACCES || errno == EPERM ? -1 : 0;
	nr = strtol(buf, &end, 10);
	if (end == buf)
		return 0;
	if (nr < 0) {
		t->sp = strtoull(end, NULL, 16);
		return 0;
	}
	t->call = syscall_name(nr);
	if (*t->call == '\0')
		t->call = "?";
	for (i = 0, p = end; i < 6; i++, p = end) {
		t->a[i] = strtoull(p, &end, 16);
		if (end == p)
			break;
	}
	t->nargs = i;
	if (i == 6)
		t->sp = strtoull(end, NULL, 16);
	return 0;
}

static void
add_thread(struct wf_snap *s, struct proc *p, int tid, char state,
    const char *comm, int cpu, uint64_t born)
{
	const struct wf_opts *o = s->opt;
	struct thr *t;
	char *nl;
	int root;

	root = in_list(p->pid, o->pids, o->npids) ||
	    in_list(tid, o->tids, o->ntids) || named(o, comm, p->comm);
	/*
	 * Blocked: S and D; stopped: T and t, which hold up whoever waits
	 * on them as much; a root is shown whatever it does.  One running
	 * may spin on memory it shares: pass 5 asks.
	 */
	if (!root && state != 'S' && state != 'D' && state != 'T' &&
	    state != 't' && state != 'R')
		return;
	GROW(s->thr, s->nthr, s->capthr);
	t = &s->thr[s->nthr++];
	memset(t, 0, sizeof(*t));
	t->pid = p->pid;
	t->tid = tid;
	t->state[0] = state;
	snprintf(t->comm, sizeof(t->comm), "%s", comm);
	t->root = root;
	t->running = !root && state == 'R';
	if (thread_call(t) == -1) {
		s->nthr--;
		s->st.unreadable += !t->running;
		return;
	}
	if (wf_procf(t->wchan, sizeof(t->wchan), "/proc/%d/task/%d/wchan", p->pid,
	    tid) <= 0 || strcmp(t->wchan, "0") == 0)
		t->wchan[0] = '\0';
	if ((nl = strchr(t->wchan, '\n')) != NULL)
		*nl = '\0';
	t->since = last_ran(p->pid, tid, cpu, born);
}

static void
scan_process(struct wf_snap *s, int pid)
{
	char path[64], buf[1024], comm[16], state;
	struct dirent *de;
	struct proc *p;
	unsigned flags;
	int ppid, pgrp, tid;
	DIR *d;

	if (wf_procf(buf, sizeof(buf), "/proc/%d/stat", pid) <= 0 ||
	    parse_stat(buf, comm, &state, &ppid, &pgrp, &flags) == -1)
		return;
	p = xcalloc(1, sizeof(*p));
	p->pid = pid;
	p->ppid = ppid;
	p->pgrp = pgrp;
	p->state = state;
	memcpy(p->comm, comm, sizeof(p->comm));
	p->kthread = (flags & PF_KTHREAD) != 0;
	p->skip = in_list(pid, s->opt->skip, s->opt->nskip);
	HASH_ADD_INT(s->procs, pid, p);
	if (p->kthread || p->skip)
		return;
	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	if ((d = opendir(path)) == NULL)
		return;
	while ((de = readdir(d)) != NULL) {
		if ((tid = atoi(de->d_name)) <= 0)
			continue;
		s->st.threads++;
		if (wf_procf(buf, sizeof(buf), "/proc/%d/task/%d/stat", pid,
		    tid) <= 0 ||
		    parse_stat(buf, comm, &state, &ppid, &pgrp, &flags) == -1)
			continue;
		add_thread(s, p, tid, state, comm, stat_cpu(buf),
		    wf_stat_born(s, buf));
	}
	closedir(d);
}

void
wf_scan_threads(struct wf_snap *s)
{
	struct dirent *de;
	DIR *d;
	int pid;

	if ((d = opendir("/proc")) == NULL)
		die(EX_UNAVAILABLE, "/proc");
	while ((de = readdir(d)) != NULL)
		if ((pid = atoi(de->d_name)) > 0)
			scan_process(s, pid);
	closedir(d);
}

