/*
 * The spill.  A deferred recorder's kernel buffers hold ~32 bytes a
 * wake-up or switch at best, so under a heavy load the newest 512 MiB are
 * a dozen seconds.  Pages the kernel has finished (splice(2) on
 * trace_pipe_raw moves only full sub-buffers) go instead to files of a
 * private directory, a few per CPU, the oldest dropped first once the
 * budget is spent.  splice moves them through a pipe into the page cache:
 * nothing is copied to user space, parsed or compressed while nobody
 * asks.
 *
 * The spiller wakes when a CPU's buffer passes the instance's
 * buffer_percent mark (poll on trace_pipe_raw) and runs at the priority
 * ARGUS_SPILL_SCHED says (idle, the default; normal; fifo): idle costs the
 * workload nothing but gets no CPU while the workload takes all of it.
 * The reader (real-time) takes the same descriptors when asked: it locks
 * the spiller out through a priority-inheriting mutex, so a preempted
 * spiller holding it runs at the reader's priority until it lets go.
 */
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "util.h"
#include "spill.h"

#define PREFIX		"spill-cpu"
#define BATCH		(1 << 20)	/* bytes a splice asks for */
#define FILES		8		/* per CPU within the budget */
#define POLL_MS		200		/* to see spill_stop() */

struct cpu {
	uint64_t	 first;		/* oldest file on disk */
	uint64_t	 wseq;		/* the file written */
	int		 wfd;
	uint64_t	 wsize;
	int		 rfd;		/* reading first */
	uint64_t	 roff;
	uint64_t	 held;		/* bytes on disk */
	uint64_t	*made;		/* a file's creation, mono ns, by seq % nmade */
};

static const char	*dirname_;
static int		 dfd = -1, made, ncpus, pipefd[2] = { -1, -1 };
static const int	*fds;
static size_t		 pgsize;
static uint64_t		 budget_, file_limit;
static size_t		 nmade;
static struct cpu	*cpus;
static pthread_mutex_t	 mu;
static pthread_t	 thread;
static _Atomic int	 stopping, running, tid, failed;
static _Atomic uint64_t	 spilled, dropped, held;
static _Atomic uint64_t	 cpu_ns;

static void
name(char *buf, size_t size, int cpu, uint64_t seq)
{
	snprintf(buf, size, PREFIX "%d.%llu", cpu, (unsigned long long)seq);
}

/* The oldest file of a CPU out of the budget's way. */
static void
drop_oldest(struct cpu *c, int cpu)
{
	char f[64];
	struct stat st;

	name(f, sizeof(f), cpu, c->first);
	if (c->rfd != -1) {
		close(c->rfd);
		c->rfd = -1;
		c->roff = 0;
	}
	if (fstatat(dfd, f, &st, AT_SYMLINK_NOFOLLOW) == 0) {
		c->held -= (uint64_t)st.st_size < c->held ?
		    (uint64_t)st.st_size : c->held;
		atomic_fetch_sub(&held, st.st_size);
		atomic_fetch_add(&dropped, st.st_size);
	}
	unlinkat(dfd, f, 0);
	c->first++;
}

static int
open_next(struct cpu *c, int cpu)
{
	char f[64];

	if (c->wfd != -1) {
		close(c->wfd);
		c->wfd = -1;
		c->wseq++;
	}
	name(f, sizeof(f), cpu, c->wseq);
	c->made[c->wseq % nmade] = now_ns();
	c->wfd = openat(dfd, f, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
	    O_CLOEXEC, 0600);
	c->wsize = 0;
	if (c->wfd == -1) {
		warnx_("spill %s/%s: %s; spilling stops", dirname_, f,
		    strerror(errno));
		return -1;
	}
	return 0;
}

/*
 * Within the budget, the oldest file of any CPU first: a busy CPU may
 * take what a quiet one leaves.  A CPU's file being written stays.
 */
static void
drop_for_budget(void)
{
	uint64_t t, best;
	int cpu, d;

	while (atomic_load(&held) > budget_) {
		d = -1;
		best = UINT64_MAX;
		for (cpu = 0; cpu < ncpus; cpu++) {
			if (cpus[cpu].first >= cpus[cpu].wseq)
				continue;
			t = cpus[cpu].made[cpus[cpu].first % nmade];
			if (t < best) {
				best = t;
				d = cpu;
			}
		}
		if (d < 0)
			return;
		drop_oldest(&cpus[d], d);
	}
}

/*
 * Full pages of one CPU to disk until none is left, a batch at a time
 * under the lock.  -1 when spilling must stop.
 */
