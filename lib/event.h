/*
 * Event records as the graph stages see them: the columns every event has,
 * its type as a number, and its arguments on demand.  argus-stream(5),
 * EVENT TYPES, says what each type's arguments are.
 */
#ifndef ARGUS_EVENT_H
#define ARGUS_EVENT_H

#include <stddef.h>
#include <stdint.h>

#include "digits.h"
#include "ksym.h"
#include "stream.h"
#include "util.h"

/* The types of lib/events.def, in its order. */
enum etype {
	E_OTHER,		/* a type this build does not know */
#define EVENT(id, type, sys, tp, flags, cols)	id,
#include "events.def"
#undef EVENT
	E_NTYPES
};

/*
 * A column of a type by its name in lib/events.def: ECOL(E_SWITCH, STATE)
 * is switch's STATE, numbered as event_str() and the rest take it.  Each
 * type's columns are the members of a struct of one char each, so that
 * offsetof() numbers them, a constant, and a name the type lacks does not
 * compile.  Types of one format share a name: FILELOCK_COL, WAKE_COL.
 */
#define COL(n, k, fld)	char n;
#define USE(fld)
#define EVENT(id, type, sys, tp, flags, cols)	struct id##_cols { cols };
#include "events.def"
#undef EVENT
#undef USE
#undef COL

#define ECOL(id, name)		((int)offsetof(struct id##_cols, name))
#define FILELOCK_COL(name)	ECOL(E_FLOCK_LOCK, name)
#define WAKE_COL(name)		ECOL(E_WAKING, name)	/* wakeup_new's */
/* For a _Static_assert where types a and b are read alike. */
#define ECOL_SAME(a, b, name)	(ECOL(a, name) == ECOL(b, name))
/*
 * A system call's name, in the same column of its entry and its exit; and
 * its argument n (from 0) of an entry, whose ARGS are as many columns as
 * the call takes.
 */
#define SYSCALL_NAME		ECOL(E_SYS_ENTER, NAME)
#define SYSCALL_ARG(n)		(ECOL(E_SYS_ENTER, ARG) + (n))
_Static_assert(ECOL_SAME(E_SYS_ENTER, E_SYS_EXIT, NAME),
    "a system call's entry and exit name it in one column");

/* EVENT's FLAGS. */
#define EF_REQUIRED	1
#define EF_KDEBUG	2	/* only a macOS kdebug trace has it */

/* How a column of lib/events.def is written: its KIND there. */
enum ecol_kind {
	EK_U, EK_I, EK_X, EK_S, EK_PID, EK_STATE, EK_DEV, EK_SYSCALL,
	EK_ARGS, EK_SOFTIRQ, EK_LOCKTYPE, EK_LOCKFLAGS, EK_TCPSTATE, EK_PROTO,
	EK_ENDPOINT, EK_TEXT, EK_I32, EK_X32, EK_SK, EK_UH,
	EK_USE			/* USE(FIELD): read, not written */
};

#define E_MAXCOLS	12	/* columns and USEd fields of a type */

/* A column of lib/events.def, or a field it USEs (name NULL). */
struct ecol {
	const char	*name;
	enum ecol_kind	 kind;
	const char	*field;
};

/* A line of lib/events.def. */
struct edef {
	const char	*type;
	const char	*sys, *tp;	/* NULL: no tracepoint */
	int		 flags;
	struct ecol	 col[E_MAXCOLS];	/* up to the first field NULL */
};

extern const struct edef edefs[E_NTYPES];

/* The index of column (or USEd field) name of type t; -1 if none. */
int		 edef_col(enum etype t, const char *name);
/* The field column (or USEd field) name comes from; NULL if none. */
const char	*edef_field(enum etype t, const char *name);
/*
 * A type with a tracepoint whose every column one field gives as it is,
 * so that a trace's text (FIELD=VALUE) carries it both ways: not a
 * socket's, whose endpoints are raw address pairs that text does not
 * keep alike.
 */
int		 edef_plain(enum etype t);

