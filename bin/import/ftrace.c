/*
 * ftrace text: what `cat trace` and `cat trace_pipe` print, with or without
 * the TGID (options/record-tgid) and irq-info columns, `trace-cmd report`
 * output, and Android systrace HTML (the same text inside a <script>).
 * Each line is parsed back from the kernel's own print format of its
 * tracepoint into the fields of its format file; tp.c makes the records.
 *
 * Read twice: a thread named by another's event (a wake-up's target)
 * shows its process only on lines of its own, which may come later.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <uthash.h>

#include "event.h"
#include "ftwords.h"
#include "util.h"
#include "import.h"
#include "input.h"
#include "syscalls.h"
#include "tp.h"

#define MAXFIELDS	24

struct line {
	uint64_t	 ts;
	unsigned long	 no;		/* line number in the file */
	const char	*ev, *body;
	uint32_t	 evlen, bodylen;
	int		 tid, cpu;
	char		 ctx;
	uint64_t	 lost;		/* a "[LOST n EVENTS]" line: n */
};

struct fld {
	const char	*k, *v;
	size_t		 kl, vl;
	int		 isnum;
	int64_t		 n;
};

struct body {
	struct fld	 f[MAXFIELDS];
	int		 n;
	const char	*file;
	unsigned long	 no;
};

/* What the text lacks, found while reading it: said in meta records. */
static struct {
	int		 tgid_col, irq_col;
	unsigned long	 no_tgid, forgotten, named_functions, syscalls;
	unsigned long	 sys_unnamed, sys_six;	/* of syscalls, by the text's table */
	int		 digits;	/* of the fraction of a second */
	int		 trace_cmd, systrace;
	int		 escaped;	/* argus-export's text: names escaped */
} seen;

static int
hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/*
 * argus-export writes names escaped as argus-stream(5) NAMES SHOWN says
 * (\\, \n, \e, \xHH, ...), so that no name splits a line or forges a
 * field.  Its text says so in its header; the kernel's never escapes, and
 * is read as it is.  Decodes n bytes of s into d (room for n); the length.
 */
static size_t
unescape(char *d, const char *s, size_t n)
{
	static const char named[] = "a\ab\bt\tn\nv\vf\fr\re\033\\\\";
	const char *p;
	size_t i, o = 0;
	int hi, lo;

	for (i = 0; i < n; i++) {
		if (s[i] != '\\' || i + 1 >= n) {
			d[o++] = s[i];
			continue;
		}
		if (s[i + 1] == 'x' && i + 3 < n &&
		    (hi = hexval(s[i + 2])) >= 0 && (lo = hexval(s[i + 3])) >= 0) {
			d[o++] = hi << 4 | lo;
			i += 3;
		} else if (s[i + 1] != '\0' && (p = memchr(named, s[i + 1],
		    sizeof(named) - 1)) != NULL && (p - named) % 2 == 0) {
			d[o++] = p[1];
			i++;
		} else
			d[o++] = s[i];
	}
	return o;
}

static const char *
skip_sp(const char *p, const char *end)
{
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	return p;
}

/*
 * "TASK-TID (TGID) [CPU] FLAGS SECS.FRAC: EVENT: BODY", where TASK may hold
 * any character and (TGID) and FLAGS may be missing.  The CPU in brackets
 * anchors the parse.  0 if the line is not such a line.
 */
static void __attribute__((noreturn))
cpu_range(const char *name, unsigned long no)
{
	diex(EX_DATAERR, "%s:%lu: CPU out of range: no kernel has more than "
	    "%d", name, no, MAX_CPUS);
}

/* A CPU's digits; MAX_CPUS for any past the readers' bound (lib/event.c). */
static int
cpu_number(const char *s)
{
	unsigned long long v = strtoull(s, NULL, 10);

	return v < MAX_CPUS ? (int)v : MAX_CPUS;
}

