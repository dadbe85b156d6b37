/*
 * Reading the record stream.  The common case, a line with no quote, is
 * split on commas by hand; any line with a quote goes to libcsv, which owns
 * RFC 4180.  Nothing is allocated per record: buffers grow to the largest
 * record seen and are reused.
 *
 * A gzip file on disk is inflated on a second thread: inflating costs
 * about what everything else a stage does with a record costs, and the
 * machine has more than one CPU.  The thread fills slabs that fill()
 * copies from.  A pipe is inflated in line: its read may block, and only
 * the reading thread would see the signal that should end it.
 */
#include <sys/stat.h>

#include <endian.h>
#include <errno.h>
#include <pthread.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include <csv.h>
#include <libdeflate.h>
#include <zlib.h>

#include "digits.h"
#include "show.h"
#include "util.h"

/* The fuzz build makes it tiny: then small inputs cross every refill. */
#ifndef READ_CHUNK
#define READ_CHUNK	(256 * 1024)
#endif

#define SLABS		4
#define SLAB_SIZE	(4 * READ_CHUNK)
/* Room for a whole member as lib/writer.c makes them (256 KiB of text). */
#define FAST_ROOM	READ_CHUNK
/*
 * Bytes allocated past buf's cap, never filled: a record's raw bytes can
 * be read 32 at a time to their end (lib/writer.c's splice).
 */
#define RAW_PAD		32

int reader_live;

struct slab {
	char		*data;
	size_t		 len, off;
};

/* The inflating thread's side: slabs [head, tail) are full. */
struct inflater {
	pthread_t	 thread;
	pthread_mutex_t	 mu;
	pthread_cond_t	 cv;
	struct slab	 slab[SLABS];
	unsigned	 head, tail;
	int		 done;		/* it has stopped: end of input, or error */
	int		 stop;		/* asked to stop */
	int		 status;	/* 0 end; Z_DATA_ERROR corrupt; -1 read error */
	int		 error;		/* errno of a read error */
	char		 msg[128];	/* zlib's word on corrupt data */
};

struct reader {
	int		 fd;
	char		*name;
	unsigned long	 line;		/* lines consumed so far */
	int		 seen_header;
	int		 eof;		/* fd exhausted */
	int		 cut;		/* ended inside a gzip member */

	/* Decoded bytes; records are cut from buf[start, end). */
	char		*buf;
	size_t		 cap, start, end;

	/* gzip input, when the file is compressed. */
	int		 gz;
	int		 in_member;	/* inside a gzip member not yet ended */
	z_stream	 z;
	unsigned char	*zin;
	struct libdeflate_decompressor *dz;	/* whole members */
	struct inflater	*inf;		/* or NULL: inflated in line */

	/* The current record's fields. */
	char		*scratch;
	size_t		 scap, slen;
	char		**fv;
	size_t		*foff;
	size_t		 fcap, nf;
	struct csv_parser csv;
	int		 csv_records;

	void		(*moving)(void *);	/* reader_moving()'s */
	void		*moving_arg;
};

static void	 bad(struct reader *, unsigned long, const char *, ...)
		    __attribute__((noreturn, format(printf, 3, 4)));

static void
bad(struct reader *r, unsigned long line, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (line)
		diex(EX_DATAERR, "%s:%lu: %s", r->name, line, msg);
	diex(EX_DATAERR, "%s: %s", r->name, msg);
}

/*
 * A signal ends the input as if it ended there (see catch_signals()).
 * -1 and errno on a read error.
 */
static ssize_t
read_some(struct reader *r, void *p, size_t n)
{
	ssize_t got;

	for (;;) {
		if (interrupted)
			return 0;
		got = read(r->fd, p, n);
		if (got >= 0 || errno != EINTR)
			return got;
	}
}

static void
make_room(struct reader *r)
{
	if (r->moving != NULL)
		r->moving(r->moving_arg);
	if (r->start > 0) {
		memmove(r->buf, r->buf + r->start, r->end - r->start);
		r->end -= r->start;
		r->start = 0;
	}
	if (r->cap - r->end < READ_CHUNK / 2) {
		r->cap *= 2;
		r->buf = xrealloc(r->buf, r->cap + RAW_PAD);
	}
}

/*
 * Inflate into out[0, cap): the bytes made, at least one; 0 at the end
 * of the input (r->cut: inside a member); -1 on a read error (errno), or
 * Z_DATA_ERROR on corrupt data.  Called by one thread only.
 */
