/*
 * When the user saw the hang: --at TIME (CLOCK_MONOTONIC ns, or
 * +DURATION from the first record, as argus-cat's --since), --at mark
 * (the last `argus mark' annotation in the trace: a marker event whose
 * text starts with "argus-mark"), --at now (the end of the input); by
 * default the last mark, else none: then every long episode is a hang.
 */
#include <string.h>

#include "spin.h"

#define MARK	"argus-mark"

void
moment_parse(struct moment *m, const char *arg)
{
	if (strcmp(arg, "now") == 0)
		m->ask = AT_NOW;
	else if (strcmp(arg, "mark") == 0)
		m->ask = AT_MARK;
	else {
		m->ask = AT_TIME;
		when_parse(&m->at, "--at", arg);
	}
}

void
moment_see(struct moment *m, const struct record *rec, const struct event *ev)
{
	if (rec->time != NO_TIME && m->first == NO_TIME)
		m->first = rec->time;
	if (ev != NULL && ev->type == E_MARKER &&
	    strncmp(event_str(ev, ECOL(E_MARKER, TEXT)), MARK,
	    strlen(MARK)) == 0)
		m->mark = ev->time;
}

uint64_t
moment_when(const struct moment *m)
{
	return m->ask == AT_TIME ? when_resolve(&m->at, m->first) : m->mark;
}
