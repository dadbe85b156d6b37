/*
 * The Argus record stream: line-oriented CSV, gzip at rest, plain in pipes.
 * See argus-stream(5) for the format; this is the one reader and the one
 * writer every program uses.
 */
#ifndef ARGUS_STREAM_H
#define ARGUS_STREAM_H

#include <endian.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "file.h"

#define STREAM_VERSION	1
#define STREAM_MAGIC	"argus-stream"

/* Columns every record kind shares: KIND,TIME,PID,TID,... */
enum { COL_KIND, COL_TIME, COL_PID, COL_TID, COL_FIRST_OWN };

/*
 * The KINDs of records, named so and never spelt out (lib/graph.c's
 * kinds[] gives each one's columns).
 */
#define KIND_META	"meta"
#define KIND_TASK	"task"
#define KIND_EVENT	"event"
#define KIND_LOST	"lost"
#define KIND_STACK	"stack"
#define KIND_WAIT	"wait"		/* lib/waits.h: the wait-for snapshot */
#define KIND_HOLDER	"holder"
#define KIND_SOCK	"sock"
#define KIND_BOUNDARY	"boundary"	/* argus-segment's hints */
#define KIND_CULL	"cull"
#define KIND_VERTEX	"vertex"	/* lib/graph.h: the graph */
#define KIND_LINK	"link"
#define KIND_SPIN	"spin"
#define KIND_BASELINE	"baseline"
#define KIND_STEP	"step"
#define KIND_ROOT	"root"
#define KIND_SUMMARY	"summary"
/* A lost record's own columns: the CPU, and how many events it lost. */
enum { LOST_CPU = COL_FIRST_OWN, LOST_COUNT };
/* A task record's: the thread's name, its process's cgroup. */
enum { TASK_COMM = COL_FIRST_OWN, TASK_CGROUP };
/* A cull hint's: the END of the span to cull, and its REASON. */
enum { CULL_END = COL_FIRST_OWN, CULL_REASON };
/* A summary's: the PROGRAM that wrote it, then KEY,VALUE pairs. */
enum { SUMMARY_PROGRAM = COL_FIRST_OWN };
/*
 * A meta record's: meta,TIME,,,KEY,VALUE.  A patched program's losses,
 * meta,UNTIL,PID,,patch_lost,N,SINCE; a merged stream's hosts,
 * meta,,,,host,INDEX,HOSTNAME,BOOT_ID,NETNS,PID_BASE,CPU_BASE,OFFSET,ERROR.
 */
enum { META_KEY = COL_FIRST_OWN, META_VALUE };
enum { PATCH_LOST_COUNT = META_VALUE, PATCH_LOST_SINCE };
enum { HOST_INDEX = META_VALUE, HOST_NAME, HOST_BOOT_ID, HOST_NETNS,
    HOST_PID_BASE, HOST_CPU_BASE, HOST_OFFSET, HOST_ERROR };

#define NO_TIME		UINT64_MAX

/* A flight recorder's files: RING_PREFIX, a sequence number, RING_SUFFIX. */
#define RING_PREFIX	"argus-ring-"
#define RING_SUFFIX	".csv.gz"
/*
 * And beside each, its relation index (lib/relate.h): the same number
 * after RELATE_PREFIX, the records argus-relate needs (2 to 16 in 100
 * of the ring's, fewer the busier the machine).
 */
#define RELATE_PREFIX	"argus-rel-"
/*
 * Wait-for snapshots beside them (argus mark, argus debug): SNAP_PREFIX,
 * the CLOCK_MONOTONIC ns they were taken at, SNAP_SUFFIX.
 */
#define SNAP_PREFIX	"argus-snap-"
#define SNAP_SUFFIX	".csv.gz"

/*
 * One record as read.  Fields and raw bytes point into the reader's buffers
 * and stay valid until the next call on the same reader: nothing is
 * allocated per record.
 */
