/*
 * kdebug-write: kdebug trace files for argus-import's tests, written from
 * the layouts lib/kdebug.h gives (XNU's own), in either of the two layouts
 * trace(1) and ktrace(1) write.  These machines cannot run macOS; this is
 * how the importer meets files it has not made itself.
 *
 *   kdebug-write [-3] [-K] [-L] [-S] [-n N] [-T NUMER/DENOM] -o FILE [SPEC]
 *   kdebug-write -e [-3] ... -o FILE [STREAM]
 *
 * A SPEC is lines of text:
 *
 *   thread TID PID COMM               a thread map entry
 *   NS CPU TID CODE [ARG ...]         an event: time (ns), CPU, its thread,
 *                                     the code, up to four arguments
 *   str NS CPU TID CODE TEXT...       a string the kernel traces in the
 *                                     arguments of one or more records
 *
 * CODE is a name from the table below (MACH_SCHED, ARGUS_WAKE, ...),
 * BSC:NAME or MSC:NAME for a system call, or a number; /B, /E or /BE add
 * the function bits.
 *
 * With -e the input is an Argus stream, a Linux capture, re-encoded as a
 * macOS kernel with xnu-diff/argus.diff would have traced the same things
 * (a wait is ARGUS_WAIT then MACH_SCHED, a wake-up ARGUS_WAKE then
 * MACH_MAKE_RUNNABLE, a work item a thread call, an hrtimer a timer
 * call, Linux system calls their macOS namesakes); what macOS has no
 * tracepoint for is left out, and counted on stderr.
 *
 * -3 writes version 3 (-K with the kernel's magic 0x1000, -L counting the
 * events chunk's timestamp in its length as kernels up to xnu-8020 did,
 * -n events per chunk, -S the threads as a kcdata stackshot instead of a
 * thread map); -T the timebase of the v3 header (ticks to ns).
 */
#include <ctype.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "event.h"
#include "kdebug.h"
#include "util.h"

struct thread_entry {
	uint64_t	 tid;
	int64_t		 pid;
	char		 comm[33];
};

static struct thread_entry *map;
static size_t nmap;
static unsigned char *evbuf;
static size_t evlen, evcap;
static uint32_t numer = 1, denom = 1;
static uint64_t dropped;

static const struct { const char *name; uint32_t id; } codes[] = {
	{ "MACH_SCHED", KD_MACH_SCHED }, { "MACH_HANDOFF", KD_MACH_HANDOFF },
	{ "MACH_CALLOUT", KD_MACH_CALLOUT },
	{ "MACH_MAKERUNNABLE", KD_MACH_MAKERUNNABLE },
	{ "MACH_IDLE", KD_MACH_IDLE }, { "MACH_WAIT", KD_MACH_WAIT },
	{ "INTR", KD_MACH_INTR }, { "TIMER_CALLOUT", KD_DECR_TIMER_CALLOUT },
	{ "TIMER_ENTER", KD_DECR_TIMER_ENTER },
	{ "TIMER_CANCEL", KD_DECR_TIMER_CANCEL },
	{ "IPC_MSG_SEND", KD_IPC_MSG_SEND }, { "IPC_MSG_RECV", KD_IPC_MSG_RECV },
	{ "IPC_MSG_RECV_VREF", KD_IPC_MSG_RECV_VREF },
	{ "NEWTHREAD", KD_DATA_NEWTHREAD }, { "EXEC", KD_DATA_EXEC },
	{ "TERMINATE", KD_DATA_TERMINATE },
	{ "TERMINATE_PID", KD_DATA_TERMINATE_PID },
	{ "STRING_GLOBAL", KD_STRING_GLOBAL },
	{ "STRING_NEWTHREAD", KD_STRING_NEWTHREAD },
	{ "STRING_EXEC", KD_STRING_EXEC },
	{ "STRING_PROC_EXIT", KD_STRING_PROC_EXIT },
	{ "STRING_THREADNAME", KD_STRING_THREADNAME },
	{ "LOST_EVENTS", KD_LOST_EVENTS },
	{ "DISPATCH_PUSH_EB", KD_DISPATCH_PUSH_EB },
	{ "DISPATCH_PUSH_AB", KD_DISPATCH_PUSH_AB },
	{ "DISPATCH_PUSH_F", KD_DISPATCH_PUSH_F },
	{ "DISPATCH_POP", KD_DISPATCH_POP },
	{ "DISPATCH_COMPLETE", KD_DISPATCH_COMPLETE },
	{ "ARGUS_MSG_SEND", ARGUS_MSG_SEND }, { "ARGUS_MSG_RECV", ARGUS_MSG_RECV },
	{ "ARGUS_MSG_BACKTRACE", ARGUS_MSG_BACKTRACE },
	{ "ARGUS_WAIT", ARGUS_WAIT }, { "ARGUS_WAKE", ARGUS_WAKE },
	{ "ARGUS_CLEAR_WAIT", ARGUS_CLEAR_WAIT },
	{ "ARGUS_TCALL_ARM", ARGUS_TCALL_ARM },
	{ "ARGUS_TCALL_INVOKE", ARGUS_TCALL_INVOKE },
	{ "ARGUS_INTR_HANDLER", ARGUS_INTR_HANDLER },
	{ "ARGUS_INTR_TIMERS", ARGUS_INTR_TIMERS },
	{ "ARGUS_RUNLOOP_SUBMIT", ARGUS_RUNLOOP_SUBMIT },
	{ "ARGUS_RUNLOOP_CALLOUT", ARGUS_RUNLOOP_CALLOUT },
};

