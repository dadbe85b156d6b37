/*
 * The kernel's raw_syscalls events carry numbers only; names come from the
 * headers we were built with, which match the running kernel's ABI.  The
 * capture and the imports share the table: an imported trace is named by
 * the table of the machine that imports it (argus-import(1) says so).
 */
#include <stddef.h>
#include <string.h>
#include <sys/syscall.h>

#include "syscalls.h"

static const struct {
	const char	*name;
	long		 nr;
} table[] = {
#define SC(n)	{ #n, __NR_##n },
#include "syscalls.def"
#undef SC
};

static const char *by_nr[SYSCALL_MAX];
static int ready;

static void
init(void)
{
	size_t i;

	for (i = 0; i < sizeof(table) / sizeof(table[0]); i++)
		if (table[i].nr >= 0 && table[i].nr < SYSCALL_MAX)
			by_nr[table[i].nr] = table[i].name;
	ready = 1;
}

const char *
syscall_name(long nr)
{
	if (!ready)
		init();
	if (nr < 0 || nr >= SYSCALL_MAX || by_nr[nr] == NULL)
		return "";
	return by_nr[nr];
}

long
syscall_nr(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(table) / sizeof(table[0]); i++)
		if (strcmp(table[i].name, name) == 0)
			return table[i].nr;
	return -1;
}

/*
 * The calls a thread blocks in or talks to another through: what a hang
 * diagnosis needs, without the flood of every stat() and mmap().
 */
const char *const syscall_default[] = {
	"read", "write", "readv", "writev", "pread64", "pwrite64",
	"preadv", "pwritev", "preadv2", "pwritev2",
	"recvfrom", "recvmsg", "recvmmsg", "sendto", "sendmsg", "sendmmsg",
	"connect", "accept", "accept4",
	"futex", "futex_waitv", "futex_wait", "futex_wake",
	"poll", "ppoll", "select", "pselect6",
	"epoll_wait", "epoll_pwait", "epoll_pwait2",
	"nanosleep", "clock_nanosleep", "pause", "sched_yield",
	"wait4", "waitid", "rt_sigsuspend", "rt_sigtimedwait",
	"msgrcv", "msgsnd", "semop", "semtimedop", "mq_timedsend",
	"mq_timedreceive", "flock", "fsync", "fdatasync", "sync_file_range",
	"io_uring_enter", "io_getevents", "io_pgetevents",
	"splice", "tee", "sendfile", "copy_file_range",
	"kill", "tgkill", "tkill",
	NULL
};