static int
parse_line(const char *s, const char *end, struct line *l, const char **task,
    size_t *tasklen, int *tgid)
{
	const char *p, *q, *b, *t;
	uint64_t sec = 0, frac = 0;
	int digits = 0;

	memset(l, 0, sizeof(*l));
	*tgid = -1;
	for (b = s; (b = memchr(b, '[', end - b)) != NULL; b++) {
		for (p = b + 1; p < end && isdigit((unsigned char)*p); p++)
			;
		if (p > b + 1 && p < end && *p == ']' && b > s && b[-1] == ' ')
			break;
	}
	if (b == NULL)
		return 0;
	l->cpu = cpu_number(b + 1);
	q = p + 1;				/* after ']' */
	p = b;
	while (p > s && p[-1] == ' ')
		p--;
	if (p > s && p[-1] == ')') {
		const char *open = p - 1;

		while (open > s && *open != '(')
			open--;
		if (open == s)
			return 0;
		t = skip_sp(open + 1, p);
		if (isdigit((unsigned char)*t)) {
			*tgid = atoi(t);
			seen.tgid_col = 1;
		} else if (*t == '-')
			seen.tgid_col = 1;	/* "(-------)": not recorded */
		else
			return 0;
		p = open;
		while (p > s && p[-1] == ' ')
			p--;
	}
	t = p;
	while (t > s && isdigit((unsigned char)t[-1]))
		t--;
	if (t == p || t == s || t[-1] != '-')
		return 0;
	l->tid = atoi(t);
	*task = skip_sp(s, t);
	*tasklen = t - 1 - *task;

	/* Flags (irq-info), then the time stamp. */
	q = skip_sp(q, end);
	for (p = q; p < end && *p != ' '; p++)
		;
	l->ctx = '-';
	if (p > q && p[-1] != ':') {
		seen.irq_col = 1;
		if (p - q >= 3) {
			switch (q[2]) {
			case 'z': case 'Z': l->ctx = 'n'; break;
			case 'h': case 'H': l->ctx = 'h'; break;
			case 's': l->ctx = 's'; break;
			}
		}
		q = skip_sp(p, end);
	}
	for (p = q; p < end && isdigit((unsigned char)*p); p++)
		sec = sec * 10 + (*p - '0');
	if (p == q)
		return 0;
	if (p < end && *p == '.')
		for (p++; p < end && isdigit((unsigned char)*p); p++)
			if (digits++ < 9)
				frac = frac * 10 + (*p - '0');
	if (p >= end || *p != ':')
		return 0;
	if (digits > seen.digits)
		seen.digits = digits;
	while (digits < 9 && digits > 0) {
		frac *= 10;
		digits++;
	}
	l->ts = sec * 1000000000ULL + frac;
	p = skip_sp(p + 1, end);
	for (q = p; q < end && *q != ':' && *q != ' '; q++)
		;
	if (q == p || q >= end || *q != ':')
		return 0;
	l->ev = p;
	l->evlen = q - p;
	q++;
	if (q < end && *q == ' ')
		q++;
	/* trace-cmd pads the body to line up. */
	if (seen.trace_cmd)
		q = skip_sp(q, end);
	l->body = q;
	l->bodylen = end - q;
	return 1;
}

/*
 * "CPU:1 [LOST 123 EVENTS]": the kernel's note of an overrun; "CPU:1
 * [LOST EVENTS]" where it does not know how many.
 */
static int
parse_lost(const char *s, const char *end, struct line *l)
{
	const char *p;

	if (end - s < 6 || strncmp(s, "CPU:", 4) != 0 ||
	    (p = memmem(s, end - s, "[LOST ", 6)) == NULL)
		return 0;
	memset(l, 0, sizeof(*l));
	l->cpu = cpu_number(s + 4);
	l->lost = strncmp(p + 6, "EVENTS]", 7) == 0 ? TP_LOST_UNKNOWN :
	    strtoull(p + 6, NULL, 10);
	return l->lost > 0;
}

/* Lines of preamble that trace-cmd report and the kernel print. */
static int
preamble(const char *s, const char *end)
{
	static const char *const pre[] = { "cpus=", "version = ", "#####" };
	size_t i, n = end - s;

	if (n == 0 || *s == '#')
		return 1;
	for (i = 0; i < ARRAY_LEN(pre); i++)
		if (n >= strlen(pre[i]) && strncmp(s, pre[i], strlen(pre[i])) == 0)
			return 1;
	/* trace-cmd: "CPU 1 is empty", "CPU0 data recorded at offset=..." */
	return n > 3 && strncmp(s, "CPU", 3) == 0 &&
	    (memmem(s, n, " is empty", 9) != NULL ||
	    memmem(s, n, "data recorded", 13) != NULL);
}

/* Bodies. */

static void
add(struct body *b, const char *k, size_t kl, const char *v, size_t vl)
{
	if (b->n == MAXFIELDS)
		return;
	b->f[b->n++] = (struct fld){ k, v, kl, vl, 0, 0 };
}

static void
addn(struct body *b, const char *k, int64_t n)
{
	if (b->n == MAXFIELDS)
		return;
	b->f[b->n++] = (struct fld){ k, NULL, strlen(k), 0, 1, n };
}

static struct fld *
find(const struct body *b, const char *k)
{
	size_t kl = strlen(k);
	int i;

	for (i = 0; i < b->n; i++)
		if (b->f[i].kl == kl && memcmp(b->f[i].k, k, kl) == 0)
			return (struct fld *)&b->f[i];
	return NULL;
}

/* The kernel prints some fields under other names than its format's. */
static void
rename_field(struct body *b, const char *from, const char *to)
{
	struct fld *f = find(b, from);

	if (f != NULL) {
		f->k = to;
		f->kl = strlen(to);
	}
}

/*
 * The fields the kernel prints under another name than its format's
 * ("grp=" for group): read from lib/ftrace.def, the formats argus-export
 * writes, where "KEY={COLUMN}" names a column of lib/events.def whose
 * field is not KEY.  Only a column written as the field is (a number, a
 * pointer, text), and not where the format prints the field under its
 * own name too (timer_start's bucket_expiry is not its expires).
 */
struct rename {
	const char	*tp;
	char		 key[32];
	const char	*field;
};

static const struct {
	enum etype	 type;
	const char	*name, *format;
} ftrace_fmts[] = {
#define FTRACE(id, name, format)	{ id, name, format },
#include "ftrace.def"
#undef FTRACE
};

static struct rename	 renames[64];
static size_t		 nrenames;

