/*
 * What the files of the wait-for snapshot share, one file a pass
 * (waitfor.c says what the passes are): the snapshot's tables and the
 * functions one pass takes from an earlier one or from the /proc
 * readers.  Not an interface: waitfor.h is, for the rest of the capture.
 */
#ifndef CAPTURE_WAITFOR_INT_H
#define CAPTURE_WAITFOR_INT_H

#include <sys/types.h>

#include <stdint.h>
#include <time.h>

#include <uthash.h>

#include "waitfor.h"

#define KEYLEN		64
#define SNAPSHOT_NICE	(-10)	/* while it reads: waitfor.c */

/* A process, as its leader's stat shows it. */
struct proc {
	int		 pid, ppid, pgrp;
	char		 comm[16], state;
	uint8_t		 kthread, skip, keep;
	int8_t		 frozen;	/* its cgroup: 1 frozen, -1 not, 0 not read */
	char		 freezer[KEYLEN];	/* "freezer:CGROUP" if frozen */
	UT_hash_handle	 hh;
};

struct thr {
	int		 pid, tid;
	char		 state[2], comm[16];
	const char	*call;		/* "" outside a system call */
	uint64_t	 a[6];
	int		 nargs;
	uint64_t	 sp;		/* its stack pointer, blocked; 0 unknown */
	char		 wchan[64];
	uint64_t	 since;
	uint8_t		 root, keep;
	/*
	 * Running, and no root: kept from pass 1 only for pass 5 to ask
	 * whether it polls shared memory; bare if it does not.
	 */
	uint8_t		 running, bare;
};

/* What a wait is on: the object's key and what finding its holders takes. */
enum otype { OT_NONE, OT_PIPE, OT_SOCKET, OT_PATH, OT_EVENTFD, OT_EPOLL,
	OT_CHILD, OT_FUTEX, OT_TRACEE, OT_SEM, OT_FANOTIFY, OT_FUSE, OT_PIDFD,
	OT_SECCOMP, OT_USERFAULT, OT_OTHER };

struct obj {
	enum otype	 type;
	const char	*kind;
	char		 key[KEYLEN];
	char		*path;		/* OT_PATH: as readlink gave it */
	uint64_t	 ino, dev;	/* dev: major << 32 | minor */
	uint64_t	 deadline;	/* a timerfd's next expiry */
	uint32_t	 id;		/* an eventfd's id, a child's pid, a
					   connecting socket's listener, a
					   tracee's tracer... */
	char		 which;		/* OT_CHILD: 'p' a pid, 'g' a group, 'a' any */
	uint16_t	 num;		/* OT_SEM: which one of set id */
};

struct wt {
	size_t		 thr;
	int		 fd, mode;
	struct obj	 o;
	uint64_t	 timeout, deadline;
	char		 via[KEYLEN];
	uint8_t		 chained;	/* its holders' processes are kept */
};

struct hd {
	char		 obj[KEYLEN];
	int		 rel, pid, tid, fd;
	char		 through[KEYLEN];
	char		 detail[64];
};

/* A readlink text some object's holders are found by, and those holders. */
struct ref {
	int		 pid, fd;
};
struct want {
	char		*link;
	struct ref	*refs;
	size_t		 n, cap;
	UT_hash_handle	 hh;
};

/* Objects whose holders are done: each listed once. */
struct done {
	char		 key[KEYLEN];
	UT_hash_handle	 hh;
};

struct mnt {
	int		 id;
	uint64_t	 dev;
	UT_hash_handle	 hh;
};

struct wf_snap {
	const struct wf_opts *opt;
	uint64_t	 t0, rt_off, boot_off;
	struct proc	*procs;
	struct thr	*thr;
	size_t		 nthr, capthr;
	struct wt	*w;
	size_t		 nw, capw;
	struct hd	*h;
	size_t		 nh, caph;
	struct want	*wants;
	struct done	*done;
	struct mnt	*mnts;
	struct sockdiag	*diag;
	int		 diag_tried;
	char		*locks;		/* /proc/locks */
	struct wf_stats	 st;
	struct wf_prov	*prov;		/* waitfor_provider.c's */
};

