/*
 * argus-cat: read record streams, merge them by time, select, write.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <uthash.h>

#include "event.h"
#include "graph.h"
#include "hosts.h"
#include "relate.h"
#include "ksym.h"
#include "util.h"

#define TID_LIMIT	(1 << 22)	/* the kernel's PID_MAX_LIMIT */
#define COMM_LEN	16		/* its TASK_COMM_LEN */

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
"                      events in interrupts, names\n"
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
"  -V, --version       version and record stream version\n"
"\n"
"Without FILE, or with -, read stdin.  Standard output is plain text, as\n"
"zcat's is, unless -z; -o FILE is compressed unless -Z.  Records without\n"
"a PID, TID or TIME are not about one thread or moment, and selections by\n"
"those keep them.\n"
"Exit: 0 ok, 64 usage, 65 bad input, 66 cannot open.  See argus-cat(1).\n";

struct select {
	char		**kinds;
	size_t		  nkinds;
	uint64_t	 *pids, *tids;
	size_t		  npids, ntids;
	char		**comms;
	size_t		  ncomms;
	uint8_t		 *named;	/* --comm: threads that took a name, a bit each */
	uint8_t		 *related;	/* --related: a bit each */
	struct when	  since, until;	/* relative: to the first time seen */
	uint64_t	  first;
};

/*
 * -s: a thread's latest task record before the window, put out before its
 * first record in it, as a ring's file introduces it: a thread's name is
 * that of its latest task record (argus-stream(5)).
 */
struct early {
	uint64_t	 tid;
	char		**f;
	size_t		 nf;
	UT_hash_handle	 hh;
};

static struct early	*early;

static void
early_free(struct early *e)
{
	size_t i;

	HASH_DEL(early, e);
	for (i = 0; i < e->nf; i++)
		free(e->f[i]);
	free(e->f);
	free(e);
}

static void
early_keep(const struct record *rec)
{
	struct early *e;
	uint64_t tid;
	size_t i;

	if (!record_u64_opt(rec, COL_TID, &tid))
		return;
	HASH_FIND(hh, early, &tid, sizeof(tid), e);
	if (e != NULL)
		early_free(e);
	e = xcalloc(1, sizeof(*e));
	e->tid = tid;
	e->nf = rec->nf;
	e->f = xcalloc(rec->nf, sizeof(*e->f));
	for (i = 0; i < rec->nf; i++)
		e->f[i] = xstrdup(rec->f[i]);
	HASH_ADD(hh, early, tid, sizeof(e->tid), e);
}

static void
parse_list(const char *opt, char *arg, uint64_t **v, size_t *n)
{
	char *s;

	while ((s = strsep(&arg, ",")) != NULL) {
		*v = xrealloc(*v, (*n + 1) * sizeof(**v));
		(*v)[(*n)++] = parse_u64(opt, s);
	}
}

static void
parse_names(char ***v, size_t *n, char *arg)
{
	char *s;

	while ((s = strsep(&arg, ",")) != NULL) {
		*v = xrealloc(*v, (*n + 1) * sizeof(char *));
		(*v)[(*n)++] = s;
	}
}

static void
related(struct select *sel, char *arg)
{
	uint64_t *tids = NULL;
	size_t n = 0, i;

	parse_list("--related", arg, &tids, &n);
	if (sel->related == NULL)
		sel->related = xcalloc(TID_LIMIT / 8, 1);
	for (i = 0; i < n; i++) {
		if (tids[i] >= TID_LIMIT)
			diex(EX_USAGE, "--related: %llu: not a thread id",
			    (unsigned long long)tids[i]);
		sel->related[tids[i] / 8] |= 1 << tids[i] % 8;
	}
	free(tids);
}

/*
 * --comm: a thread takes a name when it is introduced (its task record),
 * when it runs a new program (the kernel names it after the file, cut to
 * 15 bytes) and when it is renamed; from then on its records are kept.
 */
static void
learn_name(struct select *sel, const struct record *rec)
{
	char base[COMM_LEN];
	const char *name, *slash, *type;
	uint64_t tid;
	size_t i;

	/* Read as text: argus-cat passes on what it does not check. */
	type = strcmp(rec->f[COL_KIND], KIND_EVENT) == 0 && rec->nf > EC_TYPE ?
	    rec->f[EC_TYPE] : "";
	if (strcmp(rec->f[COL_KIND], KIND_TASK) == 0) {
		if (!record_u64_opt(rec, COL_TID, &tid))
			return;
		name = record_str(rec, COL_FIRST_OWN);
	} else if (strcmp(type, etype_name(E_COMM)) == 0) {
		if (!record_u64_opt(rec, EC_ARG + 1, &tid))
			return;
		name = record_str(rec, EC_ARG + 3);
	} else if (strcmp(type, etype_name(E_EXEC)) == 0) {
		if (!record_u64_opt(rec, COL_TID, &tid))
			return;
		name = record_str(rec, EC_ARG);
		if ((slash = strrchr(name, '/')) != NULL)
			name = slash + 1;
		snprintf(base, sizeof(base), "%s", name);
		name = base;
	} else
		return;
	if (tid >= TID_LIMIT)
		return;
	for (i = 0; i < sel->ncomms; i++)
		if (strcmp(sel->comms[i], name) == 0)
			sel->named[tid / 8] |= 1 << tid % 8;
}

