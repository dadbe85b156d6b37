/*
 * argus debug: cut the recent past out of the flight recorder's ring and
 * diagnose the hang in it, with the same pipeline a user would type:
 *
 *	argus-cat --live -s SINCE RING... SNAPSHOTS | argus-segment |
 *	    argus-link | argus-spin TARGET --at MOMENT | argus-similar |
 *	    argus-slice -o DEBUG.gz --report REPORT
 *
 * SNAPSHOTS are what blocked threads wait on now (argus-waitfor, taken
 * first) and when the hang was marked (the newest `argus mark' took in the
 * window): a hang still going on has no wake-up in the recording.
 *
 * A busy minute is millions of events, nearly all of threads that have
 * nothing to do with the hang; the graph is built only for the threads
 * related to the target, which argus-relate finds in the ring's relation
 * indexes (argus-cat --related LIST), unless --all.
 *
 * What the person reads goes to stdout: which moment was diagnosed, the
 * report, and where the threads of the chain still blocked wait now
 * (present.c); what the program is doing goes to stderr.
 */
#include <sys/stat.h>

#include <dirent.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "porcelain.h"

static const char usage[] =
"usage: argus debug --pid PID | --tid TID | --comm NAME [--at MOMENT]\n"
"                   [--last TIME] [--threshold TIME] [--auto | --answers FILE]\n"
"                   [--json FILE] [--keep N|SIZE] [--no-snapshot] [--all] [-v]\n"
"                   [--with FILE ...] [--remote [USER@]HOST ...]\n"
"                   [--remote-timeout TIME] [--remote-size SIZE]\n"
"       argus debug --window [--last TIME] [--no-snapshot]\n"
"Diagnose a hang from the flight recorder's recent recording: build the\n"
"event graph of the last TIME (default 60s) and walk it back from the\n"
"hang, asking on the terminal where the graph is ambiguous.  The report\n"
"goes to stdout, what is being done to stderr.\n"
"\n"
"  --pid, --tid, --comm   the program that hangs (argus-spin(1)); by name,\n"
"                         its thread blocked longest at the end (said, and\n"
"                         the others)\n"
"  --at MOMENT            which hang: 'now' (default: the one going on; if\n"
"                         the target does not hang now, the last mark's),\n"
"                         'mark' (the last 'argus mark'), -DURATION (that\n"
"                         long ago: -20s) or a clock time (HH:MM[:SS])\n"
"  --last TIME            how much of the recording to read (default 60s)\n"
"  --threshold TIME       a wait longer than this is a hang (default 2s)\n"
"  --auto                 answer by rule instead of asking\n"
"  --answers FILE         take the answers from FILE\n"
"  --json FILE            the diagnosis as JSON into FILE ('-': stdout, and\n"
"                         the report to stderr); argus(1) says its members\n"
"  --keep N|SIZE          keep the N newest debug files, or as many as fit\n"
"                         in SIZE (20M, 1G); default $ARGUS_DEBUG_KEEP, else 20\n"
"  --no-snapshot          take no wait-for snapshot now (argus-waitfor(1));\n"
"                         the one 'argus mark' took is still read\n"
"  --all                  build the graph of every thread recorded, not only\n"
"                         of those related to the target (slower)\n"
"  -v, --verbose          every step in the report, and whole stacks\n"
"  --with FILE ...        other hosts' recordings of the window (their\n"
"                         argus-capture or argus-cat cuts): the chain goes\n"
"                         on across the connections they share (every\n"
"                         thread of this host's window is read: --all)\n"
"  --remote [USER@]HOST   that host's recording of the window, over ssh\n"
"                         (it runs 'argus debug --window' there): as --with\n"
"                         a file; $ARGUS_SSH is ssh, $ARGUS_REMOTE argus there\n"
"  --remote-timeout TIME  stop a --remote that has not sent its whole window\n"
"                         and exited within TIME (default 120s)\n"
"  --remote-size SIZE     stop a --remote that sends more than SIZE (default\n"
"                         2G, argus start's ring size)\n"
"  --window               diagnose nothing: write this host's recording of\n"
"                         the last TIME, and a wait-for snapshot, to stdout\n"
"                         (gzip): what --remote runs on the other host\n"
"\n"
"What blocked threads wait on now, and on the last mark in the window, is\n"
"read with the recording.  The graph and the diagnosis are kept in the\n"
"recorder's directory as debug-TIME.gz.\n"
"Without a terminal the rule answers (as --auto), and says so.\n"
"Exit: 0 a cause found, 1 none beyond waiting, 64 usage, 66 nothing of the\n"
"target or of the window in the recording, 69 a --remote failed or met a\n"
"bound.\n";

