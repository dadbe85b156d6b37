/*
 * argus patch --pid PID: the patcher (argus-patch(7)) applied to a process
 * that runs already.  Every thread is stopped with ptrace (PTRACE_SEIZE,
 * PTRACE_INTERRUPT); the main thread is made to call dlopen() on
 * libargus-patch.so, then its argus_patch_attach() with the sets, the
 * rings' directory and where each thread stopped (no victim around one of
 * those is replaced: the thread would go on in the middle of a jmp); its
 * registers are put back and every thread let go.  A process that another
 * tracer traces is refused: two tracers cannot share it.
 *
 * The call is made as a debugger makes one: arguments in registers and on
 * the stack below the red zone, a return address of 0, so that the
 * function's return stops the thread with a SIGSEGV at address 0.  A
 * system call the thread was stopped in is restarted when its registers
 * are put back (orig_rax is kept, as the kernel left it).
 */
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/wait.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "elfsym.h"
#include "procopen.h"
#include "porcelain.h"

static const char usage[] =
"usage: argus patch --pid PID --probes SET [--probes SET ...] [--patch-dir DIR]\n"
"Patch a running process (argus-patch(7)): stop its threads with ptrace,\n"
"have it load the patcher and place the probe sets' points, let it go on.\n"
"The events go to the flight recorder ('argus start'), or to DIR's rings\n"
"for an 'argus-capture --patch-dir DIR'.  Refused for a process another\n"
"tracer traces.  Exit: 0 patched, 69 cannot (traced, no libc, ...), 70\n"
"the process did not return from the call.\n";

#define MAXTHREADS	4096
#define CALL_TIMEOUT	10	/* seconds for dlopen() in the process */

struct thread {
	pid_t			 tid;
	struct user_regs_struct	 regs;
	int			 sig;	/* a signal to give back on detach */
};

static struct thread	*threads;
static int		 nthreads;
static pid_t		 target;
static int		 memfd = -1;

static void
on_alarm(int sig)
{
	(void)sig;
}

static int
seized(pid_t tid)
{
	int i;

	for (i = 0; i < nthreads; i++)
		if (threads[i].tid == tid)
			return 1;
	return 0;
}

/* Every thread, stopped: listed again until no new one appeared. */
static void
stop_all(void)
{
	char path[64];
	struct dirent *d;
	DIR *dir;
	int added, status, i;
	pid_t tid;

	threads = xcalloc(MAXTHREADS, sizeof(*threads));
	do {
		added = 0;
		snprintf(path, sizeof(path), "/proc/%d/task", (int)target);
		if ((dir = opendir(path)) == NULL)
			die(EX_NOINPUT, "patch: %s", path);
		while ((d = readdir(dir)) != NULL) {
			if ((tid = (pid_t)atoi(d->d_name)) <= 0 || seized(tid))
				continue;
			if (nthreads == MAXTHREADS)
				diex(EX_UNAVAILABLE, "patch: more than %d "
				    "threads", MAXTHREADS);
			if (ptrace(PTRACE_SEIZE, tid, 0, 0) == -1) {
				if (errno == ESRCH)
					continue;	/* it exited */
				die(errno == EPERM ? EX_UNAVAILABLE : EX_OSERR,
				    "patch: ptrace(PTRACE_SEIZE) of thread %d",
				    (int)tid);
			}
			if (ptrace(PTRACE_INTERRUPT, tid, 0, 0) == -1)
				die(EX_OSERR, "patch: PTRACE_INTERRUPT %d",
				    (int)tid);
			threads[nthreads++].tid = tid;
			added = 1;
		}
		closedir(dir);
	} while (added);
	for (i = 0; i < nthreads; i++) {
		for (;;) {
			if (waitpid(threads[i].tid, &status, __WALL) == -1)
				die(EX_OSERR, "patch: waitpid %d",
				    (int)threads[i].tid);
			if (!WIFSTOPPED(status))
				diex(EX_UNAVAILABLE, "patch: thread %d exited",
				    (int)threads[i].tid);
			if (status >> 16 == PTRACE_EVENT_STOP)
				break;
			/* A signal on its way: given back when we go. */
			threads[i].sig = WSTOPSIG(status);
			ptrace(PTRACE_CONT, threads[i].tid, 0, 0);
		}
		if (ptrace(PTRACE_GETREGS, threads[i].tid, 0,
		    &threads[i].regs) == -1)
			die(EX_OSERR, "patch: PTRACE_GETREGS %d",
			    (int)threads[i].tid);
	}
}

