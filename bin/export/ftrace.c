/*
 * ftrace text: each event as the kernel's `trace` file prints its
 * tracepoint, with the TGID and irq-info columns, so that the Perfetto UI,
 * Trace Compass and argus-import read it.  The irq-info column has the
 * four letters of kernels before 5.x: both viewers' parsers take four,
 * Trace Compass's no other number.  Times have nine digits: the viewers
 * read them as seconds, and nothing is rounded away.
 *
 * Kernel pointers (%p) print as 16 hex digits without 0x, as with the
 * hash-ptr option off; kernel functions (%ps) by the name the stream's
 * ksym records give, as the kernel prints them, else as 0x addresses,
 * which is what the kernel prints for an address it has no symbol for.
 *
 * Names (comms, file names, marks' text) are the one thing a user writes
 * into a trace, and the kernel prints them raw: a newline in an exec'd
 * file name would end the line and the rest forge one of its own.  Here
 * they are escaped as lib/show.c shows names (\\, \n, \e, \xHH: every
 * control byte, invalid UTF-8, C1) and, where the text's own syntax
 * would be fooled, one byte more as \xHH: '=' in a field's value (" pid="
 * inside a name would start a field), '[' and a leading space or '<' in the
 * task column.  argus-import decodes them in a file with this header, so
 * an export imports back to the same names, whatever they hold.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "export.h"
#include "show.h"

static int		 header_done;
static unsigned long	 events;

static void
header(FILE *o)
{
	fputs("# tracer: nop\n"
	    "#\n"
	    "# argus-export -f ftrace: an Argus record stream as ftrace text\n"
	    "# names escaped: \\\\ \\n \\e \\xHH, as argus-stream(5) NAMES SHOWN\n"
	    "#\n"
	    "#                                      _-----=> irqs-off\n"
	    "#                                     / _----=> need-resched\n"
	    "#                                    | / _---=> hardirq/softirq\n"
	    "#                                    || / _--=> preempt-depth\n"
	    "#                                    ||| /     delay\n"
	    "#           TASK-PID       TGID   CPU#  ||||   TIMESTAMP  FUNCTION\n"
	    "#              | |           |      |   ||||      |         |\n", o);
	header_done = 1;
}

/* Where a name goes, for the bytes that would fool the text there. */
enum spot {
	V,	/* a field's value: '=' */
	TASK,	/* the task column: '[', and a leading ' ' or '<' */
	WORD,	/* a value read up to a space (rwbs): '=', ' ' */
	TEXT,	/* the rest of the line (a mark): nothing more */
};

/*
 * s escaped for its spot, in one of a ring of buffers: enough for the
 * names of one fprintf.
 */
static const char *
esc(const char *s, enum spot at)
{
	static const char hex[] = "0123456789abcdef";
	static const char named[] = "\aa\bb\tt\nn\vv\ff\rr\033e\\\\";
	static struct {
		char	*p;
		size_t	 size;
	} ring[8];
	static int next;
	size_t len = strlen(s), i, k, n = 0;
	const char *p;
	unsigned char c;
	char *o;
	int r = next;

	next = (next + 1) % 8;
	if (ring[r].size < 4 * len + 1) {
		free(ring[r].p);
		ring[r].size = 4 * len + 64;
		ring[r].p = xmalloc(ring[r].size);
	}
	o = ring[r].p;
	for (i = 0; i < len; i += k) {
		c = s[i];
		k = 1;
		if (c >= 0x80 && (k = show_utf8_char(s + i, len - i)) > 0) {
			memcpy(o + n, s + i, k);	/* valid UTF-8 */
			n += k;
			continue;
		}
		k = 1;
		if (c >= 0x20 && c < 0x7f && c != '\\' &&
		    !((at == V || at == WORD) && c == '=') &&
		    !(at == WORD && c == ' ') &&
		    !(at == TASK && (c == '[' ||
		    (i == 0 && (c == ' ' || c == '<'))))) {
			o[n++] = c;
			continue;
		}
		o[n++] = '\\';
		if (c != '\0' && (p = memchr(named, c, sizeof(named) - 1)) !=
		    NULL && (p - named) % 2 == 0)
			o[n++] = p[1];
		else {
			o[n++] = 'x';
			o[n++] = hex[c >> 4];
			o[n++] = hex[c & 15];
		}
	}
	o[n] = '\0';
	return o;
}

