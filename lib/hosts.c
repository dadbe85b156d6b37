/*
 * Merging captures of different hosts.  Each file says which machine it
 * is (meta hostname, boot_id, netns); files of one machine are one host.
 * Host N's PIDs and TIDs become N * HOST_PID_STRIDE more (0 stays the idle
 * task's), and its times are moved onto host 0's clock.
 *
 * The offset comes from the connections both recorded, NTP's way without
 * its packets: a byte that host X sent, in a send whose system call began
 * at a (X's clock), and that host Y received in a receive that returned at
 * b (Y's clock), bounds Y's clock less X's, theta, from above: theta <= b - a.
 * A byte sent the other way bounds it from below.  Every exchange of every
 * shared connection narrows the bounds; the estimate is their middle and
 * the error half their width.  Bytes are counted from each socket's
 * ESTABLISHED, so only connections both captures saw open count.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <uthash.h>

#include "event.h"
#include "graph.h"
#include "hosts.h"
#include "show.h"
#include "util.h"

#define MSG_PEEK_FLAG	2

/*
 * The farthest apart two machines' clocks can be.  A recording's times
 * are CLOCK_MONOTONIC (tracefs' mono clock: the kernel's own, no time
 * namespace's offset), which counts from the machine's boot: no time of
 * it exceeds its uptime, and no two clocks differ by more than the longer
 * uptime.  30 years is more than any machine has run without a boot, and
 * a tenth of what int64_t holds (292 years), so that the difference of
 * two such times, its negation, and the difference of two such
 * differences never overflow.  An exchange's time beyond it is no clock's:
 * the file is not a recording whose offset can be known, and is refused.
 */
#define CLOCK_SPAN_NS	(30 * 365 * 86400 * 1000000000LL)

struct xfer {
	uint64_t	 pos, len, t;
};

struct conn {
	char		 key[128];	/* LOCAL>REMOTE */
	uint64_t	 sent, rcvd;
	struct xfer	*sends, *recvs;
	size_t		 nsends, nrecvs;
	UT_hash_handle	 hh;
};

struct sk {
	uint64_t	 addr;
	struct conn	*c;
	UT_hash_handle	 hh;
};

/* A socket a snapshot showed: by its pair, and by its object. */
struct ssock {
	char		 key[160];	/* LOCAL>REMOTE, or TIME/OBJECT */
	char		 pair[128];	/* LOCAL>REMOTE */
	uint32_t	 pid;
	int64_t		 fd;
	char		 object[48], comm[32], proto[8];
	int		 queued;	/* on a listener, not accepted yet */
	UT_hash_handle	 hh;
};

struct lastsys {
	uint64_t	 tid, t;
	UT_hash_handle	 hh;
};

struct hfile {
	const char	*path;
	char		*name, *boot, *netns;
	uint64_t	 wall, cpus;
	int		 host;
	struct conn	*conns;
	struct ssock	*bypair, *byobj;
};

struct hosts {
	struct hfile	*f;
	int		 nf, nh;
	uint32_t	 cpustride;	/* host N's CPU c is N * cpustride + c */
	int64_t		*theta, *err;	/* per host, ns, to host 0 */
};

void
meta_identity(struct writer *w, uint64_t time)
{
	char buf[128];
	FILE *f;
	ssize_t n;

	if ((f = fopen("/proc/sys/kernel/random/boot_id", "re")) != NULL) {
		if (fgets(buf, sizeof(buf), f) != NULL) {
			buf[strcspn(buf, "\n")] = '\0';
			if (buf[0] != '\0')
				meta_write(w, time, "boot_id", "%s", buf);
		}
		fclose(f);
	}
	if ((n = readlink("/proc/self/ns/net", buf, sizeof(buf) - 1)) > 0) {
		buf[n] = '\0';
		meta_write(w, time, "netns", "%s", buf);
	}
}

static const char *
meta_val(const struct record *r)
{
	return record_str(r, META_VALUE);
}

