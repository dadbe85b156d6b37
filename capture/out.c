/*
 * Output.  The ring is a directory of numbered gzip files, each a complete
 * stream that starts with the capture's meta records and a snapshot of the
 * threads alive: any file can be read alone after older ones are gone.
 *
 * The size bound: before a file is opened, the oldest are deleted until
 * the closed ones plus one file's share fit in the size; a file is closed
 * when it may reach its share.  Its size is known only from the disk, and
 * the writer holds up to a buffer's worth of records not yet compressed,
 * so the check leaves room for that (SLACK) and runs often (out_check
 * after every batch of records).
 *
 * Each ring file has its relation index beside it, opened, flushed,
 * closed and deleted with it, so that argus debug finds who is related
 * to a hang without reading the whole ring first; the two count together
 * against the size.
 *
 * The ring's directory is private (lib/file.c) and its files are made by
 * name inside it, new, and written in place: argus-cat --live reads the
 * newest while it grows.  A -o file reaches its name when the capture
 * ends; until then it is a temporary beside it, which keeps what a
 * capture killed with SIGKILL had flushed.
 */
#include <sys/stat.h>
#include <sys/types.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util.h"
#include "graph.h"
#include "out.h"

/*
 * The writer's buffers (3 x 256 KiB uncompressed), zlib's, and one batch.
 * A file's share leaves room for at least a quarter MiB of data besides.
 */
#define SLACK		(1280 * 1024ULL)
#define MIN_SHARE	(SLACK + 256 * 1024ULL)

static struct out_conf	 conf;
static struct writer	*w;
static struct writer	*idx;		/* the ring file's relation index */
static int		 ringfd = -1;
static int		 stopfd = -1;	/* DIR/stopped, its blocks allocated */
static unsigned long	 seq;
static uint64_t		 written;	/* -o: by the writer, once closed */

struct ringfile {
	unsigned long	 seq;
	uint64_t	 size;
};

void
out_ring_usage_check(uint64_t size, unsigned files)
{
	if (files < 2)
		diex(EX_USAGE, "--ring-files: at least 2");
	if (size / files < MIN_SHARE)
		diex(EX_USAGE, "--ring-size: %llu bytes in %u files leaves "
		    "less than %llu bytes per file; use a larger size or "
		    "fewer files", (unsigned long long)size, files,
		    (unsigned long long)MIN_SHARE);
}

static void	index_name_of(char *, size_t, unsigned long);

static int
ring_name(const char *name, unsigned long *n)
{
	char *end;

	if (strncmp(name, RING_PREFIX, strlen(RING_PREFIX)) != 0)
		return 0;
	*n = strtoul(name + strlen(RING_PREFIX), &end, 10);
	return strcmp(end, RING_SUFFIX) == 0;
}