static const struct { uint32_t id; const char *name; } syscalls[] = {
#define BSC(nr, name, nargs)	{ KD_BSC(nr), name },
#define MSC(nr, name, nargs)	{ KD_MSC(nr), name },
#include "../../bin/import/kdebug_syscalls.def"
#undef BSC
#undef MSC
};

static void
put32(unsigned char *p, uint32_t v)
{
	p[0] = v;
	p[1] = v >> 8;
	p[2] = v >> 16;
	p[3] = v >> 24;
}

static void
put64(unsigned char *p, uint64_t v)
{
	put32(p, v);
	put32(p + 4, v >> 32);
}

/* A fixed-size name field: not NUL-terminated when full, as the kernel's. */
static void
put_str(unsigned char *dst, const char *s, size_t n)
{
	memcpy(dst, s, strnlen(s, n));
}

static uint64_t
ticks(uint64_t ns)
{
	return (uint64_t)((unsigned __int128)ns * denom / numer);
}

static void
emit(uint64_t ns, uint32_t cpu, uint64_t tid, uint32_t debugid,
    const uint64_t arg[4])
{
	unsigned char *b;
	int i;

	if (evlen + KD_BUF_SIZE > evcap) {
		evcap = evcap ? evcap * 2 : 1 << 16;
		evbuf = xrealloc(evbuf, evcap);
	}
	b = evbuf + evlen;
	memset(b, 0, KD_BUF_SIZE);
	put64(b + KD_BUF_TIMESTAMP, ticks(ns));
	for (i = 0; i < 4; i++)
		put64(b + KD_BUF_ARG1 + 8 * i, arg[i]);
	put64(b + KD_BUF_THREAD, tid);
	put32(b + KD_BUF_DEBUGID, debugid);
	put32(b + KD_BUF_CPUID, cpu);
	evlen += KD_BUF_SIZE;
}

static void
emit4(uint64_t ns, uint32_t cpu, uint64_t tid, uint32_t debugid, uint64_t a,
    uint64_t b, uint64_t c, uint64_t d)
{
	uint64_t arg[4] = { a, b, c, d };

	emit(ns, cpu, tid, debugid, arg);
}

/*
 * A string as the kernel traces it: 32 bytes per record, or for
 * TRACE_STRING_GLOBAL a debug ID and a string ID, then 16 bytes first.
 */
