/*
 * The patched processes' rings (patchers/ubuf.h): found in one directory,
 * mapped, read in time order, merged with the kernel's events by emit.c.
 * Everything in a ring was written by the traced program, so it is data
 * to check, never to trust: names are bounded, indexes range-checked.
 *
 * A thread of ours empties the rings every millisecond into queues in
 * our memory (bounded: beyond it, the oldest are dropped and counted
 * lost, as a flight recorder would), so that a
 * busy program's ring never waits for the formatter, which writes events
 * only once the kernel's are known up to their time.  A process's file is
 * removed once it is read to its end and it can add no more: the process
 * is gone, or exec'd (a newer file of the same pid).
 */
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include <dirent.h>
#include <pthread.h>
#include <sched.h>
#include <time.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <stdatomic.h>

#include "util.h"
#include "file.h"
#include "patched.h"

#define MAXFILES	256
#define MAXSETS		16
#define MAXTYPES	1024
#define DRAIN_NS	1000000ULL	/* the rings' emptying */
#define IDLE_NS		50000000ULL	/* the directory's, when it has none */
#define HORIZON_NS	5000000ULL	/* a stamp's way to its commit */
#define STARVED_NS	1000000000ULL	/* the longest kernel events wait */
#define QUEUED_MAX	(1 << 20)	/* events held, all queues */

struct ufile {
	struct ubuf_hdr	*h;
	char		 name[64];
	int		 pid, gen;
	int		 q[UBUF_SLOTS];		/* its rings' queues; -1: none */
	uint32_t	 unslotted;		/* its threads' losses, reported */
	uint16_t	 type[UBUF_PROBES];	/* its names, as ours */
};

struct qev {
	struct ubuf_event e;
	int		 pid;
	uint16_t	 type;
};

/* One ring's events: the drainer appends to in, the formatter reads rd. */
struct queue {
	int		 used, dead;
	struct qev	*in, *rd;
	size_t		 nin, capin, nrd, caprd, rpos;
};

static char		 dir[PATH_MAX];
static int		 made_dir;	/* ours to remove */
static int		 dfd = -1;
static const char	*sets[MAXSETS];
static int		 nsets;
static int		 dir_given;
static struct ufile	 files[MAXFILES];
static int		 nfiles;
static uint64_t		 horizon;
static char		*types[MAXTYPES];
static int		 ntypes;
static struct queue	*queues;
static int		 nqueues;
static size_t		 held;		/* events queued, not yet written */
static uint64_t		 lost;
static pthread_mutex_t	 qlock = PTHREAD_MUTEX_INITIALIZER;
static _Atomic int	 stopping;
static _Atomic uint64_t	 passed;	/* the last drain began then */
static _Atomic int	 drainer_tid;
static pthread_t	 drainer;
static int		 draining;
static int		 best = -1;	/* the queue peeked at; -1: none */
static int		 peeked;
static char		 env_sets[8192];

void
patched_set(const char *name)
{
	char real[PATH_MAX];

	if (nsets == MAXSETS)
		diex(EX_USAGE, "--probes: more than %d sets", MAXSETS);
	/* A path for the program, which runs elsewhere; a name it finds. */
	if (strchr(name, '/') != NULL) {
		if (realpath(name, real) == NULL)
			die(EX_NOINPUT, "--probes %s", name);
		sets[nsets++] = xstrdup(real);
	} else
		sets[nsets++] = xstrdup(name);
}

void
patched_dir(const char *d)
{
	if (strlen(d) >= sizeof(dir))
		diex(EX_USAGE, "--patch-dir: path too long");
	snprintf(dir, sizeof(dir), "%s", d);
	dir_given = 1;
}

int
patched_wanted(void)
{
	return nsets > 0 || dir_given;
}

static void *drain_loop(void *);

/* The last drain: every ring read to its end, the drainer gone; 1 if now. */
int
patched_stop(void)
{
	static pthread_mutex_t joining = PTHREAD_MUTEX_INITIALIZER;
	int r = 0;

	/* The emitter's last drain and exit()'s cleanup: one joins. */
	pthread_mutex_lock(&joining);
	if (draining) {
		atomic_store(&stopping, 1);
		pthread_join(drainer, NULL);
		draining = 0;
		r = 1;
	}
	pthread_mutex_unlock(&joining);
	return r;
}