/* "KEY=" (or "KEY=0x") right before b in format f: its length, else 0. */
static size_t
key_before(const char *f, const char *b, const char **k)
{
	const char *q = b;

	if (q - f >= 2 && q[-2] == '0' && q[-1] == 'x')
		q -= 2;
	if (q == f || q[-1] != '=')
		return 0;
	for (*k = --q; *k > f && (islower((unsigned char)(*k)[-1]) ||
	    isdigit((unsigned char)(*k)[-1]) || (*k)[-1] == '_'); (*k)--)
		;
	return q - *k;
}

static void
renames_learn(void)
{
	static const char *const asis[] = { "}", "%d}", "%u}", "%x}", "%p}",
	    "%03d}", "%ps}" };
	const struct edef *d;
	const char *f, *b, *k, *e, *conv;
	char col[32], own[40];
	size_t i, j, kl;
	int c;

	for (i = 0; i < ARRAY_LEN(ftrace_fmts); i++) {
		d = &edefs[ftrace_fmts[i].type];
		f = ftrace_fmts[i].format;
		for (b = strchr(f, '{'); b != NULL; b = strchr(b + 1, '{')) {
			if ((kl = key_before(f, b, &k)) == 0 || kl >= 32 ||
			    (e = strchr(b, '}')) == NULL)
				continue;
			conv = b + strcspn(b, "%}");
			snprintf(col, sizeof(col), "%.*s", (int)(conv - b - 1),
			    b + 1);
			for (j = 0; j < ARRAY_LEN(asis) && strncmp(conv, asis[j],
			    strlen(asis[j])) != 0; j++)
				;
			if (j == ARRAY_LEN(asis) ||
			    (c = edef_col(ftrace_fmts[i].type, col)) < 0)
				continue;
			switch (d->col[c].kind) {
			case EK_U: case EK_UH: case EK_I: case EK_X: case EK_S:
				break;
			default:
				continue;
			}
			if (kl == strlen(d->col[c].field) &&
			    strncmp(k, d->col[c].field, kl) == 0)
				continue;	/* its own name */
			snprintf(own, sizeof(own), " %s=", d->col[c].field);
			if (strncmp(f, own + 1, strlen(own + 1)) == 0 ||
			    strstr(f, own) != NULL)
				continue;	/* printed under it too */
			if (nrenames == ARRAY_LEN(renames))
				diex(EX_SOFTWARE, "lib/ftrace.def: more than %zu "
				    "renamed fields", ARRAY_LEN(renames));
			renames[nrenames].tp = ftrace_fmts[i].name != NULL ?
			    ftrace_fmts[i].name : d->tp;
			snprintf(renames[nrenames].key, 32, "%.*s", (int)kl, k);
			renames[nrenames++].field = d->col[c].field;
		}
	}
}

static void
rename_fields(struct body *b, const char *name)
{
	static int learnt;
	size_t i;

	if (!learnt) {
		renames_learn();
		learnt = 1;
	}
	for (i = 0; i < nrenames; i++)
		if (strcmp(renames[i].tp, name) == 0)
			rename_field(b, renames[i].key, renames[i].field);
}

/* A key: [a-z_][a-z0-9_]* right before '=', maybe after a '['. */
static int
key_at(const char *p, const char *end, const char **k, size_t *kl)
{
	const char *q;

	if (p < end && *p == '[')
		p++;
	if (p >= end || !(islower((unsigned char)*p) || *p == '_'))
		return 0;
	for (q = p; q < end && (islower((unsigned char)*q) ||
	    isdigit((unsigned char)*q) || *q == '_'); q++)
		;
	if (q >= end || *q != '=')
		return 0;
	*k = p;
	*kl = q - p;
	return 1;
}

/*
 * "k1=v1 k2=v2 ...".  A value runs to the next " key=" or " ==> ", so a
 * name with spaces in it ("Web Content") stays whole.
 */
static void
keyvals(struct body *b, const char *p, const char *end)
{
	const char *k, *v, *q, *k2;
	size_t kl, kl2;

	int br;

	while ((p = skip_sp(p, end)) < end) {
		br = *p == '[';
		if (!key_at(p, end, &k, &kl)) {
			/* Not a key: skip the word ("==>", "[action"...). */
			while (p < end && *p != ' ')
				p++;
			continue;
		}
		v = k + kl + 1;
		for (q = v; q < end; q++)
			if (*q == ' ' && (key_at(q + 1, end, &k2, &kl2) ||
			    (end - q >= 5 && memcmp(q, " ==> ", 5) == 0)))
				break;
		kl2 = q - v;
		if (br && kl2 > 0 && v[kl2 - 1] == ']')
			kl2--;		/* "[timeout=25]" */
		add(b, k, kl, v, kl2);
		p = q;
	}
}

static uint64_t
num_of(const char *p, const char *end, const char **next, int base)
{
	char buf[32];
	size_t n = 0;
	char *e;
	uint64_t v;

	while (p < end && n < sizeof(buf) - 1 && (isxdigit((unsigned char)*p) ||
	    *p == 'x' || *p == '-'))
		buf[n++] = *p++;
	buf[n] = '\0';
	v = strtoull(buf, &e, base);
	*next = p - (buf + n - e);
	return v;
}

