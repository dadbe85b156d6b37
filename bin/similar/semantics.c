/*
 * What a vertex does, as far as a baseline goes: the system calls its own
 * thread made in it (task context, in order, a run of one call folded
 * into one), each with the descriptor it works on where it takes one
 * ("recvfrom:5": the same socket is the same peer, within one run of a
 * program, which is where baselines come from), and a futex with the
 * word it works on, as "futex:ADDR" (the same lock, event or condition
 * of the process: a thread's waits on one are the same wait, where a
 * futex on another word, at start-up say, is not); the kinds of link
 * into it and out of it to other threads; and, once events carry them,
 * the symbols of its stacks.  Not part of it: how long it took and how it
 * ended (its outcome), nor other arguments, which are addresses and
 * sizes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <uthash.h>

#include "similar.h"

struct name {
	char		*s;
	uint16_t	 id;
	UT_hash_handle	 hh;
};

static struct name	*by_name;
static char		**names;
static uint16_t		*bases;
static uint16_t		 nnames;

/* Calls whose first argument is a descriptor: the object they work on. */
static const char *const fd_calls[] = {
	"read", "write", "readv", "writev", "pread64", "pwrite64", "preadv",
	"pwritev", "preadv2", "pwritev2", "sendto", "recvfrom", "sendmsg",
	"recvmsg", "sendmmsg", "recvmmsg", "accept", "accept4", "connect",
	"shutdown", "epoll_wait", "epoll_pwait", "epoll_pwait2", "fsync",
	"fdatasync", "ioctl", "io_uring_enter", "flock", "sendfile",
	"splice", "tee",
};

static int
takes_fd(const char *name)
{
	size_t i;

	for (i = 0; i < ARRAY_LEN(fd_calls); i++)
		if (strcmp(fd_calls[i], name) == 0)
			return 1;
	return 0;
}

/*
 * A process makes a futex of any word it likes, a descriptor of a few:
 * past this many names, a futex's word is left out (a table of names
 * that filled up would give the new ones one id, the same for all).
 */
#define WORD_NAMES	(UINT16_MAX / 2)

uint16_t
sys_intern(const char *s)
{
	struct name *n;

	if (nnames == 0 && *s != '\0')
		sys_intern("");		/* id 0 names nothing: "no stack" */
	HASH_FIND_STR(by_name, s, n);
	if (n != NULL)
		return n->id;
	if (nnames == UINT16_MAX)
		return UINT16_MAX - 1;	/* absurd: share the last name */
	n = xcalloc(1, sizeof(*n));
	n->s = xstrdup(s);
	n->id = nnames;
	HASH_ADD_KEYPTR(hh, by_name, n->s, strlen(n->s), n);
	names = xrealloc(names, (nnames + 1) * sizeof(*names));
	bases = xrealloc(bases, (nnames + 1) * sizeof(*bases));
	names[nnames] = n->s;
	bases[nnames] = nnames;
	nnames++;
	/* "read:5" is a read; "recv_msg<ask_help" waits in recv_msg. */
	if (strpbrk(s, ":<") != NULL) {
		char base[64];
		uint16_t id;

		snprintf(base, sizeof(base), "%.*s", (int)strcspn(s, ":<"), s);
		id = sys_intern(base);	/* may move bases: not in one statement */
		bases[n->id] = id;
	}
	return n->id;
}

uint16_t
sys_base(uint16_t id)
{
	return id < nnames ? bases[id] : id;
}

static const char *
sys_name(uint16_t id)
{
	return id < nnames ? names[id] : "?";
}

void
sem_add_syscall(struct vsem *v, const char *name, const char *arg0)
{
	char call[96];
	uint16_t id;
	unsigned long long fd;
	char *end;

	if (arg0[0] != '\0' && (takes_fd(name) ||
	    (strcmp(name, "futex") == 0 && nnames < WORD_NAMES))) {
		fd = strtoull(arg0, &end, 0);
		snprintf(call, sizeof(call), "%s:%llu", name, fd);
		id = sys_intern(call);
	} else
		id = sys_intern(name);
	v->last = id;

	if (v->nsys > 0 && v->sys[v->nsys - 1] == id)
		return;
	if (v->nsys == MAX_SYS) {
		v->more = 1;
		return;
	}
	v->sys[v->nsys++] = id;
}

int
rule_id(const char *rule)
{
	const struct lrule *r = lrule_find(rule);

	return r != NULL ? r - lrules + 1 : 0;
}

const char *
rule_name(int id)
{
	return id > 0 ? lrules[id - 1].name : "other";
}

unsigned
rule_props(int id)
{
	return id > 0 ? lrules[id - 1].props : LR_WAKES;
}

/*
 * Stack symbols (argus-capture --stacks): where both waited in their
 * program, by name, not address: the same function called from the same
 * one 1, from another 0.5 (a helper such as recv_msg serves many
 * purposes).  < 0 says "no stacks to compare" and score.c leaves them out.
 */
double
sem_stack_similarity(const struct vsem *a, const struct vsem *b)
{
	if (a->where == 0 || b->where == 0)
		return -1;
	if (a->where == b->where)
		return 1;
	return sys_base(a->where) == sys_base(b->where) ? 0.5 : 0;
}

/* "write,poll": names only (with ",..." when calls were dropped). */
size_t
sem_syscalls(const struct vsem *v, char *buf, size_t len)
{
	size_t n = 0, i;

	buf[0] = '\0';
	for (i = 0; i < v->nsys && n < len; i++) {
		if (i > 0 && sys_base(v->sys[i]) == sys_base(v->sys[i - 1]))
			continue;
		n += snprintf(buf + n, len - n, "%s%s", i ? "," : "",
		    sys_name(sys_base(v->sys[i])));
	}
	if (v->more && n < len)
		n += snprintf(buf + n, len - n, ",...");
	if (v->nsys == 0 && len > 0)
		n = snprintf(buf, len, "none");
	return n < len ? n : len - 1;
}
