/*
 * argus: the porcelain.  The filters are the plumbing; this runs them the
 * way the paper's user does: a recorder always on (start, stop, mark), a
 * debugger when a program hangs (debug), and a demonstration (demo).
 * Pipelines are handed to sh(1) with every argument quoted: they are the
 * same pipelines a user would type, which keeps them easy to show.
 */
#include <sys/stat.h>
#include <sys/wait.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "util.h"

static const char usage[] =
"usage: argus [--ring DIR] COMMAND [ARGS]\n"
"Find out why a program hung.\n"
"\n"
"  start [--ring-size SIZE]   run the flight recorder in the background\n"
"  stop                       stop it\n"
"  mark [TEXT]                note in the recording that it hangs now\n"
"  debug [--pid PID | --tid TID | --comm NAME] [--at TIME] [--last TIME]\n"
"        [--auto | --answers FILE] [--threshold TIME]\n"
"                             diagnose a hang from the recent recording\n"
"  demo [SCENARIO]            capture a built-in hang while it happens and\n"
"                             diagnose it (default: circular-wait)\n"
"\n"
"  --ring DIR     the recorder's directory (default $ARGUS_RING, else\n"
"                 /var/tmp/argus-ring)\n"
"  -h, --help     this text\n"
"  -V, --version  version\n"
"Exit: 0 ok, 1 no hang found, 64 usage, 65 bad input, 69 unavailable.\n"
"See argus(1).\n";

static char	 bindir[PATH_MAX];	/* where this program and its kin are */
static const char *ring = "/var/tmp/argus-ring";

/* Quoted for sh(1): 'it'\''s'. */
static void
q(char *buf, size_t size, const char *s)
{
	size_t n = strlen(buf);

	if (n + 2 >= size)
		diex(EX_SOFTWARE, "command too long");
	buf[n++] = ' ';
	buf[n++] = '\'';
	for (; *s && n + 5 < size; s++) {
		if (*s == '\'') {
			memcpy(buf + n, "'\\''", 4);
			n += 4;
		} else
			buf[n++] = *s;
	}
	if (*s)
		diex(EX_SOFTWARE, "command too long");
	buf[n++] = '\'';
	buf[n] = '\0';
}

static void
cat(char *buf, size_t size, const char *s)
{
	size_t n = strlen(buf), m = strlen(s);

	if (n + m >= size)
		diex(EX_SOFTWARE, "command too long");
	memcpy(buf + n, s, m + 1);
}

/* Exit status of sh -c CMD, with our directory first on PATH. */
static int
sh(const char *cmd)
{
	int status;
	pid_t pid;

	if ((pid = fork()) == -1)
		die(EX_OSERR, "fork");
	if (pid == 0) {
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		_exit(127);
	}
	while (waitpid(pid, &status, 0) == -1)
		if (errno != EINTR)
			die(EX_OSERR, "waitpid");
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static void
find_bindir(void)
{
	char self[PATH_MAX], *slash, path[PATH_MAX * 2];
	ssize_t n;

	if ((n = readlink("/proc/self/exe", self, sizeof(self) - 1)) == -1)
		die(EX_OSERR, "/proc/self/exe");
	self[n] = '\0';
	if ((slash = strrchr(self, '/')) != NULL)
		*slash = '\0';
	snprintf(bindir, sizeof(bindir), "%s", self);
	snprintf(path, sizeof(path), "%s:%s", bindir,
	    getenv("PATH") ? getenv("PATH") : "/usr/bin:/bin");
	setenv("PATH", path, 1);
}

static void
pidfile(char *buf, size_t size)
{
	snprintf(buf, size, "%s/recorder.pid", ring);
}

/* The recorder we started, if it still runs: only ever that process. */
static pid_t
recorder(void)
{
	char path[PATH_MAX], comm[64] = "";
	FILE *fp;
	long pid = 0;

	pidfile(path, sizeof(path));
	if ((fp = fopen(path, "r")) == NULL)
		return 0;
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

static int
cmd_start(int argc, char *argv[])
{
	const char *size = "2G";
	char path[PATH_MAX * 2], log[PATH_MAX], sz[32];
	struct timespec ts = { 0, 500000000 };
	pid_t pid, old;
	int fd, status;

	if (argc == 3 && strcmp(argv[1], "--ring-size") == 0)
		size = argv[2];
	else if (argc != 1)
		usage_error(usage);
	if ((old = recorder()) != 0) {
		printf("argus: the recorder already runs (pid %d) into %s\n",
		    (int)old, ring);
		return 0;
	}
	if (mkdir(ring, 0700) == -1 && errno != EEXIST)
		die(EX_CANTCREAT, "%s", ring);
	snprintf(log, sizeof(log), "%s/recorder.log", ring);
	snprintf(sz, sizeof(sz), "%s", size);
	if ((pid = fork()) == -1)
		die(EX_OSERR, "fork");
	if (pid == 0) {
		setsid();
		if ((fd = open("/dev/null", O_RDONLY)) != -1)
			dup2(fd, STDIN_FILENO);
		if ((fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0600)) != -1) {
			dup2(fd, STDOUT_FILENO);
			dup2(fd, STDERR_FILENO);
		}
		execlp("argus-capture", "argus-capture", "--ring", ring,
		    "--ring-size", sz, (char *)NULL);
		_exit(127);
	}
	/* A recorder that cannot trace says so at once. */
	nanosleep(&ts, NULL);
	if (waitpid(pid, &status, WNOHANG) == pid) {
		snprintf(path, sizeof(path), "cat >&2");
		q(path, sizeof(path), log);
		sh(path);
		diex(WIFEXITED(status) && WEXITSTATUS(status) ? WEXITSTATUS(status) :
		    EX_UNAVAILABLE, "the recorder did not start");
	}
	pidfile(path, sizeof(path));
	if ((fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600)) == -1 ||
	    dprintf(fd, "%d\n", (int)pid) < 0 || close(fd) == -1)
		die(EX_CANTCREAT, "%s", path);
	printf("argus: recording into %s (pid %d, at most %s); "
	    "'argus debug' when something hangs\n", ring, (int)pid, size);
	return 0;
}

