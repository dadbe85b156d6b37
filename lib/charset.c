/*
 * What the reader's terminal can show: a report's arrows are UTF-8 where
 * the locale says UTF-8 (as show.c decides it), ASCII elsewhere (LC_ALL=C
 * on a serial console, a cron mail).
 */
#include "show.h"
#include "util.h"

const char *
charset_arrow(void)
{
	return show_utf8(-1) ? "\u2192" : "->";
}
