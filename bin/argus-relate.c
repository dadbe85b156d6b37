/*
 * argus-relate: the threads related to a target, for a graph of only
 * them (argus-cat --related).  See lib/relate.h for what relates them.
 */
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

#include "relate.h"
#include "util.h"

static const char usage[] =
"usage: argus-relate [-v] [-d DEPTH] -p PID | -t TID | -c COMM ... [FILE ...]\n"
"Print the threads related to the target: the ones whose wake-ups, forks,\n"
"signals, queued work, data flags or held objects may have kept it\n"
"waiting, going back from its segments through theirs.  The list, TIDs\n"
"joined by commas (TID@SINCE[-UNTIL]: one life of a reused id), is what\n"
"argus-cat --related takes, so that the graph of a busy capture is built\n"
"only for them.\n"
"\n"
"  -p, --pid PID      the target: this process's threads\n"
"  -t, --tid TID      the target: this thread\n"
"  -c, --comm COMM    the target: threads of this name, and their\n"
"                     processes' other threads\n"
"  -d, --depth DEPTH  follow a chain back at most DEPTH relations (default\n"
"                     16; 0: to its end)\n"
"  -v, --verbose      say on stderr how many threads and relations;\n"
"                     twice: why each thread is related\n"
"  -h, --help         this text\n"
USAGE_VERSION_LINE("      ")
"\n"
"Options may repeat.  FILE is a capture, or the relation index that a\n"
"flight recorder writes beside each ring file (argus-rel-N.csv.gz),\n"
"with its wait-for snapshots.\n"
"Exit: 0 ok, 1 no thread of the target in the input, 64 usage, 65 bad\n"
"input, 66 cannot open.  See argus-relate(1).\n";

struct target {
	int		 how;		/* 'p', 't', 'c' */
	const char	*arg;
};

static int
find(struct relate *r, const struct target *tg)
{
	switch (tg->how) {
	case 'p':
		return relate_target_pid(r, parse_u64("--pid", tg->arg));
	case 't':
		return relate_target_tid(r, parse_u64("--tid", tg->arg));
	default:
		return relate_target_comm(r, tg->arg);
	}
}

int
main(int argc, char *argv[])
{
	static const struct option longopts[] = {
		{ "pid",	required_argument, NULL, 'p' },
		{ "tid",	required_argument, NULL, 't' },
		{ "comm",	required_argument, NULL, 'c' },
		{ "depth",	required_argument, NULL, 'd' },
		{ "verbose",	no_argument,	   NULL, 'v' },
		{ "help",	no_argument,	   NULL, 'h' },
		{ "version",	no_argument,	   NULL, 'V' },
		{ NULL, 0, NULL, 0 }
	};
	struct common com = { NULL, Z_AUTO };
	struct target *tg = NULL;
	const struct record *rec;
	struct source *src;
	struct relate *r;
	struct relate_life *lives;
	size_t i, n, ntg = 0;
	uint64_t depth = RELATE_DEPTH;
	int ch, verbose = 0, found = 0;

	while ((ch = getopt_long(argc, argv, "p:t:c:d:vhV", longopts,
	    NULL)) != -1) {
		switch (ch) {
		case 'p':
		case 't':
		case 'c':
			tg = xrealloc(tg, (ntg + 1) * sizeof(*tg));
			tg[ntg++] = (struct target){ ch, optarg };
			break;
		case 'd':
			depth = parse_u64("--depth", optarg);
			if (depth > UINT_MAX)
				diex(EX_USAGE, "--depth: too deep: %s", optarg);
			break;
		case 'v': verbose++; break;
		default: common_option(&com, ch, optarg, usage);
		}
	}
	if (ntg == 0)
		diex(EX_USAGE, "no target: give --pid, --tid or --comm");
	/* Numbers are checked before a long input is read. */
	for (i = 0; i < ntg; i++)
		if (tg[i].how != 'c')
			parse_u64(tg[i].how == 'p' ? "--pid" : "--tid",
			    tg[i].arg);
	catch_signals();
	r = relate_new();
	src = source_open(argv + optind, argc - optind);
	while ((rec = source_next(src)) != NULL)
		relate_see(r, rec);
	source_close(src);
	stop_if_interrupted();
	for (i = 0; i < ntg; i++)
		found += find(r, &tg[i]);
	if (!found) {
		warnx_("no thread of the target in the input");
		return 1;
	}
	lives = relate_closure(r, depth, &n);
	for (i = 0; i < n; i++) {
		printf("%s%u", i ? "," : "", lives[i].tid);
		if (lives[i].since != 0 || lives[i].until != UINT64_MAX)
			printf("@%llu", (unsigned long long)lives[i].since);
		if (lives[i].until != UINT64_MAX)
			printf("-%llu", (unsigned long long)lives[i].until);
	}
	printf("\n");
	fflush(stdout);
	if (verbose > 1)
		relate_explain(r, stderr);
	if (verbose)
		warnx_("%zu threads related, from %llu relations", n,
		    (unsigned long long)relate_nrelations(r));
	free(lives);
	relate_free(r);
	free(tg);
	return exit_status(1);
}
