/*
 * Writing the record stream.  A record is built in place at the end of the
 * output buffer and only counts once writer_end() commits it, so whatever
 * stops a program half-way through a record, the record never reaches the
 * output.  Compressed output is a sequence of gzip members, one per
 * piece compressed (a chunk of at most a buffer's worth, or what a
 * writer_flush() pushes out): a file cut short is readable up to its last
 * whole member.  libdeflate makes each member whole from one buffer,
 * faster than zlib and smaller on our records: compressing is most of the
 * recorder's drain, which `argus debug' waits for.
 * A file reaches its name when the writer is closed (lib/file.c): closed
 * at the end, on a signal or by die() with what was written so far;
 * never if the process is killed or cannot write it whole.
 *
 * writer_background() moves the compression to a thread of its own: the
 * program hands it whole chunks of records (up to NBUF buffers in all,
 * one being filled, the others compressed or waiting for it) and keeps
 * formatting meanwhile.  Only the hand-over and writer_flush() wait for
 * it.  The thread never dies: a failed write is kept, and the program
 * dies of it at the next hand-over or flush, on its own thread, so that
 * closing the writers on the way out cannot wait for itself.
 */
#include <sys/stat.h>

#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <csv.h>
#include <libdeflate.h>

#include "util.h"

#define OUT_CHUNK	(256 * 1024)
#define NBUF		3	/* in the background: filled, compressed, waiting */
#define Z_FAILED	(-1)	/* deflate's error, not a write's errno */
#define Z_LEVEL		1	/* libdeflate's fastest */

/*
 * The numbers written last, each in a slot its value hashes to: a link
 * record repeats its event's time and threads, and a vertex is named by
 * each link in and out of it, where finding the digits again costs less
 * than making them.  Every slot starts as 0.
 */
#define MEMO_BITS	8
#define MEMO		(1 << MEMO_BITS)
struct memo {
	uint64_t	 v;
	char		 digits[24];	/* 20 at most, and room for a word */
	unsigned	 n;
};

static inline size_t
memo_slot(uint64_t v)
{
	return v * GOLDEN64 >> (64 - MEMO_BITS);
}

struct chunk {
	char		*p;
	size_t		 cap;
	size_t		 len;
};

/* The compressor thread's side; lock guards all of it. */
struct bg {
	pthread_t	 thread;
	pthread_mutex_t	 lock;
	pthread_cond_t	 work;		/* to the thread: a chunk, or stop */
	pthread_cond_t	 idle;		/* to the writer: a buffer free */
	struct chunk	 queue[NBUF];	/* handed over, oldest first */
	size_t		 head, nqueued;
	struct chunk	 spare[NBUF];
	size_t		 nspare;
	int		 busy;		/* compressing one */
	int		 err;		/* a write's errno, Z_FAILED, or 0 */
	int		 stop;
	int		 drop;		/* stop without writing the rest */
	int		 policy;	/* the thread's, set by the writer */
};

struct writer {
	int		 fd;
	char		*name;
	struct outfile	 file;		/* unless stdout */
	_Atomic uint64_t bytes;		/* written to fd */
	int		 failed;	/* a write failed: keep nothing */
	char		*buf;
	size_t		 cap;
	size_t		 len;		/* bytes in buf */
	size_t		 mark;		/* bytes of whole records */

	int		 gz;
	struct libdeflate_compressor *z;	/* the thread compressing's */
	unsigned char	*zout;
	size_t		 zcap;
	struct bg	*bg;		/* compressing in the background */

	struct memo	*memo;		/* MEMO numbers written, by value */
	size_t		 most;		/* writer_at_begin()'s promise */

	/*
	 * Whole records writer_pass() noted, in the reader's buffer, NULL
	 * none; and how far they may run before they are copied.
	 */
	const char	*pass, *pass_end, *pass_max;
};

/* Both threads write; neither dies there (see fail()). */
static int
write_some(struct writer *w, const void *p, size_t n)
{
	const char *c = p;
	ssize_t put;

	while (n > 0) {
		put = write(w->fd, c, n);
		if (put == -1) {
			if (errno == EINTR)
				continue;	/* finish the record even when asked to stop */
			return errno;
		}
		c += put;
		n -= put;
		w->bytes += put;
	}
	return 0;
}

