/*
 * argus debug's files in the recorder's directory.  Each run's graph and
 * diagnosis is a file of its own, named by the second it began and made
 * at once with O_EXCL, so that two runs in the same second never write
 * one file; argus-slice's output then replaces it whole.  An always-on
 * recorder is asked again and again (from cron, from a watch): the
 * oldest files go beyond --keep (keep.c).
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

static struct keep keep;

void
debug_keep(const char *s)
{
	keep_parse(&keep, "debug: --keep", s);
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
	keep_prune(&keep, is_debug, NULL, strrchr(out, '/') ?
	    strrchr(out, '/') + 1 : out);
}
