/*
 * argus-cat's selections: the option values (-k, -p, -t, -c, -r) made
 * into one struct select, and whether a record passes it, the window
 * (-s, -u) included.  One place for what is kept, apart from how it is
 * written.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cat.h"
#include "graph.h"
#include "names.h"
#include "relate.h"
#include "show.h"

void
parse_list(const char *opt, char *arg, uint64_t **v, size_t *n)
{
	char *s;

	while ((s = strsep(&arg, ",")) != NULL) {
		*v = xrealloc(*v, (*n + 1) * sizeof(**v));
		(*v)[(*n)++] = parse_u64(opt, s);
	}
}

void
parse_names(char ***v, size_t *n, char *arg)
{
	char *s;

	while ((s = strsep(&arg, ",")) != NULL) {
		*v = xrealloc(*v, (*n + 1) * sizeof(char *));
		(*v)[(*n)++] = s;
	}
}

/* TID, or TID@SINCE[-UNTIL]: one life of an id that had many. */
void
related(struct select *sel, char *arg)
{
	uint64_t tid, since, until;
	char *s, *life, *end;

	if (sel->related == NULL)
		sel->related = relset_new(TID_LIMIT);
	while ((s = strsep(&arg, ",")) != NULL) {
		life = s;
		since = 0;
		until = UINT64_MAX;
		tid = parse_u64("--related", strsep(&life, "@"));
		if (life != NULL) {
			end = life;
			since = parse_u64("--related", strsep(&end, "-"));
			if (end != NULL)
				until = parse_u64("--related", end);
			if (until <= since)
				diex(EX_USAGE, "--related: %llu@%llu-%llu: a "
				    "life that ends before it begins",
				    (unsigned long long)tid,
				    (unsigned long long)since,
				    (unsigned long long)until);
		}
		if (tid >= TID_LIMIT)
			diex(EX_USAGE, "--related: %llu: not a thread id",
			    (unsigned long long)tid);
		relset_add(sel->related, tid, since, until);
	}
}

/*
 * --comm: a thread takes a name when it is introduced (its task record),
 * when it runs a new program (the kernel names it after the file, cut to
 * 15 bytes) and when it is renamed; from then on its records are kept.
 */
static void
learn_name(struct select *sel, const struct record *rec)
{
	char base[NAME_LEN];
	const char *name, *type;
	uint64_t tid;
	size_t i;

	/* Read as text: argus-cat passes on what it does not check. */
	type = strcmp(rec->f[COL_KIND], KIND_EVENT) == 0 && rec->nf > EC_TYPE ?
	    rec->f[EC_TYPE] : "";
	if (strcmp(rec->f[COL_KIND], KIND_TASK) == 0) {
		if (!record_u64_opt(rec, COL_TID, &tid))
			return;
		name = record_str(rec, TASK_COMM);
	} else if (strcmp(type, etype_name(E_COMM)) == 0) {
		if (!record_u64_opt(rec, EC_ARG + ECOL(E_COMM, TTID), &tid))
			return;
		name = record_str(rec, EC_ARG + ECOL(E_COMM, NEWCOMM));
	} else if (strcmp(type, etype_name(E_EXEC)) == 0) {
		if (!record_u64_opt(rec, COL_TID, &tid))
			return;
		names_exec(base, record_str(rec, EC_ARG + ECOL(E_EXEC, FILENAME)));
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

	if (n == 0)
		return 1;
	/*
	 * Not about a thread (a meta record) passes; a thread's whose
	 * process the capture never learnt (PID empty) is no process's.
	 */
	if (!record_u64_opt(rec, col, &x))
		return !record_u64_opt(rec, COL_TID, &x);
	for (i = 0; i < n; i++)
		if (v[i] == x)
			return 1;
	return 0;
}

int
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
	if (sel->related != NULL && !relate_keep(rec, sel->related))
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
 * -k names kinds: any word a kind can be, a user's own too (a filter's
 * notes); one argus-stream(5) does not document may be a typo, which
 * would select nothing, so it is said.
 */
void
check_kinds(const struct select *sel)
{
	size_t i;

	for (i = 0; i < sel->nkinds; i++)
		if (!kind_is_word(sel->kinds[i]))
			diex(EX_USAGE, "--kind: '%s' is not a record kind: "
			    "a lowercase word (argus-stream(5))",
			    show(sel->kinds[i]));
		else if (kind_columns(sel->kinds[i]) == NULL)
			warnx_("--kind: '%s' is no kind Argus writes (meta, "
			    "task, event, vertex, link, spin, root, wait, ...): "
			    "selecting a kind of your own", sel->kinds[i]);
}