static void
let_go(void)
{
	int i;

	for (i = 0; i < nthreads; i++)
		ptrace(PTRACE_DETACH, threads[i].tid, 0,
		    (void *)(long)threads[i].sig);
}

/* A traced process is refused: TracerPid in its status. */
static void
check_untraced(void)
{
	char path[64], line[256];
	FILE *f;
	long tracer = 0;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)target);
	if ((f = fopen(path, "re")) == NULL)
		die(EX_NOINPUT, "patch: process %d", (int)target);
	while (fgets(line, sizeof(line), f) != NULL)
		if (sscanf(line, "TracerPid: %ld", &tracer) == 1)
			break;
	fclose(f);
	if (tracer != 0)
		diex(EX_UNAVAILABLE, "patch: process %d is traced by process "
		    "%ld (a debugger, strace?): refused", (int)target, tracer);
}

/*
 * The address in the process of a file's symbol: the file's mapping at
 * offset 0 in /proc/PID/maps, by name (basename prefix) or path.
 */
static uint64_t
symbol_in(const char *file, int by_path, const char *sym, char *found,
    size_t fsize)
{
	char path[64], *line = NULL, name[PATH_MAX];
	unsigned long long lo, hi, off;
	uint64_t value = 0, size;
	size_t cap = 0;
	int pie, n, fd;
	FILE *f;
	const char *base;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)target);
	if ((f = fopen(path, "re")) == NULL)
		die(EX_NOINPUT, "patch: %s", path);
	while (getline(&line, &cap, f) != -1) {
		if (sscanf(line, "%llx-%llx %*s %llx %*s %*s %n", &lo, &hi,
		    &off, &n) < 3 || off != 0)
			continue;
		snprintf(name, sizeof(name), "%s", line + n);
		name[strcspn(name, "\n")] = '\0';
		if (name[0] != '/')
			continue;
		base = strrchr(name, '/') + 1;
		if (by_path ? strcmp(name, file) != 0 :
		    strncmp(base, file, strlen(file)) != 0)
			continue;
		/* The file mapped, not the name (its owner's text, a path
		 * in a container's root maybe): procopen.h. */
		if ((fd = open_mapped((int)target, lo, hi)) == -1 ||
		    elf_symbol_fd(fd, sym, &value, &size, &pie) == -1 ||
		    value == 0)
			value = 0;
		else
			value += pie ? lo : 0;
		if (fd != -1)
			close(fd);
		snprintf(found, fsize, "%s", name);
		break;
	}
	free(line);
	fclose(f);
	return value;
}

static void
put(uint64_t addr, const void *p, size_t n)
{
	if (pwrite(memfd, p, n, (off_t)addr) != (ssize_t)n)
		die(EX_OSERR, "patch: writing the memory of process %d",
		    (int)target);
}

/* Calls fn(a0..a3) in the main thread; its return value.  -1: no return
 * in time (the thread is left where it is, its registers put back). */