static void
emit_string(uint64_t ns, uint32_t cpu, uint64_t tid, uint32_t id,
    const char *s)
{
	unsigned char chars[512] = { 0 };
	size_t len = strlen(s), off = 0, room;
	uint64_t arg[4];
	uint32_t f = KD_START;
	int lead = id == KD_STRING_GLOBAL ? 2 : 0, i;

	if (len > sizeof(chars) - 32)
		len = sizeof(chars) - 32;
	memcpy(chars, s, len);
	do {
		room = 8 * (4 - lead);
		if (off + room >= len)
			f |= KD_END;
		for (i = 0; i < lead; i++)
			arg[i] = i == 0 ? 0 : 1;
		for (i = lead; i < 4; i++)
			memcpy(&arg[i], chars + off + 8 * (i - lead), 8);
		emit(ns, cpu, tid, id | f, arg);
		off += room;
		f = 0;
		lead = 0;
	} while (off < len);
}

static void
add_thread(uint64_t tid, int64_t pid, const char *comm)
{
	size_t i;

	for (i = 0; i < nmap; i++)
		if (map[i].tid == tid)
			break;
	if (i == nmap) {
		map = xrealloc(map, (nmap + 1) * sizeof(*map));
		nmap++;
	}
	map[i].tid = tid;
	map[i].pid = pid;
	snprintf(map[i].comm, sizeof(map[i].comm), "%s", comm);
}

/* Spec input. */

static uint64_t
number(const char *s, const char *file, unsigned long line)
{
	char *end;
	uint64_t v = strtoull(s, &end, 0);

	if (*s == '\0' || *end != '\0')
		diex(EX_DATAERR, "%s:%lu: not a number: '%s'", file, line, s);
	return v;
}

static uint32_t
code(const char *s, const char *file, unsigned long line)
{
	char name[64], *slash;
	uint32_t f = 0;
	size_t i;

	snprintf(name, sizeof(name), "%s", s);
	if ((slash = strchr(name, '/')) != NULL) {
		f = (strchr(slash, 'B') ? KD_START : 0) |
		    (strchr(slash, 'E') ? KD_END : 0);
		*slash = '\0';
	}
	for (i = 0; i < ARRAY_LEN(codes); i++)
		if (strcmp(codes[i].name, name) == 0)
			return codes[i].id | f;
	if (strncmp(name, "BSC:", 4) == 0 || strncmp(name, "MSC:", 4) == 0) {
		for (i = 0; i < ARRAY_LEN(syscalls); i++)
			if (strcmp(syscalls[i].name, name + 4) == 0 &&
			    KD_CSC(syscalls[i].id) == (name[0] == 'B' ?
			    KD_CSC(KD_BSC(0)) : KD_CSC(KD_MSC(0))))
				return syscalls[i].id | f;
		diex(EX_DATAERR, "%s:%lu: no system call '%s'", file, line, name);
	}
	if (isdigit((unsigned char)name[0]))
		return (uint32_t)number(name, file, line) | f;
	diex(EX_DATAERR, "%s:%lu: unknown code '%s'", file, line, name);
}

static void
read_spec(FILE *in, const char *file)
{
	char line[1024], *w[12], *p;
	unsigned long n = 0;
	uint64_t arg[4];
	int nw, i;

	while (fgets(line, sizeof(line), in) != NULL) {
		n++;
		line[strcspn(line, "\n")] = '\0';
		for (nw = 0, p = line; nw < 12; nw++) {
			p += strspn(p, " \t");
			if (*p == '\0' || *p == '#')
				break;
			w[nw] = p;
			if (nw == 5 && strcmp(w[0], "str") == 0) {
				nw++;		/* TEXT: the rest of the line */
				break;
			}
			p += strcspn(p, " \t");
			if (*p != '\0')
				*p++ = '\0';
		}
		if (nw == 0)
			continue;
		if (strcmp(w[0], "thread") == 0 && nw == 4) {
			add_thread(number(w[1], file, n),
			    (int64_t)number(w[2], file, n), w[3]);
		} else if (strcmp(w[0], "str") == 0 && nw >= 6) {
			emit_string(number(w[1], file, n), number(w[2], file, n),
			    number(w[3], file, n), code(w[4], file, n), w[5]);
		} else if (nw >= 4 && nw <= 8) {
			for (i = 0; i < 4; i++)
				arg[i] = 4 + i < nw ? number(w[4 + i], file, n) : 0;
			emit(number(w[0], file, n), number(w[1], file, n),
			    number(w[2], file, n), code(w[3], file, n), arg);
		} else {
			diex(EX_DATAERR, "%s:%lu: expected 'thread TID PID COMM', "
			    "'NS CPU TID CODE [ARG ...]' or 'str NS CPU TID CODE "
			    "TEXT'", file, n);
		}
	}
}