/* A %p: the record's 0x hex, as the kernel prints it. */
static void
ptr(FILE *o, const struct event *e, int arg)
{
	fprintf(o, "%016" PRIx64, event_u64(e, arg));
}

static const char *
state(const char *s, char *buf, size_t size)
{
	size_t n = 0;

	/* Several letters are joined by '|', as __print_flags does. */
	for (; *s != '\0' && n + 2 < size; s++) {
		if (n > 0 && *s != '+')
			buf[n++] = '|';
		buf[n++] = *s;
	}
	buf[n] = '\0';
	return n ? buf : "R";
}

static void
hrtimer_mode(FILE *o, uint64_t m)
{
	fprintf(o, "%s%s%s%s", m & 1 ? "REL" : "ABS", m & 2 ? "|PINNED" : "",
	    m & 4 ? "|SOFT" : "", m & 8 ? "|HARD" : "");
}

static void
timer_flags(FILE *o, uint64_t f)
{
	const char *sep = "";

	fprintf(o, "cpu=%u idx=%u flags=", (unsigned)(f & 0x3ffff),
	    (unsigned)(f >> 22));
	if (f & 0x40000)
		fprintf(o, "%sM", sep), sep = "|";
	if (f & 0x80000)
		fprintf(o, "%sD", sep), sep = "|";
	if (f & 0x100000)
		fprintf(o, "%sP", sep), sep = "|";
	if (f & 0x200000)
		fprintf(o, "%sI", sep);
}

/* MAJOR:MINOR, as the record has it, to the kernel's MAJOR,MINOR. */
static void
dev(FILE *o, const char *s)
{
	fprintf(o, "%u,%u", (unsigned)strtoul(s, NULL, 10),
	    strchr(s, ':') ? (unsigned)strtoul(strchr(s, ':') + 1, NULL, 10) : 0);
}

/*
 * A file lock event (DEV,INODE,LOCK,FLAGS,START,END,LOCK_PID,OWNER,
 * BLOCKER,RET,FL) as the filelock tracepoints print it.
 */
static void
filelock(FILE *o, const struct event *e)
{
	static const char *const tp[] = { "flock_lock_inode",
	    "posix_lock_inode", "fcntl_setlk", "locks_remove_posix" };
	static const char *const types[][2] = { { "read", "F_RDLCK" },
	    { "write", "F_WRLCK" }, { "unlock", "F_UNLCK" } };
	const char *dev = event_str(e, 0), *fl = event_str(e, 3), *p;
	const char *type = event_str(e, 2);
	char tok[32];
	size_t i, n;

	fprintf(o, "%s: fl=", tp[e->type - E_FLOCK_LOCK]);
	ptr(o, e, 10);
	fprintf(o, " dev=0x%x:0x%x ino=0x%" PRIx64 " fl_blocker=",
	    (unsigned)strtoul(dev, NULL, 10), strchr(dev, ':') ?
	    (unsigned)strtoul(strchr(dev, ':') + 1, NULL, 10) : 0,
	    event_u64(e, 1));
	ptr(o, e, 8);
	fputs(" fl_owner=", o);
	ptr(o, e, 7);
	fprintf(o, " fl_pid=%" PRIu64 " fl_flags=", event_u64(e, 6));
	/* "FLOCK|SLEEP" as __print_flags names them: FL_FLOCK|FL_SLEEP. */
	for (p = fl; *p != '\0'; p += n + (p[n] == '|')) {
		n = strcspn(p, "|");
		snprintf(tok, sizeof(tok), "%.*s", (int)n, p);
		fprintf(o, "%sFL_%s%s", p == fl ? "" : "|", esc(tok, WORD),
		    strcmp(tok, "OFD") == 0 ? "LCK" : "");
	}
	fputs(" fl_type=", o);
	for (i = 0; i < 3 && strcmp(type, types[i][0]) != 0; i++)
		;
	fputs(i < 3 ? types[i][1] : esc(type, WORD), o);
	fprintf(o, " fl_start=%" PRId64 " fl_end=%" PRId64 " ret=%" PRId64,
	    event_i64(e, 4), event_i64(e, 5), event_i64(e, 9));
}