/*
 * The options, one line each: the porcelain's own, and those that go to
 * a stage as they are (arg: the stage's option).
 */
struct debug_opts {
	char		*target[12];	/* argus-spin's and argus-relate's */
	int		 nt;
	char		*slice[8];	/* argus-slice's */
	int		 ns;
	uint64_t	 last;
	const char	*at;		/* as given */
	char		 at_arg[32];	/* as argus-spin takes it */
	const char	*json;
	const char	*keep;
	int		 snap, all, verbose;
	char		**with;		/* other hosts' recordings */
	int		 nwith;
	char		**remote;	/* [user@]hosts to fetch them from */
	int		 nremote;
	uint64_t	 remote_timeout, remote_size;
	int		 window;	/* only write the window out */
};

enum { O_PID = 256, O_TID, O_COMM, O_AT, O_LAST, O_THRESHOLD, O_AUTO,
    O_ANSWERS, O_JSON, O_KEEP, O_NOSNAP, O_ALL, O_WITH, O_REMOTE, O_WINDOW,
    O_REMOTE_TIMEOUT, O_REMOTE_SIZE };

static const struct option longopts[] = {
	{ "pid",	 required_argument, NULL, O_PID },
	{ "tid",	 required_argument, NULL, O_TID },
	{ "comm",	 required_argument, NULL, O_COMM },
	{ "at",		 required_argument, NULL, O_AT },
	{ "last",	 required_argument, NULL, O_LAST },
	{ "threshold",	 required_argument, NULL, O_THRESHOLD },
	{ "auto",	 no_argument,	    NULL, O_AUTO },
	{ "answers",	 required_argument, NULL, O_ANSWERS },
	{ "json",	 required_argument, NULL, O_JSON },
	{ "keep",	 required_argument, NULL, O_KEEP },
	{ "no-snapshot", no_argument,	    NULL, O_NOSNAP },
	{ "all",	 no_argument,	    NULL, O_ALL },
	{ "with",	 required_argument, NULL, O_WITH },
	{ "remote",	 required_argument, NULL, O_REMOTE },
	{ "remote-timeout", required_argument, NULL, O_REMOTE_TIMEOUT },
	{ "remote-size", required_argument, NULL, O_REMOTE_SIZE },
	{ "window",	 no_argument,	    NULL, O_WINDOW },
	{ "verbose",	 no_argument,	    NULL, 'v' },
	{ NULL, 0, NULL, 0 }
};

static void
add(char **v, int *n, int max, const char *a, const char *b)
{
	if (*n + (b != NULL ? 2 : 1) > max)
		command_usage(&cmd_debug);
	v[(*n)++] = (char *)a;
	if (b != NULL)
		v[(*n)++] = (char *)b;
}

/* A process or thread id as the kernel has them, or a usage error. */
static const char *
id_arg(const char *opt, const char *s)
{
	uint64_t id = parse_u64(opt, s);

	if (id == 0 || id > 4194304)
		diex(EX_USAGE, "debug: %s %s: not a process or thread id", opt,
		    s);
	return s;
}

/*
 * --at as argus-spin takes it: a -DURATION is made a time of the clock
 * the recording keeps; a moment outside the window read is refused here,
 * before anything runs.
 */