/* One gzip member of p; by one thread at a time (the compressor's, or ours). */
static int
deflate_some(struct writer *w, const void *p, size_t n)
{
	size_t need, got;

	if (n == 0)
		return 0;
	need = libdeflate_gzip_compress_bound(w->z, n);
	if (need > w->zcap) {
		if ((w->zout = realloc(w->zout, need)) == NULL)
			return errno;
		w->zcap = need;
	}
	if ((got = libdeflate_gzip_compress(w->z, p, n, w->zout, w->zcap)) == 0)
		return Z_FAILED;
	return write_some(w, w->zout, got);
}

/* From the writer's thread only. */
static void __attribute__((noreturn))
fail(struct writer *w, int e)
{
	w->failed = 1;		/* keep nothing */
	if (e == Z_FAILED)
		diex(EX_SOFTWARE, "%s: deflate failed", w->name);
	errno = e;
	die(EX_IOERR, "%s: write", w->name);
}

static void
write_all(struct writer *w, const void *p, size_t n)
{
	int e;

	if ((e = write_some(w, p, n)))
		fail(w, e);
}

static void
deflate_out(struct writer *w, const void *p, size_t n)
{
	int e;

	if ((e = deflate_some(w, p, n)))
		fail(w, e);
}

static void *
compressor(void *arg)
{
	struct writer *w = arg;
	struct bg *b = w->bg;
	struct chunk c;
	int skip, e;

	pthread_mutex_lock(&b->lock);
	for (;;) {
		while (b->nqueued == 0 && !b->stop)
			pthread_cond_wait(&b->work, &b->lock);
		if (b->nqueued == 0)
			break;
		c = b->queue[b->head];
		b->head = (b->head + 1) % NBUF;
		b->nqueued--;
		b->busy = 1;
		skip = b->err != 0 || b->drop;
		pthread_mutex_unlock(&b->lock);
		e = skip ? 0 : deflate_some(w, c.p, c.len);
		pthread_mutex_lock(&b->lock);
		if (e != 0)
			b->err = e;
		b->spare[b->nspare++] = c;
		b->busy = 0;
		pthread_cond_signal(&b->idle);
	}
	pthread_mutex_unlock(&b->lock);
	return NULL;
}

/*
 * The compressor at the writer's priority, before the writer waits for
 * it: a capture formats at idle priority until someone waits for it, and
 * then a compressor left idle on a busy machine would not run at all, not
 * even to raise its own.
 */
static void
follow(struct bg *b)
{
	struct sched_param sp;
	int policy;

	if ((policy = sched_getscheduler(0)) == -1 || policy == b->policy)
		return;
	if (sched_getparam(0, &sp) == 0 &&
	    pthread_setschedparam(b->thread, policy, &sp) == 0)
		b->policy = policy;
}

/*
 * The whole records to the compressor, in exchange for a free buffer
 * (waiting for one if need be); the record under construction moves over.
 */
static void
hand_over(struct writer *w)
{
	struct bg *b = w->bg;
	struct chunk c = { 0 };
	size_t rest = w->len - w->mark;
	int e;

	follow(b);
	pthread_mutex_lock(&b->lock);
	while (b->nspare == 0 && b->err == 0)
		pthread_cond_wait(&b->idle, &b->lock);
	if ((e = b->err) == 0)
		c = b->spare[--b->nspare];
	pthread_mutex_unlock(&b->lock);
	if (e != 0)
		fail(w, e);
	if (c.cap < rest) {
		c.cap = rest;
		c.p = xrealloc(c.p, c.cap);
	}
	memcpy(c.p, w->buf + w->mark, rest);
	pthread_mutex_lock(&b->lock);
	b->queue[(b->head + b->nqueued++) % NBUF] =
	    (struct chunk){ w->buf, w->cap, w->mark };
	pthread_cond_signal(&b->work);
	pthread_mutex_unlock(&b->lock);
	w->buf = c.p;
	w->cap = c.cap;
	w->len = rest;
	w->mark = 0;
}

/* Everything handed over is compressed and written. */
static void
wait_idle(struct writer *w)
{
	struct bg *b = w->bg;
	int e;

	follow(b);
	pthread_mutex_lock(&b->lock);
	while ((b->nqueued > 0 || b->busy) && b->err == 0)
		pthread_cond_wait(&b->idle, &b->lock);
	e = b->err;
	pthread_mutex_unlock(&b->lock);
	if (e != 0)
		fail(w, e);
}

