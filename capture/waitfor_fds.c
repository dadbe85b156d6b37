/*
 * Pass 3 of the wait-for snapshot (waitfor.c): one readlink of every fd
 * of every process, kept only where it names an object someone waits on
 * or its other end, so that the cost is one pass however many waits
 * there are.
 */
#include <sys/types.h>

#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <uthash.h>

#include "util.h"
#include "waits.h"
#include "sockdiag.h"
#include "waitfor.h"
#include "waitfor_int.h"

/* Pass 3: one readlink of every fd, kept where wanted. */

static void
want(struct wf_snap *s, const char *link)
{
	struct want *x;

	HASH_FIND_STR(s->wants, link, x);
	if (x != NULL)
		return;
	x = xcalloc(1, sizeof(*x));
	x->link = xstrdup(link);
	HASH_ADD_KEYPTR(hh, s->wants, x->link, strlen(x->link), x);
}

struct want *
wf_wanted(const struct wf_snap *s, const char *link)
{
	struct want *x;

	HASH_FIND_STR(s->wants, link, x);
	return x;
}

static void
want_sock(struct wf_snap *s, uint64_t ino)
{
	char link[KEYLEN];

	snprintf(link, sizeof(link), "socket:[%llu]", (unsigned long long)ino);
	want(s, link);
}

/*
 * The network namespaces to dump besides ours, at most: each costs a set
 * of dumps, and any user may make thousands (unshare -rn).
 */
#define NETNS_MAX	64

struct netns_seen {
	char		 link[48];
	UT_hash_handle	 hh;
};

/* Process pid's network namespace to paths, if new and not ours. */
static void
add_netns(struct netns_seen **seen, const char *self, int pid, char ***paths,
    size_t *n, size_t *cap)
{
	struct netns_seen *e;
	char path[64], link[48];
	ssize_t k;

	snprintf(path, sizeof(path), "/proc/%d/ns/net", pid);
	if (*n == NETNS_MAX ||
	    (k = readlink(path, link, sizeof(link) - 1)) <= 0)
		return;
	link[k] = '\0';
	HASH_FIND_STR(*seen, link, e);
	if (strcmp(link, self) == 0 || e != NULL)
		return;
	e = xcalloc(1, sizeof(*e));
	memcpy(e->link, link, sizeof(e->link));
	HASH_ADD_STR(*seen, link, e);
	GROW(*paths, *n, *cap);
	(*paths)[(*n)++] = xstrdup(path);
}

/*
 * A process of each network namespace but ours, as /proc/PID/ns/net: its
 * sockets are in no dump of ours (a container's).  One readlink a
 * process, and only where some thread waits on a socket; the roots'
 * namespaces first.  None where ours is not the machine's, kthreadd's
 * (pid 2: init may hide its own): a capture in a namespace of its own
 * stands for that host alone, as argus-cat(1)'s hosts do.
 */
static size_t
other_netns(const struct wf_snap *s, char ***paths)
{
	struct netns_seen *seen = NULL, *e, *tmp;
	char self[48], init[48];
	struct proc *p, *ptmp;
	size_t i, n = 0, cap = 0;
	ssize_t k;

	*paths = NULL;
	if ((k = readlink("/proc/self/ns/net", self, sizeof(self) - 1)) <= 0 ||
	    readlink("/proc/2/ns/net", init, sizeof(init) - 1) != k ||
	    memcmp(self, init, (size_t)k) != 0)
		return 0;
	self[k] = '\0';
	for (i = 0; i < s->nthr; i++)
		if (s->thr[i].root)
			add_netns(&seen, self, s->thr[i].pid, paths, &n, &cap);
	HASH_ITER(hh, s->procs, p, ptmp)
		if (!p->kthread)
			add_netns(&seen, self, p->pid, paths, &n, &cap);
	HASH_ITER(hh, seen, e, tmp) {
		HASH_DEL(seen, e);
		free(e);
	}
	return n;
}

void
wf_load_diag(struct wf_snap *s)
{
	char **netns;
	size_t i, n;

	if (!s->diag_tried) {
		s->diag_tried = 1;
		n = other_netns(s, &netns);
		s->diag = sockdiag_load(1, 1, (const char *const *)netns, n);
		for (i = 0; i < n; i++)
			free(netns[i]);
		free(netns);
	}
}

void
wf_collect_wants(struct wf_snap *s)
{
	const struct sockinfo *si;
	char link[KEYLEN];
	size_t i;
	struct wt *w;

	for (i = 0; i < s->nw; i++) {
		w = &s->w[i];
		switch (w->o.type) {
		case OT_PIPE:
			snprintf(link, sizeof(link), "pipe:[%llu]",
			    (unsigned long long)w->o.ino);
			want(s, link);
			break;
		case OT_SOCKET:
			wf_load_diag(s);
			if ((si = sockdiag_find(s->diag, w->o.ino)) == NULL)
				break;
			w->o.kind = sock_kind_name(si->kind);
			/*
			 * A listener is ready when a connection comes: its
			 * poller serves clients, whoever they will be.
			 */
			if (si->listening && w->mode == WM_IN)
				w->mode = WM_ACCEPT;
			if (si->peer != 0)
				want_sock(s, si->peer);
			else if (si->listener != 0)
				want_sock(s, si->listener);
			else if (w->o.id != 0)
				want_sock(s, w->o.id);
			if ((si = sockdiag_find(s->diag, si->peer)) != NULL &&
			    si->listener != 0)
				want_sock(s, si->listener);
			break;
		case OT_EVENTFD:
			want(s, "anon_inode:[eventfd]");
			break;
		case OT_FANOTIFY:
			want(s, FANOTIFY_LINK);
			break;
		case OT_FUSE:
			want(s, FUSE_LINK);
			break;
		case OT_SECCOMP:
			want(s, SECCOMP_LINK);
			break;
		case OT_USERFAULT:
			want(s, USERFAULT_LINK);
			break;
		case OT_PATH:
			/* A terminal's other end is its master (ptmx). */
			if (strcmp(w->o.kind, WT_TTY) == 0) {
				want(s, "/dev/ptmx");
				want(s, "/dev/pts/ptmx");
			} else if (w->o.path != NULL)	/* a lease's: none */
				want(s, w->o.path);
			break;
		default:
			break;
		}
	}
}

void
wf_scan_fds(struct wf_snap *s)
{
	char path[64], link[PATH_MAX];
	struct proc *p, *tmp;
	struct dirent *de;
	struct want *x;
	ssize_t n;
	DIR *d;
	int fd;

	if (s->wants == NULL)
		return;
	HASH_ITER(hh, s->procs, p, tmp) {
		if (p->kthread)
			continue;
		snprintf(path, sizeof(path), "/proc/%d/fd", p->pid);
		if ((d = opendir(path)) == NULL)
			continue;
		while ((de = readdir(d)) != NULL) {
			if (de->d_name[0] == '.')
				continue;
			n = readlinkat(dirfd(d), de->d_name, link,
			    sizeof(link) - 1);
			if (n <= 0)
				continue;
			link[n] = '\0';
			s->st.fds++;
			if ((x = wf_wanted(s, link)) == NULL)
				continue;
			fd = atoi(de->d_name);
			GROW(x->refs, x->n, x->cap);
			x->refs[x->n].pid = p->pid;
			x->refs[x->n++].fd = fd;
		}
		closedir(d);
	}
}

