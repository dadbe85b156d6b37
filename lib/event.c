#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "event.h"
#include "hostnames.h"
#include "ksym.h"
#include "show.h"
#include "util.h"

static const char *const names[E_NTYPES] = {
	[E_OTHER] = "",
#define EVENT(id, type, sys, tp, flags, cols)	[id] = type,
#include "events.def"
#undef EVENT
};

const struct edef edefs[E_NTYPES] = {
#define COL(n, k, fld)	{ #n, EK_##k, fld },
#define USE(fld)	{ NULL, EK_USE, fld },
#define EVENT(id, type, sys, tp, flags, cols) \
	[id] = { type, sys, tp, flags, { cols } },
#include "events.def"
#undef EVENT
#undef USE
#undef COL
};

int
edef_col(enum etype t, const char *name)
{
	const struct ecol *c;
	int i;

	if (t >= E_NTYPES)
		return -1;
	for (i = 0; i < E_MAXCOLS; i++) {
		c = &edefs[t].col[i];
		if (c->field == NULL && c->name == NULL)
			break;
		if (c->name != NULL ? strcmp(c->name, name) == 0 :
		    strcmp(c->field, name) == 0)
			return i;
	}
	return -1;
}

const char *
edef_field(enum etype t, const char *name)
{
	int i = edef_col(t, name);

	return i < 0 ? NULL : edefs[t].col[i].field;
}

int
edef_plain(enum etype t)
{
	const struct ecol *c;
	int i;

	if (t >= E_NTYPES || edefs[t].tp == NULL)
		return 0;
	for (i = 0; i < E_MAXCOLS && (c = &edefs[t].col[i])->field != NULL;
	    i++)
		switch (c->kind) {
		case EK_TCPSTATE:
		case EK_PROTO:
		case EK_ENDPOINT:
		case EK_I32:
		case EK_X32:
		case EK_SK:
			return 0;
		default:
			break;
		}
	return 1;
}

static const char *const tcp_states[TCP_S_N] = {
	[TCP_S_ESTABLISHED] = "ESTABLISHED", [TCP_S_SYN_SENT] = "SYN_SENT",
	[TCP_S_SYN_RECV] = "SYN_RECV", [TCP_S_FIN_WAIT1] = "FIN_WAIT1",
	[TCP_S_FIN_WAIT2] = "FIN_WAIT2", [TCP_S_TIME_WAIT] = "TIME_WAIT",
	[TCP_S_CLOSE] = "CLOSE", [TCP_S_CLOSE_WAIT] = "CLOSE_WAIT",
	[TCP_S_LAST_ACK] = "LAST_ACK", [TCP_S_LISTEN] = "LISTEN",
	[TCP_S_CLOSING] = "CLOSING", [TCP_S_NEW_SYN_RECV] = "NEW_SYN_RECV",
};

const char *
tcp_state_name(uint64_t state)
{
	return state < TCP_S_N && tcp_states[state] != NULL ?
	    tcp_states[state] : "";
}

int
tcp_state_of(const char *name)
{
	int i;

	for (i = 1; i < TCP_S_N; i++)
		if (strcmp(tcp_states[i], name) == 0)
			return i;
	return -1;
}

/* Type names to numbers, once per event: padded, a field of the reader's. */
static enum etype
lookup_n(const char *name, size_t len, int padded)
{
	static struct nameidx idx = NAMEIDX(names, E_NTYPES);
	int t = padded ? nameidx_find_padded(&idx, name, len) :
	    nameidx_find_n(&idx, name, len);

	return t < 0 ? E_OTHER : (enum etype)t;
}

static enum etype
lookup(const char *name)
{
	return lookup_n(name, strlen(name), 0);
}

const char *
etype_name(enum etype t)
{
	return t < E_NTYPES ? names[t] : "";
}

enum etype
etype_of(const char *name)
{
	return lookup(name);
}

int
etype_user(const char *name)
{
	enum etype t;
	size_t i;

	if (name[0] == '\0' || (name[0] >= '0' && name[0] <= '9'))
		return 0;
	for (i = 0; name[i] != '\0'; i++)
		if (i == ETYPE_USER_MAX || !((name[i] >= 'a' &&
		    name[i] <= 'z') || (name[i] >= 'A' && name[i] <= 'Z') ||
		    (name[i] >= '0' && name[i] <= '9') || name[i] == '_'))
			return 0;
	t = lookup(name);
	return t == E_OTHER || (edefs[t].sys == NULL &&
	    !(edefs[t].flags & EF_KDEBUG));
}

