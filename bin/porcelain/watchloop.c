/*
 * argus watch: hangs caught with nobody at the terminal.  Beside the
 * recorder (argus start, the same directory), it watches for a hang as a
 * health check or a watchdog would, and when one comes, diagnoses it
 * while it lasts, as a person would with argus debug: one report an
 * episode, kept in the recorder's directory, a line in syslog, a hook.
 *
 * (argus-watch(1), bin/argus-watch.c, is another program: the hardware
 * watchpoints' data flag.  This subcommand's files are bin/porcelain/
 * watch*.c, and `argus watch' is only ever this.)
 *
 * A watch never kills, stops or signals what it watches: only its own
 * children (a check past its diagnosis, a diagnosis or a hook past their
 * time), each in a process group of its own.
 */
#include <sys/file.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
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

static const char usage[] =
"usage: argus watch --check CMD [--every TIME] [--timeout TIME] [OPTIONS]\n"
"       argus watch --blocked-for TIME --pid PID | --comm NAME [OPTIONS]\n"
"       argus watch --config FILE [--keep N|SIZE]\n"
"Watch for hangs and diagnose each while it lasts, as 'argus debug\n"
"--auto' would, with the recorder's recording ('argus start' first, the\n"
"same directory).  Runs until stopped (SIGTERM, SIGINT).\n"
"\n"
"  --check CMD          a health check, run through sh -c every --every\n"
"                       (default 10s); one that outlives --timeout (default\n"
"                       2s) is the hung client: it is diagnosed while it\n"
"                       waits, then killed (its process group)\n"
"  --blocked-for TIME   a thread that must never block (asleep, not in an\n"
"                       event loop's poll) or spin that long: --pid PID\n"
"                       (its main thread) or --comm NAME (every thread of\n"
"                       that name), told from /proc each second\n"
"  --name NAME          the watch's name in logs and status (default: the\n"
"                       check's program, the thread's name)\n"
"  --exec CMD           on each report, run CMD (sh -c) with the JSON on its\n"
"                       stdin; killed after 30 s; its failure is logged\n"
"  --max-reports N      reports an hour at most, the others said suppressed\n"
"                       (default 4); one hang is one report however long\n"
"  --last TIME          the recording diagnosed (argus debug --last;\n"
"                       default 30s)\n"
"  --keep N|SIZE        the watches' reports kept in the recorder's\n"
"                       directory: N of them, or SIZE (default 50M), the\n"
"                       oldest removed; argus debug's --keep too\n"
"  --config FILE        several watches: one a line, in these options\n"
"                       (# comments, '...' and \"...\" quoting)\n"
"\n"
"Each report: watch-TIME.txt and watch-TIME.json beside debug-TIME.gz;\n"
"one line to syslog; 'argus status' lists the watches.\n"
"Exit: 0 stopped, 64 usage, 65 bad config, 69 no recorder, 75 another\n"
"watcher has this directory, 77 a config others may write.\n";

enum { O_CHECK = 256, O_EVERY, O_TIMEOUT, O_BLOCKED, O_PID, O_COMM, O_NAME,
    O_EXEC, O_MAXREP, O_LAST, O_KEEP, O_CONFIG };

static const struct option longopts[] = {
	{ "check",	 required_argument, NULL, O_CHECK },
	{ "every",	 required_argument, NULL, O_EVERY },
	{ "timeout",	 required_argument, NULL, O_TIMEOUT },
	{ "blocked-for", required_argument, NULL, O_BLOCKED },
	{ "pid",	 required_argument, NULL, O_PID },
	{ "comm",	 required_argument, NULL, O_COMM },
	{ "name",	 required_argument, NULL, O_NAME },
	{ "exec",	 required_argument, NULL, O_EXEC },
	{ "max-reports", required_argument, NULL, O_MAXREP },
	{ "last",	 required_argument, NULL, O_LAST },
	{ "keep",	 required_argument, NULL, O_KEEP },
	{ "config",	 required_argument, NULL, O_CONFIG },
	{ NULL, 0, NULL, 0 }
};

static struct watch *watches;
static int nwatch;
static time_t started;

/* "FILE:LINE: --every" or "watch: --every", for messages. */
static const char *
optname(const struct watch *w, const char *opt)
{
	static char buf[PATH_MAX + 64];

	snprintf(buf, sizeof(buf), "%s%s", w->where[0] ? w->where : "watch: ",
	    opt);
	return buf;
}

