#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "show.h"
#include "util.h"
#include "waits.h"

const char *const wmode_names[WM_N] = {
	[WM_NONE] = "", [WM_IN] = "in", [WM_OUT] = "out", [WM_INOUT] = "inout",
	[WM_ACCEPT] = "accept", [WM_CONNECT] = "connect", [WM_LOCK] = "lock",
	[WM_CHILD] = "child", [WM_FUTEX] = "futex", [WM_SLEEP] = "sleep",
	[WM_SIGNAL] = "signal", [WM_STOP] = "stop", [WM_THAW] = "thaw",
};

#define M(m)	(1u << (m))
#define M_IN	(M(WM_IN) | M(WM_INOUT))
#define M_OUT	(M(WM_OUT) | M(WM_INOUT))

/*
 * Who can end which wait.  A reader of a pipe ends a writer's wait for
 * room, not another reader's wait for data; a lock waiter ends nothing
 * (it queues behind the same holder).
 */
const struct wrel_def wrels[WR_N] = {
	[WR_READER] = { "reader", M_OUT,
	    "holds the object open for reading: the end that drains it" },
	[WR_WRITER] = { "writer", M_IN,
	    "holds the object open for writing: the end that feeds it" },
	[WR_RDWR] = { "rdwr", M_IN | M_OUT,
	    "holds the object open for reading and writing" },
	[WR_PEER] = { "peer", M_IN | M_OUT | M(WM_CONNECT),
	    "holds the socket at the other end of the connection" },
	[WR_LISTENER] = { "listener", M_IN | M_OUT | M(WM_CONNECT),
	    "holds the listening socket whose queue holds the peer" },
	[WR_HOLDER] = { "holder", M_IN | M_OUT,
	    "holds the same object (an eventfd): any holder may signal it" },
	[WR_LOCK_HOLDER] = { "lock-holder", M(WM_LOCK),
	    "holds a lock on the file that the waiter's lock conflicts with" },
	[WR_LOCK_WAITER] = { "lock-waiter", 0,
	    "waits for a lock on the same file" },
	[WR_CHILD] = { "child", M(WM_CHILD),
	    "a child process the waiter waits for" },
	[WR_OWNER] = { "owner", M(WM_FUTEX),
	    "the thread that owns the lock of the futex word" },
	/*
	 * A runtime's lock sits on top of whatever the kernel sees the
	 * waiter in (a futex, a latch's epoll, a semaphore): any wait.
	 */
	[WR_RUNTIME] = { "runtime", ~(M(WM_NONE)) & (M(WM_N) - 1),
	    "holds what the waiter waits for, by its runtime's word" },
};

/* -1: unknown */
static int
wmode_find(const char *name)
{
	int i;

	for (i = 0; i < WM_N; i++)
		if (strcmp(wmode_names[i], name) == 0)
			return i;
	return -1;
}

static int
wrel_find(const char *name)
{
	int i;

	for (i = 0; i < WR_N; i++)
		if (strcmp(wrels[i].name, name) == 0)
			return i;
	return -1;
}

int
wrel_ends(int rel, int mode)
{
	return rel >= 0 && rel < WR_N && mode >= 0 && mode < WM_N &&
	    (wrels[rel].ends & M(mode)) != 0;
}

int
wrel_label_is_lock(const char *label)
{
	size_t n = strcspn(label, " ");
	static const int locks[] = { WR_LOCK_HOLDER, WR_OWNER };
	size_t i;

	for (i = 0; i < ARRAY_LEN(locks); i++)
		if (strlen(wrels[locks[i]].name) == n &&
		    strncmp(wrels[locks[i]].name, label, n) == 0)
			return 1;
	return 0;
}

static void
bad(const struct record *rec, const char *what, const char *val)
{
	diex(EX_DATAERR, "%s:%lu: %s record: %s '%s'", rec->file, rec->line,
	    show(rec->f[COL_KIND]), what, show(val));
}

static uint64_t
opt(const struct record *rec, size_t col)
{
	uint64_t v;

	return record_u64_opt(rec, col, &v) ? v : NO_TIME;
}

static int
opt_fd(const struct record *rec, size_t col)
{
	uint64_t v;

	if (!record_u64_opt(rec, col, &v))
		return NO_FD;
	if (v > INT32_MAX)
		bad(rec, "no file descriptor", record_str(rec, col));
	return v;
}

static void
common(const struct record *rec, uint64_t *time, uint32_t *pid,
    uint32_t *tid, int need_tid)
{
	uint64_t v;

	if (rec->time == NO_TIME)
		bad(rec, "no time", "");
	*time = rec->time;
	if (!record_u64_opt(rec, COL_PID, &v) || v == 0 || v > UINT32_MAX)
		bad(rec, "no process", record_str(rec, COL_PID));
	*pid = v;
	*tid = record_u64_opt(rec, COL_TID, &v) ? v : 0;
	if (need_tid && *tid == 0)
		bad(rec, "no thread", record_str(rec, COL_TID));
}

