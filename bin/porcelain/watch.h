/*
 * argus watch, shared by its files (bin/porcelain/watch*.c).  Not to be
 * confused with argus-watch(1), the hardware-watchpoint program of
 * bin/watch/: this is the porcelain's watcher of hangs.
 *
 * A watch is one line of options (the command line's, or a line of the
 * config file): what counts as a hang (a health check that outlives its
 * timeout, or a thread blocked too long) and what to do on one.  The
 * watcher is one process, one loop: it starts checks, samples threads in
 * /proc, and runs each diagnosis (argus debug) and hook as a child in its
 * own process group, so that none of them can stop the loop.
 */
#ifndef ARGUS_WATCH_H
#define ARGUS_WATCH_H

#include <sys/types.h>

#include <limits.h>
#include <stdint.h>

enum watch_kind { WK_CHECK, WK_BLOCKED };

/* A thread of a --blocked-for watch, as /proc last showed it. */
struct wthread {
	pid_t		 pid, tid;
	uint64_t	 run_ns;	/* schedstat: time on CPU so far */
	uint64_t	 queued_ns;	/* and waiting for one */
	uint64_t	 vcsw;		/* voluntary context switches */
	uint64_t	 since;		/* mono ns it stopped progressing; 0 */
	uint64_t	 spin_since;	/* mono ns it began to spin; 0 */
	int		 episode;	/* reported (or suppressed) already */
	int		 seen;		/* in the last scan */
};

#define WATCH_MAX_REPORTS	64	/* --max-reports at most */
#define WATCH_MAX_THREADS	4096	/* threads one watch follows */

struct watch {
	char		 name[64];
	char		 where[PATH_MAX + 32];	/* "FILE:LINE" or "" */
	enum watch_kind	 kind;
	/* --check */
	char		*check;
	uint64_t	 every, timeout;
	/* --blocked-for */
	uint64_t	 blocked_for;
	pid_t		 pid;
	char		 comm[16];
	/* on a hang */
	char		*exec;
	int		 max_reports;	/* an hour */
	uint64_t	 last;		/* argus debug --last */

	/* The running check: its pid is its process group's. */
	pid_t		 check_pid;
	uint64_t	 check_start, next_check;
	int		 check_timed_out;
	uint64_t	 check_ran;	/* how long, when it ended; 0 */
	/* The last check that ended: when (wall), how, how long. */
	time_t		 last_check;
	char		 last_result[64];

	/* --blocked-for's threads; --comm's found anew now and then. */
	struct wthread	*thr;
	int		 nthr;
	pid_t		*pids;
	int		 npids;
	uint64_t	 next_scan, next_resolve;

	/* The hang episode: one report for each. */
	int		 episode;
	uint64_t	 episode_start;
	unsigned long	 episode_checks;	/* checks timed out in it since */
	time_t		 reports[WATCH_MAX_REPORTS];	/* wall times, an hour */
	int		 nreports;
	unsigned long	 suppressed;

	/* The diagnosis under way (argus debug): its process group. */
	pid_t		 diag_pid;
	uint64_t	 diag_start;
	pid_t		 hung_pid, hung_tid;
	char		 hung_comm[64];
	uint64_t	 hung_since;
	uint64_t	 hung_ran;	/* the check, if it ended meanwhile */
	int		 hung_spin;	/* --blocked-for: it spun */
	const char	*diag_killed;	/* why, if it was */
	char		 report[PATH_MAX], json[PATH_MAX], tmp[64];
	int		 report_fd;

	/* The hook under way. */
	pid_t		 hook_pid;
	uint64_t	 hook_start;

	/* For argus status. */
	char		 last_report[PATH_MAX];
	time_t		 last_report_time;
	char		 last_root[256];
};

/* watch.c: the log, on stderr, with the watch's name. */
void		 wlog(const struct watch *, const char *fmt, ...)
		    __attribute__((format(printf, 2, 3)));
/* The state file to be written again; taken (and cleared) by the loop. */
void		 watch_state_dirty(void);
int		 watch_state_taken(void);
/* A child in a process group of its own, signals as at our start. */
pid_t		 child_spawn(const char *sh_cmd, char *const argv[], int in,
		    int out, void (*first)(void *), void *arg);

/* watchcheck.c */
void		 check_tick(struct watch *, uint64_t now);
int		 check_reaped(struct watch *, pid_t, int status, uint64_t now);
void		 check_stop(struct watch *);

/* watchblock.c */
void		 blocked_tick(struct watch *, uint64_t now);

/* watchreport.c */
int		 report_begin(struct watch *, pid_t pid, pid_t tid,
		    uint64_t since, uint64_t now);
/* 0 not its child, 1 its hook's, REPORT_MADE its diagnosis's: done. */
#define REPORT_MADE	2
int		 report_reaped(struct watch *, pid_t, int status, uint64_t now);
void		 report_tick(struct watch *, uint64_t now);
void		 report_stop(struct watch *);
void		 watch_keep(const char *);	/* --keep N|SIZE */
/* 1 if a report may be made now; else says it was suppressed, 0. */
int		 report_allowed(struct watch *);

#endif