static void __attribute__((noreturn))
bad_event(const struct record *rec, const char *what)
{
	diex(EX_DATAERR, "%s:%lu: malformed event: %s", rec->file, rec->line,
	    what);
}

/*
 * The CPUs a stream's events may name: its capture's meta cpus (the most,
 * when streams from several are merged), or MAX_CPUS without one.
 */
static uint64_t		 stream_cpus;

static void
note_meta(const struct record *rec)
{
	uint64_t n;

	if (strcmp(record_str(rec, META_KEY), META_HOST) == 0)
		host_learn(rec);
	if (strcmp(record_str(rec, META_KEY), "cpus") != 0)
		return;
	if (!record_u64_opt(rec, META_VALUE, &n) || n == 0 ||
	    n > MAX_CPUS)
		diex(EX_DATAERR, "%s:%lu: meta cpus: expected 1 to %d, got "
		    "'%s'", rec->file, rec->line, MAX_CPUS,
		    show(record_str(rec, META_VALUE)));
	if (n > stream_cpus)
		stream_cpus = n;
}

/*
 * A thread's events come in runs, each of one vertex, and the runs of
 * the threads on a few CPUs interleave: a VERTEX whose bytes are those of
 * one met lately is its number, without reading it again.  Slots by the
 * bytes' hash; 0, an empty field's word, is an empty slot (an empty
 * VERTEX is read before).
 */
#define VERTEX_BITS	3
static __thread struct vertex_memo {
	uint64_t	 w, v;
} vertex_memo[1 << VERTEX_BITS];

static inline uint64_t
vertex_read(const struct record *rec)
{
	struct vertex_memo *m = NULL;
	uint64_t w = 0, v;

	if (field_word(rec, EC_VERTEX, &w)) {
		m = &vertex_memo[(w * GOLDEN64) >> (64 - VERTEX_BITS)];
		if (m->w == w)
			return m->v;
	}
	if (record_small_u64(rec, EC_VERTEX, &v) != 1)
		return record_u64(rec, EC_VERTEX);	/* says what is wrong */
	if (m != NULL) {
		m->w = w;
		m->v = v;
	}
	return v;
}

/*
 * A trace has a few threads, each in many events: their PID and TID, the
 * two fields' bytes as one text of up to 16 (padded_words()), are the
 * numbers a memo of that text keeps.  Only a thread read well is kept.
 */
#define THREAD_BITS	6
static __thread struct thread_memo {
	uint64_t	 w0, w1;
	size_t		 n;		/* 0: empty */
	uint32_t	 pid, tid;
} thread_memo[1 << THREAD_BITS];

static void
thread_read(const struct record *rec, struct event *ev)
{
	uint64_t v, tid;
	int tid_ok;

	tid_ok = record_small_u64(rec, COL_TID, &tid) == 1;
	/*
	 * A process's first thread: its PID is the bytes of its TID.  Else
	 * the common case in line, anything else as record_pid() says.
	 */
	if (tid_ok && same_field(rec, COL_PID, COL_TID))
		ev->pid = tid;
	else
		ev->pid = record_small_u64(rec, COL_PID, &v) == 1 ? v :
		    record_pid(rec, COL_PID);
	if (!tid_ok || tid > UINT32_MAX)
		bad_event(rec, "no thread id");
	ev->tid = tid;
}

/*
 * A trace has a few CPUs and types, met again at every event: CPU and
 * TYPE, the two fields' bytes as one text of up to 16, are the numbers
 * a memo of that text keeps, as PID and TID are.  The CPU is checked
 * against the stream's at every event: a meta cpus record may come
 * after the memo kept it.  Its slots are many for the dozen pairs a
 * trace meets most: at 64, two of them shared one (switch and waking
 * on a CPU) and a third of the events missed.
 */
#define CPU_TYPE_BITS	8
static __thread struct cpu_type_memo {
	uint64_t	 w0, w1;
	size_t		 n;		/* 0: empty */
	uint32_t	 cpu;
	enum etype	 type;
} cpu_type_memo[1 << CPU_TYPE_BITS];

