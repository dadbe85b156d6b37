/*
 * argus debug's files in the recorder's directory.  Each run's graph and
 * diagnosis is a file of its own, named by the second it began and made
 * at once with O_EXCL, so that two runs in the same second never write
 * one file; argus-slice's output then replaces it whole.  An always-on
 * recorder is asked again and again (from cron, from a monitor): the
 * oldest files go beyond a number of them or a total size.
 */
#include <sys/stat.h>

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <strings.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "porcelain.h"

#define DEBUG_PREFIX	"debug-"
#define DEBUG_SUFFIX	".gz"

static unsigned long long keep_count, keep_bytes;

/* N (files) or SIZE (bytes: a number with K, M or G). */
void
keep_parse(const char *s)
{
	unsigned long long v, mult = 0;
	char *end;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (!isdigit((unsigned char)*s) || errno != 0)
		goto bad;
	switch (toupper((unsigned char)*end)) {
	case '\0':
		mult = 0;
		break;
	case 'K':
		mult = 1ULL << 10;
		break;
	case 'M':
		mult = 1ULL << 20;
		break;
	case 'G':
		mult = 1ULL << 30;
		break;
	default:
		goto bad;
	}
	if (*end != '\0' && end[1] != '\0' && strcasecmp(end + 1, "iB") != 0 &&
	    strcasecmp(end + 1, "B") != 0)
		goto bad;
	if (v == 0)
		diex(EX_USAGE, "debug: --keep %s: keeps nothing, not even this "
		    "run's", s);
	if (mult == 0)
		keep_count = v;
	else
		keep_bytes = v * mult;
	return;
bad:
	diex(EX_USAGE, "debug: --keep: '%s' is neither a number of files nor "
	    "a size (20, 500M, 2G)", s);
}

void
debug_reserve(char *out, size_t osize, char *report, size_t rsize)
{
	char name[64];
	time_t now = time(NULL);
	int fd, n;

	for (n = 1; ; n++) {
		if (n == 1)
			snprintf(name, sizeof(name), DEBUG_PREFIX "%lld"
			    DEBUG_SUFFIX, (long long)now);
		else
			snprintf(name, sizeof(name), DEBUG_PREFIX "%lld-%d"
			    DEBUG_SUFFIX, (long long)now, n);
		fd = openat(ring_open(0), name, O_WRONLY | O_CREAT | O_EXCL |
		    O_NOFOLLOW | O_CLOEXEC, 0600);
		if (fd != -1)
			break;
		if (errno != EEXIST || n >= 1000)
			die(EX_CANTCREAT, "%s/%s", ring, name);
	}
	close(fd);
	ring_path(out, osize, name);
	/* Its report beside it, until it is shown. */
	snprintf(name + strlen(name) - strlen(DEBUG_SUFFIX),
	    sizeof(name) - strlen(name) + strlen(DEBUG_SUFFIX), ".report");
	ring_path(report, rsize, name);
}

struct dfile {
	char		 name[NAME_MAX + 1];
	time_t		 mtime;
	long		 nsec;
	unsigned long long size;
};

/* Newest first. */
static int
cmp_newest(const void *a, const void *b)
{
	const struct dfile *x = a, *y = b;

	if (x->mtime != y->mtime)
		return x->mtime > y->mtime ? -1 : 1;
	if (x->nsec != y->nsec)
		return x->nsec > y->nsec ? -1 : 1;
	return strcmp(y->name, x->name);
}

static int
is_debug(const char *name)
{
	size_t n = strlen(name);

	return strncmp(name, DEBUG_PREFIX, strlen(DEBUG_PREFIX)) == 0 &&
	    n > strlen(DEBUG_PREFIX) + strlen(DEBUG_SUFFIX) &&
	    strcmp(name + n - strlen(DEBUG_SUFFIX), DEBUG_SUFFIX) == 0 &&
	    isdigit((unsigned char)name[strlen(DEBUG_PREFIX)]);
}

void
debug_rotate(const char *out)
{
	const char *self = strrchr(out, '/') ? strrchr(out, '/') + 1 : out;
	unsigned long long total = 0;
	struct dfile *v = NULL;
	struct dirent *de;
	struct stat st;
	size_t n = 0, i;
	int fd;
	DIR *d;

	if (keep_count == 0 && keep_bytes == 0)
		keep_count = 20;
	if ((fd = openat(ring_open(0), ".", O_RDONLY | O_DIRECTORY |
	    O_CLOEXEC)) == -1 || (d = fdopendir(fd)) == NULL) {
		warnx_("%s: %s", ring, strerror(errno));
		return;
	}
	while ((de = readdir(d)) != NULL) {
		if (!is_debug(de->d_name) || fstatat(fd, de->d_name, &st,
		    AT_SYMLINK_NOFOLLOW) == -1 || !S_ISREG(st.st_mode))
			continue;
		v = xrealloc(v, (n + 1) * sizeof(*v));
		snprintf(v[n].name, sizeof(v[n].name), "%s", de->d_name);
		v[n].mtime = st.st_mtim.tv_sec;
		v[n].nsec = st.st_mtim.tv_nsec;
		v[n].size = st.st_size;
		n++;
	}
	if (n > 0)
		qsort(v, n, sizeof(*v), cmp_newest);
	/* This run's is kept whatever it costs: it was just asked for. */
	for (i = 0; i < n; i++) {
		total += v[i].size;
		if (strcmp(v[i].name, self) == 0)
			continue;
		if ((keep_count != 0 && i >= keep_count) ||
		    (keep_bytes != 0 && total > keep_bytes)) {
			if (unlinkat(fd, v[i].name, 0) == -1 && errno != ENOENT)
				warnx_("%s/%s: %s", ring, v[i].name,
				    strerror(errno));
			total -= v[i].size;
		}
	}
	closedir(d);
	free(v);
}
