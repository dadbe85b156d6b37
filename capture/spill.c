/*
 * The spill.  A deferred recorder's kernel buffers hold a few dozen bytes
 * a wake-up or switch, so under a heavy load they are the newest seconds
 * alone.  Pages the kernel has finished (splice(2) on trace_pipe_raw
 * moves only full sub-buffers) go instead to files of a private
 * directory, a few per CPU, the oldest dropped first once the budget is
 * spent.  Nothing is parsed while nobody asks; the pages are
 * deflated, a batch at a time, since a tracepoint's records differ from
 * the last one's by a few bytes: libdeflate's fastest level deflates them
 * many times over, faster than a busy tracer makes them, and the same
 * disk then holds as many times as long.
 *
 * A file is a run of blocks (spillblk.h): a header and the raw deflate of
 * whole pages.
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

#include <libdeflate.h>

#include "util.h"
#include "file.h"
#include "spill.h"
#include "spillblk.h"
#include "spool.h"

#define PREFIX		"spill-cpu"
#define BATCH		SPILL_BATCH	/* bytes a splice asks for */
#define FILES		8		/* per CPU within the budget */
#define POLL_MS		200		/* to see spill_stop() */
#define LEVEL		1		/* libdeflate's fastest */

struct cpu {
	uint64_t	 first;		/* oldest file on disk */
	uint64_t	 wseq;		/* the file written */
	int		 wfd;
	uint64_t	 wsize;
	uint64_t	 held;		/* bytes on disk */
	uint64_t	*made;		/* a file's creation, mono ns, by seq % nmade */
	uint64_t	 refused;	/* a corrupt file said: seq + 1 */
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
static _Atomic uint64_t	 spilled, dropped, held, pages;
static _Atomic uint64_t	 cpu_ns;
static struct libdeflate_compressor *zc;
static char		*raw, *zbuf;	/* the spiller's */
static size_t		 zsize;
static uint64_t		(*page_lost)(int, const char *, size_t);

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
	if (fstatat(dfd, f, &st, AT_SYMLINK_NOFOLLOW) == 0) {
		c->held -= (uint64_t)st.st_size < c->held ?
		    (uint64_t)st.st_size : c->held;
		atomic_fetch_sub(&held, st.st_size);
		atomic_fetch_add(&dropped, st.st_size);
	}
	unlinkat(dfd, f, 0);
	c->first++;
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
}

