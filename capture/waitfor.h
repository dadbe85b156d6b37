/*
 * The wait-for snapshot: what the kernel knows now about every blocked
 * thread (its call and arguments, the object it waits on, until when) and
 * who holds the other end of that object, read from /proc, /proc/locks and
 * sock_diag.  A hang still going on has no wake-up yet: this is who should
 * end it.  The records are argus-stream(5)'s wait and holder.
 *
 * /proc of other processes changes under us: a process exits, an fd is
 * closed or reused between two reads.  Such a thing is skipped, never an
 * error.  Nothing found in /proc/PID/fd is opened or followed (readlink
 * only): a FIFO or a file on a hung server would block us.
 */
#ifndef CAPTURE_WAITFOR_H
#define CAPTURE_WAITFOR_H

#include <stddef.h>
#include <stdint.h>

struct writer;

struct wf_opts {
	/* Roots: without any, every blocked thread of the machine. */
	const int	*pids;		/* processes */
	int		 npids;
	const int	*tids;		/* threads */
	int		 ntids;
	char *const	*comms;		/* processes or threads of this name */
	int		 ncomms;
	const int	*skip;		/* processes left out (the observer) */
	int		 nskip;
	/*
	 * Runtime providers (waitfor_provider.c): their directories, NULL
	 * for $ARGUS_PROVIDERS or the default; each one's time limit and
	 * output cap, 0 for the default.
	 */
	char *const	*provider_dirs;
	int		 nprovider_dirs;
	int		 no_providers;
	uint64_t	 provider_ns;
	size_t		 provider_cap;
};

#define PROVIDER_CAP	(1u << 20)	/* a provider's output, at most */

struct wf_stats {
	uint64_t	 time;		/* CLOCK_MONOTONIC ns, when it began */
	uint64_t	 ns;		/* how long it took */
	uint64_t	 threads;	/* threads looked at */
	uint64_t	 waits, holders;	/* records */
	uint64_t	 fds;		/* descriptors resolved */
	uint64_t	 unreadable;	/* blocked threads we may not look at */
};

struct wf_snap;
/*
 * With roots, only the roots' threads (blocked or not) and, transitively,
 * the blocked threads of the processes that hold what they wait on.
 */
struct wf_snap	*wf_take(const struct wf_opts *);
/* Records stamped with the snapshot's time: after everything before it. */
void		 wf_write(struct writer *, const struct wf_snap *);
void		 wf_stats(const struct wf_snap *, struct wf_stats *);
void		 wf_free(struct wf_snap *);

#endif
