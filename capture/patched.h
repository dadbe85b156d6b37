/*
 * Events of patched processes (patchers/libargus-patch.so): the
 * per-thread rings they share with us in a directory of files
 * (patchers/ubuf.h), merged by time with the kernel's events as the same
 * event types the uprobes give.
 */
#ifndef CAPTURE_PATCHED_H
#define CAPTURE_PATCHED_H

#include <stdint.h>

#include "../patchers/ubuf.h"

/* At option parsing. */
void	 patched_set(const char *name);		/* --patch --probes NAME */
void	 patched_dir(const char *dir);		/* --patch-dir DIR */
void	 patched_allow(const char *event);	/* an EVENT of the sets */
int	 patched_wanted(void);

/* Before the command is started; in the command's child, before exec. */
void	 patched_setup(int has_command, int ncpu);
void	 patched_child_env(void);
void	 patched_audit_env(const char *);
int	 patched_tid(void);	/* our draining thread's, 0: none */
/* Tracing is on and the threads known: the rings may be read. */
void	 patched_read(void);
const char *patched_desc(int i);		/* meta records; NULL: no more */

/*
 * The merge (emit.c): refresh once per batch, then peek at the earliest
 * event not yet written and consume it.  The horizon is how far the
 * kernel's events may be written before a user event stamped earlier may
 * still appear (a thread between its stamp and its commit).
 */
int	 patched_active(void);
int	 patched_stop(void);		/* the trace ended: drain, stop */
void	 patched_refresh(void);
uint64_t patched_horizon(void);
const struct ubuf_event *patched_peek(int *pid, const char **type);
void	 patched_consume(void);
/*
 * Events of a patched process lost between from and to (mono ns): its
 * ring was full, a thread had none, or the recorder's queues were.
 */
struct patch_loss {
	int		 pid;
	char		 comm[16];
	uint64_t	 n, from, to;
};

/*
 * The memory the events waiting to be written may take (a deferred
 * recorder's, while nobody asks): beyond it, the oldest go.  At least
 * a million events.
 */
void	 patched_hold(uint64_t bytes);
/*
 * Whether the events read from the rings and not yet written are a
 * quarter of that: a formatter starved by busy CPUs, whose backlog the
 * kernel's alone would not show (capture.c: behind()).
 */
int	 patched_behind(void);
/* Losses of processes since asked last, at most max: how many. */
int	 patched_losses(struct patch_loss *out, int max);
/* Events lost since asked last that were queued already (the oldest,
 * dropped beyond the recorder's bound): of no process in particular. */
uint64_t patched_lost(void);
/*
 * The draining thread's worst, in ns: how late it woke up from a nap (a
 * wait for a CPU), and its longest pass over the rings.  A ring fills
 * while both go by.
 */
void	 patched_lateness(uint64_t *late, uint64_t *pass);
/*
 * The event peeked at is of a thread the kernel gives process tgid, not
 * the ring's: the ring is refused.  Rings refused since asked last.
 */
void	 patched_reject(int tgid);
uint64_t patched_refused(void);

#endif
