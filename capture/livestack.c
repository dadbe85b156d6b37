/*
 * A blocked thread's user stack, taken when asked rather than sampled as
 * events come (dwstack.c): `argus debug' wants where the threads of a
 * chain wait now, at no cost before.  libdwfl attaches to the process
 * with ptrace and stops the one thread while it unwinds; a system call
 * it sleeps in is restarted by the kernel when it is let go, as under
 * eu-stack or gdb.
 */
#include <stdio.h>

#include <elfutils/libdwfl.h>

#include "livestack.h"

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
	Dwfl *dwfl;

	if (max <= 0 || (dwfl = dwfl_begin(&callbacks)) == NULL)
		return 0;
	if (dwfl_linux_proc_report(dwfl, tgid) == 0 &&
	    dwfl_report_end(dwfl, NULL, NULL) == 0 &&
	    dwfl_linux_proc_attach(dwfl, tgid, false) == 0)
		dwfl_getthread_frames(dwfl, tid, frame, &fr);
	dwfl_end(dwfl);
	return fr.n;
}
