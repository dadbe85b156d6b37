/*
 * The wait-for snapshot, in five passes over /proc:
 *
 *   1. threads: every thread's state; for a blocked one its system call
 *      and arguments, wchan and when it last ran;
 *   2. calls: what each blocked call waits on, from its arguments (an fd,
 *      a poll or select set read from its memory, an epoll instance's
 *      watched fds, a child, a futex word) and until when;
 *   3. descriptors: one readlink of every fd of every process, kept only
 *      where it names an object someone waits on or its other end, so
 *      that the cost is one pass however many waits there are;
 *   4. holders: who holds each such object, and how (fdinfo's flags for a
 *      pipe's ends, sock_diag for a socket's peer, /proc/locks and fdinfo
 *      lock lines for a file lock, ppid for children);
 *   5. shared memory: for a thread that runs or naps, as a poller does,
 *      the writable shared mappings its process has in common with
 *      others, and those others (maps).
 *
 * Then, with roots, the closure: from the roots' waits to the processes
 * that hold their objects' other ends, to those processes' own waits.
 */
#include <sys/types.h>
#include <sys/resource.h>

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <uthash.h>

#include "event.h"
#include "util.h"
#include "waits.h"
#include "sockdiag.h"
#include "waitfor.h"
#include "waitfor_int.h"

/*
 * The closure: roots, then every blocked thread of a process that holds
 * what a kept thread waits for, as long as that grows.  A running thread
 * that polls no shared memory (bare, pass 5) is in no snapshot.
 */
static void
closure(struct wf_snap *s)
{
	const struct wf_opts *o = s->opt;
	struct proc *p;
	struct wt *w;
	size_t i, j;
	int grew = 1;

	if (o->npids == 0 && o->ntids == 0 && o->ncomms == 0) {
		for (i = 0; i < s->nthr; i++)
			s->thr[i].keep = !s->thr[i].bare;
		return;
	}
	for (i = 0; i < s->nthr; i++)
		s->thr[i].keep = s->thr[i].root;
	/* Holders by object, found again from the done table's keys. */
	while (grew) {
		grew = 0;
		for (i = 0; i < s->nw; i++) {
			w = &s->w[i];
			if (!s->thr[w->thr].keep || w->chained)
				continue;
			w->chained = 1;
			for (j = 0; j < s->nh; j++)
				if (strcmp(s->h[j].obj, w->o.key) == 0 &&
				    wrel_ends(s->h[j].rel, w->mode) &&
				    (p = wf_proc_get(s, s->h[j].pid)) != NULL &&
				    !p->keep) {
					p->keep = 1;
					grew = 1;
				}
		}
		for (i = 0; i < s->nthr; i++)
			if (!s->thr[i].keep && !s->thr[i].bare &&
			    (p = wf_proc_get(s, s->thr[i].pid)) != NULL &&
			    p->keep) {
				s->thr[i].keep = 1;
				grew = 1;
			}
	}
	HASH_FREE(hh, s->done);
}

