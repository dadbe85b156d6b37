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

/*
 * snapshot.c: argus-waitfor's snapshot into the recorder's directory: its
 * path in buf, and the time it was taken, or 0 (said) if it failed.  The
 * newest one taken from since to before: 1 and its path, or 0.
 */
uint64_t	 snapshot_take(char *buf, size_t size);
int		 snapshot_newest(uint64_t since, uint64_t before, char *buf,
		    size_t size);

/*
 * recorder.c.  The recorder's directory: ring_default() sets ring when
 * neither --ring nor ARGUS_RING does; ring_open() is its descriptor (-1
 * if it is missing and create is not set), refused unless it is private.
 */
void		 ring_default(void);
int		 ring_open(int create);
pid_t		 recorder(void);		/* ours, if it still runs; else 0 */
int		 recorder_drain(pid_t);		/* 0, or -1 said */
int		 ring_files(struct pipeline *, time_t since,
		    unsigned long long *bytes, time_t *newest);
void		 ring_path(char *buf, size_t size, const char *name);
/* waits, summary: -n COUNT, --last TIME; their FILEs or the recent ring. */
int		 recent_options(const struct command *, int argc, char *argv[],
		    const char **count, uint64_t *last);
void		 recent_inputs(struct pipeline *, char *files[], int nfiles,
		    uint64_t last, int sep);
/* The ring files' relation indexes as arguments; -1 if one lacks its own. */
int		 ring_indexes(struct pipeline *);

/*
 * hosts.c: argus debug --with: this host's cut to local, then a new
 * pipeline that merges it with the other hosts' recordings; and what a
 * diagnosis that ends at another host's connection says.
 */
struct pipeline	*hosts_with(struct pipeline *, char *const with[], int nwith,
		    const char *local);
void		 hosts_remote_ends(const char *diagnosis);

#endif