/* The thread gone, with what was handed over written or not (drop). */
static void
bg_end(struct writer *w, int drop)
{
	struct bg *b = w->bg;
	size_t i;

	if (b == NULL)
		return;
	pthread_mutex_lock(&b->lock);
	b->stop = 1;
	b->drop = drop;
	pthread_cond_signal(&b->work);
	pthread_mutex_unlock(&b->lock);
	pthread_join(b->thread, NULL);
	for (i = 0; i < b->nspare; i++)
		free(b->spare[i].p);
	pthread_mutex_destroy(&b->lock);
	pthread_cond_destroy(&b->work);
	pthread_cond_destroy(&b->idle);
	free(b);
	w->bg = NULL;
}

void
writer_background(struct writer *w)
{
	struct bg *b;
	sigset_t all, old;
	size_t i;

	if (!w->gz || w->bg != NULL)
		return;
	b = xcalloc(1, sizeof(*b));
	for (i = 0; i < NBUF - 1; i++) {
		b->spare[i].cap = OUT_CHUNK;
		b->spare[i].p = xmalloc(OUT_CHUNK);
	}
	b->nspare = NBUF - 1;
	b->policy = -1;
	pthread_mutex_init(&b->lock, NULL);
	pthread_cond_init(&b->work, NULL);
	pthread_cond_init(&b->idle, NULL);
	w->bg = b;
	/*
	 * Signals are for the program's threads: born with all blocked, but
	 * for those its own writes raise, which must do what they would
	 * have done to the program writing (SIGPIPE: a reader gone).
	 */
	sigfillset(&all);
	sigdelset(&all, SIGPIPE);
	sigdelset(&all, SIGXFSZ);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	errno = pthread_create(&b->thread, NULL, compressor, w);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (errno != 0) {
		warnx_("%s: compressing in the foreground: pthread_create: %s",
		    w->name, strerror(errno));
		for (i = 0; i < b->nspare; i++)
			free(b->spare[i].p);
		free(b);
		w->bg = NULL;
	}
}

/* Push out the whole records; keep the one under construction. */
static void
drain(struct writer *w)
{
	if (w->mark == 0)
		return;
	if (w->bg != NULL) {
		hand_over(w);
		return;
	}
	if (w->gz)
		deflate_out(w, w->buf, w->mark);
	else
		write_all(w, w->buf, w->mark);
	memmove(w->buf, w->buf + w->mark, w->len - w->mark);
	w->len -= w->mark;
	w->mark = 0;
}

static inline void
reserve(struct writer *w, size_t n)
{
	if (w->len + n <= w->cap)
		return;
	drain(w);
	while (w->len + n > w->cap)
		w->cap *= 2;		/* one record larger than the buffer */
	w->buf = xrealloc(w->buf, w->cap);
}

static inline void
put(struct writer *w, const char *p, size_t n)
{
	reserve(w, n);
	memcpy(w->buf + w->len, p, n);
	w->len += n;
}

/*
 * Each field of the record being built is followed by its comma, which
 * writer_end() makes the record's newline: a field costs no test of
 * whether it is the first.
 */
static inline void
sep(struct writer *w)
{
	reserve(w, 1);
	w->buf[w->len++] = ',';
}

/* The record built, or copied, up to its newline: whole from now on. */
static inline void
commit(struct writer *w)
{
	w->mark = w->len;
	if (w->len >= OUT_CHUNK)
		drain(w);
}

/*
 * The records writer_pass() noted, copied in one piece and committed:
 * out of line, once a piece of several records.  A big piece for a
 * writer that does not compress is written from where it is, in the
 * reader's buffer, after what the writer holds: a stage that passes on
 * all it reads (argus-slice) spent more on the copy than on the write.
 */
#define PASS_DIRECT	(OUT_CHUNK / 4)

static void __attribute__((noinline))
unpass(struct writer *w)
{
	const char *s = w->pass;
	size_t n = w->pass_end - s;

	w->pass = w->pass_end = w->pass_max = NULL;
	w->len = w->mark;
	if (!w->gz && n >= PASS_DIRECT) {
		drain(w);
		write_all(w, s, n);
		return;
	}
	reserve(w, n);
	memcpy(w->buf + w->len, s, n);
	w->len += n;
	commit(w);
}

