/*
 * argus status: is the flight recorder running, and what it holds.  Exit
 * codes as LSB init scripts and systemctl(1) give them, so that a cron job
 * or a monitor can test it: 0 running, 3 not running.
 */
#include <sys/stat.h>

#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "graph.h"
#include "porcelain.h"
#include "show.h"

#define EXIT_NOT_RUNNING	3	/* LSB: program is not running */

/* An argus process with that pid: the watcher, not a pid reused. */
static int
watcher_alive(pid_t pid)
{
	char path[64], comm[32] = "";
	FILE *fp;

	snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
	if ((fp = fopen(path, "re")) == NULL)
		return 0;
	if (fgets(comm, sizeof(comm), fp) == NULL)
		comm[0] = '\0';
	fclose(fp);
	return strcmp(comm, "argus\n") == 0;
}

static const char usage[] =
"usage: argus status\n"
"Say whether the flight recorder runs and since when, or why it stopped;\n"
"its kernel buffers (their size per CPU and in all) and what they hold\n"
"(the seconds they reach back, the events not yet written out, those\n"
"overwritten, and how long they keep at the present rate); and what its\n"
"directory holds: the ring's files, their size\n"
"(and the user-space events of patched programs lost, by process)\n"
"and the time they span, the wait-for snapshots and the diagnoses.\n"
"Exit: 0 running, 3 not running, 77 the directory is not yours alone.\n";

struct held {
	int		 n;
	unsigned long long bytes;
	time_t		 oldest, newest;	/* modification times */
};

static void
count(struct held *h, const struct stat *st)
{
	h->n++;
	h->bytes += st->st_size;
	if (h->oldest == 0 || st->st_mtime < h->oldest)
		h->oldest = st->st_mtime;
	if (st->st_mtime > h->newest)
		h->newest = st->st_mtime;
}

static void
say(const char *what, const struct held *h)
{
	char a[32], b[32];

	if (h->n == 0) {
		printf("%-12s none\n", what);
		return;
	}
	strftime(a, sizeof(a), "%F %T", localtime(&h->oldest));
	strftime(b, sizeof(b), "%F %T", localtime(&h->newest));
	printf("%-12s %d file%s, %.1f MiB, written %s to %s\n", what, h->n,
	    h->n == 1 ? "" : "s", h->bytes / 1048576.0, a, b);
}

/*
 * A recorder with --spill DIR (argus-capture(1)): the pages on disk and
 * how far back they reach, from the header of each CPU's oldest page
 * (its time in the kernel's clock, ns).  now: the kernel's, in s.
 */