/* Most machines' CPUs are numbered in one digit or two. */
static uint64_t
cpu_read(const struct record *rec)
{
	const char *s = rec->f[EC_CPU];
	uint64_t v;

	if ((unsigned)(s[0] - '0') < 10 && s[1] == '\0')
		return s[0] - '0';
	if ((unsigned)(s[0] - '1') < 9 && (unsigned)(s[1] - '0') < 10 &&
	    s[2] == '\0')
		return (s[0] - '0') * 10 + s[1] - '0';
	if (!record_small_u64(rec, EC_CPU, &v))
		v = record_u64(rec, EC_CPU);	/* says what is wrong */
	return v;
}

static enum etype
type_read(const struct record *rec)
{
	return lookup_n(rec->f[EC_TYPE], record_len(rec, EC_TYPE),
	    rec->padded);
}

void
event_learn(const struct record *rec)
{
	if (record_is(rec, KIND_META))
		note_meta(rec);
	else
		ksym_learn(rec);
}

/* Out of event_record()'s way: its frame has no room for the message. */
static void __attribute__((noinline, noreturn))
bad_cpu(const struct record *rec)
{
	char what[96];

	if (stream_cpus)
		snprintf(what, sizeof(what), "CPU out of range: %s, its "
		    "capture had %llu (meta cpus)", rec->f[EC_CPU],
		    (unsigned long long)stream_cpus);
	else
		snprintf(what, sizeof(what), "CPU out of range: %s, no "
		    "kernel has more than %d", rec->f[EC_CPU], MAX_CPUS);
	bad_event(rec, what);
}

int
event_record(const struct record *rec, struct event *ev)
{
	struct thread_memo *m;
	struct cpu_type_memo *k;
	uint64_t v, w, w1, h;
	size_t n;

	if (rec->nf <= EC_CTX)
		bad_event(rec, "fewer columns than KIND,TIME,PID,TID,VERTEX,"
		    "CPU,TYPE,CTX");
	if (rec->time == NO_TIME)
		bad_event(rec, "no time");
	ev->rec = rec;
	ev->time = rec->time;
	/* PID and TID, one text: the memo's key (fields_key()). */
	_Static_assert(COL_TID == COL_PID + 1, "PID,TID one text");
	if ((n = fields_key(rec, COL_PID, &w, &w1, &h)) != 0) {
		m = &thread_memo[h >> (64 - THREAD_BITS)];
		if (m->n == n && m->w0 == w && m->w1 == w1) {
			ev->pid = m->pid;
			ev->tid = m->tid;
		} else {
			thread_read(rec, ev);
			m->n = n;
			m->w0 = w;
			m->w1 = w1;
			m->pid = ev->pid;
			m->tid = ev->tid;
		}
	} else
		thread_read(rec, ev);
	if (rec->f[EC_VERTEX][0] == '\0')
		ev->vertex = UNSEGMENTED;
	else
		ev->vertex = vertex_read(rec);
	/* CPU and TYPE, one text: the memo's key. */
	_Static_assert(EC_TYPE == EC_CPU + 1, "CPU,TYPE one text");
	if ((n = fields_key(rec, EC_CPU, &w, &w1, &h)) != 0) {
		k = &cpu_type_memo[h >> (64 - CPU_TYPE_BITS)];
		if (k->n == n && k->w0 == w && k->w1 == w1)
			v = k->cpu;
		else {
			v = cpu_read(rec);
			k->n = n;
			k->w0 = w;
			k->w1 = w1;
			k->cpu = v;	/* where it is no uint32_t, we die below */
			k->type = type_read(rec);
		}
		ev->type = k->type;
	} else {
		v = cpu_read(rec);
		ev->type = type_read(rec);
	}
	/* Stages keep state per CPU: a CPU beyond the stream's is bad input. */
	if (v >= (stream_cpus ? stream_cpus : MAX_CPUS))
		bad_cpu(rec);
	ev->cpu = v;
	ev->ctx = rec->f[EC_CTX][0];
	ev->call = 0;
	return 1;
}

uint32_t
event_other_tid(const struct event *ev)
{
	uint64_t tid;
	int arg;

	switch (ev->type) {
	case E_SWITCH:
		arg = ECOL(E_SWITCH, TTID);
		break;
	case E_SIGNAL_GENERATE:
		arg = ECOL(E_SIGNAL_GENERATE, TTID);
		break;
	case E_WAKING:
		arg = ECOL(E_WAKING, TTID);
		break;
	case E_WAKEUP_NEW:
		arg = ECOL(E_WAKEUP_NEW, TTID);
		break;
	case E_FORK:
		arg = ECOL(E_FORK, TTID);
		break;
	default:
		return 0;
	}
	if (!record_u64_opt(ev->rec, EC_ARG + arg, &tid) || tid > UINT32_MAX)
		return 0;
	return tid;
}

