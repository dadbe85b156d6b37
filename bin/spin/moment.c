/*
 * When the user saw the hang: --at TIME (CLOCK_MONOTONIC ns, or
 * +DURATION from the first record, as argus-cat's --since), else the last
 * `argus mark' annotation in the trace (a marker event whose text starts
 * with "argus-mark"), else none: then every long episode is a hang.
 */
#include <string.h>

#include "spin.h"

#define MARK	"argus-mark"

void
moment_see(struct moment *m, const struct record *rec, const struct event *ev)
{
	if (rec->time != NO_TIME && m->first == NO_TIME)
		m->first = rec->time;
	if (ev != NULL && ev->type == E_MARKER &&
	    strncmp(event_str(ev, 0), MARK, strlen(MARK)) == 0)
		m->mark = ev->time;
}

uint64_t
moment_when(const struct moment *m)
{
	return m->at.set ? when_resolve(&m->at, m->first) : m->mark;
}
