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

#include <uthash.h>

#include "export.h"
#include "ftwords.h"
#include "ksym.h"
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
	size_t i;

	fprintf(o, "cpu=%u idx=%u flags=", (unsigned)(f & 0x3ffff),
	    (unsigned)(f >> 22));
	for (i = 0; i < nftwords; i++)
		if (strcmp(ftwords[i].conv, "timerflags") == 0 &&
		    (f & ftwords[i].value)) {
			fprintf(o, "%s%s", sep, ftwords[i].text);
			sep = "|";
		}
}

/*
 * MAJOR:MINOR, as the record has it, to the kernel's MAJOR,MINOR (the
 * block events') or 0xMAJOR:0xMINOR (the file locks').
 */
static void
dev(FILE *o, const char *s, const char *fmt)
{
	fprintf(o, fmt, (unsigned)strtoul(s, NULL, 10),
	    strchr(s, ':') ? (unsigned)strtoul(strchr(s, ':') + 1, NULL, 10) : 0);
}

/*
 * "FLOCK|SLEEP" as __print_flags names them, by lib/ftrace.def:
 * FL_FLOCK|FL_SLEEP; a word it has not, FL_ and the word.
 */
static void
lock_flags(FILE *o, const char *fl)
{
	const struct ftword *w;
	const char *p;
	char tok[32];
	size_t n;

	for (p = fl; *p != '\0'; p += n + (p[n] == '|')) {
		n = strcspn(p, "|");
		snprintf(tok, sizeof(tok), "%.*s", (int)n, p);
		fputs(p == fl ? "" : "|", o);
		if ((w = ftword_by_record("lockflags", tok)) != NULL)
			fputs(w->text, o);
		else
			fprintf(o, "FL_%s", esc(tok, WORD));
	}
}

static void
lock_type(FILE *o, const char *type)
{
	const struct ftword *w = ftword_by_record("locktype", type);

	fputs(w != NULL ? w->text : esc(type, WORD), o);
}

/* The six registers of a sys_enter whose arguments start at column arg. */
static void
sys6(FILE *o, const struct event *e, int arg)
{
	static const char *const fmt[] = { "(%" PRIx64, ", %" PRIx64 };
	int i, n = event_nargs(e) - arg;

	for (i = 0; i < 6; i++)
		fprintf(o, fmt[i > 0], i < n ? event_u64(e, arg + i) : 0);
	fputc(')', o);
}

/*
 * The kernel's sys_enter and sys_exit print the call's number only, and
 * sys_enter six registers: the reader names the number by its own
 * machine's table.  A stream's names may be another's (a macOS trace's
 * BSD calls and Mach traps, whose numbers are negative), and its calls
 * keep their own arguments: each number's name and count are said at the
 * text's end, "# syscall NR NARGS NAME" (NARGS "-" where the stream's
 * calls of the number differ), for argus-import to read back.
 */
struct sysc {
	int64_t		 nr;
	char		*name;
	int		 nargs;		/* -1: no sys_enter; -2: they differ */
	int		 same_name;
	UT_hash_handle	 hh;
};

static struct sysc	*sysc;

static void
syscall_learn(const struct event *e)
{
	static int nr_col = -1, name_col, arg_col;
	struct sysc *c;
	int64_t nr;
	int nargs = -1;

	if (nr_col < 0) {
		nr_col = edef_col(E_SYS_ENTER, "NR");
		name_col = edef_col(E_SYS_ENTER, "NAME");
		arg_col = edef_col(E_SYS_ENTER, "ARG");
		if (nr_col < 0 || name_col < 0 || arg_col < 0 ||
		    edef_col(E_SYS_EXIT, "NR") != nr_col ||
		    edef_col(E_SYS_EXIT, "NAME") != name_col)
			diex(EX_SOFTWARE, "lib/events.def: sys_enter and "
			    "sys_exit without NR, NAME, ARG");
	}
	nr = event_i64(e, nr_col);
	if (e->type == E_SYS_ENTER)
		nargs = event_nargs(e) > arg_col ? event_nargs(e) - arg_col : 0;
	HASH_FIND(hh, sysc, &nr, sizeof(nr), c);
	if (c == NULL) {
		c = xcalloc(1, sizeof(*c));
		c->nr = nr;
		c->name = xstrdup(event_str(e, name_col));
		c->nargs = nargs;
		c->same_name = 1;
		HASH_ADD(hh, sysc, nr, sizeof(c->nr), c);
		return;
	}
	if (strcmp(c->name, event_str(e, name_col)) != 0)
		c->same_name = 0;
	if (nargs >= 0 && c->nargs != nargs)
		c->nargs = c->nargs == -1 ? nargs : -2;
}

