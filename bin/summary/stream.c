/*
 * argus-summary's reading: the window (-s, -u, found once the stream's
 * first records have said what it needs), the records other than events
 * (meta, task; lost for sched.c to count), and the events into the
 * state machine (sched.c).
 */
#include <string.h>

#include "summary.h"

/* The length of the first n words of s. */
static size_t
words(const char *s, int n)
{
	size_t len = 0;

	while (n-- > 0 && s[len] != '\0') {
		len += s[len] == ' ';
		len += strcspn(s + len, " ");
	}
	return len;
}

/* meta,TIME,,,KEY,VALUE: what the summary's header tells. */
static void
take_meta(const struct record *rec)
{
	const char *key = record_str(rec, META_KEY);
	const char *v = record_str(rec, META_VALUE);
	uint64_t n;

	wall_learn(rec);
	if (strcmp(key, "source") == 0)
		copy(meta.source, sizeof(meta.source), v);
	else if (strcmp(key, "hostname") == 0)
		copy(meta.host, sizeof(meta.host), v);
	else if (strcmp(key, "capture") == 0 || strcmp(key, "import") == 0 ||
	    strcmp(key, "recorder") == 0)
		copy(meta.program, sizeof(meta.program), v);
	else if (strcmp(key, "kernel") == 0)	/* its name and release */
		snprintf(meta.kernel, sizeof(meta.kernel), "%.*s",
		    (int)words(v, 2), v);
	else if (strcmp(key, "cpus") == 0) {
		if ((n = record_u64(rec, META_VALUE)) > meta.cpus)
			meta.cpus = n;
	} else if (strcmp(key, META_LOST) == 0) {
		meta.lost = record_u64(rec, META_VALUE);
		meta.has_lost = 1;
	}
}

static void
count_kind(const char *name)
{
	size_t i;

	for (i = 0; i < nkinds; i++)
		if (strcmp(kinds[i].name, name) == 0)
			break;
	if (i == nkinds) {
		if (nkinds == ARRAY_LEN(kinds))
			return;		/* a user's many kinds: the first few */
		copy(kinds[nkinds++].name, sizeof(kinds[0].name), name);
	}
	kinds[i].n++;
}

/*
 * The window, once the stream has said what it needs: the first time for
 * +DURATION, the wall-clock anchor for a clock time, which come with the
 * meta records at its start.  It opens at the first timed record, or at
 * -s.
 */
static void
open_window(void)
{
	uint64_t t;

	wfrom = first;
	if (since.set && (t = when_resolve(&since, first)) > first)
		wfrom = t;
	if (until.set)
		wto = when_resolve(&until, first);
	/* The meta records before: at the stream's start, as a rule. */
	if (wfrom == first && nkinds == 0 && npending > 0) {
		copy(kinds[0].name, sizeof(kinds[0].name), KIND_META);
		kinds[nkinds++].n = npending;
	}
}

/*
 * Records before the window say who runs, sleeps or waits, and are not
 * counted.  Past -u there is nothing more to count: 0.
 */
static int
take(const struct record *rec)
{
	struct event ev;
	int meta_rec;

	if (rec->comment)
		return 1;
	meta_rec = strcmp(rec->f[COL_KIND], KIND_META) == 0;
	if (rec->time != NO_TIME) {
		if (first == NO_TIME)
			first = rec->time;
		if (wfrom == NO_TIME && !meta_rec)
			open_window();
		if (rec->time > wto)
			return 0;
		if (rec->time >= wfrom || wfrom == NO_TIME)
			last = last == NO_TIME || rec->time > last ?
			    rec->time : last;
	}
	if (event_parse(rec, &ev)) {
		take_event(&ev);
		return 1;
	}
	if (wfrom == NO_TIME)
		npending++;
	else if (rec->time == NO_TIME || rec->time >= wfrom)
		count_kind(rec->f[COL_KIND]);
	if (meta_rec)
		take_meta(rec);
	else if (strcmp(rec->f[COL_KIND], KIND_LOST) == 0)
		take_lost(rec);
	else if (strcmp(rec->f[COL_KIND], KIND_TASK) == 0 &&
	    rec->time != NO_TIME && rec->nf > TASK_COMM)
		copy(thread(record_u64(rec, COL_TID), record_pid(rec, COL_PID))->
		    comm, NAME_LEN, rec->f[TASK_COMM]);
	return 1;
}

/*
 * The stream, FILES, through the window; the span of what was read, the
 * waits still open closed at its end.  SHOW: a progress line on stderr.
 */
uint64_t
summary_read(char **files, int nfiles, int show)
{
	const struct record *rec;
	struct source *src;
	uint64_t nrec = 0, seen = NO_TIME;

	src = source_open(files, nfiles);
	while ((rec = source_next(src)) != NULL) {
		if (!take(rec))
			break;
		if (rec->time != NO_TIME)
			seen = rec->time;
		if (show && (++nrec & (PROGRESS_EVERY - 1)) == 0)
			progress("reading", nrec, seen, first);
	}
	if (show && !interrupted)
		progress_end("read", nrec, seen, first);
	source_close(src);
	stop_if_interrupted();
	if (wfrom == NO_TIME && first != NO_TIME)
		open_window();		/* meta records alone */
	if (last != NO_TIME && last < wfrom)
		last = NO_TIME;
	if (last != NO_TIME)
		close_all(last);
	return last != NO_TIME && last > wfrom ? last - wfrom : 0;
}