/*
 * argus-export's own names of the system calls, and how many arguments
 * each kept, "# syscall NR NARGS NAME" at the text's end (NARGS "-" where
 * they differ): a macOS trace's calls are not this machine's.
 */
struct sysname {
	long		 nr;
	int		 nargs;		/* -1: not said */
	UT_hash_handle	 hh;
	char		 name[64];
};

static struct sysname	*sysnames;

static void
sysnames_free(void)
{
	HASH_FREE(hh, sysnames);
}

static void
sysname_read(const char *s, const char *end, const char *file,
    unsigned long no)
{
	struct sysname *c;
	char buf[32], *e;
	const char *p = s + 10, *q;
	long nr;
	int nargs = -1;
	size_t n;

	for (q = p; q < end && *q != ' '; q++)
		;
	if (q == p || q - p >= (ptrdiff_t)sizeof(buf) || q >= end)
		goto bad;
	memcpy(buf, p, q - p);
	buf[q - p] = '\0';
	errno = 0;
	nr = strtol(buf, &e, 10);
	if (*e != '\0' || errno != 0)
		goto bad;
	p = q + 1;
	if (p < end && *p == '-')
		q = p + 1;
	else {
		for (q = p, nargs = 0; q < end && isdigit((unsigned char)*q) &&
		    nargs <= 6; q++)
			nargs = nargs * 10 + (*q - '0');
		if (q == p || nargs > 6)
			goto bad;
	}
	if (q >= end || *q != ' ')
		goto bad;
	p = q + 1;
	if ((size_t)(end - p) >= sizeof(c->name))
		goto bad;
	HASH_FIND(hh, sysnames, &nr, sizeof(nr), c);
	if (c == NULL) {
		c = xcalloc(1, sizeof(*c));
		c->nr = nr;
		HASH_ADD(hh, sysnames, nr, sizeof(c->nr), c);
	}
	n = unescape(c->name, p, end - p);
	c->name[n] = '\0';
	c->nargs = nargs;
	return;
bad:
	diex(EX_DATAERR, "%s:%lu: not a system call's number, count and "
	    "name: %.*s", file, no, (int)(end - s < 60 ? end - s : 60), s);
}

static const struct sysname *
sysname_of(long nr)
{
	struct sysname *c;

	HASH_FIND(hh, sysnames, &nr, sizeof(nr), c);
	return c;
}

/* For tp.c: the text's name, else this machine's (said in lacks). */
static const char *
text_syscall(long nr)
{
	const struct sysname *c = sysname_of(nr);

	if (c != NULL)
		return c->name;
	seen.sys_unnamed++;
	return syscall_name(nr);
}

/* "NR 1 (2, 7ffd, 8, 0, 0, 73)" and "NR 1 = 8". */
static int
body_syscall(struct body *b, const char *p, const char *end, int enter)
{
	static const char *const argn[] = { "args[0]", "args[1]", "args[2]",
	    "args[3]", "args[4]", "args[5]" };
	const struct sysname *c;
	const char *q;
	int64_t nr;
	int i;

	if (end - p < 4 || strncmp(p, "NR ", 3) != 0)
		return 0;
	nr = (int64_t)num_of(p + 3, end, &q, 10);
	addn(b, "id", nr);
	q = skip_sp(q, end);
	if (!enter) {
		if (q >= end || *q != '=')
			return 0;
		q = skip_sp(q + 1, end);
		addn(b, "ret", (int64_t)num_of(q, end, &q, 10));
		return 1;
	}
	if (q >= end || *q != '(')
		return 0;
	q++;
	for (i = 0; i < 6 && q < end && *q != ')'; i++) {
		addn(b, argn[i], (int64_t)num_of(skip_sp(q, end), end, &q, 16));
		q = skip_sp(q, end);
		if (q < end && *q == ',')
			q++;
	}
	/* The registers beyond the call's own arguments are not its. */
	if ((c = sysname_of(nr)) != NULL && c->nargs >= 0) {
		if (c->nargs < i)
			b->n -= i - c->nargs;
	} else
		seen.sys_six++;
	return 1;
}

/* "work struct 0000000000716b30: function vmstat_update" */
static int
body_work(struct body *b, const char *p, const char *end)
{
	const char *q;

	if (end - p < 12 || strncmp(p, "work struct ", 12) != 0)
		return 0;
	p += 12;
	if ((q = memchr(p, ':', end - p)) == NULL)
		return 0;
	add(b, "work", 4, p, q - p);
	p = skip_sp(q + 1, end);
	if (end - p < 9 || strncmp(p, "function ", 9) != 0)
		return 0;
	p += 9;
	add(b, "function", 8, p, end - p);
	return 1;
}

/*
 * "254,0 DS 4096 () 350610832 + 8 be,0,6 [comm]" (issue) and
 * "254,0 DS () 350610832 + 8 be,0,6 [0]" (complete); older kernels lack
 * the I/O priority.
 */
