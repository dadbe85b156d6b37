/*
 * hostile-ring DIR HOW [TID]: a patched program's ring (patchers/ubuf.h)
 * made in DIR (-: ARGUS_PATCH_DIR's, as argus-capture --patch gives it)
 * as libargus-patch.so makes one, as root, which then drops
 * to nobody, as a service does, and writes into it what its recorder
 * must refuse (issue: a ring's writer controls all of it).  HOW:
 *   good	 events of its own, as the patcher writes them
 *   exit	 an event named "exit", the kernel's word
 *   escape	 an event name with an escape and a newline
 *   tid	 an event of thread TID, another process's
 *   cpu	 an event on cpu 65535
 *   ts		 an event stamped 2^64 - 1
 *   clock	 a header's clock none of UBUF_CLOCK_*
 *   tsc	 a ring on the TSC, an event a TSC count of 2^63 later
 *   head	 a head 2,098,176 cells past the tail
 *   size	 a header's rings of half the cells its file holds
 *   cut	 an event of 3 arguments, head moved past its first cell
 *		 alone
 *   truncate	 an event, then, once it was read (within 30 s), the file
 *		 cut to nothing
 *   dead	 once read, an event of a child process that has exited
 *		 (gone from /proc, but not from the recorder's trace)
 * It prints "pid PID" and stays 4 s more, its threads there to be checked.
 */
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include <err.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../../patchers/ubuf.h"

static uint64_t
stamp(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* Until a recorder has read what slot s holds (30 s at most). */
static void
read_out(struct ubuf_slot *s)
{
	int i;

	for (i = 0; i < 3000 && __atomic_load_n(&s->tail, __ATOMIC_ACQUIRE) !=
	    s->head; i++)
		usleep(10000);
}

/* An event of nargs into slot s's next cell, not yet published. */
static struct ubuf_head *
fill(struct ubuf_slot *s, uint32_t tid, uint16_t cpu, uint64_t ts,
    int nargs)
{
	struct ubuf_head *e = &s->cell[s->head & (UBUF_CELLS - 1)].head;

	e->ts = ts;
	e->tid = tid;
	e->cpu = cpu;
	e->probe = 0;
	e->nargs = nargs;
	e->arg[0] = 42;
	return e;
}

/* One event into slot s, as patch.c's record() writes it. */
static void
record(struct ubuf_slot *s, uint32_t tid, uint16_t cpu, uint64_t ts)
{
	fill(s, tid, cpu, ts, 1);
	__atomic_store_n(&s->head, s->head + 1, __ATOMIC_RELEASE);
}

int
main(int argc, char *argv[])
{
	struct ubuf_hdr *h;
	struct ubuf_slot *s;
	char path[4096];
	const char *how, *dir = argv[1];
	uint32_t me;
	pid_t child;
	int fd, i;

	if (argc < 3)
		errx(64, "usage: hostile-ring DIR HOW [TID]");
	how = argv[2];
	if (strcmp(dir, "-") == 0 && (dir = getenv("ARGUS_PATCH_DIR")) == NULL)
		errx(64, "-: no ARGUS_PATCH_DIR");
	for (i = 0, fd = -1; i < 10 && fd == -1; i++) {
		snprintf(path, sizeof(path), "%s/%d-%d.ubuf", dir,
		    (int)getpid(), i);
		fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW |
		    O_CLOEXEC, 0600);
	}
	if (fd == -1)
		err(73, "%s", path);
	if (ftruncate(fd, ubuf_size(UBUF_CELLS)) == -1 || (h = mmap(NULL,
	    ubuf_size(UBUF_CELLS), PROT_READ | PROT_WRITE, MAP_SHARED, fd,
	    0)) == MAP_FAILED)
		err(71, "%s", path);
	/* The service's privileges dropped: what it writes now is nobody's. */
	if (getuid() == 0 && (setgid(65534) == -1 || setuid(65534) == -1))
		err(71, "setuid");
	me = syscall(SYS_gettid);
	h->version = UBUF_VERSION;
	h->pid = getpid();
	h->nslots = UBUF_SLOTS;
	h->ncells = UBUF_CELLS;
	h->nprobes = 1;
	if (strcmp(how, "exit") == 0)
		snprintf(h->name[0], UBUF_NAMELEN, "exit");
	else if (strcmp(how, "escape") == 0)
		snprintf(h->name[0], UBUF_NAMELEN, "\033[31mred\nline");
	else
		snprintf(h->name[0], UBUF_NAMELEN, "hostile_hit");
	if (strcmp(how, "size") == 0)
		h->ncells = UBUF_CELLS / 2;
	if (strcmp(how, "clock") == 0)
		h->clock = 7;
	else if (strcmp(how, "tsc") == 0)
		h->clock = UBUF_CLOCK_TSC;
	s = ubuf_slot(h, 0, UBUF_CELLS);
	s->owner = me;
	__atomic_store_n(&h->magic, UBUF_MAGIC, __ATOMIC_RELEASE);
	printf("pid %d\n", (int)getpid());
	fflush(stdout);

	for (i = 0; i < 3 && strcmp(how, "tsc") != 0 && strcmp(how, "cut") != 0;
	    i++)
		record(s, me, sched_getcpu(), stamp());
	if (strcmp(how, "tsc") == 0)
		record(s, me, sched_getcpu(), __builtin_ia32_rdtsc() +
		    (1ULL << 63));
	else if (strcmp(how, "tid") == 0)
		record(s, argc > 3 ? atoi(argv[3]) : 1, sched_getcpu(),
		    stamp());
	else if (strcmp(how, "cpu") == 0)
		record(s, me, 65535, stamp());
	else if (strcmp(how, "ts") == 0)
		record(s, me, sched_getcpu(), UINT64_MAX);
	else if (strcmp(how, "head") == 0)
		__atomic_store_n(&s->head, s->head + 2098176, __ATOMIC_RELEASE);
	else if (strcmp(how, "cut") == 0) {
		fill(s, me, sched_getcpu(), stamp(), 3);
		__atomic_store_n(&s->head, s->head + 1, __ATOMIC_RELEASE);
	} else if (strcmp(how, "truncate") == 0) {
		/* Read by a recorder, then gone under it. */
		read_out(s);
		if (ftruncate(fd, 0) == -1)
			err(71, "ftruncate");
	} else if (strcmp(how, "dead") == 0) {
		/* A process the recorder sees born and die. */
		read_out(s);
		if ((child = fork()) == -1)
			err(71, "fork");
		if (child == 0)
			_exit(0);
		waitpid(child, NULL, 0);
		record(s, child, sched_getcpu(), stamp());
	} else if (strcmp(how, "good") != 0 && strcmp(how, "exit") != 0 &&
	    strcmp(how, "escape") != 0 && strcmp(how, "size") != 0 &&
	    strcmp(how, "clock") != 0)
		errx(64, "%s: no such HOW", how);
	sleep(4);
	return 0;
}