static void __attribute__((noreturn, format(printf, 2, 3)))
bad(const struct watch *w, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	diex(w->where[0] ? EX_DATAERR : EX_USAGE, "%s%s", w->where[0] ?
	    w->where : "watch: ", msg);
}

static int
name_ok(const char *s)
{
	size_t n = strlen(s), i;

	if (n == 0 || n >= 64)
		return 0;
	for (i = 0; i < n; i++)
		if (!isalnum((unsigned char)s[i]) && strchr("._-", s[i]) == NULL)
			return 0;
	return 1;
}

/* A watch's name when none is given: the check's program, the thread's. */
static void
default_name(struct watch *w)
{
	const char *s = w->kind == WK_CHECK ? w->check : w->comm;
	size_t n = 0;

	while (*s == ' ' || *s == '\t')
		s++;
	for (; s[n] != '\0' && n < 40 && (isalnum((unsigned char)s[n]) ||
	    strchr("._-", s[n]) != NULL); n++)
		;
	if (n > 0)
		snprintf(w->name, sizeof(w->name), "%.*s", (int)n, s);
	else if (w->kind == WK_BLOCKED && w->pid != 0)
		snprintf(w->name, sizeof(w->name), "pid-%d", (int)w->pid);
	else
		snprintf(w->name, sizeof(w->name), "watch");
}

/*
 * One watch from its options: the command line's (where "") or a line
 * of the config file.  A config file and --keep are the command line's.
 */
