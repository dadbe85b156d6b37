/*
 * The parsers and writers of lib/records.def's kinds, a column at a time
 * by its codec.  A graph's records are mostly vertex and thread ids, and
 * argus-slice reads millions of them: each codec is a few lines in line.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "digits.h"
#include "event.h"
#include "graph.h"
#include "ksym.h"
#include "show.h"
#include "util.h"
#include "waits.h"

/* fmt has one %s, the value, shown escaped. */
static void __attribute__((noreturn))
bad(const struct record *rec, const char *fmt, const char *val)
{
	char msg[1024];

	snprintf(msg, sizeof(msg), fmt, show(val));
	diex(EX_DATAERR, "%s:%lu: %s record: %s", rec->file, rec->line,
	    show(rec->f[COL_KIND]), msg);
}

/* record_u64(), a short number in line. */
static inline uint64_t
col_num(const struct record *rec, size_t col)
{
	uint64_t v;

	return record_small_u64(rec, col, &v) ? v : record_u64(rec, col);
}

/*
 * A column that may be empty: 0 then, as a thread or vertex unknown.
 * Not malformed: that is bad input, not "none".
 */
static inline uint64_t
col_opt0(const struct record *rec, size_t col)
{
	return *record_str(rec, col) == '\0' ? 0 : col_num(rec, col);
}

static inline uint64_t
col_opt(const struct record *rec, size_t col)
{
	uint64_t v;

	return record_u64_opt(rec, col, &v) ? v : NO_TIME;
}

/* record_pid(), a short one in line: every link has one. */
static inline uint32_t
col_pid(const struct record *rec, size_t col)
{
	uint64_t v;

	return record_small_u64(rec, col, &v) == 1 && v <= UINT32_MAX ? v :
	    record_pid(rec, col);
}

/*
 * Whether field col of the reader's, followed by another, is TIME's
 * bytes: a word at a time, each field having 8 bytes readable past its
 * end (the next one's, or the reader's 8 more after the last).
 */
static inline int
same_as_time(const struct record *rec, size_t col)
{
	const char *a, *b;
	size_t i, n;
	uint64_t x, y;

	if (!rec->padded || col + 1 >= rec->nf || rec->time == NO_TIME)
		return 0;
	a = rec->f[col];
	b = rec->f[COL_TIME];
	n = rec->f[col + 1] - a;	/* with its NUL */
	if (rec->f[COL_TIME + 1] - b != (ptrdiff_t)n)
		return 0;
	for (i = 0; i + 8 <= n; i += 8) {
		memcpy(&x, a + i, 8);
		memcpy(&y, b + i, 8);
		if (x != y)
			return 0;
	}
	if (i == n)
		return 1;
	memcpy(&x, a + i, 8);
	memcpy(&y, b + i, 8);
	return ((le64toh(x) ^ le64toh(y)) & (~0ULL >> (64 - 8 * (n - i)))) ==
	    0;
}

/*
 * Whether field col of the reader's is a time near TIME: as long, of
 * more than eight digits, its first ones TIME's but for the last eight,
 * which are digits.  Then it is TIME less TIME's last eight digits' value
 * and plus its own, a word each, rather than a long number read anew.
 */
static inline int
near_time(const struct record *rec, size_t col, uint64_t *v)
{
	const uint64_t low7 = 0x7f7f7f7f7f7f7f7fULL, ones = ~low7 / 0x80;
	const char *a, *b;
	uint64_t x, y;
	size_t n;

	if (!rec->padded || col + 1 >= rec->nf || rec->time == NO_TIME)
		return 0;
	a = rec->f[col];
	b = rec->f[COL_TIME];
	n = rec->f[col + 1] - a - 1;
	if (n <= 8 || n > 16 || rec->f[COL_TIME + 1] - b - 1 != (ptrdiff_t)n)
		return 0;
	memcpy(&x, a, 8);
	memcpy(&y, b, 8);
	if (((le64toh(x) ^ le64toh(y)) & (~0ULL >> (64 - 8 * (n - 8)))) != 0)
		return 0;
	memcpy(&x, a + n - 8, 8);
	x = le64toh(x) ^ ones * '0';
	if (((((x & low7) + ones * (0x80 - 10)) | x) & ~low7) != 0)
		return 0;
	memcpy(&y, b + n - 8, 8);
	y = le64toh(y) ^ ones * '0';
	*v = rec->time - word_digits(y) + word_digits(x);
	return 1;
}

/*
 * A column that repeats the record's TIME, which the reader has read:
 * the same bytes are the same number, without reading it again.  Most
 * of the others are near it.  0 if it is neither.  Always in line: it
 * is most of what its two callers do, at every vertex and link.
 */
