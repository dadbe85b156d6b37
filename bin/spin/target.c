/*
 * The target: the thread whose hang is looked for.  --tid names it;
 * --pid names a process and means its main thread (tid == pid); --comm
 * names it by name: the one blocked longest when the input ends, else the
 * main thread of the process whose main thread has that name, else the
 * first thread seen with it (history.c, target_pick).  Without any, the
 * process a capture started (meta command_pid).
 */
#include <stdio.h>
#include <string.h>

#include "show.h"
#include "spin.h"

void
target_meta(struct target *tg, const struct record *rec)
{
	if (tg->pid || tg->tid || tg->comm != NULL)
		return;
	if (strcmp(record_str(rec, META_KEY), "command_pid") != 0)
		return;
	tg->pid = record_u64(rec, META_VALUE);
	tg->from_meta = 1;
}

/* Whether a thread of this pid, tid and name may be the target. */
int
target_wants(const struct target *tg, uint32_t pid, uint32_t tid,
    const char *comm)
{
	if (tg->tid)
		return tid == tg->tid;
	if (tg->pid)
		return tid == tg->pid;
	if (tg->comm != NULL)
		return comm != NULL && strcmp(comm, tg->comm) == 0;
	(void)pid;
	return 0;
}

const char *
target_describe(const struct target *tg, char *buf, size_t len)
{
	if (tg->tid)
		snprintf(buf, len, "thread %llu", (unsigned long long)tg->tid);
	else if (tg->pid)
		snprintf(buf, len, "the main thread of process %llu%s",
		    (unsigned long long)tg->pid,
		    tg->from_meta ? " (the capture's command)" : "");
	else if (tg->comm != NULL)
		snprintf(buf, len, "a thread named '%s'", show(tg->comm));
	else
		snprintf(buf, len, "no target");
	return buf;
}