/* Columns of an event record after KIND,TIME,PID,TID. */
enum { EC_VERTEX = COL_FIRST_OWN, EC_CPU, EC_TYPE, EC_CTX, EC_ARG };

#define NO_VERTEX	0		/* culled: part of no vertex */
#define MAX_CPUS	65536		/* Linux's NR_CPUS is at most 8192 */
#define UNSEGMENTED	UINT64_MAX	/* VERTEX column still empty */

struct event {
	const struct record *rec;
	uint64_t	 time;
	uint32_t	 pid;		/* 0 when the capture never learnt it */
	uint32_t	 tid;
	uint64_t	 vertex;
	uint32_t	 cpu;
	enum etype	 type;
	char		 ctx;		/* '-' task, 's' softirq, 'h' hardirq, 'n' NMI */
	unsigned	 call;		/* event_call()'s, once CALL_KNOWN */
};

/*
 * A set of event types, one bit each: what a stage's rule or heuristic
 * is asked about (0 where it says nothing: every type).
 */
#define EV(type)	(1ULL << (type))
_Static_assert(E_NTYPES <= 64, "event types must fit a set of them");

/*
 * 1 and ev filled for an event record; 0 for any other record, after
 * learning what a meta cpus or a ksym record says.  In line, as a graph
 * stage meets a vertex or a link as often as an event: those two cost
 * the kind's compares, not a call that saves registers for an event's.
 */
int		 event_record(const struct record *, struct event *);
void		 event_learn(const struct record *);	/* meta, ksym */

static inline int
event_parse(const struct record *rec, struct event *ev)
{
	if (record_is(rec, KIND_EVENT))
		return event_record(rec, ev);
	if (record_is(rec, KIND_META) || record_is(rec, KSYM_KIND))
		event_learn(rec);
	return 0;
}
const char	*etype_name(enum etype);
enum etype	 etype_of(const char *name);	/* E_OTHER if unknown */
/*
 * 1 if name is a TYPE a user-space probe may give its events (a patched
 * process's ring names them): a name as probe sets write one, letters,
 * digits and '_', not beginning with a digit, at most ETYPE_USER_MAX,
 * and none that a kernel tracepoint or another system's trace writes,
 * which the stages would take for the kernel's word (exit, waking).
 */
#define ETYPE_USER_MAX	40
int		 etype_user(const char *name);

/*
 * The other thread an event names (TTID): the one a switch gives the CPU
 * to, a wake-up or fork makes runnable, a signal is sent to; 0 if none.
 */
uint32_t	 event_other_tid(const struct event *);

/*
 * Arguments, numbered from 0 after CTX: decimal, or 0x hex.  event_u64()
 * and event_pid() are below: in line, for a thread's id.
 */
uint64_t	 event_u64_loose(const struct event *, int arg);	/* strtoull's */
/* event_i64() (below, in line) for the arguments it leaves. */
int64_t		 event_i64_any(const struct event *, int arg);
const char	*event_str(const struct event *, int arg);	/* "" if absent */
/* Theirs but for the small decimals they read in line. */
uint64_t	 event_u64_any(const struct event *, int arg);
uint32_t	 event_pid_any(const struct event *, int arg);
int		 event_nargs(const struct event *);
/*
 * The kernel function a timer's or work item's event carries, by name
 * where a ksym record of the stream gave one (event_parse learns them),
 * else as written; "" for a type that carries none.
 */
const char	*event_func(const struct event *);
/* The argument that holds it, by the event's type; -1 for none. */
int		 event_func_arg(enum etype);
/*
 * The column of an event record that holds that kernel function, by its
 * TYPE (hrtimer_start, timer_expire_entry, wq_queue, ...); 0 for none.
 */
size_t		 event_func_column(const struct record *);

/*
 * Where a stack record (argus-capture --stacks) says the thread was in its
 * own program: the innermost frame outside shared objects and the one
 * that called it, without offsets, "recv_msg<ask_browser_for_help" (not
 * "libc.so.6!__recv+0x10"): a helper that many waits go through says
 * little alone.  0 if the record has no such frame.
 */
