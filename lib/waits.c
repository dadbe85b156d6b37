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
	[WM_FLAG] = "flag", [WM_VERDICT] = "verdict", [WM_ANSWER] = "answer",
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
	[WR_TRACER] = { "tracer", M(WM_STOP),
	    "traces the thread stopped for it (ptrace): it resumes it", .role = 1 },
	[WR_THREAD] = { "thread", M(WM_FUTEX),
	    "a thread the waiter joins: its exit ends the wait" },
	[WR_TERMINAL] = { "terminal", M_IN | M_OUT,
	    "holds the pseudo-terminal's master side: types its input, "
	    "takes its output" },
	[WR_LAST_OP] = { "last-op", M(WM_LOCK),
	    "operated last on the semaphore: took it, if it is still held" },
	/*
	 * Nothing says the flag is in that mapping, nor that this process
	 * writes it: a suspect, not the kernel's word (the shared rule's).
	 */
	[WR_MAPPER] = { "mapper", M(WM_FLAG),
	    "maps the same shared memory writable: may write the flag a "
	    "poller reads" },
	[WR_ARBITER] = { "arbiter", M(WM_VERDICT),
	    "decides fanotify permission events (a scanner): the access "
	    "waits for its answer", .role = 1 },
	[WR_SERVER] = { "server", M(WM_ANSWER),
	    "serves the FUSE file system the call waits on (its daemon): "
	    "the call goes on when it answers", .role = 1 },
	[WR_PROCESS] = { "process", M_IN,
	    "the process a pidfd refers to: its exit makes the pidfd "
	    "readable" },
	[WR_SUPERVISOR] = { "supervisor", M(WM_ANSWER),
	    "holds a seccomp filter's listener: the call held for its "
	    "notification goes on when it answers", .role = 1 },
	[WR_HANDLER] = { "handler", M(WM_ANSWER),
	    "holds a userfaultfd with a fault outstanding: the access goes "
	    "on when it resolves the fault", .role = 1 },
};

int
wmode_find(const char *name)
{
	int i;

	for (i = 0; i < WM_N; i++)
		if (strcmp(wmode_names[i], name) == 0)
			return i;
	return -1;
}

int
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
wrel_of_label(const char *label)
{
	char name[32];
	size_t n = strcspn(label, " ");

	if (n >= sizeof(name))
		return -1;
	memcpy(name, label, n);
	name[n] = '\0';
	return wrel_find(name);
}

int
wrel_label_is_lock(const char *label)
{
	int rel = wrel_of_label(label);

	return rel == WR_LOCK_HOLDER || rel == WR_OWNER;
}

int
wrel_label_is_role(const char *label)
{
	int rel = wrel_of_label(label);

	return rel >= 0 && wrels[rel].role;
}