/* Stream input: a Linux capture as macOS with the patch would trace it. */

/* Linux system calls by the macOS call that does the same job. */
static const struct { const char *lnx, *mac; } aliases[] = {
	{ "nanosleep", "BSC:semwait_signal" },
	{ "clock_nanosleep", "BSC:semwait_signal" },
	{ "sched_yield", "MSC:swtch_pri" },
	{ "pread64", "BSC:pread" }, { "pwrite64", "BSC:pwrite" },
	{ "futex", "BSC:ulock_wait" }, { "epoll_wait", "BSC:kevent" },
	{ "epoll_pwait", "BSC:kevent" }, { "ppoll", "BSC:poll" },
	{ "pselect6", "BSC:pselect" }, { "accept4", "BSC:accept" },
	{ "exit_group", "BSC:exit" }, { "newfstatat", "BSC:fstatat64" },
	{ "clone", "BSC:bsdthread_create" }, { "clone3", "BSC:bsdthread_create" },
};

static uint32_t
macos_syscall(const char *name)
{
	char bsc[64];
	size_t i;

	for (i = 0; i < ARRAY_LEN(aliases); i++)
		if (strcmp(aliases[i].lnx, name) == 0)
			return code(aliases[i].mac, "alias", 0);
	snprintf(bsc, sizeof(bsc), "BSC:%s", name);
	for (i = 0; i < ARRAY_LEN(syscalls); i++)
		if (KD_CSC(syscalls[i].id) == KD_CSC(KD_BSC(0)) &&
		    strcmp(syscalls[i].name, name) == 0)
			return syscalls[i].id;
	return 0;
}

#define NESTS	8

/* A CPU's open interrupt brackets: whether each was synthesized. */
struct ecpu {
	int		 depth;
	uint32_t	 id[NESTS];
	int		 synthetic[NESTS];
};

static struct ecpu *ecpus;
static uint32_t necpus;

static struct ecpu *
ecpu(uint32_t cpu)
{
	if (cpu >= necpus) {
		ecpus = xrealloc(ecpus, (cpu + 1) * sizeof(*ecpus));
		memset(ecpus + necpus, 0, (cpu + 1 - necpus) * sizeof(*ecpus));
		necpus = cpu + 1;
	}
	return &ecpus[cpu];
}

static void
close_brackets(const struct event *ev, int down_to)
{
	struct ecpu *c = ecpu(ev->cpu);

	while (c->depth > down_to) {
		c->depth--;
		emit4(ev->time, ev->cpu, ev->tid, c->id[c->depth] | KD_END,
		    0, 0, 0, 0);
	}
}

static void
open_bracket(const struct event *ev, uint32_t id, uint64_t a1, uint64_t kind,
    int synthetic)
{
	struct ecpu *c = ecpu(ev->cpu);

	if (c->depth == NESTS)
		return;
	c->id[c->depth] = id;
	c->synthetic[c->depth++] = synthetic;
	emit4(ev->time, ev->cpu, ev->tid, id | KD_START, a1, 0, 0, kind);
}

/*
 * Interrupt context: kdebug has no context bit, only begin and end
 * events around an interrupt.  Linux traces its timer interrupt without
 * irq_entry, so events in interrupt context outside any bracket get one.
 */
