/*
 * argus status: is the flight recorder running, and what it holds.  Exit
 * codes as LSB init scripts and systemctl(1) give them, so that a cron job
 * or a monitor can test it: 0 running, 3 not running.
 */
#include <sys/stat.h>

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "porcelain.h"

#define EXIT_NOT_RUNNING	3	/* LSB: program is not running */

static const char usage[] =
"usage: argus status\n"
"Say whether the flight recorder runs, and what its directory holds: the\n"
"ring's files, their size and the time they span, the wait-for snapshots\n"
"and the diagnoses kept there.\n"
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

static int
status(int argc, char *argv[])
{
	struct held ringf = { 0 }, snaps = { 0 }, debugs = { 0 };
	struct dirent *de;
	struct stat st;
	pid_t pid;
	int fd;
	DIR *d;

	(void)argv;
	if (argc != 1)
		command_usage(&cmd_status);
	pid = recorder();
	if (pid != 0)
		printf("%-12s running, argus-capture pid %d\n", "recorder:",
		    (int)pid);
	else
		printf("%-12s not running\n", "recorder:");
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
	}
	closedir(d);
	say("ring:", &ringf);
	say("snapshots:", &snaps);
	say("diagnoses:", &debugs);
	return pid != 0 ? 0 : EXIT_NOT_RUNNING;
}

const struct command cmd_status = { "status", usage, status };
