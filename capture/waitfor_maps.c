/*
 * Pass 5 of the wait-for snapshot (waitfor.c): the memory pollers share.
 *
 * A thread that spins, or naps between tries, waits for a write to memory,
 * which the kernel does not see: no object, no holder.  Where its process
 * shares writable memory with others (a MAP_SHARED mapping of a file, of
 * /dev/shm, a memfd, anonymous memory a fork left shared), the flag may be
 * there, and one of those others the one that should write it: each such
 * mapping is a wait of mode flag, and each process that maps it writable,
 * the poller's own too, its mapper.  A suspect, no more; argus-slice
 * weighs them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <uthash.h>

#include "util.h"
#include "waits.h"
#include "waitfor.h"
#include "waitfor_int.h"

#define SHM_PER_PROC	8	/* a poller's process's mappings, at most */
#define MAPPERS_MAX	16	/* the processes named of one mapping, the
				   poller's own first */

/* A writable shared mapping, and the processes that map it so. */
struct shm {
	char		 key[KEYLEN];	/* shm:MAJ:MIN:INO */
	char		 path[64];
	int		 pids[MAPPERS_MAX];
	int		 npids, done;
	UT_hash_handle	 hh;
};

struct scan {
	struct shm	**shms;
	int		 pid;
	int		 poller;	/* its mappings are added, not only met */
	int		 n;
};

/*
 * A maps line of writable shared memory: its key and path, else 0.  A
 * device's mapping (a GPU's, a frame buffer) is the driver's, no flag.
 */
static int
shared_line(const char *line, char *key, size_t size, char *path,
    size_t psize)
{
	const char *sp = strchr(line, ' ');
	unsigned long long ino;
	unsigned maj, min;
	size_t n;
	int at = 0;

	if (sp == NULL || strlen(sp) < 5 || sp[2] != 'w' || sp[4] != 's' ||
	    sscanf(sp + 5, " %*x %x:%x %llu %n", &maj, &min, &ino, &at) < 3 ||
	    ino == 0)
		return 0;
	sp += 5 + at;
	if (strncmp(sp, "/dev/", 5) == 0 && strncmp(sp, "/dev/shm/", 9) != 0 &&
	    strncmp(sp, "/dev/zero", 9) != 0)
		return 0;
	n = strcspn(sp, "\n");
	snprintf(path, psize, "%.*s", (int)n, sp);
	snprintf(key, size, "%s:%u:%u:%llu", WT_SHM, maj, min, ino);
	return 1;
}

static void
add_pid(struct shm *m, int pid)
{
	int i;

	for (i = 0; i < m->npids; i++)
		if (m->pids[i] == pid)
			return;
	if (m->npids < (int)ARRAY_LEN(m->pids))
		m->pids[m->npids++] = pid;
}

static int
scan_line(const char *line, void *arg)
{
	struct scan *sc = arg;
	char key[KEYLEN], path[64];
	struct shm *m;

	if (!shared_line(line, key, sizeof(key), path, sizeof(path)))
		return 0;
	HASH_FIND_STR(*sc->shms, key, m);
	if (m == NULL && sc->poller && sc->n < SHM_PER_PROC) {
		m = xcalloc(1, sizeof(*m));
		snprintf(m->key, sizeof(m->key), "%s", key);
		snprintf(m->path, sizeof(m->path), "%s", path);
		HASH_ADD_STR(*sc->shms, key, m);
		sc->n++;
	}
	if (m != NULL)
		add_pid(m, sc->pid);
	return 0;
}

/*
 * A poller: running (a spin), or asleep on nothing but its own timer (a
 * nap between tries).  Per thread, from the waits pass 2 gave it.
 */
static uint8_t *
pollers(const struct wf_snap *s)
{
	uint8_t *p = xcalloc(s->nthr + 1, 1);
	size_t i;

	for (i = 0; i < s->nthr; i++)
		p[i] = s->thr[i].state[0] == 'R';
	/* A blocked thread's waits: 1 for a sleep, 2 for anything else. */
	for (i = 0; i < s->nw; i++)
		if (s->thr[s->w[i].thr].state[0] != 'R')
			p[s->w[i].thr] |= s->w[i].mode == WM_SLEEP ? 1 : 2;
	for (i = 0; i < s->nthr; i++)
		p[i] = p[i] == 1;
	return p;
}

/* Each thread's waits together, in the order they came: a stable merge. */
static void
merge_waits(struct wf_snap *s, size_t n0)
{
	struct wt *m = xmalloc(s->nw * sizeof(*m));
	size_t i = 0, j = n0, k = 0;

	while (i < n0 || j < s->nw)
		m[k++] = j == s->nw || (i < n0 && s->w[i].thr <= s->w[j].thr) ?
		    s->w[i++] : s->w[j++];
	memcpy(s->w, m, s->nw * sizeof(*m));
	free(m);
}

void
wf_find_mappers(struct wf_snap *s)
{
	struct shm *shms = NULL, *set, *m, *tmp;
	struct scan sc = { &shms, 0, 1, 0 };
	struct proc *p, *ptmp;
	struct thr *t;
	struct wt *w;
	struct hd *h;
	uint8_t *poll = pollers(s);
	size_t i, n0 = s->nw;
	int j, last = 0, any;

	/* The pollers' processes' mappings (threads come by process). */
	for (i = 0; i < s->nthr; i++)
		if (poll[i] && s->thr[i].pid != last) {
			last = sc.pid = s->thr[i].pid;
			sc.n = 0;
			wf_maps_each(sc.pid, scan_line, &sc);
		}
	/* Who else maps them: every process's maps, only if there are any. */
	sc.poller = 0;
	if (shms != NULL)
		HASH_ITER(hh, s->procs, p, ptmp) {
			if (p->kthread || p->skip)
				continue;
			sc.pid = p->pid;
			wf_maps_each(sc.pid, scan_line, &sc);
		}
	for (i = 0; i < s->nthr; i++) {
		t = &s->thr[i];
		any = 0;
		set = poll[i] ? shms : NULL;
		HASH_ITER(hh, set, m, tmp) {
			if (m->npids < 2)
				continue;
			for (j = 0; j < m->npids && m->pids[j] != t->pid; j++)
				;
			if (j == m->npids)
				continue;
			w = wf_add_wait(s, i, NO_FD, WM_FLAG);
			w->o.type = OT_OTHER;
			w->o.kind = WT_SHM;
			snprintf(w->o.key, sizeof(w->o.key), "%s", m->key);
			any = 1;
			/* Each once, the poller's own process too. */
			if (m->done++)
				continue;
			for (j = 0; j < m->npids; j++) {
				h = wf_add_holder(s, m->key, WR_MAPPER,
				    m->pids[j], 0, NO_FD);
				snprintf(h->detail, sizeof(h->detail), "%s",
				    m->path);
			}
		}
		t->bare = t->running && !any;
	}
	if (s->nw > n0)
		merge_waits(s, n0);
	HASH_FREE(hh, shms);
	free(poll);
}