static int
cmp_thr(const void *a, const void *b)
{
	const struct thr *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

struct wf_snap *
wf_take(const struct wf_opts *o)
{
	struct wf_snap *s = xcalloc(1, sizeof(*s));
	uint64_t end;
	size_t i;
	int prio, boosted;

	/*
	 * A snapshot is of one moment, the hang's, on a machine that may be
	 * busy with the very hang: ahead of the crowd while it reads, as its
	 * providers are (root only; anyone else stays as it was).  Behind
	 * it, a runtime's answer comes after the lock it names was let go.
	 */
	errno = 0;
	prio = getpriority(PRIO_PROCESS, 0);
	boosted = errno == 0 && prio > SNAPSHOT_NICE &&
	    setpriority(PRIO_PROCESS, 0, SNAPSHOT_NICE) == 0;
	s->opt = o;
	s->t0 = now_ns();
	s->rt_off = wf_clock_ns(CLOCK_REALTIME) - s->t0;
	s->boot_off = wf_clock_ns(CLOCK_BOOTTIME) - s->t0;
	s->st.time = s->t0;
	wf_sched_calibrate();
	wf_scan_threads(s);
	qsort(s->thr, s->nthr, sizeof(*s->thr), cmp_thr);
	for (i = 0; i < s->nthr; i++)
		wf_decode(s, i);
	wf_collect_wants(s);
	wf_scan_fds(s);
	wf_find_holders(s);
	wf_find_mappers(s);
	closure(s);
	if (wf_providers(s)) {
		for (i = 0; i < s->nw; i++)
			s->w[i].chained = 0;
		closure(s);
	}
	end = now_ns();
	s->st.ns = end - s->t0;
	if (boosted)
		setpriority(PRIO_PROCESS, 0, prio);
	return s;
}

/* Records of kept threads, and the holders of what they wait on. */
/*
 * The TCP and UDP sockets of each process with a thread in the snapshot,
 * with their address pairs: a wait on one whose peer is on another host,
 * and a process there that holds that peer, meet by them (argus-cat(1)).
 */
static void
write_socks(struct writer *wr, struct wf_snap *s)
{
	char path[64], link[64];
	const struct sockinfo *si;
	struct sock_rec r;
	struct done *seen = NULL, *d;
	struct dirent *de;
	struct proc *p;
	unsigned long ino;
	ssize_t n;
	size_t i;
	int k;
	DIR *dir;

	for (i = 0; i < s->nthr; i++) {
		if (!s->thr[i].keep)
			continue;
		snprintf(path, sizeof(path), "%d", s->thr[i].pid);
		HASH_FIND_STR(seen, path, d);
		if (d != NULL)
			continue;
		d = xcalloc(1, sizeof(*d));
		snprintf(d->key, sizeof(d->key), "%s", path);
		HASH_ADD_STR(seen, key, d);
		snprintf(path, sizeof(path), "/proc/%d/fd", s->thr[i].pid);
		if ((dir = opendir(path)) == NULL)
			continue;
		while ((de = readdir(dir)) != NULL) {
			n = readlinkat(dirfd(dir), de->d_name, link,
			    sizeof(link) - 1);
			if (n <= 0)
				continue;
			link[n] = '\0';
			if (sscanf(link, "socket:[%lu]", &ino) != 1)
				continue;
			wf_load_diag(s);
			si = sockdiag_find(s->diag, ino);
			if (si == NULL || (si->listening ? si->nqueued == 0 :
			    si->local[0] == '\0'))
				continue;
			p = wf_proc_get(s, s->thr[i].pid);
			snprintf(link, sizeof(link), "socket:%lu", ino);
			memset(&r, 0, sizeof(r));
			r.time = s->t0;
			r.pid = s->thr[i].pid;
			r.object = link;
			r.fd = atoi(de->d_name);
			r.proto = sock_kind_name(si->kind);
			r.comm = p != NULL ? p->comm : "";
			if (!si->listening) {
				r.local = si->local;
				r.remote = si->remote;
				r.state = tcp_state_name(si->state);
				sock_write(wr, &r);
				continue;
			}
			/* Its queue: connections it holds, by the listener. */
			r.state = "LISTEN";
			for (k = 0; k < si->nqueued; k++) {
				r.local = si->queued[k].local;
				r.remote = si->queued[k].remote;
				sock_write(wr, &r);
			}
		}
		closedir(dir);
	}
	HASH_FREE(hh, seen);
}

void
wf_write(struct writer *wr, const struct wf_snap *s)
{
	struct wait_rec r;
	struct holder_rec h;
	struct done *seen = NULL, *d;
	struct thr *t;
	struct proc *p;
	const struct wt *w;
	size_t i, j;

	for (i = 0; i < s->nw; i++) {
		w = &s->w[i];
		t = &s->thr[w->thr];
		if (!t->keep)
			continue;
		r = (struct wait_rec){ .time = s->t0, .pid = t->pid,
		    .tid = t->tid, .state = t->state, .call = t->call,
		    .fd = w->fd, .type = w->o.kind ? w->o.kind : "",
		    .object = w->o.key, .mode = w->mode,
		    .timeout = w->timeout, .deadline = w->deadline,
		    .since = t->since, .via = w->via, .wchan = t->wchan,
		    .comm = t->comm, .args = t->a, .nargs = t->nargs };
		wait_write(wr, &r);
	}
	/* Each object's holders once, in the order its waits came. */
	for (i = 0; i < s->nw; i++) {
		w = &s->w[i];
		if (!s->thr[w->thr].keep || w->o.key[0] == '\0')
			continue;
		HASH_FIND_STR(seen, w->o.key, d);
		if (d != NULL)
			continue;
		d = xcalloc(1, sizeof(*d));
		snprintf(d->key, sizeof(d->key), "%s", w->o.key);
		HASH_ADD_STR(seen, key, d);
		for (j = 0; j < s->nh; j++) {
			if (strcmp(s->h[j].obj, w->o.key) != 0)
				continue;
			p = wf_proc_get((struct wf_snap *)s, s->h[j].pid);
			h = (struct holder_rec){ .time = s->t0,
			    .pid = s->h[j].pid, .tid = s->h[j].tid,
			    .object = s->h[j].obj, .rel = s->h[j].rel,
			    .fd = s->h[j].fd, .through = s->h[j].through,
			    .detail = s->h[j].detail,
			    .comm = p != NULL ? p->comm : "" };
			holder_write(wr, &h);
		}
	}
	HASH_FREE(hh, seen);
	write_socks(wr, (struct wf_snap *)s);
	wf_providers_write(wr, s);
}

void
wf_stats(const struct wf_snap *s, struct wf_stats *st)
{
	size_t i, j;

	*st = s->st;
	st->waits = st->holders = 0;
	for (i = 0; i < s->nw; i++)
		if (s->thr[s->w[i].thr].keep)
			st->waits++;
	for (j = 0; j < s->nh; j++)
		for (i = 0; i < s->nw; i++)
			if (s->thr[s->w[i].thr].keep &&
			    strcmp(s->h[j].obj, s->w[i].o.key) == 0) {
				st->holders++;
				break;
			}
}

void
wf_free(struct wf_snap *s)
{
	size_t i;

	if (s == NULL)
		return;
	HASH_FREE(hh, s->procs);
	HASH_FREE_OWN(hh, s->wants, x, x->link, x->refs);
	HASH_FREE(hh, s->mnts);
	HASH_FREE(hh, s->done);
	for (i = 0; i < s->nw; i++)
		free(s->w[i].o.path);
	wf_providers_free(s);
	sockdiag_free(s->diag);
	free(s->thr);
	free(s->w);
	free(s->h);
	free(s->locks);
	free(s);
}