static void
context(const struct event *ev)
{
	struct ecpu *c = ecpu(ev->cpu);

	if (ev->ctx == '-') {
		close_brackets(ev, 0);
		return;
	}
	if (c->depth == 0 && ev->type != E_IRQ_ENTRY &&
	    ev->type != E_SOFTIRQ_ENTRY)
		open_bracket(ev, KD_MACH_INTR, 0, ev->type == E_HRT_EXPIRE_ENTRY ?
		    KD_INTR_TIMER : KD_INTR_OTHER, 1);
}

/* Leave the brackets down to the last explicit one, and close it. */
static void
close_explicit(const struct event *ev)
{
	struct ecpu *c = ecpu(ev->cpu);
	int d = c->depth;

	while (d > 0 && c->synthetic[d - 1])
		d--;
	if (d > 0)
		close_brackets(ev, d - 1);
}

static void
encode_syscall(const struct event *ev)
{
	uint32_t id = macos_syscall(event_str(ev, 1));
	uint64_t a[4] = { 0 };
	int64_t ret;
	int i;

	if (id == 0) {
		dropped++;
		return;
	}
	if (ev->type == E_SYS_ENTER) {
		for (i = 0; i < 4 && i + 2 < event_nargs(ev); i++)
			a[i] = event_u64(ev, i + 2);
		emit(ev->time, ev->cpu, ev->tid, id | KD_START, a);
		return;
	}
	ret = event_i64(ev, 2);
	if (KD_CSC(id) == KD_CSC(KD_MSC(0)))
		emit4(ev->time, ev->cpu, ev->tid, id | KD_END, ret, 0, 0, 0);
	else
		emit4(ev->time, ev->cpu, ev->tid, id | KD_END,
		    ret < 0 ? -ret : 0, ret < 0 ? (uint64_t)-1 : (uint64_t)ret,
		    0, ev->pid);
}