static int
call(struct thread *t, uint64_t fn, uint64_t sp, const uint64_t a[4],
    uint64_t *ret)
{
	struct user_regs_struct r = t->regs;
	uint64_t zero = 0;
	int status;

	sp &= ~(uint64_t)15;
	sp -= 8;		/* the return address: at entry, sp % 16 == 8 */
	put(sp, &zero, sizeof(zero));
	r.rip = fn;
	r.rsp = sp;
	r.rdi = a[0];
	r.rsi = a[1];
	r.rdx = a[2];
	r.rcx = a[3];
	r.rax = 0;
	r.orig_rax = (unsigned long long)-1;	/* no system call to restart */
	if (ptrace(PTRACE_SETREGS, t->tid, 0, &r) == -1 ||
	    ptrace(PTRACE_CONT, t->tid, 0, 0) == -1)
		die(EX_OSERR, "patch: ptrace of thread %d", (int)t->tid);
	for (;;) {
		alarm(CALL_TIMEOUT);
		if (waitpid(t->tid, &status, __WALL) == -1) {
			if (errno != EINTR)
				die(EX_OSERR, "patch: waitpid");
			ptrace(PTRACE_INTERRUPT, t->tid, 0, 0);
			waitpid(t->tid, &status, __WALL);
			alarm(0);
			return -1;
		}
		alarm(0);
		if (!WIFSTOPPED(status))
			diex(EX_SOFTWARE, "patch: process %d ended during the "
			    "call", (int)target);
		if (ptrace(PTRACE_GETREGS, t->tid, 0, &r) == -1)
			die(EX_OSERR, "patch: PTRACE_GETREGS");
		if (WSTOPSIG(status) == SIGSEGV && r.rip == 0)
			break;
		/* Another signal meanwhile: kept for later. */
		if (status >> 16 == 0 && WSTOPSIG(status) != SIGSEGV)
			t->sig = WSTOPSIG(status);
		else if (status >> 16 == 0)
			diex(EX_SOFTWARE, "patch: the call faulted at %#llx in "
			    "process %d", (unsigned long long)r.rip,
			    (int)target);
		ptrace(PTRACE_CONT, t->tid, 0, 0);
	}
	*ret = r.rax;
	return 0;
}