static int
spill_cpu(int cpu)
{
	struct cpu *c = &cpus[cpu];
	ssize_t n, m;
	int rc = 0;

	while (!atomic_load(&stopping)) {
		pthread_mutex_lock(&mu);
		/*
		 * No room for a file (the ring's files or the disk took it,
		 * spill_budget()): the pages stay in the kernel's buffers.
		 */
		if (budget_ < file_limit) {
			pthread_mutex_unlock(&mu);
			break;
		}
		n = splice(fds[cpu], NULL, pipefd[1], NULL, BATCH,
		    SPLICE_F_NONBLOCK);
		if (n <= 0) {
			if (n < 0 && errno != EAGAIN && errno != EINTR) {
				warnx_("spill: splice from cpu%d: %s; "
				    "spilling stops", cpu, strerror(errno));
				rc = -1;
			}
			pthread_mutex_unlock(&mu);
			break;
		}
		if ((c->wfd == -1 || c->wsize >= file_limit) &&
		    open_next(c, cpu) == -1)
			rc = -1;
		while (rc == 0 && n > 0) {
			m = splice(pipefd[0], NULL, c->wfd, NULL, n,
			    SPLICE_F_MOVE);
			if (m <= 0) {
				if (m < 0 && errno == EINTR)
					continue;
				warnx_("spill %s: %s; spilling stops",
				    dirname_, m == 0 ? "short write" :
				    strerror(errno));
				rc = -1;
				break;
			}
			n -= m;
			c->wsize += m;
			c->held += m;
			atomic_fetch_add(&held, m);
			atomic_fetch_add(&spilled, m);
		}
		drop_for_budget();
		pthread_mutex_unlock(&mu);
		if (rc == -1)
			break;
	}
	return rc;
}

static void *
run(void *arg)
{
	struct sched_param sp = { 0 };
	struct pollfd *pfd;
	struct timespec ts;
	const char *how = getenv("ARGUS_SPILL_SCHED");
	sigset_t all;
	int cpu, r;

	(void)arg;
	/* A signal for the capture, handled here, would wait for idle CPU. */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	if (how == NULL || strcmp(how, "idle") == 0)
		pthread_setschedparam(pthread_self(), SCHED_IDLE, &sp);
	else if (strcmp(how, "fifo") == 0) {
		sp.sched_priority = 1;
		pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp);
	}
	atomic_store(&tid, syscall(SYS_gettid));
	pfd = xcalloc(ncpus, sizeof(*pfd));
	while (!atomic_load(&stopping) && !atomic_load(&failed)) {
		for (cpu = 0; cpu < ncpus; cpu++) {
			pfd[cpu].fd = fds[cpu];
			pfd[cpu].events = POLLIN;
			pfd[cpu].revents = 0;
		}
		/* Woken when a CPU's buffer passes buffer_percent. */
		if ((r = poll(pfd, ncpus, POLL_MS)) <= 0)
			continue;
		for (cpu = 0; cpu < ncpus; cpu++)
			if ((pfd[cpu].revents & POLLIN) &&
			    spill_cpu(cpu) == -1)
				atomic_store(&failed, 1);
	}
	free(pfd);
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	atomic_store(&cpu_ns, ts.tv_sec * 1000000000ULL + ts.tv_nsec);
	return NULL;
}

/* Files of an earlier spiller that died without removing them. */
static void
reap(void)
{
	struct dirent *de;
	DIR *d;
	int fd;

	if ((fd = dup(dfd)) == -1 || (d = fdopendir(fd)) == NULL)
		die(EX_OSERR, "%s", dirname_);
	while ((de = readdir(d)) != NULL)
		if (strncmp(de->d_name, PREFIX, strlen(PREFIX)) == 0)
			unlinkat(dfd, de->d_name, 0);
	closedir(d);
}

