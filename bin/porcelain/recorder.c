/*
 * The flight recorder as the porcelain knows it: a directory holding the
 * ring files, and the pid of the argus-capture that writes them.  The
 * directory is private (lib/file.h): root writes into it, always on, on a
 * machine where others can plant links and directories.
 */
#include <sys/stat.h>

#include <errno.h>
#include <getopt.h>
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "porcelain.h"
#include "waits.h"

const char	*ring;
static int	 ringfd = -1;
static int	 ring_is_default;

/*
 * On disk, not in /run: the recording of a machine that froze and was
 * rebooted is the one worth reading afterwards, and a ring of gigabytes
 * has no place in a tmpfs.  A user's own state directory otherwise (XDG).
 */
void
ring_default(void)
{
	static char buf[PATH_MAX];
	const char *state = getenv("XDG_STATE_HOME"), *home = getenv("HOME");

	ring_is_default = 1;
	if (geteuid() == 0)
		ring = "/var/lib/argus";
	else if (state != NULL && state[0] == '/')
		snprintf(buf, sizeof(buf), "%s/argus", state);
	else if (home != NULL && home[0] == '/')
		snprintf(buf, sizeof(buf), "%s/.local/state/argus", home);
	else
		return;		/* ring_open() says so, if it is needed */
	if (geteuid() != 0)
		ring = buf;
}

/* mkdir -p of the default's parents, 0700 as XDG asks: ~/.local/state. */
static void
make_parents(void)
{
	char p[PATH_MAX], *s;

	snprintf(p, sizeof(p), "%s", ring);
	for (s = strchr(p + 1, '/'); s != NULL; s = strchr(s + 1, '/')) {
		*s = '\0';
		if (mkdir(p, 0700) == -1 && errno != EEXIST)
			die(EX_CANTCREAT, "%s", p);
		*s = '/';
	}
}

int
ring_open(int create)
{
	if (ringfd != -1)
		return ringfd;
	if (ring == NULL)
		diex(EX_USAGE, "no HOME to keep a recording in: give --ring DIR");
	if (create && ring_is_default)
		make_parents();
	return ringfd = private_dir(ring, create);
}

void
ring_path(char *buf, size_t size, const char *name)
{
	if ((size_t)snprintf(buf, size, "%s/%s", ring, name) >= size)
		diex(EX_USAGE, "%s: path too long", ring);
}

/* The recorder we started, if it still runs: only ever that process. */
pid_t
recorder(void)
{
	char path[64], comm[64] = "";
	FILE *fp;
	long pid = 0;
	int fd;

	if (ring_open(0) == -1 || (fd = openat(ringfd, "recorder.pid",
	    O_RDONLY | O_NOFOLLOW | O_CLOEXEC)) == -1)
		return 0;
	if ((fp = fdopen(fd, "r")) == NULL)
		die(EX_OSERR, "%s/recorder.pid", ring);
	if (fscanf(fp, "%ld", &pid) != 1)
		pid = 0;
	fclose(fp);
	snprintf(path, sizeof(path), "/proc/%ld/comm", pid);
	if (pid <= 0 || (fp = fopen(path, "r")) == NULL)
		return 0;
	if (fgets(comm, sizeof(comm), fp) == NULL)
		comm[0] = '\0';
	fclose(fp);
	return strncmp(comm, "argus-capture", 13) == 0 ? (pid_t)pid : 0;
}

/*
 * When the running recorder's recording began (CLOCK_MONOTONIC ns, in
 * recorder.since, written with recorder.pid), or 0 for an older one.
 */
uint64_t
recorder_since(void)
{
	unsigned long long since = 0;
	FILE *fp;
	int fd;

	if (ring_open(0) == -1 || (fd = openat(ringfd, "recorder.since",
	    O_RDONLY | O_NOFOLLOW | O_CLOEXEC)) == -1)
		return 0;
	if ((fp = fdopen(fd, "r")) == NULL)
		die(EX_OSERR, "%s/recorder.since", ring);
	if (fscanf(fp, "%llu", &since) != 1)
		since = 0;
	fclose(fp);
	return since;
}

/* A monotonic time of this boot as the local time it was. */
void
recorder_when(uint64_t mono, char *buf, size_t size)
{
	struct timespec rt;
	uint64_t now = now_ns(), wall;
	time_t sec;
	size_t len;

	clock_gettime(CLOCK_REALTIME, &rt);
	wall = (uint64_t)rt.tv_sec * 1000000000ULL + rt.tv_nsec -
	    (now > mono ? now - mono : 0);
	sec = wall / 1000000000ULL;
	len = strftime(buf, size, "%F %T", localtime(&sec));
	snprintf(buf + len, size - len, ".%03llu",
	    (unsigned long long)(wall % 1000000000ULL / 1000000));
}

