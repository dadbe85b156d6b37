/*
 * Several inputs merged into one time-ordered stream.  Each input is
 * assumed ordered already (every Argus program keeps its output so), so a
 * merge only ever compares the heads.  Inputs are few; a linear scan over
 * the heads beats a heap at that size.
 */
#include <stdlib.h>

#include "util.h"

struct head {
	struct reader	*r;
	struct record	 rec;
	uint64_t	 key;	/* its time, or the last time seen before it */
	int		 live;
};

struct source {
	struct head	*h;
	int		 n;
	int		 last;	/* the head returned last; -1 before the first */
};

static void
advance(struct head *h)
{
	h->live = reader_next(h->r, &h->rec);
	/* Untimed records and comments keep the place of their predecessor. */
	if (h->live && h->rec.time != NO_TIME)
		h->key = h->rec.time;
}

struct source *
source_open(char **paths, int npaths)
{
	static char *stdin_only[] = { "-" };
	struct source *s;
	int i;

	if (npaths == 0) {
		paths = stdin_only;
		npaths = 1;
	}
	s = xcalloc(1, sizeof(*s));
	s->h = xcalloc(npaths, sizeof(*s->h));
	s->n = npaths;
	s->last = -1;
	/* Open all first: a missing file should fail before any output. */
	for (i = 0; i < npaths; i++)
		s->h[i].r = reader_open(paths[i]);
	for (i = 0; i < npaths; i++)
		advance(&s->h[i]);
	return s;
}

const struct record *
source_next(struct source *s)
{
	int i, best;

	/* One input, as most stages read: nothing to compare. */
	if (s->n == 1) {
		if (s->last == 0)
			advance(&s->h[0]);
		s->last = s->h[0].live ? 0 : -1;
		return s->h[0].live ? &s->h[0].rec : NULL;
	}
	if (s->last >= 0)
		advance(&s->h[s->last]);
	best = -1;
	if (s->last >= 0 && s->h[s->last].live)
		best = s->last;		/* ties stay with the same input */
	for (i = 0; i < s->n; i++) {
		if (!s->h[i].live)
			continue;
		if (best < 0 || s->h[i].key < s->h[best].key)
			best = i;
	}
	s->last = best;
	return best < 0 ? NULL : &s->h[best].rec;
}

void
source_moving(struct source *s, void (*fn)(void *), void *arg)
{
	int i;

	for (i = 0; i < s->n; i++)
		reader_moving(s->h[i].r, fn, arg);
}

void
source_close(struct source *s)
{
	int i;

	if (s == NULL)
		return;
	for (i = 0; i < s->n; i++)
		reader_close(s->h[i].r);
	free(s->h);
	free(s);
}