void
spill_start(const char *dir, uint64_t budget, int ncpu, size_t pg,
    const int *f)
{
	pthread_mutexattr_t ma;
	struct stat st;
	int cpu;

	dirname_ = dir;
	ncpus = ncpu;
	pgsize = pg;
	fds = f;
	if (mkdir(dir, 0700) == 0)
		made = 1;
	else if (errno != EEXIST)
		die(EX_CANTCREAT, "--spill %s", dir);
	if ((dfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC)) == -1)
		die(EX_CANTCREAT, "--spill %s", dir);
	if (fstat(dfd, &st) == -1)
		die(EX_OSERR, "--spill %s", dir);
	if (st.st_uid != geteuid() || (st.st_mode & 077) != 0)
		diex(77, "--spill %s: not a directory of yours alone (mode "
		    "0700, owned by you)", dir);
	reap();
	budget_ = budget;
	file_limit = budget / ncpu / FILES / pg * pg;
	if (file_limit < 16 * pg)
		file_limit = 16 * pg;
	/* One CPU may hold the whole budget, and the file it writes. */
	nmade = budget / file_limit + 4;
	cpus = xcalloc(ncpu, sizeof(*cpus));
	for (cpu = 0; cpu < ncpu; cpu++) {
		cpus[cpu].wfd = cpus[cpu].rfd = -1;
		cpus[cpu].made = xcalloc(nmade, sizeof(uint64_t));
	}
	if (pipe2(pipefd, O_CLOEXEC) == -1)
		die(EX_OSERR, "pipe");
	/* Room for a batch: fewer, longer splices. */
	fcntl(pipefd[1], F_SETPIPE_SZ, BATCH);
	pthread_mutexattr_init(&ma);
	pthread_mutexattr_setprotocol(&ma, PTHREAD_PRIO_INHERIT);
	pthread_mutex_init(&mu, &ma);
	pthread_mutexattr_destroy(&ma);
	atexit(spill_remove);
	if ((errno = pthread_create(&thread, NULL, run, NULL)) != 0)
		die(EX_OSERR, "pthread_create");
	atomic_store(&running, 1);
	while (atomic_load(&tid) == 0)
		usleep(1000);
}

int
spill_tid(void)
{
	return atomic_load(&tid);
}

void
spill_lock(void)
{
	if (atomic_load(&running))
		pthread_mutex_lock(&mu);
}

void
spill_unlock(void)
{
	if (atomic_load(&running))
		pthread_mutex_unlock(&mu);
}

void
spill_stop(void)
{
	struct sched_param sp = { 0 };

	if (!atomic_load(&running))
		return;
	atomic_store(&stopping, 1);
	/* At idle priority it might not see that for as long as the load
	 * keeps the CPUs busy. */
	pthread_setschedparam(thread, SCHED_OTHER, &sp);
	pthread_join(thread, NULL);
	atomic_store(&running, 0);
}

void
spill_remove(void)
{
	char f[64];
	uint64_t s;
	int cpu;

	if (dfd == -1)
		return;
	spill_stop();
	for (cpu = 0; cpu < ncpus; cpu++) {
		if (cpus[cpu].rfd != -1)
			close(cpus[cpu].rfd);
		if (cpus[cpu].wfd != -1)
			close(cpus[cpu].wfd);
		for (s = cpus[cpu].first; s <= cpus[cpu].wseq; s++) {
			name(f, sizeof(f), cpu, s);
			unlinkat(dfd, f, 0);
		}
	}
	close(dfd);
	dfd = -1;
	/* Its pages would hold the instance's buffers. */
	close(pipefd[0]);
	close(pipefd[1]);
	if (made && rmdir(dirname_) == -1)
		warnx_("--spill %s: %s", dirname_, strerror(errno));
}

void
spill_stats(struct spill_stats *s)
{
	s->spilled = atomic_load(&spilled);
	s->dropped = atomic_load(&dropped);
	s->held = atomic_load(&held);
	s->cpu = atomic_load(&cpu_ns) / 1e9;
}

/*
 * Deepening (spill_tail and the rest): a request reads back only the
 * pages it needs, the newest ones down to a time, while older ones stay
 * on disk for a deeper request.  A CPU's pages lie in its files in time
 * order, each file a run of whole pages whose headers carry their first
 * event's time: the first page wanted is found by its header, file by
 * file from the newest and by bisection within one.
 */
static uint64_t
page_ts(int fd, uint64_t off)
{
	uint64_t ts;

	if (pread(fd, &ts, sizeof(ts), off) != sizeof(ts))
		return UINT64_MAX;
	return ts;
}

/* The file being written is closed: the next write opens a new one. */
static void
close_written(struct cpu *c)
{
	if (c->wfd != -1) {
		close(c->wfd);
		c->wfd = -1;
		c->wseq++;
	}
	if (c->rfd != -1) {
		close(c->rfd);
		c->rfd = -1;
		c->roff = 0;
	}
}

/* A CPU's file and its size in whole pages; -1 when it cannot be opened. */
static int
open_seq(int cpu, uint64_t seq, uint64_t *size)
{
	struct stat st;
	char f[64];
	int fd;

	name(f, sizeof(f), cpu, seq);
	if ((fd = openat(dfd, f, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)) == -1)
		return -1;
	if (fstat(fd, &st) == -1) {
		close(fd);
		return -1;
	}
	*size = st.st_size / pgsize * pgsize;
	return fd;
}

struct tail {
	uint64_t	 seq, off;	/* the first page read back */
	uint64_t	 rseq, roff;	/* the next one */
	int		 fd;
};
static struct tail	*tails;

size_t
spill_pagesize(void)
{
	return pgsize;
}