/* futex(2)'s commands: pass 2 decodes the wait, pass 4 finds the owner. */
#define FUTEX_CMD(op)		((op) & 0x7f)
#define FUTEX_CLOCK_RT		256
enum { F_WAIT = 0, F_LOCK_PI = 6, F_WAIT_BITSET = 9, F_WAIT_REQUEUE_PI = 11,
	F_LOCK_PI2 = 13 };

#define GROW(v, n, cap) do {						\
	if ((n) == (cap)) {						\
		(cap) = (cap) ? 2 * (cap) : 64;				\
		(v) = xrealloc((v), (cap) * sizeof(*(v)));		\
	}								\
} while (0)

/* waitfor_proc.c: /proc, other processes' memory, clocks. */
ssize_t		 wf_procf(char *buf, size_t size, const char *fmt, ...)
		    __attribute__((format(printf, 3, 4)));
int		 wf_peek(int pid, uint64_t addr, void *buf, size_t len);
uint64_t	 wf_ts_ns(int64_t sec, int64_t frac, int64_t unit);
uint64_t	 wf_peek_time(int pid, uint64_t addr, int unit, int *ok);
uint64_t	 wf_clock_ns(clockid_t c);
uint64_t	 wf_to_mono(const struct wf_snap *s, int clock, uint64_t t);

/* waitfor_threads.c: pass 1. */
struct proc	*wf_proc_get(struct wf_snap *s, int pid);
void		 wf_sched_calibrate(void);
void		 wf_scan_threads(struct wf_snap *s);

/* waitfor_calls.c: pass 2. */
struct wt	*wf_add_wait(struct wf_snap *s, size_t ti, int fd, int mode);
uint64_t	 wf_mnt_dev(struct wf_snap *s, int pid, int mnt_id);
const char	*wf_fdinfo_get(const char *info, const char *key);
/* The devpts of a master (or /dev/tty) fd, by its link and fdinfo; 0. */
uint64_t	 wf_devpts(struct wf_snap *s, int pid, const char *link,
		    const char *info);
/* When a process or thread was born, from its stat; NO_TIME if unknown. */
uint64_t	 wf_stat_born(const struct wf_snap *s, const char *buf);
void		 wf_decode(struct wf_snap *s, size_t ti);

/* waitfor_stop.c: WM_STOP or WM_THAW and its object, else WM_NONE. */
int		 wf_not_running(struct wf_snap *s, const struct thr *t,
		    struct obj *o);

/* A fanotify group's descriptor, as readlink names it. */
#define FANOTIFY_LINK	"anon_inode:[fanotify]"
/* What a FUSE daemon reads its requests from. */
#define FUSE_LINK	"/dev/fuse"
/* A seccomp filter's listener (seccomp_unotify(2)), a userfaultfd. */
#define SECCOMP_LINK	"anon_inode:seccomp notify"
#define USERFAULT_LINK	"anon_inode:[userfaultfd]"

/* waitfor_fds.c: pass 3. */
struct want	*wf_wanted(const struct wf_snap *s, const char *link);
void		 wf_load_diag(struct wf_snap *s);
void		 wf_collect_wants(struct wf_snap *s);
void		 wf_scan_fds(struct wf_snap *s);

/* waitfor_holders.c: pass 4. */
struct hd	*wf_add_holder(struct wf_snap *s, const char *obj, int rel,
		    int pid, int tid, int fd);
/* Each line of pid's maps to fn until it returns non-zero: that, or 0. */
int		 wf_maps_each(int pid, int (*fn)(const char *line, void *arg),
		    void *arg);
void		 wf_find_holders(struct wf_snap *s);
const char	*wf_locks(struct wf_snap *s);	/* /proc/locks, read once */

/* waitfor_maps.c: pass 5, the memory pollers share with other processes. */
void		 wf_find_mappers(struct wf_snap *s);

/*
 * waitfor_provider.c: after the closure, the runtimes' word; 1 if it
 * added holders (the closure is then taken again).
 */
int		 wf_providers(struct wf_snap *s);
void		 wf_providers_write(struct writer *wr, const struct wf_snap *s);
void		 wf_providers_free(struct wf_snap *s);

#endif
