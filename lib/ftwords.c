/*
 * The words of lib/ftrace.def's FTRACE_WORD lines, looked up.  The table
 * is small (a few dozen words): a scan is as fast as anything else.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ftwords.h"

const struct ftword ftwords[] = {
#define FTRACE_WORD(conv, value, text, record)	{ #conv, value, text, record },
#include "ftrace.def"
#undef FTRACE_WORD
};

const size_t nftwords = sizeof(ftwords) / sizeof(ftwords[0]);

static int
word_is(const char *w, const char *s, size_t n)
{
	return w != NULL && strlen(w) == n && memcmp(w, s, n) == 0;
}

uint64_t
ftword_flags(const char *conv, const char *s, size_t n)
{
	const char *end = s + n, *bar;
	char hex[32], *e;
	uint64_t v = 0, u;
	size_t i;

	for (; s < end; s = bar + 1) {
		if ((bar = memchr(s, '|', end - s)) == NULL)
			bar = end;
		if (ftword_value(conv, s, bar - s, &u))
			v |= u;
		else if (bar - s > 2 && bar - s < (ptrdiff_t)sizeof(hex) &&
		    s[0] == '0' && s[1] == 'x') {
			/* Bits it has no name for, as __print_flags prints them. */
			for (i = 0; i < (size_t)(bar - s); i++)
				hex[i] = s[i];
			hex[i] = '\0';
			u = strtoull(hex, &e, 16);
			v |= u;
		}
	}
	return v;
}

int
ftword_value(const char *conv, const char *s, size_t n, uint64_t *v)
{
	size_t i;

	for (i = 0; i < nftwords; i++)
		if (strcmp(ftwords[i].conv, conv) == 0 &&
		    word_is(ftwords[i].text, s, n)) {
			*v = ftwords[i].value;
			return 1;
		}
	return 0;
}

const struct ftword *
ftword_of(const char *conv, uint64_t v)
{
	size_t i;

	for (i = 0; i < nftwords; i++)
		if (strcmp(ftwords[i].conv, conv) == 0 && ftwords[i].value == v)
			return &ftwords[i];
	return NULL;
}

const struct ftword *
ftword_by_record(const char *conv, const char *record)
{
	size_t i;

	for (i = 0; i < nftwords; i++)
		if (strcmp(ftwords[i].conv, conv) == 0 &&
		    ftwords[i].record != NULL &&
		    strcmp(ftwords[i].record, record) == 0)
			return &ftwords[i];
	return NULL;
}

const char *
ftword_record_flags(const char *conv, uint64_t v, char *buf, size_t size)
{
	size_t n = 0, i;

	buf[0] = '\0';
	for (i = 0; i < nftwords; i++)
		if (strcmp(ftwords[i].conv, conv) == 0 &&
		    ftwords[i].record != NULL && (v & ftwords[i].value) &&
		    n + strlen(ftwords[i].record) + 2 < size)
			n += snprintf(buf + n, size - n, "%s%s", n ? "|" : "",
			    ftwords[i].record);
	return buf;
}