static void
identify(struct hfile *f)
{
	struct reader *r = reader_open(f->path);
	struct record rec;
	const char *k;

	while (reader_next(r, &rec)) {
		if (rec.comment)
			continue;
		if (strcmp(rec.f[COL_KIND], KIND_META) != 0)
			break;
		k = record_str(&rec, META_KEY);
		if (strcmp(k, "hostname") == 0 && f->name == NULL)
			f->name = xstrdup(meta_val(&rec));
		else if (strcmp(k, "boot_id") == 0 && f->boot == NULL)
			f->boot = xstrdup(meta_val(&rec));
		else if (strcmp(k, "netns") == 0 && f->netns == NULL)
			f->netns = xstrdup(meta_val(&rec));
		else if (strcmp(k, META_WALLCLOCK) == 0)
			record_u64_opt(&rec, META_VALUE, &f->wall);
		else if (strcmp(k, "cpus") == 0)
			record_u64_opt(&rec, META_VALUE, &f->cpus);
	}
	reader_close(r);
}

/* Equal, or one does not say (an older file, a snapshot of procfs). */
static int
agree(const char *a, const char *b)
{
	return a == NULL || b == NULL || strcmp(a, b) == 0;
}

static int
same_boot(const struct hfile *a, const struct hfile *b)
{
	return a->boot != NULL && b->boot != NULL &&
	    strcmp(a->boot, b->boot) == 0;
}

static int
same_host(const struct hfile *a, const struct hfile *b)
{
	return strcmp(a->name, b->name) == 0 && agree(a->boot, b->boot) &&
	    agree(a->netns, b->netns);
}

static void
push(struct xfer **v, size_t *n, uint64_t pos, uint64_t len, uint64_t t)
{
	/* Room for 4, then doubled whenever full: full at each power of 2. */
	if (*n == 0 || (*n >= 4 && (*n & (*n - 1)) == 0))
		*v = xrealloc(*v, (*n ? *n * 2 : 4) * sizeof(**v));
	(*v)[(*n)++] = (struct xfer){ pos, len, t };
}

static void
snapshot_sock(struct hfile *f, const struct record *rec)
{
	struct ssock *s, *o;
	struct sock_rec r;

	if (!sock_parse(rec, &r))
		return;
	s = xcalloc(1, sizeof(*s));
	snprintf(s->pair, sizeof(s->pair), "%s>%s", r.local, r.remote);
	snprintf(s->key, sizeof(s->key), "%s", s->pair);
	s->pid = r.pid;
	s->fd = r.fd;
	snprintf(s->object, sizeof(s->object), "%s", r.object);
	snprintf(s->comm, sizeof(s->comm), "%s", r.comm);
	snprintf(s->proto, sizeof(s->proto), "%s", r.proto);
	s->queued = strcmp(r.state, "LISTEN") == 0;
	HASH_FIND_STR(f->bypair, s->key, o);
	if (o == NULL)
		HASH_ADD_STR(f->bypair, key, s);
	o = xcalloc(1, sizeof(*o));
	*o = *s;
	snprintf(o->key, sizeof(o->key), "%s/%s", record_str(rec, COL_TIME),
	    s->object);
	HASH_FIND_STR(f->byobj, o->key, s);
	if (s == NULL)
		HASH_ADD_STR(f->byobj, key, o);
	else
		free(o);
}

/* The connections of one file, and what each moved when. */
_Static_assert(ECOL_SAME(E_SOCK_STATE, E_SOCK_SEND, SKADDR) &&
    ECOL_SAME(E_SOCK_STATE, E_SOCK_RECV, SKADDR),
    "the socket events name their socket in one column");