int
event_nargs(const struct event *ev)
{
	return ev->rec->nf > EC_ARG ? (int)(ev->rec->nf - EC_ARG) : 0;
}

const char *
event_str(const struct event *ev, int arg)
{
	return record_str(ev->rec, EC_ARG + arg);
}

/*
 * Most arguments are plain decimals or 0x hex (a system call's, a kernel
 * address of sixteen digits), read here at a fraction of what strtoull()
 * costs; anything else (octal, a sign, 0X, a number of 19 decimal or 17
 * hex digits or more) is left to it.  1 and *v for a plain one.
 */
static int
plain_number(const char *s, uint64_t *v)
{
	uint64_t x = 0, d;
	size_t n;

	if (s[0] == '0' && s[1] == 'x') {
		for (n = 2; n < 18 && (d = hex_digit(s[n])) < 16; n++)
			x = x << 4 | d;
		*v = x;
		return n > 2 && s[n] == '\0';
	}
	if (s[0] == '0') {
		*v = 0;
		return s[1] == '\0';
	}
	for (n = 0; n < 18 && (d = (unsigned char)s[n] - (uint64_t)'0') <= 9;
	    n++)
		x = x * 10 + d;
	*v = x;
	return n > 0 && s[n] == '\0';
}

uint64_t
event_u64_any(const struct event *ev, int arg)
{
	const char *s = event_str(ev, arg);
	char *end;
	uint64_t v;

	if (plain_number(s, &v))
		return v;
	v = strtoull(s, &end, 0);
	if (*s == '\0' || *end != '\0')
		diex(EX_DATAERR, "%s:%lu: %s event: argument %d: expected a "
		    "number, got '%s'", ev->rec->file, ev->rec->line,
		    etype_name(ev->type), arg + 1, show(s));
	return v;
}

/*
 * The same, for an argument that may be no number: what strtoull(3) makes
 * of it (0 for none), at plain_number()'s cost where it is one.
 */
uint64_t
event_u64_loose(const struct event *ev, int arg)
{
	const char *s = event_str(ev, arg);
	uint64_t v;

	if (plain_number(s, &v))
		return v;
	return strtoull(s, NULL, 0);
}

/* The types that carry a kernel function: their FUNCTION column. */
#define FUNC_TYPE(id)	{ id, ECOL(id, FUNCTION) }
static const struct {
	enum etype	 type;
	int		 col;
} func_types[] = { FUNC_TYPE(E_HRT_START), FUNC_TYPE(E_HRT_EXPIRE_ENTRY),
    FUNC_TYPE(E_TIMER_START), FUNC_TYPE(E_TIMER_EXPIRE_ENTRY),
    FUNC_TYPE(E_WQ_QUEUE), FUNC_TYPE(E_WQ_START), FUNC_TYPE(E_WQ_END) };
#undef FUNC_TYPE

size_t
event_func_column(const struct record *rec)
{
	size_t i, c;

	if (rec->comment || rec->nf <= EC_ARG ||
	    strcmp(rec->f[COL_KIND], KIND_EVENT) != 0)
		return 0;
	for (i = 0; i < ARRAY_LEN(func_types); i++)
		if (strcmp(rec->f[EC_TYPE], etype_name(func_types[i].type)) ==
		    0) {
			c = EC_ARG + func_types[i].col;
			return rec->nf > c ? c : 0;
		}
	return 0;
}

int
event_func_arg(enum etype t)
{
	size_t i;

	for (i = 0; i < ARRAY_LEN(func_types); i++)
		if (t == func_types[i].type)
			return func_types[i].col;
	return -1;
}

/* By the type event_parse() found: no name compared (a timer's every arming). */
const char *
event_func(const struct event *ev)
{
	static struct hex_memo memo;
	const struct record *rec = ev->rec;
	uint64_t addr;
	int arg;
	size_t c;

	if ((arg = event_func_arg(ev->type)) < 0 ||
	    rec->nf <= (c = EC_ARG + arg))
		return "";
	/* The capture's address, a word at a time. */
	if (field_hex_memo(&memo, rec->f[c], record_len(rec, c), &addr))
		return ksym_name_at(addr, rec->f[c]);
	return ksym_name(rec->f[c]);
}