static void
parse_at(struct debug_opts *o)
{
	const char *a = o->at;
	struct when w;
	uint64_t d;

	if (strcmp(a, "now") == 0 || strcmp(a, "mark") == 0) {
		snprintf(o->at_arg, sizeof(o->at_arg), "%s", a);
		return;
	}
	if (a[0] == '-' && a[1] != '\0') {
		d = parse_duration_ns("debug: --at", a + 1);
		if (d >= o->last)
			diex(EX_USAGE, "debug: --at %s is before the %.0f s read "
			    "(give a longer --last)", a, o->last / 1e9);
		snprintf(o->at_arg, sizeof(o->at_arg), "%llu",
		    (unsigned long long)(now_ns() - d));
		return;
	}
	if (strchr(a, ':') == NULL)
		diex(EX_USAGE, "debug: --at: '%s' is not a moment: now, mark, "
		    "-DURATION (-20s) or a clock time (HH:MM[:SS])", a);
	when_parse(&w, "debug: --at", a);
	snprintf(o->at_arg, sizeof(o->at_arg), "%s", a);
}

static void
parse(struct debug_opts *o, int argc, char *argv[])
{
	const char *env;
	int ch, named = 0;

	memset(o, 0, sizeof(*o));
	o->last = 60 * 1000000000ULL;
	o->snap = 1;
	o->at = "now";
	o->remote_timeout = REMOTE_TIMEOUT_NS;
	o->remote_size = REMOTE_MAX;
	o->keep = (env = getenv("ARGUS_DEBUG_KEEP")) != NULL && *env != '\0' ?
	    env : "20";
	optind = 1;
	while ((ch = getopt_long(argc, argv, "v", longopts, NULL)) != -1) {
		switch (ch) {
		case O_PID:
			named = 1;
			add(o->target, &o->nt, 8, "--pid",
			    id_arg("--pid", optarg));
			break;
		case O_TID:
			named = 1;
			add(o->target, &o->nt, 8, "--tid",
			    id_arg("--tid", optarg));
			break;
		case O_COMM:
			named = 1;
			add(o->target, &o->nt, 8, "--comm", optarg);
			break;
		case O_AT:		o->at = optarg; break;
		case O_LAST:
			o->last = parse_duration_ns("debug: --last", optarg);
			if (o->last == 0)
				diex(EX_USAGE, "debug: --last: must be more "
				    "than 0");
			break;
		case O_THRESHOLD:
			if (parse_duration_ns("debug: --threshold", optarg) == 0)
				diex(EX_USAGE, "debug: --threshold: must be "
				    "more than 0");
			add(o->target, &o->nt, 10, "--threshold", optarg);
			break;
		case O_AUTO:	add(o->slice, &o->ns, 6, "--auto", NULL); break;
		case O_ANSWERS:
			add(o->slice, &o->ns, 6, "--answers", optarg);
			break;
		case O_JSON:	o->json = optarg; break;
		case O_KEEP:	o->keep = optarg; break;
		case O_NOSNAP:	o->snap = 0; break;
		case O_ALL:	o->all = 1; break;
		case O_WITH:
			o->with = xrealloc(o->with, (o->nwith + 1) *
			    sizeof(*o->with));
			o->with[o->nwith++] = optarg;
			break;
		case O_REMOTE:
			o->remote = xrealloc(o->remote, (o->nremote + 1) *
			    sizeof(*o->remote));
			o->remote[o->nremote++] = optarg;
			break;
		case O_REMOTE_TIMEOUT:
			o->remote_timeout = parse_duration_ns(
			    "debug: --remote-timeout", optarg);
			if (o->remote_timeout == 0)
				diex(EX_USAGE, "debug: --remote-timeout: must "
				    "be more than 0");
			break;
		case O_REMOTE_SIZE:
			o->remote_size = size_arg("debug: --remote-size",
			    optarg);
			break;
		case O_WINDOW:	o->window = 1; break;
		case 'v':	o->verbose = 1; break;
		default:	command_usage(&cmd_debug);
		}
	}
	/* --with A B C: the files after it are others' too. */
	for (; o->nwith > 0 && optind < argc; optind++) {
		o->with = xrealloc(o->with, (o->nwith + 1) * sizeof(*o->with));
		o->with[o->nwith++] = argv[optind];
	}
	if (optind != argc)
		diex(EX_USAGE, "debug: '%s' is not an option (the program is "
		    "named by --pid, --tid or --comm)", argv[optind]);
	if (o->window && (named || o->nwith > 0 || o->nremote > 0 ||
	    o->ns > 0 || o->json != NULL))
		diex(EX_USAGE, "debug: --window diagnoses nothing: it takes "
		    "--last and --no-snapshot only");
	if (!named && !o->window)
		diex(EX_USAGE, "debug: say which program hangs (--pid, --tid "
		    "or --comm)");
	if (o->ns > 2)
		diex(EX_USAGE, "debug: --auto or --answers, not both");
	parse_at(o);
	debug_keep(o->keep);
	add(o->target, &o->nt, 12, "--at", o->at_arg);
	if (o->verbose)
		add(o->slice, &o->ns, 8, "-v", NULL);
}