static inline __attribute__((always_inline)) int
col_timelike(const struct record *rec, size_t col, uint64_t *v)
{
	if (same_as_time(rec, col)) {
		*v = rec->time;
		return 1;
	}
	return near_time(rec, col, v);
}

/* A link's FROM_TIME: most often its TIME. */
static inline uint64_t
col_time_or_now(const struct record *rec, size_t col)
{
	uint64_t v;

	if (col_timelike(rec, col, &v))
		return v;
	return record_u64_opt(rec, col, &v) ? v : rec->time;
}

/* A vertex's END, which its TIME repeats; its BEGIN, most often near it. */
static inline uint64_t
col_num_time(const struct record *rec, size_t col)
{
	uint64_t v;

	if (col_timelike(rec, col, &v))
		return v;
	return col_num(rec, col);
}

/*
 * FROM_TID, whose thread is most often its process's first: then its
 * bytes are FROM_PID's, just before it, and so is its number.
 */
static inline uint64_t
col_from_tid(const struct record *rec, size_t col, uint32_t pid)
{
	if (*record_str(rec, col) != '\0' && same_field(rec, col - 1, col))
		return pid;
	return col_opt0(rec, col);
}

static int
col_weak(const struct record *rec, size_t col)
{
	const char *s = record_str(rec, col);

	/*
	 * A padded field has 8 bytes readable: each word, its NUL
	 * included, is one compare of a constant size, made in line.
	 */
	if (rec->padded && col < rec->nf) {
		if (memcmp(s, LINK_WEAK, sizeof(LINK_WEAK)) == 0)
			return 1;
		if (memcmp(s, LINK_STRONG, sizeof(LINK_STRONG)) == 0)
			return 0;
	}
	if (name_eq(s, LINK_WEAK))
		return 1;
	if (!name_eq(s, LINK_STRONG))
		bad(rec, "strength '%s' (strong or weak)", s);
	return 0;
}

static const char *
col_object(const struct record *rec, size_t col)
{
	const char *s = record_str(rec, col);

	if (*s == '\0')
		bad(rec, "no object '%s'", s);
	return s;
}

static double
col_score(const struct record *rec, size_t col)
{
	const char *s = record_str(rec, col);
	char *end;
	double v;

	v = strtod(s, &end);
	if (*s == '\0' || *end != '\0' || !isfinite(v))
		bad(rec, "score '%s'", s);
	return v;
}

static const struct sclass *
col_class(const struct record *rec, size_t col)
{
	const struct sclass *c = sclass_find(record_str(rec, col));

	if (c == NULL)
		bad(rec, "unknown class '%s'", record_str(rec, col));
	return c;
}

static const char *const root_kinds[] = {
	[RK_VICTIM] = "victim", [RK_CULPRIT] = "culprit", [RK_ROOT] = "root",
	[RK_CYCLE] = "cycle",
};

static const struct {
	const char	*word, *phrase;
} evidences[] = {
	[EV_GUESS] = { "guess", "a guess from timing" },
	[EV_WAKEUP] = { "wakeup", "a wake-up" },
	[EV_RUNTIME] = { "runtime", "its runtime says" },
	[EV_CONNECTION] = { "connection", "the connection says" },
	[EV_KERNEL] = { "kernel", "the kernel says" },
};

const char *
evidence_word(enum evidence ev)
{
	return ev == EV_UNSAID ? "" : evidences[ev].word;
}

const char *
evidence_phrase(enum evidence ev)
{
	return ev == EV_UNSAID ? "" : evidences[ev].phrase;
}

const char *
root_kind_name(enum root_kind k)
{
	return root_kinds[k];
}

static enum root_kind
col_root_kind(const struct record *rec, size_t col)
{
	const char *s = record_str(rec, col);
	size_t k;

	for (k = 0; k < ARRAY_LEN(root_kinds); k++)
		if (strcmp(root_kinds[k], s) == 0)
			return k;
	bad(rec, "unknown kind '%s'", s);
}

/* Older streams have no EVIDENCE: unsaid. */
static enum evidence
col_evidence(const struct record *rec, size_t col)
{
	const char *s = record_str(rec, col);
	size_t k;

	if (*s == '\0')
		return EV_UNSAID;
	for (k = 0; k < ARRAY_LEN(evidences); k++)
		if (strcmp(evidences[k].word, s) == 0)
			return k;
	bad(rec, "unknown evidence '%s'", s);
}