/*
 * Why the recorder stopped, as it said into DIR/stopped (a file whose
 * blocks it wrote at its start, so that a full disk keeps its last
 * words), or "" when it did not say.
 */
void
recorder_stopped(char *buf, size_t size)
{
	ssize_t n;
	int fd;

	buf[0] = '\0';
	if (ring_open(0) == -1 || (fd = openat(ringfd, "stopped",
	    O_RDONLY | O_NOFOLLOW | O_CLOEXEC)) == -1)
		return;
	if ((n = read(fd, buf, size - 1)) < 0)
		n = 0;
	close(fd);
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
}

/* Whether a thread is one of the target's (debug's options, in pairs). */
int
target_is(char *const target[], int nt, uint32_t pid, uint32_t tid,
    const char *comm)
{
	int i;

	for (i = 0; i + 1 < nt; i += 2)
		if ((strcmp(target[i], "--pid") == 0 &&
		    pid == strtoul(target[i + 1], NULL, 10)) ||
		    (strcmp(target[i], "--tid") == 0 &&
		    tid == strtoul(target[i + 1], NULL, 10)) ||
		    (strcmp(target[i], "--comm") == 0 &&
		    strcmp(comm, target[i + 1]) == 0))
			return 1;
	return 0;
}

/*
 * Since when the target's threads blocked in snap (a wait-for snapshot)
 * have waited: the latest of their waits' starts, or 0 if none waits.
 * Older than the recording, none of the hang's beginning is in it.
 */
uint64_t
snapshot_waiting_since(const char *snap, char *const target[], int nt)
{
	struct record rec;
	struct wait_rec w;
	struct reader *r;
	uint64_t latest = 0;

	r = reader_open(snap);
	while (reader_next(r, &rec))
		if (wait_parse(&rec, &w) &&
		    target_is(target, nt, w.pid, w.tid, w.comm) &&
		    (w.state[0] == 'S' || w.state[0] == 'D') &&
		    w.since != NO_TIME && w.since > latest)
			latest = w.since;
	reader_close(r);
	return latest;
}

/* Whether pid catches sig: a recorder older than its request would die. */
static int
catches(pid_t pid, int sig)
{
	char path[64], line[256];
	unsigned long long mask = 0;
	FILE *fp;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	if ((fp = fopen(path, "r")) == NULL)
		return 0;
	while (fgets(line, sizeof(line), fp) != NULL)
		if (sscanf(line, "SigCgt: %llx", &mask) == 1)
			break;
	fclose(fp);
	return (mask >> (sig - 1)) & 1;
}

/* The time of the last request the recorder served (DIR/served), or 0. */
static uint64_t
served(void)
{
	unsigned long long t = 0;
	FILE *fp;
	int fd;

	if ((fd = openat(ringfd, "served", O_RDONLY | O_NOFOLLOW |
	    O_CLOEXEC)) == -1)
		return 0;
	if ((fp = fdopen(fd, "r")) == NULL)
		die(EX_OSERR, "%s/served", ring);
	if (fscanf(fp, "%llu", &t) != 1)
		t = 0;
	fclose(fp);
	return t;
}

/* A file of numbers the recorder replaced whole: its n first, or 0. */
static int
numbers(const char *name, unsigned long long *v, int n)
{
	FILE *fp;
	int fd, got = 0;

	if ((fd = openat(ringfd, name, O_RDONLY | O_NOFOLLOW |
	    O_CLOEXEC)) == -1)
		return 0;
	if ((fp = fdopen(fd, "r")) == NULL)
		die(EX_OSERR, "%s/%s", ring, name);
	while (got < n && fscanf(fp, "%llu", &v[got]) == 1)
		got++;
	fclose(fp);
	return got;
}

uint64_t
recorder_reach(void)
{
	unsigned long long v[2];

	return numbers("served", v, 2) == 2 ? v[1] : 0;
}

#define DRAIN_TIMEOUT_NS	(300 * 1000000000ULL)

/*
 * The recorder reads its spill back from t on (SIGUSR2 with t, from an
 * argus debug that needs older events than the kernel's buffers held)
 * and answers in DIR/deepened: "T REACH EVENTS OLDEST".
 */
int
recorder_deepen(pid_t pid, uint64_t t, uint64_t *reach, uint64_t *oldest)
{
	struct timespec nap = { 0, 20000000 };
	unsigned long long v[4];
	union sigval sv;
	uint64_t t0 = now_ns();

	if (t == 0)
		t = 1;	/* 0 is no request */
	if (!catches(pid, SIGUSR2))
		return -1;
	sv.sival_ptr = (void *)(uintptr_t)t;
	if (sigqueue(pid, SIGUSR2, sv) == -1) {
		warnx_("the recorder (pid %d): %s", (int)pid, strerror(errno));
		return -1;
	}
	while (numbers("deepened", v, 4) != 4 || v[0] != t) {
		if (recorder() != pid) {
			warnx_("the recorder stopped before it read its "
			    "spill back");
			return -1;
		}
		if (now_ns() - t0 > DRAIN_TIMEOUT_NS) {
			warnx_("the recorder did not read its spill back in "
			    "%llu s", (unsigned long long)(DRAIN_TIMEOUT_NS /
			    1000000000ULL));
			return -1;
		}
		nanosleep(&nap, NULL);
	}
	*reach = v[1];
	*oldest = v[3];
	return 0;
}