static int
body_block(struct body *b, const char *p, const char *end, int issue)
{
	const char *q, *w;
	uint64_t maj, min;

	maj = num_of(p, end, &q, 10);
	if (q >= end || *q != ',')
		return 0;
	min = num_of(q + 1, end, &q, 10);
	addn(b, "dev", (int64_t)(maj << 20 | min));
	w = skip_sp(q, end);
	for (q = w; q < end && *q != ' '; q++)
		;
	add(b, "rwbs", 4, w, q - w);
	q = skip_sp(q, end);
	if (issue) {
		addn(b, "bytes", (int64_t)num_of(q, end, &q, 10));
		q = skip_sp(q, end);
	}
	if (q < end && *q == '(' && (q = memchr(q, ')', end - q)) != NULL)
		q = skip_sp(q + 1, end);
	if (q == NULL)
		return 0;
	addn(b, "sector", (int64_t)num_of(q, end, &q, 10));
	q = skip_sp(q, end);
	if (q >= end || *q != '+')
		return 0;
	addn(b, "nr_sector", (int64_t)num_of(skip_sp(q + 1, end), end, &q, 10));
	if (!issue && (w = memrchr(q, '[', end - q)) != NULL)
		addn(b, "error", (int64_t)strtoll(w + 1, NULL, 10));
	return 1;
}

/*
 * trace-cmd report's sched plugin: "comm:pid [prio] S ==> comm:pid [prio]"
 * and "comm:pid [prio] success=1 CPU:000".  The name may hold a colon:
 * the pid is after the last one before " [".
 */
static const char *
plugin_task(struct body *b, const char *p, const char *end, const char *kc,
    const char *kp)
{
	const char *br, *c;

	if ((br = memmem(p, end - p, " [", 2)) == NULL)
		br = end;
	for (c = br; c > p && c[-1] != ':'; c--)
		;
	if (c == p)
		return NULL;
	add(b, kc, strlen(kc), p, c - 1 - p);
	addn(b, kp, strtoll(c, NULL, 10));
	if (br < end && (br = memchr(br, ']', end - br)) != NULL)
		return skip_sp(br + 1, end);
	return end;
}

static int
body_plugin_switch(struct body *b, const char *p, const char *end)
{
	const char *arrow, *q, *st;

	if ((arrow = memmem(p, end - p, " ==> ", 5)) == NULL)
		return 0;
	if ((q = plugin_task(b, p, arrow, "prev_comm", "prev_pid")) == NULL)
		return 0;
	st = skip_sp(q, arrow);
	add(b, "prev_state", 10, st, arrow - st);
	return plugin_task(b, arrow + 5, end, "next_comm", "next_pid") != NULL;
}

static int
body_plugin_wakeup(struct body *b, const char *p, const char *end)
{
	const char *q;

	if ((q = plugin_task(b, p, end, "comm", "pid")) == NULL)
		return 0;
	if ((q = memmem(q, end - q, "CPU:", 4)) != NULL)
		addn(b, "target_cpu", strtoll(q + 4, NULL, 10));
	return 1;
}

/* timer_start prints the timeout, not the time it was armed, and its flags spread out. */
static void
timer_fields(struct body *b)
{
	struct fld *exp = find(b, "expires"), *to = find(b, "timeout"),
	    *cpu = find(b, "cpu"), *idx = find(b, "idx"), *fl = find(b, "flags");
	int64_t flags = 0;

	if (exp != NULL && to != NULL)
		addn(b, "now", (int64_t)((uint64_t)strtoll(exp->v, NULL, 10) -
		    (uint64_t)strtoll(to->v, NULL, 10)));
	if (cpu == NULL || idx == NULL || fl == NULL)
		return;
	flags = (int64_t)((uint64_t)strtoll(cpu->v, NULL, 10) |
	    (uint64_t)strtoll(idx->v, NULL, 10) << 22 |
	    ftword_flags("timerflags", fl->v, fl->vl));
	rename_field(b, "flags", "flag_letters");	/* the number replaces them */
	addn(b, "flags", flags);
}

/*
 * The filelock events print their fields under other names and as words:
 * "fl=%p dev=0x%x:0x%x ino=0x%lx fl_blocker=%p fl_owner=%p fl_pid=%u
 * fl_flags=FL_POSIX|FL_SLEEP fl_type=F_WRLCK fl_start=%lld fl_end=%lld
 * ret=%d".  Back to the format's fields, as numbers: the words by
 * lib/ftrace.def's, the device as the kernel's MKDEV.
 */
static void
filelock_fields(struct body *b)
{
	struct fld *dev = find(b, "dev"), *fl = find(b, "fl_flags"),
	    *ty = find(b, "fl_type");
	const char *q;
	uint64_t maj, min, v;

	if (dev != NULL) {
		maj = num_of(dev->v, dev->v + dev->vl, &q, 16);
		if (q < dev->v + dev->vl && *q == ':') {
			min = num_of(q + 1, dev->v + dev->vl, &q, 16);
			addn(b, "s_dev", (int64_t)(maj << 20 | (min & 0xfffff)));
		}
	}
	if (fl != NULL)
		addn(b, "flags", (int64_t)ftword_flags("lockflags", fl->v, fl->vl));
	if (ty != NULL && ftword_value("locktype", ty->v, ty->vl, &v))
		addn(b, "type", (int64_t)v);
}

