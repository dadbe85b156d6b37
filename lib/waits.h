/*
 * The wait-for snapshot as the stream carries it (argus-stream(5), wait
 * and holder records): what each blocked thread waits in, on which object,
 * until when, and who holds the other end of that object.  A link rule
 * turns a wait and a holder of the same OBJECT into a waits-for edge when
 * the holder's relation can end the wait's mode (wrel_ends); a diagnosis
 * follows such edges from holder to the holder's own waits.
 */
#ifndef ARGUS_WAITS_H
#define ARGUS_WAITS_H

#include <stdint.h>

#include "stream.h"

/*
 * wait,TIME,PID,TID,STATE,CALL,FD,TYPE,OBJECT,MODE,TIMEOUT,DEADLINE,SINCE,
 *     VIA,WCHAN,COMM,ARG...
 */
enum { WC_STATE = COL_FIRST_OWN, WC_CALL, WC_FD, WC_TYPE, WC_OBJECT,
    WC_MODE, WC_TIMEOUT, WC_DEADLINE, WC_SINCE, WC_VIA, WC_WCHAN, WC_COMM,
    WC_ARG };

/* holder,TIME,PID,TID,OBJECT,RELATION,FD,THROUGH,DETAIL,COMM */
enum { HC_OBJECT = COL_FIRST_OWN, HC_RELATION, HC_FD, HC_THROUGH,
    HC_DETAIL, HC_COMM };

#define NO_FD		(-1)

/* The TYPE of a terminal: its reader waits for a person, not a program. */
#define WT_TTY		"tty"

/*
 * What a wait waits for, the MODE column: data to read (in), room to
 * write (out), either, a connection, a lock, a child's exit, a futex
 * word's change, its own timer only, a signal; or it does not run at all:
 * stopped until a SIGCONT (a stop signal, job control, a debugger), frozen
 * until its cgroup is thawed.
 */
enum wmode { WM_NONE, WM_IN, WM_OUT, WM_INOUT, WM_ACCEPT, WM_CONNECT,
    WM_LOCK, WM_CHILD, WM_FUTEX, WM_SLEEP, WM_SIGNAL, WM_STOP, WM_THAW,
    WM_N };

/* The TYPE of a thread that does not run: stopped, or frozen (OBJECT
 * freezer:CGROUP). */
#define WT_STOP		"stop"
#define WT_FREEZER	"freezer"

/* How a holder stands to the object a thread waits on: RELATION. */
enum wrel { WR_READER, WR_WRITER, WR_RDWR, WR_PEER, WR_LISTENER,
    WR_HOLDER, WR_LOCK_HOLDER, WR_LOCK_WAITER, WR_CHILD, WR_OWNER,
    WR_RUNTIME, WR_N };

struct wrel_def {
	const char	*name;
	unsigned	 ends;		/* 1 << WM_*: the waits it can end */
	const char	*help;
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

struct wait_rec {
	uint64_t	 time;
	uint32_t	 pid, tid;
	const char	*state, *call;
	int		 fd;		/* NO_FD */
	const char	*type, *object;
	int		 mode;		/* WM_* */
	uint64_t	 timeout;	/* ns as asked, relative; NO_TIME none */
	uint64_t	 deadline;	/* CLOCK_MONOTONIC ns; NO_TIME unknown */
	uint64_t	 since;		/* last ran, about; NO_TIME unknown */
	const char	*via, *wchan, *comm;
	const uint64_t	*args;
	int		 nargs;
};

struct holder_rec {
	uint64_t	 time;
	uint32_t	 pid, tid;	/* tid 0: the process as a whole */
	const char	*object;
	int		 rel;		/* WR_* */
	int		 fd;		/* NO_FD */
	const char	*through, *detail, *comm;
};

/* 0 for a record of another kind; bad input exits naming file and line. */
int		 wait_parse(const struct record *, struct wait_rec *);
int		 holder_parse(const struct record *, struct holder_rec *);
void		 wait_write(struct writer *, const struct wait_rec *);
void		 holder_write(struct writer *, const struct holder_rec *);

/*
 * A TCP or UDP socket a process of the snapshot holds, with its address
 * pair: what ties a wait on it to the host at its other end.
 */
struct sock_rec {
	uint64_t	 time;
	uint32_t	 pid;
	const char	*object;	/* socket:INO */
	int		 fd;
	const char	*proto, *local, *remote, *state, *comm;
};
enum { SK_OBJECT = COL_FIRST_OWN, SK_FD, SK_PROTO, SK_LOCAL, SK_REMOTE,
	SK_STATE, SK_COMM };
int		 sock_parse(const struct record *, struct sock_rec *);
void		 sock_write(struct writer *, const struct sock_rec *);

#endif
