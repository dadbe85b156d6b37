/*
 * The patched processes' rings (patchers/ubuf.h): found in one directory,
 * mapped, read in time order, merged with the kernel's events by emit.c.
 * Everything in a ring was written by the traced program, so it is data
 * to check, never to trust (ringread.h): what is read is copied out of
 * the mapping first, then checked; a program that cuts its file short
 * under us makes our reads fault (SIGBUS), which the drainer catches;
 * and a ring that fails a check is refused whole, said on stderr and
 * counted (meta patch_refused), its file removed.  A file's name says
 * whose ring it is: only root (or we) can make one in the directory,
 * which we refuse if anyone else may write to it (patched_setup).
 *
 * A thread of ours empties the rings every millisecond into queues in
 * our memory (bounded: beyond it, the oldest are dropped and counted
 * lost, as a flight recorder would), so that a
 * busy program's ring never waits for the formatter, which writes events
 * only once the kernel's are known up to their time.  The drainer never
 * waits for the formatter either: that runs at idle priority while
 * nobody asks, and one preempted while it held the queues' lock held
 * the drainer half a second (a ring of a burst overflowing behind it);
 * what the drainer read stays in its own staging until the lock is
 * free.  Losses are counted per process, with the time they fell in,
 * for the stream (meta patch_lost) and argus status.  A process's file is
 * removed once it is read to its end and it can add no more: the process
 * is gone, or exec'd (a newer file of the same pid).
 */
#include <sys/inotify.h>
#include <sys/resource.h>
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
#include <poll.h>
#include <setjmp.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <stdatomic.h>
#ifdef __x86_64__
#include <x86intrin.h>
#endif

#include "util.h"
#include "file.h"
#include "patched.h"
#include "ringread.h"

#define MAXFILES	256
#define MAXSETS		16
#define MAXTYPES	1024
#define DRAIN_NS	1000000ULL	/* the rings' emptying */
#define CLOCK_READ_MAX	100		/* TSC counts around a clock read */
#define TSC_SKEW_NS	10000ULL	/* CPUs' TSCs apart, at most */
#define DRAIN_NICE	-10		/* the drainer's, as the spool's reader */
#define IDLE_NS		50000000ULL	/* the directory's, when it has none */
#define HORIZON_NS	5000000ULL	/* a stamp's way to its commit */
#define STARVED_NS	1000000000ULL	/* the longest kernel events wait */
#define QUEUED_MAX	(1 << 20)	/* events held, all queues, at least */
#define MAXALLOWED	1024
#define NTIDS		64		/* threads found a file's, cached */
#define EVBUF		32768		/* cells read from a ring at once */
#define MAXLOSSES	1024		/* losses of processes, not yet said */
/*
 * A file's birth is on the wall clock, its events on the monotonic one:
 * a wall clock stepped back since (NTP at boot) makes it look younger.
 */
#define BTIME_SLACK	(600 * 1000000000ULL)

struct qev {
	struct ubuf_event e;
	int		 pid;
	uint16_t	 type;
};

/* What the drainer read of a ring, not yet queued: its own. */
struct stage {
	struct qev	*ev;
	size_t		 n, cap;
};

struct ufile {
	struct ubuf_hdr	*h;
	uint64_t	 size;			/* its mapping's */
	uint32_t	 ncells;		/* a ring's, when taken */
	char		 name[64];
	char		 comm[16];		/* its process's, when taken */
	int		 pid, gen;
	int		 pfd;			/* /proc/PID, -1: it was gone */
	int		 q[UBUF_SLOTS];		/* its rings' queues; -1: none */
	uint32_t	 nprobes;		/* its header's, when taken */
	int		 tsc;			/* its stamps are a TSC's */
	uint32_t	 unslotted;		/* its threads' losses, reported */
	uint64_t	 tail[UBUF_SLOTS];	/* read to: ours */
	uint64_t	 reported[UBUF_SLOTS];	/* lost, reported */
	uint64_t	 lo;			/* no event before: its birth */
	uint64_t	 born;			/* its birth, as best known */
	uint64_t	 seen;			/* read last, mono ns */
	uint32_t	 tids[NTIDS];		/* its threads, cached */
	uint16_t	 type[UBUF_PROBES];	/* its names, as ours */
	struct stage	 st[UBUF_SLOTS];
	struct patch_loss loss;			/* not yet handed over */
};