static int
cmd_stop(void)
{
	char path[PATH_MAX];
	pid_t pid;
	int i;

	if ((pid = recorder()) == 0) {
		warnx_("the recorder is not running");
		return EX_UNAVAILABLE;
	}
	if (kill(pid, SIGINT) == -1)
		die(EX_OSERR, "kill %d", (int)pid);
	for (i = 0; i < 100 && kill(pid, 0) == 0; i++)
		usleep(100000);
	pidfile(path, sizeof(path));
	unlink(path);
	printf("argus: the recorder stopped; the recording stays in %s\n", ring);
	return 0;
}

static int
cmd_mark(int argc, char *argv[])
{
	static const char *roots[] = { "/sys/kernel/tracing",
	    "/sys/kernel/debug/tracing" };
	char path[PATH_MAX], text[1024] = "argus-mark";
	size_t i;
	pid_t pid;
	int fd = -1, k;

	if ((pid = recorder()) == 0)
		diex(EX_UNAVAILABLE, "the recorder is not running ('argus start')");
	for (k = 1; k < argc; k++) {
		cat(text, sizeof(text), " ");
		cat(text, sizeof(text), argv[k]);
	}
	/* Into the recorder's own instance: nobody else's buffer. */
	for (i = 0; i < ARRAY_LEN(roots) && fd == -1; i++) {
		snprintf(path, sizeof(path), "%s/instances/argus-%d/trace_marker",
		    roots[i], (int)pid);
		fd = open(path, O_WRONLY);
	}
	if (fd == -1 || write(fd, text, strlen(text)) == -1 || close(fd) == -1)
		die(EX_UNAVAILABLE, "%s", path);
	return 0;
}

/* The pipeline that builds the graph and diagnoses, after its input. */
static void
diagnosis(char *cmd, size_t size, const char *target[], int ntarget,
    const char *slice_opts[], int nslice)
{
	int i;

	cat(cmd, size, " | argus-segment -q | argus-link -q | argus-spin");
	for (i = 0; i < ntarget; i++)
		q(cmd, size, target[i]);
	cat(cmd, size, " | argus-similar -q | argus-slice");
	for (i = 0; i < nslice; i++)
		q(cmd, size, slice_opts[i]);
}

