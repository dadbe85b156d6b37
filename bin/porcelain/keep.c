/*
 * What the recorder's directory keeps of the porcelain's own outputs
 * (argus debug's graphs, argus watch's reports): an always-on recorder is
 * asked again and again, from cron, from a watch, so the oldest go beyond
 * a number of them or a total size (--keep N|SIZE).  What the run asking
 * just wrote is kept whatever it costs.
 */
#include <sys/stat.h>

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "porcelain.h"

/* N (files) or SIZE (bytes: as argus-capture reads a size). */
void
keep_parse(struct keep *k, const char *opt, const char *s)
{
	size_t n = strspn(s, "0123456789");

	k->count = n > 0 && s[n] == '\0' ? strtoull(s, NULL, 10) : 0;
	k->bytes = n > 0 && s[n] == '\0' ? 0 : size_value(s);
	if (k->count == 0 && k->bytes == 0)
		diex(EX_USAGE, "%s: '%s' is neither a number of files nor a "
		    "size that keeps any (20, 500M, 2G)", opt, s);
}

struct kfile {
	char		 name[NAME_MAX + 1];
	time_t		 mtime;
	long		 nsec;
	unsigned long long size;
};

static int
newest_first(const void *a, const void *b)
{
	const struct kfile *x = a, *y = b;

	if (x->mtime != y->mtime)
		return x->mtime > y->mtime ? -1 : 1;
	if (x->nsec != y->nsec)
		return x->nsec > y->nsec ? -1 : 1;
	return strcmp(y->name, x->name);
}

/* SELF itself, or SELF.ANYTHING: the files of the run asking. */
static int
is_self(const char *name, const char *self)
{
	size_t n = strlen(self);

	return strncmp(name, self, n) == 0 && (name[n] == '\0' ||
	    name[n] == '.');
}

void
keep_prune(const struct keep *k, int (*ours)(const char *),
    int (*counted)(const char *), const char *self)
{
	unsigned long long total = 0, kept = 0;
	struct kfile *v = NULL;
	struct dirent *de;
	struct stat st;
	size_t n = 0, i;
	int fd;
	DIR *d;

	if ((fd = openat(ring_open(0), ".", O_RDONLY | O_DIRECTORY |
	    O_CLOEXEC)) == -1 || (d = fdopendir(fd)) == NULL) {
		warnx_("%s: %s", ring, strerror(errno));
		if (fd != -1)
			close(fd);
		return;
	}
	while ((de = readdir(d)) != NULL) {
		if (!ours(de->d_name) || fstatat(fd, de->d_name, &st,
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
		qsort(v, n, sizeof(*v), newest_first);
	for (i = 0; i < n; i++) {
		total += v[i].size;
		kept += counted == NULL || counted(v[i].name);
		if (is_self(v[i].name, self))
			continue;
		if ((k->count != 0 && kept > k->count) ||
		    (k->bytes != 0 && total > k->bytes)) {
			if (unlinkat(fd, v[i].name, 0) == -1 && errno != ENOENT)
				warnx_("%s/%s: %s", ring, v[i].name,
				    strerror(errno));
			total -= v[i].size;
		}
	}
	closedir(d);
	free(v);
}
