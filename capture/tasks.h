/*
 * Thread id to process id (tgid) and name.  Raw events name only the
 * thread; the stream wants both, so we keep the mapping ourselves: a /proc
 * snapshot at start, then forks, execs and renames as they are traced.
 */
#ifndef CAPTURE_TASKS_H
#define CAPTURE_TASKS_H

#include <stdint.h>

struct task {
	int32_t		 tgid;		/* 0: unknown */
	char		 comm[16];	/* NUL-terminated within 16 */
	uint8_t		 sel;		/* a process --pid selected */
	uint8_t		 stk;		/* a process --stacks selected */
	uint8_t		 dead;		/* exited: left out of snapshots */
	uint32_t	 intro;		/* task_generation it was introduced in */
	uint32_t	 cg_gen;	/* task_generation cg was read in */
	const char	*cg;		/* a leader's: its cgroup; NULL unknown */
};

struct task	*task_get(int tid);	/* never NULL for tid >= 0 */
int		 task_tgid(int tid);	/* -1: unknown, even to /proc */
void		 task_set(int tid, int tgid, const char *comm, int commlen);
void		 task_snapshot(void);	/* all threads in /proc */
/*
 * Each output file introduces a thread with a task record just before its
 * first event there; a new file (a ring's next) starts a new generation.
 */
extern uint32_t	 task_generation;

/*
 * The cgroup of tid's process, "" if unknown: read from /proc once a
 * generation (a process moves: systemd and container runtimes move a
 * child between its fork and its exec), kept when the process is gone.
 */
const char	*task_cgroup(int tid);
/* A new process: in its parent's cgroup until /proc says otherwise. */
void		 task_fork(int child, int parent);

/* Calls fn for every known thread, in tid order. */
void		 task_foreach(void (*fn)(int tid, const struct task *, void *),
		    void *arg);

#endif
