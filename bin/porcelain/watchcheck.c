/*
 * argus watch --check CMD: the health check, run every --every through
 * sh -c in a process group of its own, its output dropped.  A run that
 * outlives --timeout is the hung client: it is diagnosed while it still
 * waits (watchreport.c), as a person would with its pid, and killed only
 * once the diagnosis is done.  A check never signals anything but its own
 * process group, and only before its leader is reaped (the pid is ours
 * until then, never someone else's).
 */
#include <sys/stat.h>
#include <sys/wait.h>
#include <sys/types.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "porcelain.h"
#include "watch.h"

/*
 * The process of the check that waits: sh -c execs a simple command
 * itself, but a pipeline or a script leaves sh waiting for its children.
 * The newest process of the group without a child in it; the leader if
 * none.
 */
static pid_t
check_waiter(pid_t pgid)
{
	char path[300], buf[512], *p;
	pid_t *pid = NULL, *ppid = NULL, best = pgid;
	unsigned long long start, best_start = 0;
	struct dirent *de;
	int n = 0, i, j, fd;
	ssize_t len;
	long pg;
	DIR *d;

	if ((d = opendir("/proc")) == NULL)
		return pgid;
	while ((de = readdir(d)) != NULL && n < 256) {
		if (de->d_name[0] < '1' || de->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/stat", de->d_name);
		if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
			continue;
		len = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		if (len <= 0)
			continue;
		buf[len] = '\0';
		/* After the comm, which may hold anything: state ppid pgrp. */
		if ((p = strrchr(buf, ')')) == NULL)
			continue;
		if (sscanf(p + 2, "%*c %*d %ld", &pg) != 1 || pg != pgid)
			continue;
		pid = xrealloc(pid, (n + 1) * sizeof(*pid));
		ppid = xrealloc(ppid, (n + 1) * sizeof(*ppid));
		pid[n] = atoi(de->d_name);
		sscanf(p + 2, "%*c %d", &ppid[n]);
		n++;
	}
	closedir(d);
	for (i = 0; i < n; i++) {
		for (j = 0; j < n && ppid[j] != pid[i]; j++)
			;
		if (j < n)
			continue;
		/* Field 22, starttime: the newest leaf. */
		snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid[i]);
		if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
			continue;
		len = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		if (len <= 0 || (p = strrchr((buf[len] = '\0', buf), ')')) ==
		    NULL || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u "
		    "%*u %*u %*u %*u %*d %*d %*d %*d %*d %*d %llu", &start) != 1)
			continue;
		if (start >= best_start) {
			best_start = start;
			best = pid[i];
		}
	}
	free(pid);
	free(ppid);
	return best;
}

static void
check_run(struct watch *w, uint64_t now)
{
	w->check_pid = child_spawn(w->check, NULL, -1, -1, NULL, NULL);
	w->check_start = now;
	w->check_timed_out = 0;
	w->check_ran = 0;
	/* Every --every from the start of the last, never two at once. */
	w->next_check = now + w->every;
	if (w->check_pid == -1)
		w->check_pid = 0;
}

/* Kill the check's process group, if its leader is not yet reaped. */
static void
check_kill(struct watch *w, uint64_t now, const char *why)
{
	if (w->check_pid == 0)
		return;
	if (kill(-w->check_pid, SIGKILL) == 0)
		wlog(w, "the check (pid %d) killed after %.1f s %s",
		    (int)w->check_pid, (now - w->check_start) / 1e9, why);
}

void
check_tick(struct watch *w, uint64_t now)
{
	pid_t waiter;

	/* One check at a time, none while the last one's hang is diagnosed. */
	if (w->check_pid == 0 && w->diag_pid == 0 && now >= w->next_check)
		check_run(w, now);
	if (w->check_pid == 0 || w->check_timed_out ||
	    now - w->check_start < w->timeout)
		return;
	w->check_timed_out = 1;
	if (w->episode) {
		/* The same hang still: its report is made already. */
		if (w->episode_checks++ == 0)
			check_kill(w, now, "(the hang goes on; reported "
			    "already: no more of this until it ends)");
		else
			kill(-w->check_pid, SIGKILL);
		return;
	}
	w->episode = 1;
	w->episode_checks = 0;
	w->episode_start = w->check_start;
	waiter = check_waiter(w->check_pid);
	if (!report_allowed(w) || report_begin(w, waiter, 0, w->check_start,
	    now) == -1)
		check_kill(w, now, "(no diagnosis)");
}

/* After the diagnosis: the check, if it still waits, is done with. */
void
check_stop(struct watch *w)
{
	uint64_t now = now_ns();

	if (w->kind == WK_CHECK && w->check_pid != 0 && w->check_timed_out)
		check_kill(w, now, "(after its diagnosis)");
}

int
check_reaped(struct watch *w, pid_t pid, int status, uint64_t now)
{
	double ran;

	if (w->check_pid == 0 || pid != w->check_pid)
		return 0;
	ran = (now - w->check_start) / 1e9;
	w->check_ran = now - w->check_start;
	if (w->diag_pid != 0)
		w->hung_ran = w->check_ran;
	w->check_pid = 0;
	w->last_check = time(NULL);
	if (w->check_timed_out)
		snprintf(w->last_result, sizeof(w->last_result), "hung (%.1f s "
		    "past the timeout)", ran - w->timeout / 1e9);
	else if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		snprintf(w->last_result, sizeof(w->last_result), "ok in %.2f s",
		    ran);
	else
		snprintf(w->last_result, sizeof(w->last_result), "failed in "
		    "%.2f s (exit %d)", ran, WIFEXITED(status) ?
		    WEXITSTATUS(status) : 128 + WTERMSIG(status));
	/* A check answered in time: the hang, if one, is over. */
	if (!w->check_timed_out && w->episode) {
		wlog(w, "answered in time again, %.1f s after the first check "
		    "that hung began (%lu more timed out)",
		    (now - w->episode_start) / 1e9, w->episode_checks);
		w->episode = 0;
	}
	watch_state_dirty();
	return 1;
}