static void
cleanup(void)
{
	struct dirent *d;
	DIR *dp;

	patched_stop();
	if (!made_dir || dfd == -1)
		return;
	if ((dp = fdopendir(dup(dfd))) != NULL) {
		rewinddir(dp);	/* the offset is dfd's, shared */
		while ((d = readdir(dp)) != NULL)
			if (strstr(d->d_name, ".ubuf") != NULL)
				unlinkat(dfd, d->d_name, 0);
		closedir(dp);
	}
	rmdir(dir);
	made_dir = 0;
}

void
patched_setup(int has_command)
{
	char *p = env_sets;
	int i;

	if (!patched_wanted())
		return;
	if (nsets > 0 && !has_command && !dir_given)
		diex(EX_USAGE, "--patch: probe sets are applied to a COMMAND "
		    "(-- COMMAND), or to programs started with LD_PRELOAD and "
		    "--patch-dir DIR (argus-patch(7))");
	if (!dir_given) {
		/* Memory, not a disk the rings' pages would be written to. */
		snprintf(dir, sizeof(dir), "%s/argus-patch.XXXXXX",
		    access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp");
		if (mkdtemp(dir) == NULL)
			die(EX_CANTCREAT, "%s", dir);
		made_dir = 1;
	}
	/* Whoever may write there may feed us events: ours alone, every
	 * step to it (lib/file.h). */
	dfd = private_dir(dir, 1);
	for (i = 0; i < nsets; i++)
		p += snprintf(p, env_sets + sizeof(env_sets) - p, "%s%s",
		    i ? ":" : "", sets[i]);
	atexit(cleanup);
	if ((errno = pthread_create(&drainer, NULL, drain_loop, NULL)) != 0)
		die(EX_OSERR, "pthread_create");
	draining = 1;
	while (atomic_load(&drainer_tid) == 0)
		sched_yield();
}

int
patched_tid(void)
{
	return atomic_load(&drainer_tid);
}

/* The library beside us: the build tree's patchers/, or PREFIX/lib/argus. */
static int
find_lib(char *out, size_t size)
{
	static const char *const rel[] = { "../patchers", "../lib/argus" };
	char self[PATH_MAX], *slash;
	const char *env = getenv("ARGUS_PATCH_LIB");
	ssize_t n;
	size_t i;

	if (env != NULL && *env != '\0') {
		snprintf(out, size, "%s", env);
		return access(out, R_OK);
	}
	if ((n = readlink("/proc/self/exe", self, sizeof(self) - 1)) == -1)
		return -1;
	self[n] = '\0';
	if ((slash = strrchr(self, '/')) != NULL)
		*slash = '\0';
	for (i = 0; i < ARRAY_LEN(rel); i++) {
		if ((size_t)snprintf(out, size, "%s/%s/libargus-patch.so", self,
		    rel[i]) < size && access(out, R_OK) == 0)
			return 0;
	}
	return -1;
}

/* In the command's child: preload the patcher, which reads these. */
void
patched_child_env(void)
{
	char lib[PATH_MAX], pre[2 * PATH_MAX + 2];
	const char *old = getenv("LD_PRELOAD");

	if (nsets == 0)
		return;
	if (find_lib(lib, sizeof(lib)) == -1) {
		fprintf(stderr, "argus-capture: libargus-patch.so not found "
		    "(built without libzydis-dev?): the command runs "
		    "unpatched\n");
		return;
	}
	if (old != NULL && *old != '\0')
		snprintf(pre, sizeof(pre), "%s:%s", lib, old);
	else
		snprintf(pre, sizeof(pre), "%s", lib);
	setenv("LD_PRELOAD", pre, 1);
	setenv("ARGUS_PATCH", env_sets, 1);
	setenv("ARGUS_PATCH_DIR", dir, 1);
	patched_audit_env(lib);
}

/*
 * The loader's auditor beside the library, so that the libraries the
 * command dlopen()s later are patched too (patchers/audit.c).  Without
 * it, only what is loaded at start-up is.
 */
void
patched_audit_env(const char *lib)
{
	char audit[PATH_MAX], val[2 * PATH_MAX + 2], *slash;
	const char *old = getenv("LD_AUDIT");

	snprintf(audit, sizeof(audit), "%s", lib);
	if ((slash = strrchr(audit, '/')) == NULL)
		return;
	snprintf(slash + 1, sizeof(audit) - (slash + 1 - audit),
	    "libargus-audit.so");
	if (access(audit, R_OK) == -1)
		return;
	if (old != NULL && *old != '\0')
		snprintf(val, sizeof(val), "%s:%s", audit, old);
	else
		snprintf(val, sizeof(val), "%s", audit);
	setenv("LD_AUDIT", val, 1);
}

const char *
patched_desc(int i)
{
	static char buf[PATH_MAX + 64];

	if (!patched_wanted())
		return NULL;
	if (i == 0) {
		snprintf(buf, sizeof(buf), "dir %s", dir);
		return buf;
	}
	if (i - 1 < nsets) {
		snprintf(buf, sizeof(buf), "set %s", sets[i - 1]);
		return buf;
	}
	return NULL;
}

int
patched_active(void)
{
	return dfd != -1;
}

/* Our number for an event TYPE, the same for every file that names it. */
static int
type_id(const char *name)
{
	int i;

	for (i = 0; i < ntypes; i++)
		if (strcmp(types[i], name) == 0)
			return i;
	if (ntypes == MAXTYPES)
		return -1;
	types[ntypes] = xstrdup(name);
	return ntypes++;
}

static int
known(const char *name)
{
	int i;

	for (i = 0; i < nfiles; i++)
		if (strcmp(files[i].name, name) == 0)
			return 1;
	return 0;
}

/* A file the program published: right size, ours to read, magic set. */
static void
take(const char *name, int pid, int gen)
{
	char n[UBUF_NAMELEN];
	struct ufile *f;
	struct ubuf_hdr *h;
	struct stat st;
	unsigned i;
	int fd, t;

	if (nfiles == MAXFILES || strlen(name) >= sizeof(f->name))
		return;
	if ((fd = openat(dfd, name, O_RDWR | O_NOFOLLOW | O_CLOEXEC)) == -1)
		return;
	if (fstat(fd, &st) == -1 || !S_ISREG(st.st_mode) ||
	    st.st_size != sizeof(*h)) {
		close(fd);
		return;		/* not yet sized, or not one of ours */
	}
	h = mmap(NULL, sizeof(*h), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (h == MAP_FAILED)
		return;
	if (__atomic_load_n(&h->magic, __ATOMIC_ACQUIRE) != UBUF_MAGIC ||
	    h->version != UBUF_VERSION || h->nslots != UBUF_SLOTS ||
	    h->nevents != UBUF_EVENTS || h->nprobes > UBUF_PROBES) {
		munmap(h, sizeof(*h));
		return;		/* not published yet: next scan */
	}
	f = &files[nfiles++];
	memset(f, 0, sizeof(*f));
	f->h = h;
	f->pid = pid;
	f->gen = gen;
	memcpy(f->name, name, strlen(name) + 1);
	for (i = 0; i < UBUF_SLOTS; i++)
		f->q[i] = -1;
	pthread_mutex_lock(&qlock);
	for (i = 0; i < h->nprobes; i++) {
		memcpy(n, h->name[i], UBUF_NAMELEN - 1);
		n[UBUF_NAMELEN - 1] = '\0';
		t = type_id(n);
		f->type[i] = t < 0 ? UINT16_MAX : t;
	}
	pthread_mutex_unlock(&qlock);
}

static int
drained(const struct ufile *f)
{
	int s;

	for (s = 0; s < UBUF_SLOTS; s++)
		if (__atomic_load_n(&f->h->slot[s].head, __ATOMIC_ACQUIRE) !=
		    f->h->slot[s].tail)
			return 0;
	return 1;
}

static int
newer(const struct ufile *f)
{
	int i;

	for (i = 0; i < nfiles; i++)
		if (files[i].pid == f->pid && files[i].gen > f->gen)
			return 1;
	return 0;
}

/* Under qlock. */
static int
queue_new(void)
{
	int i;

	for (i = 0; i < nqueues; i++)
		if (!queues[i].used)
			break;
	if (i == nqueues) {
		queues = xrealloc(queues, (nqueues + 1) * sizeof(*queues));
		nqueues++;
	}
	memset(&queues[i], 0, sizeof(queues[i]));
	queues[i].used = 1;
	return i;
}

static void
drop(int i)
{
	int s;

	pthread_mutex_lock(&qlock);
	for (s = 0; s < UBUF_SLOTS; s++)
		if (files[i].q[s] >= 0)
			queues[files[i].q[s]].dead = 1;
	pthread_mutex_unlock(&qlock);
	munmap(files[i].h, sizeof(struct ubuf_hdr));
	unlinkat(dfd, files[i].name, 0);
	files[i] = files[--nfiles];
}

static void
rescan(void)
{
	struct dirent *d;
	DIR *dp;
	int pid, gen, n;
	char tail[8];

	if ((dp = fdopendir(dup(dfd))) == NULL)
		return;
	rewinddir(dp);
	while ((d = readdir(dp)) != NULL) {
		n = sscanf(d->d_name, "%d-%d.%5s", &pid, &gen, tail);
		if (n != 3 || strcmp(tail, "ubuf") != 0 || pid <= 0 ||
		    known(d->d_name))
			continue;
		take(d->d_name, pid, gen);
	}
	closedir(dp);
}

/* One ring into its queue; the ring's room is the program's again. */
static void
drain_slot(struct ufile *f, int s)
{
	struct ubuf_slot *sl = &f->h->slot[s];
	uint64_t head = __atomic_load_n(&sl->head, __ATOMIC_ACQUIRE);
	uint64_t tail = sl->tail, l;
	struct queue *q;
	struct qev *x;

	l = __atomic_load_n(&sl->lost, __ATOMIC_RELAXED);
	if (l > sl->reported) {
		pthread_mutex_lock(&qlock);
		lost += l - sl->reported;
		pthread_mutex_unlock(&qlock);
		sl->reported = l;
	}
	if (head == tail)
		return;
	if (head - tail > UBUF_EVENTS)		/* not a ring we know */
		tail = head - UBUF_EVENTS;
	pthread_mutex_lock(&qlock);
	if (f->q[s] < 0)
		f->q[s] = queue_new();
	q = &queues[f->q[s]];
	for (; tail != head; tail++) {
		const struct ubuf_event *e = &sl->ev[tail & (UBUF_EVENTS - 1)];

		/* A formatter that stopped taking them: the new ones go. */
		if (held >= 2 * QUEUED_MAX || e->probe >= f->h->nprobes ||
		    f->type[e->probe] == UINT16_MAX) {
			lost++;
			continue;
		}
		if (q->nin == q->capin) {
			q->capin = q->capin ? 2 * q->capin : 1024;
			q->in = xrealloc(q->in, q->capin * sizeof(*q->in));
		}
		x = &q->in[q->nin++];
		x->e = *e;
		if (x->e.nargs > UBUF_MAXARGS)
			x->e.nargs = UBUF_MAXARGS;
		x->pid = f->pid;
		x->type = f->type[e->probe];
		held++;
	}
	pthread_mutex_unlock(&qlock);
	__atomic_store_n(&sl->tail, tail, __ATOMIC_RELEASE);
}

static void
drain(void)
{
	uint64_t t = now_ns();
	int i, s;

	/*
	 * Every pass: a process's file found late would bring events from
	 * before the horizon.  One getdents of a small directory.
	 */
	rescan();
	for (i = 0; i < nfiles; i++) {
		uint32_t u = __atomic_load_n(&files[i].h->unslotted,
		    __ATOMIC_RELAXED);

		/* Events of threads beyond the file's slots. */
		if (u > files[i].unslotted) {
			pthread_mutex_lock(&qlock);
			lost += u - files[i].unslotted;
			pthread_mutex_unlock(&qlock);
			files[i].unslotted = u;
		}
		for (s = 0; s < UBUF_SLOTS; s++)
			drain_slot(&files[i], s);
	}
	for (i = 0; i < nfiles; i++)
		if (drained(&files[i]) && ((kill(files[i].pid, 0) == -1 &&
		    errno == ESRCH) || newer(&files[i])))
			drop(i--);
	/* Every event stamped before t is queued now, but one a thread
	 * stamped and had not yet committed when its ring was read. */
	atomic_store(&passed, t);
}

static void *
drain_loop(void *arg)
{
	struct timespec ts = { 0, DRAIN_NS }, idle = { 0, IDLE_NS };

	(void)arg;
	atomic_store(&drainer_tid, (int)syscall(SYS_gettid));
	while (!atomic_load(&stopping)) {
		drain();
		/* No patched process: a recorder always on wakes seldom. */
		nanosleep(nfiles ? &ts : &idle, NULL);
	}
	drain();
	return NULL;
}

/* The formatter, once a batch: what the drainer queued becomes readable. */
void
patched_refresh(void)
{
	struct queue *q;
	int i;

	if (dfd == -1)
		return;
	/*
	 * Kernel events are written only up to the drainer's last pass,
	 * less a stamp's way to its commit: one it took later may come
	 * from a ring it has not read.
	 */
	horizon = atomic_load(&passed);
	horizon = horizon > HORIZON_NS ? horizon - HORIZON_NS : 0;
	/* A drainer starved of CPU for long may not stall the kernel's
	 * events: past a second, order gives way. */
	if (horizon + STARVED_NS < now_ns())
		horizon = now_ns() - STARVED_NS;
	pthread_mutex_lock(&qlock);
	for (i = 0; i < nqueues; i++) {
		q = &queues[i];
		if (!q->used)
			continue;
		if (q->nin > 0) {
			if (q->rpos > 0) {
				memmove(q->rd, q->rd + q->rpos, (q->nrd -
				    q->rpos) * sizeof(*q->rd));
				q->nrd -= q->rpos;
				q->rpos = 0;
			}
			if (q->nrd + q->nin > q->caprd) {
				q->caprd = q->nrd + q->nin;
				q->rd = xrealloc(q->rd, q->caprd *
				    sizeof(*q->rd));
			}
			memcpy(q->rd + q->nrd, q->in, q->nin * sizeof(*q->in));
			q->nrd += q->nin;
			q->nin = 0;
		}
		if (q->dead && q->rpos == q->nrd) {
			free(q->in);
			free(q->rd);
			memset(q, 0, sizeof(*q));
		}
	}
	/*
	 * Beyond the bound (a deferred recorder, whose events wait to be
	 * asked for; a formatter far behind), the oldest go: what a flight
	 * recorder keeps is the recent past.
	 */
	while (held > QUEUED_MAX) {
		int o = -1;

		for (i = 0; i < nqueues; i++)
			if (queues[i].used && queues[i].rpos < queues[i].nrd &&
			    (o < 0 || queues[i].rd[queues[i].rpos].e.ts <
			    queues[o].rd[queues[o].rpos].e.ts))
				o = i;
		if (o < 0)
			break;
		queues[o].rpos++;
		held--;
		lost++;
	}
	pthread_mutex_unlock(&qlock);
	peeked = 0;
	best = -1;
}

uint64_t
patched_horizon(void)
{
	return horizon;
}

/*
 * The earliest event not yet written.  Only the formatter touches the rd
 * side, and the queues array moves only under qlock, which the drainer
 * takes to add one: so the formatter holds it while it looks.
 */
const struct ubuf_event *
patched_peek(int *pid, const char **type)
{
	const struct qev *x, *b = NULL;
	int i;

	if (!peeked) {
		peeked = 1;
		best = -1;
		pthread_mutex_lock(&qlock);
		for (i = 0; i < nqueues; i++) {
			if (!queues[i].used || queues[i].rpos == queues[i].nrd)
				continue;
			x = &queues[i].rd[queues[i].rpos];
			if (b == NULL || x->e.ts < b->e.ts) {
				b = x;
				best = i;
			}
		}
		pthread_mutex_unlock(&qlock);
	}
	if (best < 0)
		return NULL;
	pthread_mutex_lock(&qlock);
	x = &queues[best].rd[queues[best].rpos];
	pthread_mutex_unlock(&qlock);
	*pid = x->pid;
	*type = types[x->type];
	return &x->e;
}

void
patched_consume(void)
{
	if (best < 0)
		return;
	pthread_mutex_lock(&qlock);
	queues[best].rpos++;
	held--;
	pthread_mutex_unlock(&qlock);
	peeked = 0;
	best = -1;
}

/* Losses since asked last: full rings, and events we could not hold. */
uint64_t
patched_lost(void)
{
	uint64_t n;

	pthread_mutex_lock(&qlock);
	n = lost;
	lost = 0;
	pthread_mutex_unlock(&qlock);
	return n;
}
