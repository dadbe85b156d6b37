#include <endian.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "util.h"

extern const char *__progname;

volatile sig_atomic_t interrupted;
void (*die_hook)(int);
void (*die_say)(int, const char *);

/* A few per way out: the parts of lib that have something to do then. */
#define MAX_HOOKS	4
static void	(*hooks[NHOOKS][MAX_HOOKS])(void);

void
hook_add(enum hook h, void (*fn)(void))
{
	size_t i;

	for (i = 0; i < MAX_HOOKS && hooks[h][i] != NULL; i++)
		if (hooks[h][i] == fn)
			return;
	if (i == MAX_HOOKS)
		diex(EX_SOFTWARE, "too many hooks");
	hooks[h][i] = fn;
}

void
hooks_run(enum hook h)
{
	size_t i;

	for (i = 0; i < MAX_HOOKS && hooks[h][i] != NULL; i++)
		hooks[h][i]();
}

static void __attribute__((noreturn))
vdie(int code, int eno, const char *fmt, va_list ap)
{
	static int dying;
	char msg[4096];
	int len;

	fflush(stdout);
	hooks_run(HOOK_STDERR);
	len = snprintf(msg, sizeof(msg), "%s: ", __progname);
	len += vsnprintf(msg + len, len < (int)sizeof(msg) ?
	    sizeof(msg) - len : 0, fmt, ap);
	if (eno && len < (int)sizeof(msg))
		snprintf(msg + len, sizeof(msg) - len, ": %s", strerror(eno));
	if (die_say != NULL && !dying)
		die_say(eno, msg);
	fprintf(stderr, "%s\n", msg);
	if (die_hook != NULL)
		die_hook(code);
	/* Finish after the message: finishing may itself fail and die. */
	if (!dying++)
		hooks_run(HOOK_FINISH);
	exit(code);
}

void
die(int code, const char *fmt, ...)
{
	va_list ap;
	int eno = errno;

	va_start(ap, fmt);
	vdie(code, eno, fmt, ap);
}

void
diex(int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vdie(code, 0, fmt, ap);
}

