/*
 * What every Argus program shares besides the stream: exits that scripts can
 * test, errors that leave finished output behind, the common options.
 */
#ifndef ARGUS_UTIL_H
#define ARGUS_UTIL_H

#include <endian.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <sysexits.h>

#include "stream.h"

#ifndef ARGUS_VERSION
#define ARGUS_VERSION	"0.1.0"
#endif

#define ARRAY_LEN(a)	(sizeof(a) / sizeof((a)[0]))

/*
 * 2^64 over the golden ratio: a word times it has its bits mixed into
 * its top ones, which a memo or table of 2^k slots takes as its slot
 * (Fibonacci hashing).  One constant for every such table.
 */
#define GOLDEN64	0x9e3779b97f4a7c15ULL

/*
 * Print "prog: message" and exit with code, after finishing every open
 * writer so that records already written survive (a gzip member is closed,
 * a half record is dropped).  die() appends strerror(errno) like err(3).
 */
void	 die(int code, const char *fmt, ...)
	    __attribute__((noreturn, format(printf, 2, 3)));
void	 diex(int code, const char *fmt, ...)
	    __attribute__((noreturn, format(printf, 2, 3)));
void	 warnx_(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/*
 * When set, die() calls it, after its message, instead of finishing the
 * writers and exiting: a fuzz target's way back to its next input
 * (test/fuzz/).  It must not return.
 */
extern void (*die_hook)(int code);
/*
 * When set, die() hands it its errno (0 for diex) and message ("prog:
 * ...", no newline) before
 * anything else: a daemon says why it stopped where its stderr, on a
 * full disk, cannot (argus-capture --ring: syslog, argus start).
 */
extern void (*die_say)(int eno, const char *msg);

void	*xmalloc(size_t);
void	*xcalloc(size_t, size_t);
void	*xrealloc(void *, size_t);
char	*xstrdup(const char *);

/*
 * uthash tables (the caller includes <uthash.h> or idhash.h).  HASH_GET:
 * the element of table head whose member field equals *keyp into el, a
 * zeroed one added if none; 1 if it was added, for the caller to fill.
 * HASH_FREE: empties the table, freeing each element (not what it points
 * to: free that first).  HASH_FREE_OWN(hh, head, el, el->a, el->b ...):
 * the same, freeing first what each element, named el, owns.
 */
#define HASH_GET(hh, head, field, keyp, el) __extension__ ({		\
	int added_ = 0;							\
	_Static_assert(sizeof(*(keyp)) == sizeof((el)->field),		\
	    "HASH_GET: the key is the size of the field");		\
	HASH_FIND(hh, head, keyp, sizeof((el)->field), el);		\
	if ((el) == NULL) {						\
		(el) = xcalloc(1, sizeof(*(el)));			\
		(el)->field = *(keyp);					\
		HASH_ADD(hh, head, field, sizeof((el)->field), el);	\
		added_ = 1;						\
	}								\
	added_;								\
})
#define HASH_FREE(hh, head) do {					\
	__typeof__(head) el_, tmp_;					\
									\
	HASH_ITER(hh, head, el_, tmp_) {				\
		HASH_DEL(head, el_);					\
		free(el_);						\
	}								\
} while (0)
#define HASH_FREE_OWN(hh, head, el, ...) do {				\
	__typeof__(head) el, tmp_;					\
									\
	HASH_ITER(hh, head, el, tmp_) {					\
		void *own_[] = { __VA_ARGS__ };				\
									\
		HASH_DEL(head, el);					\
		for (size_t k_ = 0; k_ < sizeof(own_) / sizeof(*own_); k_++) \
			free(own_[k_]);					\
		free(el);						\
	}								\
} while (0)

/*
 * A binary search: the first i in [0, n) for which below, an expression
 * in i, is false, n if none is, where below holds of a first stretch of
 * [0, n) and of nothing after it (the first element not less than a key).
 */
#define PARTITION_POINT(n, i, below) __extension__ ({			\
	size_t lo_ = 0, hi_ = (n), i;					\
	while (lo_ < hi_) {						\
		i = lo_ + (hi_ - lo_) / 2;				\
		if (below)						\
			lo_ = i + 1;					\
		else							\
			hi_ = i;					\
	}								\
	lo_;								\
})

/*
 * s into a buffer of size bytes, cut to fit, always ended: snprintf's
 * "%s" without its format's walk, for a name kept per thread and event
 * (argus-segment's wait states were a twentieth of its time in it).
 */
static inline void
str_fit(char *d, const char *s, size_t size)
{
	size_t n = strnlen(s, size - 1);

	memcpy(d, s, n);
	d[n] = '\0';
}

/*
 * What the ways out do, registered by the part of lib that has something
 * to do then (as with atexit(3)), so that this file names none of them:
 *   HOOK_STDERR  before any word on stderr: a status line is erased
 *                (lib/progress.c);
 *   HOOK_FINISH  after die()'s message, or at a signal's stop: every open
 *                writer closed, what was written kept (lib/writer.c);
 *   HOOK_REFUSE  a refusal before any output: every open writer discarded.
 * Hooks run in the order they were added; one added twice runs once.
 */
