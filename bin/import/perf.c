/*
 * perf.data, as `perf record` of tracepoints writes it (the file format:
 * tools/perf/Documentation/perf.data-file-format.txt).  Read natively
 * rather than through `perf script`: its text would lose the fields'
 * values to print formats (%ps names, hashed %p), cost a second process
 * per import, and tie the import to a perf of the recording's version.
 * The event formats perf stores with the data are read here too: their
 * fields, names, offsets and sizes, all an import needs.  libtraceevent
 * did it once, but its parser of a format's print expression crashes on
 * crafted formats (NULL dereferences the fuzz target found in 1.7), and a
 * foreign file must not crash the importer.
 *
 * Samples come per CPU in rounds, not in time order, and a thread's
 * process is known from perf's COMM and FORK records: the whole file is
 * indexed, sorted by time, then converted.
 */
#include <linux/perf_event.h>

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "event.h"
#include "util.h"
#include "import.h"
#include "input.h"
#include "tp.h"

#define HEADER_TRACING_DATA	1	/* perf's feature bits */
#define HEADER_HOSTNAME		3
#define HEADER_OSRELEASE	4
#define HEADER_VERSION		5
#define HEADER_ARCH		6
#define HEADER_NRCPUS		7
#define HEADER_CMDLINE		11
#define NFEATURES		256

/* perf's own records (tools/lib/perf/include/perf/event.h), pipe mode's. */
#define RECORD_HEADER_ATTR		64
#define RECORD_HEADER_TRACING_DATA	66
#define RECORD_HEADER_FEATURE		80

/* From the kernel's trace_entry flags (kernel/trace/trace.h). */
#define TF_HARDIRQ	0x08
#define TF_SOFTIRQ	0x10
#define TF_NMI		0x40

struct section {
	uint64_t	 offset, size;
};

struct file_header {
	char		 magic[8];
	uint64_t	 size;
	uint64_t	 attr_size;
	struct section	 attrs, data, event_types;
	uint64_t	 features[NFEATURES / 64];
};

/* A field of a format: "field:char comm[16];	offset:8;	size:16;	signed:0;" */
struct field {
	char		 name[64];
	uint32_t	 offset, size;
	uint32_t	 arraylen, elemsize;	/* arraylen 0: not an array */
	unsigned	 is_signed:1;
	unsigned	 dynamic:1;	/* __data_loc: u32 (len << 16 | off) */
	unsigned	 relative:1;	/* __rel_loc: off from the field's end */
};

/* A tracepoint's format, by its id ("ID: 372"). */
struct format {
	uint32_t	 id;
	char		 name[64];
	struct field	*f;
	size_t		 nf;
};

struct attr {
	struct perf_event_attr	 a;
	struct format		*ev;	/* a tracepoint's format */
};

struct ref {				/* one record, to be sorted */
	uint64_t	 ts;
	uint64_t	 off;
	struct attr	*attr;
};

static const char	*fname;
static struct input	 in;
static struct format	*formats;
static size_t		 nformats;
static struct ref	*refs;
static struct attr	*attrs;
static size_t		 nattrs;
static struct { uint64_t id; size_t attr; } *ids;
static size_t		 nids;
/* Feature sections, from the file's table or pipe mode's records. */
static struct section	 feats[NFEATURES];
static uint32_t		 ncpus;		/* nrcpus, 0 if not said */
static unsigned char	 has_feat[NFEATURES];

static void __attribute__((noreturn, format(printf, 2, 3)))
bad(uint64_t off, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	diex(EX_DATAERR, "%s: offset %llu: %s", fname,
	    (unsigned long long)off, msg);
}

/*
 * A record's CPU within what the readers take (lib/event.c): the file's
 * nrcpus, or no kernel's more.
 */
static void
cpu_bound(uint64_t off, uint32_t cpu)
{
	if (ncpus != 0 && cpu >= ncpus)
		bad(off, "CPU out of range: %u, the file's nrcpus is %u", cpu,
		    ncpus);
	if (cpu >= MAX_CPUS)
		bad(off, "CPU out of range: %u, no kernel has more than %d",
		    cpu, MAX_CPUS);
}

/* len bytes at off, all inside the file, or bad input. */
static const unsigned char *
at(uint64_t off, uint64_t len, const char *what)
{
	if (off > in.len || len > in.len - off)
		bad(off, "%s: %llu bytes past the end of the file (cut short?)",
		    what, (unsigned long long)(off + len - in.len));
	return in.p + off;
}