int
wait_parse(const struct record *rec, struct wait_rec *w)
{
	if (!record_is(rec, KIND_WAIT))
		return 0;
	if (rec->nf < WC_ARG)
		bad(rec, "too few columns", "");
	common(rec, &w->time, &w->pid, &w->tid, 1);
	w->state = record_str(rec, WC_STATE);
	w->call = record_str(rec, WC_CALL);
	w->fd = opt_fd(rec, WC_FD);
	w->type = record_str(rec, WC_TYPE);
	w->object = record_str(rec, WC_OBJECT);
	if ((w->mode = wmode_find(record_str(rec, WC_MODE))) < 0)
		bad(rec, "unknown mode", record_str(rec, WC_MODE));
	w->timeout = opt(rec, WC_TIMEOUT);
	w->deadline = opt(rec, WC_DEADLINE);
	w->since = opt(rec, WC_SINCE);
	w->via = record_str(rec, WC_VIA);
	w->wchan = record_str(rec, WC_WCHAN);
	w->comm = record_str(rec, WC_COMM);
	w->args = NULL;
	w->nargs = rec->nf - WC_ARG;
	return 1;
}

int
holder_parse(const struct record *rec, struct holder_rec *h)
{
	if (rec->comment || strcmp(rec->f[COL_KIND], KIND_HOLDER) != 0)
		return 0;
	if (rec->nf <= HC_COMM)
		bad(rec, "too few columns", "");
	common(rec, &h->time, &h->pid, &h->tid, 0);
	h->object = record_str(rec, HC_OBJECT);
	if (*h->object == '\0')
		bad(rec, "no object", "");
	if ((h->rel = wrel_find(record_str(rec, HC_RELATION))) < 0)
		bad(rec, "unknown relation", record_str(rec, HC_RELATION));
	h->fd = opt_fd(rec, HC_FD);
	h->through = record_str(rec, HC_THROUGH);
	h->detail = record_str(rec, HC_DETAIL);
	h->comm = record_str(rec, HC_COMM);
	return 1;
}

static void
opt_write(struct writer *wr, uint64_t v)
{
	if (v == NO_TIME)
		writer_empty(wr);
	else
		writer_u64(wr, v);
}

static void
fd_write(struct writer *wr, int fd)
{
	if (fd == NO_FD)
		writer_empty(wr);
	else
		writer_u64(wr, fd);
}

void
wait_write(struct writer *wr, const struct wait_rec *w)
{
	int i;

	writer_begin(wr, KIND_WAIT);
	writer_time(wr, w->time);
	writer_u64(wr, w->pid);
	writer_u64(wr, w->tid);
	writer_str(wr, w->state);
	writer_str(wr, w->call);
	fd_write(wr, w->fd);
	writer_str(wr, w->type);
	writer_str(wr, w->object);
	writer_str(wr, wmode_names[w->mode]);
	opt_write(wr, w->timeout);
	opt_write(wr, w->deadline);
	opt_write(wr, w->since);
	writer_str(wr, w->via);
	writer_str(wr, w->wchan);
	writer_str(wr, w->comm);
	for (i = 0; w->args != NULL && i < w->nargs; i++)
		writer_hex(wr, w->args[i]);
	writer_end(wr);
}

void
holder_write(struct writer *wr, const struct holder_rec *h)
{
	writer_begin(wr, KIND_HOLDER);
	writer_time(wr, h->time);
	writer_u64(wr, h->pid);
	if (h->tid == 0)
		writer_empty(wr);
	else
		writer_u64(wr, h->tid);
	writer_str(wr, h->object);
	writer_str(wr, wrels[h->rel].name);
	fd_write(wr, h->fd);
	writer_str(wr, h->through);
	writer_str(wr, h->detail);
	writer_str(wr, h->comm);
	writer_end(wr);
}

void
sock_write(struct writer *wr, const struct sock_rec *s)
{
	writer_begin(wr, KIND_SOCK);
	writer_time(wr, s->time);
	writer_u64(wr, s->pid);
	writer_empty(wr);
	writer_str(wr, s->object);
	fd_write(wr, s->fd);
	writer_str(wr, s->proto);
	writer_str(wr, s->local);
	writer_str(wr, s->remote);
	writer_str(wr, s->state);
	writer_str(wr, s->comm);
	writer_end(wr);
}

int
sock_parse(const struct record *rec, struct sock_rec *s)
{
	uint64_t fd;

	if (rec->comment || strcmp(rec->f[COL_KIND], KIND_SOCK) != 0)
		return 0;
	s->time = rec->time;
	s->pid = record_pid(rec, COL_PID);
	s->object = record_str(rec, SK_OBJECT);
	s->fd = record_u64_opt(rec, SK_FD, &fd) && fd <= INT32_MAX ?
	    (int)fd : NO_FD;
	s->proto = record_str(rec, SK_PROTO);
	s->local = record_str(rec, SK_LOCAL);
	s->remote = record_str(rec, SK_REMOTE);
	s->state = record_str(rec, SK_STATE);
	s->comm = record_str(rec, SK_COMM);
	return 1;
}
