/*
 * argus debug: cut the recent past out of the flight recorder's ring and
 * diagnose the hang in it, with the same pipeline a user would type:
 *
 *	argus-cat --live -s SINCE RING... SNAPSHOTS | argus-segment |
 *	    argus-link | argus-spin TARGET | argus-similar |
 *	    argus-slice -o DEBUG.gz
 *
 * SNAPSHOTS are what blocked threads wait on now (argus-waitfor, taken
 * first) and when the hang was marked (the newest `argus mark' took in the
 * window): a hang still going on has no wake-up in the recording.
 *
 * A busy minute is millions of events, nearly all of threads that have
 * nothing to do with the hang; the graph is built only for the threads
 * related to the target, which argus-relate finds in the ring's relation
 * indexes (argus-cat --related LIST), unless --all.
 */
#include <sys/stat.h>

#include <dirent.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "porcelain.h"

static const char usage[] =
"usage: argus debug --pid PID | --tid TID | --comm NAME [--at TIME]\n"
"                   [--last TIME] [--threshold TIME] [--auto | --answers FILE]\n"
"                   [--no-snapshot] [--all] [--with FILE ...]\n"
"Diagnose a hang from the flight recorder's recent recording: build the\n"
"event graph of the last TIME (default 60s) and walk it back from the\n"
"hang, asking on the terminal where the graph is ambiguous.\n"
"\n"
"  --pid, --tid, --comm   the program that hangs (argus-spin(1))\n"
"  --at TIME              the hang's moment, if not the last mark\n"
"  --last TIME            how much of the recording to read (default 60s)\n"
"  --threshold TIME       a wait longer than this is a hang (default 2s)\n"
"  --auto                 answer by rule instead of asking\n"
"  --answers FILE         take the answers from FILE\n"
"  --no-snapshot          take no wait-for snapshot now (argus-waitfor(1));\n"
"                         the one 'argus mark' took is still read\n"
"  --all                  build the graph of every thread recorded, not only\n"
"                         of those related to the target (slower)\n"
"  --with FILE ...        other hosts' recordings of the window (their\n"
"                         argus-capture or argus-cat cuts): the chain goes\n"
"                         on across the connections they share (every\n"
"                         thread of this host's window is read: --all)\n"
"\n"
"What blocked threads wait on now, and on the last mark in the window, is\n"
"read with the recording.  The graph and the diagnosis are kept in the\n"
"recorder's directory.\n";

/*
 * The threads related to the target, "TID,TID,...", from the ring's
 * relation indexes and the snapshots; NULL when the graph must be of
 * every thread: a ring without indexes, or no thread of the target.
 */
static char *
related(char *const target[], int nt, const char *now_snap,
    const char *mark_snap)
{
	struct pipeline *p;
	char *list, *nl;
	int i, status;

	p = pipeline_new();
	pipeline_stage(p, "argus-relate");
	for (i = 0; i + 1 < nt; i += 2)
		if (strcmp(target[i], "--pid") == 0 ||
		    strcmp(target[i], "--tid") == 0 ||
		    strcmp(target[i], "--comm") == 0) {
			pipeline_arg(p, target[i]);
			pipeline_arg(p, target[i + 1]);
		}
	if (ring_indexes(p) <= 0) {
		pipeline_free(p);
		return NULL;
	}
	if (*now_snap != '\0')
		pipeline_arg(p, now_snap);
	if (*mark_snap != '\0')
		pipeline_arg(p, mark_snap);
	list = pipeline_output(p, &status);
	pipeline_free(p);
	if ((nl = strchr(list, '\n')) != NULL)
		*nl = '\0';
	if (status != 0 || *list == '\0') {
		free(list);
		return NULL;
	}
	return list;
}