static int
open_next(struct cpu *c, int cpu)
{
	char f[64];

	close_written(c);
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

/* Writes all of buf to fd; -1 with errno (0: a short write) if not. */
static int
write_all(int fd, const char *buf, size_t n)
{
	ssize_t m;

	while (n > 0) {
		if ((m = write(fd, buf, n)) <= 0) {
			if (m < 0 && errno == EINTR)
				continue;
			if (m == 0)
				errno = 0;
			return -1;
		}
		buf += m;
		n -= m;
	}
	return 0;
}

/*
 * The events lost before pages leaving the kernel, given to them (the
 * reader gives those before its pages in turn, under mu): those the
 * pages have no room for, which the block says.
 */
static uint64_t
batch_lost(int cpu, const char *pages, size_t len)
{
	uint64_t n, stored, sum = 0;
	size_t off;

	for (off = 0; off < len; off += pgsize)
		if ((n = page_lost(cpu, pages + off, pgsize)) != 0 &&
		    page_mark(pages + off, pgsize, &stored) && stored == 0)
			sum += n;
	return sum;
}

/*
 * Full pages of one CPU to disk until none is left, a batch at a time
 * under the lock: a reader must find each page either in the kernel or
 * on disk, so the batch is deflated and written before it lets go (a
 * millisecond; the reader lends its priority meanwhile).  -1 when
 * spilling must stop.
 */
static int
spill_cpu(int cpu)
{
	struct cpu *c = &cpus[cpu];
	struct spill_block *b = (struct spill_block *)zbuf;
	uint64_t lost;
	size_t len, z;
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
		/* The pipe holds the pages: into memory, to deflate them. */
		for (len = 0; rc == 0 && len < (size_t)n; ) {
			if ((m = read(pipefd[0], raw + len, n - len)) > 0)
				len += m;
			else if (m == 0 || errno != EINTR) {
				warnx_("spill: read from a pipe: %s; spilling "
				    "stops", m == 0 ? "end of file" :
				    strerror(errno));
				rc = -1;
			}
		}
		len -= len % pgsize;
		/* Counted now, not after the deflate: the kernel loses on. */
		lost = rc == 0 ? batch_lost(cpu, raw, len) : 0;
		if (rc == 0 && len > 0) {
			z = libdeflate_deflate_compress(zc, raw, len,
			    zbuf + sizeof(*b), zsize - sizeof(*b));
			memcpy(&b->ts, raw, sizeof(b->ts));
			b->zlen = z;
			b->len = len;
			b->lost = lost;
			if (z == 0) {
				/* Cannot be: zsize is libdeflate's bound. */
				warnx_("spill: deflate failed; spilling stops");
				rc = -1;
			} else if ((c->wfd == -1 || c->wsize >= file_limit) &&
			    open_next(c, cpu) == -1)
				rc = -1;
			else if (write_all(c->wfd, zbuf, sizeof(*b) + z)) {
				warnx_("spill %s: %s; spilling stops",
				    dirname_, errno == 0 ? "short write" :
				    strerror(errno));
				rc = -1;
			} else {
				z += sizeof(*b);
				c->wsize += z;
				c->held += z;
				atomic_fetch_add(&held, z);
				atomic_fetch_add(&spilled, z);
				atomic_fetch_add(&pages, len);
			}
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
    const int *f, uint64_t (*lost)(int, const char *, size_t))
{
	pthread_mutexattr_t ma;
	int cpu;

	dirname_ = dir;
	ncpus = ncpu;
	pgsize = pg;
	fds = f;
	/* As the ring's: ours alone, every step to it (lib/file.h). */
	made = access(dir, F_OK) == -1;
	dfd = private_dir(dir, 1);
	reap();
	budget_ = budget;
	file_limit = budget / ncpu / FILES / pg * pg;
	if (file_limit < 16 * pg)
		file_limit = 16 * pg;
	/* One CPU may hold the whole budget, and the file it writes. */
	nmade = budget / file_limit + 4;
	cpus = xcalloc(ncpu, sizeof(*cpus));
	page_lost = lost;
	for (cpu = 0; cpu < ncpu; cpu++) {
		cpus[cpu].wfd = -1;
		cpus[cpu].made = xcalloc(nmade, sizeof(uint64_t));
	}
	if (pipe2(pipefd, O_CLOEXEC) == -1)
		die(EX_OSERR, "pipe");
	/* Room for a batch: fewer, longer splices. */
	fcntl(pipefd[1], F_SETPIPE_SZ, BATCH);
	if ((zc = libdeflate_alloc_compressor(LEVEL)) == NULL)
		die(EX_OSERR, "libdeflate_alloc_compressor");
	zsize = sizeof(struct spill_block) +
	    libdeflate_deflate_compress_bound(zc, BATCH);
	raw = xmalloc(BATCH);
	zbuf = xmalloc(zsize);
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

/*
 * The reader stops the spill when tracing stops, and exit() (spill_remove)
 * when the capture ends before that, as a refused start does, while the
 * reader may be stopping it too: whichever comes first joins the thread,
 * the other waits until it is gone.  A thread joined twice is undefined
 * behaviour: glibc waited for ever.
 */
void
spill_stop(void)
{
	static pthread_mutex_t joining = PTHREAD_MUTEX_INITIALIZER;
	struct sched_param sp = { 0 };

	pthread_mutex_lock(&joining);
	if (atomic_load(&running)) {
		atomic_store(&stopping, 1);
		/* At idle priority it might not see that for as long as
		 * the load keeps the CPUs busy. */
		pthread_setschedparam(thread, SCHED_OTHER, &sp);
		pthread_join(thread, NULL);
		atomic_store(&running, 0);
	}
	pthread_mutex_unlock(&joining);
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
	s->pages = atomic_load(&pages);
	s->cpu = atomic_load(&cpu_ns) / 1e9;
}

/*
 * Deepening (spill_tail and the rest): a request reads back only the
 * pages it needs, the newest ones down to a time, while older ones stay
 * on disk for a deeper request.  A CPU's pages lie in its files in time
 * order, in blocks whose headers carry their first page's time: the
 * block wanted is found by its header, file by file from the newest, and
 * read back whole (a batch: a few older pages come along).
 */

/* A corrupt block refused: said once a file, its pages from there lost. */
static void
refused(int cpu, uint64_t seq, uint64_t off, const char *why)
{
	if (cpus[cpu].refused == seq + 1)
		return;
	cpus[cpu].refused = seq + 1;
	warnx_("spill %s: cpu%d file %llu: %s at %llu; the pages from there "
	    "on are left out", dirname_, cpu, (unsigned long long)seq, why,
	    (unsigned long long)off);
}

/* The whole block at off of cpu's file seq (fd, size bytes): 1, or 0. */
static int
block_at(int cpu, uint64_t seq, int fd, uint64_t size, uint64_t off,
    struct spill_block *b)
{
	const char *why;
	int r;

	if ((r = spill_block_at(fd, size, off, pgsize, b, &why)) < 0)
		refused(cpu, seq, off, why);
	return r > 0;
}

/* Its pages into out (BATCH bytes): their length, or 0. */
static size_t
block_read(int cpu, uint64_t seq, int fd, uint64_t off,
    const struct spill_block *b, char *out)
{
	const char *why;
	size_t n;

	if ((n = spill_block_read(fd, off, b, out, &why)) == 0)
		refused(cpu, seq, off, why);
	return n;
}

/* A CPU's file and its size; -1 when it cannot be opened. */
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
	*size = st.st_size;
	return fd;
}

struct tail {
	uint64_t	 seq, off;	/* the first block read back */
	uint64_t	 rseq, roff;	/* the next one */
	uint64_t	 size;		/* of rseq's file */
	int		 fd;
	char		*pages;		/* a block's, read back */
	size_t		 len, pos;
	uint64_t	 lost;		/* blocks' count, for a marked page without one */
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
	struct spill_block b;
	uint64_t s, size, off, at;
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
	tl->len = tl->pos = 0;
	tl->lost = 0;
	/* From the newest file back to the one whose first block is older. */
	for (s = c->wseq; s-- > c->first; ) {
		if ((fd = open_seq(cpu, s, &size)) == -1)
			continue;
		if (!block_at(cpu, s, fd, size, 0, &b) || b.ts > t) {
			if (size > 0) {
				tl->seq = s;
				tl->off = 0;
			}
			close(fd);
			continue;
		}
		/* The last block that begins at or before t: it holds t. */
		for (at = off = 0; block_at(cpu, s, fd, size, off, &b) &&
		    b.ts <= t; off += sizeof(b) + b.zlen)
			at = off;
		tl->seq = s;
		tl->off = at;
		close(fd);
		break;
	}
	tl->rseq = tl->seq;
	tl->roff = tl->off;
	return tl->seq < c->wseq;
}

ssize_t
spill_tail_read(int cpu, void *buf, uint64_t *lost)
{
	struct cpu *c;
	struct tail *tl;
	struct spill_block b;
	const char *page, *why;

	*lost = 0;
	if (cpus == NULL || tails == NULL)
		return 0;
	c = &cpus[cpu];
	tl = &tails[cpu];
	if (tl->pages == NULL)
		tl->pages = xmalloc(BATCH);

again:
	while (tl->pos >= tl->len) {
		if (tl->rseq >= c->wseq)
			return 0;
		if (tl->fd == -1 &&
		    (tl->fd = open_seq(cpu, tl->rseq, &tl->size)) == -1) {
			tl->rseq++;
			tl->roff = 0;
			continue;
		}
		if (!block_at(cpu, tl->rseq, tl->fd, tl->size, tl->roff, &b)) {
			close(tl->fd);
			tl->fd = -1;
			tl->rseq++;
			tl->roff = 0;
			continue;
		}
		/* A block that does not inflate is skipped, not the file. */
		tl->len = block_read(cpu, tl->rseq, tl->fd, tl->roff, &b,
		    tl->pages);
		tl->pos = 0;
		tl->roff += sizeof(b) + b.zlen;
		/* One whose marked page was refused gives its count on. */
		tl->lost += b.lost;
	}
	page = tl->pages + tl->pos;
	tl->pos += pgsize;
	if (!spill_page_check(page, pgsize, &why)) {
		refused(cpu, tl->rseq, tl->roff, why);
		goto again;
	}
	memcpy(buf, page, pgsize);
	/* The block's count goes to its first marked page without one. */
	if (page_mark(page, pgsize, lost) && *lost == 0) {
		*lost = tl->lost;
		tl->lost = 0;
	}
	return pgsize;
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
	struct spill_block b, last;
	uint64_t s, size, off, at;
	const char *why;
	char *pages;
	size_t len;
	int fd;

	if (cpus == NULL)
		return 0;
	c = &cpus[cpu];
	pages = xmalloc(BATCH);
	for (s = c->wseq + (c->wfd != -1); s-- > c->first; ) {
		if ((fd = open_seq(cpu, s, &size)) == -1)
			continue;
		for (at = off = 0, len = 0; block_at(cpu, s, fd, size, off, &b);
		    off += sizeof(b) + b.zlen) {
			at = off;
			last = b;
			len = 1;
		}
		if (len)
			len = block_read(cpu, s, fd, at, &last, pages);
		close(fd);
		if (len >= pgsize && !spill_page_check(pages + len - pgsize,
		    pgsize, &why))
			refused(cpu, s, at, why);
		else if (len >= pgsize) {
			memcpy(buf, pages + len - pgsize, pgsize);
			free(pages);
			return pgsize;
		}
	}
	free(pages);
	return 0;
}

struct span {
	uint64_t	 ts, len;	/* a block's */
};

static int
newest_first(const void *a, const void *b)
{
	const struct span *x = a, *y = b;

	return (x->ts < y->ts) - (x->ts > y->ts);
}

/*
 * Where a read back of at most bytes of pages, all CPUs' newest first,
 * would begin: its first block's time, or 0 when all of the spill fits.
 */
uint64_t
spill_since(uint64_t bytes)
{
	struct span *v = NULL;
	struct spill_block b;
	uint64_t s, size, off, sum = 0, t = 0;
	size_t n = 0, cap = 0, i;
	int cpu, fd;

	if (cpus == NULL)
		return 0;
	for (cpu = 0; cpu < ncpus; cpu++)
		for (s = cpus[cpu].first; s < cpus[cpu].wseq +
		    (cpus[cpu].wfd != -1); s++) {
			if ((fd = open_seq(cpu, s, &size)) == -1)
				continue;
			for (off = 0; block_at(cpu, s, fd, size, off, &b);
			    off += sizeof(b) + b.zlen) {
				if (n == cap) {
					cap = cap ? 2 * cap : 1024;
					v = xrealloc(v, cap * sizeof(*v));
				}
				v[n].ts = b.ts;
				v[n++].len = b.len;
			}
			close(fd);
		}
	if (n > 0)	/* v is NULL when the spill holds no block */
		qsort(v, n, sizeof(*v), newest_first);
	for (i = 0; i < n; i++) {
		if ((sum += v[i].len) > bytes) {
			/* The next newer block's time: it fits, this not. */
			t = i > 0 ? v[i - 1].ts : v[0].ts;
			break;
		}
	}
	free(v);
	return t;
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
