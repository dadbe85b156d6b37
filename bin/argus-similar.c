/*
 * argus-similar: for each hang, the earlier vertices of its thread that
 * did the same and ended normally: the baseline.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "show.h"
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
"  -o, --output FILE     write to FILE (mode 0600) instead of stdout\n"
"  -z, --compress        gzip the output even into a pipe or terminal\n"
"  -Z, --no-compress     plain output even into a regular file\n"
"  -h, --help            this text\n"
"  -V, --version         version and record stream version\n"
"\n"
"Every record passes; baseline records follow at the end of the input.\n"
"Exit: 0 ok (also when no baseline qualifies), 64 usage, 65 bad input,\n"
"66 cannot open.  See argus-similar(1).\n";

static struct spin_rec *spins;
static size_t nspins;

/* Best first; ties (to a thousandth) to the most recent. */
static int
by_score(const void *a, const void *b)
{
	const struct candidate *x = a, *y = b;
	long sx = (long)(x->s.total * 1000 + 0.5);
	long sy = (long)(y->s.total * 1000 + 0.5);

	if (sx != sy)
		return sx > sy ? -1 : 1;
	return VSEM(x->t, x->ix)->begin > VSEM(y->t, y->ix)->begin ? -1 : 1;
}

/* The vertices of thread o before the hang that ended normally, alike. */
static size_t
candidates(const struct sthread *t, size_t si, const struct sthread *o,
    const struct spin_rec *sp, uint64_t threshold, double min_score,
    struct candidate **c, size_t n, size_t *earlier)
{
	const struct vsem *wake;
	int running = sp->class->kind == HK_WORK;
	size_t i;

	for (i = 0; i < o->vv.n && VSEM(o, i)->begin < sp->begin; i++) {
		if (o == t && i >= si)
			break;
		(*earlier)++;
		wake = normal_outcome(o, i, sp->begin, sp->end - sp->begin,
		    threshold, running);
		if (wake == NULL)
			continue;
		*c = xrealloc(*c, (n + 1) * sizeof(**c));
		(*c)[n].t = o;
		(*c)[n].ix = i;
		(*c)[n].running = running;
		(*c)[n].wake = wake;
		score(VSEM(t, si), VSEM(o, i), running, &(*c)[n].s);
		if ((*c)[n].s.total >= min_score)
			n++;
	}
	return n;
}

static uint64_t
rank(struct writer *out, const struct spin_rec *sp, uint64_t count,
    uint64_t threshold, double min_score, int verbose)
{
	const struct sthread *t = sthread_find(sp->tid), *o;
	struct candidate *c = NULL;
	size_t si, n = 0, earlier = 0;
	uint64_t k;

	if (t == NULL || (si = vvec_find(&t->vv, sp->vertex)) == t->vv.n) {
		warnx_("spin vertex %llu of thread %llu: not in the history "
		    "kept%s", (unsigned long long)sp->vertex,
		    (unsigned long long)sp->tid,
		    t == NULL ? " (see --pid, --tid)" : "");
		return 0;
	}
	n = candidates(t, si, t, sp, threshold, min_score, &c, n, &earlier);
	/*
	 * A thread new to the trace (one process per request: a client, a
	 * curl) has no history; other processes of the same program made
	 * the same requests before it, and were answered.
	 */
	if (n == 0)
		for (o = sthread_all(); o != NULL; o = o->hh.next)
			if (o != t && o->pid != t->pid && o->comm[0] != '\0' &&
			    strcmp(o->comm, t->comm) == 0)
				n = candidates(t, si, o, sp, threshold,
				    min_score, &c, n, &earlier);
	if (n == 0) {
		warnx_("no baseline for %s %u/%u vertex %llu (%s): none of "
		    "%zu earlier vertices is both alike (score >= %.2f) and "
		    "short and ended by a peer", show(t->comm), sp->pid, sp->tid,
		    (unsigned long long)sp->vertex, sp->class->name, earlier,
		    min_score);
		free(c);
		return 0;
	}
	qsort(c, n, sizeof(*c), by_score);
	for (k = 0; k < count && k < n; k++)
		report_baseline(out, sp, t, &c[k], k + 1, verbose);
	free(c);
	return k;
}

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
	NULL, NULL, "argus-segment and argus-link",
	STAGE_PASS | STAGE_VERTEX, take_event, take_record, NULL
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
