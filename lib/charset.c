/*
 * What the reader's terminal can show: a report's arrows are UTF-8 where
 * the locale (LC_ALL, LC_CTYPE, LANG) says UTF-8, ASCII elsewhere (LC_ALL=C
 * on a serial console, a cron mail).  Asked of a locale object, so that
 * the program's own locale stays "C" and parsing is unchanged.
 */
#include <langinfo.h>
#include <locale.h>
#include <string.h>
#include <strings.h>

#include "util.h"

int
charset_utf8(void)
{
	static int known = -1;
	locale_t loc;
	const char *cs;

	if (known != -1)
		return known;
	known = 0;
	if ((loc = newlocale(LC_CTYPE_MASK, "", (locale_t)0)) == (locale_t)0)
		return known;
	cs = nl_langinfo_l(CODESET, loc);
	known = cs != NULL && (strcasecmp(cs, "UTF-8") == 0 ||
	    strcasecmp(cs, "utf8") == 0);
	freelocale(loc);
	return known;
}

const char *
charset_arrow(void)
{
	return charset_utf8() ? "\u2192" : "->";
}