/* A capture may not know the process of a thread that exited early. */
uint32_t
event_pid_any(const struct event *ev, int arg)
{
	return record_pid(ev->rec, EC_ARG + arg);
}

int64_t
event_i64_any(const struct event *ev, int arg)
{
	const char *s = event_str(ev, arg);
	char *end;
	uint64_t u;
	int64_t v;

	/* Past INT64_MAX, strtoll() says INT64_MAX: its answer, not ours. */
	if (plain_number(s, &u) && u <= INT64_MAX)
		return u;
	v = strtoll(s, &end, 0);
	if (*s == '\0' || *end != '\0')
		diex(EX_DATAERR, "%s:%lu: %s event: argument %d: expected a "
		    "number, got '%s'", ev->rec->file, ev->rec->line,
		    etype_name(ev->type), arg + 1, show(s));
	return v;
}

#define FUTEX_CMD_MASK		0x7f	/* without PRIVATE and CLOCK_REALTIME */
#define FUTEX_WAIT		0
#define FUTEX_WAIT_BITSET	9
#define FUTEX_LOCKED_CONTENDED	2
#define FUTEX_PRIVATE_FLAG	0x80

/* Darwin (argus-import -f kdebug): os_unfair_lock's and pthreads' waits. */
#define UL_OPCODE_MASK		0xff
#define UL_UNFAIR_LOCK		2
#define UL_UNFAIR_LOCK64_SHARED	4

int
state_is_wait(const char *state)
{
	return state[0] != '\0' && state[0] != 'R';
}

int
state_is_exit(const char *state)
{
	return state[0] == 'Z' || state[0] == 'X';
}

int
event_is_vfork(const struct event *ev)
{
	return ev->type == E_FORK &&
	    (event_u64_loose(ev, ECOL(E_FORK, CLONE_FLAGS)) & CLONE_VFORK) != 0;
}

int
event_exits_itself(const struct event *ev)
{
	return ev->type == E_SIGNAL_GENERATE && ev->ctx == '-' &&
	    event_i64(ev, ECOL(E_SIGNAL_GENERATE, SIG)) == SIGCHLD &&
	    event_i64(ev, ECOL(E_SIGNAL_GENERATE, CODE)) == CLD_EXITED;
}

int
syscall_is_lock_wait(const struct event *ev)
{
	const char *name = event_str(ev, SYSCALL_NAME);
	uint64_t cmd;

	if (ev->type != E_SYS_ENTER)
		return 0;
	/* futex(uaddr, op, val, ...) */
	/* Most calls are none of the three: their first letter says so. */
	if (name[0] != 'f' && name[0] != 'u' && name[0] != 'p')
		return 0;
	if (strcmp(name, "futex") == 0 && event_nargs(ev) >= 5) {
		cmd = event_u64(ev, SYSCALL_ARG(1)) & FUTEX_CMD_MASK;
		return (cmd == FUTEX_WAIT || cmd == FUTEX_WAIT_BITSET) &&
		    event_u64(ev, SYSCALL_ARG(2)) == FUTEX_LOCKED_CONTENDED;
	}
	/* ulock_wait(operation, addr, value, timeout) */
	if (strcmp(name, "ulock_wait") == 0 && event_nargs(ev) >= 3) {
		cmd = event_u64(ev, SYSCALL_ARG(0)) & UL_OPCODE_MASK;
		return cmd == UL_UNFAIR_LOCK || cmd == UL_UNFAIR_LOCK64_SHARED;
	}
	return strcmp(name, "psynch_mutexwait") == 0;
}

int
syscall_is_private_wait(const struct event *ev)
{
	uint64_t op;

	/* futex(uaddr, op, val, timeout, ...) */
	if (ev->type != E_SYS_ENTER || event_nargs(ev) <= SYSCALL_ARG(3) ||
	    strcmp(event_str(ev, SYSCALL_NAME), "futex") != 0)
		return 0;
	op = event_u64(ev, SYSCALL_ARG(1));
	return ((op & FUTEX_CMD_MASK) == FUTEX_WAIT ||
	    (op & FUTEX_CMD_MASK) == FUTEX_WAIT_BITSET) &&
	    (op & FUTEX_PRIVATE_FLAG) && event_u64(ev, SYSCALL_ARG(3)) == 0;
}