/* Before anything else is written: what writer_pass() noted, in order. */
static inline void
passed(struct writer *w)
{
	if (w->pass != NULL)
		unpass(w);
}

void
writer_unpass(void *w)
{
	passed(w);
}

/*
 * A record of the reader's ends with its newline in the reader's buffer,
 * and one that begins right after it is the next piece of the same copy.
 * A piece ends where writer_record() would have drained the buffer, before
 * the record that does not fit or after the one that filled a chunk, so
 * that the chunks, and the gzip members made of them, are the same.
 */
void
writer_pass(struct writer *w, const struct record *rec)
{
	const char *end = rec->raw + rec->rawlen + 1;
	size_t room;

	if (rec->raw == w->pass_end && end <= w->pass_max) {
		w->pass_end = end;
		return;
	}
	passed(w);
	if (!rec->padded) {
		writer_record(w, rec);
		return;
	}
	w->len = w->mark;	/* an unfinished record is dropped */
	room = w->cap < OUT_CHUNK ? w->cap : OUT_CHUNK;
	w->pass = rec->raw;
	w->pass_end = end;
	w->pass_max = rec->raw + (room > w->len ? room - w->len : 0);
}

/*
 * The open writers, so that die() can finish them (what was written is
 * kept), a refusal discard them, and an exit that closed neither leave
 * nothing under their names.  Few per process: a small array beats a list.
 */
static struct writer	*writers[8];

/* Each open writer closed, or discarded: either unregisters it. */
static void
each_writer(void (*end)(struct writer *))
{
	size_t i;

	for (i = 0; i < ARRAY_LEN(writers); i++)
		if (writers[i] != NULL)
			end(writers[i]);
}

static void
finish_writers(void)
{
	each_writer(writer_close);
}

static void
discard_writers(void)
{
	each_writer(writer_discard);
}

static void
atexit_writer(struct writer *w, int add)
{
	static int registered;
	size_t i;

	if (add && !registered++) {
		atexit(discard_writers);
		hook_add(HOOK_FINISH, finish_writers);
		hook_add(HOOK_REFUSE, discard_writers);
	}
	for (i = 0; i < ARRAY_LEN(writers); i++) {
		if (add && writers[i] == NULL) {
			writers[i] = w;
			return;
		}
		if (!add && writers[i] == w) {
			writers[i] = NULL;
			return;
		}
	}
	if (add)
		diex(EX_SOFTWARE, "too many open writers");
}

static struct writer *create(int, const char *, enum zmode, enum outmode,
    int);

struct writer *
writer_create(int dirfd, const char *path, enum zmode z, enum outmode how)
{
	return create(dirfd, path, z, how, 1);
}

/* CSV of one kind for other tools (argus-cat --header): no stream line. */
struct writer *
writer_open_table(const char *path, enum zmode z)
{
	return create(AT_FDCWD, path, z, OUT_ATOMIC, 0);
}

static struct writer *
create(int dirfd, const char *path, enum zmode z, enum outmode how, int stream)
{
	struct writer *w;
	struct stat st;
	size_t i;

	w = xcalloc(1, sizeof(*w));
	if (path == NULL || strcmp(path, "-") == 0) {
		w->fd = STDOUT_FILENO;
		w->name = xstrdup("<stdout>");
		/* `argus-cat t.gz >>t.gz' would read its own output. */
		file_note(w->fd, w->name, 1);
	} else {
		/* Traces hold other people's commands and arguments. */
		outfile_open(&w->file, dirfd, path, how);
		w->fd = w->file.fd;
		w->name = xstrdup(path);
	}
	if (fstat(w->fd, &st) == -1)
		die(EX_IOERR, "%s", w->name);
	pipe_widen(w->fd);
	/* Compress at rest; a pipe between stages should not pay for it. */
	w->gz = z == Z_GZIP || (z == Z_AUTO && S_ISREG(st.st_mode));
	if (w->gz) {
		if ((w->z = libdeflate_alloc_compressor(Z_LEVEL)) == NULL)
			diex(EX_OSERR, "libdeflate_alloc_compressor failed");
	}
	w->cap = OUT_CHUNK;
	w->buf = xmalloc(w->cap);
	w->memo = xcalloc(MEMO, sizeof(*w->memo));
	for (i = 0; i < MEMO; i++) {
		w->memo[i].digits[0] = '0';
		w->memo[i].n = 1;
	}
	atexit_writer(w, 1);
	if (stream) {
		writer_begin(w, STREAM_MAGIC);
		writer_u64(w, STREAM_VERSION);
		writer_end(w);
	}
	return w;
}