/* The fields of one event's body; 0 if it does not parse. */
static int
body_parse(struct body *b, const struct line *l, const char *name)
{
	const char *p = l->body, *end = p + l->bodylen;

	b->n = 0;
	if (strcmp(name, "sys_enter") == 0 || strcmp(name, "sys_exit") == 0) {
		seen.syscalls++;
		return body_syscall(b, p, end, strcmp(name, "sys_enter") == 0);
	}
	if (strncmp(name, "workqueue_execute_", 18) == 0)
		return body_work(b, p, end);
	if (strcmp(name, "block_rq_issue") == 0)
		return body_block(b, p, end, 1);
	if (strcmp(name, "block_rq_complete") == 0)
		return body_block(b, p, end, 0);
	if (strcmp(name, "print") == 0) {
		add(b, "buf", 3, p, end - p);
		return 1;
	}
	if (strcmp(name, "sched_switch") == 0 &&
	    memmem(p, end - p, "prev_pid=", 9) == NULL)
		return body_plugin_switch(b, p, end);
	if (strncmp(name, "sched_wak", 9) == 0 &&
	    memmem(p, end - p, "pid=", 4) == NULL)
		return body_plugin_wakeup(b, p, end);
	if (strcmp(name, "workqueue_queue_work") == 0 &&
	    end - p > 5 && strncmp(p, "work ", 5) == 0)
		p += 5;		/* "work struct=%p": the field is work */
	keyvals(b, p, end);
	if (strcmp(name, "timer_start") == 0)
		timer_fields(b);
	if (strcmp(name, "flock_lock_inode") == 0 ||
	    strcmp(name, "posix_lock_inode") == 0 ||
	    strcmp(name, "fcntl_setlk") == 0 ||
	    strcmp(name, "locks_remove_posix") == 0)
		filelock_fields(b);
	rename_fields(b, name);
	return b->n > 0;
}

/*
 * The values of argus-export's text, decoded once the fields are found
 * (an escaped name holds no '=' nor a space that starts a field), into
 * one buffer: the fields do not overlap, so the line's length holds all.
 */
static void
body_unescape(struct body *b, size_t len)
{
	static char *buf;
	static size_t cap;
	size_t used = 0;
	struct fld *f;
	int i;

	if (cap < len + 1) {
		free(buf);
		cap = len + 64;
		buf = xmalloc(cap);
	}
	for (i = 0; i < b->n; i++) {
		f = &b->f[i];
		if (f->isnum || f->vl == 0 || memchr(f->v, '\\', f->vl) == NULL)
			continue;
		f->vl = unescape(buf + used, f->v, f->vl);
		f->v = buf + used;
		used += f->vl;
	}
}

/* Field access for tp.c. */

/* prev_state as letters ("S", "R+", "D|K") back to the kernel's bits. */
static int64_t
state_bits(const char *s, size_t n)
{
	static const char letters[] = "SDTtXZPI";
	const char *c;
	int64_t v = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		if (s[i] == '+')
			v |= 0x100;
		else if (s[i] != '|' && s[i] != 'R' &&
		    (c = strchr(letters, s[i])) != NULL)
			v |= 1 << (c - letters);
	}
	return v;
}

/* An hrtimer mode: "ABS", "REL|PINNED|SOFT". */
static int64_t
mode_bits(const char *s, size_t n)
{
	int64_t v = 0;

	if (memmem(s, n, "REL", 3))
		v |= 1;
	if (memmem(s, n, "PINNED", 6))
		v |= 2;
	if (memmem(s, n, "SOFT", 4))
		v |= 4;
	if (memmem(s, n, "HARD", 4))
		v |= 8;
	return v;
}

static int
f_num(const struct tp *e, const char *k, int base, int64_t *out)
{
	static const struct {
		const char	*w;
		int		 v;
	} words[] = {
		{ "true", 1 }, { "false", 0 }, { "handled", 1 },
		{ "unhandled", 0 },
	};
	const struct body *b = e->arg;
	struct fld *f;
	char buf[40], *end;
	int i;

	if (e->probe && strncmp(k, "arg", 3) == 0) {
		/* A probe's arguments in order, whatever their names. */
		i = atoi(k + 3) - 1;
		f = i >= 0 && i < b->n ? (struct fld *)&b->f[i] : NULL;
	} else
		f = find(b, k);
	if (f == NULL)
		return 0;
	if (f->isnum) {
		*out = f->n;
		return 1;
	}
	if (strcmp(k, "prev_state") == 0) {
		*out = state_bits(f->v, f->vl);
		return 1;
	}
	if (strcmp(k, "mode") == 0 && f->vl > 0 && isupper((unsigned char)*f->v)) {
		*out = mode_bits(f->v, f->vl);
		return 1;
	}
	/* What the kernel prints for a bool (group_dead) and irq_exit's ret. */
	for (i = 0; i < (int)ARRAY_LEN(words); i++)
		if (f->vl == strlen(words[i].w) &&
		    memcmp(f->v, words[i].w, f->vl) == 0) {
			*out = words[i].v;
			return 1;
		}
	if (f->vl == 0 || f->vl >= sizeof(buf))
		return 0;
	memcpy(buf, f->v, f->vl);
	buf[f->vl] = '\0';
	*out = (int64_t)strtoull(buf, &end, base);
	if (buf[0] == '-')
		*out = strtoll(buf, &end, base);
	if (*end != '\0') {
		if (strcmp(k, "function") == 0)
			seen.named_functions++;
		return 0;
	}
	return 1;
}

