/*
 * argus-link: add causal edges between the vertices argus-segment made.
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "link/link.h"
#include "stage.h"

static const char head[] =
"usage: argus-link [-PqzZ] [--no-RULE ...] [-o FILE] [FILE ...]\n"
"       argus-link --rules\n"
"Add causal links between vertices: the event graph's second half.\n"
"\n"
"Rules, each on by default; --no-NAME switches one off, so that a filter\n"
"of your own can do its job instead:\n";

static const char tail[] =
"\n"
"      --rules           list the rules: strength, what LABEL holds\n"
"  -P, --progress        say on stderr how far it has come\n"
"  -q, --quiet           no summary on stderr\n"
USAGE_COMMON
"\n"
"Input must come from argus-segment (events with their VERTEX set).\n"
"Exit: 0 ok, 64 usage, 65 bad input, 66 cannot open.  See argus-link(1).\n";

/* The vocabulary, for a user writing a filter: one rule a line. */
static void
list_rules(void)
{
	const struct lrule *r;
	size_t i;

	printf("%-8s %-6s %-5s %-24s %s\n", "RULE", "LINKS", "WAIT",
	    "LABEL", "WHAT");
	for (i = 0; i < nlrules; i++) {
		r = &lrules[i];
		printf("%-8s %-6s %-5s %-24s %s\n", r->name,
		    r->props & LR_WEAK ? "weak" : "strong",
		    r->props & LR_WAKES ? "ends" :
		    r->props & LR_HOLDS ? "holds" : "-",
		    r->label[0] ? r->label : "-", r->help);
	}
	exit(0);
}

static int
take_event(void *arg, const struct record *rec, struct event *ev)
{
	(void)arg, (void)rec;
	link_event(ev);
	return 1;
}

static int
take_record(void *arg, const struct record *rec)
{
	(void)arg;
	link_record(rec);
	return 1;
}

/* The record first: a link it makes follows it in time. */
static const struct stage_ops ops = {
	.doing = "linking",
	.needs = "argus-segment",
	.flags = STAGE_PASS | STAGE_VERTEX,
	.event = take_event,
	.record = take_record,
	.start = link_init,
	.summary = link_summary,
};

/* --rules, the one option of its own. */
static void
option(int ch)
{
	(void)ch;
	list_rules();
}

int
main(int argc, char *argv[])
{
	static const struct option own[] = {
		{ "rules",	no_argument, NULL, 'r' },
		{ NULL, 0, NULL, 0 }
	};
	struct common com = { NULL, Z_AUTO };
	struct link_rule **rules = link_rules();
	struct toggle *tg;
	int quiet = 0, show = 0;
	size_t i;

	tg = xcalloc(nlrules, sizeof(*tg));
	for (i = 0; i < nlrules; i++)
		tg[i] = (struct toggle){ lrules[i].name, lrules[i].help,
		    &rules[i]->off };
	stage_toggle_options(argc, argv, head, tail, tg, nlrules, own, option,
	    &com, &quiet, &show);
	return stage_main(&ops, argv + optind, argc - optind, &com, show,
	    quiet);
}