enum hook { HOOK_STDERR, HOOK_FINISH, HOOK_REFUSE, NHOOKS };
void	 hook_add(enum hook, void (*)(void));
void	 hooks_run(enum hook);

/*
 * SIGINT, SIGTERM and SIGHUP set `interrupted' instead of killing: blocking
 * reads return early and programs wind down at a record boundary.  SIGPIPE
 * keeps its default: when the reader of our output is gone, so is the point.
 */
extern volatile sig_atomic_t interrupted;
void	 catch_signals(void);
int	 exit_status(int ok);		/* 128+signal if interrupted */
/*
 * Where a stage would draw conclusions from its whole input: if a signal
 * cut it short, draw none (no records, no message), finish the output and
 * exit 128+signal.
 */
void	 stop_if_interrupted(void);

/* Options every program takes. */
struct common {
	const char	*out;		/* -o FILE */
	enum zmode	 z;		/* -z, -Z */
};

/*
 * Handles -o, -z, -Z, -h and -V (--version); returns 0 for any other
 * option so the caller can handle it.  usage is the whole --help text.
 */
int	 common_option(struct common *, int ch, const char *arg,
	    const char *usage);
void	 usage_error(const char *usage) __attribute__((noreturn));

/*
 * --help's line for -V (common_option prints the version and the record
 * stream's): pad, the blanks that bring its words to the column of the
 * program's other options.
 */
#define USAGE_VERSION(pad)	"  -V, --version" pad "version"
#define USAGE_VERSION_LINE(pad)	USAGE_VERSION(pad) " and record stream version\n"
/* The lines of common's options, -o to -V, for a text in column 24. */
#define USAGE_COMMON \
"  -o, --output FILE     write to FILE (mode 0600) instead of stdout\n" \
"  -z, --compress        gzip the output even into a pipe or terminal\n" \
"  -Z, --no-compress     plain output even into a regular file\n" \
"  -h, --help            this text\n" \
USAGE_VERSION_LINE("         ")
#define COMMON_SHORT	"o:zZhV"
#define COMMON_LONG \
	{ "output",	 required_argument, NULL, 'o' }, \
	{ "compress",	 no_argument,	    NULL, 'z' }, \
	{ "no-compress", no_argument,	    NULL, 'Z' }, \
	{ "help",	 no_argument,	    NULL, 'h' }, \
	{ "version",	 no_argument,	    NULL, 'V' }

/*
 * How far a long stage has come, on stderr (lib/progress.c): asked by
 * -P/--progress, or by the porcelain through the socket PROGRESS_ENV
 * names.  progress_start() says whether to call the rest; progress()
 * every PROGRESS_EVERY records with the records so far and the time
 * reached since FROM; progress_end() once, with the words of a last line,
 * or NULL where the stage's own summary follows.
 */
#define PROGRESS_EVERY	0x10000
#define PROGRESS_ENV	"ARGUS_STATUS_FD"
/* A report on the socket, one datagram: PROG RECORDS TIME. */
#define PROGRESS_FORMAT	"%s %llu %llu\n"
int	 progress_start(int asked);
void	 progress(const char *doing, uint64_t nrec, uint64_t t,
	    uint64_t from);
void	 progress_end(const char *done, uint64_t nrec, uint64_t t,
	    uint64_t from);
/*
 * The last line of the terminal on stderr, redrawn in place and cut to
 * its width; final ends it with a newline; NULL erases it.
 */
void	 tty_line(const char *text, int final);

/* CLOCK_MONOTONIC in ns: the clock of every TIME in a stream. */
uint64_t now_ns(void);

/* Numbers from the command line: a usage error, not a crash, when bad. */
uint64_t parse_u64(const char *opt, const char *s);
uint64_t parse_duration_ns(const char *opt, const char *s);	/* 1.5s 20ms 300us 7ns; bare = s */
/*
 * Sizes: a number as strtod reads it, then K, M, G or T (powers of 1024,
 * either case).  parse_size: then an optional B, and nothing else, or a
 * usage error naming opt; size_bytes: what is there, 0 for none;
 * size_value: digits and '.', one letter and an optional "B", or 0.
 */
uint64_t parse_size(const char *opt, const char *s);
uint64_t size_bytes(const char *s);
uint64_t size_value(const char *s);

/*
 * A moment on the command line (argus-cat --since, argus-spin --at): ns of
 * CLOCK_MONOTONIC, +DURATION from the first record of the input, or a
 * clock time (HH:MM[:SS[.frac]], today, or YYYY-MM-DD[T ]HH:MM[:SS[.frac]],
 * local time), which needs the stream's wall-clock anchor (wall_learn()).
 */
