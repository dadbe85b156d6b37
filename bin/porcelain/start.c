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
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "porcelain.h"
#include "../../capture/tracefs.h"

extern char **environ;

#define MAX_ARGS	64

/*
 * The deferred recorder's kernel buffers, in memory the kernel never
 * swaps: together a sixteenth of RAM at most, and no more than the ring's
 * files can take when they are written out (RING_RATIO bytes of buffer
 * for one of compressed ring, less than a busy scheduler's events
 * compress by, so that a ring sized for the buffers holds them), split
 * between the CPUs.
 */
#define RAM_SHARE	16
#define RING_RATIO	4
#define MIN_CPU_MB	8
/*
 * And no more than argus debug writes out in a few seconds on a small
 * machine: debug waits for every full buffer to be written out, so more
 * memory would hold more history only for a debug that keeps its user
 * waiting.  -b chooses otherwise.
 */
#define WRITEOUT_MB	512

/* A recorder refused ends in moments; tenths of a second. */
#define UNREADY_WAIT		100

static const char usage[] =
"usage: argus start [--ring-size SIZE] [--live] [-b SIZE] [-s SET] [-p PID]\n"
"                   [-c COMM] [--probes FILE] [--probe SPEC]\n"
"                   [--stacks PID[,PID]] [--stacks-comm NAME]\n"
"                   [--patch-dir DIR] [--spill DIR [--spill-size SIZE]]\n"
"                   [--no-spill]\n"
"Run the flight recorder (argus-capture --ring) in the background, and\n"
"return once it records, saying since when.  The events stay in the\n"
"kernel's per-CPU buffers (-b SIZE per CPU; by default together the\n"
"smallest of RAM/16, 4 x the ring's size and 512M, split between the\n"
"CPUs), the newest overwriting the oldest, at the kernel's own cost;\n"
"argus mark, debug, summary, waits, flush and stop have the recorder\n"
"write them out, into a ring of files in the recorder's directory that\n"
"never holds more than SIZE (default 2G), the newest kept.  While nobody\n"
"asks, the kernel's full pages go to disk unparsed but deflated (about\n"
"11 to 1), into DIR/spill, within the same SIZE (the spill gives way,\n"
"oldest first, as the files grow): far more than the kernel's buffers\n"
"hold (argus status says how far back).\n"
"argus debug reads back only the spilled pages its diagnosis needs.\n"
"\n"
"  --live   read, parse and write every event as it comes (argus-capture's\n"
"           default -b of 16M): the files hold more than the kernel's\n"
"           buffers can, at a CPU cost on every event; needed by --stacks\n"
"  --spill DIR\n"
"           spill into DIR instead (within --spill-size, default 2G, and\n"
"           the ring's SIZE), at idle priority\n"
"  --no-spill\n"
"           keep only what the kernel's buffers hold\n"
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
	{ "spill",	required_argument, NULL, 'W' },
	{ "spill-size",	required_argument, NULL, 'w' },
	{ "no-spill",	no_argument,	   NULL, 'N' },
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

uint64_t
size_arg(const char *opt, const char *s)
{
	uint64_t v = size_value(s);

	if (v == 0)
		diex(EX_USAGE, "%s: '%s' is not a size (500M, 2G)", opt, s);
	return v;
}

/* The kernel buffer per CPU by default, as "NM", and why, in words. */
static void
machine_size(const char *ring_size, char *buf, size_t size, char *why,
    size_t whysize)
{
	long pages = sysconf(_SC_PHYS_PAGES), ncpu =
	    sysconf(_SC_NPROCESSORS_CONF);
	uint64_t ram = pages > 0 ? (uint64_t)pages * getpagesize() : 0,
	    byring = size_bytes(ring_size) * RING_RATIO, total, mb;

	if (ncpu < 1)
		ncpu = 1;
	total = ram / RAM_SHARE;
	snprintf(why, whysize, "RAM/%d", RAM_SHARE);
	if (total == 0 || (byring > 0 && byring < total)) {
		total = byring;
		snprintf(why, whysize, "%d x --ring-size", RING_RATIO);
	}
	if (total == 0 || total > (uint64_t)WRITEOUT_MB << 20) {
		total = (uint64_t)WRITEOUT_MB << 20;
		snprintf(why, whysize, "what debug writes out in 5 s");
	}
	mb = total / ncpu >> 20;
	if (mb < MIN_CPU_MB)
		mb = MIN_CPU_MB;
	snprintf(buf, size, "%lluM", (unsigned long long)mb);
}

/* Started but not announced: a start that fails stops it too. */
static pid_t spawned;
static int made_pdir;		/* patch_dir_make() made it, for this start */

/* A start that failed leaves no recorder, nor the directory it made. */
static void
start_failed(int eno, const char *msg)
{
	(void)eno;
	(void)msg;
	if (spawned > 0)
		kill(spawned, SIGTERM);
	if (made_pdir)
		patch_dir_remove();
}

/*
 * A recorder that did not start, stopped: in time, whatever state it is
 * in (a capture hung in its exit would hold us for ever), and with its
 * tracefs instances gone if it had to be killed.  Its wait status.
 */
static int
stop_unready(pid_t pid)
{
	int status, i;

	kill(pid, SIGTERM);
	for (i = 0; i < UNREADY_WAIT; i++) {
		if (waitpid(pid, &status, WNOHANG) == pid)
			return status;
		usleep(100000);
	}
	warnx_("the recorder (pid %d) did not exit %d s after SIGTERM: "
	    "killed", (int)pid, UNREADY_WAIT / 10);
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	tfs_reap_pid(pid);
	return status;
}