/*
 * The threads related to the target, "TID,TID,...", from the ring's
 * relation indexes and the snapshots; NULL when the graph must be of
 * every thread: a ring without indexes, or no thread of the target
 * (*absent set: the indexes know no thread of it).
 */
static char *
related(const struct debug_opts *o, const char *now_snap,
    const char *mark_snap, int *absent)
{
	struct pipeline *p;
	char *list, *nl;
	int i, status;

	*absent = 0;
	p = pipeline_new();
	pipeline_stage(p, "argus-relate");
	for (i = 0; i + 1 < o->nt; i += 2)
		if (strcmp(o->target[i], "--pid") == 0 ||
		    strcmp(o->target[i], "--tid") == 0 ||
		    strcmp(o->target[i], "--comm") == 0) {
			pipeline_arg(p, o->target[i]);
			pipeline_arg(p, o->target[i + 1]);
		}
	if (ring_indexes(p) <= 0) {
		pipeline_free(p);
		return NULL;
	}
	if (*now_snap != '\0')
		pipeline_arg(p, now_snap);
	if (*mark_snap != '\0')
		pipeline_arg(p, mark_snap);
	/* Its 'no thread of the target' is said here, in our words. */
	pipeline_quiet(p);
	list = pipeline_output(p, &status);
	pipeline_free(p);
	if ((nl = strchr(list, '\n')) != NULL)
		*nl = '\0';
	*absent = status == 1;
	if (status != 0 || *list == '\0') {
		free(list);
		return NULL;
	}
	return list;
}

/*
 * Exit 66 if the target's threads all wait since before the recording:
 * clearly before, for a wait's start is known to a fraction of a second
 * (the CPUs' scheduler clocks drift apart on a virtual machine, by a
 * fraction of a second an hour; argus-stream(5), SINCE).
 */
#define BEFORE_MARGIN_NS	1000000000ULL

static void
before_recording(const char *snap, char *const target[], int nt)
{
	char began_s[64], since_s[64];
	uint64_t since = recorder_since(), began;

	if (since <= BEFORE_MARGIN_NS || (began = snapshot_waiting_since(snap,
	    target, nt)) == 0 || began >= since - BEFORE_MARGIN_NS)
		return;
	recorder_when(began, began_s, sizeof(began_s));
	recorder_when(since, since_s, sizeof(since_s));
	diex(EX_NOINPUT, "the target has waited since %s, before the "
	    "recording began (%s): it holds nothing of how the hang began",
	    began_s, since_s);
}

/*
 * The recorder keeps the recent seconds in the kernel's buffers and the
 * older ones unparsed in its spill: argus debug has it write out only the
 * former, and reads the spill back, newest first down to a time, only
 * when the diagnosis needs it: when the target has waited since before
 * what the ring's files hold (the beginning of its hang would be missing),
 * or --at asks for an older moment.  Never further back than the window
 * (--last); where that or the recording's start cuts the hang's
 * beginning off, say so.
 */
#define DEEPEN_MARGIN_NS	1000000000ULL