static uint64_t
u64_at(uint64_t off, const char *what)
{
	uint64_t v;

	memcpy(&v, at(off, 8, what), 8);
	return v;
}

static uint32_t
u32_at(uint64_t off, const char *what)
{
	uint32_t v;

	memcpy(&v, at(off, 4, what), 4);
	return v;
}

/*
 * The length of the NUL-ended string at off, which must end before end
 * (a section's end) and inside the file.
 */
static size_t
str_at(uint64_t off, uint64_t end, const char *what)
{
	const char *p, *z;

	if (end > in.len)
		end = in.len;
	if (off >= end)
		bad(off, "%s: past the end of its section", what);
	p = (const char *)in.p + off;
	if ((z = memchr(p, '\0', end - off)) == NULL)
		bad(off, "%s: a string without its end", what);
	return z - p;
}

/* off + 8 + size, the next item of a section that ends at end. */
static uint64_t
past(uint64_t off, uint64_t size, uint64_t end, const char *what)
{
	if (size > end || off + 8 > end - size)
		bad(off, "%s of %llu bytes: past the end of its section", what,
		    (unsigned long long)size);
	return off + 8 + size;
}

static int
detect(const unsigned char *h, size_t len)
{
	return len >= 8 && (memcmp(h, "PERFILE2", 8) == 0 ||
	    memcmp(h, "2ELIFREP", 8) == 0);
}

static void
set_feature(int bit, uint64_t off, uint64_t size)
{
	if (bit < 0 || bit >= NFEATURES)
		return;			/* a feature newer than us */
	at(off, size, "feature section");
	feats[bit] = (struct section){ off, size };
	has_feat[bit] = 1;
}

/* A file's features: their sections follow the data, one per bit set. */
static void
file_features(const struct file_header *h)
{
	uint64_t off = h->data.offset + h->data.size;
	struct section s;
	int i;

	for (i = 0; i < NFEATURES; i++) {
		if (!(h->features[i / 64] & (1ULL << (i % 64))))
			continue;
		memcpy(&s, at(off, sizeof(s), "feature table"), sizeof(s));
		set_feature(i, s.offset, s.size);
		off += sizeof(s);
	}
}

static int
feature(int bit, struct section *s)
{
	if (!has_feat[bit])
		return 0;
	*s = feats[bit];
	return 1;
}

/* A feature's string: u32 length, then the string, NUL-padded. */
static int
feature_str(int bit, char *buf, size_t size)
{
	struct section s;
	uint32_t len;

	if (!feature(bit, &s) || s.size < 4)
		return 0;
	len = u32_at(s.offset, "feature string");
	if (len > s.size - 4)
		bad(s.offset, "feature string of %u bytes in %llu", len,
		    (unsigned long long)s.size);
	snprintf(buf, size, "%.*s", (int)len, (const char *)in.p + s.offset + 4);
	return 1;
}

/* A number of a format's text: "offset:8;" */
static int
format_num(const char *p, const char *end, const char *key, uint32_t *v)
{
	size_t kl = strlen(key);
	unsigned long n = 0;
	const char *q;

	if ((q = memmem(p, end - p, key, kl)) == NULL)
		return 0;
	for (q += kl; q < end && *q >= '0' && *q <= '9'; q++) {
		n = n * 10 + (*q - '0');
		if (n > 1u << 20)
			return 0;	/* no field is a MB */
	}
	*v = n;
	return q < end && *q == ';';
}

/* One "field:" line of a format; 0 if it is not one we can read. */
static int
format_field(const char *p, const char *end, struct field *f)
{
	const char *decl, *semi, *name, *nend, *br = NULL;
	uint32_t sign = 0;

	memset(f, 0, sizeof(*f));
	if ((decl = memmem(p, end - p, "field:", 6)) == NULL ||
	    (semi = memchr(decl, ';', end - decl)) == NULL)
		return 0;
	decl += 6;
	/* The name is the declaration's last word, less its [LEN]. */
	for (nend = semi; nend > decl && nend[-1] == ' '; nend--)
		;
	if (nend > decl && nend[-1] == ']')
		br = memrchr(decl, '[', nend - decl);
	if (br != NULL)
		nend = br;
	for (name = nend; name > decl && name[-1] != ' ' && name[-1] != '\t';
	    name--)
		;
	if (nend == name || (size_t)(nend - name) >= sizeof(f->name))
		return 0;
	memcpy(f->name, name, nend - name);
	if (!format_num(semi, end, "offset:", &f->offset) ||
	    !format_num(semi, end, "size:", &f->size))
		return 0;
	format_num(semi, end, "signed:", &sign);
	f->is_signed = sign != 0;
	f->dynamic = memmem(decl, name - decl, "__data_loc", 10) != NULL ||
	    memmem(decl, name - decl, "__rel_loc", 9) != NULL;
	f->relative = memmem(decl, name - decl, "__rel_loc", 9) != NULL;
	if (br != NULL && !f->dynamic) {
		f->arraylen = strtoul(br + 1, NULL, 10);
		if (f->arraylen > 0 && f->size % f->arraylen == 0)
			f->elemsize = f->size / f->arraylen;
		else
			f->arraylen = 0;
	}
	return 1;
}