static void
exchanges(struct hfile *f)
{
	struct reader *r = reader_open(f->path);
	struct sk *sks = NULL, *s;
	struct lastsys *sys = NULL, *ls;
	struct record rec;
	struct event ev;
	struct conn *c;
	uint64_t addr, tid;
	int64_t len;
	int state;
	char key[128];

	while (reader_next(r, &rec)) {
		if (!rec.comment && strcmp(rec.f[COL_KIND], KIND_SOCK) == 0) {
			snapshot_sock(f, &rec);
			continue;
		}
		if (!event_parse(&rec, &ev))
			continue;
		if ((ev.type == E_SYS_ENTER || ev.type == E_SOCK_STATE ||
		    ev.type == E_SOCK_SEND || ev.type == E_SOCK_RECV) &&
		    ev.time != NO_TIME && ev.time > (uint64_t)CLOCK_SPAN_NS)
			diex(EX_DATAERR, "%s:%lu: time %" PRIu64 " ns, %.0f "
			    "years since its machine's boot: no machine's "
			    "clock reads that, and the offset of its clock "
			    "cannot be known", f->path, rec.line, ev.time,
			    ev.time / (365 * 86400 * 1e9));
		tid = ev.tid;
		if (ev.type == E_SYS_ENTER) {
			HASH_FIND(hh, sys, &tid, sizeof(tid), ls);
			if (ls == NULL) {
				ls = xcalloc(1, sizeof(*ls));
				ls->tid = tid;
				HASH_ADD(hh, sys, tid, sizeof(ls->tid), ls);
			}
			ls->t = ev.time;
			continue;
		}
		if (ev.type != E_SOCK_STATE && ev.type != E_SOCK_SEND &&
		    ev.type != E_SOCK_RECV)
			continue;
		addr = event_u64(&ev, ECOL(E_SOCK_STATE, SKADDR));
		HASH_FIND(hh, sks, &addr, sizeof(addr), s);
		if (ev.type == E_SOCK_STATE) {
			/* Counted from its opening: a new count at each. */
			state = tcp_state_of(event_str(&ev,
			    ECOL(E_SOCK_STATE, NEW)));
			if (s != NULL && (state == TCP_S_CLOSE ||
			    state == TCP_S_ESTABLISHED)) {
				HASH_DEL(sks, s);
				free(s);
			}
			if (state != TCP_S_ESTABLISHED ||
			    tcp_state_of(event_str(&ev,
			    ECOL(E_SOCK_STATE, OLD))) == TCP_S_ESTABLISHED)
				continue;
			snprintf(key, sizeof(key), "%s>%s",
			    event_str(&ev, ECOL(E_SOCK_STATE, LOCAL)),
			    event_str(&ev, ECOL(E_SOCK_STATE, REMOTE)));
			HASH_FIND_STR(f->conns, key, c);
			if (c == NULL) {
				c = xcalloc(1, sizeof(*c));
				snprintf(c->key, sizeof(c->key), "%s", key);
				HASH_ADD_STR(f->conns, key, c);
			}
			s = xcalloc(1, sizeof(*s));
			s->addr = addr;
			s->c = c;
			HASH_ADD(hh, sks, addr, sizeof(s->addr), s);
			continue;
		}
		if (s == NULL || (len = event_i64(&ev,
		    ev.type == E_SOCK_SEND ? ECOL(E_SOCK_SEND, LENGTH) :
		    ECOL(E_SOCK_RECV, LENGTH))) <= 0)
			continue;
		c = s->c;
		if (ev.type == E_SOCK_RECV) {
			if (event_u64(&ev, ECOL(E_SOCK_RECV, FLAGS)) &
			    MSG_PEEK_FLAG ||
			    ev.time == NO_TIME)
				continue;
			push(&c->recvs, &c->nrecvs, c->rcvd, len, ev.time);
			c->rcvd += len;
			continue;
		}
		/* A send's bytes may leave before its event: its call began. */
		HASH_FIND(hh, sys, &tid, sizeof(tid), ls);
		push(&c->sends, &c->nsends, c->sent, len, ls != NULL ? ls->t :
		    NO_TIME);
		c->sent += len;
	}
	reader_close(r);
	HASH_FREE(hh, sks);
	HASH_FREE(hh, sys);
}

/* The send of c that carried byte pos, or NULL. */
static const struct xfer *
carrier(const struct conn *c, uint64_t pos)
{
	size_t lo = 0, hi = c->nsends, mid;

	while (lo < hi) {
		mid = (lo + hi) / 2;
		if (c->sends[mid].pos + c->sends[mid].len <= pos)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == c->nsends || c->sends[lo].pos > pos ||
	    c->sends[lo].t == NO_TIME)
		return NULL;
	return &c->sends[lo];
}