int		 stack_function(const struct record *, char *buf, size_t size);

/*
 * A sys_enter of futex by a glibc mutex waiter: it sleeps in FUTEX_WAIT on
 * the value 2 ("locked, with waiters").  On Darwin, psynch_mutexwait
 * (pthread mutexes) or ulock_wait of an os_unfair_lock.
 */
int		 syscall_is_lock_wait(const struct event *);
/*
 * A sys_enter of futex that waits, with no timeout, on a private futex
 * (FUTEX_PRIVATE_FLAG: a lock or a semaphore in the process's own
 * memory), which only a thread of the waiter's own process can wake.
 */
int		 syscall_is_private_wait(const struct event *);

/*
 * A fork event of a vfork (CLONE_VFORK: vfork(2), posix_spawn(), dash's
 * way to run a command): its parent waits next for the child's exec.
 */
int		 event_is_vfork(const struct event *);

/*
 * The kernel's notice to a parent that its child process exited by
 * itself: SIGCHLD with CLD_EXITED, sent by the child's last thread as it
 * ends; CLD_KILLED where a signal ended it.  A signal that woke a thread
 * that then exited so was one it waited for (a signalfd's), not a kill.
 */
int		 event_exits_itself(const struct event *);

/* Softirq vectors, as the kernel numbers them; "" for one it does not. */
enum { SOFTIRQ_NET_TX = 2, SOFTIRQ_NET_RX = 3 };
const char	*softirq_name(int vec);

/*
 * The classes of system call the rules and stages tell apart, one bit
 * each: a call may be in several.
 */
enum {
	CALL_SEND = 1 << 0,	/* syscall_is_send() */
	CALL_RECV = 1 << 1,
	CALL_YIELD = 1 << 2,
	CALL_SLEEP = 1 << 3,
	CALL_DISPATCH = 1 << 4,
	CALL_FUTEX = 1 << 5,	/* a futex, or Darwin's lock calls */
	CALL_CONNECT = 1 << 6,
	CALL_POLL = 1 << 7,	/* syscall_is_poll() */
	CALL_SIGWAIT = 1 << 8,	/* syscall_is_sigwait() */
	CALL_REAP = 1 << 9,	/* syscall_is_reap() */
	CALL_SIGNAL = 1 << 10,	/* syscall_awaits_signal() */
	CALL_PATH = 1 << 11	/* looks a path up: the file system's locks */
};
#define CALL_KNOWN	(1u << 31)	/* struct event's: event_call() looked */
unsigned	 syscall_class(const char *name);	/* CALL_*, 0 if none */
/*
 * The classes of a sys_enter's or sys_exit's call, 0 for any other event:
 * looked up once an event (event_call_any()), however many rules ask
 * (event_call(), below, in line).
 */
unsigned	 event_call_any(const struct event *);

/* System calls that pass messages: a send wakes its receiver. */
int		 syscall_is_send(const char *name);
int		 syscall_is_recv(const char *name);

/*
 * A switch's STATE that makes it a wait: the thread blocked (S, D, ...),
 * neither preempted (R+) nor yielding (R).  Empty (unknown) is no wait.
 */
int		 state_is_wait(const char *state);

/* A switch's STATE that is the thread's last: exited (Z, X). */
int		 state_is_exit(const char *state);

/* A call that gives up the CPU without waiting for anything. */
int		 syscall_is_yield(const char *name);

/* A sleep that only the thread's own timer (or a signal) ends. */
int		 syscall_is_sleep(const char *name);
/* The same, or a poll or select of no descriptor at all, by its first argument. */
int		 syscall_sleeps(const char *name, uint64_t arg0);

/*
 * A service loop's wait for whatever comes next, on many objects or for a
 * new client: a thread idle in one is no culprit by itself.
 */
int		 syscall_is_dispatch(const char *name);

/*
 * A wait on a set of objects at once (poll, select, epoll): a wait with
 * a timeout in one is a sleep only when the set has nothing to wait for.
 */