/* A frame of the program itself: not "lib.so!f+0x1", "lib.so+0x1", "0x7f..". */
static int
own_frame(const char *f)
{
	return strchr(f, '!') == NULL && strncmp(f, "0x", 2) != 0 &&
	    strstr(f, ".so") == NULL;
}

int
stack_function(const struct record *rec, char *buf, size_t size)
{
	size_t i, n = 0, len;
	int found = 0;

	for (i = COL_FIRST_OWN; i < rec->nf && found < 2; i++) {
		if (!own_frame(rec->f[i]))
			continue;
		len = strcspn(rec->f[i], "+");
		if (n + len + 2 > size)
			break;
		if (found++)
			buf[n++] = '<';
		memcpy(buf + n, rec->f[i], len);
		n += len;
	}
	if (found)
		buf[n] = '\0';
	return found;
}

/* Linux's names, then Darwin's (argus-import -f kdebug). */
static const char *const sends[] = { "write", "writev", "sendto",
    "sendmsg", "sendmmsg", "pwrite64",
    "write_nocancel", "writev_nocancel", "sendto_nocancel",
    "sendmsg_nocancel", "sendmsg_x", "pwrite", "pwrite_nocancel",
    /* Mach IPC: a send, or a send and the wait for its reply. */
    "mach_msg_trap", "mach_msg2_trap", "mach_msg_overwrite_trap" };

static const char *const recvs[] = { "read", "readv", "recvfrom",
    "recvmsg", "recvmmsg",
    "read_nocancel", "readv_nocancel", "recvfrom_nocancel",
    "recvmsg_nocancel", "recvmsg_x" };

/* Darwin's sched_yield(3) is the Mach trap swtch_pri. */
static const char *const yields[] = { "sched_yield", "swtch_pri", "swtch" };

static const char *const sleeps[] = { "nanosleep", "clock_nanosleep",
    "clock_nanosleep_time64", "__semwait_signal" };

/*
 * Not poll(2) and select(2): a client waits for its one server in them
 * as often as a server waits for its many clients.  A wait for any
 * signal at all is a supervisor's between its children's events (a
 * master process, which holds its workers' channels).
 */
static const char *const dispatch[] = { "epoll_wait", "epoll_pwait",
    "epoll_pwait2", "accept", "accept4", "kevent", "kevent64",
    "kevent_qos", "kevent_id", "rt_sigsuspend", "sigsuspend", "pause" };

/* Waits on a set of objects: many possible wakers. */
static const char *const polls[] = { "poll", "ppoll", "select", "pselect6",
    "_newselect", "epoll_wait", "epoll_pwait", "epoll_pwait2", "kevent",
    "kevent64", "kevent_qos", "kevent_id" };

/* Futexes and Darwin's lock waits: the lock rule's waits. */
static const char *const futexes[] = { "futex", "futex_wait",
    "futex_waitv", "futex_wake", "futex_requeue", "ulock_wait",
    "ulock_wake", "psynch_mutexwait", "psynch_mutexdrop" };

/* The signal taken as data, not delivered: Darwin's sigwait too. */
static const char *const sigwaits[] = { "rt_sigtimedwait",
    "rt_sigtimedwait_time64", "sigwait", "sigwait_nocancel" };

/* The signal delivered to a handler: Darwin's sigsuspend too. */
static const char *const sigsuspends[] = { "rt_sigsuspend", "sigsuspend",
    "sigsuspend_nocancel", "pause" };

static const char *const connects[] = { "connect", "connect_nocancel" };

/* Not waitid(2): its first argument is what kind of id the second is. */
static const char *const reaps[] = { "wait4", "wait4_nocancel" };

/*
 * Calls that look a path up, and may wait in the kernel for a directory's
 * or an inode's lock on the way (a name being created, a slow lookup).
 */
static const char *const paths[] = { "open", "openat", "openat2", "creat",
    "mkdir", "mkdirat", "mknod", "mknodat", "unlink", "unlinkat", "rmdir",
    "rename", "renameat", "renameat2", "link", "linkat", "symlink",
    "symlinkat", "stat", "lstat", "newfstatat", "statx", "access",
    "faccessat", "faccessat2", "readlink", "readlinkat", "chdir",
    "execve", "execveat", "truncate", "chmod", "fchmodat", "chown",
    "lchown", "fchownat", "utimensat", "utimes", "getxattr", "setxattr",
    "listxattr", "removexattr" };