static int
f_str(const struct tp *e, const char *k, const char **s, size_t *n)
{
	struct fld *f = find(e->arg, k);

	if (f == NULL || f->isnum)
		return 0;
	*s = f->v;
	*n = f->vl;
	return 1;
}

/* Input. */

static int
is_html(const unsigned char *h, size_t len)
{
	while (len > 0 && isspace(*h))
		h++, len--;
	return (len >= 14 && strncasecmp((const char *)h, "<!DOCTYPE html", 14) == 0) ||
	    (len >= 5 && strncasecmp((const char *)h, "<html", 5) == 0);
}

static int
detect(const unsigned char *h, size_t len)
{
	const char *s = (const char *)h, *end = s + len, *nl;
	struct line l;
	const char *task;
	size_t tl;
	int tgid;

	if (is_html(h, len))
		return 1;
	if ((len >= 9 && strncmp(s, "# tracer:", 9) == 0) ||
	    (len >= 5 && strncmp(s, "cpus=", 5) == 0) ||
	    (len >= 10 && strncmp(s, "version = ", 10) == 0))
		return 1;
	/* trace_pipe has no header: its first line must be an event. */
	if ((nl = memchr(s, '\n', len)) != NULL)
		end = nl;
	return parse_line(s, end, &l, &task, &tl, &tgid);
}

/*
 * systrace: the text is the content of a <script class="trace-data">
 * that holds a trace (another may hold JSON).  *no counts the lines
 * before it, so that messages name lines of the file.
 */
static int
systrace_text(const char **s, const char **end, unsigned long *no)
{
	const char *p = *s, *b, *e, *q;

	while ((b = memmem(p, *end - p, "<script class=\"trace-data\"", 26)) != NULL) {
		if ((b = memchr(b, '>', *end - b)) == NULL ||
		    (e = memmem(b, *end - b, "</script>", 9)) == NULL)
			return 0;
		for (q = b + 1; q < e && isspace((unsigned char)*q); q++)
			;
		if (q < e && (*q == '#' || memmem(q, e - q, "]", 1))) {
			if (*q != '{' && *q != '[') {
				for (q = *s; q <= b; q++)
					*no += *q == '\n';
				*s = b + 1;
				if (**s == '\n')
					(*s)++, (*no)++;
				*end = e;
				return 1;
			}
		}
		p = e;
	}
	return 0;
}

static int
by_time(const void *a, const void *b)
{
	const struct line *x = a, *y = b;

	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return x->no < y->no ? -1 : x->no > y->no;
}

static const char *
source_name(void)
{
	return seen.systrace ? "systrace" : seen.trace_cmd ? "trace-cmd" :
	    "ftrace";
}

/* What the text could not say, for a person reading the stream. */
static void
lacks(struct writer *w, uint64_t ts, size_t nthreads)
{
	meta_write(w, ts, "lacks", "clock: the text does not say which "
	    "trace_clock stamped it; times are as printed (CLOCK_MONOTONIC "
	    "only if the trace was taken with trace_clock mono)");
	if (seen.digits < 9)
		meta_write(w, ts, "lacks", "time: %d digits after the second; "
		    "times are rounded to %s", seen.digits,
		    seen.digits == 6 ? "the microsecond" : "the printed digits");
	if (!seen.tgid_col)
		meta_write(w, ts, "lacks", "pid: no TGID column "
		    "(options/record-tgid): a thread's process is known only "
		    "from a fork in the trace");
	else if (seen.no_tgid > 0)
		meta_write(w, ts, "lacks", "pid: %lu of %zu threads never showed "
		    "their process", seen.no_tgid, nthreads);
	if (!seen.irq_col)
		meta_write(w, ts, "lacks", "ctx: no irq-info column "
		    "(options/irq-info): every event is taken to run in its "
		    "task, interrupts too");
	if (seen.forgotten > 0)
		meta_write(w, ts, "lacks", "comm: %lu lines name their task <...> "
		    "(the kernel's saved_cmdlines forgot it)", seen.forgotten);
	if (seen.syscalls > 0 && sysnames == NULL)
		meta_write(w, ts, "lacks", "syscall names: the trace has numbers; "
		    "names are from this machine's table, and sys_enter has "
		    "all six argument registers");
	else if (seen.sys_unnamed > 0)
		meta_write(w, ts, "lacks", "syscall names: %lu calls by number "
		    "only; named from this machine's table", seen.sys_unnamed);
	if (sysnames != NULL && seen.sys_six > 0)
		meta_write(w, ts, "lacks", "syscall arguments: %lu sys_enter "
		    "have all six registers, the text not saying how many are "
		    "the call's", seen.sys_six);
	if (seen.named_functions > 0)
		meta_write(w, ts, "lacks", "function addresses: %lu kernel "
		    "functions are named by the kernel's %%ps, not addressed",
		    seen.named_functions);
}

/* One input's, kept until the next when bad input ends it. */
static struct input	 inp;
static struct line	*lines;

static void
forget(void)
{
	free(lines);
	lines = NULL;
	sysnames_free();
	if (inp.p != NULL)
		input_free(&inp);
}