static int
patch(int argc, char *argv[])
{
	static const struct option longopts[] = {
		{ "pid",	required_argument, NULL, 'p' },
		{ "probes",	required_argument, NULL, 'P' },
		{ "patch-dir",	required_argument, NULL, 'd' },
		{ NULL, 0, NULL, 0 }
	};
	char sets[4096] = "", lib[PATH_MAX], dir[PATH_MAX], real[PATH_MAX];
	char found[PATH_MAX + 32], path[64];
	uint64_t fn, sp, a[4], ret, rips;
	const char *s, *dirarg = NULL;
	struct thread *main_t = NULL;
	struct sigaction sa;
	size_t len = 0;
	int ch, i, rc;

	optind = 1;
	while ((ch = getopt_long(argc, argv, "+", longopts, NULL)) != -1) {
		switch (ch) {
		case 'p':
			target = (pid_t)atoi(optarg);
			break;
		case 'd':
			dirarg = optarg;
			break;
		case 'P':
			s = optarg;
			if (strchr(optarg, '/') != NULL) {
				if (realpath(optarg, real) == NULL)
					die(EX_NOINPUT, "--probes %s", optarg);
				s = real;
			}
			if ((len += snprintf(sets + len, sizeof(sets) - len,
			    "%s%s", len ? ":" : "", s)) >= sizeof(sets))
				diex(EX_USAGE, "patch: too many probe sets");
			break;
		default:
			command_usage(&cmd_patch);
		}
	}
	if (optind != argc || target <= 0 || *sets == '\0')
		command_usage(&cmd_patch);
	if (dirarg != NULL) {
		if (realpath(dirarg, dir) == NULL)
			die(EX_NOINPUT, "--patch-dir %s", dirarg);
	} else {
		if (ring_open(0) == -1 || recorder() == 0)
			diex(EX_UNAVAILABLE, "patch: the recorder does not run "
			    "in %s ('argus start' first, or --patch-dir)",
			    ring);
		if (patch_dir(dir, sizeof(dir)) == -1)
			diex(EX_UNAVAILABLE, "patch: the recorder names no "
			    "directory for patched programs in %s/patch "
			    "(started by an older argus? restart it)", ring);
	}
	if (access(dir, W_OK) == -1)
		die(EX_UNAVAILABLE, "patch: %s", dir);
	if (patch_lib(lib, sizeof(lib)) == -1 || realpath(lib, real) == NULL)
		diex(EX_UNAVAILABLE, "patch: no libargus-patch.so beside %s "
		    "(built without libzydis-dev?)", bindir());
	snprintf(lib, sizeof(lib), "%s", real);
	check_untraced();
	if (symbol_in(lib, 1, "argus_patch_attach", found, sizeof(found)))
		diex(EX_UNAVAILABLE, "patch: process %d has the patcher "
		    "loaded already", (int)target);
	if ((fn = symbol_in("libc.so", 0, "dlopen", found, sizeof(found))) ==
	    0)
		diex(EX_UNAVAILABLE, "patch: process %d maps no libc.so with "
		    "dlopen (a static program?)", (int)target);

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm;	/* interrupts waitpid: no SA_RESTART */
	sigaction(SIGALRM, &sa, NULL);
	stop_all();
	for (i = 0; i < nthreads; i++)
		if (threads[i].tid == target)
			main_t = &threads[i];
	if (main_t == NULL) {
		let_go();
		diex(EX_UNAVAILABLE, "patch: process %d has no main thread",
		    (int)target);
	}
	snprintf(path, sizeof(path), "/proc/%d/mem", (int)target);
	if ((memfd = open(path, O_RDWR | O_CLOEXEC)) == -1) {
		let_go();
		die(EX_OSERR, "patch: %s", path);
	}
	/* Below the red zone: the library's path, the sets, the directory,
	 * where each thread stopped. */
	sp = (main_t->regs.rsp - 128 - 4096) & ~(uint64_t)15;
	{
		uint64_t at = sp, p_lib, p_sets, p_dir;

		p_lib = at;
		put(at, lib, strlen(lib) + 1);
		at += strlen(lib) + 1;
		p_sets = at;
		put(at, sets, strlen(sets) + 1);
		at += strlen(sets) + 1;
		p_dir = at;
		put(at, dir, strlen(dir) + 1);
		at += strlen(dir) + 1;
		rips = (at + 7) & ~(uint64_t)7;
		for (i = 0; i < nthreads; i++)
			put(rips + 8 * i, &threads[i].regs.rip, 8);
		if (rips + 8 * nthreads - sp > 4096 - 64) {
			let_go();
			diex(EX_USAGE, "patch: the arguments are too long");
		}
		a[0] = p_lib;
		a[1] = 2;	/* RTLD_NOW */
		a[2] = a[3] = 0;
		if (call(main_t, fn, sp, a, &ret) == -1) {
			ptrace(PTRACE_SETREGS, main_t->tid, 0, &main_t->regs);
			let_go();
			diex(EX_SOFTWARE, "patch: dlopen() did not return in "
			    "%d s in process %d (a lock held by a stopped "
			    "thread?): let go where it was", CALL_TIMEOUT,
			    (int)target);
		}
		if (ret == 0 || (fn = symbol_in(lib, 1, "argus_patch_attach",
		    found, sizeof(found))) == 0) {
			ptrace(PTRACE_SETREGS, main_t->tid, 0, &main_t->regs);
			let_go();
			diex(EX_UNAVAILABLE, "patch: process %d could not load "
			    "%s", (int)target, lib);
		}
		a[0] = p_sets;
		a[1] = p_dir;
		a[2] = rips;
		a[3] = (uint64_t)nthreads;
		rc = call(main_t, fn, sp, a, &ret);
	}
	ptrace(PTRACE_SETREGS, main_t->tid, 0, &main_t->regs);
	let_go();
	if (rc == -1)
		diex(EX_SOFTWARE, "patch: the patcher did not return in %d s "
		    "in process %d", CALL_TIMEOUT, (int)target);
	if ((int)ret == -2)
		diex(EX_UNAVAILABLE, "patch: process %d was patched already",
		    (int)target);
	if ((int)ret <= 0)
		diex(EX_UNAVAILABLE, "patch: nothing patched in process %d "
		    "(why: on its standard error)", (int)target);
	printf("patched %d places in process %d (%d threads stopped)\n",
	    (int)ret, (int)target, nthreads);
	return 0;
}

const struct command cmd_patch = { "patch", usage, patch };