/*
 * The classes of system call, and whether any rule or stage reads how a
 * call of the class returns: argus-capture records sys_exit for those
 * only.  Under a load of reads and writes that never block, their exits
 * would fill nearly half the kernel buffer and tell no rule anything.
 * Every other call ends, for the rules, where the thread's next call
 * begins or the thread exits.  A call in no class has no exit recorded.
 * A send's or a receive's exit is recorded only where it failed with
 * EAGAIN (EXIT_AGAIN): nothing to take, no room, and a thread that tries
 * again at once waits on the descriptor as surely as one that blocks.
 */
enum { EXIT_NONE, EXIT_READ, EXIT_AGAIN };
static const struct {
	const char *const *names;
	size_t		 n;
	unsigned	 class;		/* CALL_* */
	int		 exit;		/* EXIT_*: its sys_exit is read */
} syscall_classes[] = {
	/* message, softirq: a send lasts to the thread's next call. */
	{ sends, ARRAY_LEN(sends),		CALL_SEND,	EXIT_AGAIN },
	/* remote: a receive's held wake-up goes at the next call. */
	{ recvs, ARRAY_LEN(recvs),		CALL_RECV,	EXIT_AGAIN },
	{ yields, ARRAY_LEN(yields),		CALL_YIELD,	EXIT_NONE },
	{ sleeps, ARRAY_LEN(sleeps),		CALL_SLEEP,	EXIT_NONE },
	{ dispatch, ARRAY_LEN(dispatch),	CALL_DISPATCH,	EXIT_NONE },
	{ polls, ARRAY_LEN(polls),		CALL_POLL,	EXIT_NONE },
	{ sigwaits, ARRAY_LEN(sigwaits),	CALL_SIGWAIT,	EXIT_NONE },
	{ sigsuspends, ARRAY_LEN(sigsuspends),	CALL_SIGNAL,	EXIT_NONE },
	{ reaps, ARRAY_LEN(reaps),		CALL_REAP,	EXIT_NONE },
	{ paths, ARRAY_LEN(paths),		CALL_PATH,	EXIT_NONE },
	/* lock: a lock wait ends when its futex returns. */
	{ futexes, ARRAY_LEN(futexes),		CALL_FUTEX,	EXIT_READ },
	/* softirq: a connect's handshake wakes the listener until it
	 * returns. */
	{ connects, ARRAY_LEN(connects),	CALL_CONNECT,	EXIT_READ },
};

/*
 * Every name of every class in one index, with all its classes: a rule
 * asks several classes of one call, and each asking once hashed the name
 * again (a third of argus-link's lookups).
 */
struct call_name {
	const char	*name;
	unsigned	 classes;	/* CALL_*, and CALL_EXIT* if read */
};

#define CALL_EXIT	(1u << 30)
#define CALL_EXIT_AGAIN	(1u << 29)
#define CALL_EXITS	(CALL_EXIT | CALL_EXIT_AGAIN)

static unsigned
call_classes(const char *name, size_t len, int padded)
{
	static struct call_name calls[NAMEIDX_ROWS];
	static struct nameidx idx = NAMEIDX(calls, 0);
	size_t i, j, k;
	int row;

	if (idx.nrows == 0) {
		for (i = 0; i < ARRAY_LEN(syscall_classes); i++)
			for (j = 0; j < syscall_classes[i].n; j++) {
				for (k = 0; k < idx.nrows && strcmp(calls[k].name,
				    syscall_classes[i].names[j]) != 0; k++)
					;
				if (k == ARRAY_LEN(calls))
					diex(EX_SOFTWARE, "too many system "
					    "call names");
				calls[k].name = syscall_classes[i].names[j];
				calls[k].classes |= syscall_classes[i].class |
				    (syscall_classes[i].exit == EXIT_READ ?
				    CALL_EXIT : syscall_classes[i].exit ==
				    EXIT_AGAIN ? CALL_EXIT_AGAIN : 0);
				if (k == idx.nrows)
					idx.nrows++;
			}
	}
	row = padded ? nameidx_find_padded(&idx, name, len) :
	    nameidx_find_n(&idx, name, len);
	return row < 0 ? 0 : calls[row].classes;
}

unsigned
syscall_class(const char *name)
{
	return call_classes(name, strlen(name), 0) & ~CALL_EXITS;
}