/*
 * A format file's text: "name:", "ID:", then its fields, then the print
 * format, which we never need.  0 if it lacks a name, an id or fields.
 */
static int
parse_format(const char *text, size_t size)
{
	const char *p = text, *end = text + size, *nl, *v;
	struct format fm = { 0 };
	struct field f;
	int has_id = 0;

	for (; p < end; p = nl + 1) {
		if ((nl = memchr(p, '\n', end - p)) == NULL)
			nl = end;
		if (nl - p > 6 && strncmp(p, "name: ", 6) == 0) {
			v = p + 6;
			if ((size_t)(nl - v) >= sizeof(fm.name)) {
				fm.name[0] = '\0';	/* too long: not ours */
				break;
			}
			memcpy(fm.name, v, nl - v);
			fm.name[nl - v] = '\0';
		} else if (nl - p > 4 && strncmp(p, "ID: ", 4) == 0) {
			has_id = 1;
			fm.id = strtoul(p + 4, NULL, 10);
		} else if (nl - p > 10 && strncmp(p, "print fmt:", 10) == 0) {
			break;
		} else if (format_field(p, nl, &f)) {
			fm.f = xrealloc(fm.f, (fm.nf + 1) * sizeof(*fm.f));
			fm.f[fm.nf++] = f;
		}
	}
	if (!has_id || fm.name[0] == '\0' || fm.nf == 0) {
		free(fm.f);
		return 0;
	}
	formats = xrealloc(formats, (nformats + 1) * sizeof(*formats));
	formats[nformats++] = fm;
	return 1;
}

static struct format *
format_of(uint64_t id)
{
	size_t i;

	for (i = 0; i < nformats; i++)
		if (formats[i].id == id)
			return &formats[i];
	return NULL;
}

static const struct field *
field_of(const struct format *fm, const char *name)
{
	size_t i;

	for (i = 0; i < fm->nf; i++)
		if (strcmp(fm->f[i].name, name) == 0)
			return &fm->f[i];
	return NULL;
}

/* A little-endian number of 1, 2, 4 or 8 bytes. */
static uint64_t
rd(const unsigned char *p, uint32_t size)
{
	uint64_t v = 0;

	while (size-- > 0)
		v = v << 8 | p[size];
	return v;
}

/*
 * The tracing data: what trace-cmd's and perf's tracing files share
 * (magic, version, endianness, sizes, the header page, then the format
 * text of each event, by system).
 */
static void
tracing_data(const struct section *s)
{
	static const unsigned char magic[] = { 0x17, 0x08, 0x44, 't', 'r',
	    'a', 'c', 'i', 'n', 'g' };
	uint64_t off = s->offset, end = s->offset + s->size, size;
	const char *sys;
	uint32_t n, nsys, i, j;

	if (s->size < sizeof(magic) + 8 ||
	    memcmp(at(off, sizeof(magic), "tracing data"), magic, sizeof(magic)))
		bad(off, "tracing data without its magic number");
	off += sizeof(magic);
	off += str_at(off, end, "tracing data version") + 1;
	if (*at(off, 1, "tracing data") != 0)
		bad(off, "a big-endian recording: not supported");
	off += 6;			/* endianness, long size, page size */
	/* "header_page" and "header_event": names, sizes, text. */
	for (i = 0; i < 2; i++) {
		off += str_at(off, end, "tracing data header") + 1;
		size = u64_at(off, "tracing data header");
		off = past(off, size, end, "tracing data header");
	}
	n = u32_at(off, "ftrace formats");		/* the tracer's own */
	for (off += 4, i = 0; i < n; i++)
		off = past(off, u64_at(off, "ftrace format"), end,
		    "ftrace format");
	nsys = u32_at(off, "event formats");
	for (off += 4, i = 0; i < nsys; i++) {
		sys = (const char *)in.p + off;
		off += str_at(off, end, "event system") + 1;
		n = u32_at(off, "event formats");
		for (off += 4, j = 0; j < n; j++) {
			size = u64_at(off, "event format");
			past(off, size, end, "event format");
			if (!parse_format((const char *)in.p + off + 8, size))
				bad(off + 8, "an event format without its "
				    "name, ID or fields (system %.64s)", sys);
			off += 8 + size;
		}
	}
}