static int
col_wmode(const struct record *rec, size_t col)
{
	const char *s = record_str(rec, col);
	int k = wmode_find(s);

	if (k < 0)
		bad(rec, "unknown mode '%s'", s);
	return k;
}

static int
col_wrel(const struct record *rec, size_t col)
{
	const char *s = record_str(rec, col);
	int k = wrel_find(s);

	if (k < 0)
		bad(rec, "unknown relation '%s'", s);
	return k;
}

static int
col_fd(const struct record *rec, size_t col)
{
	uint64_t v;

	if (!record_u64_opt(rec, col, &v))
		return NO_FD;
	if (v > INT32_MAX)
		bad(rec, "no file descriptor '%s'", record_str(rec, col));
	return v;
}

static int
col_any_fd(const struct record *rec, size_t col)
{
	uint64_t v;

	return record_u64_opt(rec, col, &v) && v <= INT32_MAX ? (int)v : NO_FD;
}

/* How each codec reads column c into s->m. */
#define RP_NUM(r, c, s, m)	(s)->m = col_num(r, c)
#define RP_ID(r, c, s, m)	(s)->m = col_id(r, c)
#define RP_OPT0(r, c, s, m)	(s)->m = col_opt0(r, c)
#define RP_NUM_TIME(r, c, s, m)	(s)->m = col_num_time(r, c)
#define RP_FROM_TID(r, c, s, m)	/* FROM_PID's */
#define RP_OPT0_32(r, c, s, m)	(s)->m = col_opt0(r, c)
#define RP_OPT(r, c, s, m)	(s)->m = col_opt(r, c)
#define RP_TIME_OR_NOW(r, c, s, m)	(s)->m = col_time_or_now(r, c)
#define RP_FROM_PID(r, c, s, m) \
	from_thread(r, c, &(s)->m, &(s)->from_tid)
#define RP_STR(r, c, s, m)	(s)->m = record_str(r, c)
#define RP_OBJECT(r, c, s, m)	(s)->m = col_object(r, c)
#define RP_BUF(r, c, s, m) \
	snprintf((s)->m, sizeof((s)->m), "%s", record_str(r, c))
#define RP_WEAK(r, c, s, m)	(s)->m = col_weak(r, c)
#define RP_SCORE(r, c, s, m)	(s)->m = col_score(r, c)
#define RP_CLASS(r, c, s, m)	(s)->m = col_class(r, c)
#define RP_ROOT_KIND(r, c, s, m)	(s)->m = col_root_kind(r, c)
#define RP_EVIDENCE(r, c, s, m)	(s)->m = col_evidence(r, c)
#define RP_WMODE(r, c, s, m)	(s)->m = col_wmode(r, c)
#define RP_WREL(r, c, s, m)	(s)->m = col_wrel(r, c)
#define RP_FD(r, c, s, m)	(s)->m = col_fd(r, c)
#define RP_ANY_FD(r, c, s, m)	(s)->m = col_any_fd(r, c)
#define RP_ARGS(r, c, s, m)	((s)->m = NULL, (s)->n##m = (r)->nf - (c))

/*
 * The writers' fields at p, the record's end so far (writer_at_*()):
 * each returns the end past it.
 */
static inline char *
put_opt(struct writer *w, char *p, uint64_t v)
{
	if (v == NO_TIME)
		return writer_at_empty(p);
	return writer_at_u64(w, p, v);
}

static inline char *
put_fd(struct writer *w, char *p, int fd)
{
	if (fd == NO_FD)
		return writer_at_empty(p);
	return writer_at_u64(w, p, fd);
}

/* In RL_SCORE's bytes. */
static char *
put_score(struct writer *w, char *p, double v)
{
	char s[16];

	snprintf(s, sizeof(s), "%.3f", v);
	return writer_at_strn(w, p, s, strlen(s));
}

static char *
put_hex(char *p, const uint64_t *v, int n)
{
	int i;

	for (i = 0; v != NULL && i < n; i++)
		p = writer_at_hex(p, v[i]);
	return p;
}

/* A process id, empty when unknown (argus-stream(5)), as writer_pid(). */
static inline char *
put_pid(struct writer *w, char *p, uint32_t pid, uint32_t tid)
{
	if (pid == 0 && tid != 0)
		return writer_at_empty(p);
	return writer_at_u64(w, p, pid);
}

/*
 * The room each codec's field of s->m may take, its comma too: a
 * string's length and one, which its writer is handed as n.
 */
