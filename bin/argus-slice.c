/*
 * argus-slice: diagnose a hang by slicing the event graph backwards.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "file.h"
#include "slice/slice.h"

static const char usage[] =
"usage: argus-slice [-qvPzZ] [--auto | --answers FILE] [--from VERTEX]\n"
"                   [--threshold TIME] [--dot FILE] [--json FILE] [--report FILE]\n"
"                   [-o FILE] [FILE ...]\n"
"Walk the event graph back from a hang to its root cause (Algorithm 1).\n"
"\n"
"  --answers FILE      take the answers to its questions from FILE, one a\n"
"                      line: a candidate's number, stop, y or n\n"
"  --auto              answer by rule: the most recent link, always go on\n"
"  --from VERTEX       slice back from VERTEX instead of diagnosing spins\n"
"  --threshold TIME    a normal wait is shorter than this (default 2s)\n"
"  --dot FILE          the diagnoses as a Graphviz graph, top down: victim,\n"
"                      culprits, root, the links followed nearest them (0600)\n"
"  --json FILE         the same as Chrome trace events, on the threads'\n"
"                      tracks with their scheduling (Perfetto UI; 0600)\n"
"  --report FILE       the report into FILE (mode 0600; '-': stdout)\n"
"                      instead of stderr\n"
"  -q, --quiet         no report on stderr\n"
"  -v, --verbose       every culprit and every step walked in the report\n"
"  -P, --progress      say on stderr how far loading the graph has come\n"
"  -o, --output FILE   write the stream to FILE (mode 0600)\n"
"  -z, --compress      gzip the output even into a pipe or terminal\n"
"  -Z, --no-compress   plain output even into a regular file\n"
"  -h, --help          this text\n"
USAGE_VERSION_LINE("       ")
"\n"
"Without --auto or --answers the questions go to the terminal (/dev/tty):\n"
"the stream is on stdin; without one the rule answers, as --auto, and\n"
"says so.  On it, a cause alone is no question: the rule takes it or\n"
"stops.  "
"Input must have vertex and link records\n"
"(argus-segment, argus-link), and spin records (argus-spin) unless --from.\n"
"Exit: 0 a cause found, 1 nothing to diagnose or no cause found beyond\n"
"waiting, 64 usage, 65 bad input.\n";

/* Where the report goes: stdout, or a file whole when complete. */
static struct outfile report_file;

static FILE *
report_open(const char *path)
{
	if (strcmp(path, "-") == 0)
		return stdout;
	return outfile_fopen(&report_file, path);
}

int
main(int argc, char *argv[])
{
	static const struct option longopts[] = {
		{ "answers",	required_argument, NULL, 'a' },
		{ "auto",	no_argument,	   NULL, 'A' },
		{ "from",	required_argument, NULL, 'f' },
		{ "threshold",	required_argument, NULL, 't' },
		{ "dot",	required_argument, NULL, 'd' },
		{ "json",	required_argument, NULL, 'j' },
		{ "report",	required_argument, NULL, 'r' },
		{ "quiet",	no_argument,	   NULL, 'q' },
		{ "verbose",	no_argument,	   NULL, 'v' },
		{ "progress",	no_argument,	   NULL, 'P' },
		COMMON_LONG,
		{ NULL, 0, NULL, 0 }
	};
	struct common com = { NULL, Z_AUTO };
	const char *answers = NULL, *dot = NULL, *json = NULL, *rpath = NULL;
	FILE *report = stderr;
	uint64_t from = 0, threshold = HANG_NS;
	struct export *xdot = NULL, *xjson = NULL;
	struct spin_rec one, *s;
	struct diagnosis *all;
	int *order;
	struct vertex *v;
	struct stage st = { 0 };
	struct writer *out;
	struct graph g;
	int ch, quiet = 0, verbose = 0, automatic = 0, found = 0, i, n;
	int show = 0;

	while ((ch = getopt_long(argc, argv, "qvP" COMMON_SHORT, longopts,
	    NULL)) != -1) {
		switch (ch) {
		case 'a':
			answers = optarg;
			break;
		case 'A':
			automatic = 1;
			break;
		case 'f':
			from = parse_u64("--from", optarg);
			break;
		case 't':
			threshold = parse_duration_ns("--threshold", optarg);
			break;
		case 'd':
			dot = optarg;
			break;
		case 'j':
			json = optarg;
			break;
		case 'r':
			rpath = optarg;
			break;
		case 'q':
			quiet = 1;
			break;
		case 'v':
			verbose = 1;
			break;
		case 'P':
			show = 1;
			break;
		default:
			common_option(&com, ch, optarg, usage);
		}
	}
	if (answers != NULL && automatic)
		usage_error(usage);
	if (rpath != NULL)
		report = report_open(rpath);
	ask_init(automatic ? ASK_AUTO : answers ? ASK_FILE : ASK_TTY, answers);
	stage_open(&st, &graph_stage, argv + optind, argc - optind, &com,
	    show);
	out = st.out;
	graph_read(&g, &st, json != NULL ? GR_RUNS : 0);

	s = g.spins;
	n = g.nspins;
	if (from != 0) {
		/* A made-up spin: the chosen vertex, sliced as work. */
		if ((v = vertex_get(&g, from)) == NULL)
			diex(EX_DATAERR, "--from: no vertex %llu in the stream",
			    (unsigned long long)from);
		memset(&one, 0, sizeof(one));
		one.time = g.last_time;
		one.vertex = one.last = from;
		one.pid = v->pid;
		one.tid = v->tid;
		one.begin = v->begin;
		one.end = v->end;
		one.class = sclass_of_kind(HK_WORK);
		snprintf(one.ended, sizeof(one.ended), "%s", ENDED_CHOSEN);
		snprintf(one.comm, sizeof(one.comm), "%s",
		    str_of(vertex_comm(v)));
		s = &one;
		n = 1;
	}
	/* argus-spin ran and said why it found no hang: once is enough. */
	if (n == 0 && g.spun) {
		writer_close(out);
		return 1;
	}
	if (n == 0) {
		warnx_("nothing to diagnose: no spin records in the input "
		    "(run argus-spin first, or give --from VERTEX)");
		writer_close(out);
		return 1;
	}
	if (dot != NULL)
		xdot = export_open(dot, EXPORT_DOT);
	if (json != NULL)
		xjson = export_open(json, EXPORT_JSON);
	all = xcalloc(n, sizeof(*all));
	for (i = 0; i < n; i++) {
		diagnose(&g, &s[i], threshold, !automatic, &all[i]);
		lead_with_cause(&all[i]);
		report_records(&g, &all[i], out);
		found |= all[i].found;
		if (xdot != NULL)
			export_add(xdot, &g, &s[i], &all[i]);
		if (xjson != NULL)
			export_add(xjson, &g, &s[i], &all[i]);
	}
	order = report_order(s, all, n);
	for (i = 0; i < n && !quiet; i++)
		report_text(&g, &s[order[i]], &all[order[i]], verbose, report);
	free(order);
	free(all);
	if (xdot != NULL)
		export_close(xdot);
	if (xjson != NULL)
		export_close(xjson);
	stage_close(&st);
	if (report != stderr && report != stdout)
		outfile_fclose(report, &report_file);
	if (report == stdout && fflush(stdout) == EOF)
		die(EX_IOERR, "stdout");
	return exit_status(found);
}
