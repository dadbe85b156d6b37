/*
 * Names from a trace, shown to a human with every control byte and every
 * byte of invalid UTF-8 escaped (show.h).
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "show.h"
#include "util.h"

static int utf8 = -1;

int
show_utf8(int set)
{
	const char *v;

	if (set >= 0)
		utf8 = set;
	if (utf8 < 0) {
		/* setlocale(3)'s order, without changing the process's. */
		if ((v = getenv("LC_ALL")) == NULL || *v == '\0')
			if ((v = getenv("LC_CTYPE")) == NULL || *v == '\0')
				v = getenv("LANG");
		utf8 = v != NULL && (strcasestr(v, "utf-8") != NULL ||
		    strcasestr(v, "utf8") != NULL);
	}
	return utf8;
}

/*
 * The length of the valid, printable UTF-8 character at s (at most n
 * bytes), or 0: a lone or cut byte, an overlong form, a surrogate, beyond
 * U+10FFFF, or a C1 control.
 */
static size_t
utf8_char(const unsigned char *s, size_t n)
{
	unsigned c = s[0], cp, i, len;

	if (c < 0xc2 || c > 0xf4)
		return 0;
	len = c < 0xe0 ? 2 : c < 0xf0 ? 3 : 4;
	if (n < len)
		return 0;
	cp = c & (0x7f >> len);
	for (i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if ((len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) ||
	    cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff) || cp <= 0x9f)
		return 0;
	return len;
}

/* The escape of byte c, into e (5 bytes); its length. */
static size_t
escape(unsigned char c, char *e)
{
	static const char named[] = "\aa\bb\tt\nn\vv\ff\rr\033e\\\\";
	static const char hex[] = "0123456789abcdef";
	const char *p;

	if (c != '\0' && (p = memchr(named, c, sizeof(named) - 1)) != NULL &&
	    (p - named) % 2 == 0) {
		e[0] = '\\';
		e[1] = p[1];
		return 2;
	}
	e[0] = '\\';
	e[1] = 'x';
	e[2] = hex[c >> 4];
	e[3] = hex[c & 15];
	return 4;
}

/* How many bytes at s are shown as they are; 0 when s[0] is escaped. */
static size_t
plain(const unsigned char *s, size_t n)
{
	if (s[0] >= 0x20 && s[0] < 0x7f)
		return s[0] != '\\';
	if (s[0] < 0x80 || !show_utf8(-1))
		return 0;
	return utf8_char(s, n);
}

/* Whether s needs escaping at all: the fast path of show(). */
static int
show_needed(const char *s, size_t len)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i, k;

	for (i = 0; i < len; i += k)
		if ((k = plain(u + i, len - i)) == 0)
			return 1;
	return 0;
}

size_t
show_buf(char *buf, size_t size, const char *s, size_t len)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i, k, m, n = 0, w = 0;
	char e[5];

	for (i = 0; i < len; i += k, n += m) {
		if ((k = plain(u + i, len - i)) > 0)
			memcpy(e, u + i, m = k);
		else
			m = escape(u[i], e), k = 1;
		/* Never half an escape nor half a character. */
		if (w == n && n + m < size) {
			memcpy(buf + n, e, m);
			w += m;
		}
	}
	if (size > 0)
		buf[w] = '\0';
	return n;
}

const char *
show_mem(const char *s, size_t len)
{
	static struct {
		char	*p;
		size_t	 size;
	} ring[SHOW_RING];
	static int next;
	size_t need;
	int r;

	if (s == NULL)
		return "";
	r = next;
	next = (next + 1) % SHOW_RING;
	need = show_buf(NULL, 0, s, len) + 1;
	if (ring[r].size < need) {
		/* Grown once to the longest name yet: no allocation a call. */
		free(ring[r].p);
		ring[r].size = need < 64 ? 64 : need;
		ring[r].p = xmalloc(ring[r].size);
	}
	show_buf(ring[r].p, ring[r].size, s, len);
	return ring[r].p;
}

const char *
show(const char *s)
{
	size_t len;

	if (s == NULL)
		return "";
	len = strlen(s);
	return show_needed(s, len) ? show_mem(s, len) : s;
}

size_t
show_utf8_char(const char *s, size_t n)
{
	return n > 0 ? utf8_char((const unsigned char *)s, n) : 0;
}
