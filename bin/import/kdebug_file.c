/*
 * kdebug trace files, the two layouts trace(1) and ktrace(1) write:
 *
 * RAW version 1: RAW_header, the thread map, zeros up to the next 4 KB
 * boundary (a CPU map hides in them), then kd_buf records to the end.
 *
 * Version 3: a sequence of chunks (ktrace(5)), the first a header with the
 * timebase; thread map and event chunks follow, and whatever else the
 * writer added (a kcdata stackshot, configuration, symbols), skipped but
 * for the stackshot's task and thread names.
 *
 * Both are read in one pass from a stream: a pipe works as well as a file.
 * kdebug_events.c says what each event becomes.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "event.h"
#include "import.h"
#include "kdebug.h"
#include "kdebug_events.h"
#include "util.h"

struct input {
	FILE		*f;
	const char	*name;
	uint64_t	 off;		/* bytes consumed */
};

static uint32_t
le32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	    (uint32_t)p[3] << 24;
}

static uint64_t
le64(const unsigned char *p)
{
	return (uint64_t)le32(p) | (uint64_t)le32(p + 4) << 32;
}

static void __attribute__((noreturn))
bad(const struct input *in, uint64_t off, const char *what)
{
	diex(EX_DATAERR, "%s: offset %llu: %s", in->name,
	    (unsigned long long)off, what);
}

/* n bytes or the end of the input: the number read. */
static size_t
get(struct input *in, void *buf, size_t n)
{
	size_t got = fread(buf, 1, n, in->f);

	if (got < n && ferror(in->f))
		die(EX_IOERR, "%s", in->name);
	in->off += got;
	return got;
}

/* Exactly n bytes, or a message saying what the input ended inside. */
static void
need(struct input *in, void *buf, size_t n, const char *inside)
{
	uint64_t at = in->off;
	char what[96];

	if (get(in, buf, n) != n) {
		snprintf(what, sizeof(what), "file ends inside %s", inside);
		bad(in, at, what);
	}
}

static void
skip(struct input *in, uint64_t n, const char *inside)
{
	unsigned char buf[4096];
	size_t step;

	while (n > 0) {
		step = n < sizeof(buf) ? n : sizeof(buf);
		need(in, buf, step, inside);
		n -= step;
	}
}

/*
 * A chunk of len bytes, whole, in memory.  The buffer grows with what is
 * read, not to what the chunk's header says: a 40-byte file that claims
 * a 64 MB chunk gets a message, not a 64 MB allocation.
 */
static unsigned char	*chunk;	/* kept until the next input if one ends it */

static unsigned char *
slurp(struct input *in, uint64_t len, const char *inside)
{
	unsigned char *buf = NULL;
	uint64_t have = 0, cap = 0, step;

	free(chunk);
	chunk = NULL;
	while (have < len) {
		step = len - have < 1u << 20 ? len - have : 1u << 20;
		if (have + step > cap) {
			cap = have + step > 2 * cap ? have + step : 2 * cap;
			if (cap > len)
				cap = len;
			chunk = buf = xrealloc(buf, cap);
		}
		need(in, buf + have, step, inside);
		have += step;
	}
	return buf;
}

static void
decode(const unsigned char *b, struct kd_event *e)
{
	int i;

	e->timestamp = le64(b + KD_BUF_TIMESTAMP);
	for (i = 0; i < 4; i++)
		e->arg[i] = le64(b + KD_BUF_ARG1 + 8 * i);
	e->thread = le64(b + KD_BUF_THREAD);
	e->debugid = le32(b + KD_BUF_DEBUGID);
	e->cpu = le32(b + KD_BUF_CPUID);
}

/* The readers' bound (lib/event.c): a CPU past it is a corrupt file. */
static void
cpu_bound(const struct input *in, uint64_t at, uint32_t cpu)
{
	char what[96];

	if (cpu < MAX_CPUS)
		return;
	snprintf(what, sizeof(what), "CPU out of range: %lu, no kernel has "
	    "more than %d", (unsigned long)cpu, MAX_CPUS);
	bad(in, at, what);
}

/* n events, or all to the end of the input when n is UINT64_MAX. */
static void
events(struct input *in, uint64_t n)
{
	unsigned char b[KD_BUF_SIZE];
	int to_end = n == UINT64_MAX;
	struct kd_event e;
	uint64_t at;
	size_t got;

	for (; n > 0 && !interrupted; n--) {
		at = in->off;
		got = get(in, b, sizeof(b));
		if (got == 0 && to_end)
			return;
		if (got < sizeof(b))
			bad(in, at, "file ends inside an event");
		decode(b, &e);
		cpu_bound(in, at, e.cpu);
		kdev_event(&e);
	}
}

