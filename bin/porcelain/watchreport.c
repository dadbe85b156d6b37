/*
 * argus watch, on a hang: one diagnosis, by argus debug run as a child
 * (its own process group, bounded in time: whatever it does, the loop
 * goes on), while the hung thread still waits.  Its report, JSON and
 * graph stay in the recorder's directory (watch-TIME.txt, watch-TIME.json
 * beside argus debug's debug-TIME.gz), the oldest removed beyond --keep;
 * one line goes to syslog; the --exec hook gets the JSON on its stdin.
 * At most --max-reports an hour a watch; a hang suppressed says so.
 */
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <sys/un.h>

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include "porcelain.h"
#include "show.h"
#include "watch.h"

#define DIAG_LIMIT_NS	120000000000ULL	/* argus debug at most */
#define HOOK_LIMIT_NS	30000000000ULL	/* --exec's command at most */
#define HOUR		3600

static struct keep keep = { 0, 50ULL << 20 };
static void	say_syslog(const char *);
static int	stopping;	/* no hook is begun then */
static char keep_arg[32] = "50M";

void
watch_keep(const char *s)
{
	keep_parse(&keep, "watch: --keep", s);
	snprintf(keep_arg, sizeof(keep_arg), "%s", s);
}

int
report_allowed(struct watch *w)
{
	time_t now = time(NULL);
	char msg[256];
	int i, j;

	for (i = j = 0; i < w->nreports; i++)
		if (w->reports[i] > now - HOUR)
			w->reports[j++] = w->reports[i];
	w->nreports = j;
	if (w->nreports < w->max_reports)
		return 1;
	w->suppressed++;
	snprintf(msg, sizeof(msg), "watch %s: a hang not diagnosed: %d "
	    "reports in the last hour already (--max-reports %d); %lu "
	    "suppressed so far", w->name, w->nreports, w->max_reports,
	    w->suppressed);
	say_syslog(msg);
	wlog(w, "%s", msg);
	watch_state_dirty();
	return 0;
}

/* The report's name: watch-SECONDS[-N], its text made at once, unnamed. */
static int
reserve(struct watch *w)
{
	char name[80];
	time_t now = time(NULL);
	struct stat st;
	int n, fd;

	for (n = 1; n < 1000; n++) {
		if (n == 1)
			snprintf(w->tmp, sizeof(w->tmp), "watch-%lld",
			    (long long)now);
		else
			snprintf(w->tmp, sizeof(w->tmp), "watch-%lld-%d",
			    (long long)now, n);
		snprintf(name, sizeof(name), "%s.txt", w->tmp);
		if (fstatat(ring_open(0), name, &st, AT_SYMLINK_NOFOLLOW) == 0)
			continue;
		snprintf(name, sizeof(name), ".%s.part", w->tmp);
		fd = openat(ring_open(0), name, O_WRONLY | O_CREAT | O_EXCL |
		    O_NOFOLLOW | O_CLOEXEC, 0600);
		if (fd != -1)
			return fd;
		if (errno != EEXIST)
			break;
	}
	wlog(w, "%s/%s: %s", ring, name, strerror(errno));
	return -1;
}

static void
thread_comm(pid_t pid, pid_t tid, char *buf, size_t size)
{
	char path[96], c[64];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/comm", (int)pid,
	    (int)tid);
	snprintf(c, sizeof(c), "?");
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) != -1) {
		if ((n = read(fd, c, sizeof(c) - 1)) > 0)
			c[n - (c[n - 1] == '\n')] = '\0';
		close(fd);
	}
	snprintf(buf, size, "%s", show(c));
}

/*
 * In the diagnosis's child, before argus debug: a mark in the recording
 * and a wait-for snapshot, at once, while the hung thread surely still
 * waits: argus debug first has the recorder write its buffers out, which
 * takes seconds on a busy machine, and the hang may end meanwhile; then
 * it diagnoses the mark's moment with what the snapshot saw.
 */
