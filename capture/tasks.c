/*
 * A two-level table indexed by tid: lookups sit on the hot path (every
 * event needs its thread's tgid, switches and wakeups a second one), and
 * tids are small dense integers, so an array beats hashing.  Chunks are
 * allocated when a tid in their range first appears; a reused tid simply
 * overwrites its slot when its fork is traced.
 */
#include <sys/types.h>

#include <ctype.h>
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util.h"
#include "tasks.h"
#include "procopen.h"
#include "cgroup.h"

uint32_t task_generation = 1;

#define CHUNK_BITS	10
#define CHUNK		(1 << CHUNK_BITS)
#define TID_LIMIT	(1 << 22)	/* PID_MAX_LIMIT */
#define NCHUNKS		(TID_LIMIT / CHUNK)

static struct task	*chunks[NCHUNKS];
static uint8_t		*probed[NCHUNKS];	/* /proc asked already */
static struct task	 nobody;

struct task *
task_get(int tid)
{
	unsigned c;

	if (tid < 0 || tid >= TID_LIMIT) {
		memset(&nobody, 0, sizeof(nobody));
		return &nobody;
	}
	c = (unsigned)tid >> CHUNK_BITS;
	if (chunks[c] == NULL) {
		chunks[c] = xcalloc(CHUNK, sizeof(struct task));
		probed[c] = xcalloc(CHUNK, 1);
	}
	return &chunks[c][tid & (CHUNK - 1)];
}

void
task_set(int tid, int tgid, const char *comm, int commlen)
{
	struct task *t = task_get(tid);

	t->tgid = tgid;
	t->dead = 0;
	if (comm != NULL) {
		if (commlen > 15)
			commlen = 15;
		commlen = strnlen(comm, commlen);
		/*
		 * A new name (an exec, a rename): the thread is introduced
		 * again at its next event, so the stream says from when
		 * (argus-stream(5): its latest task record names it).
		 */
		if (strncmp(t->comm, comm, commlen) != 0 ||
		    t->comm[commlen] != '\0')
			t->intro = t->cg_gen = 0;
		memcpy(t->comm, comm, commlen);
		memset(t->comm + commlen, 0, 16 - commlen);
	}
}

/* Tgid and name of one thread from /proc, or -1. */
static int
proc_task(int tid, int *tgid, char *comm)
{
	char path[64], buf[4096], *p, *nl;

	snprintf(path, sizeof(path), "/proc/%d/status", tid);
	if (proc_slurp(path, buf, sizeof(buf)) <= 0)
		return -1;
	if ((p = strstr(buf, "\nTgid:")) == NULL)
		return -1;
	*tgid = atoi(p + 6);
	comm[0] = '\0';
	if (strncmp(buf, "Name:\t", 6) == 0 &&
	    (nl = strchr(buf, '\n')) != NULL) {
		/* status escapes newlines; comm holds the name as set. */
		snprintf(path, sizeof(path), "/proc/%d/task/%d/comm", *tgid,
		    tid);
		if (proc_slurp(path, buf, 17) > 0) {
			buf[strcspn(buf, "\n")] = '\0';
			buf[15] = '\0';
			memcpy(comm, buf, strlen(buf) + 1);
		}
	}
	return 0;
}

/*
 * A thread we have not seen fork: it existed before the snapshot but was
 * missed (born in the race between enabling events and reading /proc), or
 * its fork was lost.  Ask /proc once; a thread already gone stays unknown.
 */
int
task_tgid(int tid)
{
	struct task *t;
	char comm[16];
	int tgid;
	unsigned c;

	if (tid == 0)
		return 0;	/* the idle task of each CPU */
	t = task_get(tid);
	if (t->tgid != 0)
		return t->tgid;
	if (tid < 0 || tid >= TID_LIMIT)
		return -1;
	c = (unsigned)tid >> CHUNK_BITS;
	if (probed[c][tid & (CHUNK - 1)])
		return -1;
	probed[c][tid & (CHUNK - 1)] = 1;
	if (proc_task(tid, &tgid, comm) == -1)
		return -1;
	task_set(tid, tgid, comm, strlen(comm));
	return tgid;
}

void
task_snapshot(void)
{
	char path[64], comm[32], cg[CGROUP_MAX];
	struct dirent *pe, *te;
	struct task *l;
	DIR *pd, *td;
	int pid, tid;

	if ((pd = opendir("/proc")) == NULL)
		die(EX_OSERR, "/proc");
	while ((pe = readdir(pd)) != NULL) {
		if (!isdigit((unsigned char)pe->d_name[0]))
			continue;
		pid = atoi(pe->d_name);
		snprintf(path, sizeof(path), "/proc/%d/task", pid);
		if ((td = opendir(path)) == NULL)
			continue;	/* gone meanwhile */
		/*
		 * Its cgroup now, while /proc has it: a process the
		 * formatter reaches only after it exited (the formatter
		 * runs at idle priority, and CPU hogs starve it) would
		 * have none.  Those born later take their parent's.  Read
		 * again at its first record (task_set() of its name below
		 * asks for that), this one stands if it is gone by then.
		 */
		l = task_get(pid);
		if (cgroup_read(pid, cg, sizeof(cg)) >= 0)
			l->cg = cgroup_intern(cg);
		while ((te = readdir(td)) != NULL) {
			if (!isdigit((unsigned char)te->d_name[0]))
				continue;
			tid = atoi(te->d_name);
			snprintf(path, sizeof(path), "/proc/%d/task/%d/comm",
			    pid, tid);
			if (proc_slurp(path, comm, 17) <= 0)
				continue;
			comm[strcspn(comm, "\n")] = '\0';
			/* A fork traced meanwhile is newer than /proc. */
			if (task_get(tid)->tgid == 0)
				task_set(tid, pid, comm, strlen(comm));
		}
		closedir(td);
	}
	closedir(pd);
}

const char *
task_cgroup(int tid)
{
	char path[CGROUP_MAX];
	struct task *l;
	int tgid;

	if ((tgid = task_tgid(tid)) <= 0)
		return "";
	l = task_get(tgid);
	if (l->cg_gen != task_generation) {
		l->cg_gen = task_generation;
		if (cgroup_read(tgid, path, sizeof(path)) >= 0)
			l->cg = cgroup_intern(path);
	}
	return l->cg != NULL ? l->cg : "";
}

void
task_fork(int child, int parent)
{
	struct task *c = task_get(child);

	c->cg = parent > 0 ? task_get(parent)->cg : NULL;
	c->cg_gen = 0;
}

void
task_foreach(void (*fn)(int, const struct task *, void *), void *arg)
{
	unsigned c, i;

	for (c = 0; c < NCHUNKS; c++) {
		if (chunks[c] == NULL)
			continue;
		for (i = 0; i < CHUNK; i++)
			if (chunks[c][i].tgid != 0 && !chunks[c][i].dead)
				fn((int)(c << CHUNK_BITS | i), &chunks[c][i],
				    arg);
	}
}
