/*
 * The wait-for snapshot as the stream carries it (argus-stream(5), wait,
 * holder and sock records, lib/records.def's): what each blocked thread
 * waits in, on which object, until when, and who holds the other end of
 * that object.  A link rule turns a wait and a holder of the same OBJECT
 * into a waits-for edge when the holder's relation can end the wait's
 * mode (wrel_ends); a diagnosis follows such edges from holder to the
 * holder's own waits.  A poller's memory and its mappers are no such
 * edge: only argus-slice weighs them.
 */
#ifndef ARGUS_WAITS_H
#define ARGUS_WAITS_H

#include <stdint.h>

#include "records.h"
#include "stream.h"

/* The TYPE of a terminal: its reader waits for a person, not a program. */
#define WT_TTY		"tty"
/* A timerfd's: its DEADLINE is when the timer fires. */
#define WT_TIMERFD	"timerfd"
#define WT_SEM		"sem"
/* The kernel's function that fires a timerfd: the label of its timeout link. */
#define TIMERFD_FIRES	"timerfd_tmrproc"

/*
 * What a wait waits for, the MODE column: data to read (in), room to
 * write (out), either, a connection, a lock, a child's exit, a futex
 * word's change, its own timer only, a signal; or it does not run at all:
 * stopped until a SIGCONT (a stop signal, job control, a debugger), frozen
 * until its cgroup is thawed; or it polls memory (spins, or naps between
 * tries) that it shares with other processes: a write there, which the
 * kernel does not see (flag); or its access waits for the answer of a
 * fanotify listener that decides permission events (verdict); or it
 * waits for a process to answer a request the kernel made of it (answer):
 * a FUSE file system's daemon, a seccomp filter's supervisor, the handler
 * of a userfaultfd its access faulted on.
 */
enum wmode { WM_NONE, WM_IN, WM_OUT, WM_INOUT, WM_ACCEPT, WM_CONNECT,
    WM_LOCK, WM_CHILD, WM_FUTEX, WM_SLEEP, WM_SIGNAL, WM_STOP, WM_THAW,
    WM_FLAG, WM_VERDICT, WM_ANSWER, WM_N };

/* The TYPE of a thread that does not run: stopped, or frozen (OBJECT
 * freezer:CGROUP). */
#define WT_STOP		"stop"
#define WT_FREEZER	"freezer"
/*
 * The TYPE of memory shared between processes (OBJECT shm:MAJ:MIN:INO):
 * what a flag wait is on, and what its mappers map.
 */
#define WT_SHM		"shm"
/*
 * The TYPE and OBJECT of an access held for a fanotify permission event:
 * the kernel does not say whose group holds it, so one object stands for
 * all of them, and each process that decides such events is its arbiter.
 */
#define WT_FANOTIFY	"fanotify"
/*
 * The TYPE of a request to a FUSE daemon; its OBJECT fuse:MAJ:MIN, the
 * file system's device, where the call's descriptor says which, else
 * fuse: any daemon may be the one.
 */
#define WT_FUSE		"fuse"
/*
 * The TYPE of a POSIX message queue (mq_overview(7)), by its file on the
 * mqueue file system: its receiver waits for a sender, its sender for
 * room, as a FIFO's ends do.
 */
#define WT_MQUEUE	"mqueue"
/*
 * The TYPE and OBJECT of a call held for a seccomp user notification
 * (seccomp_unotify(2)), and of an access faulting on memory registered
 * with a userfaultfd: as with fanotify, the kernel does not say whose
 * listener or descriptor, so one object stands for all of them.
 */
#define WT_SECCOMP	"seccomp"
#define WT_USERFAULTFD	"userfaultfd"

/* How a holder stands to the object a thread waits on: RELATION. */
enum wrel { WR_READER, WR_WRITER, WR_RDWR, WR_PEER, WR_LISTENER,
    WR_HOLDER, WR_LOCK_HOLDER, WR_LOCK_WAITER, WR_CHILD, WR_OWNER,
    WR_RUNTIME, WR_TRACER, WR_THREAD, WR_TERMINAL, WR_LAST_OP, WR_MAPPER,
    WR_ARBITER, WR_SERVER, WR_PROCESS, WR_SUPERVISOR, WR_HANDLER, WR_N };

struct wrel_def {
	const char	*name;
	unsigned	 ends;		/* 1 << WM_*: the waits it can end */
	const char	*help;
	/*
	 * 1: a part the holder took on (it answers the waiter: a daemon, a
	 * supervisor, a tracer), not an end a fork may have left it with.
	 */
	int		 role;
};

extern const char *const wmode_names[WM_N];
extern const struct wrel_def wrels[WR_N];

/*
 * A runtime provider's word (argus-waitfor(1), PROVIDERS): a holder in
 * relation runtime, its DETAIL the runtime that says so ("the JVM"), its
 * THROUGH what the runtime calls the object ("monitor <0x...>").  A link
 * of rule RUNTIME_RULE carries both in its LABEL as "DETAIL: THROUGH", cut
 * to fit, and a report says "(DETAIL says)".
 */
#define RUNTIME_RULE	"runtime"
#define RUNTIME_SEP	": "
#define RUNTIME_NAMELEN	32		/* DETAIL, at most, with its NUL */
/*
 * The snapshot's meta records of its providers: what each did, what went
 * wrong (a report shows these), and what it said on stderr, a line each.
 */
#define META_PROVIDER		"provider"
#define META_PROVIDER_ERROR	"provider_error"
#define META_PROVIDER_STDERR	"provider_stderr"

/* 1 if a holder in relation rel can end a wait of mode mode. */
int		 wrel_ends(int rel, int mode);
/*
 * A waitsfor link's label "RELATION OBJECT" names a relation of holding
 * a lock (a file lock, a PI futex's owner): its holder owes the waiter
 * only to let go, not an answer, as a channel's other end does (the
 * filelock and runtime rules' links say so by LR_LOCK).
 */
int		 wrel_label_is_lock(const char *label);
/*
 * A waitsfor link's label names a relation that is a role: its holder
 * acts for the waiter, an ancestor of the waiter's process too.
 */
int		 wrel_label_is_role(const char *label);
/* The WR_* of a waitsfor link's label's RELATION; -1 if unknown. */
int		 wrel_of_label(const char *label);

/* WM_*, WR_* by name; -1 if unknown. */
int		 wmode_find(const char *name);
int		 wrel_find(const char *name);

#endif