static void
deepen(pid_t pid, const struct debug_opts *o, const char *snap,
    const char *mark_snap, uint64_t from)
{
	uint64_t reach = recorder_reach(), need = UINT64_MAX, began = 0, at;
	uint64_t t0, oldest, want, b2;
	char a[64], b[64];
	const char *env = getenv("ARGUS_DEBUG_DEEPEN");

	if (pid == 0 || reach == 0 || (env != NULL && strcmp(env, "0") == 0))
		return;
	/* The target's wait now, or when the last mark noticed it. */
	if (*snap != '\0')
		began = snapshot_waiting_since(snap, o->target, o->nt);
	if (*mark_snap != '\0' && (b2 = snapshot_waiting_since(mark_snap,
	    o->target, o->nt)) != 0 && (began == 0 || b2 < began))
		began = b2;
	if (began != 0)
		need = began > DEEPEN_MARGIN_NS ? began - DEEPEN_MARGIN_NS : 0;
	if (isdigit((unsigned char)o->at_arg[0]) &&
	    (at = strtoull(o->at_arg, NULL, 10)) != 0 && at - (at >
	    DEEPEN_MARGIN_NS ? DEEPEN_MARGIN_NS : 0) < need)
		need = at - (at > DEEPEN_MARGIN_NS ? DEEPEN_MARGIN_NS : 0);
	if (need == UINT64_MAX || need >= reach)
		return;
	want = need;
	if (need < from)
		need = from;
	recorder_when(reach, a, sizeof(a));
	t0 = now_ns();
	if (recorder_deepen(pid, need, &reach, &oldest) == -1)
		return;
	recorder_when(need, b, sizeof(b));
	fprintf(stderr, "argus: the %s is older than the kernel's buffers "
	    "held (from %s): read the spill back to %s in %.2f s\n",
	    began != 0 ? "target's wait" : "moment of --at", a, b,
	    (now_ns() - t0) / 1e9);
	if (want < from) {
		recorder_when(from, a, sizeof(a));
		fprintf(stderr, "argus: the window (--last %.0fs) begins at "
		    "%s; the %s began earlier\n", o->last / 1e9, a,
		    began != 0 ? "wait" : "moment asked");
	} else if (reach == 0 && oldest > want + DEEPEN_MARGIN_NS) {
		recorder_when(oldest, a, sizeof(a));
		fprintf(stderr, "argus: the recording reaches back only to %s "
		    "(older pages were overwritten or dropped for the ring's "
		    "size); the %s began earlier\n", a,
		    began != 0 ? "wait" : "moment asked");
	}
}

/*
 * After a diagnosis: when a vertex on its chain begins where the ring's
 * files begin to be whole (within EDGE_NS: its thread's first event read,
 * so its wait may have begun before), read the spill back further, newest
 * first: twice the span read so far, never before the window.  1 when it
 * read some, for the diagnosis to be made again.
 */
#define EDGE_NS		100000000ULL
#define DEEPEN_ROUNDS	2

static int
deeper(pid_t pid, const char *out, uint64_t from)
{
	uint64_t reach = recorder_reach(), earliest, now = now_ns(), t, t0;
	uint64_t oldest;
	char a[64], b[64];
	const char *env = getenv("ARGUS_DEBUG_DEEPEN");

	if (pid == 0 || reach <= from || (env != NULL && strcmp(env, "0") == 0))
		return 0;
	/*
	 * No chain at all: the hang, if any, is older than what was read;
	 * the whole window then, as asked.
	 */
	if ((earliest = diagnosis_earliest(out)) == NO_TIME)
		t = from;
	else if (earliest > reach + EDGE_NS)
		return 0;
	else {
		t = now > reach ? now - reach : 0;
		t = reach > 2 * t ? reach - 2 * t : 0;
		if (t < from)
			t = from;
	}
	t0 = now_ns();
	if (recorder_deepen(pid, t, &reach, &oldest) == -1)
		return 0;
	recorder_when(t, b, sizeof(b));
	if (earliest == NO_TIME)
		fprintf(stderr, "argus: no hang in the events read: read the "
		    "spill back to %s, the window's start, in %.2f s, "
		    "diagnosing again\n", b, (now_ns() - t0) / 1e9);
	else {
		recorder_when(earliest, a, sizeof(a));
		fprintf(stderr, "argus: the chain begins at %s, where the "
		    "events read began: read the spill back to %s in %.2f s, "
		    "diagnosing again\n", a, b, (now_ns() - t0) / 1e9);
	}
	if (earliest != NO_TIME && (oldest == 0 ||
	    oldest > t + DEEPEN_MARGIN_NS)) {
		recorder_when(oldest != 0 ? oldest : earliest, a, sizeof(a));
		fprintf(stderr, "argus: the recording reaches back only to %s; "
		    "the chain's wait may have begun earlier\n", a);
	}
	return oldest != 0;
}

