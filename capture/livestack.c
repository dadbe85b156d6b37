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

#include <elfutils/libdwfl.h>

#include "livestack.h"

#define STACK_MAX	(512 << 10)	/* bytes copied above sp, at most */

#if defined(__x86_64__)
#define DWARF_SP	7
#elif defined(__aarch64__)
#define DWARF_SP	31
#endif

struct live {
	int		 pid, tid;
	uint64_t	 sp, pc;
	unsigned char	*stack;
	size_t		 size;
};

/* CFI is in the file itself: never look for (or download) debuginfo. */
static int
no_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname,
    Dwarf_Addr base, const char *file, const char *debuglink, GElf_Word crc,
    char **debuginfo_file_name)
{
	(void)mod; (void)userdata; (void)modname; (void)base; (void)file;
	(void)debuglink; (void)crc; (void)debuginfo_file_name;
	return -1;
}

static const Dwfl_Callbacks callbacks = {
	.find_elf = dwfl_linux_proc_find_elf,
	.find_debuginfo = no_debuginfo,
};

static pid_t
next_thread(Dwfl *dwfl, void *arg, void **thread_argp)
{
	struct live *l = arg;

	(void)dwfl;
	if (*thread_argp != NULL)
		return 0;
	*thread_argp = arg;
	return l->tid;
}

static bool
get_thread(Dwfl *dwfl, pid_t tid, void *arg, void **thread_argp)
{
	(void)dwfl;
	(void)tid;
	*thread_argp = arg;
	return true;
}

static bool
memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result, void *arg)
{
	struct live *l = arg;
	struct iovec local = { result, sizeof(*result) };
	struct iovec remote = { (void *)(uintptr_t)addr, sizeof(*result) };

	(void)dwfl;
	if (addr >= l->sp && addr + sizeof(*result) <= l->sp + l->size) {
		memcpy(result, l->stack + (addr - l->sp), sizeof(*result));
		return true;
	}
	return process_vm_readv(l->pid, &local, 1, &remote, 1, 0) ==
	    (ssize_t)sizeof(*result);
}

static bool
set_initial_registers(Dwfl_Thread *thread, void *arg)
{
	struct live *l = arg;
	Dwarf_Word sp = l->sp;

	if (!dwfl_thread_state_registers(thread, DWARF_SP, 1, &sp))
		return false;
	dwfl_thread_state_register_pc(thread, l->pc);
	return true;
}

static const Dwfl_Thread_Callbacks thread_callbacks = {
	.next_thread = next_thread,
	.get_thread = get_thread,
	.memory_read = memory_read,
	.set_initial_registers = set_initial_registers,
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

struct frames {
	uint64_t	*pcs;
	int		 n, max;
};

static int
frame(Dwfl_Frame *f, void *arg)
{
	struct frames *fr = arg;
	Dwarf_Addr pc;

	if (!dwfl_frame_pc(f, &pc, NULL) || pc == 0)
		return DWARF_CB_ABORT;
	fr->pcs[fr->n++] = pc;
	return fr->n < fr->max ? DWARF_CB_OK : DWARF_CB_ABORT;
}

int
livestack_user(int tgid, int tid, uint64_t *pcs, int max)
{
	struct frames fr = { pcs, 0, max };
	struct live l = { tgid, tid, 0, 0, NULL, 0 };
	Dwfl *dwfl;

#ifndef DWARF_SP
	return 0;
#endif
	if (max <= 0 || where(&l) == -1)
		return 0;
	if (copy_stack(&l) == 0 && (dwfl = dwfl_begin(&callbacks)) != NULL) {
		if (dwfl_linux_proc_report(dwfl, tgid) == 0 &&
		    dwfl_report_end(dwfl, NULL, NULL) == 0 &&
		    dwfl_attach_state(dwfl, NULL, tgid, &thread_callbacks, &l))
			dwfl_getthread_frames(dwfl, tid, frame, &fr);
		dwfl_end(dwfl);
	}
	free(l.stack);
	if (fr.n == 0)
		pcs[fr.n++] = l.pc;	/* where it is, at least */
	return fr.n;
}
