/*
 * A thread that does not run at all is not waiting for its call's object:
 * stopped (state T by a stop signal or job control, t by a debugger) it
 * runs again on SIGCONT; frozen by a cgroup freezer (docker pause,
 * systemd's freeze) it runs when the cgroup is thawed.  /proc shows the
 * call it was in, which the stop interrupted, and nothing that any
 * holder of that call's object could do would wake it.
 *
 * A frozen thread is in state D (cgroup v1) or S (v2, in
 * do_freezer_trap); its cgroup names what froze it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"
#include "waits.h"
#include "waitfor.h"
#include "waitfor_int.h"

/*
 * The thread that traces it (TracerPid, a thread's id), or 0: a tracing
 * stop (state t) lasts until that one resumes it.
 */
static int
tracer_of(int pid, int tid)
{
	char buf[4096], *p;

	if (wf_procf(buf, sizeof(buf), "/proc/%d/task/%d/status", pid,
	    tid) <= 0 || (p = strstr(buf, "\nTracerPid:")) == NULL)
		return 0;
	return atoi(p + 11);
}

/*
 * Whether pid's cgroup is frozen, and "freezer:/docker/abc", its cgroup:
 * cgroup v1's freezer.state (FROZEN, or FREEZING on the way), else v2's
 * cgroup.freeze, where systemd mounts them.  A thread frozen while asleep
 * keeps its own wchan (the freezer sets its state in place), so the
 * cgroup, not the wchan, says it.
 */
static int
frozen(int pid, char *key, size_t size)
{
	static const char *const v2[] = { "/sys/fs/cgroup%s/cgroup.freeze",
	    "/sys/fs/cgroup/unified%s/cgroup.freeze" };
	char buf[4096], st[32], *line, *save = NULL, *path1 = NULL,
	    *path2 = NULL, *c;
	size_t i;

	if (wf_procf(buf, sizeof(buf), "/proc/%d/cgroup", pid) <= 0)
		return 0;
	for (line = strtok_r(buf, "\n", &save); line != NULL;
	    line = strtok_r(NULL, "\n", &save)) {
		if ((c = strchr(line, ':')) == NULL)
			continue;
		if (strncmp(c + 1, "freezer:", 8) == 0)
			path1 = c + 9;
		else if (strncmp(line, "0::", 3) == 0)
			path2 = line + 3;
	}
	if (path1 != NULL && strcmp(path1, "/") != 0 &&
	    wf_procf(st, sizeof(st), "/sys/fs/cgroup/freezer%s/freezer.state",
	    path1) > 0 && (strncmp(st, "FROZEN", 6) == 0 ||
	    strncmp(st, "FREEZING", 8) == 0)) {
		snprintf(key, size, "freezer:%s", path1);
		return 1;
	}
	for (i = 0; path2 != NULL && strcmp(path2, "/") != 0 &&
	    i < ARRAY_LEN(v2); i++)
		if (wf_procf(st, sizeof(st), v2[i], path2) > 0 && st[0] == '1') {
			snprintf(key, size, "freezer:%s", path2);
			return 1;
		}
	return 0;
}

int
wf_not_running(struct wf_snap *s, const struct thr *t, struct obj *o)
{
	struct proc *p;
	int tracer;

	if (t->state[0] == 'T' || t->state[0] == 't') {
		o->type = OT_OTHER;
		o->kind = WT_STOP;
		o->key[0] = '\0';
		if (t->state[0] == 't' && (tracer = tracer_of(t->pid,
		    t->tid)) > 0) {
			o->type = OT_TRACEE;
			o->id = tracer;
			snprintf(o->key, sizeof(o->key), "ptrace:%d", t->tid);
		}
		return WM_STOP;
	}
	/* Once a process: its threads share its cgroup. */
	if ((p = wf_proc_get(s, t->pid)) == NULL)
		return WM_NONE;
	if (p->frozen == 0)
		p->frozen = frozen(t->pid, p->freezer, sizeof(p->freezer)) ?
		    1 : -1;
	if (p->frozen < 0)
		return WM_NONE;
	o->type = OT_OTHER;
	o->kind = WT_FREEZER;
	snprintf(o->key, sizeof(o->key), "%s", p->freezer);
	return WM_THAW;
}