static int
in_list(const struct record *rec, size_t col, const uint64_t *v, size_t n)
{
	uint64_t x;
	size_t i;

	if (n == 0 || !record_u64_opt(rec, col, &x))
		return 1;	/* no selection, or not about a thread */
	for (i = 0; i < n; i++)
		if (v[i] == x)
			return 1;
	return 0;
}

static int
selected(struct select *sel, const struct record *rec)
{
	uint64_t tid;
	size_t i;

	if (rec->comment)
		return 1;
	wall_learn(rec);
	if (sel->nkinds) {
		for (i = 0; i < sel->nkinds; i++)
			if (strcmp(sel->kinds[i], rec->f[COL_KIND]) == 0)
				break;
		if (i == sel->nkinds)
			return 0;
	}
	if (!in_list(rec, COL_PID, sel->pids, sel->npids) ||
	    !in_list(rec, COL_TID, sel->tids, sel->ntids))
		return 0;
	if (sel->related != NULL && !relate_keep(rec, sel->related, TID_LIMIT))
		return 0;
	if (sel->ncomms) {
		learn_name(sel, rec);
		if (record_u64_opt(rec, COL_TID, &tid) && (tid >= TID_LIMIT ||
		    !(sel->named[tid / 8] & 1 << tid % 8)))
			return 0;
	}
	if (rec->time == NO_TIME)
		return 1;
	if (sel->first == NO_TIME)
		sel->first = rec->time;
	/*
	 * A capture's facts hold for all of it, whatever the window: its
	 * CPUs, its wall-clock anchor (which a clock time in the window
	 * needs, and which follows the capture's first meta records).
	 */
	if ((sel->since.set || sel->until.set) &&
	    strcmp(rec->f[COL_KIND], KIND_META) == 0)
		return 1;
	if (sel->since.set && rec->time < when_resolve(&sel->since, sel->first)) {
		if (strcmp(rec->f[COL_KIND], KIND_TASK) == 0)
			early_keep(rec);
		return 0;
	}
	if (sel->until.set && rec->time > when_resolve(&sel->until, sel->first))
		return 0;
	return 1;
}

/*
 * --header: the table's column names, the kind's own after the four every
 * record has; a repeated last one (ARG...) as many times as the widest
 * selected record needs, which takes a first reading of the files.
 */
static char **
header(struct select *sel, char **paths, int npaths, size_t *width)
{
	const char *cols;
	char **h, *list, *name, *dots;
	const struct record *rec;
	struct source *src;
	size_t n = 0, i, rep;

	if (sel->nkinds != 1 || (cols = kind_columns(sel->kinds[0])) == NULL)
		diex(EX_USAGE, "--header: one -k KIND of those argus-stream(5) "
		    "documents");
	h = xcalloc(4, sizeof(*h));
	h[n++] = "KIND", h[n++] = "TIME", h[n++] = "PID", h[n++] = "TID";
	list = xstrdup(cols);
	for (name = strtok(list, ","); name != NULL; name = strtok(NULL, ",")) {
		h = xrealloc(h, (n + 1) * sizeof(*h));
		h[n++] = name;
	}
	*width = n;
	if ((dots = strstr(h[n - 1], "...")) == NULL)
		return h;
	*dots = '\0';
	for (i = 0; i < (size_t)npaths && strcmp(paths[i], "-") != 0; i++)
		;
	if (npaths == 0 || i < (size_t)npaths)
		diex(EX_USAGE, "--header: a kind with repeated columns (%s...) "
		    "is read twice: name its FILEs", h[n - 1]);
	src = source_open(paths, npaths);
	while ((rec = source_next(src)) != NULL)
		if (selected(sel, rec) && !rec->comment && rec->nf > *width)
			*width = rec->nf;
	source_close(src);
	/* Selecting again from the start: what the first reading learnt goes. */
	sel->first = NO_TIME;
	if (sel->named != NULL)
		memset(sel->named, 0, TID_LIMIT / 8);
	h = xrealloc(h, *width * sizeof(*h));
	name = h[n - 1];
	for (rep = 1, i = n - 1; i < *width; i++, rep++) {
		h[i] = xmalloc(strlen(name) + 24);
		sprintf(h[i], "%s%zu", name, rep);
	}
	return h;
}

/*
 * A row of the table: the record's fields (TIME as given, a kernel
 * function in column fcol by name), then empty ones to the width.
 */