/* An event attribute of asz bytes at off, and its n ids at idoff. */
static void
add_attr(uint64_t off, size_t asz, uint64_t idoff, uint64_t n)
{
	uint64_t j;

	/* Every id is in the file: n is bound by its size, never wraps. */
	if (n > in.len / 8)
		bad(idoff, "%llu event ids: more than the file holds",
		    (unsigned long long)n);
	at(idoff, 8 * n, "event ids");
	attrs = xrealloc(attrs, (nattrs + 1) * sizeof(*attrs));
	memset(&attrs[nattrs], 0, sizeof(attrs[nattrs]));
	memcpy(&attrs[nattrs].a, at(off, asz, "attribute"),
	    asz < sizeof(attrs[nattrs].a) ? asz : sizeof(attrs[nattrs].a));
	ids = xrealloc(ids, (nids + n) * sizeof(*ids));
	for (j = 0; j < n; j++) {
		ids[nids].id = u64_at(idoff + 8 * j, "event id");
		ids[nids++].attr = nattrs;
	}
	nattrs++;
}

static void
file_attrs(const struct file_header *h)
{
	struct section idsec;
	uint64_t off, i, n;
	size_t asz;

	if (h->attr_size < 16 + PERF_ATTR_SIZE_VER0 || h->attrs.size % h->attr_size)
		bad(24, "attribute size %llu", (unsigned long long)h->attr_size);
	at(h->attrs.offset, h->attrs.size, "attributes");
	asz = h->attr_size - 16;
	n = h->attrs.size / h->attr_size;
	for (i = 0; i < n; i++) {
		off = h->attrs.offset + i * h->attr_size;
		memcpy(&idsec, at(off + asz, 16, "attribute ids"), 16);
		add_attr(off, asz, idsec.offset, idsec.size / 8);
	}
}

/*
 * The record after the one at off.  Pipe mode's tracing data follows its
 * record, outside its size, padded to 8 bytes.
 */
static uint64_t
next_record(uint64_t off, uint64_t end, struct perf_event_header *eh)
{
	uint64_t next;

	memcpy(eh, at(off, sizeof(*eh), "record header"), sizeof(*eh));
	if (eh->size < sizeof(*eh) || off + eh->size > end)
		bad(off, "a record of %u bytes", eh->size);
	next = off + eh->size;
	if (eh->type == RECORD_HEADER_TRACING_DATA)
		next += (u32_at(off + 8, "tracing data") + 7) & ~7ULL;
	return next;
}

/*
 * Pipe mode (perf record -o -): what a file keeps in its header comes as
 * records before the samples.
 */
static void
pipe_headers(uint64_t off, uint64_t end)
{
	struct perf_event_header eh;
	uint64_t next;
	uint32_t asz;

	for (; off < end; off = next) {
		next = next_record(off, end, &eh);
		switch (eh.type) {
		case RECORD_HEADER_ATTR:
			asz = u32_at(off + 8 + 4, "attribute");
			if (asz < PERF_ATTR_SIZE_VER0 || 8 + asz > eh.size)
				bad(off, "an attribute of %u bytes", asz);
			add_attr(off + 8, asz, off + 8 + asz,
			    (eh.size - 8 - asz) / 8);
			break;
		case RECORD_HEADER_TRACING_DATA:
			set_feature(HEADER_TRACING_DATA, off + eh.size,
			    u32_at(off + 8, "tracing data"));
			break;
		case RECORD_HEADER_FEATURE:
			if (eh.size >= 16)
				set_feature((int)u64_at(off + 8, "feature"),
				    off + 16, eh.size - 16);
			break;
		}
	}
}

static struct attr *
attr_of(uint64_t id)
{
	size_t i;

	for (i = 0; i < nids; i++)
		if (ids[i].id == id)
			return &attrs[ids[i].attr];
	return NULL;
}

/* Where a sample's fields are, by its sample_type (perf_event_open(2)). */
struct sample {
	uint32_t	 pid, tid, cpu;
	uint64_t	 time, id;
	const unsigned char *raw;
	uint32_t	 rawsize;
};

static void
sample_parse(uint64_t off, uint64_t size, uint64_t st, uint64_t rf,
    struct sample *s)
{
	uint64_t p = off + 8, end = off + size, nr;