static void
encode(const struct event *ev)
{
	const char *s;
	uint64_t vec;

	context(ev);
	switch (ev->type) {
	case E_SWITCH:
		s = event_str(ev, 0);
		if (s[0] != 'R' && s[0] != 'X' && s[0] != 'Z')
			emit4(ev->time, ev->cpu, ev->tid, ARGUS_WAIT, 0,
			    (uint64_t)KD_WQT_QUEUE << 32 | (s[0] == 'D' ? 0 : 1),
			    0, 0);
		emit4(ev->time, ev->cpu, ev->tid, KD_MACH_SCHED,
		    strcmp(s, "R+") == 0 ? 1 : s[0] == 'R' ? KD_AST_YIELD : 0,
		    event_u64(ev, 2), 0, 0);
		break;
	case E_WAKING:
	case E_WAKEUP_NEW:
		if (ev->type == E_WAKING)
			emit4(ev->time, ev->cpu, ev->tid, ARGUS_WAKE,
			    event_u64(ev, 1), KD_THREAD_AWAKENED,
			    ev->ctx != '-' ? ARGUS_WAKE_INTR : 0, 0);
		emit4(ev->time, ev->cpu, ev->tid, KD_MACH_MAKERUNNABLE,
		    event_u64(ev, 1), 0, 0, 0);
		break;
	case E_FORK:
		emit4(ev->time, ev->cpu, ev->tid, KD_DATA_NEWTHREAD,
		    event_u64(ev, 1), event_pid(ev, 0), 0, 0);
		emit_string(ev->time, ev->cpu, ev->tid, KD_STRING_NEWTHREAD,
		    event_str(ev, 3));
		break;
	case E_EXEC:
		s = strrchr(event_str(ev, 0), '/');
		emit4(ev->time, ev->cpu, ev->tid, KD_DATA_EXEC, ev->pid, 0, 0, 0);
		emit_string(ev->time, ev->cpu, ev->tid, KD_STRING_EXEC,
		    s != NULL ? s + 1 : event_str(ev, 0));
		break;
	case E_EXIT:
		emit4(ev->time, ev->cpu, ev->tid, KD_DATA_TERMINATE_PID, ev->pid,
		    0, 0, 0);
		break;
	case E_COMM:
		emit_string(ev->time, ev->cpu, event_u64(ev, 1),
		    KD_STRING_THREADNAME, event_str(ev, 3));
		break;
	case E_SYS_ENTER:
	case E_SYS_EXIT:
		encode_syscall(ev);
		break;
	case E_IRQ_ENTRY:
		open_bracket(ev, KD_MACH_INTR, event_u64(ev, 0), KD_INTR_OTHER, 0);
		break;
	case E_SOFTIRQ_ENTRY:
		/* macOS runs timers inside the interrupt: the patch's point. */
		vec = event_u64(ev, 0);
		open_bracket(ev, vec == 1 || vec == 8 ? ARGUS_INTR_TIMERS :
		    KD_MACH_INTR, 0, KD_INTR_OTHER, 0);
		break;
	case E_IRQ_EXIT:
	case E_SOFTIRQ_EXIT:
		close_explicit(ev);
		break;
	case E_HRT_START:
		emit4(ev->time, ev->cpu, ev->tid, KD_DECR_TIMER_ENTER | KD_START,
		    event_u64(ev, 0), 0, ticks(event_u64(ev, 2)), 0);
		break;
	case E_TIMER_START:
		emit4(ev->time, ev->cpu, ev->tid, KD_DECR_TIMER_ENTER | KD_START,
		    event_u64(ev, 0), 0, 0, 0);
		break;
	case E_HRT_EXPIRE_ENTRY:
	case E_TIMER_EXPIRE_ENTRY:
		emit4(ev->time, ev->cpu, ev->tid, KD_DECR_TIMER_CALLOUT | KD_START,
		    event_u64(ev, 0), event_u64(ev, 1), 0, 0);
		break;
	case E_HRT_EXPIRE_EXIT:
	case E_TIMER_EXPIRE_EXIT:
		emit4(ev->time, ev->cpu, ev->tid, KD_DECR_TIMER_CALLOUT | KD_END,
		    event_u64(ev, 0), 0, 0, 0);
		break;
	case E_HRT_CANCEL:
	case E_TIMER_CANCEL:
		emit4(ev->time, ev->cpu, ev->tid, KD_DECR_TIMER_CANCEL | KD_START,
		    event_u64(ev, 0), 0, 0, 0);
		break;
	case E_WQ_QUEUE:
		emit4(ev->time, ev->cpu, ev->tid, ARGUS_TCALL_ARM,
		    event_u64(ev, 0), event_u64(ev, 1), 0, 0);
		break;
	case E_WQ_START:
	case E_WQ_END:
		emit4(ev->time, ev->cpu, ev->tid, ARGUS_TCALL_INVOKE |
		    (ev->type == E_WQ_START ? KD_START : KD_END),
		    event_u64(ev, 0), event_u64(ev, 1), 0, 0);
		break;
	case E_MARKER:
		emit_string(ev->time, ev->cpu, ev->tid, KD_STRING_GLOBAL,
		    event_str(ev, 0));
		break;
	case E_RUNLOOP_SUBMIT:
		emit4(ev->time, ev->cpu, ev->tid, ARGUS_RUNLOOP_SUBMIT,
		    event_u64(ev, 0), event_u64(ev, 1), 0, 0);
		break;
	case E_RUNLOOP_BEGIN:
	case E_RUNLOOP_END:
		emit4(ev->time, ev->cpu, ev->tid, ARGUS_RUNLOOP_CALLOUT |
		    (ev->type == E_RUNLOOP_BEGIN ? KD_START : KD_END),
		    event_u64(ev, 0), 0, 0, 0);
		break;
	default:
		dropped++;	/* block I/O, signals, pthreads probes, ... */
		break;
	}
}

static void
read_stream(const char *path)
{
	struct reader *r = reader_open(path);
	struct record rec;
	struct event ev;
	uint64_t tid, pid;

	while (reader_next(r, &rec)) {
		if (event_parse(&rec, &ev))
			encode(&ev);
		else if (!rec.comment && strcmp(rec.f[COL_KIND], "task") == 0 &&
		    record_u64_opt(&rec, COL_TID, &tid))
			add_thread(tid, record_u64_opt(&rec, COL_PID, &pid) ?
			    (int64_t)pid : -1, record_str(&rec, COL_FIRST_OWN));
		else if (!rec.comment && strcmp(rec.f[COL_KIND], "lost") == 0)
			emit4(rec.time, record_u64(&rec, COL_FIRST_OWN), 0,
			    KD_LOST_EVENTS, 1, 0, 0, 0);
	}
	reader_close(r);
}

