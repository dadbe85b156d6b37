/*
 * argus-similar: for each hang, the earlier vertices of its thread that
 * did the same and ended normally: the baseline.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "similar/similar.h"
#include "stage.h"

static const char usage[] =
"usage: argus-similar [-zZq] [-n COUNT] [-T DURATION] [-m SCORE] [-p PID]\n"
"                     [-t TID] [-o FILE] [FILE ...]\n"
"For each spin record (argus-spin), rank the earlier vertices of the same\n"
"thread that did the same thing and ended normally: the baseline (for a\n"
"thread with none, those of other processes of the same program).\n"
"\n"
"  -n, --count COUNT     baselines per spin (default 5)\n"
"  -T, --threshold DUR   a normal vertex is shorter than this (default 2s)\n"
"                        and than a tenth of the hang\n"
"  -m, --min-score S     least similarity, 0 to 1 (default 0.5)\n"
"  -p, --pid PID         keep only the history of PID's main thread\n"
"  -t, --tid TID         keep only the history of thread TID\n"
"                        (default: a summary of every vertex of every thread)\n"
"  -q, --quiet           no lines on stderr about what was found\n"
USAGE_COMMON
"\n"
"Every record passes; baseline records follow at the end of the input.\n"
"Exit: 0 ok (also when no baseline qualifies), 64 usage, 65 bad input,\n"
"66 cannot open.  See argus-similar(1).\n";

static struct spin_rec *spins;
static size_t nspins;

static int
take_event(void *arg, const struct record *rec, struct event *ev)
{
	(void)arg, (void)rec;
	history_event(ev);
	return 1;
}

static int
take_record(void *arg, const struct record *rec)
{
	int *spun = arg;
	struct vertex_rec v;
	struct link_rec l;
	struct spin_rec s;

	if (vertex_parse(rec, &v))
		history_vertex(&v);
	else if (link_parse(rec, &l))
		history_link(&l);
	else if (strcmp(rec->f[COL_KIND], KIND_STACK) == 0)
		history_stack(rec);
	else if (spin_parse(rec, &s)) {
		spins = xrealloc(spins, (nspins + 1) * sizeof(*spins));
		spins[nspins++] = s;
	} else if (summary_of(rec, "argus-spin"))
		*spun = 1;
	return 1;
}

static const struct stage_ops ops = {
	.needs = "argus-segment and argus-link",
	.flags = STAGE_PASS | STAGE_VERTEX,
	.event = take_event,
	.record = take_record,
};

int
main(int argc, char *argv[])
{
	static const struct option longopts[] = {
		{ "count",	required_argument, NULL, 'n' },
		{ "threshold",	required_argument, NULL, 'T' },
		{ "min-score",	required_argument, NULL, 'm' },
		{ "pid",	required_argument, NULL, 'p' },
		{ "tid",	required_argument, NULL, 't' },
		{ "quiet",	no_argument,	   NULL, 'q' },
		COMMON_LONG,
		{ NULL, 0, NULL, 0 }
	};
	struct common com = { NULL, Z_AUTO };
	uint64_t count = 5, threshold = HANG_NS, pid = 0, tid = 0;
	uint64_t nbase = 0;
	double min_score = 0.5;
	int ch, quiet = 0, spun = 0;
	struct stage st = { .arg = &spun };
	char *end;
	size_t i;

	while ((ch = getopt_long(argc, argv, "n:T:m:p:t:q" COMMON_SHORT,
	    longopts, NULL)) != -1) {
		switch (ch) {
		case 'n':
			count = parse_u64("--count", optarg);
			break;
		case 'T':
			threshold = parse_duration_ns("--threshold", optarg);
			break;
		case 'm':
			min_score = strtod(optarg, &end);
			if (end == optarg || *end != '\0' || min_score < 0 ||
			    min_score > 1)
				diex(EX_USAGE, "--min-score: not a number "
				    "from 0 to 1: '%s'", optarg);
			break;
		case 'p':
			pid = parse_u64("--pid", optarg);
			break;
		case 't':
			tid = parse_u64("--tid", optarg);
			break;
		case 'q':
			quiet = 1;
			break;
		default:
			common_option(&com, ch, optarg, usage);
		}
	}
	history_select(pid, tid);
	stage_open(&st, &ops, argv + optind, argc - optind, &com, 0);
	stage_run(&st, &ops);
	if (nspins > 0 && nvertex_records == 0)
		diex(EX_DATAERR, "spin records but no vertex records in the "
		    "input: run argus-segment and argus-link first");
	for (i = 0; i < nspins && !interrupted; i++)
		nbase += rank(st.out, &spins[i], count, threshold, min_score,
		    !quiet);
	/* argus-spin ran and said why it found no hang: once is enough. */
	if (nspins == 0 && !spun)
		warnx_("no spin records in the input: run argus-spin first");
	report_summary(st.out, st.last, nspins, nbase);
	stage_close(&st);
	return exit_status(1);
}