/*
 * A type the cases below do not print as its kernel does: FIELD=VALUE for
 * each field of its columns in lib/events.def, which argus-import reads
 * back by the same names.  0 if a column is not a field's value as it is.
 */
static int
plain(FILE *o, const struct event *e)
{
	const struct edef *d = &edefs[e->type];
	const struct ecol *c;
	int i, j;

	if (!edef_plain(e->type))
		return 0;
	for (i = 0; i < E_MAXCOLS && (c = &d->col[i])->field != NULL; i++)
		switch (c->kind) {
		case EK_U: case EK_UH: case EK_I: case EK_X: case EK_S:
		case EK_TEXT: case EK_PID: case EK_USE:
			break;
		default:
			return 0;
		}
	fprintf(o, "%s:", d->tp);
	for (i = 0; i < E_MAXCOLS && (c = &d->col[i])->field != NULL; i++) {
		/* TPID is the process, not the field; a field is said once. */
		if (c->kind == EK_PID || c->kind == EK_USE)
			continue;
		for (j = 0; j < i && (d->col[j].kind == EK_PID ||
		    strcmp(d->col[j].field, c->field) != 0); j++)
			;
		if (j < i)
			continue;
		if (c->kind == EK_UH)
			fprintf(o, " %s=0x%" PRIx64, c->field, event_u64(e, i));
		else
			fprintf(o, " %s=%s", c->field, esc(event_str(e, i), V));
	}
	return 1;
}