static void
mark_first(void *arg)
{
	struct watch *w = arg;
	char text[256], path[PATH_MAX];
	struct pstack *s;
	uint32_t pid, tid;
	pid_t rec;
	int n;

	snprintf(text, sizeof(text), "argus-mark watch %s: %s %d hangs",
	    w->name, w->hung_comm, (int)(w->hung_tid != 0 ? w->hung_tid :
	    w->hung_pid));
	if ((rec = recorder()) != 0 &&
	    mark_note(rec, text, path, sizeof(path)) == -1)
		fprintf(stderr, "argus watch: %s: %s\n", path, strerror(errno));
	/*
	 * Not the stacks of every blocked thread, as argus mark takes them:
	 * argus debug unwinds those of the chain, and a machine's worth of
	 * them would cost the hang's seconds.
	 */
	snapshot_take(path, sizeof(path));
	/* Its stack, now: debug's "wait now" may come after the hang. */
	pid = w->hung_pid;
	tid = w->hung_tid != 0 ? w->hung_tid : w->hung_pid;
	s = present_stacks(&pid, &tid, 1, &n);
	present_show(stdout, "Where it waited when the watch saw it hang:", s,
	    n, 0);
	present_free(s, n);
	fflush(stdout);
	fflush(stderr);
}

int
report_begin(struct watch *w, pid_t pid, pid_t tid, uint64_t since,
    uint64_t now)
{
	char idbuf[16], thr[32], last[32], json[80], argus[PATH_MAX + 8];
	char *argv[24];
	time_t t = time(NULL);
	int n = 0;

	if (w->diag_pid != 0 || (w->report_fd = reserve(w)) == -1)
		return -1;
	w->hung_pid = pid;
	w->hung_tid = tid;
	w->hung_since = since;
	thread_comm(pid, tid != 0 ? tid : pid, w->hung_comm,
	    sizeof(w->hung_comm));
	snprintf(json, sizeof(json), "%s.json", w->tmp);
	ring_path(w->json, sizeof(w->json), json);
	snprintf(w->report, sizeof(w->report), "%s/%s.txt", ring, w->tmp);
	dprintf(w->report_fd, "argus watch %s, %s", show(w->name), ctime(&t));
	if (w->kind == WK_CHECK)
		dprintf(w->report_fd, "The check '%s' (%s %d) has waited %.1f s, "
		    "past its timeout of %.1f s: diagnosed while it waits.\n",
		    show(w->check), w->hung_comm, (int)pid, (now - since) / 1e9,
		    w->timeout / 1e9);
	else
		dprintf(w->report_fd, "Thread %s %d/%d has %s for %.1f s "
		    "(--blocked-for %.1f s).\n", w->hung_comm, (int)pid,
		    (int)tid, w->hung_spin ? "spun, never yielding," :
		    "made no progress", (now - since) / 1e9,
		    w->blocked_for / 1e9);
	snprintf(argus, sizeof(argus), "%s/argus", bindir());
	argv[n++] = argus;
	argv[n++] = "--ring";
	argv[n++] = (char *)ring;
	argv[n++] = "debug";
	argv[n++] = tid != 0 ? "--tid" : "--pid";
	snprintf(idbuf, sizeof(idbuf), "%d", (int)(tid != 0 ? tid : pid));
	argv[n++] = idbuf;
	argv[n++] = "--auto";
	/* What it has waited counts: half the limit is a hang already. */
	argv[n++] = "--threshold";
	snprintf(thr, sizeof(thr), "%.3fs", (w->kind == WK_CHECK ?
	    w->timeout : w->blocked_for) / 2e9);
	argv[n++] = thr;
	argv[n++] = "--last";
	snprintf(last, sizeof(last), "%.3fs", w->last / 1e9);
	argv[n++] = last;
	argv[n++] = "--json";
	argv[n++] = w->json;
	argv[n++] = "--keep";
	argv[n++] = keep_arg;
	argv[n] = NULL;
	if ((w->diag_pid = child_spawn(NULL, argv, -1, w->report_fd,
	    mark_first, w)) == -1) {
		w->diag_pid = 0;
		close(w->report_fd);
		return -1;
	}
	w->diag_start = now;
	w->diag_killed = NULL;
	w->hung_ran = 0;
	wlog(w, "%s %d hangs (%.1f s): diagnosing it into %s", w->hung_comm,
	    (int)pid, (now - since) / 1e9, w->report);
	return 0;
}

/*
 * "redis-server 4410 (the kernel says)" from the report's headline, or
 * what else it found.
 */