struct record {
	char		**f;		/* fields, NUL-terminated; unset for comments */
	size_t		  nf;
	const char	 *raw;		/* the record exactly as read, without its newline */
	size_t		  rawlen;
	int		  comment;	/* a '#' line */
	int		  quoted;	/* it has a '"': fields differ from raw */
	uint64_t	  time;		/* COL_TIME, or NO_TIME when empty or a comment */
	const char	 *file;		/* for messages */
	unsigned long	  line;		/* first line of the record in file */
	int		  padded;	/* the reader's: fields one after another,
					   8 bytes readable past each, and 32
					   past raw's end */
};

/*
 * Reading: a single file ("-" is stdin), compressed or not.  With
 * reader_live set, a file that ends inside a gzip member or a record is
 * taken to be still being written (a flight recorder's newest file) and
 * ends at its last flush, instead of being an error.
 */
extern int	 reader_live;
struct reader;
struct reader	*reader_open(const char *path);
int		 reader_next(struct reader *, struct record *);	/* 1, or 0 at end */
void		 reader_close(struct reader *);
/*
 * fn(arg) before the reader moves the bytes it read (to make room for
 * more): the records read so far stay where they are until then, and a
 * writer that passes them on (writer_pass()) copies them there.
 */
void		 reader_moving(struct reader *, void (*fn)(void *), void *arg);

/*
 * Several inputs merged by time.  Records without a time, and comments,
 * stay behind the record that preceded them in their own input.
 */
struct source;
struct source	*source_open(char **paths, int npaths);	/* none: stdin */
const struct record *source_next(struct source *);	/* NULL at end */
void		 source_close(struct source *);
void		 source_moving(struct source *, void (*fn)(void *), void *arg);

/* Writing. */
enum zmode { Z_AUTO, Z_PLAIN, Z_GZIP };

/*
 * Writing.  A file appears under its name when the writer is closed (by
 * the program, or by die() with what was written before the error), never
 * half-written: see lib/file.h for how, and OUT_LIVE for the exception.
 */
struct writer;
struct writer	*writer_open(const char *path, enum zmode);	/* NULL or "-": stdout */
struct writer	*writer_open_table(const char *path, enum zmode);	/* no stream line */
struct writer	*writer_create(int dirfd, const char *path, enum zmode,
		    enum outmode);
void		 writer_begin(struct writer *, const char *kind);
void		 writer_str(struct writer *, const char *);
void		 writer_strn(struct writer *, const char *, size_t);
void		 writer_u64(struct writer *, uint64_t);
void		 writer_i64(struct writer *, int64_t);
void		 writer_hex(struct writer *, uint64_t);
void		 writer_time(struct writer *, uint64_t);	/* NO_TIME: empty */
void		 writer_pid(struct writer *, uint32_t pid, uint32_t tid); /* unknown: empty */
void		 writer_empty(struct writer *);
void		 writer_end(struct writer *);
/*
 * The same, for a writer of many records of one kind (lib/schema.c's),
 * with one reservation a record: writer_at_begin() drops an unfinished
 * record and starts one with room for most bytes of fields after its
 * kind, each a string's length and comma, or WRITER_AT_* for the others.
 * Each field is written at p, the record's end, which the caller holds in
 * a local (the writer's own would be loaded again after each byte stored)
 * and the field returns past it; writer_at_end() ends the record at p.
 * Between the two, no other call on the writer.
 */
#define WRITER_AT_U64	(1 + 20 + 8)	/* the digits are written 8 a word */
#define WRITER_AT_HEX	(18 + 1)
#define WRITER_AT_EMPTY	1
char		*writer_at_begin(struct writer *, const char *kind, size_t most);
char		*writer_at_strn(struct writer *, char *p, const char *, size_t);
char		*writer_at_u64(struct writer *, char *p, uint64_t);
char		*writer_at_hex(char *p, uint64_t);
char		*writer_at_empty(char *p);
int		 writer_plain(const char *, size_t);	/* past the first field */
void		 writer_at_end(struct writer *, char *p);
void		 writer_fields(struct writer *, char **f, size_t nf);
void		 writer_record(struct writer *, const struct record *);	/* as read */
/*
 * The same, for a record of the reader's: not copied yet, but noted, and
 * copied with the records after it that follow it in the reader's buffer,
 * in one piece, before anything else is written, or the writer flushed,
 * or the reader moves them (writer_unpass(), given to reader_moving()).
 */
