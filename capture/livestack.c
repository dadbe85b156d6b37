/*
 * A blocked thread's user stack, taken when asked rather than sampled as
 * events come (dwstack.c): `argus debug' wants where the threads of a
 * chain wait now, at no cost before.
 *
 * Without stopping it: a thread blocked in a system call does not touch
 * its user stack, and the kernel says where it is (/proc/PID/task/TID/
 * syscall ends with its stack pointer and program counter).  A copy of
 * the stack above sp (process_vm_readv) is unwound with each file's CFI,
 * as dwstack.c unwinds perf's copies.  Stopping the thread with ptrace,
 * as eu-stack does, would end its wait: the recording would show the
 * hang cut by a signal, and the next look would see a new, short wait.
 */
#include <sys/uio.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "livestack.h"
#include "unwind.h"

#define STACK_MAX	(512 << 10)	/* bytes copied above sp, at most */

struct live {
	int		 pid, tid;
	uint64_t	 sp, pc;
	unsigned char	*stack;
	size_t		 size;
};

/* Where the blocked thread's registers are: 0, or -1 if not blocked. */
static int
where(struct live *l)
{
	char path[64], buf[512];
	unsigned long long v[9];
	long nr;
	FILE *fp;
	int n;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/syscall", l->pid,
	    l->tid);
	if ((fp = fopen(path, "re")) == NULL)
		return -1;
	if (fgets(buf, sizeof(buf), fp) == NULL)
		buf[0] = '\0';
	fclose(fp);
	/* "NR ARG1..ARG6 SP PC", "-1 SP PC" (not in a call), "running". */
	n = sscanf(buf, "%ld %llx %llx %llx %llx %llx %llx %llx %llx", &nr,
	    &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]);
	if (n == 9) {
		l->sp = v[6];
		l->pc = v[7];
	} else if (n == 3 && nr == -1) {
		l->sp = v[0];
		l->pc = v[1];
	} else
		return -1;
	return l->sp != 0 && l->pc != 0 ? 0 : -1;
}

/* The stack above sp, to the end of its mapping. */
static int
copy_stack(struct live *l)
{
	char path[64], line[512];
	unsigned long long lo, hi;
	struct iovec local, remote;
	ssize_t got;
	FILE *fp;

	snprintf(path, sizeof(path), "/proc/%d/maps", l->pid);
	if ((fp = fopen(path, "re")) == NULL)
		return -1;
	l->size = 0;
	while (fgets(line, sizeof(line), fp) != NULL)
		if (sscanf(line, "%llx-%llx", &lo, &hi) == 2 && lo <= l->sp &&
		    l->sp < hi) {
			l->size = hi - l->sp;
			break;
		}
	fclose(fp);
	if (l->size == 0)
		return -1;
	if (l->size > STACK_MAX)
		l->size = STACK_MAX;
	if ((l->stack = malloc(l->size)) == NULL)
		return -1;
	local.iov_base = l->stack;
	local.iov_len = l->size;
	remote.iov_base = (void *)(uintptr_t)l->sp;
	remote.iov_len = l->size;
	if ((got = process_vm_readv(l->pid, &local, 1, &remote, 1, 0)) <= 0)
		return -1;
	l->size = got;
	return 0;
}

int
livestack_user(int tgid, int tid, uint64_t *pcs, int max)
{
	struct live l = { tgid, tid, 0, 0, NULL, 0 };
	struct ustack us;
	struct unwinder *u;
	int n = 0;

#ifndef UNWIND_DWARF_SP
	return 0;
#endif
	if (max <= 0 || where(&l) == -1)
		return 0;
	if (copy_stack(&l) == 0 && (u = unwinder_open(tgid)) != NULL) {
		/* Beyond the copy, the process's memory now: it is blocked. */
		us = (struct ustack){ .tid = tid, .pid = tgid, .sp = l.sp,
		    .pc = l.pc, .stack = l.stack, .size = l.size };
		n = unwinder_frames(u, &us, pcs, max);
		unwinder_close(u);
	}
	free(l.stack);
	if (n == 0)
		pcs[n++] = l.pc;	/* where it is, at least */
	return n;
}
