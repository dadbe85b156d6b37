/*
 * argus start: the flight recorder, argus-capture --ring, in the
 * background, in a session of its own so that the terminal's signals do
 * not reach it.
 */
#include <sys/stat.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "porcelain.h"

extern char **environ;

#define MAX_ARGS	64

/*
 * The deferred recorder's kernel buffer per CPU: about a minute of a busy
 * request/response server on each CPU (bench/recorder), in memory that
 * the kernel never swaps.
 */
#define KERNEL_RING	"256M"

static const char usage[] =
"usage: argus start [--ring-size SIZE] [--live] [-b SIZE] [-s SET] [-p PID]\n"
"                   [-c COMM] [--probes FILE] [--probe SPEC]\n"
"                   [--stacks PID[,PID]] [--stacks-comm NAME]\n"
"                   [--patch-dir DIR]\n"
"Run the flight recorder (argus-capture --ring) in the background.  The\n"
"events stay in the kernel's per-CPU buffers (-b, default " KERNEL_RING "\n"
"per CPU), the newest overwriting the oldest, at the kernel's own cost;\n"
"argus mark, debug, summary, waits, flush and stop have the recorder\n"
"write them out, into a ring of files in the recorder's directory that\n"
"never holds more than SIZE (default 2G), the newest kept.\n"
"\n"
"  --live   read, parse and write every event as it comes (argus-capture's\n"
"           default -b of 16M): the files hold more than the kernel's\n"
"           buffers can, at a CPU cost on every event; needed by --stacks\n"
"\n"
"The other options are argus-capture's, passed on (probes, stacks and the\n"
"pid and comm selections may be given more than once); see argus-capture(1).\n";

/* Options passed on to argus-capture as they are: no short form of its own. */
static const struct option passed[] = {
	{ "syscalls",	required_argument, NULL, 's' },
	{ "buffer-size", required_argument, NULL, 'b' },
	{ "pid",	required_argument, NULL, 'p' },
	{ "comm",	required_argument, NULL, 'c' },
	{ "probes",	required_argument, NULL, 'P' },
	{ "probe",	required_argument, NULL, 'U' },
	{ "stacks",	required_argument, NULL, 'S' },
	{ "stacks-comm", required_argument, NULL, 'C' },
	{ "ring-size",	required_argument, NULL, 'r' },
	{ "live",	no_argument,	   NULL, 'L' },
	{ "patch-dir",	required_argument, NULL, 'D' },
	{ NULL, 0, NULL, 0 }
};


/* What the recorder said before it died, for the user who started it. */
static void
show_log(int dfd)
{
	char buf[4096];
	ssize_t n;
	int fd;

	if ((fd = openat(dfd, "recorder.log", O_RDONLY | O_NOFOLLOW |
	    O_CLOEXEC)) == -1)
		return;
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		fwrite(buf, 1, n, stderr);
	close(fd);
}

static int
start(int argc, char *argv[])
{
	const char *size = "2G";
	char *cap[MAX_ARGS] = { "argus-capture", "--ring", (char *)ring,
	    "--ring-size" };
	struct timespec ts = { 0, 500000000 };
	int ch, n = 5, i;
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t attr;
	struct outfile log, pidf;
	pid_t pid, old;
	int dfd, null, status, rc, live = 0, sized = 0, stacks = 0;
	int patchdir = 0;
	static char pdir[PATH_MAX];

	optind = 1;
	while ((ch = getopt_long(argc, argv, "s:b:p:c:", passed, NULL)) != -1) {
		if (ch == 'r') {
			size = optarg;
			continue;
		}
		if (ch == 'L') {
			live = 1;
			continue;
		}
		if (ch == 'b')
			sized = 1;
		if (ch == 'S' || ch == 'C')
			stacks = 1;
		if (ch == 'D')
			patchdir = 1;
		if (ch == '?' || n + 6 > MAX_ARGS)
			command_usage(&cmd_start);
		for (i = 0; passed[i].name != NULL && passed[i].val != ch; i++)
			;
		cap[n] = xmalloc(strlen(passed[i].name) + 3);
		sprintf(cap[n++], "--%s", passed[i].name);
		cap[n++] = optarg;
	}
	if (optind != argc)
		command_usage(&cmd_start);
	cap[4] = (char *)size;

	if (stacks && !live)
		diex(EX_USAGE, "start: --stacks and --stacks-comm sample as "
		    "events come: add --live");
	if (!live) {
		cap[n++] = "--defer";
		if (!sized) {
			cap[n++] = "-b";
			cap[n++] = KERNEL_RING;
		}
	}
	cap[n] = NULL;
	dfd = ring_open(1);
	/* Where 'argus run' has patched programs put their rings. */
	if (!patchdir && n + 2 < MAX_ARGS) {
		patch_dir(pdir, sizeof(pdir));
		/* Now, not when the recorder gets to it: 'argus run' may
		 * come first. */
		if (mkdir(pdir, 0700) == -1 && errno != EEXIST)
			die(EX_CANTCREAT, "%s", pdir);
		cap[n++] = "--patch-dir";
		cap[n++] = pdir;
		cap[n] = NULL;
	}
	if ((old = recorder()) != 0) {
		printf("argus: the recorder already runs (pid %d) into %s\n",
		    (int)old, ring);
		return 0;
	}
	/* The log grows while the recorder runs: a new file, in place. */
	if (unlinkat(dfd, "recorder.log", 0) == -1 && errno != ENOENT)
		die(EX_CANTCREAT, "%s/recorder.log", ring);
	outfile_open(&log, dfd, "recorder.log", OUT_LIVE);
	if ((null = open("/dev/null", O_RDONLY | O_CLOEXEC)) == -1)
		die(EX_OSERR, "/dev/null");
	posix_spawnattr_init(&attr);
	posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSID);
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, null, STDIN_FILENO);
	posix_spawn_file_actions_adddup2(&fa, log.fd, STDOUT_FILENO);
	posix_spawn_file_actions_adddup2(&fa, log.fd, STDERR_FILENO);
	if ((rc = posix_spawnp(&pid, cap[0], &fa, &attr, cap, environ)) != 0) {
		errno = rc;
		die(EX_UNAVAILABLE, "%s", cap[0]);
	}
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&attr);
	close(null);
	outfile_commit(&log);
	/* A recorder that cannot trace says so at once. */
	nanosleep(&ts, NULL);
	if (waitpid(pid, &status, WNOHANG) == pid) {
		show_log(dfd);
		diex(WIFEXITED(status) && WEXITSTATUS(status) ?
		    WEXITSTATUS(status) : EX_UNAVAILABLE,
		    "the recorder did not start");
	}
	/* Whole or absent: stop and mark read it. */
	outfile_open(&pidf, dfd, "recorder.pid", OUT_ATOMIC);
	if (dprintf(pidf.fd, "%d\n", (int)pid) < 0)
		die(EX_IOERR, "%s/recorder.pid", ring);
	outfile_commit(&pidf);
	printf("argus: recording into %s (pid %d, at most %s); "
	    "'argus debug' when something hangs\n", ring, (int)pid, size);
	return 0;
}

const struct command cmd_start = { "start", usage, start };