struct writer *
writer_open(const char *path, enum zmode z)
{
	return writer_create(AT_FDCWD, path, z, OUT_ATOMIC);
}

uint64_t
writer_bytes(const struct writer *w)
{
	return w->bytes;
}

void
writer_begin(struct writer *w, const char *kind)
{
	passed(w);
	w->len = w->mark;	/* an unfinished record is dropped */
	writer_str(w, kind);
}

/* Characters that force RFC 4180 quoting. */
static const unsigned char special[256] = {
	['\n'] = 1, ['\r'] = 1, [','] = 1, ['"'] = 1,
};

/*
 * Whether n bytes at s are written as they are in a field past a
 * record's first: a stage that writes the same words again and again
 * asks once, and copies them.
 */
int
writer_plain(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (special[(unsigned char)s[i]])
			return 0;
	return 1;
}

/* A field that needs quoting, or would read back as a comment. */
static void
put_quoted(struct writer *w, const char *s, size_t n)
{
	size_t need = 2 * n + 2 + 1;

	reserve(w, need);
	w->len += csv_write(w->buf + w->len, need, s, n);
	w->buf[w->len++] = ',';
}

/*
 * Whether a word of a field's bytes may hold one that forces quoting:
 * all four are below '-', and few other bytes of a name or a word are
 * (a space, a parenthesis), which are looked at again one by one.
 */
static inline int
maybe_special(uint64_t x)
{
	const uint64_t ones = 0x0101010101010101ULL;

	return ((x - ones * '-') & ~x & ones * 0x80) != 0;
}

/*
 * A field at_str() copied, and cannot tell at a glance needs no quoting:
 * out of line, so that its common case saves no registers for this.
 */
static char * __attribute__((noinline))
at_unsure(struct writer *w, char *p, const char *s, size_t n)
{
	unsigned char any = 0;
	size_t i;

	for (i = 0; i < n; i++)
		any |= special[(unsigned char)s[i]];
	/* A first field starting with '#' would read back as a comment. */
	if (any || (n > 0 && s[0] == '#' && p == w->buf + w->mark)) {
		w->len = p - w->buf;
		reserve(w, 2 * n + 3 + w->most);
		put_quoted(w, s, n);
		return w->buf + w->len;
	}
	p[n] = ',';
	return p + n + 1;
}

/*
 * Copied and looked at a word or two at a time: the fields a stage
 * writes are short (a kind, a rule, a label, a name), where a loop over
 * the bytes, or a scan and then a call to memcpy(), cost more than the
 * bytes.  A field of 4 to 16 bytes is two loads that overlap, never a
 * byte past s[n - 1]; of 1 to 3, its first, middle and last bytes.  One
 * that needs quoting is written again over the copy (at_unsure()), with
 * room made for it and for what writer_at_begin() promised the fields
 * after it.  p has n + 1 bytes of room.
 */
static inline char *
at_str(struct writer *w, char *p, const char *s, size_t n)
{
	const uint64_t fill = 0x4141414141414141ULL;	/* 'A's: no special */
	uint64_t a, b;
	uint32_t a4, b4;
	int any = 0;

	if (n >= 8 && n <= 16) {
		memcpy(&a, s, 8);
		memcpy(&b, s + n - 8, 8);
		memcpy(p, &a, 8);
		memcpy(p + n - 8, &b, 8);
		any = maybe_special(a) | maybe_special(b);
	} else if (n >= 4 && n < 8) {
		memcpy(&a4, s, 4);
		memcpy(&b4, s + n - 4, 4);
		memcpy(p, &a4, 4);
		memcpy(p + n - 4, &b4, 4);
		any = maybe_special(a4 | (uint64_t)b4 << 32);
	} else if (n > 0 && n < 4) {
		p[0] = s[0];
		p[n / 2] = s[n / 2];
		p[n - 1] = s[n - 1];
		any = maybe_special((fill << 24) | (unsigned char)s[0] |
		    (unsigned char)s[n / 2] << 8 |
		    (uint32_t)(unsigned char)s[n - 1] << 16);
	} else if (n > 16) {
		memcpy(p, s, n);
		any = 1;
	}
	if (any || (n > 0 && s[0] == '#'))
		return at_unsure(w, p, s, n);
	p[n] = ',';
	return p + n + 1;
}