#define RL_NUM(s, m)		WRITER_AT_U64
#define RL_ID(s, m)		WRITER_AT_U64
#define RL_OPT0(s, m)		WRITER_AT_U64
#define RL_NUM_TIME(s, m)	WRITER_AT_U64
#define RL_FROM_TID(s, m)	WRITER_AT_U64
#define RL_OPT0_32(s, m)	WRITER_AT_U64
#define RL_OPT(s, m)		WRITER_AT_U64
#define RL_TIME_OR_NOW(s, m)	WRITER_AT_U64
#define RL_FROM_PID(s, m)	WRITER_AT_U64
#define RL_STR(s, m)		(strlen((s)->m) + 1)
#define RL_OBJECT(s, m)		(strlen((s)->m) + 1)
#define RL_BUF(s, m)		(strlen((s)->m) + 1)
#define RL_WEAK(s, m)		sizeof(LINK_STRONG)
#define RL_SCORE(s, m)		16
#define RL_CLASS(s, m)		(strlen((s)->m->name) + 1)
#define RL_ROOT_KIND(s, m)	(strlen(root_kind_name((s)->m)) + 1)
#define RL_EVIDENCE(s, m)	(strlen(evidence_word((s)->m)) + 1)
#define RL_WMODE(s, m)		(strlen(wmode_names[(s)->m]) + 1)
#define RL_WREL(s, m)		(strlen(wrels[(s)->m].name) + 1)
#define RL_FD(s, m)		WRITER_AT_U64
#define RL_ANY_FD(s, m)		WRITER_AT_U64
#define RL_ARGS(s, m) \
	((s)->m != NULL ? (size_t)(s)->n##m * WRITER_AT_HEX : 0)

/* How each codec writes s->m at p, in the len bytes RL_ said. */
#define RW_NUM(w, p, s, m, len)	writer_at_u64(w, p, (s)->m)
#define RW_ID(w, p, s, m, len)	writer_at_u64(w, p, (s)->m)
#define RW_OPT0(w, p, s, m, len)	writer_at_u64(w, p, (s)->m)
#define RW_NUM_TIME(w, p, s, m, len)	writer_at_u64(w, p, (s)->m)
#define RW_FROM_TID(w, p, s, m, len)	writer_at_u64(w, p, (s)->m)
#define RW_OPT0_32(w, p, s, m, len)	writer_at_u64(w, p, (s)->m)
#define RW_OPT(w, p, s, m, len)	put_opt(w, p, (s)->m)
#define RW_TIME_OR_NOW(w, p, s, m, len)	put_opt(w, p, (s)->m)
#define RW_FROM_PID(w, p, s, m, len)	put_pid(w, p, (s)->m, (s)->from_tid)
#define RW_STR(w, p, s, m, len)	writer_at_strn(w, p, (s)->m, len - 1)
#define RW_OBJECT(w, p, s, m, len)	writer_at_strn(w, p, (s)->m, len - 1)
#define RW_BUF(w, p, s, m, len)	writer_at_strn(w, p, (s)->m, len - 1)
#define RW_WEAK(w, p, s, m, len) \
	((s)->m ? writer_at_strn(w, p, LINK_WEAK, strlen(LINK_WEAK)) : \
	    writer_at_strn(w, p, LINK_STRONG, strlen(LINK_STRONG)))
#define RW_SCORE(w, p, s, m, len)	put_score(w, p, (s)->m)
#define RW_CLASS(w, p, s, m, len) \
	writer_at_strn(w, p, (s)->m->name, len - 1)
#define RW_ROOT_KIND(w, p, s, m, len) \
	writer_at_strn(w, p, root_kind_name((s)->m), len - 1)
#define RW_EVIDENCE(w, p, s, m, len) \
	writer_at_strn(w, p, evidence_word((s)->m), len - 1)
#define RW_WMODE(w, p, s, m, len) \
	writer_at_strn(w, p, wmode_names[(s)->m], len - 1)
#define RW_WREL(w, p, s, m, len) \
	writer_at_strn(w, p, wrels[(s)->m].name, len - 1)
#define RW_FD(w, p, s, m, len)	put_fd(w, p, (s)->m)
#define RW_ANY_FD(w, p, s, m, len)	put_fd(w, p, (s)->m)
#define RW_ARGS(w, p, s, m, len)	put_hex(p, (s)->m, (s)->n##m)

/* What NAME_keep copies: text that points into the record. */
#define RK_STR(s, m)		(s)->m = xstrdup((s)->m)
#define RK_OBJECT		RK_STR
#define RD_STR(s, m)		free((char *)(s)->m)
#define RD_OBJECT		RD_STR
#define RK_NUM(s, m)
#define RK_ID(s, m)
#define RK_OPT0(s, m)
#define RK_NUM_TIME(s, m)
#define RK_FROM_TID(s, m)
#define RK_OPT0_32(s, m)
#define RK_OPT(s, m)
#define RK_TIME_OR_NOW(s, m)
#define RK_FROM_PID(s, m)
#define RK_BUF(s, m)
#define RK_WEAK(s, m)
#define RK_SCORE(s, m)
#define RK_CLASS(s, m)
#define RK_ROOT_KIND(s, m)
#define RK_EVIDENCE(s, m)
#define RK_WMODE(s, m)
#define RK_WREL(s, m)
#define RK_FD(s, m)
#define RK_ANY_FD(s, m)
#define RK_ARGS(s, m)		(s)->m = NULL	/* the reader's */
#define RD_NUM			RK_NUM
#define RD_ID			RK_NUM
#define RD_OPT0			RK_NUM
#define RD_NUM_TIME		RK_NUM
#define RD_FROM_TID		RK_NUM
#define RD_OPT0_32		RK_NUM
#define RD_OPT			RK_NUM
#define RD_TIME_OR_NOW		RK_NUM
#define RD_FROM_PID		RK_NUM
#define RD_BUF			RK_NUM
#define RD_WEAK			RK_NUM
#define RD_SCORE		RK_NUM
#define RD_CLASS		RK_NUM
#define RD_ROOT_KIND		RK_NUM
#define RD_EVIDENCE		RK_NUM
#define RD_WMODE		RK_NUM
#define RD_WREL			RK_NUM
#define RD_FD			RK_NUM
#define RD_ANY_FD		RK_NUM
#define RD_ARGS			RK_NUM

/*
 * The thread a record is about: a vertex, a link's TO... 0 if none (an
 * empty TID).  A thread id is 32 bits: a wider one is bad input.  In
 * line always: each vertex and link has it, and the call cost a third
 * of it.
 */
static inline __attribute__((always_inline)) int
thread_read(const struct record *rec, uint32_t *pid, uint32_t *tid)
{
	uint64_t v;
	int known = *record_str(rec, COL_TID) != '\0';

	if (known && (!record_small_u64(rec, COL_TID, &v) || v > UINT32_MAX))
		bad(rec, "thread id '%s'", record_str(rec, COL_TID));
	*tid = known ? v : 0;
	if (known && same_field(rec, COL_PID, COL_TID)) {
		*pid = v;
		return known;
	}
	/* empty: unknown, as record_pid() says */
	*pid = record_small_u64(rec, COL_PID, &v) == 1 ? v :
	    record_pid(rec, COL_PID);
	return known;
}

/*
 * A graph names a few threads, each in many vertices and links: their
 * PID and TID, by the memo of their bytes, are the numbers they were
 * read as before.  A key of two empty fields is an empty slot's: an
 * empty TID is not kept.
 */
#define THREAD_BITS	6
#define THREAD_MEMO	(1 << THREAD_BITS)

static inline __attribute__((always_inline)) int
thread_of(const struct record *rec, uint32_t *pid, uint32_t *tid)
{
	static __thread struct {
		uint64_t	 w0, w1;
		size_t		 n;
		uint32_t	 tid, pid;
	} memo[THREAD_MEMO];
	uint64_t w0, w1, h;
	size_t i, n;

	_Static_assert(COL_TID == COL_PID + 1, "PID,TID one after another");
	if ((n = fields_key(rec, COL_PID, &w0, &w1, &h)) == 0 ||
	    rec->f[COL_TID + 1] - rec->f[COL_TID] == 1)
		return thread_read(rec, pid, tid);
	i = h >> (64 - THREAD_BITS);
	if (memo[i].n != n || memo[i].w0 != w0 || memo[i].w1 != w1) {
		thread_read(rec, &memo[i].pid, &memo[i].tid);
		memo[i].n = n;
		memo[i].w0 = w0;
		memo[i].w1 = w1;
	}
	*pid = memo[i].pid;
	*tid = memo[i].tid;
	return 1;
}

/*
 * A snapshot's record names its thread, or process, always, and has every
 * column before a last ARG...
 */
static void
snapshot_of(const struct record *rec, int ncols, uint64_t *time,
    uint32_t *pid, uint32_t *tid, int need_tid)
{
	uint64_t v;

	if (rec->nf < (size_t)ncols)
		bad(rec, "too few columns '%s'", "");
	if (rec->time == NO_TIME)
		bad(rec, "no time '%s'", "");
	*time = rec->time;
	if (!record_u64_opt(rec, COL_PID, &v) || v == 0 || v > UINT32_MAX)
		bad(rec, "no process '%s'", record_str(rec, COL_PID));
	*pid = v;
	*tid = record_u64_opt(rec, COL_TID, &v) ? v : 0;
	if (need_tid && *tid == 0)
		bad(rec, "no thread '%s'", record_str(rec, COL_TID));
}

/* TIME,PID,TID after the kind, in HEAD_ROOM bytes. */
#define HEAD_ROOM	(3 * WRITER_AT_U64)

static inline char *
graph_head(struct writer *w, const char *kind, size_t most, uint64_t time,
    uint32_t pid, uint32_t tid)
{
	char *p = writer_at_begin(w, kind, HEAD_ROOM + most);

	p = put_opt(w, p, time);
	p = put_pid(w, p, pid, tid);
	return writer_at_u64(w, p, tid);
}

static char *
snapshot_head(struct writer *w, const char *kind, size_t most, uint64_t time,
    uint32_t pid, uint32_t tid)
{
	char *p = writer_at_begin(w, kind, HEAD_ROOM + most);

	p = put_opt(w, p, time);
	p = writer_at_u64(w, p, pid);
	if (tid == 0)
		return writer_at_empty(p);
	return writer_at_u64(w, p, tid);
}

/* How each HEAD reads and writes TIME,PID,TID; n: the columns needed. */
#define HP_GRAPH(r, s, n) \
	((s)->time = (r)->time, thread_of(r, &(s)->pid, &(s)->tid))
#define HP_VERTEX(r, s, n) do { \
	if (!thread_of(r, &(s)->pid, &(s)->tid)) \
		bad(r, "%s", "no thread"); \
} while (0)
#define HP_WAIT(r, s, n) \
	snapshot_of(r, n, &(s)->time, &(s)->pid, &(s)->tid, 1)