/* Writing the file. */

static void
out(FILE *f, const void *p, size_t n)
{
	if (fwrite(p, 1, n, f) != n)
		die(EX_IOERR, "write");
}

static void
out_map(FILE *f)
{
	unsigned char m[KD_MAP_SIZE];
	size_t i;

	for (i = 0; i < nmap; i++) {
		memset(m, 0, sizeof(m));
		put64(m + KD_MAP_THREAD, map[i].tid);
		put32(m + KD_MAP_PID, map[i].pid == 0 ? 1 : map[i].pid);
		put_str(m + KD_MAP_COMMAND, map[i].pid == 0 ? "kernel_task" :
		    map[i].comm, KD_MAP_COMMAND_LEN);
		out(f, m, sizeof(m));
	}
}

static void
write_v1(FILE *f)
{
	unsigned char h[KD_RAW_HEADER_SIZE] = { 0 }, cpumap[KD_CPUMAP_HEADER_SIZE];
	static const unsigned char zero[KD_RAW_EVENTS_ALIGN];
	size_t at;

	put32(h, KD_RAW_V1);
	put32(h + 4, nmap);
	out(f, h, sizeof(h));
	out_map(f);
	at = sizeof(h) + nmap * KD_MAP_SIZE;
	/* The CPU map lives in the padding, as the kernel puts it. */
	put32(cpumap, KD_RAW_V1);
	put32(cpumap + 4, necpus);
	out(f, cpumap, sizeof(cpumap));
	out(f, zero, KD_RAW_EVENTS_ALIGN - at % KD_RAW_EVENTS_ALIGN -
	    sizeof(cpumap));
	out(f, evbuf, evlen);
}

static void
chunk(FILE *f, uint32_t tag, uint32_t version, uint64_t len)
{
	unsigned char c[KD_CHUNK_SIZE];

	put32(c, tag);
	put32(c + 4, version);
	put64(c + 8, len);
	out(f, c, sizeof(c));
}

static void
kcd_item(FILE *f, uint32_t type, const void *data, uint32_t size,
    uint64_t flags)
{
	static const unsigned char zero[16];
	unsigned char h[KCD_ITEM_SIZE];
	uint32_t padded = (size + 15) & ~15u;

	put32(h, type);
	put32(h + 4, padded);
	put64(h + 8, flags | (padded - size));
	out(f, h, sizeof(h));
	out(f, data, size);
	out(f, zero, padded - size);
}

/* The threads as a stackshot: a task container around each thread. */
static void
out_stackshot(FILE *f)
{
	unsigned char task[120], thread[104], ctype[4];
	char *buf = NULL;
	size_t len = 0, i;
	FILE *m;

	if ((m = open_memstream(&buf, &len)) == NULL)
		die(EX_OSERR, "open_memstream");
	kcd_item(m, KCD_BEGIN_STACKSHOT, NULL, 0, 0);
	for (i = 0; i < nmap; i++) {
		memset(task, 0, sizeof(task));
		memset(thread, 0, sizeof(thread));
		put32(task + KCD_TASK_PID, map[i].pid);
		put_str(task + KCD_TASK_COMM, map[i].comm, KCD_TASK_COMM_LEN);
		put64(thread + KCD_THREAD_ID, map[i].tid);
		put32(ctype, KCD_TASK_CONTAINER);
		kcd_item(m, KCD_CONTAINER_BEGIN, ctype, 4, i + 1);
		kcd_item(m, KCD_TASK_SNAPSHOT, task, sizeof(task), 0);
		put32(ctype, KCD_THREAD_CONTAINER);
		kcd_item(m, KCD_CONTAINER_BEGIN, ctype, 4, map[i].tid);
		kcd_item(m, KCD_THREAD_SNAPSHOT, thread, sizeof(thread), 0);
		kcd_item(m, KCD_THREAD_NAME, map[i].comm, 16, 0);
		kcd_item(m, KCD_CONTAINER_END, NULL, 0, map[i].tid);
		kcd_item(m, KCD_CONTAINER_END, NULL, 0, i + 1);
	}
	kcd_item(m, KCD_BUFFER_END, NULL, 0, 0);
	if (fclose(m) != 0)
		die(EX_OSERR, "open_memstream");
	/* A tag of libktrace's own: the importer looks at the payload. */
	chunk(f, 0x8002, 1, len);
	out(f, buf, len);
	free(buf);
}

