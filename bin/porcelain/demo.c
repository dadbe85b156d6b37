/*
 * argus demo: a built-in hang, the way a user meets it.  The scenario runs
 * under a system-wide capture, the capture is cut while it still hangs,
 * and the diagnosis is compared with the scenario's own account of its
 * root cause (its truth file).
 */
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "graph.h"
#include "porcelain.h"
#include "show.h"

static const char usage[] =
"usage: argus demo [SCENARIO]\n"
"Run a built-in hang under a system-wide capture, cut the capture while\n"
"the program still hangs, diagnose it, and compare the finding with the\n"
"scenario's own account of its root cause.  Scenarios: circular-wait (the\n"
"default), long-cpu, flag-poll, server-loop, mutex-contention, io-timer.\n";

/* The scenario's ground truth, key=value lines, read as they appear. */
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

/* Whether a FUNCTION column "a<b" names function word, as a or as b. */
static int
names_function(const char *col, const char *word)
{
	size_t n = strlen(word);
	const char *lt = strchr(col, '<');

	if (n == 0)
		return 0;
	return (strncmp(col, word, n) == 0 && (col[n] == '<' || col[n] == '\0')) ||
	    (lt != NULL && strcmp(lt + 1, word) == 0);
}

/*
 * 1 if the diagnosis blames thread tid (a root record other than the
 * victim's); *in_function set if one of those names the function too.
 */
static int
blamed(const char *graph, unsigned long tid, const char *function,
    int *in_function)
{
	struct record r;
	struct root_rec root;
	struct reader *rd = reader_open(graph);
	int found = 0;

	*in_function = 0;
	while (reader_next(rd, &r))
		if (root_parse(&r, &root) && root.tid == tid &&
		    root.kind != RK_VICTIM) {
			found = 1;
			*in_function |= names_function(root.function, function);
		}
	reader_close(rd);
	return found;
}

/*
 * The capture, tracing: the scenario must not begin before it does, as
 * on a busy machine it may take seconds.  0 with the why in buf if it
 * never did.
 */
static pid_t
start_capture(const char *pid, const char *trace, char *buf, size_t size)
{
	char fd[16];
	char *argv[] = { "argus-capture", "--stacks", (char *)pid, "-o",
	    (char *)trace, "--ready-fd", fd, NULL };
	int pfd[2], w;
	pid_t cap;

	/* The write end without CLOEXEC, for the capture alone. */
	if (pipe2(pfd, O_CLOEXEC) == -1 || (w = fcntl(pfd[1], F_DUPFD, 3)) ==
	    -1)
		die(EX_OSERR, "pipe");
	close(pfd[1]);
	snprintf(fd, sizeof(fd), "%d", w);
	cap = spawn(argv, -1, -1, -1);
	close(w);
	if (capture_ready(pfd[0], buf, size) == 0) {
		kill(cap, SIGTERM);
		run_wait(cap);
		cap = 0;
	}
	close(pfd[0]);
	return cap;
}

static int
demo(int argc, char *argv[])
{
	const char *scenario = argc > 1 ? argv[1] : "circular-wait";
	char dir[PATH_MAX - 16], prog[PATH_MAX * 2], why[256];
	const char *tmp = getenv("TMPDIR");
	char tfile[PATH_MAX], trace[PATH_MAX], graph[PATH_MAX], v[64], r[64];
	char rc[64] = "", rf[128] = "", vc[64] = "", spid[24], c;
	char *target[2] = { "--pid", v }, *slice_opts[1] = { "--auto" };
	struct timespec tick = { 0, 100000000 };
	struct pipeline *p;
	pid_t cap, scen;
	int i, ret, go[2], in_function;

	if (argc > 2 || (argc == 2 && argv[1][0] == '-'))
		command_usage(&cmd_demo);
	snprintf(prog, sizeof(prog), "%s/../test/scenarios/%s", bindir(),
	    scenario);
	if (access(prog, X_OK) == -1)
		snprintf(prog, sizeof(prog), "%s/../libexec/argus/%s", bindir(),
		    scenario);
	if (access(prog, X_OK) == -1)
		die(EX_UNAVAILABLE, "scenario %s", scenario);
	/* Where mktemp(1) would put it: a user's TMPDIR, else /tmp. */
	if (tmp == NULL || *tmp != '/')
		tmp = "/tmp";
	if ((size_t)snprintf(dir, sizeof(dir), "%s/argus-demo.XXXXXX", tmp) >=
	    sizeof(dir))
		die(EX_USAGE, "TMPDIR too long: %s", tmp);
	if (mkdtemp(dir) == NULL)
		die(EX_CANTCREAT, "mkdtemp %s", dir);
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
	if ((scen = fork()) == -1)
		die(EX_OSERR, "fork");
	if (scen == 0) {
		close(go[1]);
		if (read(go[0], &c, 1) != 1)
			_exit(1);
		execl(prog, scenario, "-n", "3", "-H", "6", "-t", tfile,
		    (char *)NULL);
		_exit(127);
	}
	close(go[0]);
	snprintf(spid, sizeof(spid), "%d", (int)scen);
	if ((cap = start_capture(spid, trace, why, sizeof(why))) == 0) {
		kill(scen, SIGTERM);
		diex(EX_UNAVAILABLE, "the capture did not start%s%s", why[0] ?
		    ": " : " (see above)", why);
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
	run_wait(cap);
	truth(tfile, "victim_pid", v, sizeof(v));

	p = pipeline_new();
	pipeline_stage(p, "argus-cat");
	pipeline_arg(p, trace);
	pipeline_diagnosis(p, target, 2, slice_opts, 1);
	pipeline_arg(p, "-o");
	pipeline_arg(p, graph);
	ret = pipeline_run(p);
	pipeline_free(p);
	run_wait(scen);

	truth(tfile, "victim_comm", vc, sizeof(vc));
	truth(tfile, "root_tid", r, sizeof(r));
	truth(tfile, "root_comm", rc, sizeof(rc));
	truth(tfile, "root_function", rf, sizeof(rf));
	printf("\nThe scenario's own account: %s hung because of %s (thread %s, "
	    "in %s).\n", show(vc), show(rc), show(r), show(rf));
	if (ret != 0 || !blamed(graph, strtoul(r, NULL, 10), rf, &in_function)) {
		printf("Argus did not name it.  The trace and the graph are in "
		    "%s.\n", dir);
		return ret ? ret : 1;
	}
	printf("Argus found it%s.  The trace and the graph are in %s.\n",
	    in_function ? ", in the function too" : "", dir);
	return 0;
}

const struct command cmd_demo = { "demo", usage, demo };