static void
thread_map(struct input *in, uint64_t n)
{
	unsigned char m[KD_MAP_SIZE];

	for (; n > 0; n--) {
		need(in, m, sizeof(m), "the thread map");
		kdev_thread(le64(m + KD_MAP_THREAD), (int32_t)le32(m + KD_MAP_PID),
		    (const char *)m + KD_MAP_COMMAND, KD_MAP_COMMAND_LEN);
	}
}

/*
 * v1 files do not say how long a tick is: 1 ns on Intel Macs, 1/24 MHz on
 * Apple silicon.  ARGUS_KDEBUG_TIMEBASE=NUMER/DENOM says; else ns.
 */
static void
timebase(struct kd_source *s, uint32_t numer, uint32_t denom, const char *from)
{
	const char *env = getenv("ARGUS_KDEBUG_TIMEBASE");
	unsigned long n, d;
	char *end;

	s->numer = numer;
	s->denom = denom;
	s->timebase_from = from;
	if (env == NULL || *env == '\0')
		return;
	errno = 0;
	n = strtoul(env, &end, 10);
	if (*end != '/' || errno || n == 0 || n > UINT32_MAX)
		diex(EX_USAGE, "ARGUS_KDEBUG_TIMEBASE: expected NUMER/DENOM, "
		    "got '%s'", env);
	d = strtoul(end + 1, &end, 10);
	if (*end != '\0' || errno || d == 0 || d > UINT32_MAX)
		diex(EX_USAGE, "ARGUS_KDEBUG_TIMEBASE: expected NUMER/DENOM, "
		    "got '%s'", env);
	s->numer = n;
	s->denom = d;
	s->timebase_from = "environment";
}

/* The header's first four bytes, the magic, are read already. */
static void
raw_v1(struct input *in, struct kd_source *s)
{
	unsigned char h[KD_RAW_HEADER_SIZE];
	uint64_t nthreads, pad;

	need(in, h + 4, sizeof(h) - 4, "the header");
	nthreads = le32(h + 4);
	if (nthreads > 1u << 24)
		bad(in, 4, "thread map of more than 16 M threads");
	s->layout = "raw1";
	timebase(s, 1, 1, "assumed");
	thread_map(in, nthreads);
	/* Events start at the next 4 KB boundary, a whole page if on one. */
	pad = KD_RAW_EVENTS_ALIGN - in->off % KD_RAW_EVENTS_ALIGN;
	skip(in, pad, "the padding before the events");
	kdev_begin(s);
	events(in, UINT64_MAX);
}

/*
 * kcdata stackshot: tasks (pid, name) containing threads (id, name).  A
 * thread the thread map lacks gets its process from here.  Malformed
 * kcdata ends the walk, and a compressed stackshot is not read: the
 * trace's events do not depend on it.
 */
static void
kcdata(const unsigned char *p, uint64_t len)
{
	char comm[KCD_TASK_COMM_LEN + 1] = "";
	uint64_t off = 0, size, tid = 0;
	const unsigned char *d;
	int64_t pid = -1;
	uint32_t type;

	while (off + KCD_ITEM_SIZE <= len) {
		type = le32(p + off);
		size = le32(p + off + 4);
		if (size > len - off - KCD_ITEM_SIZE || type == KCD_BUFFER_END)
			return;
		d = p + off + KCD_ITEM_SIZE;
		switch (type) {
		case KCD_CONTAINER_BEGIN:
			if (size >= 4 && le32(d) == KCD_THREAD_CONTAINER)
				tid = 0;
			break;
		case KCD_TASK_SNAPSHOT:
			if (size >= KCD_TASK_COMM + KCD_TASK_COMM_LEN) {
				pid = (int32_t)le32(d + KCD_TASK_PID);
				memcpy(comm, d + KCD_TASK_COMM, KCD_TASK_COMM_LEN);
				comm[KCD_TASK_COMM_LEN] = '\0';
			}
			break;
		case KCD_THREAD_SNAPSHOT:
			if (size >= 8 && pid >= 0) {
				tid = le64(d + KCD_THREAD_ID);
				kdev_thread(tid, pid, comm, sizeof(comm));
			}
			break;
		case KCD_THREAD_NAME:
			if (tid != 0 && size > 0)
				kdev_thread_name(tid, (const char *)d, size);
			break;
		default:
			break;
		}
		off += KCD_ITEM_SIZE + size;
	}
}

