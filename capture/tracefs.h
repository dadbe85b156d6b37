/*
 * Where tracefs lives and our own instance in it.  The top-level buffer and
 * other tools' instances belong to others: we only ever create, configure
 * and remove instances named argus-PID.
 */
#ifndef CAPTURE_TRACEFS_H
#define CAPTURE_TRACEFS_H

#include <sys/types.h>

#include <stddef.h>

#define INSTANCE_PREFIX	"argus-"
#define BRIDGE_SUFFIX	"-early"	/* argus-PID-early: tfs_bridge_create */

/*
 * sched_switch's prev_state: the kernel's TASK_* bits.  A blocking wait is
 * TASK_INTERRUPTIBLE or TASK_UNINTERRUPTIBLE (S, D); past the states, a
 * flag says the task was preempted while runnable.
 */
#define STATE_BLOCKED	0x3
#define STATE_PREEMPTED	0x100

const char	*tfs_root(void);		/* exits 69 when there is none */
void		 tfs_reap_stale(const char *root);
void		 tfs_reap_pid(long pid);	/* one capture's, killed */
const char	*tfs_instance_create(const char *root);	/* exits 69 */
void		 tfs_instance_remove(void);
const char	*tfs_instance(void);		/* NULL before create */
const char	*tfs_root_path(void);		/* NULL before tfs_root() */
int		 tfs_alive_capture(long pid);	/* a running argus-capture */

/*
 * The bridge instance (argus-PID-early), recording while ours gets its
 * buffers.  tfs_bridge_select(1) makes the calling thread's tfs_*() use
 * it, tfs_bridge_select(0) ours again.
 */
const char	*tfs_bridge_create(void);	/* exits 69 */
int		 tfs_bridge(void);		/* 1 while it exists */
void		 tfs_bridge_select(int on);
void		 tfs_bridge_remove(void);

/* Files relative to the instance; -1 and errno on failure. */
int		 tfs_write(const char *rel, const char *fmt, ...)
		    __attribute__((format(printf, 2, 3)));
ssize_t		 tfs_read(const char *rel, char *buf, size_t size);
int		 tfs_open(const char *rel, int flags);
int		 tfs_exists(const char *rel);

#endif