/*
 * The event is the stage's own (event_parse() filled it): its call's
 * classes are worked out for the first rule that asks, and kept there for
 * the others.
 */
/*
 * A padded name of fewer than 8 bytes, its NUL and all, as one word, and
 * its classes: calls come in a few names (a read, a write, over and
 * over), and one word compared costs less than the index's two words
 * and its hash.
 */
#define CALL_MEMO	4	/* a power of 2 */
static struct {
	uint64_t	 w;	/* 0: empty (a name's first byte is not NUL) */
	unsigned	 classes;
} call_memo[CALL_MEMO];

static unsigned
call_classes_padded(const char *name, size_t len)
{
	uint64_t w;
	size_t i;

	if (len == 0 || len >= 8)
		return call_classes(name, len, 1);
	memcpy(&w, name, 8);
	w = le64toh(w) & (~0ULL >> (64 - 8 * (len + 1)));
	i = (w * GOLDEN64) >> 62 & (CALL_MEMO - 1);
	if (call_memo[i].w != w) {
		call_memo[i].w = w;
		call_memo[i].classes = call_classes(name, len, 1);
	}
	return call_memo[i].classes;
}

unsigned
event_call_any(const struct event *ev)
{
	struct event *e = (struct event *)ev;
	const struct record *rec = ev->rec;
	size_t len;

	e->call = CALL_KNOWN;
	if ((ev->type == E_SYS_ENTER || ev->type == E_SYS_EXIT) &&
	    rec->nf > EC_ARG + SYSCALL_NAME) {
		len = record_len(rec, EC_ARG + SYSCALL_NAME);
		e->call |= (rec->padded ? call_classes_padded(
		    rec->f[EC_ARG + SYSCALL_NAME], len) :
		    call_classes(rec->f[EC_ARG + SYSCALL_NAME], len, 0)) &
		    ~CALL_EXITS;
	}
	return ev->call & ~CALL_KNOWN;
}

int
syscall_is_send(const char *name)
{
	return (syscall_class(name) & CALL_SEND) != 0;
}

int
syscall_is_recv(const char *name)
{
	return (syscall_class(name) & CALL_RECV) != 0;
}

int
syscall_is_yield(const char *name)
{
	return (syscall_class(name) & CALL_YIELD) != 0;
}

int
syscall_is_sleep(const char *name)
{
	return (syscall_class(name) & CALL_SLEEP) != 0;
}

/*
 * A poll or select of an empty set (Perl's select(undef, undef, undef, t),
 * the portable sub-second sleep; poll(NULL, 0, t)) waits on nothing: only
 * its timeout or a signal ends it, a sleep whatever its name.  arg0 is the
 * call's first argument: select's count of descriptors, poll's array.  Not
 * epoll's, whose first is the descriptor of a set it does not show.
 */
int
syscall_sleeps(const char *name, uint64_t arg0)
{
	unsigned c = syscall_class(name);

	return (c & CALL_SLEEP) != 0 || ((c & CALL_POLL) != 0 &&
	    (c & CALL_DISPATCH) == 0 && arg0 == 0);
}

int
syscall_is_dispatch(const char *name)
{
	return (syscall_class(name) & CALL_DISPATCH) != 0;
}

int
syscall_is_poll(const char *name)
{
	return (syscall_class(name) & CALL_POLL) != 0;
}

int
syscall_is_sigwait(const char *name)
{
	return (syscall_class(name) & CALL_SIGWAIT) != 0;
}

int
syscall_awaits_signal(const char *name)
{
	return (syscall_class(name) & CALL_SIGNAL) != 0;
}

int
syscall_is_reap(const char *name)
{
	return (syscall_class(name) & CALL_REAP) != 0;
}

int
syscall_exit_read(const char *name)
{
	return (call_classes(name, strlen(name), 0) & CALL_EXIT) != 0;
}

int
syscall_exit_again(const char *name)
{
	return (call_classes(name, strlen(name), 0) & CALL_EXITS) ==
	    CALL_EXIT_AGAIN;
}

const char *
softirq_name(int vec)
{
	static const char *const names[] = {
		"HI", "TIMER", "NET_TX", "NET_RX", "BLOCK", "IRQ_POLL",
		"TASKLET", "SCHED", "HRTIMER", "RCU",
	};

	return vec >= 0 && vec < (int)ARRAY_LEN(names) ? names[vec] : "";
}