static void
spill_said(pid_t pid, double now)
{
	char path[PATH_MAX], args[8192], *a, *dir = NULL, *size = NULL;
	unsigned long long bytes = 0, seq;
	unsigned long long first[1024];
	double oldest = 0;
	struct dirent *de;
	struct stat st;
	uint64_t ts;
	ssize_t n;
	int fd, dfd, cpu, ncpu = 0;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return;
	n = read(fd, args, sizeof(args) - 1);
	close(fd);
	if (n <= 0)
		return;
	args[n] = '\0';
	for (a = args; a < args + n; a += strlen(a) + 1)
		if (strcmp(a, "--spill") == 0 && a + strlen(a) + 1 < args + n)
			dir = a + strlen(a) + 1;
		else if (strcmp(a, "--spill-size") == 0 &&
		    a + strlen(a) + 1 < args + n)
			size = a + strlen(a) + 1;
	if (dir == NULL || (dfd = open(dir, O_RDONLY | O_DIRECTORY |
	    O_NOFOLLOW | O_CLOEXEC)) == -1 || (d = fdopendir(dfd)) == NULL)
		return;
	memset(first, 0xff, sizeof(first));
	while ((de = readdir(d)) != NULL) {
		if (sscanf(de->d_name, "spill-cpu%d.%llu", &cpu, &seq) != 2 ||
		    cpu < 0 || cpu >= (int)ARRAY_LEN(first))
			continue;
		if (fstatat(dfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0)
			bytes += st.st_size;
		if (seq < first[cpu])
			first[cpu] = seq;
		if (cpu >= ncpu)
			ncpu = cpu + 1;
	}
	/* What every CPU covers: from the newest of the oldest. */
	for (cpu = 0; cpu < ncpu; cpu++) {
		if (first[cpu] == ~0ULL)
			continue;
		snprintf(path, sizeof(path), "spill-cpu%d.%llu", cpu, first[cpu]);
		if ((fd = openat(dfd, path, O_RDONLY | O_NOFOLLOW |
		    O_CLOEXEC)) == -1)
			continue;
		if (read(fd, &ts, sizeof(ts)) == sizeof(ts) &&
		    ts / 1e9 > oldest)
			oldest = ts / 1e9;
		close(fd);
	}
	closedir(d);
	printf("%-12s %.1f MiB on disk in %s", "spill:", bytes / 1048576.0, dir);
	if (oldest > 0 && now > oldest)
		printf(": with the kernel's, the last %.1f s", now - oldest);
	printf("\n");
	/*
	 * What its size (argus start always says it) would keep at the rate
	 * it filled (the ring's files may take some of it); not before it
	 * holds a MiB, the rate of a few pages saying little.
	 */
	if (size != NULL && oldest > 0 && now > oldest && bytes >= 1 << 20)
		printf("%-12s at this rate the spill's %s would keep the last "
		    "%.0f s\n", "", size, size_bytes(size) /
		    (bytes / (now - oldest)));
}

/*
 * A deferred recorder's events are in its tracefs instance until asked
 * for: how much that holds, and how far back, from the kernel's counters.
 */
static void
kernel_ring(pid_t pid)
{
	static const char *roots[] = { "/sys/kernel/tracing",
	    "/sys/kernel/debug/tracing" };
	char dir[PATH_MAX], path[PATH_MAX + 64], line[256];
	unsigned long long kb = 0, entries = 0, overrun = 0, bytes = 0, v;
	unsigned long long cbytes, cover;
	double oldest = 0, now = 0, o, n, keeps = -1, k;
	size_t i;
	FILE *fp = NULL;
	int ncpu;

	for (i = 0; i < ARRAY_LEN(roots) && fp == NULL; i++) {
		snprintf(dir, sizeof(dir), "%s/instances/argus-%d", roots[i],
		    (int)pid);
		snprintf(path, sizeof(path), "%s/buffer_size_kb", dir);
		fp = fopen(path, "r");
	}
	if (fp == NULL)
		return;
	if (fscanf(fp, "%llu", &kb) != 1)
		kb = 0;
	fclose(fp);
	for (ncpu = 0; ; ncpu++) {
		snprintf(path, sizeof(path), "%s/per_cpu/cpu%d/stats", dir, ncpu);
		if ((fp = fopen(path, "r")) == NULL)
			break;
		o = n = 0;
		cbytes = cover = 0;
		while (fgets(line, sizeof(line), fp) != NULL) {
			if (sscanf(line, "entries: %llu", &v) == 1)
				entries += v;
			else if (sscanf(line, "overrun: %llu", &v) == 1)
				overrun += v, cover = v;
			else if (sscanf(line, "bytes: %llu", &v) == 1)
				bytes += v, cbytes = v;
			else if (sscanf(line, "oldest event ts: %lf", &o) != 1)
				sscanf(line, "now ts: %lf", &n);
		}
		fclose(fp);
		/*
		 * How long the budget keeps at this rate: a full CPU's buffer
		 * keeps what it holds; one still filling, its span scaled to
		 * its size.  The busiest CPU decides.
		 */
		if (cbytes > 0 && n > o) {
			k = cover > 0 || cbytes >= kb * 1024 ? n - o :
			    (n - o) * kb * 1024.0 / cbytes;
			if (keeps < 0 || k < keeps)
				keeps = k;
		}
		/* What every CPU covers: from the newest of the oldest. */
		if (o > oldest)
			oldest = o;
		if (n > now)
			now = n;
	}
	printf("%-12s %d x %.0f MiB in the kernel, %.0f MiB in all, %.1f MiB "
	    "used: the last %.1f s, %llu events not yet written out; %llu "
	    "overwritten\n", "buffers:", ncpu, kb / 1024.0, ncpu * kb / 1024.0,
	    bytes / 1048576.0,
	    entries && now > oldest ? now - oldest : 0.0, entries, overrun);
	if (keeps >= 0)
		printf("%-12s at this rate the kernel buffers keep the last "
		    "%.1f s; %llu events lost to overwriting so far\n",
		    "retention:", keeps, overrun);
	spill_said(pid, now);
}

/*
 * The user-space events of patched programs (argus run, argus patch)
 * that the recorder lost, from its totals (capture/out.c): in all, then
 * each process's, and when.
 */
static void
patch_lost(int dirfd)
{
	char line[256], from[64], to[64];
	unsigned long long n, f, t, total = 0;
	int pid, off, fd, k = 0;
	FILE *fp;

	if ((fd = openat(dirfd, PATCH_LOST_FILE, O_RDONLY | O_NOFOLLOW |
	    O_CLOEXEC)) == -1 || (fp = fdopen(fd, "r")) == NULL)
		return;
	while (fgets(line, sizeof(line), fp) != NULL)
		if (sscanf(line, "%d %llu", &pid, &n) == 2)
			total += n;
	printf("%-12s %llu user-space events of patched programs lost "
	    "(a ring full, or more than the recorder holds unasked)\n",
	    "user events:", total);
	rewind(fp);
	while (fgets(line, sizeof(line), fp) != NULL) {
		line[strcspn(line, "\n")] = '\0';
		if (sscanf(line, "%d %llu %llu %llu %n", &pid, &n, &f, &t,
		    &off) != 4 || k++ >= 10)
			continue;
		recorder_when(f, from, sizeof(from));
		recorder_when(t, to, sizeof(to));
		printf("%-12s %llu of %s %d, between %s and %s\n", "", n,
		    show(line + off), pid, from, to);
	}
	if (k > 10)
		printf("%-12s and %d more processes (%s/%s)\n", "", k - 10,
		    ring, PATCH_LOST_FILE);
	fclose(fp);
}

/*
 * argus watch's state file (bin/porcelain/watch.c writes it whole): the
 * watcher, if it still runs, and a line a watch, its fields shown already.
 */
static void
watches(int dirfd)
{
	char line[8192], when[32], *f[10], *p;
	long long t;
	pid_t pid = 0;
	FILE *fp;
	int fd, n, alive = 0;

	if ((fd = openat(dirfd, WATCH_STATE, O_RDONLY | O_NOFOLLOW |
	    O_CLOEXEC)) == -1 || (fp = fdopen(fd, "r")) == NULL)
		return;
	while (fgets(line, sizeof(line), fp) != NULL) {
		line[strcspn(line, "\n")] = '\0';
		for (n = 0, p = line; n < 10 && p != NULL; n++)
			f[n] = strsep(&p, "\t");
		if (n >= 3 && strcmp(f[0], WSTATE_WATCHER) == 0) {
			pid = atoi(f[1]);
			alive = pid > 0 && watcher_alive(pid);
			t = atoll(f[2]);
			strftime(when, sizeof(when), "%F %T",
			    localtime(&(time_t){ t }));
			printf("%-12s %s, argus watch pid %d, since %s\n",
			    "watcher:", alive ? "running" : n > 3 &&
			    strcmp(f[3], "stopped") == 0 ? "stopped" :
			    "not running (it ended without being stopped)",
			    (int)pid, when);
		} else if (n == 10 && strcmp(f[0], WSTATE_WATCH) == 0) {
			printf("%-12s %s: %s\n", "watch:", f[1], f[2]);
			if ((t = atoll(f[3])) != 0) {
				strftime(when, sizeof(when), "%F %T",
				    localtime(&(time_t){ t }));
				printf("%-12s last check %s: %s\n", "", when,
				    f[4]);
			}
			printf("%-12s %s report%s in the last hour%s%s%s\n", "",
			    f[5], strcmp(f[5], "1") == 0 ? "" : "s",
			    strcmp(f[6], "0") != 0 ? ", " : "",
			    strcmp(f[6], "0") != 0 ? f[6] : "",
			    strcmp(f[6], "0") != 0 ? " suppressed" : "");
			if ((t = atoll(f[7])) != 0) {
				strftime(when, sizeof(when), "%F %T",
				    localtime(&(time_t){ t }));
				printf("%-12s last report %s: %s; %s\n", "", when,
				    f[9], f[8]);
			}
		}
	}
	fclose(fp);
}

static int
status(int argc, char *argv[])
{
	struct held ringf = { 0 }, snaps = { 0 }, debugs = { 0 };
	struct held reports = { 0 };
	char when[64], why[4096];
	uint64_t since;
	struct dirent *de;
	struct stat st;
	pid_t pid;
	int fd;
	DIR *d;

	(void)argv;
	if (argc != 1)
		command_usage(&cmd_status);
	pid = recorder();
	if (pid != 0) {
		printf("%-12s running, argus-capture pid %d", "recorder:",
		    (int)pid);
		if ((since = recorder_since()) != 0) {
			recorder_when(since, when, sizeof(when));
			printf(", recording since %s", when);
		}
		printf("\n");
		kernel_ring(pid);
	} else {
		recorder_stopped(why, sizeof(why));
		printf("%-12s not running%s%s\n", "recorder:", why[0] ?
		    ": " : "", why);
	}
	printf("%-12s %s\n", "directory:", ring);
	if ((fd = ring_open(0)) == -1) {
		printf("%-12s none yet ('argus start' makes it)\n",
		    "recording:");
		return pid != 0 ? 0 : EXIT_NOT_RUNNING;
	}
	if ((fd = openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC)) == -1 ||
	    (d = fdopendir(fd)) == NULL)
		die(EX_NOINPUT, "%s", ring);
	while ((de = readdir(d)) != NULL) {
		if (fstatat(fd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) == -1 ||
		    !S_ISREG(st.st_mode))
			continue;
		if (strncmp(de->d_name, RING_PREFIX, strlen(RING_PREFIX)) == 0)
			count(&ringf, &st);
		else if (strncmp(de->d_name, SNAP_PREFIX,
		    strlen(SNAP_PREFIX)) == 0)
			count(&snaps, &st);
		else if (strncmp(de->d_name, "debug-", 6) == 0)
			count(&debugs, &st);
		else if (strncmp(de->d_name, "watch-", 6) == 0)
			count(&reports, &st);
	}
	say("ring:", &ringf);
	patch_lost(fd);
	say("snapshots:", &snaps);
	say("diagnoses:", &debugs);
	if (reports.n > 0)
		say("reports:", &reports);
	watches(fd);
	closedir(d);
	return pid != 0 ? 0 : EXIT_NOT_RUNNING;
}

const struct command cmd_status = { "status", usage, status };