int
spill_tail(int cpu, uint64_t t)
{
	struct cpu *c;
	struct tail *tl;
	uint64_t s, size, lo, hi, mid;
	int fd;

	if (cpus == NULL)
		return 0;
	if (tails == NULL)
		tails = xcalloc(ncpus, sizeof(*tails));
	c = &cpus[cpu];
	tl = &tails[cpu];
	close_written(c);
	tl->fd = -1;
	tl->seq = tl->rseq = c->wseq;
	tl->off = tl->roff = 0;
	/* From the newest file back to the one whose first page is older. */
	for (s = c->wseq; s-- > c->first; ) {
		if ((fd = open_seq(cpu, s, &size)) == -1)
			continue;
		if (size == 0 || page_ts(fd, 0) > t) {
			if (size > 0) {
				tl->seq = s;
				tl->off = 0;
			}
			close(fd);
			continue;
		}
		/* The last page that begins at or before t: it holds t. */
		lo = 0;
		hi = size / pgsize;
		while (hi - lo > 1) {
			mid = lo + (hi - lo) / 2;
			if (page_ts(fd, mid * pgsize) <= t)
				lo = mid;
			else
				hi = mid;
		}
		tl->seq = s;
		tl->off = lo * pgsize;
		close(fd);
		break;
	}
	tl->rseq = tl->seq;
	tl->roff = tl->off;
	return tl->seq < c->wseq;
}

ssize_t
spill_tail_read(int cpu, void *buf)
{
	struct cpu *c;
	struct tail *tl;
	uint64_t size;
	ssize_t n;

	if (cpus == NULL || tails == NULL)
		return 0;
	c = &cpus[cpu];
	tl = &tails[cpu];

	while (tl->rseq < c->wseq) {
		if (tl->fd == -1 &&
		    (tl->fd = open_seq(cpu, tl->rseq, &size)) == -1) {
			tl->rseq++;
			tl->roff = 0;
			continue;
		}
		if ((n = pread(tl->fd, buf, pgsize, tl->roff)) < 0)
			return -1;
		if ((size_t)n == pgsize) {
			tl->roff += n;
			return n;
		}
		close(tl->fd);
		tl->fd = -1;
		tl->rseq++;
		tl->roff = 0;
	}
	return 0;
}

/* The pages read back gone from the spill; the older ones stay. */
void
spill_tail_cut(int cpu)
{
	struct cpu *c;
	struct tail *tl;
	struct stat st;
	char f[64];
	uint64_t s, gone = 0;
	int fd;

	if (cpus == NULL || tails == NULL)
		return;
	c = &cpus[cpu];
	tl = &tails[cpu];

	if (tl->fd != -1) {
		close(tl->fd);
		tl->fd = -1;
	}
	for (s = c->wseq; s-- > tl->seq; ) {
		name(f, sizeof(f), cpu, s);
		if (fstatat(dfd, f, &st, AT_SYMLINK_NOFOLLOW) == -1)
			continue;
		if (s == tl->seq && tl->off > 0) {
			if ((fd = openat(dfd, f, O_WRONLY | O_NOFOLLOW |
			    O_CLOEXEC)) != -1) {
				if (ftruncate(fd, tl->off) == 0)
					gone += st.st_size - tl->off;
				close(fd);
			}
		} else if (unlinkat(dfd, f, 0) == 0)
			gone += st.st_size;
	}
	if (tl->seq < c->wseq)
		c->wseq = tl->off > 0 ? tl->seq + 1 : tl->seq;
	if (c->first > c->wseq)
		c->first = c->wseq;
	c->held -= gone < c->held ? gone : c->held;
	atomic_fetch_sub(&held, gone < atomic_load(&held) ? gone :
	    atomic_load(&held));
}

/* The newest page still spilled of cpu into buf: its length, or 0. */
ssize_t
spill_newest(int cpu, void *buf)
{
	struct cpu *c;
	uint64_t s, size;
	ssize_t n;
	int fd;

	if (cpus == NULL)
		return 0;
	c = &cpus[cpu];
	for (s = c->wseq + (c->wfd != -1); s-- > c->first; ) {
		if ((fd = open_seq(cpu, s, &size)) == -1)
			continue;
		n = size >= pgsize ? pread(fd, buf, pgsize, size - pgsize) : 0;
		close(fd);
		if (n == (ssize_t)pgsize)
			return n;
	}
	return 0;
}

/* The ring's files grew: the spill gives way, oldest first. */
void
spill_budget(uint64_t budget)
{
	if (!atomic_load(&running) && dfd == -1)
		return;
	spill_lock();
	budget_ = budget;
	drop_for_budget();
	spill_unlock();
}
