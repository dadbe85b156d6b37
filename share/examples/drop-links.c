/*
 * drop-links: a heuristic of a user's own, as a filter on the stage
 * driver (lib/stage.h): it drops the links of the rules named on its
 * command line and passes every other record on.  Put between argus-link
 * and argus-spin, it shows what a diagnosis owes to a rule:
 *
 *	argus-segment -q t.gz | argus-link -q | drop-links message,wakeup |
 *	    argus-spin -q -p PID | argus-similar -q | argus-slice --auto
 *
 * Built by make (share/examples/drop-links), not installed.  A filter
 * that adds records writes them with the writer of lib/stream.h and the
 * record writers of lib/graph.h (link_write(), ...) from its callbacks.
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "graph.h"
#include "stage.h"

static const char usage[] =
"usage: drop-links [-PqzZ] [-o FILE] RULE[,RULE...] [FILE ...]\n"
"Drop the links of each RULE (argus-link --rules, or a filter's own);\n"
"pass every other record on.\n"
"\n"
"  -P, --progress        say on stderr how far it has come\n"
"  -q, --quiet           no summary on stderr\n"
USAGE_COMMON
"\n"
"Exit: 0 ok, 64 usage, 65 bad input, 66 cannot open.\n";

struct drop {
	char		**rules;
	size_t		  nrules;
	uint64_t	  dropped, kept;
};

/* Links only: events and every other kind pass, as read. */
static int
take_record(void *arg, const struct record *rec)
{
	struct drop *d = arg;
	struct link_rec l;
	size_t i;

	if (!link_parse(rec, &l))
		return 0;
	for (i = 0; i < d->nrules; i++)
		if (strcmp(l.rule, d->rules[i]) == 0) {
			d->dropped++;
			return 1;	/* consumed: not written */
		}
	d->kept++;
	return 0;
}

static const struct stage_ops ops = {
	.doing = "dropping links",
	.record = take_record,
};

int
main(int argc, char *argv[])
{
	static const struct option longopts[] = {
		{ "progress",	no_argument,	   NULL, 'P' },
		{ "quiet",	no_argument,	   NULL, 'q' },
		COMMON_LONG,
		{ NULL, 0, NULL, 0 }
	};
	struct common com = { NULL, Z_AUTO };
	struct drop d = { NULL, 0, 0, 0 };
	struct stage st = { .arg = &d };
	int ch, quiet = 0, show = 0;
	char *rule;

	while ((ch = getopt_long(argc, argv, "Pq" COMMON_SHORT, longopts,
	    NULL)) != -1) {
		if (ch == 'q')
			quiet = 1;
		else if (ch == 'P')
			show = 1;
		else
			common_option(&com, ch, optarg, usage);
	}
	if (optind == argc)
		usage_error(usage);
	d.rules = xcalloc(strlen(argv[optind]) + 1, sizeof(*d.rules));
	while ((rule = strsep(&argv[optind], ",")) != NULL)
		if (*rule != '\0')
			d.rules[d.nrules++] = rule;
	if (d.nrules == 0)
		usage_error(usage);
	optind++;
	stage_open(&st, &ops, argv + optind, argc - optind, &com, show);
	stage_run(&st, &ops);
	summary_begin(st.out, st.last, "drop-links");
	summary_u64(st.out, "dropped", d.dropped);
	summary_u64(st.out, "kept", d.kept);
	summary_end(st.out);
	if (!quiet)
		warnx_("%llu links dropped, %llu kept",
		    (unsigned long long)d.dropped, (unsigned long long)d.kept);
	stage_close(&st);
	return exit_status(1);
}