/*
 * Bounds on (Y's clock - X's) from X's sends that Y received: upper,
 * *hi = min(b - a).  Returns how many exchanges bounded it.
 */
static size_t
bound(const struct hfile *x, const struct hfile *y, int64_t *hi)
{
	const struct conn *cx, *cy;
	const struct xfer *s;
	char mirror[128], *gt;
	size_t i, n = 0;
	int64_t d;

	for (cy = y->conns; cy != NULL; cy = cy->hh.next) {
		/* Y's LOCAL>REMOTE is X's REMOTE>LOCAL. */
		if ((gt = strchr(cy->key, '>')) == NULL)
			continue;
		snprintf(mirror, sizeof(mirror), "%s>%.*s", gt + 1,
		    (int)(gt - cy->key), cy->key);
		HASH_FIND_STR(x->conns, mirror, cx);
		if (cx == NULL)
			continue;
		for (i = 0; i < cy->nrecvs; i++) {
			/* Its last byte: the latest send it waited for. */
			s = carrier(cx, cy->recvs[i].pos + cy->recvs[i].len - 1);
			if (s == NULL)
				continue;
			d = (int64_t)(cy->recvs[i].t - s->t);
			if (n++ == 0 || d < *hi)
				*hi = d;
		}
	}
	return n;
}

static const char *
who(const struct hosts *h, int host)
{
	static char buf[2][512];
	static int k;
	int i;
	size_t len;

	k ^= 1;
	len = 0;
	buf[k][0] = '\0';
	for (i = 0; i < h->nf; i++)
		if (h->f[i].host == host)
			len += snprintf(buf[k] + len, sizeof(buf[k]) - len,
			    "%s%s", len ? ", " : "", h->f[i].path);
	for (i = 0; i < h->nf && h->f[i].host != host; i++)
		;
	snprintf(buf[k] + len, sizeof(buf[k]) - len, " (host %s)",
	    show(h->f[i].name));
	return buf[k];
}

static void
align(struct hosts *h)
{
	int64_t hi = 0, lo = 0, up, down, wall;
	size_t nup, ndown, n;
	int k, i, j;

	h->theta = xcalloc(h->nh, sizeof(*h->theta));
	h->err = xcalloc(h->nh, sizeof(*h->err));
	for (k = 1; k < h->nh; k++) {
		nup = ndown = 0;
		for (i = 0; i < h->nf; i++) {
			if (h->f[i].host != 0)
				continue;
			for (j = 0; j < h->nf; j++) {
				if (h->f[j].host != k)
					continue;
				/* 0 sends, k receives: theta <= b - a. */
				if ((n = bound(&h->f[i], &h->f[j], &up)) > 0 &&
				    (nup == 0 || up < hi))
					hi = up;
				nup += n;
				/* k sends, 0 receives: 0 - k <= b - a. */
				if ((n = bound(&h->f[j], &h->f[i], &down)) > 0 &&
				    (ndown == 0 || -down > lo))
					lo = -down;
				ndown += n;
			}
		}
		for (j = 0; j < h->nf && h->f[j].host != k; j++)
			;
		wall = (int64_t)(h->f[0].wall - h->f[j].wall);
		/* Network namespaces of one boot: one kernel, one clock. */
		if ((nup == 0 || ndown == 0) && same_boot(&h->f[0], &h->f[j])) {
			warnx_("%s: the boot of %s's (%s): one clock, offset 0;"
			    " PIDs +%u, CPUs +%u", who(h, k),
			    show(h->f[0].name), show(h->f[j].boot),
			    k * HOST_PID_STRIDE,
			    k * h->cpustride);
			continue;
		}
		if (nup == 0 && ndown == 0)
			diex(EX_DATAERR, "%s and %s share no connection both "
			    "recorded from its opening: the offset of their "
			    "clocks is unknown (the wall clocks say %+.6f s, "
			    "which is not a bound)", who(h, 0), who(h, k),
			    wall / 1e9);
		if (nup == 0 || ndown == 0)
			diex(EX_DATAERR, "%s and %s: their shared connections "
			    "carried bytes only %s, which bounds the offset of "
			    "their clocks on one side (%s %+" PRId64 " ns): it "
			    "is unknown (the wall clocks say %+.6f s)",
			    who(h, 0), who(h, k), nup ? "from the first to "
			    "the second" : "from the second to the first",
			    nup ? "at most" : "at least", nup ? hi : lo,
			    wall / 1e9);
		if (lo > hi)
			diex(EX_DATAERR, "%s and %s: the exchanges bound the "
			    "offset of their clocks from below by %+" PRId64
			    " ns and from above by %+" PRId64 " ns: one "
			    "clock drifted, or the captures are not what "
			    "they say", who(h, 0), who(h, k), lo, hi);
		h->theta[k] = lo + (hi - lo) / 2;
		h->err[k] = (hi - lo + 1) / 2;
		warnx_("%s: clock %+" PRId64 " ns from %s's, \xc2\xb1%" PRId64
		    " ns (%zu exchanges; wall clocks said %+" PRId64 "); PIDs "
		    "+%u, CPUs +%u", who(h, k), h->theta[k], show(h->f[0].name),
		    h->err[k], nup + ndown, wall, k * HOST_PID_STRIDE,
		    k * h->cpustride);
	}
}