static inline void
put_str(struct writer *w, const char *s, size_t n)
{
	reserve(w, n + 1);
	w->len = at_str(w, w->buf + w->len, s, n) - w->buf;
}

void
writer_strn(struct writer *w, const char *s, size_t n)
{
	put_str(w, s, n);
}

void
writer_str(struct writer *w, const char *s)
{
	put_str(w, s, strlen(s));
}

/*
 * How many digits v has: its bit length times log10(2) (1233 / 4096)
 * says it to within one, which one compare settles.
 */
static inline unsigned
digits(uint64_t v)
{
	static const uint64_t pow10[20] = { 0, 10, 100, 1000, 10000, 100000,
	    1000000, 10000000, 100000000, 1000000000, 10000000000ULL,
	    100000000000ULL, 1000000000000ULL, 10000000000000ULL,
	    100000000000000ULL, 1000000000000000ULL, 10000000000000000ULL,
	    100000000000000000ULL, 1000000000000000000ULL,
	    10000000000000000000ULL };
	unsigned t = (64 - __builtin_clzll(v | 1)) * 1233 >> 12;

	return t + 1 - (v < pow10[t]);
}

/*
 * Eight digits of v < 10^8, the first in the lowest byte: halves, then
 * quarters, then digits, each split in every lane of the word at once
 * (x / 100 is x * 10486 >> 20, and x / 10 is x * 103 >> 10, for the
 * lanes' values).
 */
static inline uint64_t
eight_digits(uint32_t v)
{
	uint64_t x = v / 10000 | (uint64_t)(v % 10000) << 32, hi;

	hi = x * 10486 >> 20 & 0x0000007f0000007fULL;
	x = hi | (x - hi * 100) << 16;
	hi = x * 103 >> 10 & 0x000f000f000f000fULL;
	x = hi | (x - hi * 10) << 8;
	return x | 0x3030303030303030ULL;
}

/* The last n (1 to 8) digits of a word of eight, at p; 8 bytes written. */
static inline void
put_word(char *p, uint64_t digits8, unsigned n)
{
	uint64_t x = htole64(digits8 >> (8 * (8 - n)));

	memcpy(p, &x, 8);
}

/*
 * v's digits at p, eight a word: their count.  p needs 8 bytes of room
 * past them.  A link record has eight numbers, times of fourteen digits
 * among them, and a digit a division, then a copy through a buffer of its
 * own, was a sixth of what argus-link spent.  The leading word goes
 * first: its 8 bytes may run into the next word's place, which is written
 * after it.
 */
static inline unsigned
u64_at(char *p, uint64_t v)
{
	unsigned n = digits(v), len = n;

	if (n > 16) {
		put_word(p, eight_digits(v / 10000000000000000ULL), n - 16);
		p += n - 16;
		v %= 10000000000000000ULL;
		n = 16;
	}
	if (n > 8) {
		put_word(p, eight_digits(v / 100000000), n - 8);
		p += n - 8;
		v %= 100000000;
		n = 8;
	}
	put_word(p, eight_digits(v), n);
	return len;
}

/*
 * A number straight into the buffer, in WRITER_AT_U64 bytes of room: the
 * sign, the digits (a number the memo holds is copied from it whole, all
 * its digits[] bytes, the padding overwritten after) and the comma.
 */
static inline char *
at_decimal(struct writer *w, char *p, uint64_t v, int neg)
{
	struct memo *m = &w->memo[memo_slot(v)];

	if (neg)
		*p++ = '-';
	if (m->v == v)
		memcpy(p, m->digits, sizeof(m->digits));
	else {
		m->v = v;
		m->n = u64_at(p, v);
		memcpy(m->digits, p, sizeof(m->digits));
	}
	p[m->n] = ',';
	return p + m->n + 1;
}

static inline void
put_decimal(struct writer *w, uint64_t v, int neg)
{
	reserve(w, WRITER_AT_U64);
	w->len = at_decimal(w, w->buf + w->len, v, neg) - w->buf;
}

