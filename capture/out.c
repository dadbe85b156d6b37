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
 */
#include <sys/stat.h>
#include <sys/types.h>

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util.h"
#include "out.h"

#define RING_SUFFIX	".csv.gz"
/* The writer's buffer (256 KiB uncompressed), zlib's, and one batch. */
#define SLACK		(768 * 1024ULL)
#define MIN_SHARE	(2 * SLACK)

static struct out_conf	 conf;
static struct writer	*w;
static char		 cur_path[PATH_MAX];
static unsigned long	 seq;

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
	char p[PATH_MAX];
	struct ringfile *v = NULL;
	struct dirent *de;
	struct stat st;
	size_t n = 0;
	unsigned long s;
	DIR *d;

	if ((d = opendir(conf.ring)) == NULL)
		die(EX_CANTCREAT, "%s", conf.ring);
	while ((de = readdir(d)) != NULL) {
		if (!ring_name(de->d_name, &s))
			continue;
		snprintf(p, sizeof(p), "%s/%s", conf.ring, de->d_name);
		if (stat(p, &st) == -1)
			continue;
		v = xrealloc(v, (n + 1) * sizeof(*v));
		v[n].seq = s;
		v[n].size = st.st_size;
		n++;
	}
	closedir(d);
	qsort(v, n, sizeof(*v), cmp_seq);
	*np = n;
	return v;
}

static void
ring_path(char *p, size_t size, unsigned long s)
{
	snprintf(p, size, "%s/%s%06lu%s", conf.ring, RING_PREFIX, s,
	    RING_SUFFIX);
}

/* Make room for a new file of one share, then open it. */
static void
ring_next(void)
{
	uint64_t share = conf.ring_size / conf.ring_files, used = 0;
	struct ringfile *v;
	char p[PATH_MAX];
	size_t n, i, first = 0;

	v = ring_list(&n);
	for (i = 0; i < n; i++)
		used += v[i].size;
	while (first < n && (used + share > conf.ring_size ||
	    n - first + 1 > conf.ring_files)) {
		ring_path(p, sizeof(p), v[first].seq);
		if (unlink(p) == -1 && errno != ENOENT)
			die(EX_IOERR, "%s", p);
		used -= v[first].size;
		first++;
	}
	if (n > 0 && v[n - 1].seq >= seq)
		seq = v[n - 1].seq + 1;
	free(v);
	ring_path(cur_path, sizeof(cur_path), seq++);
	w = writer_open(cur_path, Z_GZIP);
	if (conf.preamble)
		conf.preamble(w);
}

void
out_open(const struct out_conf *c)
{
	conf = *c;
	if (conf.ring == NULL) {
		w = writer_open(conf.path, conf.z);
		if (conf.path != NULL && strcmp(conf.path, "-") != 0)
			snprintf(cur_path, sizeof(cur_path), "%s", conf.path);
		if (conf.preamble)
			conf.preamble(w);
		return;
	}
	if (mkdir(conf.ring, 0700) == -1 && errno != EEXIST)
		die(EX_CANTCREAT, "%s", conf.ring);
	ring_next();
}

struct writer *
out_writer(void)
{
	return w;
}

uint64_t
out_bytes(void)
{
	struct ringfile *v;
	struct stat st;
	uint64_t used = 0;
	size_t n, i;

	if (conf.ring != NULL) {
		v = ring_list(&n);
		for (i = 0; i < n; i++)
			used += v[i].size;
		free(v);
		return used;
	}
	if (cur_path[0] && stat(cur_path, &st) == 0)
		return st.st_size;
	return 0;
}

void
out_check(void)
{
	struct stat st;
	uint64_t share;

	if (conf.ring == NULL)
		return;
	share = conf.ring_size / conf.ring_files;
	if (stat(cur_path, &st) == -1)
		die(EX_IOERR, "%s", cur_path);
	if ((uint64_t)st.st_size + SLACK < share)
		return;
	writer_close(w);
	ring_next();
}

void
out_flush(void)
{
	writer_flush(w);
}

void
out_close(void)
{
	writer_close(w);
	w = NULL;
}