static void
root_words(const char *report, pid_t tid, char *buf, size_t size)
{
	char line[1024], me[32], early[256] = "", *s, *p;
	size_t len;
	int alone = 0;
	FILE *fp;

	snprintf(buf, size, "none found (no diagnosis)");
	if ((fp = fopen(report, "re")) == NULL)
		return;
	snprintf(me, sizeof(me), "/%d (", (int)tid);
	while (fgets(line, sizeof(line), fp) != NULL) {
		line[strcspn(line, "\n")] = '\0';
		if (strncmp(line, "Root cause: ", 12) == 0) {
			s = line + 12;
			/*
			 * "the hung vertex itself: LongRunning", or a
			 * LongWait's own timer: "LongWait; X is asleep on
			 * its own timer in clock_nanosleep, ...".
			 */
			if ((p = strstr(s, " vertex itself: ")) != NULL) {
				snprintf(buf, size, "root cause itself, %.200s",
				    p + 16);
				break;
			}
			if ((p = strstr(s, "): ")) != NULL ||
			    (p = strstr(s, "), ")) != NULL)
				len = p - s + 1;
			else
				len = strcspn(s, ":");
			snprintf(buf, size, "root cause %.*s", (int)len, s);
			break;
		}
		if (strncmp(line, "Nothing found beyond", 20) == 0) {
			snprintf(buf, size, "no cause found beyond the hung "
			    "thread");
			alone = 1;
			break;
		}
		/* Its stack when the hang was seen, the report's first. */
		if (*early == '\0' && strncmp(line, "  ", 2) == 0 &&
		    (p = strstr(line, me)) != NULL &&
		    (p = strstr(p, "): ")) != NULL)
			snprintf(early, sizeof(early), "%.200s", p + 3);
	}
	fclose(fp);
	/* Then its own wait is the finding. */
	if (alone && *early != '\0')
		snprintf(buf, size, "no cause beyond its own wait, %s", early);
}

/* To syslog(3), or to the datagram socket $ARGUS_SYSLOG names. */
static void
say_syslog(const char *msg)
{
	const char *path = getenv("ARGUS_SYSLOG");
	struct sockaddr_un sa;
	char dgram[2048];
	int fd, n;

	if (path == NULL || *path == '\0') {
		syslog(LOG_WARNING, "%s", msg);
		return;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sun_family = AF_UNIX;
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	/* As syslog(3) sends it: <facility*8+severity>ident[pid]: text. */
	n = snprintf(dgram, sizeof(dgram), "<%d>argus[%d]: %s",
	    LOG_DAEMON | LOG_WARNING, (int)getpid(), msg);
	if ((fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0)) == -1 ||
	    sendto(fd, dgram, (size_t)n < sizeof(dgram) ? (size_t)n :
	    sizeof(dgram) - 1, 0, (struct sockaddr *)&sa, sizeof(sa)) == -1)
		warnx_("watch: %s: %s", path, strerror(errno));
	if (fd != -1)
		close(fd);
}

/* A watch's report: watch-TIME.txt, and its JSON beside it. */
static int
is_report(const char *name)
{
	size_t n = strlen(name);

	return strncmp(name, "watch-", 6) == 0 &&
	    isdigit((unsigned char)name[6]) && ((n > 4 &&
	    strcmp(name + n - 4, ".txt") == 0) || (n > 5 &&
	    strcmp(name + n - 5, ".json") == 0));
}

static int
is_text(const char *name)
{
	size_t n = strlen(name);

	return n > 4 && strcmp(name + n - 4, ".txt") == 0;
}

/* In the hook's child: what it is about. */
static void
hook_env(void *arg)
{
	struct watch *w = arg;

	setenv("ARGUS_WATCH", w->name, 1);
	setenv("ARGUS_REPORT", w->report, 1);
	setenv("ARGUS_JSON", w->json, 1);
}

static void
hook(struct watch *w, uint64_t now)
{
	int fd;

	if (w->exec == NULL)
		return;
	if (stopping) {
		wlog(w, "the hook not run: the watcher stops");
		return;
	}
	if ((fd = open(w->json, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)) == -1) {
		wlog(w, "the hook not run: no JSON (%s: %s)", w->json,
		    strerror(errno));
		return;
	}
	w->hook_pid = child_spawn(w->exec, NULL, fd, -1, hook_env, w);
	close(fd);
	if (w->hook_pid == -1) {
		w->hook_pid = 0;
		wlog(w, "the hook could not be run");
		return;
	}
	w->hook_start = now;
}