static void
write_v3(FILE *f, uint32_t magic, int old_length, int stackshot, size_t per)
{
	unsigned char fixed[KD_V3_HEADER_FIXED] = { 0 }, stamp[8] = { 0 };
	size_t off, n;

	chunk(f, magic, 1, sizeof(fixed));
	put32(fixed + KD_V3_TIMEBASE_NUMER - KD_CHUNK_SIZE, numer);
	put32(fixed + KD_V3_TIMEBASE_DENOM - KD_CHUNK_SIZE, denom);
	put32(fixed + KD_V3_FLAGS - KD_CHUNK_SIZE, KD_V3_FLAG_64BIT);
	out(f, fixed, sizeof(fixed));
	if (stackshot) {
		out_stackshot(f);
	} else {
		chunk(f, KD_V3_THREAD_MAP, 1, nmap * KD_MAP_SIZE);
		out_map(f);
	}
	for (off = 0; off < evlen; off += n) {
		n = evlen - off < per * KD_BUF_SIZE ? evlen - off :
		    per * KD_BUF_SIZE;
		chunk(f, KD_V3_RAW_EVENTS, 1, n + (old_length ? 8 : 0));
		out(f, stamp, sizeof(stamp));
		out(f, evbuf + off, n);
	}
}

static const char usage[] =
"usage: kdebug-write [-3KLSe] [-n N] [-T NUMER/DENOM] -o FILE [INPUT]\n";

int
main(int argc, char *argv[])
{
	int ch, v3 = 0, kernel = 0, old_length = 0, stackshot = 0, stream = 0;
	const char *path = NULL, *input = "-";
	size_t per = 1000;
	FILE *in, *f;

	while ((ch = getopt(argc, argv, "3KLSen:o:T:h")) != -1) {
		switch (ch) {
		case '3': v3 = 1; break;
		case 'K': kernel = 1; break;
		case 'L': old_length = 1; break;
		case 'S': stackshot = 1; break;
		case 'e': stream = 1; break;
		case 'n': per = parse_u64("-n", optarg); break;
		case 'o': path = optarg; break;
		case 'T':
			if (sscanf(optarg, "%u/%u", &numer, &denom) != 2 ||
			    numer == 0 || denom == 0)
				usage_error(usage);
			break;
		default: usage_error(usage);
		}
	}
	if (path == NULL || argc - optind > 1 || per == 0)
		usage_error(usage);
	if (optind < argc)
		input = argv[optind];
	if (stream) {
		read_stream(input);
	} else {
		in = strcmp(input, "-") == 0 ? stdin : fopen(input, "r");
		if (in == NULL)
			die(EX_NOINPUT, "%s", input);
		read_spec(in, input);
	}
	if ((f = fopen(path, "wb")) == NULL)
		die(EX_CANTCREAT, "%s", path);
	if (v3)
		write_v3(f, kernel ? KD_V3_KERNEL_MAGIC : KD_V3_MAGIC,
		    old_length, stackshot, per);
	else
		write_v1(f);
	if (fclose(f) != 0)
		die(EX_IOERR, "%s", path);
	if (dropped > 0)
		fprintf(stderr, "kdebug-write: %llu events macOS does not "
		    "trace left out\n", (unsigned long long)dropped);
	return 0;
}