static int
by_nr(const struct sysc *a, const struct sysc *b)
{
	return a->nr < b->nr ? -1 : a->nr > b->nr;
}

/* A number whose calls the stream names differently is left unnamed. */
static void
syscalls_said(FILE *o)
{
	struct sysc *c, *t;

	HASH_SORT(sysc, by_nr);
	HASH_ITER(hh, sysc, c, t) {
		if (c->same_name) {
			fprintf(o, "# syscall %" PRId64 " ", c->nr);
			if (c->nargs >= 0)
				fprintf(o, "%d", c->nargs);
			else
				fputc('-', o);
			fprintf(o, " %s\n", esc(c->name, WORD));
		}
		HASH_DEL(sysc, c);
		free(c->name);
		free(c);
	}
}

/* lib/ftrace.def, each FORMAT read once into the steps that print it. */
enum conv {
	C_TEXT, C_WORD, C_LINE, C_D, C_03D, C_U, C_X, C_P, C_PS, C_PST,
	C_BOOL, C_HANDLED, C_STATE, C_HRMODE, C_TIMERFLAGS, C_DEV, C_LOCKDEV,
	C_LOCKFLAGS, C_LOCKTYPE, C_SYS6, C_OPT, C_PRIO, C_DIFF
};

static const char *const convs[] = {
	[C_TEXT] = "", [C_WORD] = "w", [C_LINE] = "t", [C_D] = "d",
	[C_03D] = "03d", [C_U] = "u", [C_X] = "x", [C_P] = "p", [C_PS] = "ps",
	[C_PST] = "pst", [C_BOOL] = "bool", [C_HANDLED] = "handled",
	[C_STATE] = "state", [C_HRMODE] = "hrmode",
	[C_TIMERFLAGS] = "timerflags", [C_DEV] = "dev", [C_LOCKDEV] = "lockdev",
	[C_LOCKFLAGS] = "lockflags", [C_LOCKTYPE] = "locktype",
	[C_SYS6] = "sys6", [C_OPT] = "opt", [C_PRIO] = "prio",
};

#define NICE0_PRIO	120	/* the kernel's priority of a thread at nice 0 */

#define AT_TID		(-1)	/* @tid: the line's own thread */
#define AT_COMM		(-2)	/* @comm: its name */

struct step {
	const char	*lit;		/* text before the value */
	int		 litlen;
	int		 col, col2;	/* col2: of C_DIFF */
	enum conv	 conv;
	int		 last;		/* no value: the text's end */
};

static const struct ftrace_fmt {
	enum etype	 type;
	const char	*name, *format;
} ftrace_fmts[] = {
#define FTRACE(id, name, format)	{ id, name, format },
#include "ftrace.def"
#undef FTRACE
};

static struct step	*steps[E_NTYPES];
static const char	*step_names[E_NTYPES];

static int
fmt_col(enum etype t, const char *name, size_t len)
{
	char buf[32];
	int c;

	snprintf(buf, sizeof(buf), "%.*s", (int)len, name);
	if (strcmp(buf, "@tid") == 0)
		return AT_TID;
	if (strcmp(buf, "@comm") == 0)
		return AT_COMM;
	if ((c = edef_col(t, buf)) < 0 || edefs[t].col[c].name == NULL)
		diex(EX_SOFTWARE, "lib/ftrace.def: %s: no column %s",
		    etype_name(t), buf);
	return c;
}