/* The tracepoint's name and its body in the kernel's print format. */
static void
body(FILE *o, const struct event *e)
{
	static const char *const sys6[] = { "(%" PRIx64, ", %" PRIx64 };
	char st[32];
	int i, n;

	switch (e->type) {
	case E_SWITCH:
		fprintf(o, "sched_switch: prev_comm=%s prev_pid=%u prev_prio=120 "
		    "prev_state=%s ==> next_comm=%s next_pid=%" PRIu64
		    " next_prio=120", thread_comm(e->tid) ?
		    esc(thread_comm(e->tid), V) : "<...>", e->tid,
		    esc(state(event_str(e, 0), st, sizeof(st)), WORD),
		    esc(event_str(e, 3), V), event_u64(e, 2));
		break;
	case E_WAKING:
	case E_WAKEUP_NEW:
		fprintf(o, "%s: comm=%s pid=%" PRIu64 " prio=120 target_cpu=%03"
		    PRId64, e->type == E_WAKING ? "sched_waking" :
		    "sched_wakeup_new", esc(event_str(e, 3), V), event_u64(e, 1),
		    event_i64(e, 2));
		break;
	case E_FORK:
		fprintf(o, "task_newtask: pid=%" PRIu64 " comm=%s clone_flags=%"
		    PRIx64 " oom_score_adj=0", event_u64(e, 1),
		    esc(event_str(e, 3), V),
		    event_u64(e, 2));
		break;
	case E_EXEC:
		fprintf(o, "sched_process_exec: filename=%s pid=%u old_pid=%s",
		    esc(event_str(e, 0), V), e->tid, esc(event_str(e, 1), V));
		break;
	case E_EXIT:
		fprintf(o, "sched_process_exit: comm=%s pid=%u prio=120 "
		    "group_dead=%s", esc(event_str(e, 0), V), e->tid,
		    event_u64(e, 1) ? "true" : "false");
		break;
	case E_COMM:
		fprintf(o, "task_rename: pid=%" PRIu64 " oldcomm=%s newcomm=%s "
		    "oom_score_adj=0", event_u64(e, 1), esc(event_str(e, 2), V),
		    esc(event_str(e, 3), V));
		break;
	case E_SYS_ENTER:
		/* The kernel prints all six registers; the rest were not kept. */
		fprintf(o, "sys_enter: NR %" PRId64 " ", event_i64(e, 0));
		n = event_nargs(e) - 2;
		for (i = 0; i < 6; i++)
			fprintf(o, sys6[i > 0], i < n ? event_u64(e, 2 + i) : 0);
		fputc(')', o);
		break;
	case E_SYS_EXIT:
		fprintf(o, "sys_exit: NR %" PRId64 " = %" PRId64,
		    event_i64(e, 0), event_i64(e, 2));
		break;
	case E_IRQ_ENTRY:
		fprintf(o, "irq_handler_entry: irq=%" PRId64 " name=%s",
		    event_i64(e, 0), esc(event_str(e, 1), V));
		break;
	case E_IRQ_EXIT:
		fprintf(o, "irq_handler_exit: irq=%" PRId64 " ret=%s",
		    event_i64(e, 0), event_i64(e, 1) ? "handled" : "unhandled");
		break;
	case E_SOFTIRQ_ENTRY:
	case E_SOFTIRQ_EXIT:
		fprintf(o, "%s: vec=%" PRIu64 " [action=%s]",
		    e->type == E_SOFTIRQ_ENTRY ? "softirq_entry" : "softirq_exit",
		    event_u64(e, 0), esc(event_str(e, 1), WORD));
		break;
	case E_HRT_START:
		fputs("hrtimer_start: hrtimer=", o);
		ptr(o, e, 0);
		fprintf(o, " function=%s expires=%" PRIu64 " softexpires=%"
		    PRIu64 " mode=", esc(event_func(e), V), (uint64_t)event_i64(e, 2),
		    (uint64_t)event_i64(e, 3));
		hrtimer_mode(o, event_u64(e, 4));
		fputs(" was_armed=0", o);
		break;
	case E_HRT_EXPIRE_ENTRY:
	case E_TIMER_EXPIRE_ENTRY:
		fputs(e->type == E_HRT_EXPIRE_ENTRY ?
		    "hrtimer_expire_entry: hrtimer=" : "timer_expire_entry: timer=",
		    o);
		ptr(o, e, 0);
		fprintf(o, " function=%s now=%" PRIu64, esc(event_func(e), V),
		    (uint64_t)event_i64(e, 2));
		if (e->type == E_TIMER_EXPIRE_ENTRY)
			fprintf(o, " baseclk=%" PRIu64, (uint64_t)event_i64(e, 2));
		break;
	case E_HRT_EXPIRE_EXIT:
		fputs("hrtimer_expire_exit: hrtimer=", o);
		ptr(o, e, 0);
		break;
	case E_HRT_CANCEL:
		fputs("hrtimer_cancel: hrtimer=", o);
		ptr(o, e, 0);
		break;
	case E_TIMER_EXPIRE_EXIT:
		fputs("timer_expire_exit: timer=", o);
		ptr(o, e, 0);
		break;
	case E_TIMER_CANCEL:
		fputs("timer_cancel: timer=", o);
		ptr(o, e, 0);
		break;
	case E_TIMER_START:
		fputs("timer_start: timer=", o);
		ptr(o, e, 0);
		fprintf(o, " function=%s expires=%" PRIu64 " [timeout=%" PRId64
		    "] bucket_expiry=%" PRIu64 " ", esc(event_func(e), V),
		    event_u64(e, 2), (int64_t)(event_u64(e, 2) - event_u64(e, 3)),
		    event_u64(e, 2));
		timer_flags(o, event_u64(e, 4));
		break;
	case E_WQ_QUEUE:
		fputs("workqueue_queue_work: work struct=", o);
		ptr(o, e, 0);
		fprintf(o, " function=%s workqueue=%s req_cpu=%" PRId64 " cpu=%"
		    PRId64, esc(event_func(e), V), esc(event_str(e, 2), V),
		    event_i64(e, 3),
		    event_i64(e, 4));
		break;
	case E_WQ_START:
	case E_WQ_END:
		fprintf(o, "workqueue_execute_%s: work struct ",
		    e->type == E_WQ_START ? "start" : "end");
		ptr(o, e, 0);
		fprintf(o, ": function %s", esc(event_func(e), TEXT));
		break;
	case E_BLOCK_ISSUE:
		fputs("block_rq_issue: ", o);
		dev(o, event_str(e, 0));
		fprintf(o, " %s %" PRIu64 " () %" PRIu64 " + %" PRIu64
		    " none,0,0 [%s]", esc(event_str(e, 4), WORD), event_u64(e, 3),
		    event_u64(e, 1), event_u64(e, 2),
		    thread_comm(e->tid) ? esc(thread_comm(e->tid), V) : "");
		break;
	case E_BLOCK_COMPLETE:
		fputs("block_rq_complete: ", o);
		dev(o, event_str(e, 0));
		fprintf(o, " %s () %" PRIu64 " + %" PRIu64 " none,0,0 [%" PRId64
		    "]", esc(event_str(e, 4), WORD), event_u64(e, 1),
		    event_u64(e, 2),
		    event_i64(e, 3));
		break;
	case E_SIGNAL_GENERATE:
		fprintf(o, "signal_generate: sig=%" PRId64 " errno=0 code=%" PRId64
		    " comm=%s pid=%" PRIu64 " grp=%" PRId64 " res=%" PRId64,
		    event_i64(e, 0), event_i64(e, 4), esc(event_str(e, 3), V),
		    event_u64(e, 2), event_i64(e, 5), event_i64(e, 6));
		break;
	case E_SIGNAL_DELIVER:
		fprintf(o, "signal_deliver: sig=%" PRId64 " errno=0 code=%" PRId64
		    " sa_handler=%" PRIx64 " sa_flags=%" PRIx64, event_i64(e, 0),
		    event_i64(e, 1), event_u64(e, 2), event_u64(e, 3));
		break;
	case E_MARKER:
		fprintf(o, "tracing_mark_write: %s", esc(event_str(e, 0), TEXT));
		break;
	case E_FLOCK_LOCK:
	case E_POSIX_LOCK:
	case E_FCNTL_SETLK:
	case E_POSIX_REMOVE:
		filelock(o, e);
		break;
	default:
		if (plain(o, e))
			break;
		/* A user probe, as the kernel prints a uprobe event. */
		fprintf(o, "%s: (0x0)", esc(record_str(e->rec, EC_TYPE), WORD));
		n = event_nargs(e);
		for (i = 0; i < n; i++)
			fprintf(o, " arg%d=%s", i + 1, esc(event_str(e, i), V));
		break;
	}
}