void
hosts_free(struct hosts *h)
{
	struct conn *c, *ct;
	struct ssock *s, *st;
	int i;

	if (h == NULL)
		return;
	for (i = 0; i < h->nf; i++) {
		HASH_ITER(hh, h->f[i].conns, c, ct) {
			HASH_DEL(h->f[i].conns, c);
			free(c->sends);
			free(c->recvs);
			free(c);
		}
		HASH_ITER(hh, h->f[i].bypair, s, st) {
			HASH_DEL(h->f[i].bypair, s);
			free(s);
		}
		HASH_ITER(hh, h->f[i].byobj, s, st) {
			HASH_DEL(h->f[i].byobj, s);
			free(s);
		}
		free(h->f[i].name);
		free(h->f[i].boot);
		free(h->f[i].netns);
	}
	free(h->f);
	free(h->theta);
	free(h->err);
	free(h);
}

struct hosts *
hosts_plan(char **paths, int npaths, int require)
{
	struct hosts *h;
	int i, j;

	if (npaths < 2) {
		if (require)
			diex(EX_USAGE, "--hosts: captures of two hosts or more");
		return NULL;
	}
	for (i = 0; i < npaths; i++)
		if (strcmp(paths[i], "-") == 0) {
			if (require)
				diex(EX_USAGE, "--hosts: each capture is read "
				    "twice: name FILEs, not stdin");
			return NULL;
		}
	h = xcalloc(1, sizeof(*h));
	h->f = xcalloc(npaths, sizeof(*h->f));
	h->nf = npaths;
	for (i = 0; i < npaths; i++) {
		h->f[i].path = paths[i];
		identify(&h->f[i]);
		if (h->f[i].name == NULL) {
			if (require)
				diex(EX_DATAERR, "%s: no meta hostname: not a "
				    "capture that says its host", paths[i]);
			h->nf = i + 1;
			hosts_free(h);
			return NULL;	/* as before: one clock */
		}
		for (j = 0; j < i && !same_host(&h->f[j], &h->f[i]); j++)
			;
		h->f[i].host = j < i ? h->f[j].host : h->nh++;
	}
	if (h->nh < 2) {
		if (require)
			diex(EX_DATAERR, "%s: all of one host, %s (boot %s%s%s):"
			    " no clocks to align", paths[0], show(h->f[0].name),
			    h->f[0].boot ? show(h->f[0].boot) : "unknown",
			    h->f[0].netns ? ", " : "", show(h->f[0].netns));
		hosts_free(h);
		return NULL;
	}
	/* Stages keep state per CPU: each host's CPUs are its own. */
	for (i = 0; i < npaths; i++)
		if (h->f[i].cpus > h->cpustride)
			h->cpustride = h->f[i].cpus;
	if (h->cpustride == 0)
		h->cpustride = 1024;
	if ((uint64_t)h->cpustride * h->nh > MAX_CPUS)
		diex(EX_DATAERR, "%d hosts of up to %u CPUs: more CPUs than "
		    "a stream can have (%d)", h->nh, h->cpustride, MAX_CPUS);
	for (i = 0; i < npaths; i++)
		exchanges(&h->f[i]);
	align(h);
	return h;
}