#define HP_HOLDER(r, s, n) \
	snapshot_of(r, n, &(s)->time, &(s)->pid, &(s)->tid, 0)
#define HP_SOCK(r, s, n) \
	((s)->time = (r)->time, (s)->pid = record_pid(r, COL_PID))
/* most: the room the fields after the head take. */
#define HW_GRAPH(w, k, s, most) \
	graph_head(w, k, most, (s)->time, (s)->pid, (s)->tid)
#define HW_VERTEX(w, k, s, most) \
	graph_head(w, k, most, (s)->end, (s)->pid, (s)->tid)
/* wait's TID is never 0 (HP_WAIT) */
#define HW_WAIT(w, k, s, most) \
	snapshot_head(w, k, most, (s)->time, (s)->pid, (s)->tid)
#define HW_HOLDER		HW_WAIT
#define HW_SOCK(w, k, s, most) \
	snapshot_head(w, k, most, (s)->time, (s)->pid, 0)

/*
 * A link's FROM_PID and FROM_TID, the other thread's, are the numbers
 * the memo of their bytes keeps, as thread_of()'s are.  Both empty is
 * no key.
 */
static inline __attribute__((always_inline)) void
from_thread(const struct record *rec, size_t col, uint32_t *pid,
    uint64_t *tid)
{
	static __thread struct {
		uint64_t	 w0, w1, tid;
		size_t		 n;
		uint32_t	 pid;
	} memo[THREAD_MEMO];
	uint64_t w0, w1, h;
	size_t i, n;

	if ((n = fields_key(rec, col, &w0, &w1, &h)) <= 1) {
		*pid = col_pid(rec, col);
		*tid = col_from_tid(rec, col + 1, *pid);
		return;
	}
	i = h >> (64 - THREAD_BITS);
	if (memo[i].n != n || memo[i].w0 != w0 || memo[i].w1 != w1) {
		memo[i].pid = col_pid(rec, col);
		memo[i].tid = col_from_tid(rec, col + 1, memo[i].pid);
		memo[i].n = n;
		memo[i].w0 = w0;
		memo[i].w1 = w1;
	}
	*pid = memo[i].pid;
	*tid = memo[i].tid;
}