int		 syscall_is_poll(const char *name);

/*
 * A wait that accepts a signal (sigwait(3)): the signal is what it waits
 * for, as a message is a receive's, and no kill however it is sent.
 */
int		 syscall_is_sigwait(const char *name);

/*
 * A wait for any signal to be delivered (sigsuspend, pause): a handler's,
 * as timeout(1) waits for its child's SIGCHLD.
 */
int		 syscall_awaits_signal(const char *name);

/*
 * A wait for a child to end whose first argument is the child's pid, or
 * -1 for any, 0 or less for a process group (wait4(2): waitpid(3)).
 */
int		 syscall_is_reap(const char *name);

/*
 * Whether a rule reads the call's return (sys_exit): only such calls'
 * exits are recorded by argus-capture; any other call ends where the
 * thread's next one begins.
 */
int		 syscall_exit_read(const char *name);
/*
 * Whether its return is read only where the call failed with EAGAIN
 * (SYS_AGAIN): a send's or a receive's; argus-capture records only those.
 */
int		 syscall_exit_again(const char *name);
#define SYS_AGAIN	(-11)	/* -EAGAIN, as sys_exit's RET says it */

/*
 * TCP states by the kernel's numbers (include/net/tcp_states.h), as
 * sock_state events name them: "ESTABLISHED", "SYN_SENT", ...; "" and -1
 * for one it does not.
 */
enum tcp_state {
	TCP_S_ESTABLISHED = 1, TCP_S_SYN_SENT, TCP_S_SYN_RECV, TCP_S_FIN_WAIT1,
	TCP_S_FIN_WAIT2, TCP_S_TIME_WAIT, TCP_S_CLOSE, TCP_S_CLOSE_WAIT,
	TCP_S_LAST_ACK, TCP_S_LISTEN, TCP_S_CLOSING, TCP_S_NEW_SYN_RECV,
	TCP_S_N
};
const char	*tcp_state_name(uint64_t state);
int		 tcp_state_of(const char *name);

/*
 * record_u64_opt(), with a small number of the reader's own read in line:
 * what a stage reads of every event (its thread, CPU, vertex) cost a call
 * and a fifth of the stage's own time.
 */
static inline int
record_small_u64(const struct record *rec, size_t col, uint64_t *v)
{
	int r;

	if (rec->padded && col < rec->nf &&
	    (r = padded_short(rec->f[col], v)) >= 0)
		return r;
	return record_u64_opt(rec, col, v);
}

/*
 * Field col of the reader's, of 8 bytes or fewer with its NUL, as one
 * word of its bytes alone (0 if empty), for a memo to key on: 0 if it is
 * no such field.
 */
static inline int
field_word(const struct record *rec, size_t col, uint64_t *w)
{
	size_t n;

	if (!rec->padded || col + 1 >= rec->nf ||
	    (n = rec->f[col + 1] - rec->f[col]) > 8)
		return 0;
	memcpy(w, rec->f[col], 8);
	*w = le64toh(*w) & (~0ULL >> (64 - 8 * n));
	return 1;
}

/*
 * Fields col and col + 1 of the reader's, with the NUL between them, as
 * one text of up to 16 bytes, a memo's key: its length, *w0 and *w1 and
 * *hash as padded_words() gives them (a slot is the hash's top bits); 0
 * if they are no such pair.  The field after them has 8 bytes readable.
 * PID,TID or CPU,TYPE: a trace meets a few pairs in millions of records.
 */
static inline size_t
fields_key(const struct record *rec, size_t col, uint64_t *w0,
    uint64_t *w1, uint64_t *hash)
{
	size_t n;

	if (!rec->padded || col + 2 >= rec->nf ||
	    (n = rec->f[col + 2] - rec->f[col] - 1) > 16)
		return 0;
	*hash = padded_words(rec->f[col], n, w0, w1);
	return n;
}