static void
finish(struct watch *w, int status, uint64_t now)
{
	char name[80], final[80], root[256], msg[1024];
	double hung = (w->diag_start - w->hung_since) / 1e9;
	int st = WIFEXITED(status) ? WEXITSTATUS(status) : 128 +
	    WTERMSIG(status);

	dprintf(w->report_fd, "\nargus watch: diagnosed in %.1f s (argus debug "
	    "exit %d%s%s).\n", (now - w->diag_start) / 1e9, st,
	    w->diag_killed != NULL ? ", killed: " : "",
	    w->diag_killed != NULL ? w->diag_killed : "");
	/* The check waited for this: now it may go. */
	if (w->kind == WK_CHECK && w->check_pid != 0 && w->check_timed_out)
		dprintf(w->report_fd, "argus watch: the check (pid %d) still "
		    "waited after %.1f s: killed.\n", (int)w->check_pid,
		    (now - w->check_start) / 1e9);
	else if (w->kind == WK_CHECK)
		dprintf(w->report_fd, "argus watch: the check ended by itself "
		    "after %.1f s.\n", w->hung_ran / 1e9);
	close(w->report_fd);
	w->report_fd = -1;
	snprintf(name, sizeof(name), ".%s.part", w->tmp);
	snprintf(final, sizeof(final), "%s.txt", w->tmp);
	if (renameat(ring_open(0), name, ring_open(0), final) == -1)
		wlog(w, "%s/%s: %s", ring, final, strerror(errno));
	root_words(w->report, w->hung_tid != 0 ? w->hung_tid : w->hung_pid,
	    root, sizeof(root));
	snprintf(msg, sizeof(msg), "%s %d hung %.1f s: %s; report %s",
	    w->hung_comm, (int)(w->hung_tid != 0 ? w->hung_tid : w->hung_pid),
	    hung, root, show(w->report));
	say_syslog(msg);
	/* Under systemd, stderr is the journal already. */
	if (getenv("JOURNAL_STREAM") == NULL || getenv("ARGUS_SYSLOG") != NULL)
		wlog(w, "%s", msg);
	if (w->nreports < WATCH_MAX_REPORTS)
		w->reports[w->nreports++] = time(NULL);
	snprintf(w->last_report, sizeof(w->last_report), "%s", w->report);
	w->last_report_time = time(NULL);
	snprintf(w->last_root, sizeof(w->last_root), "%s", root);
	keep_prune(&keep, is_report, is_text, w->tmp);
	hook(w, now);
	watch_state_dirty();
}

int
report_reaped(struct watch *w, pid_t pid, int status, uint64_t now)
{
	if (w->hook_pid != 0 && pid == w->hook_pid) {
		w->hook_pid = 0;
		if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
			wlog(w, "the hook '%s' failed (%s %d) after %.1f s",
			    show(w->exec), WIFEXITED(status) ? "exit" :
			    "signal", WIFEXITED(status) ? WEXITSTATUS(status) :
			    WTERMSIG(status), (now - w->hook_start) / 1e9);
		return 1;
	}
	if (w->diag_pid != 0 && pid == w->diag_pid) {
		w->diag_pid = 0;
		finish(w, status, now);
		return REPORT_MADE;
	}
	return 0;
}

void
report_tick(struct watch *w, uint64_t now)
{
	if (w->diag_pid != 0 && w->diag_killed == NULL &&
	    now - w->diag_start > DIAG_LIMIT_NS &&
	    kill(-w->diag_pid, SIGKILL) == 0) {
		w->diag_killed = "it took too long";
		wlog(w, "argus debug ran %.0f s: killed", DIAG_LIMIT_NS / 1e9);
	}
	if (w->hook_pid != 0 && now - w->hook_start > HOOK_LIMIT_NS &&
	    kill(-w->hook_pid, SIGKILL) == 0)
		wlog(w, "the hook ran %.0f s: killed", HOOK_LIMIT_NS / 1e9);
}

/* At the watcher's end: its own children only. */
void
report_stop(struct watch *w)
{
	stopping = 1;
	if (w->diag_pid != 0 && kill(-w->diag_pid, SIGKILL) == 0)
		w->diag_killed = "the watcher stopped";
	if (w->hook_pid != 0)
		kill(-w->hook_pid, SIGKILL);
	if (w->kind == WK_CHECK && w->check_pid != 0)
		kill(-w->check_pid, SIGKILL);
}