void
writer_u64(struct writer *w, uint64_t v)
{
	put_decimal(w, v, 0);
}

void
writer_i64(struct writer *w, int64_t v)
{
	put_decimal(w, v < 0 ? -(uint64_t)v : (uint64_t)v, v < 0);
}

char *
writer_at_hex(char *p, uint64_t v)
{
	static const char digits[] = "0123456789abcdef";
	char tmp[18], *d = tmp + sizeof(tmp);

	do {
		*--d = digits[v & 15];
		v >>= 4;
	} while (v);
	*--d = 'x';
	*--d = '0';
	memcpy(p, d, tmp + sizeof(tmp) - d);
	p += tmp + sizeof(tmp) - d;
	*p = ',';
	return p + 1;
}

void
writer_hex(struct writer *w, uint64_t v)
{
	reserve(w, WRITER_AT_HEX);
	w->len = writer_at_hex(w->buf + w->len, v) - w->buf;
}

void
writer_time(struct writer *w, uint64_t t)
{
	if (t == NO_TIME)
		writer_empty(w);
	else
		put_decimal(w, t, 0);
}

/*
 * A process id, empty when unknown (argus-stream(5)): 0 names no process
 * but a CPU's idle task, whose thread id is 0 too.
 */
void
writer_pid(struct writer *w, uint32_t pid, uint32_t tid)
{
	if (pid == 0 && tid != 0)
		writer_empty(w);
	else
		put_decimal(w, pid, 0);
}

void
writer_empty(struct writer *w)
{
	sep(w);
}

static inline void
end_record(struct writer *w)
{
	if (w->len > w->mark)
		w->buf[w->len - 1] = '\n';	/* the last field's comma */
	else
		put(w, "\n", 1);
	commit(w);
}

void
writer_end(struct writer *w)
{
	passed(w);
	end_record(w);
}

char *
writer_at_begin(struct writer *w, const char *kind, size_t most)
{
	size_t n = strlen(kind);

	passed(w);
	w->len = w->mark;	/* an unfinished record is dropped */
	reserve(w, n + 1 + most);
	w->most = most;
	return at_str(w, w->buf + w->len, kind, n);
}

char *
writer_at_strn(struct writer *w, char *p, const char *s, size_t n)
{
	return at_str(w, p, s, n);
}

char *
writer_at_u64(struct writer *w, char *p, uint64_t v)
{
	return at_decimal(w, p, v, 0);
}

char *
writer_at_empty(char *p)
{
	*p = ',';
	return p + 1;
}

void
writer_at_end(struct writer *w, char *p)
{
	w->len = p - w->buf;
	end_record(w);		/* writer_at_begin() copied what writer_pass() noted */
}

void
writer_fields(struct writer *w, char **f, size_t nf)
{
	size_t i;

	writer_begin(w, nf > 0 ? f[0] : "");
	for (i = 1; i < nf; i++)
		writer_str(w, f[i]);
	writer_end(w);
}

void
writer_record(struct writer *w, const struct record *rec)
{
	passed(w);
	w->len = w->mark;
	reserve(w, rec->rawlen + 1);
	memcpy(w->buf + w->len, rec->raw, rec->rawlen);
	w->len += rec->rawlen;
	w->buf[w->len++] = '\n';
	commit(w);
}

/*
 * 32 bytes at a time, n rounded up, one block even where n is 0, as a
 * test for it cost more than the copy: d and s each need the bytes past n
 * to the next block, which the next copy or the record's end overwrites.
 * A record's fields are a few bytes each, where memcpy()'s call and its
 * choice of a method for the length cost more than the bytes.
 */
static inline char *
copy_blocks(char *d, const char *s, size_t n)
{
	size_t i = 0;

	do {
		memcpy(d + i, s + i, 16);
		memcpy(d + i + 16, s + i + 16, 16);
	} while ((i += 32) < n);
	return d + n;
}

/*
 * The record as read, with one column replaced: how a stage fills in a
 * column of records it passes on (argus-segment's VERTEX) without paying
 * for quoting the rest again.  This is the way of any record; splice_at()
 * has a quicker one for the common case.
 */
