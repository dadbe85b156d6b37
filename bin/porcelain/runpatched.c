/*
 * argus run: a program started under the patcher (argus-patch(7)), its
 * probe sets' events recorded by the flight recorder, which reads the
 * rings of patch_dir() (argus start passes it --patch-dir).  The program
 * replaces us: its exit status is ours, its signals its own.
 */
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "porcelain.h"

static const char usage[] =
"usage: argus run --probes SET [--probes SET ...] -- COMMAND [ARG ...]\n"
"Run COMMAND with the patcher preloaded (argus-patch(7)): the probe sets'\n"
"points (glib, pthread, node, or a file) become events of the flight\n"
"recorder at tens of nanoseconds a hit.  The recorder must run ('argus\n"
"start').  COMMAND replaces argus: its exit status is its own.\n";

/*
 * The rings are written at every hit and read each millisecond: memory
 * (/dev/shm), not the ring's disk, whose writeback would follow them.
 * /dev/shm is everyone's: a name known in advance is one anyone may take
 * first (a directory or a link of theirs, where root's recorder would
 * refuse to start, or write), so 'argus start' makes one no one can guess
 * (mkdtemp) and links it from the recorder's own directory, DIR/patch:
 * where 'argus run', 'argus patch' and 'argus stop' find it, and a stable
 * name for a service's ARGUS_PATCH_DIR.  Without /dev/shm, DIR/patch is
 * the directory.
 */
void
patch_dir_make(char *buf, size_t size)
{
	int dfd = ring_open(1);

	/* What the last recorder left, gone without 'argus stop' (killed,
	 * or stopped by a full disk): what stop would have removed. */
	patch_dir_remove();
	/* The last recorder's link, or its directory if that is empty;
	 * one with rings still in it is used again. */
	if (unlinkat(dfd, "patch", 0) == -1 && errno != ENOENT &&
	    unlinkat(dfd, "patch", AT_REMOVEDIR) == -1 &&
	    (errno == ENOTEMPTY || errno == EEXIST)) {
		ring_path(buf, size, "patch");
		close(private_dir(buf, 0));
		return;
	}
	if (access("/dev/shm", W_OK) == -1) {
		ring_path(buf, size, "patch");
		close(private_dir(buf, 1));
		return;
	}
	snprintf(buf, size, "/dev/shm/argus-patch.XXXXXX");
	if (mkdtemp(buf) == NULL)
		die(EX_CANTCREAT, "%s", buf);
	if (symlinkat(buf, dfd, "patch") == -1) {
		rmdir(buf);
		die(EX_CANTCREAT, "%s/patch", ring);
	}
}

/* Where DIR/patch leads, without a look at what is there; -1: nowhere. */
static int
patch_dir_name(char *buf, size_t size)
{
	struct stat st;
	ssize_t n;
	int dfd;

	if ((dfd = ring_open(0)) == -1 || fstatat(dfd, "patch", &st,
	    AT_SYMLINK_NOFOLLOW) == -1)
		return -1;
	if (!S_ISLNK(st.st_mode)) {
		ring_path(buf, size, "patch");
		return 0;
	}
	if ((n = readlinkat(dfd, "patch", buf, size - 1)) <= 0)
		return -1;
	buf[n] = '\0';
	return 0;
}

int
patch_dir(char *buf, size_t size)
{
	int fd;

	/* Ours alone, or refused (exit 77): what a recorder made may
	 * have gone since (a reboot empties /dev/shm), and its name been
	 * taken by someone else. */
	if (patch_dir_name(buf, size) == -1 || (fd = private_dir(buf, 0)) ==
	    -1)
		return -1;
	close(fd);
	return 0;
}

void
patch_dir_remove(void)
{
	char dir[PATH_MAX];
	struct stat st;

	if (patch_dir_name(dir, sizeof(dir)) == -1)
		return;
	/* Once no patched program is left there; never another's. */
	if (lstat(dir, &st) == 0 && S_ISDIR(st.st_mode) &&
	    st.st_uid == geteuid() && rmdir(dir) == -1)
		return;
	unlinkat(ring_open(0), "patch", 0);
}