/*
 * A whole member in the input, and room for what it makes: libdeflate,
 * at twice zlib's speed (reading a full recorder is half inflating).
 * Anything else, a member cut by the buffer or the file, one larger than
 * the room, corrupt data, is zlib's, which streams and says what is
 * wrong.  The bytes made, 0 for zlib to go on, -1 on a read error.
 */
static ssize_t
inflate_fast(struct reader *r, char *out, size_t cap)
{
	size_t used, made;
	ssize_t got;

	if (r->in_member || cap < FAST_ROOM)
		return 0;
	/* What is left at the front of zin, more after it. */
	if (r->z.avail_in < READ_CHUNK / 2 && !r->eof) {
		memmove(r->zin, r->z.next_in, r->z.avail_in);
		r->z.next_in = r->zin;
		if ((got = read_some(r, r->zin + r->z.avail_in,
		    READ_CHUNK - r->z.avail_in)) == -1)
			return -1;
		if (got == 0)
			r->eof = 1;
		r->z.avail_in += got;
	}
	if (r->z.avail_in == 0 || libdeflate_gzip_decompress_ex(r->dz,
	    r->z.next_in, r->z.avail_in, out, cap, &used, &made) !=
	    LIBDEFLATE_SUCCESS)
		return 0;
	r->z.next_in += used;
	r->z.avail_in -= used;
	return made;
}

static ssize_t
inflate_some(struct reader *r, char *out, size_t cap)
{
	ssize_t got;
	size_t made;
	int zr;

	for (made = 0; made == 0; ) {
		if ((got = inflate_fast(r, out, cap)) != 0)
			return got;
		if (r->z.avail_in == 0 && !r->eof) {
			if ((got = read_some(r, r->zin, READ_CHUNK)) == -1)
				return -1;
			if (got == 0)
				r->eof = 1;
			r->z.next_in = r->zin;
			r->z.avail_in = got;
		}
		if (r->z.avail_in == 0) {
			r->cut = r->in_member;
			return 0;
		}
		r->z.next_out = (unsigned char *)out;
		r->z.avail_out = cap;
		zr = inflate(&r->z, Z_NO_FLUSH);
		r->in_member = 1;
		made = cap - r->z.avail_out;
		if (zr == Z_STREAM_END) {
			/* gzip members follow each other: start the next. */
			inflateReset(&r->z);
			r->in_member = 0;
		} else if (zr != Z_OK && zr != Z_BUF_ERROR)
			return Z_DATA_ERROR;
	}
	return made;
}

static void *
inflater(void *arg)
{
	struct reader *r = arg;
	struct inflater *in = r->inf;
	struct slab *sl;
	ssize_t n = 0;

	for (;;) {
		pthread_mutex_lock(&in->mu);
		while (!in->stop && in->tail - in->head == SLABS)
			pthread_cond_wait(&in->cv, &in->mu);
		if (in->stop) {
			pthread_mutex_unlock(&in->mu);
			return NULL;
		}
		sl = &in->slab[in->tail % SLABS];
		pthread_mutex_unlock(&in->mu);

		sl->len = sl->off = 0;
		/* A member that would not fit whole waits for the next. */
		while (sl->len < SLAB_SIZE && (sl->len == 0 || r->in_member ||
		    SLAB_SIZE - sl->len >= FAST_ROOM) &&
		    (n = inflate_some(r, sl->data + sl->len,
		    SLAB_SIZE - sl->len)) > 0)
			sl->len += n;

		pthread_mutex_lock(&in->mu);
		if (sl->len > 0)
			in->tail++;
		if (n <= 0) {
			in->done = 1;
			in->status = n;
			in->error = errno;
			if (n == Z_DATA_ERROR && r->z.msg != NULL)
				snprintf(in->msg, sizeof(in->msg), "%s",
				    r->z.msg);
		}
		pthread_cond_broadcast(&in->cv);
		pthread_mutex_unlock(&in->mu);
		if (n <= 0)
			return NULL;
	}
}