/* One FORMAT into its steps; a mistake in the table stops the program. */
static void
compile(const struct ftrace_fmt *f)
{
	const char *p = f->format, *b, *end, *pct, *minus;
	struct step *s;
	size_t n = 0, cap = 8, i;

	s = xcalloc(cap, sizeof(*s));
	for (;;) {
		if (n + 1 >= cap)
			s = xrealloc(s, (cap *= 2) * sizeof(*s));
		memset(&s[n], 0, sizeof(s[n]));
		s[n].lit = p;
		if ((b = strchr(p, '{')) == NULL) {
			s[n].litlen = strlen(p);
			s[n++].last = 1;
			break;
		}
		s[n].litlen = b - p;
		if ((end = strchr(b, '}')) == NULL)
			diex(EX_SOFTWARE, "lib/ftrace.def: %s: '{' without '}'",
			    etype_name(f->type));
		if ((pct = memchr(b, '%', end - b)) == NULL)
			pct = end;
		else {
			for (i = 0; i < ARRAY_LEN(convs); i++)
				if (convs[i] != NULL && *convs[i] != '\0' &&
				    strlen(convs[i]) == (size_t)(end - pct - 1) &&
				    strncmp(convs[i], pct + 1, end - pct - 1) == 0)
					break;
			if (i == ARRAY_LEN(convs))
				diex(EX_SOFTWARE, "lib/ftrace.def: %s: no "
				    "conversion %.*s", etype_name(f->type),
				    (int)(end - pct - 1), pct + 1);
			s[n].conv = i;
		}
		if ((minus = memchr(b, '-', pct - b)) != NULL) {
			if (s[n].conv != C_D)
				diex(EX_SOFTWARE, "lib/ftrace.def: %s: a "
				    "difference is %%d", etype_name(f->type));
			s[n].conv = C_DIFF;
			s[n].col2 = fmt_col(f->type, minus + 1, pct - minus - 1);
		} else
			minus = pct;
		s[n].col = fmt_col(f->type, b + 1, minus - b - 1);
		/* @tid as it is, @comm maybe opt, opt only @comm. */
		if ((s[n].col == AT_TID && s[n].conv != C_TEXT) ||
		    (s[n].col == AT_COMM && s[n].conv != C_TEXT &&
		    s[n].conv != C_OPT) ||
		    (s[n].col != AT_COMM && s[n].conv == C_OPT))
			diex(EX_SOFTWARE, "lib/ftrace.def: %s: %.*s",
			    etype_name(f->type), (int)(end - b + 1), b);
		n++;
		p = end + 1;
	}
	steps[f->type] = s;
	step_names[f->type] = f->name != NULL ? f->name : edefs[f->type].tp;
}

static void
compile_all(void)
{
	size_t i;

	for (i = 0; i < ARRAY_LEN(ftrace_fmts); i++)
		compile(&ftrace_fmts[i]);
}

/* The line's own thread's name; opt: nothing if it has none. */
static const char *
own_comm(const struct event *e, int opt)
{
	const char *comm = thread_comm(e->tid);

	return comm != NULL ? esc(comm, V) : opt ? "" : "<...>";
}