	memset(s, 0, sizeof(*s));
#define TAKE(n)	do { if (p + (n) > end) bad(off, "a sample shorter than its " \
	"sample_type"); p += (n); } while (0)
	if (st & PERF_SAMPLE_IDENTIFIER) {
		s->id = u64_at(p, "sample");
		TAKE(8);
	}
	if (st & PERF_SAMPLE_IP)
		TAKE(8);
	if (st & PERF_SAMPLE_TID) {
		s->pid = u32_at(p, "sample");
		s->tid = u32_at(p + 4, "sample");
		TAKE(8);
	}
	if (st & PERF_SAMPLE_TIME) {
		s->time = u64_at(p, "sample");
		TAKE(8);
	}
	if (st & PERF_SAMPLE_ADDR)
		TAKE(8);
	if (st & PERF_SAMPLE_ID) {
		s->id = u64_at(p, "sample");
		TAKE(8);
	}
	if (st & PERF_SAMPLE_STREAM_ID)
		TAKE(8);
	if (st & PERF_SAMPLE_CPU) {
		s->cpu = u32_at(p, "sample");
		TAKE(8);
	}
	if (st & PERF_SAMPLE_PERIOD)
		TAKE(8);
	if (st & PERF_SAMPLE_READ) {
		int per = 1 + !!(rf & PERF_FORMAT_ID) + !!(rf & PERF_FORMAT_LOST);

		if (rf & PERF_FORMAT_GROUP) {
			nr = u64_at(p, "sample");
			TAKE(8);
		} else
			nr = 1;
		TAKE(8 * (!!(rf & PERF_FORMAT_TOTAL_TIME_ENABLED) +
		    !!(rf & PERF_FORMAT_TOTAL_TIME_RUNNING)));
		if (nr > (end - p) / 8)
			bad(off, "a sample's read values past its end");
		TAKE(8 * per * nr);
	}
	if (st & PERF_SAMPLE_CALLCHAIN) {
		nr = u64_at(p, "sample");
		TAKE(8);
		if (nr > (end - p) / 8)
			bad(off, "a sample's call chain past its end");
		TAKE(8 * nr);
	}
	if (st & PERF_SAMPLE_RAW) {
		s->rawsize = u32_at(p, "sample");
		TAKE(4);
		s->raw = at(p, s->rawsize, "sample");
		TAKE(s->rawsize);
	}
#undef TAKE
}

/* A non-sample record's time and cpu: its sample_id, at its end. */
static void
sample_id(uint64_t off, uint64_t size, uint64_t st, struct sample *s)
{
	uint64_t p = off + size;

	memset(s, 0, sizeof(*s));
	if (st & PERF_SAMPLE_IDENTIFIER)
		s->id = u64_at(p -= 8, "sample id");
	if (st & PERF_SAMPLE_CPU)
		s->cpu = u32_at(p -= 8, "sample id");
	if (st & PERF_SAMPLE_STREAM_ID)
		p -= 8;
	if (st & PERF_SAMPLE_ID)
		s->id = u64_at(p -= 8, "sample id");
	if (st & PERF_SAMPLE_TIME)
		s->time = u64_at(p -= 8, "sample id");
	if (st & PERF_SAMPLE_TID) {
		p -= 8;
		s->pid = u32_at(p, "sample id");
		s->tid = u32_at(p + 4, "sample id");
	}
	if (p < off + 8)
		bad(off, "a record shorter than its sample id");
}

/* The attribute a sample belongs to. */
static struct attr *
sample_attr(uint64_t off, uint64_t size)
{
	struct sample s;
	struct attr *a;

	if (nattrs == 1)
		return &attrs[0];
	sample_parse(off, size, attrs[0].a.sample_type, attrs[0].a.read_format,
	    &s);
	if ((a = attr_of(s.id)) == NULL)
		bad(off, "a sample of unknown event id %llu",
		    (unsigned long long)s.id);
	return a;
}

/* Field access for tp.c, by the format's offsets and sizes. */

struct hit {
	const struct format	*ev;
	const unsigned char	*raw;
	uint32_t		 size;
};

/*
 * len bytes at off inside the sample's raw data.  The offsets and sizes
 * are the format text's, which the file brings: any int at all.
 */
static int
in_raw(const struct hit *h, int64_t off, int64_t len)
{
	return off >= 0 && len >= 0 && off <= h->size && len <= h->size - off;
}