void
warnx_(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	hooks_run(HOOK_STDERR);
	fprintf(stderr, "%s: ", __progname);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

void *
xmalloc(size_t n)
{
	void *p;

	if ((p = malloc(n ? n : 1)) == NULL)
		die(EX_OSERR, "malloc %zu", n);
	return p;
}

void *
xcalloc(size_t n, size_t size)
{
	void *p;

	if ((p = calloc(n ? n : 1, size ? size : 1)) == NULL)
		die(EX_OSERR, "calloc %zu", n * size);
	return p;
}

void *
xrealloc(void *o, size_t n)
{
	void *p;

	if ((p = realloc(o, n ? n : 1)) == NULL)
		die(EX_OSERR, "realloc %zu", n);
	return p;
}

char *
xstrdup(const char *s)
{
	char *p;

	if ((p = strdup(s)) == NULL)
		die(EX_OSERR, "strdup");
	return p;
}

uint64_t
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static void
on_signal(int sig)
{
	interrupted = sig;
}

void
catch_signals(void)
{
	struct sigaction sa;
	int sigs[] = { SIGINT, SIGTERM, SIGHUP };
	size_t i;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	/* No SA_RESTART: a blocked read must return so we can wind down. */
	for (i = 0; i < ARRAY_LEN(sigs); i++)
		sigaction(sigs[i], &sa, NULL);
}

void
stop_if_interrupted(void)
{
	if (!interrupted)
		return;
	hooks_run(HOOK_FINISH);
	exit(128 + interrupted);
}

int
exit_status(int ok)
{
	if (interrupted)
		return 128 + interrupted;
	return ok ? 0 : 1;
}

void
usage_error(const char *usage)
{
	const char *nl = strchr(usage, '\n');

	/* Only the synopsis line: the rest is for --help. */
	fprintf(stderr, "%.*s\n", nl ? (int)(nl - usage) : (int)strlen(usage),
	    usage);
	fprintf(stderr, "Try '%s --help' for more.\n", __progname);
	exit(EX_USAGE);
}

int
common_option(struct common *c, int ch, const char *arg, const char *usage)
{
	switch (ch) {
	case 'o':
		c->out = arg;
		return 1;
	case 'z':
		c->z = Z_GZIP;
		return 1;
	case 'Z':
		c->z = Z_PLAIN;
		return 1;
	case 'h':
		fputs(usage, stdout);
		exit(0);
	case 'V':
		printf("%s (Argus) %s, record stream version %d\n",
		    __progname, ARGUS_VERSION, STREAM_VERSION);
		exit(0);
	case '?':
		usage_error(usage);
	}
	return 0;
}

uint64_t
parse_u64(const char *opt, const char *s)
{
	char *end;
	unsigned long long v;

	/* Digits only: strtoull would take " -1" for UINT64_MAX. */
	errno = 0;
	v = strtoull(s, &end, 10);
	if (*s < '0' || *s > '9' || *end != '\0' || errno)
		diex(EX_USAGE, "%s: not a number: '%s'", opt, s);
	return v;
}

/* The number at s times its K, M, G or T; *end past them (s if none). */
static double
size_scan(const char *s, char **end)
{
	double v = strtod(s, end);

	if (*end == s)
		return 0;
	switch (**end) {
	case 'k': case 'K': v *= 1024; break;
	case 'm': case 'M': v *= 1024 * 1024; break;
	case 'g': case 'G': v *= 1024.0 * 1024 * 1024; break;
	case 't': case 'T': v *= 1024.0 * 1024 * 1024 * 1024; break;
	default: return v;
	}
	(*end)++;
	return v;
}

uint64_t
parse_size(const char *opt, const char *s)
{
	char *end;
	double v;

	errno = 0;
	v = size_scan(s, &end);
	if (end == s || errno || v <= 0)
		diex(EX_USAGE, "%s: not a size: '%s'", opt, s);
	if (*end == 'B' || *end == 'b')
		end++;
	if (*end != '\0')
		diex(EX_USAGE, "%s: not a size: '%s' (K, M, G, T)", opt, s);
	return (uint64_t)v;
}

uint64_t
size_bytes(const char *s)
{
	char *end;
	double v = size_scan(s, &end);

	return v > 0 ? (uint64_t)v : 0;
}

uint64_t
size_value(const char *s)
{
	size_t n = strspn(s, "0123456789.");

	if (n == 0 || (s[n] != '\0' && (strchr("kKmMgGtT", s[n]) == NULL ||
	    (s[n + 1] != '\0' && strcmp(s + n + 1, "B") != 0))))
		return 0;
	return size_bytes(s);
}

uint64_t
parse_duration_ns(const char *opt, const char *s)
{
	static const struct { const char *sfx; double mul; } units[] = {
		{ "ns", 1 }, { "us", 1e3 }, { "ms", 1e6 }, { "s", 1e9 },
		{ "m", 60e9 }, { "h", 3600e9 }, { "", 1e9 },
	};
	char *end;
	double v, ns;
	size_t i;

	errno = 0;
	v = strtod(s, &end);
	if (end == s || errno || v < 0 || !isfinite(v))
		diex(EX_USAGE, "%s: not a duration: '%s'", opt, s);
	for (i = 0; i < ARRAY_LEN(units); i++) {
		if (strcmp(end, units[i].sfx) != 0)
			continue;
		/* Converting a double past 2^64 is undefined: no wrapping. */
		if ((ns = v * units[i].mul + 0.5) >= 18446744073709551616.0)
			diex(EX_USAGE, "%s: '%s' is too long (584 years at "
			    "most)", opt, s);
		return (uint64_t)ns;
	}
	diex(EX_USAGE, "%s: unknown unit in '%s' (ns, us, ms, s, m, h)", opt, s);
}

int64_t	wall_offset;
int	wall_set;

/* A local clock time as ns since the epoch in *ns: 0, or -1 if it is none. */
static int
parse_clock(const char *arg, uint64_t *ns)
{
	static const char *const forms[] = { "%Y-%m-%dT%H:%M:%S",
	    "%Y-%m-%d %H:%M:%S", "%Y-%m-%dT%H:%M", "%Y-%m-%d %H:%M",
	    "%H:%M:%S", "%H:%M" };
	struct tm tm;
	const char *end;
	uint64_t frac = 0, scale = 100000000;
	time_t now = time(NULL), t;
	size_t i;

	for (i = 0; i < ARRAY_LEN(forms); i++) {
		localtime_r(&now, &tm);		/* today, for a bare time */
		tm.tm_sec = 0;
		if ((end = strptime(arg, forms[i], &tm)) != NULL)
			break;
	}
	if (i == ARRAY_LEN(forms))
		return -1;
	if (*end == '.' && forms[i][strlen(forms[i]) - 1] == 'S')
		for (end++; *end >= '0' && *end <= '9'; end++, scale /= 10)
			frac += (*end - '0') * scale;
	if (*end != '\0')
		return -1;
	tm.tm_isdst = -1;
	if ((t = mktime(&tm)) == -1)
		return -1;
	*ns = (uint64_t)t * 1000000000ULL + frac;
	return 0;
}

void
when_parse(struct when *w, const char *opt, const char *arg)
{
	w->set = 1;
	w->opt = opt;
	w->relative = arg[0] == '+';
	w->wall = !w->relative && strchr(arg, ':') != NULL;
	if (w->relative)
		w->ns = parse_duration_ns(opt, arg + 1);
	else if (w->wall) {
		if (parse_clock(arg, &w->ns) == -1)
			diex(EX_USAGE, "%s: '%s' is not a clock time "
			    "(HH:MM[:SS[.frac]] or YYYY-MM-DD HH:MM[:SS])",
			    opt, arg);
	} else
		w->ns = parse_u64(opt, arg);
}

uint64_t
when_resolve(const struct when *w, uint64_t first)
{
	if (w->wall) {
		if (!wall_set)
			diex(EX_DATAERR, "%s: a clock time needs the capture's "
			    "wall-clock anchor (meta wallclock), which this "
			    "stream does not have: give CLOCK_MONOTONIC ns or "
			    "+DURATION", w->opt);
		return (int64_t)w->ns - wall_offset < 0 ? 0 :
		    (uint64_t)((int64_t)w->ns - wall_offset);
	}
	if (!w->relative || first == NO_TIME)
		return w->ns;
	return first + w->ns;
}

void
wall_format(char *buf, size_t size, uint64_t mono_ns)
{
	int64_t wall = (int64_t)mono_ns + wall_offset;
	time_t t = wall / 1000000000LL;
	struct tm tm;
	size_t n;

	localtime_r(&t, &tm);
	n = strftime(buf, size, "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(buf + n, size - n, ".%09lld",
	    (long long)(wall % 1000000000LL));
}

struct option *
toggle_options(const struct toggle *t, size_t n, const struct option *more)
{
	struct option *o;
	size_t i, m;
	char *name;

	for (m = 0; more[m].name != NULL; m++)
		;
	o = xcalloc(n + m + 1, sizeof(*o));
	for (i = 0; i < n; i++) {
		name = xmalloc(strlen(t[i].name) + 4);
		sprintf(name, "no-%s", t[i].name);
		o[i].name = name;
		o[i].has_arg = no_argument;
		o[i].flag = t[i].off;
		o[i].val = 1;
	}
	memcpy(o + n, more, (m + 1) * sizeof(*o));
	return o;
}

char *
toggle_usage(const char *head, const struct toggle *t, size_t n,
    const char *tail)
{
	size_t i, len = strlen(head) + strlen(tail) + 1;
	int w = 0;
	char *u, *p;

	for (i = 0; i < n; i++) {
		if ((int)strlen(t[i].name) > w)
			w = strlen(t[i].name);
		len += strlen(t[i].help);
	}
	len += n * (w + 16);
	p = u = xmalloc(len);
	p += sprintf(p, "%s", head);
	for (i = 0; i < n; i++)
		p += sprintf(p, "  --no-%-*s  %s\n", w, t[i].name, t[i].help);
	sprintf(p, "%s", tail);
	return u;
}

void
set_bind(void *const *begin, void *const *end, const void *table,
    size_t nrows, size_t stride, void **out, const char *what)
{
	void *const *e;
	const char *row;
	size_t i;

	memset(out, 0, nrows * sizeof(*out));
	for (e = begin; e < end; e++) {
		for (i = 0; i < nrows; i++) {
			row = *(const char *const *)((const char *)table +
			    i * stride);
			if (strcmp(row, **(const char *const *const *)e) == 0)
				break;
		}
		if (i == nrows)
			diex(EX_SOFTWARE, "%s '%s' has no row in lib/graph.c",
			    what, **(const char *const *const *)e);
		out[i] = *e;
	}
	for (i = 0; i < nrows; i++)
		if (out[i] == NULL)
			diex(EX_SOFTWARE, "%s '%s' of lib/graph.c has no code",
			    what, *(const char *const *)((const char *)table +
			    i * stride));
}

/*
 * Looked up once an event, a link: the length and three of the bytes
 * tell the names of a table apart (sched_wakeup, sched_waking), where a
 * hash of every byte waits on a multiply a byte; a row of another length
 * costs no compare.  A collision costs only a probe.
 */
static unsigned
name_hash(const char *s, size_t n)
{
	if (n == 0)
		return 0;
	return ((unsigned)n ^ (unsigned char)s[0] << 8 ^
	    (unsigned char)s[n / 2] << 16 ^
	    (unsigned)(unsigned char)s[n - 1] << 24) * 0x9e3779b1u >> 16;
}

static const char *
row_name(const struct nameidx *x, size_t row)
{
	return *(const char *const *)((const char *)x->table + row * x->stride);
}

int
nameidx_find_n(struct nameidx *x, const char *name, size_t len)
{
	size_t row, n = ARRAY_LEN(x->slot), rlen;
	unsigned i;
	int r;

	if (!x->ready) {
		if (x->nrows > NAMEIDX_ROWS)
			diex(EX_SOFTWARE, "a table of %zu names", x->nrows);
		for (row = 0; row < x->nrows; row++) {
			if ((rlen = strlen(row_name(x, row))) == 0)
				continue;
			if (rlen > UINT16_MAX)
				diex(EX_SOFTWARE, "a name of %zu bytes", rlen);
			x->len[row] = rlen;
			for (i = name_hash(row_name(x, row), rlen) % n;
			    x->slot[i]; i = (i + 1) % n)
				;
			x->slot[i] = row + 1;
		}
		x->ready = 1;
	}
	for (i = name_hash(name, len) % n; x->slot[i]; i = (i + 1) % n) {
		r = x->slot[i] - 1;
		if (x->len[r] == len && memcmp(row_name(x, r), name, len) == 0)
			return r;
	}
	return -1;
}

int
nameidx_memo_miss(struct nameidx *x, struct nameidx_memo *m,
    const char *name, size_t len, uint64_t head, uint64_t tail)
{
	int row = nameidx_find_n(x, name, len);

	*m = (struct nameidx_memo){ head, tail, len, row };
	return row;
}

int
nameidx_find(struct nameidx *x, const char *name)
{
	return nameidx_find_n(x, name, strlen(name));
}
