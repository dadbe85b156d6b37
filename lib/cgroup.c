/*
 * Where a process runs, from its cgroup v2 path: see cgroup.h.  A path
 * below a delegated subtree (a user's systemd, a container's runtime) is
 * its owner's text, like a thread's name: it is read bounded, never
 * through a link, and shown through show().
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <uthash.h>

#include "cgroup.h"
#include "procopen.h"
#include "util.h"

ssize_t
cgroup_read(int pid, char *buf, size_t size)
{
	char path[64], *all, *p, *end;
	size_t n;

	/* A v1 or hybrid system lists a line per hierarchy before it. */
	all = xmalloc(CGROUP_MAX + 1024);
	snprintf(path, sizeof(path), "/proc/%d/cgroup", pid);
	if (proc_slurp(path, all, CGROUP_MAX + 1024) <= 0) {
		free(all);
		return -1;
	}
	for (p = all; p != NULL && strncmp(p, "0::", 3) != 0;
	    p = (p = strchr(p, '\n')) != NULL ? p + 1 : NULL)
		;
	if (p == NULL || p[3] != '/') {
		free(all);
		return -1;
	}
	p += 3;
	end = p + strcspn(p, "\n");
	n = (size_t)(end - p) < size - 1 ? (size_t)(end - p) : size - 1;
	memcpy(buf, p, n);
	buf[n] = '\0';
	free(all);
	return n;
}

/* The last component of path with one of these suffixes, its length in *n. */
static const char *
last_component(const char *path, const char *const *suffix, size_t *n)
{
	const char *p, *found = NULL;
	size_t len, sl, i;

	for (p = path; *p != '\0'; p += len) {
		p += strspn(p, "/");
		len = strcspn(p, "/");
		for (i = 0; suffix[i] != NULL; i++) {
			sl = strlen(suffix[i]);
			if (len > sl && memcmp(p + len - sl, suffix[i], sl) == 0) {
				found = p;
				*n = len;
			}
		}
	}
	return found;
}

const char *
cgroup_unit(const char *path, char *buf, size_t size)
{
	static const char *const units[] = { ".service", ".scope", ".socket",
	    NULL };
	const char *u;
	size_t n;

	if ((u = last_component(path, units, &n)) == NULL)
		n = 0;
	snprintf(buf, size, "%.*s", (int)n, u != NULL ? u : "");
	return buf;
}

/* 64 hex digits at p, the whole of its n bytes: a container's id. */
static int
is_id(const char *p, size_t n)
{
	size_t i;

	if (n != 64)
		return 0;
	for (i = 0; i < n; i++)
		if (!isxdigit((unsigned char)p[i]) || isupper((unsigned char)p[i]))
			return 0;
	return 1;
}

/*
 * docker-ID.scope, libpod-ID.scope, cri-containerd-ID.scope, crio-ID.scope
 * (the systemd driver), or ID alone (cgroupfs: /docker/ID,
 * /kubepods/.../ID).  podman's libpod-conmon-ID.scope holds its monitor,
 * which runs outside the container.
 */
const char *
cgroup_container(const char *path, char *buf, size_t size)
{
	const char *p, *id, *found = NULL;
	size_t len, n;

	for (p = path; *p != '\0'; p += len) {
		p += strspn(p, "/");
		len = strcspn(p, "/");
		n = len;
		id = p;
		if (n > 6 && memcmp(p + n - 6, ".scope", 6) == 0 &&
		    memmem(p, n, "conmon", 6) == NULL) {
			n -= 6;
			while (n > 0 && id[n - 1] != '-')
				n--;
			id += n;
			n = len - 6 - n;
		}
		if (is_id(id, n))
			found = id;
	}
	snprintf(buf, size, "%.*s", found != NULL ? 64 : 0,
	    found != NULL ? found : "");
	return buf;
}

const char *
cgroup_where(const char *path, char *buf, size_t size)
{
	char s[CGROUP_MAX];

	if (path == NULL)
		return NULL;
	if (*cgroup_container(path, s, sizeof(s)) != '\0') {
		snprintf(buf, size, "container %.*s", CONTAINER_SHORT, s);
		return buf;
	}
	cgroup_unit(path, s, sizeof(s));
	if (*s == '\0' || (strncmp(s, "session-", 8) == 0 &&
	    strcmp(s + strlen(s) - 6, ".scope") == 0))
		return NULL;
	snprintf(buf, size, "unit %s", s);
	return buf;
}

/* Every process of a unit has the same path: each is kept once. */
struct cgpath {
	char		*path;
	UT_hash_handle	 hh;
};

struct cgpid {
	uint32_t	 pid;
	const char	*path;
	UT_hash_handle	 hh;
};

static struct cgpath	*paths;
static struct cgpid	*pids;

const char *
cgroup_intern(const char *path)
{
	struct cgpath *c;

	HASH_FIND_STR(paths, path, c);
	if (c == NULL) {
		c = xcalloc(1, sizeof(*c));
		c->path = xstrdup(path);
		HASH_ADD_KEYPTR(hh, paths, c->path, strlen(c->path), c);
	}
	return c->path;
}

void
cgroup_learn(const struct record *rec)
{
	struct cgpid *c;
	uint32_t pid;
	const char *path;

	if (!record_is(rec, KIND_TASK) || rec->nf <= TASK_CGROUP ||
	    *(path = rec->f[TASK_CGROUP]) == '\0' ||
	    (pid = record_pid(rec, COL_PID)) == 0)
		return;
	HASH_FIND(hh, pids, &pid, sizeof(pid), c);
	if (c == NULL) {
		c = xcalloc(1, sizeof(*c));
		c->pid = pid;
		HASH_ADD(hh, pids, pid, sizeof(pid), c);
	}
	c->path = cgroup_intern(path);
}

const char *
cgroup_of(uint32_t pid)
{
	struct cgpid *c;

	HASH_FIND(hh, pids, &pid, sizeof(pid), c);
	return c != NULL ? c->path : NULL;
}