/*
 * A vertex id, which a graph's links name again and again near where it
 * was named before: the number the memo of its bytes keeps.
 */
#define ID_MEMO		64	/* a power of 2 */

static inline __attribute__((always_inline)) uint64_t
col_id(const struct record *rec, size_t col)
{
	static __thread struct {
		uint64_t	 w, id;
	} memo[ID_MEMO];
	uint64_t w;
	size_t i;

	if (!field_word(rec, col, &w) || w == 0)
		return col_num(rec, col);
	i = (w * GOLDEN64) >> 58 & (ID_MEMO - 1);
	if (memo[i].w != w) {
		memo[i].id = col_num(rec, col);
		memo[i].w = w;
	}
	return memo[i].id;
}

/* The columns a record must have: all but a last ARG... */
#define RN_ARGS		0
#define RN_NUM		1
#define RN_ID		1
#define RN_OPT0		1
#define RN_NUM_TIME	1
#define RN_FROM_TID	1
#define RN_OPT0_32	1
#define RN_OPT		1
#define RN_TIME_OR_NOW	1
#define RN_FROM_PID	1
#define RN_STR		1
#define RN_OBJECT	1
#define RN_BUF		1
#define RN_WEAK		1
#define RN_SCORE	1
#define RN_CLASS	1
#define RN_ROOT_KIND	1
#define RN_EVIDENCE	1
#define RN_WMODE	1
#define RN_WREL		1
#define RN_FD		1
#define RN_ANY_FD	1