/* "--pid 42" and the like, for messages. */
static const char *
target_words(const struct debug_opts *o, char *buf, size_t size)
{
	size_t n = 0;
	int i;

	buf[0] = '\0';
	for (i = 0; i + 1 < o->nt; i += 2)
		if (strcmp(o->target[i], "--threshold") != 0 &&
		    strcmp(o->target[i], "--at") != 0)
			n += snprintf(buf + n, n < size ? size - n : 0, "%s%s %s",
			    n ? " " : "", o->target[i], o->target[i + 1]);
	return buf;
}

/*
 * --window: the recording of the window and the snapshot just taken, as
 * one stream on stdout, for another host's argus debug --remote.  Every
 * thread: which of them matter is known only there, across the hosts.
 */
static int
window(uint64_t from, const char *now_snap)
{
	struct pipeline *p = pipeline_new();
	unsigned long long bytes = 0;
	time_t newest = 0;
	char since[32];
	int status;

	pipeline_stage(p, "argus-cat");
	pipeline_arg(p, "--live");
	pipeline_arg(p, "-z");
	pipeline_arg(p, "-s");
	snprintf(since, sizeof(since), "%llu", (unsigned long long)from);
	pipeline_arg(p, since);
	ring_files(p, 0, &bytes, &newest);
	if (*now_snap != '\0')
		pipeline_arg(p, now_snap);
	status = pipeline_run(p);
	pipeline_free(p);
	return status;
}