/* Rewriting a host's records. */

static char	*buf;
static size_t	 bufsz;

static const char *
num(uint64_t v)
{
	static char b[8][24];
	static int k;

	k = (k + 1) % 8;
	snprintf(b[k], sizeof(b[k]), "%" PRIu64, v);
	return b[k];
}

/* A PID or TID column: host base added, empty and 0 as they are. */
static const char *
id(const char *s, uint32_t base)
{
	char *end;
	uint64_t v = strtoull(s, &end, 10);

	if (*s == '\0' || *end != '\0' || v == 0)
		return s;
	return num(v + base);
}

/*
 * t on host 0's clock, theta (|theta| <= CLOCK_SPAN_NS) less: at least 0,
 * and short of NO_TIME whatever t a file holds (a timer that never
 * expires says KTIME_MAX).
 */
static uint64_t
shift(uint64_t t, int64_t theta)
{
	uint64_t u;

	if (theta >= 0)
		return t > (uint64_t)theta ? t - (uint64_t)theta : 0;
	u = (uint64_t)-theta;
	return t < NO_TIME - 1 - u ? t + u : NO_TIME - 1;
}

static const char *
when(const char *s, int64_t theta)
{
	char *end;
	uint64_t v = strtoull(s, &end, 10);

	if (*s == '\0' || *end != '\0' || v == 0)
		return s;
	return num(shift(v, theta));
}

/* futex:PID:ADDR, children:PID, epoll:PID:FD: a process's, by number. */
static const char *
object(const char *s, uint32_t base)
{
	static const char *const kernel[] = { "socket:", "pipe:", "file:",
	    "eventfd:", NULL };
	const char *colon = strchr(s, ':'), *rest;
	char *end;
	uint64_t v;
	int i;

	if (colon == NULL)
		return s;
	for (i = 0; kernel[i] != NULL; i++)
		if (strncmp(s, kernel[i], strlen(kernel[i])) == 0)
			return s;
	v = strtoull(colon + 1, &end, 10);
	if (end == colon + 1 || (*end != '\0' && *end != ':'))
		return s;
	rest = end;
	if (bufsz < strlen(s) + 32)
		buf = xrealloc(buf, bufsz = strlen(s) + 32);
	snprintf(buf, bufsz, "%.*s:%" PRIu64 "%s", (int)(colon - s), s,
	    v + base, rest);
	return buf;
}

static const char *
cpu(const char *s, uint32_t base)
{
	char *end;
	uint64_t v = strtoull(s, &end, 10);

	if (*s == '\0' || *end != '\0')
		return s;
	return num(v + base);
}

/*
 * What of an event's own columns names the host: a thread (its process's
 * PID kind, its TID by name), a CPU, a time on the host's clock.  Other
 * columns are the same on any host, or, as a timer's expiry in jiffies
 * or a work item's requested CPU (unbound is NR_CPUS), not a CPU or a
 * time of the stream's.
 */
enum { SH_NONE, SH_ID, SH_CPU, SH_TIME };

static const struct {
	enum etype	 type;		/* E_OTHER: of any type */
	const char	*col;
	int		 how;
} shifts[] = {
	{ E_OTHER,		"TTID",		SH_ID },
	{ E_OTHER,		"OLD_TID",	SH_ID },
	{ E_OTHER,		"LOCK_PID",	SH_ID },
	{ E_OTHER,		"TARGET_CPU",	SH_CPU },
	{ E_OTHER,		"ORIG_CPU",	SH_CPU },
	{ E_OTHER,		"DEST_CPU",	SH_CPU },
	{ E_HRT_START,		"EXPIRES",	SH_TIME },
	{ E_HRT_START,		"SOFTEXPIRES",	SH_TIME },
	{ E_HRT_EXPIRE_ENTRY,	"NOW",		SH_TIME },
};

