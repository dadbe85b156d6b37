/*
 * The probe-set grammar (probeset.h): one parser for the capture and the
 * patcher.  Compiled into libargus-patch.so too: nothing here allocates,
 * exits or touches a floating-point register.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probeset.h"

#define MAXWORDS	8	/* one past the most a line may have */

int
probeset_ident(const char *s)
{
	if (*s == '\0' || isdigit((unsigned char)*s))
		return 0;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && *s != '_')
			return 0;
	return 1;
}

int
probeset_symbol(struct probeline *pl, char *s)
{
	char *plus, *end;

	if (*s == '*') {
		pl->deref = 1;
		s++;
	}
	if ((plus = strchr(s, '+')) != NULL) {
		*plus++ = '\0';
		errno = 0;
		pl->off = strtoull(plus, &end, 0);
		if (*plus == '\0' || *end != '\0' || errno)
			return -1;
	}
	if (*s == '\0' || strpbrk(s, " \t:=%") != NULL)
		return -1;
	pl->sym = s;
	return 0;
}

static int
hexdigit(int c)
{
	return c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10;
}

/* skip=HEX: up to PROBESET_MAXSKIP bytes as hex digit pairs; 0 or -1. */
static int
parse_skip(struct probeline *pl, const char *hex)
{
	size_t n = strlen(hex), i;

	if (n == 0 || n % 2 || n / 2 > PROBESET_MAXSKIP || strspn(hex,
	    "0123456789abcdefABCDEF") != n)
		return -1;
	for (i = 0; i < n / 2; i++)
		pl->skip[i] = hexdigit(hex[2 * i]) << 4 |
		    hexdigit(hex[2 * i + 1]);
	pl->nskip = n / 2;
	return 0;
}

int
probeset_line(char *line, struct probeline *pl, char *err, size_t errsize)
{
	char *w[MAXWORDS], *save, *p;
	int nw = 0, i;

	if ((p = strchr(line, '#')) != NULL)
		*p = '\0';
	for (p = strtok_r(line, " \t\r\n", &save); p != NULL && nw < MAXWORDS;
	    p = strtok_r(NULL, " \t\r\n", &save))
		w[nw++] = p;
	if (nw == 0)
		return 0;
	memset(pl, 0, sizeof(*pl));
	pl->nargs = 1;
	if (nw < 3 || nw > MAXWORDS - 1 || probeset_symbol(pl, w[1]) == -1 ||
	    !probeset_ident(w[2]) || strlen(w[2]) > PROBESET_MAXEVENT) {
		snprintf(err, errsize, "expected LIBRARY SYMBOL[+OFFSET] "
		    "EVENT [return] [args=N] [skip=HEX]");
		return -1;
	}
	for (i = 3; i < nw; i++) {
		if (strcmp(w[i], "return") == 0)
			pl->ret = 1;
		else if (strncmp(w[i], "args=", 5) == 0 &&
		    w[i][5] >= '0' && w[i][5] <= '0' + PROBESET_MAXARGS &&
		    w[i][6] == '\0')
			pl->nargs = w[i][5] - '0';
		else if (strcmp(w[i], "run") == 0)
			pl->run = 1;
		else if (strncmp(w[i], "skip=", 5) == 0) {
			if (parse_skip(pl, w[i] + 5) == -1 || pl->off) {
				snprintf(err, errsize, "skip= takes 1 to %d "
				    "bytes in hex, and no +OFFSET",
				    PROBESET_MAXSKIP);
				return -1;
			}
		} else {
			snprintf(err, errsize, "unknown word '%s' (return, "
			    "args=0..%d, skip=HEX, run)", w[i],
			    PROBESET_MAXARGS);
			return -1;
		}
	}
	pl->lib = w[0];
	pl->event = w[2];
	return 1;
}

FILE *
probeset_find(const char *name, const char *base, const char *const *dirs,
    size_t ndirs, char *found, size_t size)
{
	const char *ext = strstr(name, ".probes") != NULL ? "" : ".probes";
	size_t i;
	FILE *f;

	for (i = 0; i < ndirs; i++) {
		if ((size_t)snprintf(found, size, "%s/%s/%s%s", base, dirs[i],
		    name, ext) < size && (f = fopen(found, "re")) != NULL)
			return f;
	}
	snprintf(found, size, "%s", name);
	errno = ENOENT;
	return NULL;
}