static void
parse_watch(struct watch *w, const char *where, int argc, char *argv[],
    const char **config)
{
	int ch, every = 0, timeout = 0, target = 0;
	long v;
	char *end;

	memset(w, 0, sizeof(*w));
	snprintf(w->where, sizeof(w->where), "%s", where);
	w->every = 10000000000ULL;
	w->timeout = 2000000000ULL;
	w->max_reports = 4;
	w->last = 30000000000ULL;
	w->report_fd = -1;
	optind = 0;
	opterr = 0;
	while ((ch = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (ch) {
		case O_CHECK:
			if (w->check != NULL || w->blocked_for != 0)
				bad(w, "one --check or --blocked-for a watch");
			w->kind = WK_CHECK;
			w->check = xstrdup(optarg);
			break;
		case O_EVERY:
			every = 1;
			w->every = parse_duration_ns(optname(w, "--every"),
			    optarg);
			break;
		case O_TIMEOUT:
			timeout = 1;
			w->timeout = parse_duration_ns(optname(w, "--timeout"),
			    optarg);
			break;
		case O_BLOCKED:
			if (w->check != NULL || w->blocked_for != 0)
				bad(w, "one --check or --blocked-for a watch");
			w->kind = WK_BLOCKED;
			w->blocked_for = parse_duration_ns(optname(w,
			    "--blocked-for"), optarg);
			if (w->blocked_for == 0)
				bad(w, "--blocked-for: must be more than 0");
			break;
		case O_PID:
			errno = 0;
			v = strtol(optarg, &end, 10);
			if (errno != 0 || *end != '\0' || v <= 0 || v > 4194304)
				bad(w, "--pid %s: not a process id", optarg);
			w->pid = v;
			target++;
			break;
		case O_COMM:
			if (*optarg == '\0' || strlen(optarg) > 15)
				bad(w, "--comm '%s': a thread's name is 1 to 15 "
				    "bytes", show(optarg));
			snprintf(w->comm, sizeof(w->comm), "%s", optarg);
			target++;
			break;
		case O_NAME:
			if (!name_ok(optarg))
				bad(w, "--name '%s': letters, digits, '.', '_' "
				    "and '-', 63 at most", show(optarg));
			snprintf(w->name, sizeof(w->name), "%s", optarg);
			break;
		case O_EXEC:
			free(w->exec);
			w->exec = xstrdup(optarg);
			break;
		case O_MAXREP:
			errno = 0;
			v = strtol(optarg, &end, 10);
			if (errno != 0 || *end != '\0' || v < 1 ||
			    v > WATCH_MAX_REPORTS)
				bad(w, "--max-reports %s: 1 to %d", optarg,
				    WATCH_MAX_REPORTS);
			w->max_reports = v;
			break;
		case O_LAST:
			w->last = parse_duration_ns(optname(w, "--last"),
			    optarg);
			if (w->last < 1000000000ULL)
				bad(w, "--last: 1s at least");
			break;
		case O_KEEP:
			if (where[0] != '\0')
				bad(w, "--keep is the command line's, for all "
				    "the watches");
			watch_keep(optarg);
			break;
		case O_CONFIG:
			if (config == NULL)
				bad(w, "--config in a config file");
			*config = optarg;
			break;
		default:
			if (where[0] == '\0')
				command_usage(&cmd_watch);
			bad(w, "'%s': not an option of a watch",
			    show(argv[optind - 1]));
		}
	}
	if (optind != argc)
		bad(w, "'%s' is not an option (a command is one argument: "
		    "quote it)", show(argv[optind]));
	if (config != NULL && *config != NULL) {
		if (w->check != NULL || w->blocked_for != 0 || target)
			bad(w, "--config, or a watch's options: not both");
		return;
	}
	if (w->check == NULL && w->blocked_for == 0)
		bad(w, "say what a hang is: --check CMD or --blocked-for TIME");
	if (w->kind == WK_CHECK) {
		if (target)
			bad(w, "--pid and --comm are --blocked-for's; a check "
			    "is its own client");
		if (w->every == 0 || w->timeout == 0)
			bad(w, "--every and --timeout: more than 0");
	} else {
		if (every || timeout)
			bad(w, "--every and --timeout are --check's");
		if (target != 1)
			bad(w, "--blocked-for: one --pid PID or --comm NAME");
	}
	if (w->name[0] == '\0')
		default_name(w);
}

/*
 * A config line as words: blanks separate them, '...' keeps all,
 * "..." and a backslash escape the next character, # begins a comment.
 * -1 for an unterminated quote.
 */
static int
split(char *line, char **words, int max)
{
	char *r = line, *o = line, q = 0, c;
	int n = 0, in = 0;

	for (;; r++) {
		c = *r;
		if (q == 0 && (c == '\0' || c == ' ' || c == '\t' ||
		    c == '\n' || (c == '#' && !in))) {
			/* o may be r: the word's end written over c. */
			if (in) {
				*o++ = '\0';
				in = 0;
			}
			if (c == '\0' || c == '#' || c == '\n')
				break;
			continue;
		}
		if (*r == '\0')
			return -1;
		if (!in) {
			if (n >= max - 1)
				return -2;
			words[n++] = o;
			in = 1;
		}
		if (q == 0 && (*r == '\'' || *r == '"'))
			q = *r;
		else if (q != 0 && *r == q)
			q = 0;
		else if (q != '\'' && *r == '\\' && r[1] != '\0' && r[1] != '\n')
			*o++ = *++r;
		else
			*o++ = *r;
	}
	words[n] = NULL;
	return n;
}

static void
add_watch(struct watch *w)
{
	int i, n = 1;
	char base[64];

	/* Names are told apart: the second of one name gets -2. */
	snprintf(base, sizeof(base), "%s", w->name);
	for (i = 0; i < nwatch; i++)
		if (strcmp(watches[i].name, w->name) == 0) {
			snprintf(w->name, sizeof(w->name), "%.50s-%d", base,
			    ++n % 1000);
			i = -1;
		}
	watches = xrealloc(watches, (nwatch + 1) * sizeof(*watches));
	watches[nwatch++] = *w;
}

static void
read_config(const char *path)
{
	char where[PATH_MAX + 32], *words[64];
	struct watch w;
	struct stat st;
	char *line = NULL;
	size_t cap = 0;
	int lineno = 0, n;
	FILE *fp;

	if ((fp = fopen(path, "re")) == NULL)
		die(EX_NOINPUT, "%s", path);
	/* Its commands run as we do: only we (or root) may write it. */
	if (fstat(fileno(fp), &st) == -1)
		die(EX_NOINPUT, "%s", path);
	if ((st.st_mode & (S_IWGRP | S_IWOTH)) != 0 ||
	    (st.st_uid != geteuid() && st.st_uid != 0))
		diex(EX_NOPERM, "%s: writable by others than its owner, or "
		    "owned by another user: its commands would run as us",
		    path);
	while (getline(&line, &cap, fp) != -1) {
		lineno++;
		snprintf(where, sizeof(where), "%s:%d: ", path, lineno);
		words[0] = "watch";
		if ((n = split(line, words + 1, ARRAY_LEN(words) - 1)) == -1)
			diex(EX_DATAERR, "%sa quote not closed", where);
		if (n == -2)
			diex(EX_DATAERR, "%stoo many words", where);
		if (n == 0)
			continue;
		parse_watch(&w, where, n + 1, words, NULL);
		add_watch(&w);
	}
	free(line);
	fclose(fp);
	if (nwatch == 0)
		diex(EX_DATAERR, "%s: no watch in it", path);
}

/*
 * For argus status: the watcher, then a line a watch, tab-separated,
 * each field shown (escaped: no tab, no newline in it).  Written whole
 * under a temporary name, then renamed: a reader never sees half.
 */
static void
write_state(int stopped)
{
	const struct watch *w;
	char target[256];
	FILE *fp;
	int fd, i;

	if ((fd = openat(ring_open(0), "." WATCH_STATE ".tmp", O_WRONLY |
	    O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600)) == -1 ||
	    (fp = fdopen(fd, "w")) == NULL) {
		if (fd != -1)
			close(fd);
		return;
	}
	fprintf(fp, WSTATE_WATCHER "\t%d\t%lld%s\n", (int)getpid(),
	    (long long)started, stopped ? "\tstopped" : "");
	for (i = 0; i < nwatch; i++) {
		w = &watches[i];
		if (w->kind == WK_CHECK)
			snprintf(target, sizeof(target), "check '%s' every %gs, "
			    "timeout %gs", show(w->check), w->every / 1e9,
			    w->timeout / 1e9);
		else if (w->comm[0] != '\0')
			snprintf(target, sizeof(target), "threads named %s "
			    "blocked for %gs", show(w->comm),
			    w->blocked_for / 1e9);
		else
			snprintf(target, sizeof(target), "pid %d blocked for "
			    "%gs", (int)w->pid, w->blocked_for / 1e9);
		fprintf(fp, WSTATE_WATCH
		    "\t%s\t%s\t%lld\t%s\t%d\t%lu\t%lld\t%s\t%s\n",
		    w->name, target, (long long)w->last_check,
		    w->last_result[0] ? w->last_result : "-", w->nreports,
		    w->suppressed, (long long)w->last_report_time,
		    w->last_report[0] ? show(w->last_report) : "-",
		    w->last_root[0] ? show(w->last_root) : "-");
	}
	if (fclose(fp) == EOF || renameat(ring_open(0), "." WATCH_STATE ".tmp",
	    ring_open(0), WATCH_STATE) == -1)
		warnx_("watch: %s/%s: %s", ring, WATCH_STATE, strerror(errno));
}

/*
 * A watcher that ended without being stopped (killed, crashed) left its
 * state without the word "stopped": say so when its unit restarts it.
 */
static void
say_restarted(void)
{
	char line[256], when[32], *f[4], *p;
	time_t t;
	FILE *fp;
	int fd, n;

	if ((fd = openat(ring_open(0), WATCH_STATE, O_RDONLY | O_NOFOLLOW |
	    O_CLOEXEC)) == -1 || (fp = fdopen(fd, "r")) == NULL) {
		if (fd != -1)
			close(fd);
		return;
	}
	if (fgets(line, sizeof(line), fp) != NULL) {
		line[strcspn(line, "\n")] = '\0';
		for (n = 0, p = line; n < 4 && p != NULL; n++)
			f[n] = strsep(&p, "\t");
		if (n == 3 && strcmp(f[0], WSTATE_WATCHER) == 0) {
			t = atoll(f[2]);
			strftime(when, sizeof(when), "%F %T", localtime(&t));
			warnx_("watch: the watcher before (pid %s, since %s) "
			    "ended without being stopped; watching again", f[1],
			    when);
		}
	}
	fclose(fp);
}

/* One watcher a directory: its state file is one. */
static void
lock_ring(void)
{
	int fd;

	if ((fd = openat(ring_open(0), "watch.lock", O_RDWR | O_CREAT |
	    O_NOFOLLOW | O_CLOEXEC, 0600)) == -1)
		die(EX_CANTCREAT, "%s/watch.lock", ring);
	if (flock(fd, LOCK_EX | LOCK_NB) == -1)
		diex(EX_TEMPFAIL, "%s: another argus watch runs on it", ring);
	/* Held, open, until we exit. */
}

static void
reap(uint64_t now)
{
	pid_t pid;
	int status, i, r;

	while ((pid = waitpid(-1, &status, WNOHANG)) > 0)
		for (i = 0; i < nwatch; i++)
			if (check_reaped(&watches[i], pid, status, now))
				break;
			else if ((r = report_reaped(&watches[i], pid, status,
			    now)) != 0) {
				/* The check waited for its diagnosis: now it may go. */
				if (r == REPORT_MADE)
					check_stop(&watches[i]);
				break;
			}
}

#define TICK_MS		1000
#define STATE_NS	10000000000ULL	/* the state rewritten at least */
#define RECORDER_NS	10000000000ULL	/* the recorder looked for */

static int
loop(int sfd)
{
	struct signalfd_siginfo si;
	struct pollfd pfd = { sfd, POLLIN, 0 };
	uint64_t now, next_state = 0, next_rec = 0, d, wake;
	int i, running = 1, rec_ok = 1;
	struct watch *w;

	for (;;) {
		now = now_ns();
		if (now >= next_rec) {
			if ((recorder() != 0) != rec_ok) {
				rec_ok = !rec_ok;
				warnx_("watch: %s", rec_ok ? "the recorder runs "
				    "again" : "the recorder stopped: hangs "
				    "cannot be diagnosed until it runs again");
			}
			next_rec = now + RECORDER_NS;
		}
		wake = now + TICK_MS * 1000000ULL;
		for (i = 0; i < nwatch; i++) {
			w = &watches[i];
			if (running && w->kind == WK_CHECK) {
				check_tick(w, now);
				/* None starts while a diagnosis runs. */
				d = w->diag_pid != 0 || w->check_timed_out ?
				    wake : w->check_pid == 0 ? w->next_check :
				    w->check_start + w->timeout;
			} else if (running) {
				blocked_tick(w, now);
				d = w->next_scan;
			} else
				d = wake;
			report_tick(w, now);
			if (d < wake)
				wake = d;
		}
		if (watch_state_taken() || now >= next_state) {
			write_state(0);
			next_state = now + STATE_NS;
		}
		if (!running) {
			for (i = 0; i < nwatch; i++)
				if (watches[i].diag_pid || watches[i].hook_pid ||
				    watches[i].check_pid)
					break;
			if (i == nwatch)
				return 0;
		}
		now = now_ns();
		if (poll(&pfd, 1, wake > now ? (int)((wake - now) / 1000000 +
		    1) : 0) > 0)
			while (read(sfd, &si, sizeof(si)) == sizeof(si))
				if (si.ssi_signo != SIGCHLD && running) {
					running = 0;
					for (i = 0; i < nwatch; i++)
						report_stop(&watches[i]);
				}
		reap(now_ns());
	}
}

static int
watch_main(int argc, char *argv[])
{
	const char *config = NULL;
	struct watch w;
	char *abs;
	sigset_t set;
	int sfd, i;

	parse_watch(&w, "", argc, argv, &config);
	if (config != NULL)
		read_config(config);
	else
		add_watch(&w);
	if (ring_open(0) == -1 || recorder() == 0)
		diex(EX_UNAVAILABLE, "%s: no recorder runs ('argus start' "
		    "first, with the same --ring)", ring);
	lock_ring();
	say_restarted();
	/* Reports are named in syslog and to hooks, which run elsewhere. */
	if (ring[0] != '/' && (abs = realpath(ring, NULL)) != NULL)
		ring = abs;
	openlog("argus", LOG_PID, LOG_DAEMON);
	sigemptyset(&set);
	sigaddset(&set, SIGCHLD);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGHUP);
	sigprocmask(SIG_BLOCK, &set, NULL);
	if ((sfd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC)) == -1)
		die(EX_OSERR, "signalfd");
	started = time(NULL);
	for (i = 0; i < nwatch; i++)
		if (watches[i].kind == WK_CHECK)
			wlog(&watches[i], "watching: %s every %.1f s, timeout "
			    "%.1f s", show(watches[i].check),
			    watches[i].every / 1e9, watches[i].timeout / 1e9);
		else if (watches[i].comm[0] != '\0')
			wlog(&watches[i], "watching the threads named %s: "
			    "blocked for %.1f s at most",
			    show(watches[i].comm), watches[i].blocked_for / 1e9);
		else
			wlog(&watches[i], "watching pid %d's main thread: "
			    "blocked for %.1f s at most", (int)watches[i].pid,
			    watches[i].blocked_for / 1e9);
	loop(sfd);
	write_state(1);
	fprintf(stderr, "argus watch: stopped\n");
	return 0;
}

const struct command cmd_watch = { "watch", usage, watch_main };
