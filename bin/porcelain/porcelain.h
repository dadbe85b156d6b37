/*
 * argus, the porcelain: one file per subcommand, run from the table in
 * bin/argus.c.  The programs they drive are the plumbing; pipelines are
 * spawned stage by stage with argv vectors, never through a shell, so an
 * argument is never reparsed.
 */
#ifndef ARGUS_PORCELAIN_H
#define ARGUS_PORCELAIN_H

#include <sys/types.h>

#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include "util.h"

struct command {
	const char	*name;
	const char	*usage;		/* the whole text of `argus NAME --help' */
	int		(*run)(int argc, char *argv[]);	/* argv[0] is NAME */
};

extern const char *ring;		/* the recorder's directory */

/* Each subcommand, in its own file. */
extern const struct command cmd_start, cmd_stop, cmd_status, cmd_flush,
    cmd_mark, cmd_summary, cmd_waits, cmd_debug, cmd_demo;
extern const struct command cmd_run;	/* runpatched.c */
/*
 * The recorder's directory for patched programs' rings (argus-patch(7)):
 * made by start, of a name no one can guess, and linked from DIR/patch;
 * patch_dir(): that directory, if it is there and ours (else exit 77), or
 * -1; patch_dir_remove(): it and the link, once it is empty.
 */
void		 patch_dir_make(char *buf, size_t size);
int		 patch_dir(char *buf, size_t size);
void		 patch_dir_remove(void);
/* libargus-patch.so beside us; -1 if none. */
int		 patch_lib(char *out, size_t size);
extern const struct command cmd_patch;	/* patchpid.c */
extern const struct command cmd_watch;	/* watch*.c, watch.h */

/*
 * Handles -h/--help (prints the command's usage, exits 0); a usage error
 * for any other option before the command's own.  1 if argv[1] is help.
 */
void		 command_help(const struct command *, int argc, char *argv[]);
void		 command_usage(const struct command *) __attribute__((noreturn));

/* run.c: our kin first on PATH, then children by argv. */
void		 find_bindir(void);
const char	*bindir(void);

/*
 * A pipeline: stages of argv vectors, each stage's stdout into the next's
 * stdin.  Its status is that of the first stage that failed other than
 * by SIGPIPE (what failed first explains what followed), else the last's.
 */
struct pipeline;
struct pipeline	*pipeline_new(void);
void		 pipeline_stage(struct pipeline *, const char *prog);
void		 pipeline_arg(struct pipeline *, const char *arg);
int		 pipeline_run(struct pipeline *);
char		*pipeline_output(struct pipeline *, int *status);	/* one stage */
void		 pipeline_quiet(struct pipeline *);	/* its stderr: none */
/*
 * While it runs, one status line on stderr for all its stages, if stderr
 * is a terminal (statusline.c); FROM..TO, the window its first stage
 * reads (NO_TIME: unknown), says how far the reading has come.
 */
void		 pipeline_status(struct pipeline *, uint64_t from, uint64_t to);
void		 pipeline_free(struct pipeline *);

int		 run_wait(pid_t);		/* exit status, 128+sig */
pid_t		 spawn(char *const argv[], int in, int out, int err);
/*
 * The same in a process group of its own, which kill(-pid) ends whole
 * (what a command of the user's spawned too), and which a terminal's ^C
 * does not reach: the caller decides.
 */
pid_t		 spawn_group(char *const argv[], int in, int out, int err);
uint64_t	 capture_ready(int fd, char *buf, size_t size);

/*
 * statusline.c, for pipeline_run(): the stages' reports and messages in,
 * one line out, until every stage but the last has ended (their exit
 * statuses in status[], -1 for the last).
 */
struct statusline;
struct statusline *statusline_open(char *const prog[], int n, uint64_t from,
		    uint64_t to);
int		 statusline_stderr(struct statusline *);
void		 statusline_run(struct statusline *, const pid_t *pid,
		    int *status);

/* The diagnosis pipeline after its input stages, as `argus debug' runs it. */
void		 pipeline_diagnosis(struct pipeline *, char *const target[],
		    int ntarget, char *const slice_opts[], int nslice);

/* mark.c: "argus-mark TEXT" into the recorder's instance; 0 or -1 (path). */
int		 mark_note(pid_t recorder, const char *text, char *path,
		    size_t size);

/*
 * snapshot.c: argus-waitfor's snapshot into the recorder's directory: its
 * path in buf, and the time it was taken, or 0 (said) if it failed.  The
 * newest one taken from since to before: 1 and its path, or 0.
 */
uint64_t	 snapshot_take(char *buf, size_t size);
int		 snapshot_newest(uint64_t since, uint64_t before, char *buf,
		    size_t size);
/* The path of the stacks taken with the snapshot of time t; a path's t. */
void		 snapshot_stacks(uint64_t t, char *buf, size_t size);
uint64_t	 snapshot_time(const char *path);

/*
 * recorder.c.  The recorder's directory: ring_default() sets ring when
 * neither --ring nor ARGUS_RING does; ring_open() is its descriptor (-1
 * if it is missing and create is not set), refused unless it is private.
 */
void		 ring_default(void);
int		 ring_open(int create);
pid_t		 recorder(void);		/* ours, if it still runs; else 0 */
int		 recorder_drain(pid_t);		/* 0, or -1 said */
/*
 * The same in two steps, for what can be done while the recorder writes
 * out: the ask (its time, 0 and said if it cannot be asked), the wait.
 */
uint64_t	 recorder_drain_ask(pid_t);
int		 recorder_drain_wait(pid_t, uint64_t asked);
/*
 * From when on the ring's files hold every event the recorder kept (the
 * older ones still in its spill), as its last answer said; 0: all.
 */