static void
value(FILE *o, const struct event *e, const struct step *s)
{
	char st[32];
	int c = s->col;

	if (c == AT_TID) {
		fprintf(o, "%u", e->tid);
		return;
	}
	if (c == AT_COMM) {
		fputs(own_comm(e, s->conv == C_OPT), o);
		return;
	}
	/*
	 * A number the trace it came from did not know (a kdebug waking's
	 * CPU) is left empty, as the column is.
	 */
	if (*event_str(e, c) == '\0' && (s->conv == C_D || s->conv == C_03D ||
	    s->conv == C_U || s->conv == C_X || s->conv == C_P ||
	    s->conv == C_BOOL || s->conv == C_HANDLED || s->conv == C_HRMODE ||
	    s->conv == C_TIMERFLAGS))
		return;
	switch (s->conv) {
	case C_TEXT:
		fputs(esc(event_str(e, c), V), o);
		break;
	case C_WORD:
		fputs(esc(event_str(e, c), WORD), o);
		break;
	case C_LINE:
		fputs(esc(event_str(e, c), TEXT), o);
		break;
	case C_D:
		fprintf(o, "%" PRId64, event_i64(e, c));
		break;
	case C_03D:
		fprintf(o, "%03" PRId64, event_i64(e, c));
		break;
	case C_U:
		fprintf(o, "%" PRIu64, event_u64(e, c));
		break;
	case C_X:
		fprintf(o, "%" PRIx64, event_u64(e, c));
		break;
	case C_P:
		ptr(o, e, c);
		break;
	case C_PS:
		fputs(esc(ksym_name(event_str(e, c)), V), o);
		break;
	case C_PST:
		fputs(esc(ksym_name(event_str(e, c)), TEXT), o);
		break;
	case C_PRIO:
		fprintf(o, "%" PRId64, *event_str(e, c) != '\0' ?
		    event_i64(e, c) : NICE0_PRIO);
		break;
	case C_BOOL:
		fputs(event_u64(e, c) ? "true" : "false", o);
		break;
	case C_HANDLED:
		fputs(event_i64(e, c) ? "handled" : "unhandled", o);
		break;
	case C_STATE:
		fputs(esc(state(event_str(e, c), st, sizeof(st)), WORD), o);
		break;
	case C_HRMODE:
		hrtimer_mode(o, event_u64(e, c));
		break;
	case C_TIMERFLAGS:
		timer_flags(o, event_u64(e, c));
		break;
	case C_DEV:
		dev(o, event_str(e, c), "%u,%u");
		break;
	case C_LOCKDEV:
		dev(o, event_str(e, c), "0x%x:0x%x");
		break;
	case C_LOCKFLAGS:
		lock_flags(o, event_str(e, c));
		break;
	case C_LOCKTYPE:
		lock_type(o, event_str(e, c));
		break;
	case C_SYS6:
		sys6(o, e, c);
		break;
	case C_DIFF:
		fprintf(o, "%" PRId64, (int64_t)(event_u64(e, c) -
		    event_u64(e, s->col2)));
		break;
	case C_OPT:
		break;
	}
}

/*
 * A type lib/ftrace.def has no format for: FIELD=VALUE for each field of
 * its columns in lib/events.def, which argus-import reads back by the
 * same names.  0 if a column is not a field's value as it is.
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
	const struct step *s;
	int i, n;

	if (e->type != E_OTHER && (s = steps[e->type]) != NULL) {
		fprintf(o, "%s: ", step_names[e->type]);
		for (;; s++) {
			fwrite(s->lit, 1, s->litlen, o);
			if (s->last)
				break;
			value(o, e, s);
		}
		return;
	}
	if (plain(o, e))
		return;
	/* A user probe, as the kernel prints a uprobe event. */
	fprintf(o, "%s: (0x0)", esc(record_str(e->rec, EC_TYPE), WORD));
	n = event_nargs(e);
	for (i = 0; i < n; i++)
		fprintf(o, " arg%d=%s", i + 1, esc(event_str(e, i), V));
}

static void
record(FILE *o, const struct record *r)
{
	struct event e;
	const char *comm;
	char ctx;
	int pid;

	if (!header_done) {
		compile_all();
		header(o);
	}
	if (r->comment)
		return;
	if (strcmp(r->f[COL_KIND], KIND_LOST) == 0) {
		/* An unknown count as the kernel prints one. */
		if (*record_str(r, LOST_COUNT) == '\0')
			fprintf(o, "CPU:%s [LOST EVENTS]\n", esc(record_str(r,
			    LOST_CPU), WORD));
		else
			fprintf(o, "CPU:%s [LOST %s EVENTS]\n", esc(record_str(r,
			    LOST_CPU), WORD), esc(record_str(r, LOST_COUNT), WORD));
		return;
	}
	if (!event_parse(r, &e)) {
		thread_learn(r);
		not_carried(r->f[COL_KIND]);
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
	if (e.type == E_SYS_ENTER || e.type == E_SYS_EXIT)
		syscall_learn(&e);
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
	syscalls_said(o);
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
