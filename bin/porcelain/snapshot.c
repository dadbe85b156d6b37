/*
 * Wait-for snapshots in the recorder's directory: argus-waitfor's, taken
 * by `argus mark' at the moment a hang is noticed and by `argus debug'
 * when it starts, named by when they were taken so that debug can find
 * the newest within its window.  The ring's rotation does not know them:
 * we keep the newest SNAP_KEEP and remove older ones.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "porcelain.h"

#define SNAP_KEEP	16
/* The user stacks `argus mark' took with a snapshot (present.c). */
#define STK_PREFIX	"argus-stk-"
#define STK_SUFFIX	".csv.gz"

/* The time in a snapshot's name; 0 for a name that is not one. */
static uint64_t
snap_time(const char *name)
{
	unsigned long long t;
	char *end;

	if (strncmp(name, SNAP_PREFIX, strlen(SNAP_PREFIX)) != 0)
		return 0;
	t = strtoull(name + strlen(SNAP_PREFIX), &end, 10);
	return strcmp(end, SNAP_SUFFIX) == 0 ? t : 0;
}

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static void
snap_name(char *buf, size_t size, uint64_t t)
{
	char name[64];

	snprintf(name, sizeof(name), "%s%llu%s", SNAP_PREFIX,
	    (unsigned long long)t, SNAP_SUFFIX);
	ring_path(buf, size, name);
}

/* The snapshots' times, oldest first. */
static uint64_t *
snap_list(size_t *np)
{
	struct dirent *de;
	uint64_t *v = NULL, t;
	size_t n = 0;
	DIR *d;

	if ((d = opendir(ring)) != NULL) {
		while ((de = readdir(d)) != NULL)
			if ((t = snap_time(de->d_name)) != 0) {
				v = xrealloc(v, (n + 1) * sizeof(*v));
				v[n++] = t;
			}
		closedir(d);
	}
	if (n > 0)
		qsort(v, n, sizeof(*v), cmp_u64);
	*np = n;
	return v;
}

uint64_t
snapshot_take(char *buf, size_t size)
{
	char *argv[] = { "argus-waitfor", "-q", "-o", buf, NULL };
	char old[PATH_MAX];
	uint64_t *v, t = now_ns();
	size_t n, i;
	int status;

	/* argus-waitfor's output is whole or absent, as every -o is. */
	snap_name(buf, size, t);
	if ((status = run_wait(spawn(argv, -1, -1, -1))) != 0) {
		warnx_("argus-waitfor exited with status %d: no snapshot",
		    status);
		return 0;
	}
	v = snap_list(&n);
	for (i = 0; i + SNAP_KEEP < n; i++) {
		snap_name(old, sizeof(old), v[i]);
		if (unlink(old) == -1 && errno != ENOENT)
			warnx_("%s: %s", old, strerror(errno));
		snapshot_stacks(v[i], old, sizeof(old));
		if (unlink(old) == -1 && errno != ENOENT)
			warnx_("%s: %s", old, strerror(errno));
	}
	free(v);
	return t;
}

int
snapshot_newest(uint64_t since, uint64_t before, char *buf, size_t size)
{
	uint64_t *v;
	size_t n;
	int found = 0;

	v = snap_list(&n);
	while (n > 0 && v[n - 1] >= before)
		n--;
	if (n > 0 && v[n - 1] >= since) {
		snap_name(buf, size, v[n - 1]);
		found = 1;
	}
	free(v);
	return found;
}

void
snapshot_stacks(uint64_t t, char *buf, size_t size)
{
	char name[64];

	snprintf(name, sizeof(name), "%s%llu%s", STK_PREFIX,
	    (unsigned long long)t, STK_SUFFIX);
	ring_path(buf, size, name);
}

uint64_t
snapshot_time(const char *path)
{
	const char *slash = strrchr(path, '/');

	return snap_time(slash != NULL ? slash + 1 : path);
}
