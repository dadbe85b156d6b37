/*
 * Finding tracefs, and the life of our instance.  The instance must go away
 * however we exit (a left-over instance keeps tracing and holds its buffers
 * until someone removes it), so removal is registered with atexit(3) and
 * the signal paths end through exit() too.  SIGKILL cannot be caught: the
 * next capture reaps instances whose owner is dead.
 */
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/types.h>

#include <dirent.h>
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util.h"
#include "tracefs.h"

static char	 root_path[PATH_MAX];
static char	 inst_path[PATH_MAX];
static char	 bridge_path[PATH_MAX];	/* argus-PID-early, or "" */
static pid_t	 inst_owner;
/* The thread setting up the bridge writes there (tfs_bridge_select). */
static __thread int use_bridge;

static int
is_tracefs(const char *dir)
{
	char p[PATH_MAX];
	struct stat st;

	snprintf(p, sizeof(p), "%s/instances", dir);
	return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

const char *
tfs_root(void)
{
	static const char *const known[] = {
		"/sys/kernel/tracing", "/sys/kernel/debug/tracing",
	};
	const char *env;
	size_t i;
	int merr = 0;

	/* An override, for tests and odd mounts: taken as is, never mounted. */
	if ((env = getenv("ARGUS_TRACEFS")) != NULL && *env != '\0') {
		if (!is_tracefs(env))
			diex(EX_UNAVAILABLE, "no tracefs at %s (from "
			    "ARGUS_TRACEFS): expected a tracefs mount with an "
			    "instances directory", env);
		snprintf(root_path, sizeof(root_path), "%s", env);
		return root_path;
	}
	for (i = 0; i < ARRAY_LEN(known); i++) {
		if (is_tracefs(known[i])) {
			snprintf(root_path, sizeof(root_path), "%s", known[i]);
			return root_path;
		}
		/* Mounted, but tracefs is root's alone. */
		if (errno == EACCES || errno == EPERM)
			diex(EX_UNAVAILABLE, "cannot use tracefs at %s: %s "
			    "(argus-capture needs root)", known[i],
			    strerror(errno));
	}
	if (mount("nodev", known[0], "tracefs", 0, NULL) == 0 &&
	    is_tracefs(known[0])) {
		snprintf(root_path, sizeof(root_path), "%s", known[0]);
		return root_path;
	}
	merr = errno;
	diex(EX_UNAVAILABLE, "no tracefs: not mounted at %s or %s, and "
	    "mounting it failed (%s)%s", known[0], known[1], strerror(merr),
	    geteuid() != 0 ? "; argus-capture needs root" :
	    "; is CONFIG_TRACING enabled in this kernel?");
}

/* Whether pid is a running argus-capture (a reused pid is not). */
int
tfs_alive_capture(long pid)
{
	char p[64], comm[32];
	ssize_t n;
	int fd;

	if (kill(pid, 0) == -1 && errno == ESRCH)
		return 0;
	snprintf(p, sizeof(p), "/proc/%ld/comm", pid);
	if ((fd = open(p, O_RDONLY | O_CLOEXEC)) == -1)
		return 1;	/* cannot tell: leave it */
	n = read(fd, comm, sizeof(comm) - 1);
	close(fd);
	if (n <= 0)
		return 1;
	comm[n] = '\0';
	return strncmp(comm, "argus-capture", 13) == 0;
}

/* The instances of one capture killed (SIGKILL), by its pid, once gone. */
void
tfs_reap_pid(long pid)
{
	const char *root = tfs_root();
	char p[PATH_MAX];

	if (tfs_alive_capture(pid))
		return;
	snprintf(p, sizeof(p), "%s/instances/%s%ld%s", root, INSTANCE_PREFIX,
	    pid, BRIDGE_SUFFIX);
	rmdir(p);
	snprintf(p, sizeof(p), "%s/instances/%s%ld", root, INSTANCE_PREFIX,
	    pid);
	rmdir(p);
}

/* An instance named argus-PID whose PID is gone was left by a SIGKILL. */
void
tfs_reap_stale(const char *root)
{
	char dir[PATH_MAX], p[2 * PATH_MAX];
	struct dirent *de;
	DIR *d;
	char *end;
	long pid;

	snprintf(dir, sizeof(dir), "%s/instances", root);
	if ((d = opendir(dir)) == NULL)
		return;
	while ((de = readdir(d)) != NULL) {
		if (strncmp(de->d_name, INSTANCE_PREFIX,
		    strlen(INSTANCE_PREFIX)) != 0)
			continue;
		errno = 0;
		pid = strtol(de->d_name + strlen(INSTANCE_PREFIX), &end, 10);
		if ((*end != '\0' && strcmp(end, BRIDGE_SUFFIX) != 0) ||
		    pid <= 0 || errno)
			continue;	/* not a name we would have made */
		if (tfs_alive_capture(pid))
			continue;
		snprintf(p, sizeof(p), "%s/%s", dir, de->d_name);
		if (rmdir(p) == 0)
			warnx_("removed instance %s left by a capture that "
			    "died (pid %ld)", de->d_name, pid);
		else
			warnx_("could not remove stale instance %s: %s", p,
			    strerror(errno));
	}
	closedir(d);
}

const char *
tfs_instance_create(const char *root)
{
	snprintf(inst_path, sizeof(inst_path), "%s/instances/%s%d", root,
	    INSTANCE_PREFIX, (int)getpid());
	if (mkdir(inst_path, 0700) == -1) {
		int e = errno;

		inst_path[0] = '\0';
		if (e == EACCES || e == EPERM)
			diex(EX_UNAVAILABLE, "cannot create a tracefs instance "
			    "in %s/instances: %s (argus-capture needs root)",
			    root, strerror(e));
		diex(EX_UNAVAILABLE, "cannot create a tracefs instance in "
		    "%s/instances: %s", root, strerror(e));
	}
	inst_owner = getpid();
	atexit(tfs_instance_remove);
	return inst_path;
}

const char *
tfs_root_path(void)
{
	return root_path[0] ? root_path : NULL;
}

const char *
tfs_instance(void)
{
	return inst_path[0] ? inst_path : NULL;
}

/*
 * rmdir fails with EBUSY while a file of the instance is open (our own
 * trace_pipe_raw descriptors are closed by now) or briefly while the
 * kernel tears down: retry a little.
 */
static void
remove_dir(char *path)
{
	int i;

	for (i = 0; i < 50; i++) {
		if (rmdir(path) == 0 || errno == ENOENT)
			break;
		if (errno != EBUSY)
			break;
		usleep(20000);
	}
	if (i == 50 || (access(path, F_OK) == 0))
		warnx_("could not remove tracefs instance %s: %s", path,
		    strerror(errno));
	path[0] = '\0';
}

void
tfs_instance_remove(void)
{
	/* A forked child exiting must not take its parent's instance. */
	if (inst_path[0] == '\0' || getpid() != inst_owner)
		return;
	tfs_bridge_remove();
	use_bridge = 0;
	tfs_write("tracing_on", "0");
	remove_dir(inst_path);
}

/*
 * The bridge: a second instance with a small buffer that records while
 * the kernel allocates the big one (which it does with the instance's
 * tracing stopped, seconds for hundreds of MiB), so that recording
 * begins at once.  Named after ours, so the reaper knows it.
 */
const char *
tfs_bridge_create(void)
{
	if ((size_t)snprintf(bridge_path, sizeof(bridge_path), "%s%s",
	    inst_path, BRIDGE_SUFFIX) >= sizeof(bridge_path))
		diex(EX_UNAVAILABLE, "%s: path too long", inst_path);
	if (mkdir(bridge_path, 0700) == -1)
		die(EX_UNAVAILABLE, "%s", bridge_path);
	return bridge_path;
}

int
tfs_bridge(void)
{
	return bridge_path[0] != '\0';
}

void
tfs_bridge_select(int on)
{
	use_bridge = on && tfs_bridge();
}

void
tfs_bridge_remove(void)
{
	int was = use_bridge;

	if (bridge_path[0] == '\0' || getpid() != inst_owner)
		return;
	use_bridge = 1;
	tfs_write("tracing_on", "0");
	use_bridge = was;
	remove_dir(bridge_path);
	use_bridge = 0;
}

#define RELMAX	(2 * PATH_MAX)

static void
relpath(char *p, size_t n, const char *rel)
{
	if ((size_t)snprintf(p, n, "%s/%s", use_bridge ? bridge_path :
	    inst_path, rel) >= n)
		p[0] = '\0';	/* an empty path fails to open */
}

int
tfs_open(const char *rel, int flags)
{
	char p[RELMAX];

	relpath(p, sizeof(p), rel);
	return open(p, flags | O_CLOEXEC);
}

int
tfs_exists(const char *rel)
{
	char p[RELMAX];

	relpath(p, sizeof(p), rel);
	return access(p, F_OK) == 0;
}

int
tfs_write(const char *rel, const char *fmt, ...)
{
	char *s;
	va_list ap;
	ssize_t n;
	int fd, r, e;

	va_start(ap, fmt);
	r = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (r == -1)
		return -1;
	/* O_TRUNC: some files (set_event_pid, filters) append otherwise. */
	if ((fd = tfs_open(rel, O_WRONLY | O_TRUNC)) == -1) {
		e = errno;
		free(s);
		errno = e;
		return -1;
	}
	n = write(fd, s, strlen(s));
	e = errno;
	close(fd);
	r = n == (ssize_t)strlen(s) ? 0 : -1;
	free(s);
	errno = e;
	return r;
}

ssize_t
tfs_read(const char *rel, char *buf, size_t size)
{
	ssize_t n, got = 0;
	int fd;

	if ((fd = tfs_open(rel, O_RDONLY)) == -1)
		return -1;
	while ((size_t)got + 1 < size &&
	    (n = read(fd, buf + got, size - 1 - got)) > 0)
		got += n;
	close(fd);
	buf[got] = '\0';
	return got;
}