static void
inflater_start(struct reader *r)
{
	struct inflater *in;
	sigset_t all, old;
	int i;

	in = r->inf = xcalloc(1, sizeof(*in));
	for (i = 0; i < SLABS; i++)
		in->slab[i].data = xmalloc(SLAB_SIZE);
	pthread_mutex_init(&in->mu, NULL);
	pthread_cond_init(&in->cv, NULL);
	/* Signals are the reading thread's: it decides what they end. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	if ((errno = pthread_create(&in->thread, NULL, inflater, r)) != 0)
		die(EX_OSERR, "%s: a thread to inflate it", r->name);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
}

static void
inflater_end(struct reader *r)
{
	struct inflater *in = r->inf;
	int i;

	pthread_mutex_lock(&in->mu);
	in->stop = 1;
	pthread_cond_broadcast(&in->cv);
	pthread_mutex_unlock(&in->mu);
	pthread_join(in->thread, NULL);
	for (i = 0; i < SLABS; i++)
		free(in->slab[i].data);
	pthread_mutex_destroy(&in->mu);
	pthread_cond_destroy(&in->cv);
	free(in);
	r->inf = NULL;
}

/* The end of a compressed input, as inflate_some() said: 0, or said. */
static int
gz_end(struct reader *r, ssize_t status, int error, const char *msg)
{
	if (status == -1) {
		errno = error;
		die(EX_IOERR, "%s: read", r->name);
	}
	if (status == Z_DATA_ERROR)
		bad(r, 0, "corrupt compressed data after line %lu: %s",
		    r->line, *msg ? msg : "inflate failed");
	/* Only the cut record is lost: all before it went out. */
	if (r->cut && !reader_live && !interrupted)
		bad(r, 0, "compressed data cut short after line %lu", r->line);
	return 0;
}

/* Copied from the inflating thread's next slab. */
static int
fill_slab(struct reader *r)
{
	struct inflater *in = r->inf;
	struct slab *sl;
	size_t n;

	pthread_mutex_lock(&in->mu);
	while (in->head == in->tail && !in->done)
		pthread_cond_wait(&in->cv, &in->mu);
	if (in->head == in->tail) {
		pthread_mutex_unlock(&in->mu);
		return gz_end(r, in->status, in->error, in->msg);
	}
	sl = &in->slab[in->head % SLABS];
	pthread_mutex_unlock(&in->mu);

	n = sl->len - sl->off;
	if (n > r->cap - r->end)
		n = r->cap - r->end;
	memcpy(r->buf + r->end, sl->data + sl->off, n);
	r->end += n;
	sl->off += n;
	if (sl->off == sl->len) {
		pthread_mutex_lock(&in->mu);
		in->head++;
		pthread_cond_broadcast(&in->cv);
		pthread_mutex_unlock(&in->mu);
	}
	return 1;
}

/* More decoded bytes into buf: 1 on progress, 0 at end of input. */
static int
fill(struct reader *r)
{
	ssize_t got;

	make_room(r);
	if (r->inf != NULL)
		return fill_slab(r);
	if (!r->gz) {
		if (r->eof)
			return 0;
		if ((got = read_some(r, r->buf + r->end, r->cap - r->end)) == -1)
			die(EX_IOERR, "%s: read", r->name);
		if (got == 0)
			r->eof = 1;
		r->end += got;
		return got > 0;
	}
	got = inflate_some(r, r->buf + r->end, r->cap - r->end);
	if (got <= 0)
		return gz_end(r, got, errno, r->z.msg ? r->z.msg : "");
	r->end += got;
	return 1;
}

struct reader *
reader_open(const char *path)
{
	struct reader *r;
	struct stat st;
	ssize_t got;

	r = xcalloc(1, sizeof(*r));
	if (path == NULL || strcmp(path, "-") == 0) {
		r->fd = STDIN_FILENO;
		r->name = xstrdup("<stdin>");
	} else {
		if ((r->fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
			die(EX_NOINPUT, "%s", path);
		r->name = xstrdup(path);
	}
	file_note(r->fd, r->name, 0);	/* never also an output */
	pipe_widen(r->fd);
	r->cap = READ_CHUNK * 2;
	r->buf = xmalloc(r->cap + RAW_PAD);
	r->scap = 4096;
	r->scratch = xmalloc(r->scap);
	r->fcap = 64;
	r->fv = xmalloc(r->fcap * sizeof(*r->fv));
	r->foff = xmalloc(r->fcap * sizeof(*r->foff));

	/*
	 * Sniff the gzip magic; what we read is kept either way, so it must
	 * fit in zin: a first read of one byte, then a whole chunk, must not
	 * make READ_CHUNK + 1.
	 */
	while (r->end < 2 && !r->eof) {
		got = read_some(r, r->buf + r->end, READ_CHUNK - r->end);
		if (got == -1)
			die(EX_IOERR, "%s: read", r->name);
		if (got == 0)
			r->eof = 1;
		r->end += got;
	}
	if (r->end >= 2 && (unsigned char)r->buf[0] == 0x1f &&
	    (unsigned char)r->buf[1] == 0x8b) {
		r->gz = 1;
		r->zin = xmalloc(READ_CHUNK);
		memcpy(r->zin, r->buf, r->end);
		if (inflateInit2(&r->z, 16 + MAX_WBITS) != Z_OK)
			diex(EX_SOFTWARE, "inflateInit2 failed");
		if ((r->dz = libdeflate_alloc_decompressor()) == NULL)
			diex(EX_OSERR, "libdeflate_alloc_decompressor failed");
		r->z.next_in = r->zin;
		r->z.avail_in = r->end;
		r->end = 0;
		if (fstat(r->fd, &st) == 0 && S_ISREG(st.st_mode))
			inflater_start(r);
	}
	if (csv_init(&r->csv, CSV_STRICT | CSV_STRICT_FINI | CSV_APPEND_NULL))
		diex(EX_SOFTWARE, "csv_init failed");
	/*
	 * libcsv grows a field by this much at a time (128 bytes by default):
	 * a field of megabytes would be copied thousands of times.
	 */
	csv_set_blk_size(&r->csv, READ_CHUNK);
	return r;
}

void
reader_moving(struct reader *r, void (*fn)(void *), void *arg)
{
	r->moving = fn;
	r->moving_arg = arg;
}

void
reader_close(struct reader *r)
{
	if (r == NULL)
		return;
	if (r->inf != NULL)
		inflater_end(r);
	if (r->gz) {
		inflateEnd(&r->z);
		libdeflate_free_decompressor(r->dz);
		free(r->zin);
	}
	if (r->fd != STDIN_FILENO)
		close(r->fd);
	csv_free(&r->csv);
	free(r->buf);
	free(r->scratch);
	free(r->fv);
	free(r->foff);
	free(r->name);
	free(r);
}

static void
scratch_reserve(struct reader *r, size_t n)
{
	if (n > r->scap) {
		while (r->scap < n)
			r->scap *= 2;
		r->scratch = xrealloc(r->scratch, r->scap);
	}
}

static void
fields_grow(struct reader *r)
{
	r->fcap *= 2;
	r->fv = xrealloc(r->fv, r->fcap * sizeof(*r->fv));
	r->foff = xrealloc(r->foff, r->fcap * sizeof(*r->foff));
}

/* libcsv's fields: scratch may move as they come, so offsets for now. */
static inline void
field_add(struct reader *r, size_t off)
{
	if (r->nf == r->fcap)
		fields_grow(r);
	r->foff[r->nf++] = off;
}

/* split_plain's: scratch is reserved first and stays put. */
static inline void
field_at(struct reader *r, char *p)
{
	if (r->nf == r->fcap)
		fields_grow(r);
	r->fv[r->nf++] = p;
}

#ifndef __SSE2__
/*
 * The fast path: no quotes, so every comma separates two fields.  Fields
 * are short, so a memchr call per field costs more than the search; this
 * copies and cuts a word at a time instead.
 */
static void
split_plain(struct reader *r, const char *line, size_t len)
{
	const uint64_t low7 = 0x7f7f7f7f7f7f7f7fULL, commas = ~low7 / 0x80 * ',';
	uint64_t w, x, m;
	char *d;
	size_t i, at;

	scratch_reserve(r, len + 8);
	d = r->scratch;
	r->nf = 0;
	field_at(r, d);
	for (i = 0; i + 8 <= len; i += 8) {
		memcpy(&w, line + i, 8);
		memcpy(d + i, &w, 8);
		x = w ^ commas;
		/*
		 * High bit set in each byte of x that is zero, and only
		 * those (no carry crosses a byte): the commas.  The bytes are
		 * in memory order, so the word is read as little-endian.
		 */
		for (m = le64toh(~(((x & low7) + low7) | x | low7)); m;
		    m &= m - 1) {
			at = i + (__builtin_ctzll(m) >> 3);
			d[at] = '\0';
			field_at(r, d + at + 1);
		}
	}
	for (; i < len; i++) {
		if ((d[i] = line[i]) == ',') {
			d[i] = '\0';
			field_at(r, d + i + 1);
		}
	}
	d[len] = '\0';
}

#endif

static int
no_space(unsigned char c)
{
	(void)c;
	return 0;	/* spaces are data: round trips must be exact */
}

static void
csv_field(void *s, size_t len, void *arg)
{
	struct reader *r = arg;

	/* The 8 bytes more: see padded_u64(). */
	scratch_reserve(r, r->slen + len + 1 + 8);
	memcpy(r->scratch + r->slen, s, len);
	r->scratch[r->slen + len] = '\0';
	field_add(r, r->slen);
	r->slen += len + 1;
}

static void
csv_eor(int c, void *arg)
{
	struct reader *r = arg;

	(void)c;
	r->csv_records++;
}

static void
split_csv(struct reader *r, const char *rec, size_t len, unsigned long line)
{
	r->nf = 0;
	r->slen = 0;
	r->csv_records = 0;
	csv_set_space_func(&r->csv, no_space);
	if (csv_parse(&r->csv, rec, len, csv_field, csv_eor, r) != len ||
	    csv_fini(&r->csv, csv_field, csv_eor, r) != 0)
		bad(r, line, "malformed record: %s",
		    csv_strerror(csv_error(&r->csv)));
	if (r->csv_records != 1)
		bad(r, line, "malformed record: a carriage return ends it early");
}

/*
 * Where the record starting at p ends: the first newline outside quotes.
 * Doubled quotes inside a quoted field flip the parity twice, so counting
 * quotes is enough.
 */
static const char *
record_end(const char *p, const char *end, int *quoted)
{
	const char *nl, *q;
	int odd = 0;

	*quoted = 0;
	while ((nl = memchr(p, '\n', end - p)) != NULL) {
		for (q = p; (q = memchr(q, '"', nl - q)) != NULL; q++) {
			odd ^= 1;
			*quoted = 1;
		}
		if (!odd)
			return nl;
		p = nl + 1;
	}
	return NULL;
}

/* plain_line()'s answer for a line it leaves to record_end(). */
#define NOT_PLAIN	((size_t)-1)

#ifdef __SSE2__
/*
 * The record at p, if it is one plain line: found, copied and split in
 * one pass, sixteen bytes at a time, where the way of record_end() and
 * split_plain() reads each line three times (two memchr calls that cost
 * more to start than to run on a line of 80 bytes, then the split).  Its
 * length, or NOT_PLAIN: a quote before the newline, or no newline in
 * [p, p + avail), for record_end() and libcsv to decide.  Nothing past
 * p + avail is read.
 */
static size_t
plain_line(struct reader *r, const char *p, size_t avail)
{
	const __m128i comma = _mm_set1_epi8(','), nl = _mm_set1_epi8('\n'),
	    quote = _mm_set1_epi8('"');
	__m128i v0, v1, c0, c1;
	uint64_t mc, me;
	size_t i, at, nf;
	char *d, *next, **fv, **fp, **room;

	/* The 8 bytes more: see padded_u64(). */
	scratch_reserve(r, avail + 8);
	d = r->scratch;
	/*
	 * In locals: a store of a byte may alias r's members, for all the
	 * compiler knows, and they would be loaded again after each.  Room
	 * for a block's fields is made before it.  A field is a store
	 * through fp: an index would be scaled and added at each.
	 */
	fv = r->fv;
	fp = fv;
	*fp++ = d;
	room = fv + r->fcap - 32;
	/*
	 * Two vectors a block: what a block costs besides its fields (the
	 * room, the masks, the tests of a line's end) is paid once for 32
	 * bytes, and a line is 70 or so.
	 */
	for (i = 0; i + 32 <= avail; i += 32) {
		if (fp > room) {
			r->nf = fp - fv;
			fields_grow(r);
			fv = r->fv;
			fp = fv + r->nf;
			room = fv + r->fcap - 32;
		}
		v0 = _mm_loadu_si128((const __m128i *)(p + i));
		v1 = _mm_loadu_si128((const __m128i *)(p + i + 16));
		c0 = _mm_cmpeq_epi8(v0, comma);
		c1 = _mm_cmpeq_epi8(v1, comma);
		/*
		 * Copied with its commas cut to NULs in the one store: a
		 * store of a byte a field was most of a field's cost.  Those
		 * past the line's end are cut too, which nothing reads.
		 */
		_mm_storeu_si128((__m128i *)(d + i), _mm_andnot_si128(c0, v0));
		_mm_storeu_si128((__m128i *)(d + i + 16),
		    _mm_andnot_si128(c1, v1));
		mc = (unsigned)_mm_movemask_epi8(c0) |
		    (uint64_t)(unsigned)_mm_movemask_epi8(c1) << 16;
		me = (unsigned)_mm_movemask_epi8(_mm_or_si128(
		    _mm_cmpeq_epi8(v0, nl), _mm_cmpeq_epi8(v0, quote))) |
		    (uint64_t)(unsigned)_mm_movemask_epi8(_mm_or_si128(
		    _mm_cmpeq_epi8(v1, nl), _mm_cmpeq_epi8(v1, quote))) << 16;
		if (me != 0)
			mc &= (me & -me) - 1;	/* those before it */
		/*
		 * next opaque to the compiler: else it adds d and i + 1
		 * again at each field.
		 */
		next = d + i + 1;
		__asm__("" : "+r" (next));
		for (; mc; mc &= mc - 1)
			*fp++ = next + __builtin_ctzll(mc);
		if (me != 0) {
			r->nf = fp - fv;
			at = i + __builtin_ctzll(me);
			if (p[at] != '\n')
				return NOT_PLAIN;
			d[at] = '\0';
			return at;
		}
	}
	nf = fp - fv;
	r->nf = nf;
	for (; i < avail; i++) {
		if ((d[i] = p[i]) == ',') {
			d[i] = '\0';
			field_at(r, d + i + 1);
		} else if (p[i] == '\n') {
			d[i] = '\0';
			return i;
		} else if (p[i] == '"')
			return NOT_PLAIN;
	}
	return NOT_PLAIN;
}
#else
static size_t
plain_line(struct reader *r, const char *p, size_t avail)
{
	const char *eol;
	int quoted;

	if ((eol = record_end(p, p + avail, &quoted)) == NULL || quoted)
		return NOT_PLAIN;
	split_plain(r, p, eol - p);
	return eol - p;
}
#endif

/* Twenty digits: the nineteen first cannot overflow, the last may. */
static int
twenty_digits(const char *s, uint64_t *v)
{
	uint64_t x = 0, d;
	int i;

	for (i = 0; i < 19; i++)
		x = x * 10 + (uint64_t)(s[i] - '0');
	d = (uint64_t)(s[19] - '0');
	if (x > (UINT64_MAX - d) / 10)
		return 0;
	*v = x * 10 + d;
	return 1;
}

/*
 * A field of the reader's own, as record_u64_opt() reads one, eight
 * digits at a time: a digit loop's every step waits on the one before,
 * and its end is a branch no predictor guesses for numbers of every
 * length.  s must have 8 bytes readable from it, which every field of
 * the reader's scratch has (split_plain() and csv_field() keep 8 more
 * after the last), and 8 more past each run of 8 digits: they are not
 * its NUL, so the field goes on.
 */
static int
padded_any(const char *s, uint64_t *v)
{
	static const uint64_t pow10[] = { 1, 10, 100, 1000, 10000, 100000,
	    1000000, 10000000, 100000000 };
	const uint64_t low7 = 0x7f7f7f7f7f7f7f7fULL, ones = ~low7 / 0x80;
	uint64_t w, x, c, nondig, total = 0;
	unsigned n, off;

	for (off = 0; ; off += 8) {
		memcpy(&w, s + off, 8);
		w = le64toh(w);
		/* Digits are the bytes x of 0 to 9; the first other ends. */
		x = w ^ ones * '0';
		nondig = (((x & low7) + ones * (0x80 - 10)) | x) & ~low7;
		n = nondig ? __builtin_ctzll(nondig) >> 3 : 8;
		if (n < 8 && (w >> (n * 8) & 0xff) != 0)
			return 0;	/* not a digit, not the end */
		if (n == 0)
			break;
		/* Leading zeros in front, then digit pairs, fours, eights. */
		c = x << (64 - n * 8);
		c = (c * 10 + (c >> 8)) & 0x00ff00ff00ff00ffULL;
		c = (c * 100 + (c >> 16)) & 0x0000ffff0000ffffULL;
		c = (c * 10000 + (c >> 32)) & 0xffffffffULL;
		total = total * pow10[n] + c;
		if (n < 8 || off == 16)
			break;
	}
	n += off;
	if (n == 0 || n > 20 || (n == 20 && s[20] != '\0'))
		return 0;
	if (n == 20)
		return twenty_digits(s, v);
	*v = total;
	return 1;
}

/*
 * Eight digits at s, then up to seven more: a time in nanoseconds (14
 * digits for a day of uptime, 16 for a year), in two words and no loop.
 * Longer ones are padded_any()'s.
 */
static inline int
padded_long(const char *s, uint64_t *v)
{
	static const uint64_t pow10[] = { 1, 10, 100, 1000, 10000, 100000,
	    1000000, 10000000 };
	const uint64_t low7 = 0x7f7f7f7f7f7f7f7fULL, ones = ~low7 / 0x80;
	uint64_t w, x, nondig, high;
	unsigned n;

	memcpy(&w, s, 8);
	high = word_digits(le64toh(w) ^ ones * '0');
	memcpy(&w, s + 8, 8);
	w = le64toh(w);
	x = w ^ ones * '0';
	nondig = (((x & low7) + ones * (0x80 - 10)) | x) & ~low7;
	if (nondig == 0)
		return padded_any(s, v);
	n = __builtin_ctzll(nondig) >> 3;
	if ((w >> (n * 8) & 0xff) != 0)
		return 0;	/* not a digit, not the end */
	*v = n == 0 ? high : high * pow10[n] + word_digits(x << (64 - n * 8));
	return 1;
}

/* Any number: padded_short()'s (lib/stream.h), or padded_long()'s. */
static inline int
padded_u64(const char *s, uint64_t *v)
{
	int r;

	if ((r = padded_short(s, v)) >= 0)
		return r;
	return padded_long(s, v);
}

/*
 * A field of the reader's whose length is known (the next field's start
 * says it): the record's time, 9 to 16 digits (a day of uptime in
 * nanoseconds is 14), as two words that overlap, its first eight and
 * its last eight, with no test of where it ends and no loop; 8 or fewer
 * as one word.  Longer ones are padded_u64()'s.
 */
static inline int
known_u64(const char *s, size_t len, uint64_t *v)
{
	static const uint64_t pow10[] = { 1, 10, 100, 1000, 10000, 100000,
	    1000000, 10000000, 100000000 };
	const uint64_t low7 = 0x7f7f7f7f7f7f7f7fULL, ones = ~low7 / 0x80;
	uint64_t x0, x1;

	if (len == 0 || len > 16)
		return padded_u64(s, v);
	memcpy(&x0, s, 8);
	x0 = le64toh(x0) ^ ones * '0';
	if (len <= 8) {
		/* Zeros shifted in ahead of it read as leading zeros. */
		x0 <<= 64 - 8 * len;
		if (((((x0 & low7) + ones * (0x80 - 10)) | x0) & ~low7) != 0)
			return 0;
		*v = word_digits(x0);
		return 1;
	}
	memcpy(&x1, s + len - 8, 8);
	x1 = le64toh(x1) ^ ones * '0';
	if (((((x0 & low7) + ones * (0x80 - 10)) | x0 |
	    ((x1 & low7) + ones * (0x80 - 10)) | x1) & ~low7) != 0)
		return 0;
	/* x1's bytes that x0 has too are dropped: zeros ahead of it. */
	*v = word_digits(x0) * pow10[len - 8] +
	    word_digits(x1 & ~0ULL << 8 * (16 - len));
	return 1;
}

static void
check_version(struct reader *r, const struct record *rec)
{
	uint64_t v;

	if (!record_u64_opt(rec, 1, &v) || v != STREAM_VERSION)
		bad(r, rec->line, "record stream version '%s' is not supported "
		    "(this build reads version %d)", show(record_str(rec, 1)),
		    STREAM_VERSION);
	r->seen_header = 1;
}

int
reader_next(struct reader *r, struct record *rec)
{
	const char *p, *end, *eol;
	unsigned long first;
	size_t i, len;
	int quoted, more;

	for (;;) {
		p = r->buf + r->start;
		end = r->buf + r->end;
		if ((len = plain_line(r, p, end - p)) != NOT_PLAIN) {
			quoted = 0;
			eol = p + len;
		} else
			eol = record_end(p, end, &quoted);
		if (eol == NULL) {
			more = fill(r);
			if (more)
				continue;
			/* fill() may have moved or reallocated the buffer. */
			p = r->buf + r->start;
			end = r->buf + r->end;
			if (interrupted) {
				/* Cut by a signal, not by its writer: no error. */
				r->start = r->end;
				return 0;
			}
			if (reader_live && (r->cut || r->start < r->end)) {
				/* Still being written: its last flush is its end. */
				r->start = r->end;
				return 0;
			}
			/* Made, and nothing flushed into it yet (a ring's
			 * newest file, just begun). */
			if (reader_live && !r->seen_header && r->line == 0)
				return 0;
			if (r->start < r->end && memchr(p, '"', end - p))
				bad(r, r->line + 1, "malformed record: a quoted "
				    "field is never closed");
			if (r->start < r->end)
				bad(r, r->line + 1, "record cut short "
				    "(no end of line before the end of input)");
			if (!r->seen_header)
				bad(r, 0, "empty input: not an Argus record stream");
			return 0;
		}
		len = eol - p;
		first = r->line + 1;
		r->line++;
		for (i = 0; quoted && i < len; i++)
			r->line += p[i] == '\n';
		r->start += len + 1;
		if (len == 0)
			continue;	/* blank lines carry nothing */

		rec->raw = p;
		rec->rawlen = len;
		rec->file = r->name;
		rec->line = first;
		rec->time = NO_TIME;
		rec->quoted = quoted;
		rec->padded = 1;
		if (p[0] == '#') {
			rec->comment = 1;
			rec->f = NULL;
			rec->nf = 0;
		} else {
			rec->comment = 0;
			/* A plain line is split: plain_line(). */
			if (quoted) {
				split_csv(r, p, len, first);
				for (i = 0; i < r->nf; i++)
					r->fv[i] = r->scratch + r->foff[i];
			}
			rec->f = r->fv;
			rec->nf = r->nf;
		}
		/* Concatenated streams repeat the header: check, swallow. */
		if (!rec->comment && rec->f[0][0] == STREAM_MAGIC[0] &&
		    strcmp(rec->f[0], STREAM_MAGIC) == 0) {
			check_version(r, rec);
			continue;
		}
		if (!r->seen_header)
			bad(r, first, "not an Argus record stream: the first "
			    "line must be '%s,%d'", STREAM_MAGIC, STREAM_VERSION);
		if (rec->comment)
			return 1;
		if (rec->f[0][0] == '\0')
			bad(r, first, "malformed record: empty record kind");
		if (rec->nf > COL_TIME && rec->f[COL_TIME][0] != '\0' &&
		    !(rec->nf > COL_TIME + 1 ? known_u64(rec->f[COL_TIME],
		    rec->f[COL_TIME + 1] - rec->f[COL_TIME] - 1, &rec->time) :
		    padded_u64(rec->f[COL_TIME], &rec->time)))
			bad(r, first, "malformed record: time '%s' is not an "
			    "integer count of nanoseconds",
			    show(rec->f[COL_TIME]));
		return 1;
	}
}

/* record_u64_opt(), in line in the two others that stages call more. */
static inline __attribute__((always_inline)) int
field_u64(const struct record *rec, size_t col, uint64_t *v)
{
	const char *s, *p;
	uint64_t x = 0, d;

	if (col >= rec->nf || *(s = rec->f[col]) == '\0')
		return 0;
	/* The reader's own fields, every one a stage reads: by words. */
	if (rec->padded)
		return padded_u64(s, v);
	/*
	 * A record made by hand: nothing in the loop but the digit.  It
	 * ends at the NUL, or at anything else, which makes it no number;
	 * only a number of twenty digits, UINT64_MAX's, may have overflowed.
	 */
	for (p = s; (d = (unsigned char)*p - (uint64_t)'0') <= 9; p++)
		x = x * 10 + d;
	if (*p != '\0' || p - s > 20)
		return 0;
	if (p - s == 20)
		return twenty_digits(s, v);
	*v = x;
	return 1;
}

int
record_u64_opt(const struct record *rec, size_t col, uint64_t *v)
{
	return field_u64(rec, col, v);
}

uint64_t
record_u64(const struct record *rec, size_t col)
{
	uint64_t v;

	if (!field_u64(rec, col, &v))
		diex(EX_DATAERR, "%s:%lu: %s record: column %zu: expected an "
		    "unsigned integer, got '%s'", rec->file, rec->line,
		    rec->nf ? show(rec->f[0]) : "?", col + 1,
		    show(record_str(rec, col)));
	return v;
}

/*
 * A process id: empty where the capture never learnt it, which is 0 here
 * (no thread but a CPU's idle task has process 0).
 */
uint32_t
record_pid(const struct record *rec, size_t col)
{
	uint64_t v;

	if (*record_str(rec, col) == '\0')
		return 0;
	if (!field_u64(rec, col, &v) || v > UINT32_MAX)
		diex(EX_DATAERR, "%s:%lu: %s record: column %zu: expected a "
		    "process id, got '%s'", rec->file, rec->line,
		    rec->nf ? show(rec->f[0]) : "?", col + 1,
		    show(record_str(rec, col)));
	return v;
}

const char *
record_str(const struct record *rec, size_t col)
{
	return col < rec->nf ? rec->f[col] : "";
}