/* Type t's columns, each what shifts[] says of it; made at first use. */
static const uint8_t *
shifted(enum etype t)
{
	static uint8_t how[E_NTYPES + 1][E_MAXCOLS];
	static int made;
	const struct ecol *c;
	int e, i;
	size_t k;

	if (!made) {
		for (e = 0; e < E_NTYPES; e++)
			for (i = 0; i < E_MAXCOLS; i++) {
				c = &edefs[e].col[i];
				if (c->name == NULL)
					break;
				if (c->kind == EK_PID)
					how[e][i] = SH_ID;
				for (k = 0; k < ARRAY_LEN(shifts); k++)
					if ((shifts[k].type == E_OTHER ||
					    shifts[k].type == (enum etype)e) &&
					    strcmp(shifts[k].col, c->name) == 0)
						how[e][i] = shifts[k].how;
			}
		made = 1;
	}
	return how[t < E_NTYPES ? t : E_NTYPES];
}

static void
rewrite(struct writer *w, const struct record *rec, uint32_t base,
    int64_t theta, uint32_t cpubase, uint32_t cpustride)
{
	const char *kind = rec->f[COL_KIND], *v;
	enum etype t = E_OTHER;
	size_t i, a;
	int isev = strcmp(kind, KIND_EVENT) == 0;

	if (isev && rec->nf > EC_TYPE)
		t = etype_of(rec->f[EC_TYPE]);
	writer_begin(w, kind);
	for (i = 1; i < rec->nf; i++) {
		v = rec->f[i];
		a = i - EC_ARG;
		if (i == COL_TIME)
			v = when(v, theta);
		else if (i == COL_PID || i == COL_TID)
			v = id(v, base);
		else if (isev && i == EC_CPU)
			v = cpu(v, cpubase);
		else if (strcmp(kind, KIND_LOST) == 0 && i == LOST_CPU)
			v = cpu(v, cpubase);
		else if (isev && i >= EC_ARG && a < E_MAXCOLS) {
			switch (shifted(t)[a]) {
			case SH_ID:	v = id(v, base); break;
			case SH_CPU:	v = cpu(v, cpubase); break;
			case SH_TIME:	v = when(v, theta); break;
			default:	break;
			}
		} else if (strcmp(kind, KIND_META) == 0 &&
		    i == META_VALUE) {
			const char *k = rec->f[META_KEY];

			if (strcmp(k, "start") == 0 || strcmp(k, "end") == 0)
				v = when(v, theta);
			else if (strcmp(k, META_WALLCLOCK) == 0)
				v = when(v, -theta);
			else if (strcmp(k, "cpus") == 0)
				v = num(cpubase + cpustride);
		} else if (strcmp(kind, KIND_WAIT) == 0) {
			if (i == RCOL(wait, OBJECT))
				v = object(v, base);
			else if (i == RCOL(wait, DEADLINE) ||
			    i == RCOL(wait, SINCE))
				v = when(v, theta);
		} else if (strcmp(kind, KIND_HOLDER) == 0 &&
		    (i == RCOL(holder, OBJECT) || i == RCOL(holder, THROUGH)))
			v = object(v, base);
		writer_str(w, v);
	}
	writer_end(w);
}

/*
 * A wait of file fi on a socket whose other end a snapshot of another
 * host shows: that host's process holds the peer.  The holder record
 * argus-waitfor(1) would have written, had both ends been one machine's,
 * so that the waitsfor rule and a slice go on across the hosts.
 */