/* A common field (common_flags, common_pid) of a sample: 0 if not there. */
static int
common_field(const struct format *ev, const char *name,
    const unsigned char *raw, uint32_t size, unsigned long long *v)
{
	struct hit h = { ev, raw, size };
	const struct field *f = field_of(ev, name);

	if (f == NULL || !in_raw(&h, f->offset, f->size) || f->size == 0 ||
	    f->size > 8)
		return 0;
	*v = rd(raw + f->offset, f->size);
	return 1;
}

static int
f_num(const struct tp *e, const char *name, int base, int64_t *v)
{
	const struct hit *h = e->arg;
	const struct field *f;
	unsigned long long u;
	char fld[32];
	const char *br;
	int idx = 0, bits;

	(void)base;
	snprintf(fld, sizeof(fld), "%s", name);
	if ((br = strchr(name, '[')) != NULL) {
		fld[br - name] = '\0';
		idx = atoi(br + 1);
	}
	if ((f = field_of(h->ev, fld)) == NULL)
		return 0;
	if (br != NULL) {
		if (f->arraylen == 0 || (unsigned)idx >= f->arraylen ||
		    f->elemsize == 0 || f->elemsize > 8 ||
		    !in_raw(h, f->offset + (int64_t)idx * f->elemsize,
		    f->elemsize))
			return 0;
		*v = (int64_t)rd(h->raw + f->offset + idx * f->elemsize,
		    f->elemsize);
		return 1;
	}
	if (f->size == 0 || f->size > 8 || f->arraylen > 0 || f->dynamic ||
	    !in_raw(h, f->offset, f->size))
		return 0;
	u = rd(h->raw + f->offset, f->size);
	bits = 8 * f->size;
	if (f->is_signed && bits < 64 &&
	    (u & (1ULL << (bits - 1))))
		u |= ~0ULL << bits;
	*v = (int64_t)u;
	return 1;
}

static int
f_str(const struct tp *e, const char *name, const char **s, size_t *n)
{
	const struct hit *h = e->arg;
	const struct field *f;
	uint64_t loc, off, max;

	if ((f = field_of(h->ev, name)) == NULL || !in_raw(h, f->offset, 0))
		return 0;
	if (f->dynamic) {
		if (!in_raw(h, f->offset, 4))
			return 0;
		loc = rd(h->raw + f->offset, 4);
		off = loc & 0xffff;
		if (f->relative)
			off += (uint64_t)f->offset + f->size;
		max = loc >> 16;
	} else {
		off = f->offset;
		max = f->size ? f->size : h->size - off;
	}
	if (off > h->size)
		return 0;
	if (max > h->size - off)
		max = h->size - off;
	*s = (const char *)h->raw + off;
	*n = strnlen(*s, max);
	return 1;
}

static int
by_time(const void *a, const void *b)
{
	const struct ref *x = a, *y = b;

	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return x->off < y->off ? -1 : x->off > y->off;
}

static void
meta_features(struct writer *w, uint64_t ts)
{
	char buf[1024], name[256];
	struct section s;
	uint32_t n, len, i;
	uint64_t off;
	size_t l = 0;

	if (feature_str(HEADER_HOSTNAME, buf, sizeof(buf)))
		meta_write(w, ts, "hostname", "%s", buf);
	if (feature_str(HEADER_OSRELEASE, buf, sizeof(buf))) {
		if (feature_str(HEADER_ARCH, name, sizeof(name)))
			meta_write(w, ts, "kernel", "Linux %s %s", buf, name);
		else
			meta_write(w, ts, "kernel", "Linux %s", buf);
	}
	if (feature(HEADER_NRCPUS, &s) && s.size >= 8) {
		/* The readers' bounds (lib/event.c), applied here. */
		ncpus = u32_at(s.offset + 4, "nrcpus");
		if (ncpus == 0 || ncpus > MAX_CPUS)
			bad(s.offset + 4, "nrcpus: expected 1 to %d, got %u",
			    MAX_CPUS, ncpus);
		meta_write(w, ts, "cpus", "%u", ncpus);
	}
	if (feature_str(HEADER_VERSION, buf, sizeof(buf)))
		meta_write(w, ts, "recorder", "perf %s", buf);
	if (feature(HEADER_CMDLINE, &s) && s.size >= 4) {
		n = u32_at(s.offset, "cmdline");
		for (off = s.offset + 4, i = 0; i < n && l < sizeof(buf) - 1; i++) {
			len = u32_at(off, "cmdline");
			at(off + 4, len, "cmdline");
			l += snprintf(buf + l, sizeof(buf) - l, "%s%.*s",
			    i ? " " : "", (int)strnlen((const char *)in.p +
			    off + 4, len), (const char *)in.p + off + 4);
			off += 4 + len;
		}
		meta_write(w, ts, "command", "%s", buf);
	}
}