static void
v3(struct input *in, struct kd_source *s, uint32_t magic)
{
	unsigned char c[KD_CHUNK_SIZE], fixed[KD_V3_HEADER_FIXED], stamp[8];
	unsigned char *payload;
	uint64_t len, at, n;
	uint32_t tag;

	need(in, c + 4, sizeof(c) - 4, "the header");
	len = le64(c + 8);
	if (len < KD_V3_HEADER_FIXED)
		bad(in, 8, "header shorter than its fixed fields");
	need(in, fixed, sizeof(fixed), "the header");
	if (!(le32(fixed + (KD_V3_FLAGS - KD_CHUNK_SIZE)) & KD_V3_FLAG_64BIT))
		bad(in, KD_V3_FLAGS, "a 32-bit kernel's trace (not supported)");
	s->layout = magic == KD_V3_MAGIC ? "v3" : "v3-kernel";
	timebase(s, le32(fixed + (KD_V3_TIMEBASE_NUMER - KD_CHUNK_SIZE)),
	    le32(fixed + (KD_V3_TIMEBASE_DENOM - KD_CHUNK_SIZE)), "header");
	if (s->numer == 0 || s->denom == 0)
		bad(in, KD_V3_TIMEBASE_NUMER, "timebase with a zero");
	/* Sub-chunks of the header (a CPU map): not needed. */
	skip(in, len - KD_V3_HEADER_FIXED, "the header");
	kdev_begin(s);

	for (;;) {
		if (interrupted)
			return;
		/* Chunks start 8-byte aligned. */
		if (in->off % 8 != 0 && get(in, c, 8 - in->off % 8) == 0)
			return;
		at = in->off;
		n = get(in, c, sizeof(c));
		if (n == 0)
			return;
		if (n < sizeof(c))
			bad(in, at, "file ends inside a chunk header");
		tag = le32(c);
		len = le64(c + 8);
		switch (tag) {
		case KD_V3_THREAD_MAP:
			if (len % KD_MAP_SIZE != 0)
				bad(in, at, "thread map not a whole number of "
				    "entries");
			thread_map(in, len / KD_MAP_SIZE);
			break;
		case KD_V3_RAW_EVENTS:
			/*
			 * An 8-byte timestamp, then events.  Kernels up to
			 * xnu-8020 count the timestamp in the length, newer
			 * ones do not; a kd_buf is 64 bytes, so the length
			 * tells which.
			 */
			need(in, stamp, sizeof(stamp), "an events chunk");
			if (len % KD_BUF_SIZE == KD_V3_EVENTS_STAMP)
				len -= KD_V3_EVENTS_STAMP;
			else if (len % KD_BUF_SIZE != 0)
				bad(in, at, "events chunk not a whole number of "
				    "events");
			events(in, len / KD_BUF_SIZE);
			break;
		default:
			/* A stackshot names tasks and threads: read it. */
			if (len >= KCD_ITEM_SIZE && len <= 64u << 20) {
				payload = slurp(in, len, "a chunk");
				if (le32(payload) == KCD_BEGIN_STACKSHOT)
					kcdata(payload, len);
				free(payload);
				chunk = NULL;
			} else {
				skip(in, len, "a chunk");
			}
			break;
		}
	}
}

static void
convert(FILE *f, const char *name, struct writer *out)
{
	struct input in = { f, name, 0 };
	struct kd_source s = { name, "", 1, 1, "" };
	unsigned char m[4];
	uint32_t magic;
	char what[64];

	kdev_init(out);
	need(&in, m, sizeof(m), "the header");
	magic = le32(m);
	switch (magic) {
	case KD_RAW_V1:
		raw_v1(&in, &s);
		break;
	case KD_V3_MAGIC:
	case KD_V3_KERNEL_MAGIC:
		v3(&in, &s, magic);
		break;
	case KD_RAW_V2:
		bad(&in, 0, "RAW version 2 (Instruments) is not supported");
	default:
		snprintf(what, sizeof(what), "unknown version 0x%08x (neither "
		    "RAW 1 nor version 3)", magic);
		bad(&in, 0, what);
	}
	kdev_end();
}

static int
detect(const unsigned char *head, size_t len)
{
	uint32_t magic;

	if (len < 4)
		return 0;
	magic = le32(head);
	return magic == KD_RAW_V1 || magic == KD_V3_MAGIC ||
	    magic == KD_V3_KERNEL_MAGIC;
}

const struct importer import_kdebug = {
	"kdebug", "macOS kdebug traces from trace(1) or ktrace(1): RAW 1, version 3",
	detect, convert,
};