/* One ring's events: the drainer appends to in, the formatter reads rd. */
struct queue {
	int		 used, dead;
	int		 bad;		/* its ring refused: its events go */
	char		 file[64];	/* its ring's file, to name it */
	char		 comm[16];	/* its process's, for its losses */
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
static size_t		 hold_max = QUEUED_MAX;	/* patched_hold() */
static size_t		 staged;	/* the drainer's, not yet queued */
static size_t		 held_seen;	/* held, as the drainer saw it last */
static _Atomic size_t	 backlog;	/* held_seen + staged, for others */
static _Atomic uint64_t	 lost;
/* The drainer's worst: a nap's end past its length, a pass's length. */
static _Atomic uint64_t	 late_max, pass_max;
/* Losses of processes, handed over under qlock; the capture's to say. */
static struct patch_loss losses[MAXLOSSES];
static int		 nlosses;
static int		 ifd = -1;	/* inotify: a new file wakes the drainer */
static pthread_mutex_t	 qlock = PTHREAD_MUTEX_INITIALIZER;
static _Atomic int	 stopping, reading;
static _Atomic uint64_t	 passed;	/* the last drain began then */
static _Atomic int	 drainer_tid;
static pthread_t	 drainer;
static int		 draining;
static int		 best = -1;	/* the queue peeked at; -1: none */
static int		 peeked;
static char		 env_sets[8192];
static const char	*allowed[MAXALLOWED];	/* the sets' event names */
static int		 nallowed;
static uint32_t		 ncpus;
static _Atomic uint64_t	 refused;	/* rings, since asked */
/* The drainer's copy of a ring's new cells, and their events, checked
 * before staged. */
static union ubuf_cell	 cellbuf[EVBUF];
static struct ubuf_event evbuf[EVBUF];
/* Where a fault in a ring's mapping goes: the drainer's, while it reads. */
static __thread sigjmp_buf *bus_at;
static struct sigaction	 bus_old;

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

void
patched_allow(const char *event)
{
	int i;

	for (i = 0; i < nallowed; i++)
		if (strcmp(allowed[i], event) == 0)
			return;
	if (nallowed == MAXALLOWED)
		diex(EX_USAGE, "--probes: more than %d event names",
		    MAXALLOWED);
	allowed[nallowed++] = xstrdup(event);
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

/*
 * A fault in a ring's mapping: its program cut the file short under the
 * drainer, which was copying from it; any other is what it was before
 * us, the fault taken again on return.
 */
static void
on_bus(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)si;
	(void)uc;
	if (bus_at != NULL)
		siglongjmp(*bus_at, 1);
	sigaction(SIGBUS, &bus_old, NULL);
}

/* fn(arg), which reads a ring's mapping: 0, or -1 if that faulted. */
static int
guarded(void (*fn)(void *), void *arg)
{
	sigjmp_buf env;

	if (sigsetjmp(env, 0) != 0) {
		bus_at = NULL;
		return -1;
	}
	bus_at = &env;
	fn(arg);
	bus_at = NULL;
	return 0;
}

void
patched_setup(int has_command, int ncpu)
{
	struct sigaction sa;
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
	/* Programs started by hand bring sets of their own choosing. */
	if (dir_given)
		nallowed = 0;
	ncpus = ncpu;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_bus;
	/* Left by siglongjmp, which restores no mask: never blocked. */
	sa.sa_flags = SA_SIGINFO | SA_NODEFER;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGBUS, &sa, &bus_old) == -1)
		die(EX_OSERR, "sigaction");
	atexit(cleanup);
	if ((errno = pthread_create(&drainer, NULL, drain_loop, NULL)) != 0)
		die(EX_OSERR, "pthread_create");
	draining = 1;
	while (atomic_load(&drainer_tid) == 0)
		sched_yield();
}

void
patched_hold(uint64_t bytes)
{
	if (bytes / sizeof(struct qev) > hold_max)
		hold_max = bytes / sizeof(struct qev);
}

int
patched_behind(void)
{
	return atomic_load(&backlog) >= hold_max / 4;
}

int
patched_tid(void)
{
	return atomic_load(&drainer_tid);
}

