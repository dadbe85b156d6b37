/*
 * The capture's one libdwfl unwinder: the callbacks that show libdwfl a
 * process's mapped files and one thread of it, whose registers and stack
 * the caller has (unwind.h).  dwstack.c unwinds perf's copies of the
 * stack with it; livestack.c a blocked thread's stack, copied now.
 *
 * libdwfl sees one thread, the one being unwound, and reads its memory
 * from the copy of the stack above sp; past the copy, from the process
 * itself where the caller names it (a live thread), else not at all (a
 * sample: the process has moved on since).
 */
#include <sys/uio.h>

#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <elfutils/libdwfl.h>

#include "procopen.h"
#include "unwind.h"

struct unwinder {
	Dwfl			*dwfl;
	int			 pid;
	const struct ustack	*cur;	/* the stack being unwound */
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

/* The process whose files find_elf opens: libdwfl asks for them lazily,
 * from within the unwinder's calls, which set it. */
static __thread int find_pid;

/*
 * A module's file, through the mapping of it that lies in the module:
 * libdwfl's own callback opens the name the maps show, which the
 * process's owner chose (a FIFO there blocks it for ever; procopen.h).
 * The vDSO is read from the process's memory, as libdwfl does.
 */
static int
find_elf(Dwfl_Module *mod, void **userdata, const char *name,
    Dwarf_Addr base, char **file_name, Elf **elfp)
{
	char path[64], line[PATH_MAX + 128];
	unsigned long long lo, hi;
	Dwarf_Addr mlo, mhi;
	FILE *fp;
	int fd = -1, pos;

	if (strncmp(name, "[vdso: ", 7) == 0)
		return dwfl_linux_proc_find_elf(mod, userdata, name, base,
		    file_name, elfp);
	if (name[0] != '/' || find_pid <= 0 || dwfl_module_info(mod, NULL,
	    &mlo, &mhi, NULL, NULL, NULL, NULL) == NULL)
		return -1;
	snprintf(path, sizeof(path), "/proc/%d/maps", find_pid);
	if ((fp = fopen(path, "re")) == NULL)
		return -1;
	while (fd == -1 && fgets(line, sizeof(line), fp) != NULL) {
		if (sscanf(line, "%llx-%llx %*s %*s %*s %*s %n", &lo, &hi,
		    &pos) < 2 || lo < mlo || lo >= mhi)
			continue;
		line[strcspn(line, "\n")] = '\0';
		if (strcmp(line + pos, name) == 0)
			fd = open_mapped(find_pid, lo, hi);
	}
	fclose(fp);
	if (fd != -1)
		*file_name = strdup(name);
	return fd;
}

static const Dwfl_Callbacks proc_callbacks = {
	.find_elf = find_elf,
	.find_debuginfo = no_debuginfo,
};

/* libdwfl's view of the process: one thread, the one being unwound. */
static pid_t
next_thread(Dwfl *dwfl, void *arg, void **thread_argp)
{
	struct unwinder *u = arg;

	(void)dwfl;
	if (*thread_argp != NULL)
		return 0;
	*thread_argp = arg;
	return u->cur->tid;
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
	const struct ustack *s = ((struct unwinder *)arg)->cur;
	struct iovec local = { result, sizeof(*result) };
	struct iovec remote = { (void *)(uintptr_t)addr, sizeof(*result) };

	(void)dwfl;
	if (addr >= s->sp && addr + sizeof(*result) <= s->sp + s->size) {
		memcpy(result, s->stack + (addr - s->sp), sizeof(*result));
		return true;
	}
	if (s->pid == 0)
		return false;
	return process_vm_readv(s->pid, &local, 1, &remote, 1, 0) ==
	    (ssize_t)sizeof(*result);
}

static bool
set_initial_registers(Dwfl_Thread *thread, void *arg)
{
	const struct ustack *s = ((struct unwinder *)arg)->cur;
#ifdef UNWIND_DWARF_SP
	Dwarf_Word sp = s->sp;
#ifdef UNWIND_DWARF_BP
	Dwarf_Word bp = s->bp;

	if (s->has_bp && !dwfl_thread_state_registers(thread, UNWIND_DWARF_BP,
	    1, &bp))
		return false;
#endif
	if (!dwfl_thread_state_registers(thread, UNWIND_DWARF_SP, 1, &sp))
		return false;
	dwfl_thread_state_register_pc(thread, s->pc);
	return true;
#else
	(void)thread;
	(void)s;
	return false;	/* no DWARF numbers for this machine's registers */
#endif
}

static const Dwfl_Thread_Callbacks thread_callbacks = {
	.next_thread = next_thread,
	.get_thread = get_thread,
	.memory_read = memory_read,
	.set_initial_registers = set_initial_registers,
};

struct unwinder *
unwinder_open(int tgid)
{
	struct unwinder *u;

	if ((u = calloc(1, sizeof(*u))) == NULL)
		return NULL;
	if ((u->dwfl = dwfl_begin(&proc_callbacks)) == NULL) {
		free(u);
		return NULL;
	}
	u->pid = find_pid = tgid;	/* attaching reads a file's machine */
	if (dwfl_linux_proc_report(u->dwfl, tgid) != 0 ||
	    dwfl_report_end(u->dwfl, NULL, NULL) != 0 ||
	    !dwfl_attach_state(u->dwfl, NULL, tgid, &thread_callbacks, u)) {
		unwinder_close(u);
		return NULL;
	}
	return u;
}

int
unwinder_knows(struct unwinder *u, uint64_t pc)
{
	return dwfl_addrmodule(u->dwfl, pc) != NULL;
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
unwinder_frames(struct unwinder *u, const struct ustack *s, uint64_t *pcs,
    int max)
{
	struct frames fr = { pcs, 0, max };

	if (max <= 0)
		return 0;
	u->cur = s;
	find_pid = u->pid;
	dwfl_getthread_frames(u->dwfl, s->tid, frame, &fr);
	u->cur = NULL;
	return fr.n;
}

void
unwinder_close(struct unwinder *u)
{
	if (u == NULL)
		return;
	dwfl_end(u->dwfl);
	free(u);
}