static int
cmd_debug(int argc, char *argv[])
{
	static const struct option longopts[] = {
		{ "pid", required_argument, NULL, 'p' },
		{ "tid", required_argument, NULL, 't' },
		{ "comm", required_argument, NULL, 'c' },
		{ "at", required_argument, NULL, 'a' },
		{ "last", required_argument, NULL, 'l' },
		{ "threshold", required_argument, NULL, 'T' },
		{ "auto", no_argument, NULL, 'A' },
		{ "answers", required_argument, NULL, 'f' },
		{ NULL, 0, NULL, 0 }
	};
	const char *target[8], *slice_opts[4];
	char cmd[16384] = "argus-cat --live", since[32], out[PATH_MAX];
	uint64_t last = 60 * 1000000000ULL;
	struct timespec now;
	struct dirent *de;
	int ch, nt = 0, ns = 0, nfiles = 0;
	DIR *d;

	optind = 1;
	while ((ch = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (ch) {
		case 'p': target[nt++] = "--pid"; target[nt++] = optarg; break;
		case 't': target[nt++] = "--tid"; target[nt++] = optarg; break;
		case 'c': target[nt++] = "--comm"; target[nt++] = optarg; break;
		case 'a': target[nt++] = "--at"; target[nt++] = optarg; break;
		case 'T':
			target[nt++] = "--threshold";
			target[nt++] = optarg;
			break;
		case 'l': last = parse_duration_ns("--last", optarg); break;
		case 'A': slice_opts[ns++] = "--auto"; break;
		case 'f':
			slice_opts[ns++] = "--answers";
			slice_opts[ns++] = optarg;
			break;
		default: usage_error(usage);
		}
		if (nt > 6 || ns > 2)
			usage_error(usage);
	}
	if (optind != argc || nt == 0)
		diex(EX_USAGE, "debug: say which program hangs (--pid, --tid "
		    "or --comm)");
	if ((d = opendir(ring)) == NULL)
		die(EX_NOINPUT, "%s (no recording: 'argus start' first)", ring);
	clock_gettime(CLOCK_MONOTONIC, &now);
	snprintf(since, sizeof(since), "%llu", (unsigned long long)
	    ((uint64_t)now.tv_sec * 1000000000ULL + now.tv_nsec - last));
	cat(cmd, sizeof(cmd), " -s");
	q(cmd, sizeof(cmd), since);
	while ((de = readdir(d)) != NULL)
		if (strncmp(de->d_name, "argus-ring-", 11) == 0) {
			snprintf(out, sizeof(out), "%s/%s", ring, de->d_name);
			q(cmd, sizeof(cmd), out);
			nfiles++;
		}
	closedir(d);
	if (nfiles == 0)
		diex(EX_NOINPUT, "%s: no recording in it yet", ring);
	diagnosis(cmd, sizeof(cmd), target, nt, slice_opts, ns);
	snprintf(out, sizeof(out), "%s/debug-%lld.gz", ring, (long long)time(NULL));
	cat(cmd, sizeof(cmd), " -o");
	q(cmd, sizeof(cmd), out);
	fprintf(stderr, "argus: diagnosing the last %.0f s of %s; the graph "
	    "and the diagnosis go to %s\n", last / 1e9, ring, out);
	return sh(cmd);
}

/* The scenario's ground truth, read as it appears. */
static int
truth(const char *file, const char *key, char *val, size_t size)
{
	char line[256];
	size_t n = strlen(key);
	FILE *fp;
	int found = 0;

	if ((fp = fopen(file, "r")) == NULL)
		return 0;
	while (fgets(line, sizeof(line), fp) != NULL)
		if (strncmp(line, key, n) == 0 && line[n] == '=') {
			line[strcspn(line, "\n")] = '\0';
			snprintf(val, size, "%s", line + n + 1);
			found = 1;
		}
	fclose(fp);
	return found;
}

/* Whether FILE has a line "A<B" (a FUNCTION column) with A or B WORD. */
static int
found_in(const char *file, const char *word)
{
	char line[256], *f, *save;
	FILE *fp;
	int yes = 0;

	if ((fp = fopen(file, "r")) == NULL)
		return 0;
	while (!yes && fgets(line, sizeof(line), fp) != NULL)
		for (f = strtok_r(line, "<\n", &save); !yes && f != NULL;
		    f = strtok_r(NULL, "<\n", &save))
			yes = strcmp(f, word) == 0;
	fclose(fp);
	return yes;
}

/*
 * A built-in hang, the way a user meets it: the scenario runs under a
 * system-wide capture, and the capture is cut while it still hangs.
 */
static int
cmd_demo(int argc, char *argv[])
{
	const char *scenario = argc > 1 ? argv[1] : "circular-wait";
	char dir[] = "/tmp/argus-demo.XXXXXX", prog[PATH_MAX * 2], cmd[16384];
	char tfile[PATH_MAX], trace[PATH_MAX], graph[PATH_MAX], v[64], r[64];
	char rc[64] = "", rf[128] = "", vc[64] = "";
	const char *target[2], *slice_opts[1] = { "--auto" };
	struct timespec tick = { 0, 100000000 };
	char spid[24], c;
	pid_t cap, scen;
	int i, status, ret, go[2];

	snprintf(prog, sizeof(prog), "%s/../test/scenarios/%s", bindir, scenario);
	if (access(prog, X_OK) == -1)
		snprintf(prog, sizeof(prog), "%s/../libexec/argus/%s", bindir,
		    scenario);
	if (access(prog, X_OK) == -1)
		die(EX_UNAVAILABLE, "scenario %s", scenario);
	if (mkdtemp(dir) == NULL)
		die(EX_CANTCREAT, "mkdtemp");
	snprintf(tfile, sizeof(tfile), "%s/truth", dir);
	snprintf(trace, sizeof(trace), "%s/trace.gz", dir);
	snprintf(graph, sizeof(graph), "%s/graph.gz", dir);

	printf("argus demo: %s, captured system-wide while it hangs\n", scenario);
	fflush(stdout);
	/*
	 * The scenario waits for a go, so that the capture can be told its
	 * pid: user stacks of it and its children name the functions.
	 */
	if (pipe(go) == -1)
		die(EX_OSERR, "pipe");
	if ((scen = fork()) == 0) {
		close(go[1]);
		if (read(go[0], &c, 1) != 1)
			_exit(1);
		execl(prog, scenario, "-n", "3", "-H", "6", "-t", tfile,
		    (char *)NULL);
		_exit(127);
	}
	close(go[0]);
	snprintf(spid, sizeof(spid), "%d", (int)scen);
	if ((cap = fork()) == 0) {
		execlp("argus-capture", "argus-capture", "--stacks", spid, "-o",
		    trace, (char *)NULL);
		_exit(127);
	}
	sleep(1);
	if (waitpid(cap, &status, WNOHANG) == cap) {
		kill(scen, SIGTERM);
		diex(EX_UNAVAILABLE, "the capture did not start (see above)");
	}
	if (write(go[1], "g", 1) != 1)
		die(EX_OSERR, "pipe");
	close(go[1]);
	/*
	 * Cut the capture 3 s into the hang: past the 2 s a user waits
	 * before calling it a hang, and while it still lasts.
	 */
	for (i = 0; i < 100 && !truth(tfile, "hang_begin_ns", v, sizeof(v)); i++)
		nanosleep(&tick, NULL);
	sleep(3);
	printf("argus demo: it has hung for 3 s; diagnosing from the "
	    "capture\n\n");
	fflush(stdout);
	kill(cap, SIGINT);
	waitpid(cap, &status, 0);
	truth(tfile, "victim_pid", v, sizeof(v));
	target[0] = "--pid";
	target[1] = v;
	snprintf(cmd, sizeof(cmd), "argus-cat");
	q(cmd, sizeof(cmd), trace);
	diagnosis(cmd, sizeof(cmd), target, 2, slice_opts, 1);
	cat(cmd, sizeof(cmd), " -o");
	q(cmd, sizeof(cmd), graph);
	ret = sh(cmd);
	waitpid(scen, &status, 0);

	truth(tfile, "victim_comm", vc, sizeof(vc));
	truth(tfile, "root_tid", r, sizeof(r));
	truth(tfile, "root_comm", rc, sizeof(rc));
	truth(tfile, "root_function", rf, sizeof(rf));
	snprintf(cmd, sizeof(cmd), "argus-cat -k root");
	q(cmd, sizeof(cmd), graph);
	snprintf(v, sizeof(v), "%lu", strtoul(r, NULL, 10));
	cat(cmd, sizeof(cmd), " | awk -F, '$4 == ");
	cat(cmd, sizeof(cmd), v);
	cat(cmd, sizeof(cmd), " && $6 != \"victim\" { f = 1; if ($NF != \"\") "
	    "print $NF } END { exit !f }' > ");
	snprintf(v, sizeof(v), "%s/found", dir);
	q(cmd, sizeof(cmd), v);
	printf("\nThe scenario's own account: %s hung because of %s (thread %s, "
	    "in %s).\n", vc, rc, r, rf);
	if (ret != 0 || sh(cmd) != 0) {
		printf("Argus did not name it.  The trace and the graph are in "
		    "%s.\n", dir);
		return ret;
	}
	printf("Argus found it%s.  The trace and the graph are in %s.\n",
	    found_in(v, rf) ? ", in the function too" : "",
	    dir);
	return ret;
}

int
main(int argc, char *argv[])
{
	struct common com = { NULL, Z_AUTO };

	if (getenv("ARGUS_RING") != NULL)
		ring = getenv("ARGUS_RING");
	if (argc >= 3 && strcmp(argv[1], "--ring") == 0) {
		ring = argv[2];
		argc -= 2;
		argv += 2;
	}
	if (argc < 2)
		usage_error(usage);
	if (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0)
		common_option(&com, 'h', NULL, usage);
	if (strcmp(argv[1], "-V") == 0 || strcmp(argv[1], "--version") == 0)
		common_option(&com, 'V', NULL, usage);
	find_bindir();
	if (strcmp(argv[1], "start") == 0)
		return cmd_start(argc - 1, argv + 1);
	if (strcmp(argv[1], "stop") == 0 && argc == 2)
		return cmd_stop();
	if (strcmp(argv[1], "mark") == 0)
		return cmd_mark(argc - 1, argv + 1);
	if (strcmp(argv[1], "debug") == 0)
		return cmd_debug(argc - 1, argv + 1);
	if (strcmp(argv[1], "demo") == 0 && argc <= 3)
		return cmd_demo(argc - 1, argv + 1);
	warnx_("'%s' is not a command", argv[1]);
	usage_error(usage);
}
