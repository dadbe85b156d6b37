/*
 * argus-cat: read record streams, merge them by time, select, write.
 * The selections and the writing are in bin/cat/; here, the options.
 */
#include <getopt.h>
#include <stdint.h>
#include <string.h>

#include "cat/cat.h"
#include "hosts.h"
#include "util.h"

static const char usage[] =
"usage: argus-cat [-HLPWyzZ] [-k KIND,...] [-p PID,...] [-t TID,...] [-c COMM,...]\n"
"                 [-r TID,...] [-s TIME] [-u TIME] [-o FILE] [FILE ...]\n"
"Read Argus record streams (gzip or plain), merge them by time, write one.\n"
"\n"
"  -k, --kind LIST     keep only records of these kinds (comments stay)\n"
"  -p, --pid LIST      keep only records of these processes\n"
"  -t, --tid LIST      keep only records of these threads\n"
"  -c, --comm LIST     keep only records of threads of these names, from\n"
"                      when they take the name (start, exec, rename)\n"
"  -r, --related LIST  keep what a graph of these threads needs (from\n"
"                      argus-relate): their records, events naming them,\n"
"                      events in interrupts, names; TID@SINCE-UNTIL is one\n"
"                      life of a reused id\n"
"  -s, --since TIME    drop records before TIME; each thread's name then\n"
"                      (its task record) comes before its first record\n"
"  -u, --until TIME    drop records after TIME\n"
"                      TIME is CLOCK_MONOTONIC nanoseconds, +DURATION\n"
"                      (e.g. +1.5s, +200ms) from the first record's time,\n"
"                      or a clock time: 10:22:15, '2026-11-25 10:22:15.5'\n"
"  -W, --wall          show times as local clock times (ISO 8601)\n"
"  -y, --symbols       show kernel functions (timers', work items') by the\n"
"                      names the stream's ksym records give, not as addresses\n"
"  -H, --header        with one -k KIND: a CSV table of that kind for other\n"
"                      tools (sqlite, DuckDB, pandas): a header row of its\n"
"                      column names, every row as wide, no stream line\n"
"  -L, --live          files may still be being written (a flight recorder's):\n"
"                      read each up to its last flush, without an error\n"
"  -P, --progress      say on stderr how far the reading has come\n"
"      --hosts         FILEs are captures of two hosts or more: an error\n"
"                      if they are not, or if their clocks cannot be\n"
"                      aligned (captures of different hosts are merged\n"
"                      as hosts with or without it: see HOSTS in\n"
"                      argus-cat(1))\n"
"  -o, --output FILE   write to FILE (mode 0600) instead of stdout\n"
"  -z, --compress      gzip standard output\n"
"  -Z, --no-compress   plain output even into -o FILE\n"
"  -h, --help          this text\n"
USAGE_VERSION_LINE("       ")
"\n"
"Without FILE, or with -, read stdin.  Standard output is plain text, as\n"
"zcat's is, unless -z; -o FILE is compressed unless -Z.  Records without\n"
"a PID, TID or TIME are not about one thread or moment, and selections by\n"
"those keep them.\n"
"Exit: 0 ok, 64 usage, 65 bad input, 66 cannot open.  See argus-cat(1).\n";

int
main(int argc, char *argv[])
{
	static const struct option longopts[] = {
		{ "kind",	required_argument, NULL, 'k' },
		{ "pid",	required_argument, NULL, 'p' },
		{ "tid",	required_argument, NULL, 't' },
		{ "comm",	required_argument, NULL, 'c' },
		{ "related",	required_argument, NULL, 'r' },
		{ "since",	required_argument, NULL, 's' },
		{ "until",	required_argument, NULL, 'u' },
		{ "live",	no_argument,	   NULL, 'L' },
		{ "progress",	no_argument,	   NULL, 'P' },
		{ "wall",	no_argument,	   NULL, 'W' },
		{ "header",	no_argument,	   NULL, 'H' },
		{ "symbols",	no_argument,	   NULL, 'y' },
		{ "hosts",	no_argument,	   NULL, 'M' },
		COMMON_LONG,
		{ NULL, 0, NULL, 0 }
	};
	struct common com = { NULL, Z_AUTO };
	struct select sel = { .first = NO_TIME };
	struct writer *out;
	int ch, show = 0, wall = 0, table = 0, names = 0, hostsonly = 0;
	struct hosts *hosts;

	while ((ch = getopt_long(argc, argv, "k:p:t:c:r:s:u:LPWHy" COMMON_SHORT,
	    longopts, NULL)) != -1) {
		switch (ch) {
		case 'k':
			parse_names(&sel.kinds, &sel.nkinds, optarg);
			check_kinds(&sel);
			break;
		case 'p':
			parse_list("--pid", optarg, &sel.pids, &sel.npids);
			break;
		case 't':
			parse_list("--tid", optarg, &sel.tids, &sel.ntids);
			break;
		case 'c':
			parse_names(&sel.comms, &sel.ncomms, optarg);
			if (sel.named == NULL)
				sel.named = xcalloc(TID_LIMIT / 8, 1);
			break;
		case 'r':
			related(&sel, optarg);
			break;
		case 's':
			when_parse(&sel.since, "--since", optarg);
			break;
		case 'u':
			when_parse(&sel.until, "--until", optarg);
			break;
		case 'L':
			reader_live = 1;
			break;
		case 'P':
			show = 1;
			break;
		case 'W':
			wall = 1;
			break;
		case 'H':
			table = 1;
			break;
		case 'y':
			names = 1;
			break;
		case 'M':
			hostsonly = 1;
			break;
		default:
			common_option(&com, ch, optarg, usage);
		}
	}
	/*
	 * A reader's tool, as zcat is: what it writes on standard output is
	 * text wherever it goes ('> ev.csv' too); -o FILE keeps a stream.
	 */
	if (com.z == Z_AUTO && (com.out == NULL || strcmp(com.out, "-") == 0))
		com.z = Z_PLAIN;
	catch_signals();
	/* Several hosts: their own merge, selections after it. */
	if ((hosts = hosts_plan(argv + optind, argc - optind, hostsonly))) {
		if (sel.nkinds || sel.npids || sel.ntids || sel.ncomms ||
		    sel.related || sel.since.set || sel.until.set || wall ||
		    table || names)
			diex(EX_USAGE, "captures of several hosts: merge them "
			    "first, then select ('argus-cat A B | argus-cat "
			    "-k ...')");
		out = writer_open(com.out, com.z);
		hosts_merge(hosts, out);
		writer_close(out);
		hosts_free(hosts);
		return exit_status(1);
	}
	show = progress_start(show);
	cat_stream(&sel, argv + optind, argc - optind, &com, show, wall, table,
	    names);
	return exit_status(1);
}