/* What the columns cannot say alone. */
#define NO_CHECK(r, s)	((void)0)

static void
vertex_check(const struct record *rec, struct vertex_rec *v)
{
	if (v->id == 0)
		bad(rec, "%s", "vertex 0 (ids count from 1)");
	if (v->end < v->begin)
		diex(EX_DATAERR, "%s:%lu: vertex %llu ends before it begins",
		    rec->file, rec->line, (unsigned long long)v->id);
}

/*
 * A link's rule is one of a few short words, and a link record the most
 * numerous after events: a rule of 7 bytes or fewer is one word of its
 * padded field, which with its length finds its properties in a memo
 * rather than in the table by name.
 */
#define PROPS_MEMO	16	/* a power of 2 */

static inline void
link_check(const struct record *rec, struct link_rec *l)
{
	static __thread struct {
		uint64_t	 key;	/* 0: empty */
		unsigned	 props;
	} memo[PROPS_MEMO];
	size_t len, i;
	uint64_t key;

	if (!rec->padded) {
		l->props = lrule_props(l->rule);
		return;
	}
	len = record_len(rec, RCOL(link, RULE));
	if (len == 0 || len > 7) {
		l->props = lrule_props_padded(l->rule, len);
		return;
	}
	memcpy(&key, l->rule, 8);
	key = (le64toh(key) & (~0ULL >> (64 - 8 * len))) | (uint64_t)len << 56;
	i = (key * GOLDEN64) >> 60 & (PROPS_MEMO - 1);
	if (memo[i].key != key) {
		memo[i].key = key;
		memo[i].props = lrule_props_padded(l->rule, len);
	}
	l->props = memo[i].props;
}

static void
spin_check(const struct record *rec, struct spin_rec *s)
{
	if (s->last == NO_TIME)
		s->last = s->vertex;
	if (s->end < s->begin)
		bad(rec, "%s", "ends before it begins");
}

#define FIELD(col, codec, m, json)	+ RN_##codec
#define RECORD(name, kind, head, check, extra, fields) \
	enum { name##_needs = COL_FIRST_OWN fields };
#include "records.def"
#undef RECORD
#undef FIELD

#define FIELD(col, codec, m, json) \
	RP_##codec(rec, COL_FIRST_OWN + offsetof(cols, col), s, m);
#define RECORD(name, kind, head, check, extra, fields) \
int \
name##_parse(const struct record *rec, struct name##_rec *s) \
{ \
	typedef struct name##_cols cols; \
\
	if (!record_is(rec, kind)) \
		return 0; \
	HP_##head(rec, s, name##_needs); \
	fields \
	check(rec, s); \
	return 1; \
}
#include "records.def"
#undef RECORD
#undef FIELD

/*
 * The columns each CHECK reads, which NAME_parse_only() reads whatever
 * it is asked; and each HEAD, TIME always, the thread where asked.
 */
#define vertex_check_cols \
	(RBIT(vertex, ID) | RBIT(vertex, BEGIN) | RBIT(vertex, END))
#define link_check_cols		RBIT(link, RULE)
#define spin_check_cols	(RBIT(spin, VERTEX) | RBIT(spin, BEGIN) | \
	RBIT(spin, END) | RBIT(spin, LAST_VERTEX))
#define NO_CHECK_cols		0
#define HO_GRAPH(r, s, n, want) do { \
	(s)->time = (r)->time; \
	if ((want) & RBIT_THREAD) \
		thread_of(r, &(s)->pid, &(s)->tid); \
} while (0)
#define HO_VERTEX(r, s, n, want) do { \
	if ((want) & RBIT_THREAD) \
		HP_VERTEX(r, s, n); \
} while (0)
#define HO_WAIT(r, s, n, want)		HP_WAIT(r, s, n)
#define HO_HOLDER(r, s, n, want)	HP_HOLDER(r, s, n)
#define HO_SOCK(r, s, n, want)		HP_SOCK(r, s, n)