static void
write_row(struct writer *out, const struct record *rec, size_t width,
    const char *time, size_t fcol)
{
	size_t i;

	if (rec->nf > width)
		diex(EX_DATAERR, "%s:%lu: %zu columns, more than the %zu "
		    "argus-stream(5) names for kind %s", rec->file, rec->line,
		    rec->nf, width, rec->f[0]);
	writer_begin(out, rec->f[0]);
	for (i = 1; i < width; i++)
		if (i == COL_TIME && time != NULL)
			writer_str(out, time);
		else if (i == fcol && fcol > 0)
			writer_str(out, ksym_name(rec->f[i]));
		else if (i < rec->nf)
			writer_str(out, rec->f[i]);
		else
			writer_empty(out);
	writer_end(out);
}

/*
 * A selected record: as read, its time as a clock time, its kernel
 * function by name, or a table row.
 */
static void
put(struct writer *out, const struct record *rec, size_t width, int wall,
    int names)
{
	char stamp[48];
	const char *time = NULL;
	size_t fcol = names && !rec->comment ? event_func_column(rec) : 0;

	if (width > 0 && rec->comment)
		return;
	/* The capture's first facts come before its anchor: left as they are. */
	if (wall && rec->time != NO_TIME && !(!wall_set && !rec->comment &&
	    strcmp(rec->f[COL_KIND], KIND_META) == 0)) {
		if (!wall_set)
			diex(EX_DATAERR, "%s:%lu: --wall: no wall-clock anchor "
			    "(meta wallclock) before this record", rec->file,
			    rec->line);
		wall_format(stamp, sizeof(stamp), rec->time);
		time = stamp;
	}
	if (width > 0 || (time != NULL && fcol > 0))
		write_row(out, rec, width > 0 ? width : rec->nf, time, fcol);
	else if (time != NULL)
		writer_splice(out, rec, COL_TIME, time);
	else if (fcol > 0)
		writer_splice(out, rec, fcol, ksym_name(rec->f[fcol]));
	else
		writer_record(out, rec);
}

/* The task record kept for thread tid, at rec's time; once. */
static void
introduce_tid(struct writer *out, const struct record *rec, uint64_t tid,
    size_t width, int wall)
{
	struct record r;
	struct early *e;
	char stamp[48];

	HASH_FIND(hh, early, &tid, sizeof(tid), e);
	if (e == NULL)
		return;
	if (strcmp(rec->f[COL_KIND], KIND_TASK) != 0 && rec->time != NO_TIME) {
		memset(&r, 0, sizeof(r));
		r.f = e->f;
		r.nf = e->nf;
		r.time = rec->time;
		r.file = rec->file;
		r.line = rec->line;
		if (wall && wall_set)
			wall_format(stamp, sizeof(stamp), rec->time);
		else
			snprintf(stamp, sizeof(stamp), "%" PRIu64, rec->time);
		write_row(out, &r, width > 0 ? width : e->nf, stamp, 0);
	}
	early_free(e);
}

/* Before rec: its thread's and the other thread's it names, if kept. */
static void
introduce(struct writer *out, const struct record *rec, size_t width,
    int wall)
{
	struct event ev;
	uint64_t tid;

	if (rec->comment || !record_u64_opt(rec, COL_TID, &tid))
		return;
	introduce_tid(out, rec, tid, width, wall);
	if (strcmp(rec->f[COL_KIND], KIND_EVENT) == 0 && event_parse(rec, &ev) &&
	    event_other_tid(&ev) != 0)
		introduce_tid(out, rec, event_other_tid(&ev), width, wall);
}

/* -k names kinds argus-stream(5) has: a typo would select nothing. */
static void
check_kinds(const struct select *sel)
{
	size_t i;

	for (i = 0; i < sel->nkinds; i++)
		if (kind_columns(sel->kinds[i]) == NULL)
			diex(EX_USAGE, "--kind: '%s' is not a record kind "
			    "(argus-stream(5): meta, task, event, vertex, link, "
			    "spin, root, wait, ...)", sel->kinds[i]);
}

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
	const struct record *rec;
	struct source *src;
	struct writer *out;
	uint64_t nrec = 0, last = NO_TIME, from;
	char **head;
	size_t width = 0;
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
	if (table)
		head = header(&sel, argv + optind, argc - optind, &width);
	/* The inputs first: one that cannot be read leaves no output behind. */
	src = source_open(argv + optind, argc - optind);
	if (table) {
		out = writer_open_table(com.out, com.z);
		writer_fields(out, head, width);
	} else
		out = writer_open(com.out, com.z);
	while ((rec = source_next(src)) != NULL) {
		/* A name is learnt whether or not its record is selected. */
		if (names && !rec->comment)
			ksym_learn(rec);
		if (selected(&sel, rec)) {
			if (early != NULL)
				introduce(out, rec, width, wall);
			put(out, rec, width, wall, names);
		}
		if (rec->time != NO_TIME)
			last = rec->time;
		if (show && (++nrec & (PROGRESS_EVERY - 1)) == 0)
			progress("reading", nrec, last,
			    sel.since.set && !sel.since.relative ? sel.since.ns :
			    sel.first);
	}
	writer_close(out);
	if (show && !interrupted) {
		from = sel.since.set && !sel.since.relative ? sel.since.ns :
		    sel.first;
		progress_end("read", nrec, last, from);
	}
	source_close(src);
	return exit_status(1);
}