static int
start(int argc, char *argv[])
{
	const char *size = "2G";
	char *cap[MAX_ARGS] = { "argus-capture", "--ring", (char *)ring,
	    "--ring-size" };
	char bsize[32] = "", why[64] = "", said[4096], when[64];
	int ch, n = 5, i, pfd[2];
	uint64_t since;
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t attr;
	struct outfile log, pidf;
	pid_t pid, old;
	int dfd, null, status, rc, live = 0, sized = 0, stacks = 0;
	int patchdir = 0, spill = 0, nospill = 0;
	static char pdir[PATH_MAX], sdir[PATH_MAX];

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
		if (ch == 'N') {
			nospill = 1;
			continue;
		}
		if (ch == 'W')
			spill = 1;
		if (ch == 'b')
			sized = 1;
		if (ch == 'S' || ch == 'C')
			stacks = 1;
		if (ch == 'D')
			patchdir = 1;
		/* Room for this option, and for what follows the loop:
		 * --defer -b SIZE, --ready-fd 3, --patch-dir DIR, NULL. */
		if (ch == '?' || n + 2 + 12 > MAX_ARGS)
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
	if (spill && nospill)
		diex(EX_USAGE, "start: --spill and --no-spill");
	if (!live) {
		cap[n++] = "--defer";
		if (!sized) {
			machine_size(size, bsize, sizeof(bsize), why,
			    sizeof(why));
			cap[n++] = "-b";
			cap[n++] = bsize;
		}
		/*
		 * The spill by default, in the ring's directory (private,
		 * as spill_start checks) and within the ring's size.
		 */
		if (!spill && !nospill) {
			ring_path(sdir, sizeof(sdir), "spill");
			cap[n++] = "--spill";
			cap[n++] = sdir;
			cap[n++] = "--spill-size";
			cap[n++] = (char *)size;
		}
	}
	cap[n++] = "--ready-fd";
	cap[n++] = "3";
	cap[n] = NULL;
	dfd = ring_open(1);
	if ((old = recorder()) != 0) {
		printf("argus: the recorder already runs (pid %d) into %s\n",
		    (int)old, ring);
		return 0;
	}
	die_say = start_failed;
	/* Where 'argus run' has patched programs put their rings: made
	 * now, not when the recorder gets to it, as 'argus run' may come
	 * first. */
	if (!patchdir && n + 2 < MAX_ARGS) {
		patch_dir_make(pdir, sizeof(pdir));
		made_pdir = 1;
		cap[n++] = "--patch-dir";
		cap[n++] = pdir;
		cap[n] = NULL;
	}
	/* The log grows while the recorder runs: a new file, in place. */
	if (unlinkat(dfd, "recorder.log", 0) == -1 && errno != ENOENT)
		die(EX_CANTCREAT, "%s/recorder.log", ring);
	outfile_open(&log, dfd, "recorder.log", OUT_LIVE);
	if ((null = open("/dev/null", O_RDONLY | O_CLOEXEC)) == -1)
		die(EX_OSERR, "/dev/null");
	/* Above 3, so that the dup2 to 3 makes a descriptor without CLOEXEC. */
	if (pipe2(pfd, O_CLOEXEC) == -1 ||
	    (i = fcntl(pfd[1], F_DUPFD_CLOEXEC, 4)) == -1)
		die(EX_OSERR, "pipe");
	close(pfd[1]);
	pfd[1] = i;
	posix_spawnattr_init(&attr);
	posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSID);
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, null, STDIN_FILENO);
	posix_spawn_file_actions_adddup2(&fa, log.fd, STDOUT_FILENO);
	posix_spawn_file_actions_adddup2(&fa, log.fd, STDERR_FILENO);
	posix_spawn_file_actions_adddup2(&fa, pfd[1], 3);
	if ((rc = posix_spawnp(&pid, cap[0], &fa, &attr, cap, environ)) != 0) {
		errno = rc;
		die(EX_UNAVAILABLE, "%s", cap[0]);
	}
	spawned = pid;
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&attr);
	close(null);
	close(pfd[1]);
	outfile_commit(&log);
	/* Once it records: a hang from now on is in the recording. */
	if ((since = capture_ready(pfd[0], said, sizeof(said))) == 0) {
		status = stop_unready(pid);
		spawned = 0;
		/* Its last words, or what it wrote before it died. */
		if (said[0] != '\0')
			fprintf(stderr, "%s\n", said);
		else
			show_log(dfd);
		diex(WIFEXITED(status) && WEXITSTATUS(status) ?
		    WEXITSTATUS(status) : EX_UNAVAILABLE,
		    "the recorder did not start");
	}
	close(pfd[0]);
	/* Whole or absent: stop and mark read it; status and debug this. */
	outfile_open(&pidf, dfd, "recorder.since", OUT_ATOMIC);
	if (dprintf(pidf.fd, "%llu\n", (unsigned long long)since) < 0)
		die(EX_IOERR, "%s/recorder.since", ring);
	outfile_commit(&pidf);
	outfile_open(&pidf, dfd, "recorder.pid", OUT_ATOMIC);
	if (dprintf(pidf.fd, "%d\n", (int)pid) < 0)
		die(EX_IOERR, "%s/recorder.pid", ring);
	outfile_commit(&pidf);
	spawned = 0;
	recorder_when(since, when, sizeof(when));
	printf("argus: recording since %s into %s (pid %d, at most %s",
	    when, ring, (int)pid, size);
	if (bsize[0] != '\0')
		printf("; kernel buffers %s per CPU, by %s", bsize, why);
	printf("); 'argus debug' when something hangs\n");
	return 0;
}

const struct command cmd_start = { "start", usage, start };