static int
debug(int argc, char *argv[])
{
	static const struct option longopts[] = {
		{ "pid",	required_argument, NULL, 'p' },
		{ "tid",	required_argument, NULL, 't' },
		{ "comm",	required_argument, NULL, 'c' },
		{ "at",		required_argument, NULL, 'a' },
		{ "last",	required_argument, NULL, 'l' },
		{ "threshold",	required_argument, NULL, 'T' },
		{ "auto",	no_argument,	   NULL, 'A' },
		{ "answers",	required_argument, NULL, 'f' },
		{ "no-snapshot", no_argument,	   NULL, 'S' },
		{ "all",	no_argument,	   NULL, 'G' },
		{ "with",	required_argument, NULL, 'w' },
		{ NULL, 0, NULL, 0 }
	};
	char *target[8], *slice_opts[4], since[32], file[PATH_MAX], out[PATH_MAX];
	char now_snap[PATH_MAX] = "", mark_snap[PATH_MAX] = "", *list = NULL;
	uint64_t last = 60 * 1000000000ULL, from, taken;
	struct pipeline *p;
	int ch, nt = 0, ns = 0, nfiles = 0, status, snap = 1, running, all = 0;
	size_t nrel;
	char who[64];
	const char *c;
	pid_t pid;
	unsigned long long bytes = 0;
	time_t newest = 0;
	char **with = NULL, local[PATH_MAX];
	int nwith = 0;

	optind = 1;
	while ((ch = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		if (nt > 6 || ns > 2)
			command_usage(&cmd_debug);
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
		case 'S': snap = 0; break;
		case 'G': all = 1; break;
		case 'w':
			with = xrealloc(with, (nwith + 1) * sizeof(*with));
			with[nwith++] = optarg;
			break;
		default: command_usage(&cmd_debug);
		}
	}
	/* --with A B C: the files after it are others' too. */
	for (; nwith > 0 && optind < argc; optind++) {
		with = xrealloc(with, (nwith + 1) * sizeof(*with));
		with[nwith++] = argv[optind];
	}
	if (optind != argc || nt == 0)
		diex(EX_USAGE, "debug: say which program hangs (--pid, --tid "
		    "or --comm)");
	if (ring_open(0) == -1)
		diex(EX_NOINPUT, "%s: no recording ('argus start' first)", ring);
	/* The recent past may still be in the kernel: out with it first. */
	if ((pid = recorder()) != 0)
		recorder_drain(pid);

	/* The window: from `last' ago until now, the snapshot's moment. */
	from = now_ns() > last ? now_ns() - last : 0;
	p = pipeline_new();
	pipeline_stage(p, "-");
	nfiles = ring_files(p, 0, &bytes, &newest);
	pipeline_free(p);
	running = recorder() != 0;
	if (nfiles == 0)
		diex(EX_NOINPUT, "%s: no recording in it yet%s", ring,
		    running ? "" : " ('argus start' first)");
	/* A ring last written before the window holds nothing of it. */
	if (newest < time(NULL) - (time_t)(last / 1000000000ULL)) {
		strftime(file, sizeof(file), "%F %T", localtime(&newest));
		diex(EX_NOINPUT, "%s: nothing recorded in the last %.0f s: its "
		    "newest file was written %s%s", ring, last / 1e9, file,
		    running ? "" : "; the recorder is not running ('argus "
		    "start')");
	}
	if (!running)
		warnx_("the recorder is not running: diagnosing what it "
		    "recorded before it stopped");
	taken = snap ? snapshot_take(now_snap, sizeof(now_snap)) : 0;
	/* And the last mark's in the window: the moment it was noticed. */
	if (!snapshot_newest(from, taken ? taken : UINT64_MAX, mark_snap,
	    sizeof(mark_snap)))
		*mark_snap = '\0';
	/* Other hosts' clocks are found by every connection: --all. */
	if (!all && nwith == 0)
		list = related(target, nt, now_snap, mark_snap);

	p = pipeline_new();
	pipeline_stage(p, "argus-cat");
	pipeline_arg(p, "--live");
	/* Reading a busy minute is most of the wait: show how it goes. */
	pipeline_status(p, from, from + last);
	pipeline_arg(p, "-s");
	snprintf(since, sizeof(since), "%llu", (unsigned long long)from);
	pipeline_arg(p, since);
	if (list != NULL) {
		pipeline_arg(p, "--related");
		pipeline_arg(p, list);
	}
	/* Files written out before the window are not even opened. */
	nfiles = ring_files(p, time(NULL) - (time_t)(last / 1000000000ULL) - 1,
	    &bytes, &newest);
	if (*now_snap != '\0')
		pipeline_arg(p, now_snap);
	if (*mark_snap != '\0')
		pipeline_arg(p, mark_snap);
	if (nwith > 0) {
		snprintf(file, sizeof(file), "debug-%lld-here.gz",
		    (long long)time(NULL));
		ring_path(local, sizeof(local), file);
		p = hosts_with(p, with, nwith, local);
	}
	pipeline_diagnosis(p, target, nt, slice_opts, ns);
	snprintf(file, sizeof(file), "debug-%lld.gz", (long long)time(NULL));
	ring_path(out, sizeof(out), file);
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
	    last / 1e9, ring, nfiles, nfiles == 1 ? "" : "s", bytes / 1048576.0,
	    who, out);
	status = pipeline_run(p);
	pipeline_free(p);
	free(list);
	/* 1: nothing beyond the hung thread, which is when it matters. */
	if (status == 0 || status == 1)
		hosts_remote_ends(out);
	free(with);
	return status;
}

const struct command cmd_debug = { "debug", usage, debug };