static void __attribute__((noinline))
splice_any(struct writer *w, const struct record *rec, size_t col,
    const char *val, size_t len)
{
	const char *p = rec->raw, *end = p + rec->rawlen, *a, *b;
	size_t i;

	passed(w);
	if (rec->quoted || col >= rec->nf) {
		writer_begin(w, rec->f[0]);
		for (i = 1; i < rec->nf || i <= col; i++)
			writer_str(w, i == col ? val : i < rec->nf ? rec->f[i] : "");
		writer_end(w);
		return;
	}
	/* Unquoted, the fields are the raw bytes, commas cut to NULs. */
	a = p + (rec->f[col] - rec->f[0]);
	b = col + 1 < rec->nf ? p + (rec->f[col + 1] - rec->f[0]) - 1 : end;
	w->len = w->mark;
	/* One reservation, then copies: the record and its newline. */
	reserve(w, rec->rawlen - (b - a) + len + 1);
	memcpy(w->buf + w->len, p, a - p);
	w->len += a - p;
	memcpy(w->buf + w->len, val, len);
	w->len += len;
	memcpy(w->buf + w->len, b, end - b);
	w->len += end - b;
	w->buf[w->len++] = '\n';
	commit(w);
}

/*
 * splice_any()'s common case, a record of the reader's, unquoted, its
 * column there, a number for its value (words: val has 24 bytes readable,
 * writer_splice_n()'s promise), and room for it: copied in blocks, the
 * value whole, with no call on the way, so that it saves no registers.
 */
static inline void
splice_at(struct writer *w, const struct record *rec, size_t col,
    const char *val, size_t len, int words)
{
	const char *p = rec->raw, *end = p + rec->rawlen, *a, *b;
	size_t need;
	char *d;

	passed(w);
	if (!words || len > 24 || !rec->padded || rec->quoted ||
	    col >= rec->nf) {
		splice_any(w, rec, col, val, len);
		return;
	}
	a = p + (rec->f[col] - rec->f[0]);
	b = col + 1 < rec->nf ? p + (rec->f[col + 1] - rec->f[0]) - 1 : end;
	/* The record and its newline, and the blocks' overrun. */
	need = rec->rawlen - (b - a) + len + 1 + 32;
	if (w->mark + need > w->cap) {
		splice_any(w, rec, col, val, len);
		return;
	}
	d = copy_blocks(w->buf + w->mark, p, a - p);
	memcpy(d, val, 16);
	memcpy(d + 16, val + 16, 8);
	d = copy_blocks(d + len, b, end - b);
	*d++ = '\n';
	w->len = d - w->buf;
	commit(w);
}

void
writer_splice(struct writer *w, const struct record *rec, size_t col,
    const char *val)
{
	splice_at(w, rec, col, val, strlen(val), 0);
}

void
writer_splice_n(struct writer *w, const struct record *rec, size_t col,
    const char *val, size_t len)
{
	splice_at(w, rec, col, val, len, 1);
}

size_t
u64_str(char *s, uint64_t v)
{
	size_t n = u64_at(s, v);

	s[n] = '\0';
	return n;
}

void
writer_splice_u64(struct writer *w, const struct record *rec, size_t col,
    uint64_t val)
{
	char tmp[20 + 8];

	splice_at(w, rec, col, tmp, u64_at(tmp, val), 1);
}

void
writer_flush(struct writer *w)
{
	passed(w);
	drain(w);
	if (w->bg != NULL)
		wait_idle(w);
}

static void
writer_free(struct writer *w)
{
	if (w->gz) {
		libdeflate_free_compressor(w->z);
		free(w->zout);
	}
	free(w->buf);
	free(w->memo);
	free(w->name);
	free(w);
}

void
writer_close(struct writer *w)
{
	if (w == NULL)
		return;
	if (w->failed) {
		writer_discard(w);
		return;
	}
	atexit_writer(w, 0);
	w->len = w->mark;
	writer_flush(w);
	bg_end(w, 0);
	if (w->fd != STDOUT_FILENO)
		outfile_commit(&w->file);
	writer_free(w);
}

/* Nothing of it reaches its name: a refusal, a failed write, a crash. */
void
writer_discard(struct writer *w)
{
	if (w == NULL)
		return;
	atexit_writer(w, 0);
	bg_end(w, 1);		/* it writes to the descriptor closed here */
	if (w->fd != STDOUT_FILENO)
		outfile_discard(&w->file);
	writer_free(w);
}