#define FIELD(col, codec, m, json) \
	if (want & (uint64_t)1 << (COL_FIRST_OWN + offsetof(cols, col))) { \
		RP_##codec(rec, COL_FIRST_OWN + offsetof(cols, col), s, m); \
	}
#define RECORD(name, kind, head, check, extra, fields) \
_Static_assert(RCOLS(name) <= 64, "a column mask has room for " #name); \
int \
name##_parse_only(const struct record *rec, struct name##_rec *s, \
    uint64_t want) \
{ \
	typedef struct name##_cols cols; \
\
	if (!record_is(rec, kind)) \
		return 0; \
	want |= check##_cols; \
	HO_##head(rec, s, name##_needs, want); \
	fields \
	check(rec, s); \
	return 1; \
}
#include "records.def"
#undef RECORD
#undef FIELD

/*
 * A record's fields' room is reckoned first (RL_), kept for the strings'
 * lengths, the room reserved at once with the head, then the fields
 * written in it.
 */
#define FIELD(col, codec, m, json)	size_t m;
#define RECORD(name, kind, head, check, extra, fields) \
struct name##_room { \
	fields \
};
#include "records.def"
#undef RECORD
#undef FIELD

#define FIELD(col, codec, m, json)	+ (r->m = RL_##codec(s, m))
#define RECORD(name, kind, head, check, extra, fields) \
static inline size_t \
name##_room(const struct name##_rec *s, struct name##_room *r) \
{ \
	return 0 fields; \
}
#include "records.def"
#undef RECORD
#undef FIELD

#define FIELD(col, codec, m, json)	p = RW_##codec(w, p, s, m, r.m);
#define RECORD(name, kind, head, check, extra, fields) \
void \
name##_write(struct writer *w, const struct name##_rec *s) \
{ \
	struct name##_room r; \
	char *p = HW_##head(w, kind, s, name##_room(s, &r)); \
\
	fields \
	writer_at_end(w, p); \
}
#include "records.def"
#undef RECORD
#undef FIELD

#define FIELD(col, codec, m, json)	RK_##codec(s, m);
#define RECORD(name, kind, head, check, extra, fields) \
void \
name##_keep(struct name##_rec *s) \
{ \
	(void)s; \
	fields \
}
#include "records.def"
#undef RECORD
#undef FIELD

#define FIELD(col, codec, m, json)	RD_##codec(s, m);
#define RECORD(name, kind, head, check, extra, fields) \
void \
name##_drop(struct name##_rec *s) \
{ \
	(void)s; \
	fields \
}
#include "records.def"
#undef RECORD
#undef FIELD

#define FIELD(col, codec, m, json)	json,
#define RECORD(name, kind, head, check, extra, fields) \
	const char *const name##_json[] = { fields };
#include "records.def"
#undef RECORD
#undef FIELD

/*
 * The header rows (argus-cat --header): records.def's kinds by its
 * columns, the others by hand.  ARG... for ARGS: it repeats (ARG1,
 * ARG2, ...).
 */
#define RC_1		""
#define RC_0		"..."
#define RC_(n)		RC_##n
#define RC(n)		RC_(n)
#define FIELD(col, codec, m, json)	"," #col RC(RN_##codec)
#define RECORD(name, kind, head, check, extra, fields) \
	{ kind, (fields) + 1 },
static const struct {
	const char	*kind, *cols;
} kinds[] = {
#include "records.def"
	{ KIND_META,	"KEY,VALUE" },
	{ KIND_TASK,	"COMM,CGROUP" },
	{ KIND_EVENT,	"VERTEX,CPU,TYPE,CTX,ARG..." },
	{ KIND_LOST,	"CPU,COUNT" },
	{ KIND_STACK,	"FRAME..." },
	{ KIND_BOUNDARY,	"REASON" },
	{ KIND_CULL,	"END,REASON" },
	{ KIND_SUMMARY,	"PROGRAM,KEY,VALUE..." },
	{ KSYM_KIND,	"ADDRESS,NAME" },
};
#undef RECORD
#undef FIELD

const char *
kind_columns(const char *kind)
{
	size_t i;

	for (i = 0; i < ARRAY_LEN(kinds); i++)
		if (strcmp(kinds[i].kind, kind) == 0)
			return kinds[i].cols;
	return NULL;
}