void		 writer_pass(struct writer *, const struct record *);
void		 writer_unpass(void *writer);
void		 writer_splice(struct writer *, const struct record *, size_t col,
		    const char *val);	/* as read, but one column */
void		 writer_splice_u64(struct writer *, const struct record *,
		    size_t col, uint64_t val);	/* the same, a number */
/*
 * The same, val's length known, and val read in words: it needs 24 bytes
 * readable, as a number's digits u64_str() made have in its buffer.
 */
void		 writer_splice_n(struct writer *, const struct record *,
		    size_t col, const char *val, size_t len);
/*
 * v in decimal at s, ended, as the writer puts it: its length.  s needs
 * 28 bytes (20 digits, 8 of room).  For a number written many times over.
 */
size_t		 u64_str(char *s, uint64_t v);
void		 writer_flush(struct writer *);
void		 writer_close(struct writer *);
void		 writer_discard(struct writer *);
uint64_t	 writer_bytes(const struct writer *);	/* to the file so far */
/*
 * Compress on a thread of its own from now on (gzip writers; others are
 * left as they are): formatting and compression overlap, for a program
 * that writes faster than deflate keeps up with.  Nothing else changes:
 * writer_flush() returns once all is on disk, writer_bytes() is exact
 * after it (before, it lags by two more buffers of records than in the
 * foreground: 512 KiB uncompressed), and an error dies naming the file,
 * though at the next hand-over or flush rather than at once.
 */
void		 writer_background(struct writer *);

/* Field helpers: strict unsigned parse, error naming the record. */
uint64_t	 record_u64(const struct record *, size_t col);
int		 record_u64_opt(const struct record *, size_t col, uint64_t *);
const char	*record_str(const struct record *, size_t col);	/* "" if absent */
uint32_t	 record_pid(const struct record *, size_t col);	/* 0 if unknown */

/*
 * Two short names equal, compared in line: the names a stage matches once
 * a record (kinds, event types, rules) are a few bytes long and most differ
 * in the first, where a call to strcmp() would cost more than the compare.
 */
static inline int
name_eq(const char *a, const char *b)
{
	for (; *a == *b; a++, b++)
		if (*a == '\0')
			return 1;
	return 0;
}

/*
 * The length of a field: the reader's lie one after another, each ended
 * by its NUL, so where the next begins says it without a walk.
 */
static inline size_t
record_len(const struct record *rec, size_t col)
{
	if (rec->padded && col + 1 < rec->nf)
		return rec->f[col + 1] - rec->f[col] - 1;
	return strlen(rec->f[col]);
}


/*
 * Whether a record is of kind (a KIND_*).  A field of the reader's has 8
 * bytes readable from it: a kind shorter than that, its NUL too, is one
 * word to compare, at every record of every stage.
 */
static inline int
record_is(const struct record *rec, const char *kind)
{
	size_t n = strlen(kind);	/* a constant: kind is a KIND_* */
	uint64_t a, b;

	if (rec->comment)
		return 0;
	if (!rec->padded || n >= 8)
		return name_eq(rec->f[COL_KIND], kind);
	/*
	 * kind's word, a constant made of its bytes: one copied through
	 * memory had the load of it wait behind the stores.
	 */
#define KIND_BYTE(i)	((i) < n ? (uint64_t)(unsigned char)kind[i] << 8 * (i) : 0)
	b = KIND_BYTE(0) | KIND_BYTE(1) | KIND_BYTE(2) | KIND_BYTE(3) |
	    KIND_BYTE(4) | KIND_BYTE(5) | KIND_BYTE(6);
#undef KIND_BYTE
	memcpy(&a, rec->f[COL_KIND], 8);
	return ((le64toh(a) ^ b) & (~0ULL >> (56 - 8 * n))) == 0;
}

#endif