static void
record(FILE *o, const struct record *r)
{
	struct event e;
	const char *comm;
	char ctx;
	int pid;

	if (!header_done)
		header(o);
	if (r->comment)
		return;
	if (strcmp(r->f[0], "lost") == 0) {
		fprintf(o, "CPU:%s [LOST %s EVENTS]\n", esc(record_str(r, 4),
		    WORD), esc(record_str(r, 5), WORD));
		return;
	}
	if (!event_parse(r, &e)) {
		thread_learn(r);
		not_carried(r->f[0]);
		return;
	}
	comm = e.tid == 0 ? "<idle>" : thread_comm(e.tid);
	pid = *record_str(r, COL_PID) != '\0' ? (int)e.pid : -1;
	fprintf(o, "%16s-%-7u ", comm == NULL ? "<...>" : e.tid == 0 ? comm :
	    esc(comm, TASK), e.tid);
	if (pid >= 0)
		fprintf(o, "(%7d) ", pid);
	else
		fputs("(-------) ", o);
	ctx = e.ctx == 'h' ? 'h' : e.ctx == 's' ? 's' : e.ctx == 'n' ? 'z' :
	    '.';
	fprintf(o, "[%03u] ..%c. %5" PRIu64 ".%09" PRIu64 ": ", e.cpu, ctx,
	    e.time / 1000000000, e.time % 1000000000);
	body(o, &e);
	fputc('\n', o);
	/*
	 * Learnt after the line: in a stream that names a thread once, an
	 * exec or a rename shows under the name the thread had; the task
	 * record a capture writes at a rename comes first and names it.
	 */
	thread_learn(r);
	events++;
}

static void
end(FILE *o)
{
	char list[1024];

	if (!header_done)
		header(o);
	not_carried_list(list, sizeof(list));
	fprintf(o, "# argus-export: %lu events", events);
	if (*list != '\0')
		fprintf(o, "; records ftrace text cannot carry: %s",
		    esc(list, TEXT));
	fputc('\n', o);
}

const struct exporter export_ftrace = {
	"ftrace",
	"kernel trace text: Perfetto UI, Trace Compass",
	record,
	end,
};