static void
convert(FILE *in, const char *name, struct writer *w)
{
	struct line *l;
	struct body body;
	struct tp e;
	const char *s, *end, *nl, *task;
	char ev[64], taskbuf[64];
	size_t n = 0, cap = 0, i, tl, nthreads = 0;
	unsigned long no = 1, events = 0;
	uint64_t last = 0;
	int tgid, sorted = 1;

	memset(&seen, 0, sizeof(seen));
	tp_reset();
	forget();
	input_load(&inp, in, name);
	s = (const char *)inp.p;
	end = s + inp.len;
	if (is_html(inp.p, inp.len)) {
		seen.systrace = 1;
		if (!systrace_text(&s, &end, &no))
			diex(EX_DATAERR, "%s: HTML without systrace trace data "
			    "(<script class=\"trace-data\">)", name);
	} else if (inp.len >= 5 && (strncmp(s, "cpus=", 5) == 0 ||
	    strncmp(s, "version = ", 10) == 0))
		seen.trace_cmd = 1;

	/* First look: every line's head, and what it says of its thread. */
	for (; s < end; s = nl + 1, no++) {
		if ((nl = memchr(s, '\n', end - s)) == NULL)
			nl = end;
		if (n == cap) {
			cap = cap ? 2 * cap : 4096;
			lines = xrealloc(lines, cap * sizeof(*lines));
		}
		l = &lines[n];
		i = nl - s;
		if (i > 0 && s[i - 1] == '\r')
			i--;
		if (preamble(s, s + i)) {
			if (i >= 24 && strncmp(s, "# argus-export -f ftrace", 24) == 0)
				seen.escaped = 1;
			else if (seen.escaped && i >= 10 &&
			    strncmp(s, "# syscall ", 10) == 0)
				sysname_read(s, s + i, name, no);
			continue;
		}
		if (parse_lost(s, s + i, l)) {
			if (l->cpu >= MAX_CPUS)
				cpu_range(name, no);
			l->ts = last;
			l->no = no;
			n++;
			continue;
		}
		if (!parse_line(s, s + i, l, &task, &tl, &tgid))
			diex(EX_DATAERR, "%s:%lu: not an ftrace line: %.*s",
			    name, no, (int)(i < 60 ? i : 60), s);
		if (l->cpu >= MAX_CPUS)
			cpu_range(name, no);
		l->no = no;
		if (tl == 5 && memcmp(task, "<...>", 5) == 0) {
			seen.forgotten++;
			task = NULL;
		}
		if (task != NULL && seen.escaped) {
			/* tp.c keeps 15 bytes: decode what holds them. */
			tl = unescape(taskbuf, task, tl < 64 ? tl : 64);
			task = taskbuf;
		}
		tp_thread(l->tid, tgid, task, tl, 0);
		if (l->ts < last)
			sorted = 0;
		last = l->ts;
		n++;
	}
	/* Several buffers' text put together: the stream wants time order. */
	if (!sorted)
		qsort(lines, n, sizeof(*lines), by_time);

	last = n > 0 ? lines[0].ts : NO_TIME;
	meta_write(w, last, "source", "%s", source_name());
	meta_write(w, last, "clock", "unknown");
	meta_write(w, last, "import", "argus-import " ARGUS_VERSION);
	meta_write(w, last, "file", "%s", name);

	if (sysnames != NULL)
		tp_syscall_names(text_syscall);
	e.num = f_num;
	e.str = f_str;
	e.arg = &body;
	/* Ctrl-C: what is written so far is a whole stream. */
	for (i = 0; i < n && !interrupted; i++) {
		l = &lines[i];
		if (l->lost) {
			tp_lost(w, l->ts, l->cpu, l->lost);
			continue;
		}
		last = l->ts;
		snprintf(ev, sizeof(ev), "%.*s", (int)l->evlen, l->ev);
		/* The kernel prints a trace_marker write under its caller. */
		if (strcmp(ev, "tracing_mark_write") == 0)
			snprintf(ev, sizeof(ev), "print");
		e.probe = !tp_known(ev) && l->bodylen > 0 && *l->body == '(';
		if (!e.probe && !tp_known(ev)) {
			tp_skip(ev, strlen(ev));
			continue;
		}
		body.file = name;
		body.no = l->no;
		if (e.probe) {
			body.n = 0;
			nl = memchr(l->body, ')', l->bodylen);
			if (nl != NULL)
				keyvals(&body, nl + 1, l->body + l->bodylen);
		} else if (!body_parse(&body, l, ev))
			diex(EX_DATAERR, "%s:%lu: %s: cannot read its fields: "
			    "%.*s", name, l->no, ev, (int)(l->bodylen < 60 ?
			    l->bodylen : 60), l->body);
		if (seen.escaped)
			body_unescape(&body, l->bodylen);
		e.ts = l->ts;
		e.cpu = l->cpu;
		e.tid = l->tid;
		e.ctx = l->ctx;
		e.name = ev;
		tp_event(w, &e);
		events++;
	}
	seen.no_tgid = tp_unknown_pids(&nthreads);
	lacks(w, last, nthreads);
	tp_skipped(w, last);
	meta_write(w, last, "events", "%lu", events);
	forget();
}

const struct importer import_ftrace = {
	"ftrace",
	"trace, trace_pipe, trace-cmd report, systrace HTML",
	detect,
	convert,
};