static void
remote_peer(struct hosts *h, int fi, struct writer *w,
    const struct record *rec)
{
	const struct hfile *f = &h->f[fi];
	struct ssock *mine, *peer = NULL;
	char key[160], mirror[128], *gt, detail[96];
	uint32_t base;
	int i;

	if (rec->comment || strcmp(rec->f[COL_KIND], KIND_WAIT) != 0)
		return;
	snprintf(key, sizeof(key), "%s/%s", record_str(rec, COL_TIME),
	    record_str(rec, RCOL(wait, OBJECT)));
	HASH_FIND_STR(f->byobj, key, mine);
	if (mine == NULL || (gt = strchr(mine->pair, '>')) == NULL)
		return;
	snprintf(mirror, sizeof(mirror), "%s>%.*s", gt + 1,
	    (int)(gt - mine->pair), mine->pair);
	for (i = 0; i < h->nf && peer == NULL; i++)
		if (h->f[i].host != f->host)
			HASH_FIND_STR(h->f[i].bypair, mirror, peer);
	if (peer == NULL)
		return;
	i--;
	base = (uint32_t)h->f[i].host * HOST_PID_STRIDE;
	writer_begin(w, KIND_HOLDER);
	writer_str(w, when(record_str(rec, COL_TIME), h->theta[f->host]));
	writer_u64(w, peer->pid + base);
	writer_empty(w);
	writer_str(w, object(record_str(rec, RCOL(wait, OBJECT)),
	    (uint32_t)f->host * HOST_PID_STRIDE));
	writer_str(w, peer->queued ? "listener" : "peer");
	if (peer->fd >= 0)
		writer_u64(w, peer->fd);
	else
		writer_empty(w);
	writer_str(w, peer->object);
	snprintf(detail, sizeof(detail), "%s host %s %s", peer->proto,
	    h->f[i].name, gt + 1);
	writer_str(w, detail);
	writer_str(w, peer->comm);
	writer_end(w);
}

struct in {
	struct reader	*r;
	struct record	 rec;
	uint64_t	 key;
	int		 live, host;
};

static void
advance(struct hosts *h, struct in *in)
{
	in->live = reader_next(in->r, &in->rec);
	if (in->live && in->rec.time != NO_TIME)
		in->key = shift(in->rec.time, h->theta[in->host]);
}

void
hosts_merge(struct hosts *h, struct writer *w)
{
	struct in *in = xcalloc(h->nf, sizeof(*in));
	int i, best, last = -1, k;

	for (k = 0; k < h->nh; k++) {
		for (i = 0; h->f[i].host != k; i++)
			;
		writer_begin(w, KIND_META);
		writer_empty(w);
		writer_empty(w);
		writer_empty(w);
		writer_str(w, META_HOST);
		writer_u64(w, k);
		writer_str(w, h->f[i].name);
		writer_str(w, h->f[i].boot ? h->f[i].boot : "");
		writer_str(w, h->f[i].netns ? h->f[i].netns : "");
		writer_u64(w, (uint64_t)k * HOST_PID_STRIDE);
		writer_u64(w, (uint64_t)k * h->cpustride);
		writer_i64(w, h->theta[k]);
		writer_i64(w, h->err[k]);
		writer_end(w);
	}
	for (i = 0; i < h->nf; i++) {
		in[i].r = reader_open(h->f[i].path);
		in[i].host = h->f[i].host;
		advance(h, &in[i]);
	}
	while (!interrupted) {
		if (last >= 0)
			advance(h, &in[last]);
		best = last >= 0 && in[last].live ? last : -1;
		for (i = 0; i < h->nf; i++)
			if (in[i].live && (best < 0 || in[i].key < in[best].key))
				best = i;
		if ((last = best) < 0)
			break;
		if (in[best].host == 0 || in[best].rec.comment)
			writer_record(w, &in[best].rec);
		else
			rewrite(w, &in[best].rec,
			    (uint32_t)in[best].host * HOST_PID_STRIDE,
			    h->theta[in[best].host],
			    (uint32_t)in[best].host * h->cpustride,
			    h->cpustride);
		remote_peer(h, best, w, &in[best].rec);
	}
	for (i = 0; i < h->nf; i++)
		reader_close(in[i].r);
	free(in);
}