static int
cmp_seq(const void *a, const void *b)
{
	const struct ringfile *x = a, *y = b;

	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* The ring's files, oldest first; the one being written included. */
static struct ringfile *
ring_list(size_t *np)
{
	struct ringfile *v = NULL;
	struct dirent *de;
	struct stat st;
	char p[NAME_MAX + 1];
	size_t n = 0;
	unsigned long s;
	DIR *d;
	int fd;

	if ((fd = openat(ringfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC)) == -1 ||
	    (d = fdopendir(fd)) == NULL)
		die(EX_IOERR, "%s", conf.ring);
	while ((de = readdir(d)) != NULL) {
		if (!ring_name(de->d_name, &s))
			continue;
		if (fstatat(ringfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) == -1)
			continue;
		v = xrealloc(v, (n + 1) * sizeof(*v));
		v[n].seq = s;
		v[n].size = st.st_size;
		/* Its index counts with it: the size bounds the directory. */
		index_name_of(p, sizeof(p), s);
		if (fstatat(ringfd, p, &st, AT_SYMLINK_NOFOLLOW) == 0)
			v[n].size += st.st_size;
		n++;
	}
	closedir(d);
	if (n > 0)	/* v is NULL: qsort's is declared never so */
		qsort(v, n, sizeof(*v), cmp_seq);
	*np = n;
	return v;
}

static void
ring_name_of(char *p, size_t size, unsigned long s)
{
	snprintf(p, size, "%s%06lu%s", RING_PREFIX, s, RING_SUFFIX);
}

static void
index_name_of(char *p, size_t size, unsigned long s)
{
	snprintf(p, size, "%s%06lu%s", RELATE_PREFIX, s, RING_SUFFIX);
}

/* Make room for a new file of one share, then open it. */
static void
ring_next(void)
{
	uint64_t share = conf.ring_size / conf.ring_files, used = 0;
	struct ringfile *v;
	char p[NAME_MAX + 1];
	size_t n, i, first = 0;

	v = ring_list(&n);
	for (i = 0; i < n; i++)
		used += v[i].size;
	while (first < n && (used + share > conf.ring_size ||
	    n - first + 1 > conf.ring_files)) {
		ring_name_of(p, sizeof(p), v[first].seq);
		if (unlinkat(ringfd, p, 0) == -1 && errno != ENOENT)
			die(EX_IOERR, "%s/%s", conf.ring, p);
		index_name_of(p, sizeof(p), v[first].seq);
		if (unlinkat(ringfd, p, 0) == -1 && errno != ENOENT)
			die(EX_IOERR, "%s/%s", conf.ring, p);
		used -= v[first].size;
		first++;
	}
	if (n > 0 && v[n - 1].seq >= seq)
		seq = v[n - 1].seq + 1;
	free(v);
	index_name_of(p, sizeof(p), seq);
	idx = writer_create(ringfd, p, Z_GZIP, OUT_LIVE);
	ring_name_of(p, sizeof(p), seq++);
	w = writer_create(ringfd, p, Z_GZIP, OUT_LIVE);
	writer_background(w);
	if (conf.preamble) {
		conf.preamble(w);
		conf.preamble(idx);
	}
}

/*
 * DIR/stopped: why the recorder stopped, for argus status.  Its blocks
 * are written now, zeros (nothing to say), so that saying it later
 * overwrites them in place and needs no new room on a full disk.
 */
#define STOPPED_SIZE	4096

static void
stopped_prepare(void)
{
	char zero[STOPPED_SIZE] = { 0 };

	if ((stopfd = openat(ringfd, "stopped", O_WRONLY | O_CREAT |
	    O_NOFOLLOW | O_CLOEXEC, 0600)) == -1)
		die(EX_CANTCREAT, "%s/stopped", conf.ring);
	if (pwrite(stopfd, zero, sizeof(zero), 0) != sizeof(zero) ||
	    fsync(stopfd) == -1)
		die(EX_IOERR, "%s/stopped", conf.ring);
}

void
out_stopped(const char *why)
{
	char buf[STOPPED_SIZE] = { 0 };

	if (stopfd == -1)
		return;
	snprintf(buf, sizeof(buf) - 1, "%s\n", why);
	if (pwrite(stopfd, buf, sizeof(buf), 0) == sizeof(buf))
		fsync(stopfd);
}

void
out_prepare(const struct out_conf *c)
{
	conf = *c;
	if (conf.ring != NULL) {
		ringfd = private_dir(conf.ring, 1);
		stopped_prepare();
	}
}

void
out_open(void)
{
	if (conf.ring != NULL) {
		ring_next();
		return;
	}
	w = writer_create(AT_FDCWD, conf.path, conf.z, OUT_PARTIAL);
	/* Formatting keeps a CPU busy, and deflate would take another's. */
	writer_background(w);
	if (conf.preamble)
		conf.preamble(w);
}

struct writer *
out_writer(void)
{
	return w;
}

struct writer *
out_index(void)
{
	return idx;
}

uint64_t
out_bytes(void)
{
	struct ringfile *v;
	uint64_t used = 0;
	size_t n, i;

	if (conf.ring == NULL)
		return w != NULL ? writer_bytes(w) : written;
	v = ring_list(&n);
	for (i = 0; i < n; i++)
		used += v[i].size;
	free(v);
	return used;
}

void
out_check(void)
{
	if (conf.ring == NULL || writer_bytes(w) + writer_bytes(idx) + SLACK <
	    conf.ring_size / conf.ring_files)
		return;
	writer_close(idx);
	writer_close(w);
	ring_next();
}

/* A new ring file now, whatever the size of this one. */
void
out_rotate(void)
{
	if (conf.ring == NULL)
		return;
	writer_close(idx);
	writer_close(w);
	ring_next();
}

void
out_flush(void)
{
	if (idx != NULL)
		writer_flush(idx);
	writer_flush(w);
}

void
out_close(void)
{
	writer_flush(w);	/* writer_bytes() is exact after it */
	written = writer_bytes(w);
	if (idx != NULL)
		writer_close(idx);
	idx = NULL;
	writer_close(w);
	w = NULL;
}

/*
 * The ring's answer to a request (argus debug, argus mark): every event
 * before T is in its files.  A file replaced whole, so that a reader sees
 * one answer or the next, never half of one.
 */
void
out_served(uint64_t t, uint64_t reach)
{
	struct outfile f;

	if (ringfd == -1)
		return;
	outfile_open(&f, ringfd, "served", OUT_ATOMIC);
	if (dprintf(f.fd, "%llu %llu\n", (unsigned long long)t,
	    (unsigned long long)reach) < 0)
		die(EX_IOERR, "%s/served", conf.ring);
	outfile_commit(&f);
}

/*
 * The answer to a deepening to T: from REACH on, the ring's files hold
 * every event kept (0: all), N events read back, the oldest at OLDEST
 * (0: none).  "T REACH N OLDEST".
 */
void
out_deepened(uint64_t t, uint64_t reach, uint64_t n, uint64_t oldest)
{
	struct outfile f;

	if (ringfd == -1)
		return;
	outfile_open(&f, ringfd, "deepened", OUT_ATOMIC);
	if (dprintf(f.fd, "%llu %llu %llu %llu\n", (unsigned long long)t,
	    (unsigned long long)reach, (unsigned long long)n,
	    (unsigned long long)oldest) < 0)
		die(EX_IOERR, "%s/deepened", conf.ring);
	outfile_commit(&f);
}

/*
 * A patched process's user-space events lost (capture/patched.c), into
 * the totals of DIR/patch-lost that argus status reads: a line a
 * process, "PID N FROM TO COMM", N in all since the recorder started,
 * the first loss's start and the last's end (mono ns); the newest 64.
 */
void
out_patch_lost(int pid, const char *comm, uint64_t n, uint64_t from,
    uint64_t to)
{
	static struct {
		int		 pid;
		char		 comm[16];
		uint64_t	 n, from, to;
	} tot[64];
	static int ntot;
	struct outfile f;
	int i;

	if (ringfd == -1)
		return;
	for (i = 0; i < ntot; i++)
		if (tot[i].pid == pid && strcmp(tot[i].comm, comm) == 0)
			break;
	if (i == ntot) {
		if (ntot == (int)ARRAY_LEN(tot))
			memmove(tot, tot + 1, --ntot * sizeof(tot[0]));
		i = ntot++;
		tot[i].pid = pid;
		snprintf(tot[i].comm, sizeof(tot[i].comm), "%s", comm);
		tot[i].n = 0;
		tot[i].from = from;
	}
	tot[i].n += n;
	tot[i].to = to;
	outfile_open(&f, ringfd, PATCH_LOST_FILE, OUT_ATOMIC);
	for (i = 0; i < ntot; i++)
		if (dprintf(f.fd, "%d %llu %llu %llu %s\n", tot[i].pid,
		    (unsigned long long)tot[i].n,
		    (unsigned long long)tot[i].from,
		    (unsigned long long)tot[i].to, tot[i].comm) < 0)
			die(EX_IOERR, "%s/%s", conf.ring, PATCH_LOST_FILE);
	outfile_commit(&f);
}