static int
debug(int argc, char *argv[])
{
	char since[32], file[PATH_MAX], out[PATH_MAX], report[PATH_MAX];
	char now_snap[PATH_MAX] = "", mark_snap[PATH_MAX] = "", *list = NULL;
	char who[64], words[256];
	struct debug_opts o;
	struct pipeline *p;
	uint64_t from, taken, asked;
	int nfiles, status, running, absent;
	size_t nrel;
	const char *c;
	pid_t pid;
	unsigned long long bytes = 0;
	time_t newest = 0;
	char local[PATH_MAX];
	int i, rounds = 0, ns0;

	parse(&o, argc, argv);
	if (ring_open(0) == -1)
		diex(EX_NOINPUT, "%s: no recording ('argus start' first)", ring);
	/*
	 * The recent past may still be in the kernel: out with it first.
	 * The wait-for snapshot is taken meanwhile, not after: on a busy
	 * machine the recorder takes seconds, which a hang may not last,
	 * and the runtimes the snapshot asks take their own.
	 */
	asked = (pid = recorder()) != 0 ? recorder_drain_ask(pid) : 0;
	taken = o.snap ? snapshot_take(now_snap, sizeof(now_snap)) : 0;
	if (asked != 0)
		recorder_drain_wait(pid, asked);

	/* The window: from `last' ago until now, the snapshot's moment. */
	from = now_ns() > o.last ? now_ns() - o.last : 0;
	p = pipeline_new();
	pipeline_stage(p, "-");
	nfiles = ring_files(p, 0, &bytes, &newest);
	pipeline_free(p);
	running = recorder() != 0;
	if (nfiles == 0)
		diex(EX_NOINPUT, "%s: no recording in it yet%s", ring,
		    running ? "" : " ('argus start' first)");
	/* A ring last written before the window holds nothing of it. */
	if (newest < time(NULL) - (time_t)(o.last / 1000000000ULL)) {
		strftime(file, sizeof(file), "%F %T", localtime(&newest));
		diex(EX_NOINPUT, "%s: nothing recorded in the last %.0f s: its "
		    "newest file was written %s%s", ring, o.last / 1e9, file,
		    running ? "" : "; the recorder is not running ('argus "
		    "start')");
	}
	if (!running)
		warnx_("the recorder is not running: diagnosing what it "
		    "recorded before it stopped");
	if (o.window)
		return window(from, now_snap);
	/* Other hosts' windows, cut about now as this one is. */
	for (i = 0; i < o.nremote; i++) {
		o.with = xrealloc(o.with, (o.nwith + 1) * sizeof(*o.with));
		o.with[o.nwith++] = hosts_remote(o.remote[i], o.last, o.snap,
		    o.remote_timeout, o.remote_size);
	}
	/*
	 * A hang older than the recording: nothing of how it began is in it.
	 * When a thread last ran is known only to the CPUs' scheduler
	 * clocks, which drift apart by seconds on a loaded virtual machine:
	 * a target the ring's indexes know has events in the recording, and
	 * its wait did not begin before it.
	 */
	if (taken && running) {
		list = related(&o, now_snap, "", &absent);
		if (list == NULL)
			before_recording(now_snap, o.target, o.nt);
		free(list);
		list = NULL;
	}
	/* And the last mark's in the window: the moment it was noticed. */
	if (!snapshot_newest(from, taken ? taken : UINT64_MAX, mark_snap,
	    sizeof(mark_snap)))
		*mark_snap = '\0';
	/* Older than the kernel's buffers: from the spill, if need be. */
	if (running)
		deepen(pid, &o, now_snap, mark_snap, from);
	ns0 = o.ns;
again:
	o.ns = ns0;
	list = related(&o, now_snap, mark_snap, &absent);
	if (absent)
		diex(EX_NOINPUT, "debug: %s: not in the recording of the last "
		    "%.0f s", target_words(&o, words, sizeof(words)),
		    o.last / 1e9);
	/* Where the chain waits, before the pipeline's time ends the hang. */
	present_early(now_snap, o.target, o.nt);
	/* Other hosts' clocks are found by every connection: all. */
	if (o.all || o.nwith > 0) {
		free(list);
		list = NULL;
	}

	p = pipeline_new();
	pipeline_stage(p, "argus-cat");
	pipeline_arg(p, "--live");
	/* Reading a busy minute is most of the wait: show how it goes. */
	pipeline_status(p, from, from + o.last);
	pipeline_arg(p, "-s");
	snprintf(since, sizeof(since), "%llu", (unsigned long long)from);
	pipeline_arg(p, since);
	if (list != NULL) {
		pipeline_arg(p, "--related");
		pipeline_arg(p, list);
	}
	/* Files written out before the window are not even opened. */
	nfiles = ring_files(p, time(NULL) - (time_t)(o.last / 1000000000ULL) -
	    1, &bytes, &newest);
	if (*now_snap != '\0')
		pipeline_arg(p, now_snap);
	if (*mark_snap != '\0')
		pipeline_arg(p, mark_snap);
	debug_reserve(out, sizeof(out), report, sizeof(report));
	add(o.slice, &o.ns, 8, "--report", report);
	if (o.nwith > 0) {
		snprintf(file, sizeof(file), "debug-%lld-here.gz",
		    (long long)time(NULL));
		ring_path(local, sizeof(local), file);
		p = hosts_with(p, o.with, o.nwith, local);
	}
	pipeline_diagnosis(p, o.target, o.nt, o.slice, o.ns);
	pipeline_arg(p, "-o");
	pipeline_arg(p, out);
	if (list != NULL) {
		for (nrel = 1, c = list; *c != '\0'; c++)
			nrel += *c == ',';
		snprintf(who, sizeof(who), "the %zu threads related to the "
		    "target", nrel);
	} else
		snprintf(who, sizeof(who), "every thread");
	fprintf(stderr, "argus: diagnosing the last %.0f s of %s (%d ring "
	    "file%s, %.1f MiB), %s; the graph and the diagnosis go to %s\n",
	    o.last / 1e9, ring, nfiles, nfiles == 1 ? "" : "s", bytes / 1048576.0,
	    who, out);
	status = pipeline_run(p);
	pipeline_free(p);
	free(list);
	list = NULL;
	/* The chain begins where what was read begins: older, from the spill. */
	if (running && o.nwith == 0 && rounds < DEEPEN_ROUNDS &&
	    deeper(pid, out, from)) {
		rounds++;
		/* Superseded: the diagnosis made again replaces it. */
		unlink(out);
		unlink(report);
		goto again;
	}
	diagnosis_show(out, report, o.json, o.verbose, status, o.at,
	    *mark_snap != '\0' ? mark_snap : NULL);
	debug_rotate(out);
	/* 1: nothing beyond the hung thread, which is when it matters. */
	if (status == 0 || status == 1)
		hosts_remote_ends(out);
	free(o.with);
	free(o.remote);
	return status;
}

const struct command cmd_debug = { "debug", usage, debug };