struct when {
	int		 set, relative, wall;
	uint64_t	 ns;		/* wall: since the epoch */
	const char	*opt;
};
void	 when_parse(struct when *, const char *opt, const char *arg);
uint64_t when_resolve(const struct when *, uint64_t first);	/* first may be NO_TIME */

/*
 * The anchor: CLOCK_REALTIME less CLOCK_MONOTONIC when the stream was
 * captured (its meta wallclock record, lib/graph.c); wall_set is 0 until
 * a stream has said it.
 */
extern int64_t	 wall_offset;
extern int	 wall_set;
/* A stream time as local clock time, "2026-11-25T13:28:19.123456789". */
void	 wall_format(char *buf, size_t size, uint64_t mono_ns);

/*
 * --no-NAME switches, one for each heuristic of a table: the options (each
 * sets *off itself, so no option value has to match an index) and their
 * lines of --help.  Both are allocated once, at start.
 */
struct option;
struct toggle {
	const char	*name, *help;
	int		*off;
};
struct option	*toggle_options(const struct toggle *, size_t n,
		    const struct option *more);	/* more ends with a NULL name */
char		*toggle_usage(const char *head, const struct toggle *, size_t n,
		    const char *tail);

/*
 * The row of a table whose first member is a name, by a hash built on
 * first use: for names looked up once a record (event types, link rules).
 * At most NAMEIDX_ROWS rows; an empty name is never found.
 */
#define NAMEIDX_ROWS	255
#define NAMEIDX_MEMO	64	/* a power of 2 */
struct nameidx {
	const void	*table;
	size_t		 nrows, stride;
	uint8_t		 slot[2 * (NAMEIDX_ROWS + 1)];	/* row + 1; 0 empty */
	int		 ready;
	uint16_t	 len[NAMEIDX_ROWS];	/* each row's name's */
	struct nameidx_memo {		/* nameidx_find_padded()'s */
		uint64_t	 head, tail;
		uint8_t		 len;	/* 0: empty */
		int16_t		 row;
	}		 memo[NAMEIDX_MEMO];
};
#define NAMEIDX(table, n)	{ (table), (n), sizeof((table)[0]), { 0 }, 0, \
				  { 0 }, { { 0, 0, 0, 0 } } }
int	 nameidx_find(struct nameidx *, const char *name);	/* -1: none */
/* The same, for a name whose length is known (record_len()). */
int	 nameidx_find_n(struct nameidx *, const char *name, size_t len);
/*
 * The same again, for a name with 8 bytes readable from each of its
 * bytes (a field of the reader's own: lib/reader.c): the answers for the
 * names of up to 16 bytes are kept by the name's bytes, read as two
 * words, and a name met again (an event's type, its call, at every event)
 * is two compares, not a hash of it and a memcmp() call.
 */
int	 nameidx_memo_miss(struct nameidx *, struct nameidx_memo *,
	    const char *name, size_t len, uint64_t head, uint64_t tail);

/*
 * A padded name of 1 to 16 bytes as two words, its first eight bytes and
 * its last eight (every byte, once), and their hash in the top bits.
 */
static inline uint64_t
padded_words(const char *name, size_t len, uint64_t *head, uint64_t *tail)
{
	const uint64_t k = GOLDEN64;

	*tail = 0;
	memcpy(head, name, 8);
	*head = le64toh(*head);
	if (len < 8)
		*head &= ~0ULL >> (64 - 8 * len);
	else if (len > 8) {
		memcpy(tail, name + len - 8, 8);
		*tail = le64toh(*tail);
	}
	return (*head ^ *tail * k ^ len) * k;
}

static inline int
nameidx_find_padded(struct nameidx *x, const char *name, size_t len)
{
	struct nameidx_memo *m;
	uint64_t head, tail;

	if (len == 0 || len > 16)
		return nameidx_find_n(x, name, len);
	m = &x->memo[padded_words(name, len, &head, &tail) >> 58 &
	    (NAMEIDX_MEMO - 1)];
	if (m->len == len && m->head == head && m->tail == tail)
		return m->row;
	return nameidx_memo_miss(x, m, name, len, head, tail);
}

/*
 * A linker set, as in the BSD kernels: each file adds its entry where the
 * entry is defined, and the linker gathers them into one section, from
 * __start_SET to __stop_SET; there is no list to keep.  An entry points to
 * a structure whose first member is its name, and set_bind() puts them in
 * the order of a table of names (lib/graph.c): a row without an entry, or
 * an entry without a row, stops the program at start.
 */
#define SET_ENTRY(set, var)						\
	static void *const set##_##var __attribute__((used,		\
	    section(#set))) = &var
#define SET_BEGIN(set)	({ extern void *const __start_##set[]; __start_##set; })
#define SET_END(set)	({ extern void *const __stop_##set[]; __stop_##set; })
void	 set_bind(void *const *begin, void *const *end, const void *table,
	    size_t nrows, size_t stride, void **out, const char *what);

/* lib/charset.c: a right arrow the locale can show (show_utf8()). */
const char *charset_arrow(void);

#endif
