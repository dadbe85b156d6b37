/*
 * How far a long stage has come (-P, --progress), for a person waiting on
 * a minute of a busy machine.  Three ways to say it:
 *
 * - Under the porcelain: `argus debug' gives every stage one end of a
 *   datagram socket (PROGRESS_ENV names it) and draws a single line for
 *   them all.  A stage sends its counts there, never blocking: when the
 *   socket is full a report is dropped, the next one says more.
 * - By hand, on a terminal: a stage redraws its own line, but only while
 *   it holds a lock on a byte of the terminal.  In `argus-cat -P ... |
 *   argus-segment -P' the stages share one terminal and one line: the
 *   first to take the lock draws until it is done, then another takes
 *   over.  The counts of stages in a pipe stay within a pipe's buffer of
 *   one another, so any one of them tells how far the whole has come.
 * - Into a file or a pipe, a plain line every 5 s: no \r, no escapes.
 */
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util.h"

extern const char *__progname;

/* A byte past any file a terminal could be: no one else locks it. */
#define TTY_LOCK_AT	0x41524755	/* "ARGU" */

static enum { P_OFF, P_CHANNEL, P_TTY, P_LOG } mode;
static int	 chan = -1;
static int	 held;		/* the terminal's lock: ours to draw */
static int	 drawn;		/* our line is on the terminal */
static uint64_t	 next;

static void	 progress_clear(void);

int
progress_start(int asked)
{
	const char *s = getenv(PROGRESS_ENV);
	struct stat st;
	char *end;
	long fd;

	if (s != NULL) {
		fd = strtol(s, &end, 10);
		if (end != s && *end == '\0' && fd > STDERR_FILENO &&
		    fd < INT_MAX && fstat(fd, &st) == 0 && S_ISSOCK(st.st_mode))
			chan = fd;
		/* Ours alone: not for whatever we might run. */
		unsetenv(PROGRESS_ENV);
		if (chan != -1) {
			fcntl(chan, F_SETFD, FD_CLOEXEC);
			return mode = P_CHANNEL;
		}
	}
	if (!asked)
		return mode = P_OFF;
	if (!isatty(STDERR_FILENO))
		return mode = P_LOG;
	/* The records scrolling by say it, and would tear the line. */
	if (isatty(STDOUT_FILENO))
		return mode = P_OFF;
	/*
	 * However we end, by die() or a signal: no half line left behind;
	 * and none under a message.
	 */
	atexit(progress_clear);
	hook_add(HOOK_STDERR, progress_clear);
	return mode = P_TTY;
}

void
tty_line(const char *text, int final)
{
	struct winsize ws;
	char buf[512];
	int width = sizeof(buf) - 16, n;

	if (text == NULL) {
		n = snprintf(buf, sizeof(buf), "\r\033[K");
	} else {
		/* A line longer than the terminal wraps, and \r redraws
		 * only its last row. */
		if (ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 &&
		    ws.ws_col > 1 && ws.ws_col - 1 < width)
			width = ws.ws_col - 1;
		n = snprintf(buf, sizeof(buf), "\r%.*s\033[K%s", width, text,
		    final ? "\n" : "");
	}
	/*
	 * One write: another process's write cannot cut into it.  A line
	 * that could not be drawn has nowhere to say so.
	 */
	if (n > 0 && write(STDERR_FILENO, buf, (size_t)n) == -1)
		return;
}

static int
tty_lock(int how)
{
	struct flock fl;

	memset(&fl, 0, sizeof(fl));
	fl.l_type = how;
	fl.l_whence = SEEK_SET;
	fl.l_start = TTY_LOCK_AT;
	fl.l_len = 1;
	/* Taken by another stage; any other failure: nothing to share. */
	if (fcntl(STDERR_FILENO, F_SETLK, &fl) == -1 &&
	    (errno == EAGAIN || errno == EACCES))
		return 0;
	return 1;
}

/* Before any other word on stderr. */
static void
progress_clear(void)
{
	if (drawn)
		tty_line(NULL, 0);
	drawn = 0;
}

static void
say(const char *words, uint64_t nrec, uint64_t t, uint64_t from, int done)
{
	char line[256];
	int n;

	if (mode == P_CHANNEL) {
		n = snprintf(line, sizeof(line), PROGRESS_FORMAT,
		    __progname, (unsigned long long)nrec,
		    (unsigned long long)t);
		(void)send(chan, line, (size_t)n, MSG_DONTWAIT | MSG_NOSIGNAL);
		return;
	}
	line[0] = '\0';
	if (words != NULL)
		snprintf(line, sizeof(line), "%s: %s %llu records, up to "
		    "+%.1f s", __progname, words, (unsigned long long)nrec,
		    t != NO_TIME && from != NO_TIME && t > from ?
		    (t - from) / 1e9 : 0.0);
	if (mode == P_LOG) {
		if (words != NULL)
			fprintf(stderr, "%s\n", line);
		return;
	}
	if (!done) {
		if (!held && !(held = tty_lock(F_WRLCK)))
			return;
		tty_line(line, 0);
		drawn = 1;
		return;
	}
	/*
	 * The last line is drawn whoever holds the lock: in one write, it
	 * takes the place of the line another stage draws, which comes back
	 * under it at its next turn.
	 */
	if (words != NULL)
		tty_line(line, 1);
	else if (drawn)
		tty_line(NULL, 0);
	drawn = 0;
	if (held)
		tty_lock(F_UNLCK);
	held = 0;
}

void
progress(const char *doing, uint64_t nrec, uint64_t t, uint64_t from)
{
	uint64_t now;

	if (mode == P_OFF || (now = now_ns()) < next)
		return;
	next = now + (mode == P_CHANNEL ? 250 : mode == P_TTY ? 500 : 5000) *
	    1000000ULL;
	say(doing, nrec, t, from, 0);
}

void
progress_end(const char *done, uint64_t nrec, uint64_t t, uint64_t from)
{
	if (mode != P_OFF)
		say(done, nrec, t, from, 1);
	mode = P_OFF;
}