/*
 * Everything the recorder holds up to now, into its files: a deferred
 * recorder leaves the events in the kernel's ring until asked, and the
 * newest, which a hang still going on needs, are always still in a live
 * one's spool.  The recorder says when it is done (out_served()).
 */
uint64_t
recorder_drain_ask(pid_t pid)
{
	uint64_t t0 = now_ns();

	if (!catches(pid, SIGUSR1)) {
		warnx_("the recorder (pid %d) is older than this argus: "
		    "reading what it wrote so far", (int)pid);
		return 0;
	}
	if (kill(pid, SIGUSR1) == -1) {
		warnx_("the recorder (pid %d): %s", (int)pid, strerror(errno));
		return 0;
	}
	return t0;
}

int
recorder_drain(pid_t pid)
{
	uint64_t t0 = recorder_drain_ask(pid);

	return t0 == 0 ? -1 : recorder_drain_wait(pid, t0);
}

int
recorder_drain_wait(pid_t pid, uint64_t t0)
{
	struct timespec nap = { 0, 20000000 };
	uint64_t t;
	int tty = isatty(STDERR_FILENO), said = 0;

	if (t0 == 0)
		return -1;
	while (served() < t0) {
		t = now_ns();
		if (recorder() != pid) {
			char why[4096];

			recorder_stopped(why, sizeof(why));
			warnx_("the recorder stopped before it wrote out "
			    "its kernel buffers%s%s", why[0] ? ": " : "", why);
			return -1;
		}
		if (t - t0 > DRAIN_TIMEOUT_NS) {
			warnx_("the recorder did not write out its kernel "
			    "buffers in %llu s: reading what it wrote",
			    (unsigned long long)(DRAIN_TIMEOUT_NS / 1000000000ULL));
			return -1;
		}
		if (tty && t - t0 > 500000000ULL) {
			fprintf(stderr, "\r\033[Kargus: the recorder writes "
			    "out its kernel buffers: %.1f s", (t - t0) / 1e9);
			said = 1;
		}
		nanosleep(&nap, NULL);
	}
	if (said)
		fprintf(stderr, "\r\033[K");
	return 0;
}

/*
 * A ring written before the recorder kept relation indexes has files
 * without one: then a graph of only the related threads cannot be had.
 */
int
ring_indexes(struct pipeline *p)
{
	char file[PATH_MAX];
	struct dirent *de;
	struct stat st;
	int fd, nring = 0, nidx = 0;
	DIR *d;

	if ((fd = openat(ring_open(0), ".", O_RDONLY | O_DIRECTORY |
	    O_CLOEXEC)) == -1 || (d = fdopendir(fd)) == NULL)
		die(EX_NOINPUT, "%s", ring);
	while ((de = readdir(d)) != NULL) {
		if (strncmp(de->d_name, RING_PREFIX, strlen(RING_PREFIX)) == 0)
			nring++;
		else if (strncmp(de->d_name, RELATE_PREFIX,
		    strlen(RELATE_PREFIX)) == 0 &&
		    fstatat(fd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0) {
			ring_path(file, sizeof(file), de->d_name);
			pipeline_arg(p, file);
			nidx++;
		}
	}
	closedir(d);
	return nidx == nring ? nidx : -1;
}

/*
 * The ring's files as arguments of p's last stage: how many, how much.
 * A file last written before since holds nothing after it (its events
 * were written after they happened): left out, unread.
 */
int
ring_files(struct pipeline *p, time_t since, unsigned long long *bytes,
    time_t *newest)
{
	char file[PATH_MAX];
	struct dirent *de;
	struct stat st;
	int fd, n = 0;
	DIR *d;

	*bytes = 0;
	*newest = 0;
	if ((fd = openat(ring_open(0), ".", O_RDONLY | O_DIRECTORY |
	    O_CLOEXEC)) == -1 || (d = fdopendir(fd)) == NULL)
		die(EX_NOINPUT, "%s", ring);
	while ((de = readdir(d)) != NULL)
		if (strncmp(de->d_name, RING_PREFIX, strlen(RING_PREFIX)) == 0 &&
		    fstatat(fd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
		    st.st_mtime >= since) {
			ring_path(file, sizeof(file), de->d_name);
			pipeline_arg(p, file);
			n++;
			*bytes += st.st_size;
			if (st.st_mtime > *newest)
				*newest = st.st_mtime;
		}
	closedir(d);
	return n;
}
