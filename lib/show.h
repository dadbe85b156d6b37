/*
 * One way to show a string from a trace (a comm, a file name, a thread
 * name, a path, a mark's text) to a human: on a terminal or in a text
 * report.  Any user names their own processes, and Argus runs as root and
 * prints those names to whoever reads its reports, so a name must never
 * reach a terminal as control bytes (an OSC 52 clipboard write, a clear
 * screen) nor split a line and forge the lines after it.
 *
 * What is escaped, visibly and reversibly (argus-stream(5), NAMES SHOWN):
 * backslash as \\; the C0 controls as \a \b \t \n \v \f \r \e or \xHH;
 * DEL as \x7f; every byte of invalid UTF-8 (a name the kernel cut in the
 * middle of a character) as \xHH; the C1 controls U+0080..U+009F as the
 * \xHH of their bytes.  Valid printable UTF-8 is kept as it is, when the
 * locale (LC_ALL, LC_CTYPE, LANG) says UTF-8; in any other locale every
 * byte above 0x7f is escaped, since an 8-bit terminal reads 0x80..0x9f as
 * controls.  The stream keeps the bytes as they were.
 */
#ifndef ARGUS_SHOW_H
#define ARGUS_SHOW_H

#include <stddef.h>
#include <stdio.h>

/* The longest a shown string can be: each byte becomes at most \xHH. */
#define SHOW_SIZE(len)	(4 * (len) + 1)

/*
 * s, shown.  s itself (no copy) when it needs no escaping, else one of
 * SHOW_RING buffers of this module, kept and reused: the result lives
 * until SHOW_RING more calls, enough for the arguments of one printf.
 * NULL shows as "".  Not for threads.
 */
#define SHOW_RING	8
const char	*show(const char *s);
/* The same for len bytes of s, which may hold NULs (shown as \x00). */
const char	*show_mem(const char *s, size_t len);

/*
 * Into a caller's buffer, as snprintf: writes at most size bytes with the
 * NUL, never cutting an escape, and returns the length the whole would
 * have.
 */
size_t		 show_buf(char *buf, size_t size, const char *s, size_t len);

/*
 * The locale's answer, taken once from the environment; show_utf8(0 or 1)
 * sets it (the tests), show_utf8(-1) asks.
 */
int		 show_utf8(int);

/*
 * The length of the valid UTF-8 character at s (at most n bytes) that is
 * no C1 control, whatever the locale; 0 if s[0] starts none (ASCII too).
 * For formats that are UTF-8 by definition (JSON, argus-export's text).
 */
size_t		 show_utf8_char(const char *s, size_t n);

#endif