uint64_t	 recorder_reach(void);
/*
 * The spilled events from t on read back: 0 with the new reach and the
 * oldest event read back (0: none), or -1 said.
 */
int		 recorder_deepen(pid_t, uint64_t t, uint64_t *reach,
		    uint64_t *oldest);
uint64_t	 recorder_since(void);	/* mono ns it records since, or 0 */
/* A size as size_value() takes it (lib/util.h), or a usage error. */
uint64_t	 size_arg(const char *opt, const char *s);
void		 recorder_when(uint64_t mono, char *buf, size_t size);
void		 recorder_stopped(char *buf, size_t size);	/* why, or "" */
/* The latest start of the target's waits in a snapshot, or 0. */
/* Whether a thread is one of the target's (debug's options, in pairs). */
int		 target_is(char *const target[], int nt, uint32_t pid,
		    uint32_t tid, const char *comm);
uint64_t	 snapshot_waiting_since(const char *snap, char *const target[],
		    int nt);
int		 ring_files(struct pipeline *, time_t since,
		    unsigned long long *bytes, time_t *newest);
void		 ring_path(char *buf, size_t size, const char *name);
/*
 * recent.c: waits, summary: -n COUNT, --last TIME, and which threads
 * (--all, --pid, --tid, --comm), passed to the stage; their FILEs or the
 * recent ring.
 */
struct recent {
	const char	*count;
	uint64_t	 last;
	char		*filter[16];	/* the stage's options */
	int		 nfilter;
};
int		 recent_options(const struct command *, int argc, char *argv[],
		    struct recent *);
void		 recent_filters(struct pipeline *, const struct recent *);
void		 recent_inputs(struct pipeline *, char *files[], int nfiles,
		    uint64_t last, int sep);
/* The ring files' relation indexes as arguments; -1 if one lacks its own. */
int		 ring_indexes(struct pipeline *);

/*
 * debugfiles.c: argus debug's outputs in the recorder's directory.  A
 * name of its own for each run's graph (debug-SECONDS[-N].gz, made
 * there at once, so two runs in one second never share one) and a
 * report file beside it; the oldest removed beyond --keep N|SIZE.
 */
void		 debug_keep(const char *);
void		 debug_reserve(char *out, size_t osize, char *report,
		    size_t rsize);
void		 debug_rotate(const char *out);

/*
 * DIR/watch.state, which argus watch writes for argus status: a line for
 * the watcher and one a watch, tab-separated, the first field naming it.
 */
#define WATCH_STATE	"watch.state"
#define WSTATE_WATCHER	"watcher"
#define WSTATE_WATCH	"watch"

/*
 * keep.c: the porcelain's own outputs in the recorder's directory, the
 * oldest removed beyond --keep N|SIZE: those OURS says are, N counted by
 * COUNTED (NULL: each file), SELF and SELF.* (the run asking) kept.
 */
struct keep {
	unsigned long long count, bytes;
};
void		 keep_parse(struct keep *, const char *opt, const char *s);
void		 keep_prune(const struct keep *, int (*ours)(const char *),
		    int (*counted)(const char *), const char *self);

/*
 * diagnosis.c: what argus debug shows of the pipeline's output: the
 * moment diagnosed, argus-slice's report, where the chain's threads wait
 * now; as text on stdout, or as JSON into json ("-": stdout, the text to
 * stderr).
 */
void		 diagnosis_show(const char *out, const char *report,
		    const char *json, int verbose, int status,
		    const char *asked, const char *mark_snap);
uint64_t	 diagnosis_earliest(const char *out);	/* or NO_TIME */

/* present.c: the stacks now of those of the threads still blocked. */
struct pstack {
	uint32_t	 pid, tid;
	char		 comm[64];
	char		 state;		/* S or D */
	char		**kframes, **uframes;	/* innermost first */
	int		 nk, nu;
	const char	*telling;	/* its most telling function, or NULL */
	const char	*caller;	/* the next such, its caller's */
	const char	*fallback;	/* without: its first own frame */
};
struct pstack	*present_stacks(const uint32_t *pids, const uint32_t *tids,
		    int n, int *np);
/*
 * argus mark's: the user stacks of the threads blocked at least a second
 * in the snapshot SNAP, into OUT (stack records); and read back.
 */
void		 present_save(const char *snap, const char *out);
struct pstack	*present_load(const char *stacks, const char *snap, int *np);
struct pstack	*present_marked(const char *snap, const uint32_t *pids,
		    const uint32_t *tids, int n, int *np);
/* Taken first, of the target's chain in the wait-for snapshot SNAP. */
void		 present_early(const char *snap, char *const target[], int nt);
struct pstack	*present_chain(const uint32_t *pids, const uint32_t *tids,
		    int n, int *np);
void		 present_show(FILE *, const char *title, const struct pstack *,
		    int n, int verbose);
void		 present_free(struct pstack *, int n);

/*
 * hosts.c: argus debug --with: this host's cut to local, then a new
 * pipeline that merges it with the other hosts' recordings; and what a
 * diagnosis that ends at another host's connection says.
 */
struct pipeline	*hosts_with(struct pipeline *, char *const with[], int nwith,
		    const char *local);
void		 hosts_remote_ends(const char *diagnosis);
/*
 * --remote: the window as a file of the ring, fetched within timeout ns
 * and max bytes (argus debug exits, the partial file removed, past
 * either).
 */
#define REMOTE_TIMEOUT_NS	(120 * 1000000000ULL)
#define REMOTE_MAX		(2ULL << 30)	/* argus start's ring size */
char		*hosts_remote(const char *host, uint64_t last, int snap,
		    uint64_t timeout, uint64_t max);

#endif