/*
 * Whether fields a and b (a < b) of the reader's, each followed by
 * another, are the same bytes, fewer than 8: a word each.  A process's
 * first thread has its PID the bytes of its TID, so one number read
 * answers both: what every event, vertex and link says of its thread.
 */
static inline int
same_field(const struct record *rec, size_t a, size_t b)
{
	size_t n;
	uint64_t x, y;

	if (!rec->padded || b + 1 >= rec->nf)
		return 0;
	n = rec->f[a + 1] - rec->f[a];	/* with its NUL */
	if (n > 8 || rec->f[b + 1] - rec->f[b] != (ptrdiff_t)n)
		return 0;
	memcpy(&x, rec->f[a], 8);
	memcpy(&y, rec->f[b], 8);
	return ((le64toh(x) ^ le64toh(y)) & (~0ULL >> (64 - 8 * n))) == 0;
}

/*
 * An argument, a small decimal of the reader's read in line: the other
 * thread's id and process of every switch and wake-up.  A leading 0 is
 * octal to strtoull(), which event_u64_any() answers as, but for 0x and
 * an address's hex digits, a timer's every arming, read here too.
 */
static inline uint64_t
event_u64(const struct event *ev, int arg)
{
	const struct record *rec = ev->rec;
	const char *s;
	uint64_t v;

	if (rec->padded && (size_t)(EC_ARG + arg) < rec->nf) {
		s = rec->f[EC_ARG + arg];
		if (s[0] != '0' || s[1] == '\0') {
			if (padded_short(s, &v) == 1)
				return v;
		} else if (field_hex(s, record_len(rec, EC_ARG + arg), &v))
			return v;
	}
	return event_u64_any(ev, arg);
}

/*
 * event_u64() of an argument that is most often the address m read last
 * (field_hex_memo()): a timer's, at its every arming and expiry.
 */
static inline uint64_t
event_addr(const struct event *ev, int arg, struct hex_memo *m)
{
	const struct record *rec = ev->rec;
	uint64_t v;

	if (rec->padded && (size_t)(EC_ARG + arg) < rec->nf &&
	    field_hex_memo(m, rec->f[EC_ARG + arg],
	    record_len(rec, EC_ARG + arg), &v))
		return v;
	return event_u64(ev, arg);
}

/* A hex digit's value; 16 for anything else. */
static inline unsigned
hex_digit(unsigned char c)
{
	if ((unsigned)(c - '0') < 10)
		return c - '0';
	c |= 0x20;		/* lower case */
	if ((unsigned)(c - 'a') < 6)
		return c - 'a' + 10;
	return 16;
}

/*
 * A signed argument, strtoll(3)'s way; in line for what most are, a
 * system call's argument of a few hex digits (a file descriptor), or a
 * small decimal of the reader's.
 */
static inline int64_t
event_i64(const struct event *ev, int arg)
{
	const struct record *rec = ev->rec;
	const char *s;
	uint64_t x = 0;
	unsigned d;
	int n;

	if ((size_t)(EC_ARG + arg) >= rec->nf)
		return event_i64_any(ev, arg);
	s = rec->f[EC_ARG + arg];
	if (s[0] == '0' && s[1] == 'x') {
		for (n = 2; n < 2 + 8 && (d = hex_digit(s[n])) < 16; n++)
			x = x << 4 | d;
		if (n > 2 && s[n] == '\0')
			return x;
	} else if (rec->padded && (s[0] != '0' || s[1] == '\0') &&
	    padded_short(s, &x) == 1)
		return x;
	return event_i64_any(ev, arg);
}

static inline unsigned
event_call(const struct event *ev)
{
	if (!(ev->call & CALL_KNOWN))
		return event_call_any(ev);
	return ev->call & ~CALL_KNOWN;
}

/* A process id argument; 0 if unknown (record_pid()). */
static inline uint32_t
event_pid(const struct event *ev, int arg)
{
	uint64_t v;

	if (record_small_u64(ev->rec, EC_ARG + arg, &v) == 1)
		return v;
	return event_pid_any(ev, arg);
}

#endif