/* The library beside us: the build tree's patchers/, or PREFIX/lib/argus. */
int
patch_lib(char *out, size_t size)
{
	static const char *const rel[] = { "../patchers", "../lib/argus" };
	size_t i;

	for (i = 0; i < ARRAY_LEN(rel); i++)
		if ((size_t)snprintf(out, size, "%s/%s/libargus-patch.so",
		    bindir(), rel[i]) < size && access(out, R_OK) == 0)
			return 0;
	return -1;
}

static int
run(int argc, char *argv[])
{
	static const struct option longopts[] = {
		{ "probes",	required_argument, NULL, 'P' },
		{ NULL, 0, NULL, 0 }
	};
	char sets[4096] = "", lib[PATH_MAX], dir[PATH_MAX], pre[2 * PATH_MAX];
	char real[PATH_MAX];
	const char *old, *s;
	size_t len = 0;
	int ch;

	optind = 1;
	while ((ch = getopt_long(argc, argv, "+", longopts, NULL)) != -1) {
		if (ch != 'P')
			command_usage(&cmd_run);
		/* A file for the program, which may run elsewhere; a name
		 * the library finds beside itself. */
		s = optarg;
		if (strchr(optarg, '/') != NULL) {
			if (realpath(optarg, real) == NULL)
				die(EX_NOINPUT, "--probes %s", optarg);
			s = real;
		}
		if ((len += snprintf(sets + len, sizeof(sets) - len, "%s%s",
		    len ? ":" : "", s)) >= sizeof(sets))
			diex(EX_USAGE, "run: too many probe sets");
	}
	if (optind >= argc || *sets == '\0')
		command_usage(&cmd_run);
	if (ring_open(0) == -1 || recorder() == 0)
		diex(EX_UNAVAILABLE, "run: the recorder does not run in %s "
		    "('argus start' first)", ring);
	if (patch_dir(dir, sizeof(dir)) == -1)
		diex(EX_UNAVAILABLE, "run: the recorder names no directory for "
		    "patched programs in %s/patch (started by an older argus? "
		    "restart it)", ring);
	if (access(dir, W_OK) == -1)
		die(EX_UNAVAILABLE, "run: %s", dir);
	if (patch_lib(lib, sizeof(lib)) == -1)
		diex(EX_UNAVAILABLE, "run: no libargus-patch.so beside %s "
		    "(built without libzydis-dev?)", bindir());
	/* The PATH the user gave, not ours with our directory first. */
	if ((old = getenv("PATH")) != NULL && strncmp(old, bindir(),
	    strlen(bindir())) == 0 && old[strlen(bindir())] == ':')
		setenv("PATH", old + strlen(bindir()) + 1, 1);
	if ((old = getenv("LD_PRELOAD")) != NULL && *old != '\0')
		snprintf(pre, sizeof(pre), "%s:%s", lib, old);
	else
		snprintf(pre, sizeof(pre), "%s", lib);
	if (setenv("LD_PRELOAD", pre, 1) == -1 ||
	    setenv("ARGUS_PATCH", sets, 1) == -1 ||
	    setenv("ARGUS_PATCH_DIR", dir, 1) == -1)
		die(EX_OSERR, "setenv");
	/* The loader's auditor beside it patches what is dlopen()ed
	 * later (patchers/audit.c); without it, what loads at start-up. */
	if ((s = strrchr(lib, '/')) != NULL) {
		char audit[PATH_MAX + 32], val[3 * PATH_MAX];

		snprintf(audit, sizeof(audit), "%.*s/libargus-audit.so",
		    (int)(s - lib), lib);
		if ((old = getenv("LD_AUDIT")) != NULL && *old != '\0')
			snprintf(val, sizeof(val), "%s:%s", audit, old);
		else
			snprintf(val, sizeof(val), "%s", audit);
		if (access(audit, R_OK) == 0 && setenv("LD_AUDIT", val, 1) == -1)
			die(EX_OSERR, "setenv");
	}
	execvp(argv[optind], argv + optind);
	die(errno == ENOENT ? 127 : 126, "%s", argv[optind]);
	return 0;
}

const struct command cmd_run = { "run", usage, run };