/* The clock the samples were stamped with: -k mono is the stream's. */
static int
clock_meta(struct writer *w, uint64_t ts)
{
	size_t i;
	int clockid = -2, c;

	for (i = 0; i < nattrs; i++) {
		if (attrs[i].a.type != PERF_TYPE_TRACEPOINT)
			continue;
		c = attrs[i].a.use_clockid ? attrs[i].a.clockid : -1;

		if (clockid == -2)
			clockid = c;
		else if (clockid != c)
			bad(0, "events stamped with different clocks");
	}
	if (clockid == 1) {
		meta_write(w, ts, "clock", "mono");
		return 1;
	}
	if (clockid == -1)
		meta_write(w, ts, "clock", "perf");
	else
		meta_write(w, ts, "clock", "clockid %d", clockid);
	meta_write(w, ts, "lacks", "clock: recorded without -k mono; times are "
	    "on %s, not CLOCK_MONOTONIC, and do not merge with captures",
	    clockid == -1 ? "perf's own clock (the kernel's sched_clock)" :
	    "another clock");
	return 0;
}

/*
 * What one input leaves: at its end, or at the next when bad input ended
 * it (a fuzzer's die() returns).
 */
static void
forget(void)
{
	free(refs);
	refs = NULL;
	free(attrs);
	attrs = NULL;
	free(ids);
	ids = NULL;
	nids = nattrs = 0;
	while (nformats > 0)
		free(formats[--nformats].f);
	free(formats);
	formats = NULL;
	if (in.p != NULL)
		input_free(&in);
	memset(has_feat, 0, sizeof(has_feat));
}