void
patched_read(void)
{
	atomic_store(&reading, 1);
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

/* The drainer's staging of file f, whose events are queued or refused. */
static void
stage_free(struct ufile *f)
{
	int s;

	for (s = 0; s < UBUF_SLOTS; s++) {
		staged -= f->st[s].n;
		free(f->st[s].ev);
		memset(&f->st[s], 0, sizeof(f->st[s]));
	}
}

/*
 * Queue q's ring is gone, or refused (bad): the formatter frees it once
 * it is read, or drops what it holds first (patched_refresh()).  No
 * lock: the formatter, at idle priority, may hold it for long.
 */
static void
queue_end(struct queue *q, int bad)
{
	if (bad)
		__atomic_store_n(&q->bad, 1, __ATOMIC_RELEASE);
	__atomic_store_n(&q->dead, 1, __ATOMIC_RELEASE);
}

/*
 * A ring refused (ringread.h): said, counted, its events dropped, queued
 * ones too, its file removed.  The reasons name no text of the ring's.
 * why NULL: the formatter said it (patched_reject()).
 */
static void
refuse(int i, const char *why)
{
	struct ufile *f = &files[i];
	int s;

	if (why != NULL)
		warnx_("patched process %d's ring %s/%s refused: %s; its "
		    "events are left out", f->pid, dir, f->name, why);
	/* The formatter drops what they queued (patched_refresh()). */
	for (s = 0; s < UBUF_SLOTS; s++)
		if (f->q[s] >= 0)
			queue_end(&queues[f->q[s]], 1);
	if (why != NULL)
		atomic_fetch_add(&refused, 1);
	stage_free(f);
	munmap(f->h, f->size);
	if (f->pfd != -1)
		close(f->pfd);
	unlinkat(dfd, f->name, 0);
	files[i] = files[--nfiles];
}

#define CUT_SHORT	"its file cut short under the recorder (SIGBUS)"

/* What the drainer reads of a mapping, each under guarded(). */
struct uread {
	struct ufile	*f;
	int		 s;
	struct ubuf_hdr	*head;
	uint64_t	 v[2];
	int64_t		 n;
	uint64_t	 used;		/* ring_read()'s cells */
	struct ring_bounds b;
	const char	*why;
};

static void
read_magic(void *arg)
{
	struct uread *r = arg;

	r->v[0] = __atomic_load_n(&r->f->h->magic, __ATOMIC_ACQUIRE);
}

static void
read_head(void *arg)
{
	struct uread *r = arg;
	int s;

	memcpy(r->head, r->f->h, sizeof(*r->head));
	if (r->f->ncells == 0)
		return;		/* its size checked first */
	for (s = 0; s < UBUF_SLOTS; s++) {
		const struct ubuf_slot *sl = ubuf_slot(r->f->h, s,
		    r->f->ncells);

		r->f->tail[s] = sl->tail;
		r->f->reported[s] = sl->reported;
	}
}

static void
read_counts(void *arg)
{
	struct uread *r = arg;
	const struct ubuf_slot *sl = ubuf_slot(r->f->h, r->s, r->f->ncells);

	r->v[0] = __atomic_load_n(&sl->head, __ATOMIC_ACQUIRE);
	r->v[1] = __atomic_load_n(&sl->lost, __ATOMIC_RELAXED);
}

static void
read_unslotted(void *arg)
{
	struct uread *r = arg;

	r->v[0] = __atomic_load_n(&r->f->h->unslotted, __ATOMIC_RELAXED);
}

static void
read_events(void *arg)
{
	struct uread *r = arg;

	r->n = ring_read(ubuf_slot(r->f->h, r->s, r->f->ncells)->cell,
	    r->f->ncells, r->v[1], r->n, &r->b, cellbuf, evbuf, &r->used,
	    &r->why);
}

/* The ring's room is the program's again; the next recorder's marks. */
static void
write_marks(void *arg)
{
	struct uread *r = arg;
	struct ubuf_slot *sl = ubuf_slot(r->f->h, r->s, r->f->ncells);

	sl->reported = r->f->reported[r->s];
	__atomic_store_n(&sl->tail, r->f->tail[r->s], __ATOMIC_RELEASE);
}

/*
 * A thread of the file's process, as /proc has it now (cached); or one
 * gone since, which the formatter holds to the kernel's account of it
 * (patched_reject); 0 for a thread of another process.
 */
static int
own_thread(void *arg, uint32_t tid)
{
	struct ufile *f = arg;
	char p[32];

	if (f->tids[tid % NTIDS] == tid)
		return 1;
	snprintf(p, sizeof(p), "task/%u", tid);
	if (f->pfd != -1 && faccessat(f->pfd, p, F_OK, 0) == 0) {
		f->tids[tid % NTIDS] = tid;
		return 1;
	}
	snprintf(p, sizeof(p), "/proc/%u", tid);
	return access(p, F_OK) == -1 && errno == ENOENT;
}

/* When the file was made, on the events' clock: none is older. */
static uint64_t
birth(int fd)
{
	struct timespec real, mono;
	struct statx sx;
	uint64_t b, shift;

	if (statx(fd, "", AT_EMPTY_PATH, STATX_BTIME, &sx) == -1 ||
	    !(sx.stx_mask & STATX_BTIME))
		return 0;	/* a file system that keeps none */
	clock_gettime(CLOCK_REALTIME, &real);
	clock_gettime(CLOCK_MONOTONIC, &mono);
	b = sx.stx_btime.tv_sec * 1000000000ULL + sx.stx_btime.tv_nsec;
	shift = (real.tv_sec - mono.tv_sec) * 1000000000ULL + real.tv_nsec -
	    mono.tv_nsec;
	return b > shift + BTIME_SLACK ? b - shift - BTIME_SLACK : 0;
}

/* The name of file f's process, for argus status; "?" if gone. */
static void
comm_of(struct ufile *f)
{
	ssize_t n = -1;
	int fd;

	if (f->pfd != -1 && (fd = openat(f->pfd, "comm", O_RDONLY |
	    O_CLOEXEC)) != -1) {
		n = read(fd, f->comm, sizeof(f->comm) - 1);
		close(fd);
	}
	if (n <= 0)
		n = snprintf(f->comm, sizeof(f->comm), "?");
	f->comm[n] = '\0';
	f->comm[strcspn(f->comm, "\n")] = '\0';
}

/*
 * A file the program published: right size, made by root or us (only
 * they can write to the directory), magic set; its header copied and
 * checked, its names made ours.
 */
static void
take(const char *name, int pid, int gen)
{
	static struct ubuf_hdr hc;
	char names[UBUF_PROBES][UBUF_NAMELEN], p[32];
	struct uread r = { .head = &hc };
	const char *why;
	struct ufile *f;
	struct stat st;
	unsigned i;
	int fd, t;

	if (nfiles == MAXFILES || strlen(name) >= sizeof(f->name))
		return;
	if ((fd = openat(dfd, name, O_RDWR | O_NOFOLLOW | O_NONBLOCK |
	    O_CLOEXEC)) == -1)
		return;
	if (fstat(fd, &st) == -1 || !S_ISREG(st.st_mode) ||
	    st.st_size < (off_t)ubuf_size(UBUF_CELLS_MIN) ||
	    st.st_size > (off_t)ubuf_size(UBUF_CELLS_MAX) ||
	    st.st_nlink != 1 || (st.st_uid != 0 && st.st_uid != geteuid())) {
		close(fd);
		return;		/* not yet sized, or not one of ours */
	}
	f = &files[nfiles];
	memset(f, 0, sizeof(*f));
	/* The size is checked against the header's count once copied. */
	f->size = st.st_size;
	f->h = mmap(NULL, f->size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	f->lo = f->seen = birth(fd);
	/* The slack is for a clock stepped back: a loss is said from the
	 * birth itself, or from when we took it. */
	f->born = f->lo > 0 && f->lo + BTIME_SLACK < now_ns() ?
	    f->lo + BTIME_SLACK : now_ns();
	close(fd);
	if (f->h == MAP_FAILED)
		return;
	r.f = f;
	if (guarded(read_magic, &r) == -1 || r.v[0] != UBUF_MAGIC) {
		munmap(f->h, f->size);
		return;		/* not published yet: next scan */
	}
	f->pid = pid;
	f->gen = gen;
	memcpy(f->name, name, strlen(name) + 1);
	for (i = 0; i < UBUF_SLOTS; i++)
		f->q[i] = -1;
	/* While it runs: a process that is gone has none of its threads. */
	snprintf(p, sizeof(p), "/proc/%d", pid);
	f->pfd = open(p, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	comm_of(f);
	nfiles++;
	if (guarded(read_head, &r) == -1) {
		refuse(nfiles - 1, CUT_SHORT);
		return;
	}
	if (hc.version != UBUF_VERSION || hc.nslots != UBUF_SLOTS) {
		refuse(nfiles - 1, "not a ring of this recorder's version");
		return;
	}
	if (hc.clock != UBUF_CLOCK_MONO && hc.clock != UBUF_CLOCK_TSC) {
		refuse(nfiles - 1, "its header names no clock");
		return;
	}
	f->tsc = hc.clock == UBUF_CLOCK_TSC;
	/* Ours from now on, whatever the header says later. */
	if ((f->ncells = ring_ncells(f->size, hc.ncells, &why)) == 0) {
		refuse(nfiles - 1, why);
		return;
	}
	if (guarded(read_head, &r) == -1) {
		refuse(nfiles - 1, CUT_SHORT);
		return;
	}
	if (hc.pid != (uint32_t)pid) {
		refuse(nfiles - 1, "its header names another process");
		return;
	}
	if ((why = ring_names((const char (*)[UBUF_NAMELEN])hc.name,
	    hc.nprobes, allowed, nallowed, names)) != NULL) {
		refuse(nfiles - 1, why);
		return;
	}
	f->nprobes = hc.nprobes;
	f->unslotted = hc.unslotted;
	/* No lock: types[] only grows, and the formatter reads a type
	 * once an event of it is handed over, under the lock. */
	for (i = 0; i < hc.nprobes; i++) {
		t = type_id(names[i]);
		f->type[i] = t < 0 ? UINT16_MAX : t;
	}
}

/* Every ring of file i read to its end: 1, 0, or -1 if it is refused. */
static int
drained(int i)
{
	struct uread r = { .f = &files[i] };

	for (r.s = 0; r.s < UBUF_SLOTS; r.s++) {
		if (guarded(read_counts, &r) == -1) {
			refuse(i, CUT_SHORT);
			return -1;
		}
		if (r.v[0] != files[i].tail[r.s])
			return 0;
	}
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

	for (s = 0; s < UBUF_SLOTS; s++)
		if (files[i].q[s] >= 0)
			queue_end(&queues[files[i].q[s]], 0);
	stage_free(&files[i]);
	munmap(files[i].h, files[i].size);
	if (files[i].pfd != -1)
		close(files[i].pfd);
	unlinkat(dfd, files[i].name, 0);
	files[i] = files[--nfiles];
}

static void
rescan(void)
{
	struct dirent *d;
	DIR *dp;
	int pid, gen;
	char name[64];

	if ((dp = fdopendir(dup(dfd))) == NULL)
		return;
	rewinddir(dp);
	while ((d = readdir(dp)) != NULL) {
		/* PID-N.ubuf exactly: the name goes into our messages. */
		if (sscanf(d->d_name, "%d-%d.ubuf", &pid, &gen) != 2 ||
		    pid <= 0 || gen < 0 || (size_t)snprintf(name, sizeof(name),
		    "%d-%d.ubuf", pid, gen) >= sizeof(name) ||
		    strcmp(name, d->d_name) != 0 || known(d->d_name))
			continue;
		take(d->d_name, pid, gen);
	}
	closedir(dp);
}

/* n events of file f's process lost, found now: said with the time span. */
static void
lose(struct ufile *f, uint64_t n, uint64_t now)
{
	if (f->loss.n == 0) {
		f->loss.pid = f->pid;
		memcpy(f->loss.comm, f->comm, sizeof(f->loss.comm));
		f->loss.from = f->seen > f->born ? f->seen : f->born;
	}
	f->loss.n += n;
	f->loss.to = now;
}

/*
 * The TSC and CLOCK_MONOTONIC read together, the TSC on both sides of
 * the clock's read (a reading the scheduler cut into is taken again):
 * the line a TSC ring's stamps are converted by, read as each such ring
 * is drained.  Its older end moves up each second, to the reading a
 * second before.
 */
static struct ring_clock clk;
static uint64_t	 clk_next_tsc, clk_next_ns;

static inline uint64_t
tsc_read(void)
{
#ifdef __x86_64__
	return __rdtsc();
#else
	return 0;	/* no TSC: ring_tsc_ns() puts a ring on one out of time */
#endif
}

static uint64_t
clock_read(void)
{
	uint64_t t1, t2, ns, best = UINT64_MAX;
	int i;

	for (i = 0; i < 8 && best > CLOCK_READ_MAX; i++) {
		t1 = tsc_read();
		ns = now_ns();
		t2 = tsc_read();
		if (t2 - t1 < best) {
			best = t2 - t1;
			clk.tsc = t1 + best / 2;
			clk.ns = ns;
		}
	}
	ns = clk.ns;
	if (clk.tsc0 == 0) {
		clk.tsc0 = clk_next_tsc = clk.tsc;
		clk.ns0 = clk_next_ns = ns;
	} else if (ns - clk_next_ns >= 1000000000ULL) {
		clk.tsc0 = clk_next_tsc;
		clk.ns0 = clk_next_ns;
		clk_next_tsc = clk.tsc;
		clk_next_ns = ns;
	}
	return ns;
}

/*
 * One ring into the drainer's staging, each event checked on a copy, in
 * chunks of EVBUF cells; the ring's room is the program's again.  0, or -1 if
 * the ring is refused.
 */
static int
drain_slot(int i, int s)
{
	struct ufile *f = &files[i];
	struct uread r = { .f = f, .s = s };
	struct stage *st = &f->st[s];
	struct qev *x;
	uint64_t now, head, tail0 = f->tail[s];
	int64_t l, n, k;

	if (guarded(read_counts, &r) == -1) {
		refuse(i, CUT_SHORT);
		return -1;
	}
	/* After head was read: every event it covers was stamped before. */
	now = f->tsc ? clock_read() : now_ns();
	head = r.v[0];
	if ((l = ring_grown(r.v[1], f->reported[s], now - f->seen,
	    &r.why)) == -1 || (n = ring_span(head, f->tail[s], f->ncells,
	    &r.why)) == -1) {
		refuse(i, r.why);
		return -1;
	}
	if (l > 0) {
		lose(f, l, now);
		f->reported[s] = r.v[1];
	}
	/* A TSC a little ahead of ours, on the CPU the event was made on,
	 * is not a lie. */
	r.b = (struct ring_bounds){ .nprobes = f->nprobes, .ncpu = ncpus,
	    .lo = f->lo, .hi = f->tsc ? now + TSC_SKEW_NS : now,
	    .clock = f->tsc ? &clk : NULL, .pid = f->pid,
	    .tid_ok = own_thread, .arg = f };
	while (n > 0) {
		r.n = n < EVBUF ? n : EVBUF;
		r.v[1] = f->tail[s];
		if (guarded(read_events, &r) == -1 || r.n == -1) {
			refuse(i, r.n == -1 ? r.why : CUT_SHORT);
			return -1;
		}
		/* Its last cell alone, which an event's first said was
		 * one of two: head moved past half an event. */
		if (r.used == 0) {
			refuse(i, "an event's second cell past its head");
			return -1;
		}
		if (st->n + r.n > st->cap) {
			st->cap = st->n + r.n > 2 * st->cap ? st->n + r.n :
			    2 * st->cap;
			st->ev = xrealloc(st->ev, st->cap * sizeof(*st->ev));
		}
		for (k = 0; k < r.n; k++) {
			const struct ubuf_event *e = &evbuf[k];

			/* A formatter that stopped taking them: the new
			 * ones go. */
			if (held_seen + staged >= 2 * hold_max ||
			    f->type[e->probe] == UINT16_MAX) {
				lose(f, 1, now);
				continue;
			}
			x = &st->ev[st->n++];
			x->e = *e;
			x->pid = f->pid;
			x->type = f->type[e->probe];
			staged++;
		}
		f->tail[s] += r.used;
		n -= r.used;
	}
	if ((l > 0 || f->tail[s] != tail0) && guarded(write_marks, &r) == -1) {
		refuse(i, CUT_SHORT);
		return -1;
	}
	return 0;
}

/* File i's rings into their queues: 0, or -1 if it is refused. */
static int
drain_file(int i)
{
	struct ufile *f = &files[i];
	struct uread r = { .f = f };
	int64_t u;
	int s, bad = 0;

	/* The formatter found a thread of another process in one.  No
	 * lock: only the drainer moves the queues, by queue_new(). */
	for (s = 0; s < UBUF_SLOTS; s++)
		if (f->q[s] >= 0 && __atomic_load_n(&queues[f->q[s]].bad,
		    __ATOMIC_RELAXED))
			bad = 1;
	if (bad) {
		refuse(i, NULL);
		return -1;
	}
	/* Events of threads beyond the file's slots. */
	if (guarded(read_unslotted, &r) == -1) {
		refuse(i, CUT_SHORT);
		return -1;
	}
	if ((u = ring_grown(r.v[0], f->unslotted, now_ns() - f->seen,
	    &r.why)) == -1) {
		refuse(i, r.why);
		return -1;
	}
	if (u > 0) {
		lose(f, u, now_ns());
		f->unslotted = r.v[0];
	}
	for (s = 0; s < UBUF_SLOTS; s++)
		if (drain_slot(i, s) == -1)
			return -1;
	f->seen = now_ns();
	return 0;
}

/*
 * A process's loss to be said, under qlock: one with its earlier ones
 * not yet said, a record a process a second, not one a pass.  Kept
 * while the list is full.
 */
static void
loss_add(struct patch_loss *l)
{
	int i;

	for (i = 0; i < nlosses; i++)
		if (losses[i].pid == l->pid &&
		    strcmp(losses[i].comm, l->comm) == 0)
			break;
	if (i == nlosses) {
		if (nlosses == MAXLOSSES)
			return;
		losses[nlosses++] = *l;
	} else {
		losses[i].n += l->n;
		if (l->from < losses[i].from)
			losses[i].from = l->from;
		if (l->to > losses[i].to)
			losses[i].to = l->to;
	}
	l->n = 0;
}

/*
 * The staging into the queues, and the losses to be said: 0, or -1 when
 * the formatter holds the lock and wait is 0 (the next pass tries again).
 */
static int
handover(int wait)
{
	struct ufile *f;
	struct queue *q;
	int i, s;

	if (wait)
		pthread_mutex_lock(&qlock);
	else if (pthread_mutex_trylock(&qlock) != 0)
		return -1;
	for (i = 0; i < nfiles; i++) {
		f = &files[i];
		for (s = 0; s < UBUF_SLOTS; s++) {
			if (f->st[s].n == 0)
				continue;
			if (f->q[s] < 0) {
				f->q[s] = queue_new();
				memcpy(queues[f->q[s]].file, f->name,
				    sizeof(f->name));
				memcpy(queues[f->q[s]].comm, f->comm,
				    sizeof(f->comm));
			}
			q = &queues[f->q[s]];
			if (q->nin + f->st[s].n > q->capin) {
				q->capin = q->nin + f->st[s].n > 2 * q->capin ?
				    q->nin + f->st[s].n : 2 * q->capin;
				q->in = xrealloc(q->in, q->capin *
				    sizeof(*q->in));
			}
			memcpy(q->in + q->nin, f->st[s].ev, f->st[s].n *
			    sizeof(*q->in));
			q->nin += f->st[s].n;
			held += f->st[s].n;
			staged -= f->st[s].n;
			f->st[s].n = 0;
		}
		if (f->loss.n > 0)
			loss_add(&f->loss);
	}
	held_seen = held;
	pthread_mutex_unlock(&qlock);
	return 0;
}

/* Nothing of file i is left to queue or to say. */
static int
handed(const struct ufile *f)
{
	int s;

	for (s = 0; s < UBUF_SLOTS; s++)
		if (f->st[s].n > 0)
			return 0;
	return f->loss.n == 0;
}

static void
drain(void)
{
	uint64_t t = now_ns();
	int i, d, last = atomic_load(&stopping);

	/*
	 * Every pass: a process's file found late would bring events from
	 * before the horizon.  One getdents of a small directory.
	 */
	rescan();
	for (i = 0; i < nfiles; i++)
		if (drain_file(i) == -1)
			i--;
	/* Every event stamped before t is queued now, but one a thread
	 * stamped and had not yet committed when its ring was read. */
	if (handover(last) == 0)
		atomic_store(&passed, t);
	for (i = 0; i < nfiles; i++)
		if ((d = drained(i)) == -1)
			i--;
		else if (d && handed(&files[i]) && ((kill(files[i].pid, 0) ==
		    -1 && errno == ESRCH) || newer(&files[i])))
			drop(i--);
}

/*
 * A nap, and how late it ended: a real-time thread has no timer slack,
 * so what passes its length is time it waited for a CPU.
 */
static void
nap(uint64_t ns)
{
	uint64_t t = now_ns();

	nanosleep(&(struct timespec){ ns / 1000000000ULL, ns % 1000000000ULL },
	    NULL);
	if ((t = now_ns() - t) > ns && t - ns > atomic_load(&late_max))
		atomic_store(&late_max, t - ns);
}

static void *
drain_loop(void *arg)
{
	struct timespec ts = { 0, DRAIN_NS }, idle = { 0, IDLE_NS };
	struct sched_param sp = { .sched_priority = 1 };
	uint64_t t;
	sigset_t bus;

	(void)arg;
	if ((ifd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC)) != -1 &&
	    inotify_add_watch(ifd, dir, IN_CREATE | IN_ONLYDIR) == -1) {
		close(ifd);
		ifd = -1;
	}
	/* A fault in a ring must reach on_bus(), never be blocked. */
	sigemptyset(&bus);
	sigaddset(&bus, SIGBUS);
	pthread_sigmask(SIG_UNBLOCK, &bus, NULL);
	/*
	 * Keep up with the rings when every CPU is busy, as the spool's
	 * reader does: even a niced thread waits whole scheduling periods
	 * behind busy loops, and a burst fills a ring in tens of ms.  The
	 * lowest real-time priority runs it when it wakes; a program that
	 * fills its rings on purpose gets it no more than half a CPU
	 * (drain_loop()).
	 */
	if (pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp) != 0)
		setpriority(PRIO_PROCESS, syscall(SYS_gettid), DRAIN_NICE);
	atomic_store(&drainer_tid, (int)syscall(SYS_gettid));
	clock_read();	/* the line's first end, before any ring's event */
	/*
	 * Not before the kernel's events of the rings' threads are traced:
	 * a thread gone from /proc is held to them (patched_reject()).
	 */
	while (!atomic_load(&reading) && !atomic_load(&stopping))
		nanosleep(&ts, NULL);
	while (!atomic_load(&stopping)) {
		t = now_ns();
		drain();
		atomic_store(&backlog, held_seen + staged);
		/* A pass longer than the period: a rest as long, so that
		 * the rings' writers cannot keep a real-time thread busy. */
		if ((t = now_ns() - t) > atomic_load(&pass_max))
			atomic_store(&pass_max, t);
		if (t > DRAIN_NS)
			nap(t);
		/*
		 * No patched process: a recorder always on wakes seldom, but
		 * at once for a file made in the directory (a program that
		 * starts in a burst fills its ring in tens of ms).
		 */
		if (nfiles > 0)
			nap(DRAIN_NS);
		else if (ifd == -1)
			nanosleep(&idle, NULL);
		else if (poll(&(struct pollfd){ ifd, POLLIN, 0 }, 1,
		    IDLE_NS / 1000000) > 0) {
			char ev[4096];

			while (read(ifd, ev, sizeof(ev)) > 0)
				;
			/* Published once sized and named: soon. */
			nanosleep(&ts, NULL);
		}
	}
	drain();
	return NULL;
}

/* The formatter, once a batch: what the drainer queued becomes readable. */
void
patched_refresh(void)
{
	struct patch_loss l;
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
		if (__atomic_load_n(&q->bad, __ATOMIC_ACQUIRE)) {
			held -= q->nin + (q->nrd - q->rpos);
			q->nin = 0;
			q->rpos = q->nrd;
		}
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
		if (__atomic_load_n(&q->dead, __ATOMIC_ACQUIRE) &&
		    q->rpos == q->nrd) {
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
	while (held > hold_max) {
		int o = -1;

		for (i = 0; i < nqueues; i++)
			if (queues[i].used && queues[i].rpos < queues[i].nrd &&
			    (o < 0 || queues[i].rd[queues[i].rpos].e.ts <
			    queues[o].rd[queues[o].rpos].e.ts))
				o = i;
		if (o < 0)
			break;
		/* Its process's, said as a ring's would be: argus status
		 * and argus debug say them by process too. */
		l.pid = queues[o].rd[queues[o].rpos].pid;
		memcpy(l.comm, queues[o].comm, sizeof(l.comm));
		l.n = 1;
		l.from = l.to = queues[o].rd[queues[o].rpos].e.ts;
		loss_add(&l);
		if (l.n > 0)
			atomic_fetch_add(&lost, 1);
		queues[o].rpos++;
		held--;
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

/*
 * The event peeked at names a thread that the kernel's events (the
 * formatter's, up to its time) give to process tgid, not to the ring's:
 * its ring is refused, now and by the drainer.
 */
void
patched_reject(int tgid)
{
	struct queue *q;

	if (best < 0)
		return;
	pthread_mutex_lock(&qlock);
	q = &queues[best];
	warnx_("patched process %d's ring %s/%s refused: an event of thread "
	    "%u, which is process %d's; its events are left out",
	    q->rd[q->rpos].pid, dir, q->file, q->rd[q->rpos].e.tid, tgid);
	held -= q->nrd - q->rpos;
	q->rpos = q->nrd;
	__atomic_store_n(&q->bad, 1, __ATOMIC_RELEASE);
	atomic_fetch_add(&refused, 1);
	pthread_mutex_unlock(&qlock);
	peeked = 0;
	best = -1;
}

uint64_t
patched_refused(void)
{
	return atomic_exchange(&refused, 0);
}

void
patched_lateness(uint64_t *late, uint64_t *pass)
{
	*late = atomic_load(&late_max);
	*pass = atomic_load(&pass_max);
}

/* Losses since asked last: full rings, and events we could not hold. */
uint64_t
patched_lost(void)
{
	return atomic_exchange(&lost, 0);
}

int
patched_losses(struct patch_loss *out, int max)
{
	int n;

	pthread_mutex_lock(&qlock);
	n = nlosses < max ? nlosses : max;
	memcpy(out, losses, n * sizeof(*out));
	memmove(losses, losses + n, (nlosses - n) * sizeof(*losses));
	nlosses -= n;
	pthread_mutex_unlock(&qlock);
	return n;
}