static void
convert(FILE *f, const char *name, struct writer *w)
{
	struct file_header h;
	struct section s;
	struct perf_event_header eh;
	struct sample smp;
	struct hit hit;
	struct tp e;
	struct attr *a;
	size_t n = 0, cap = 0, i, nthreads;
	uint64_t off, next, start, end, first, last = 0, events = 0, lost = 0;
	unsigned long long fl, cpid;
	const char *comm;
	unsigned long unknown;
	int syscalls = 0;

	fname = name;
	ncpus = 0;
	tp_reset();
	forget();
	input_load(&in, f, name);
	memcpy(&h, at(0, 16, "file header"), 16);
	if (!detect((const unsigned char *)h.magic, 8))
		bad(0, "not a perf.data file");
	if (memcmp(h.magic, "2ELIFREP", 8) == 0)
		bad(0, "a big-endian perf.data: not supported");
	if (h.size == 16) {			/* pipe mode */
		start = 16;
		end = in.len;
		pipe_headers(start, end);
	} else if (h.size == sizeof(h)) {
		memcpy(&h, at(0, sizeof(h), "file header"), sizeof(h));
		file_attrs(&h);
		start = h.data.offset;
		end = h.data.offset + h.data.size;
		at(start, h.data.size, "data section");
		file_features(&h);
	} else
		bad(8, "a header of %llu bytes", (unsigned long long)h.size);
	if (nattrs == 0)
		bad(0, "no events in the file");
	if (!feature(HEADER_TRACING_DATA, &s))
		bad(0, "no tracing data: record tracepoints "
		    "(perf record -e sched:sched_switch ...)");
	tracing_data(&s);
	for (i = 0; i < nattrs; i++)
		if (attrs[i].a.type == PERF_TYPE_TRACEPOINT)
			attrs[i].ev = format_of(attrs[i].a.config);

	/* Index every record we use, with its time. */
	for (off = start; off < end; off = next) {
		next = next_record(off, end, &eh);
		a = NULL;
		if (eh.type == PERF_RECORD_SAMPLE) {
			a = sample_attr(off, eh.size);
			if (a->ev == NULL)
				continue;
			sample_parse(off, eh.size, a->a.sample_type,
			    a->a.read_format, &smp);
		} else if (eh.type == PERF_RECORD_COMM ||
		    eh.type == PERF_RECORD_FORK || eh.type == PERF_RECORD_LOST) {
			if (attrs[0].a.sample_id_all)
				sample_id(off, eh.size, attrs[0].a.sample_type,
				    &smp);
			else
				memset(&smp, 0, sizeof(smp));
		} else
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 65536;
			refs = xrealloc(refs, cap * sizeof(*refs));
		}
		refs[n++] = (struct ref){ smp.time, off, a };
		/* What each thread is, before anything is written. */
		if (a != NULL)
			tp_thread(smp.tid, smp.pid, NULL, 0, 0);
	}
	if (n > 1)
		qsort(refs, n, sizeof(*refs), by_time);

	first = NO_TIME;
	for (i = 0; i < n && first == NO_TIME; i++)
		if (refs[i].attr != NULL)
			first = refs[i].ts;
	meta_write(w, first, "source", "perf");
	clock_meta(w, first);
	meta_write(w, first, "import", "argus-import " ARGUS_VERSION);
	meta_write(w, first, "file", "%s", name);
	meta_features(w, first);

	e.num = f_num;
	e.str = f_str;
	e.arg = &hit;
	e.probe = 0;
	for (i = 0; i < n && !interrupted; i++) {	/* Ctrl-C: stop whole */
		off = refs[i].off;
		memcpy(&eh, in.p + off, sizeof(eh));
		if ((eh.type == PERF_RECORD_COMM && eh.size < 17) ||
		    ((eh.type == PERF_RECORD_FORK ||
		    eh.type == PERF_RECORD_LOST) && eh.size < 24))
			bad(off, "a record of %u bytes, short for its type",
			    eh.size);
		if (eh.type == PERF_RECORD_COMM) {
			comm = (const char *)at(off + 16, 1, "comm");
			tp_thread(u32_at(off + 12, "comm"),
			    u32_at(off + 8, "comm"), comm,
			    strnlen(comm, eh.size - 16), 1);
			continue;
		}
		if (eh.type == PERF_RECORD_FORK) {
			/* pid, ppid, tid, ptid: the new thread's process. */
			tp_thread(u32_at(off + 16, "fork"),
			    u32_at(off + 8, "fork"), NULL, 0, 1);
			continue;
		}
		if (eh.type == PERF_RECORD_LOST) {
			smp.cpu = -1;
			if (attrs[0].a.sample_id_all &&
			    (attrs[0].a.sample_type & PERF_SAMPLE_CPU))
				sample_id(off, eh.size, attrs[0].a.sample_type,
				    &smp);
			if (smp.cpu != UINT32_MAX)
				cpu_bound(off, smp.cpu);
			lost += u64_at(off + 16, "lost");
			tp_lost(w, last, (int)smp.cpu, u64_at(off + 16, "lost"));
			continue;
		}
		a = refs[i].attr;
		sample_parse(off, eh.size, a->a.sample_type, a->a.read_format,
		    &smp);
		if (smp.raw == NULL)
			bad(off, "a tracepoint sample without its raw data "
			    "(sample_type lacks RAW)");
		hit = (struct hit){ a->ev, smp.raw, smp.rawsize };
		e.ctx = '-';
		if (common_field(a->ev, "common_flags", smp.raw, smp.rawsize,
		    &fl))
			e.ctx = fl & TF_NMI ? 'n' : fl & TF_HARDIRQ ? 'h' :
			    fl & TF_SOFTIRQ ? 's' : '-';
		/*
		 * perf says -1 for a task no longer alive (its last switch
		 * as it exits); the tracepoint's own common_pid still names
		 * it.
		 */
		if (smp.tid == UINT32_MAX && common_field(a->ev, "common_pid",
		    smp.raw, smp.rawsize, &cpid)) {
			smp.tid = (uint32_t)cpid;
			smp.pid = UINT32_MAX;
		}
		if (smp.tid == UINT32_MAX) {
			tp_skip("events of no thread", 19);
			continue;
		}
		cpu_bound(off, smp.cpu);
		e.ts = smp.time;
		e.cpu = smp.cpu;
		e.tid = smp.tid;
		e.name = a->ev->name;
		tp_thread(smp.tid, smp.pid, NULL, 0, 0);
		syscalls |= strncmp(e.name, "sys_e", 5) == 0;
		tp_event(w, &e);
		events++;
		last = smp.time;
	}
	if (syscalls)
		meta_write(w, last, "lacks", "syscall names: perf records numbers; "
		    "names are from this machine's table, and sys_enter has "
		    "all six argument registers");
	if ((unknown = tp_unknown_pids(&nthreads)) > 0)
		meta_write(w, last, "lacks", "pid: %lu of %zu threads never showed "
		    "their process", unknown, nthreads);
	tp_skipped(w, last);
	meta_write(w, last, "events", "%llu", (unsigned long long)events);
	meta_write(w, last, META_LOST, "%llu", (unsigned long long)lost);
	forget();
}

const struct importer import_perf = {
	"perf",
	"perf.data of tracepoints (perf record -k mono)",
	detect,
	convert,
};
