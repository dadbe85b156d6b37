/*
 * Chrome trace events: the pieces argus-export and argus-slice share
 * (chrome.h says why they are shaped so).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <uthash.h>

#include "chrome.h"
#include "show.h"
#include "util.h"

void
chrome_open(struct chrome *c, FILE *fp)
{
	c->fp = fp;
	c->n = 0;
	fputs("{\"displayTimeUnit\":\"ns\",\"traceEvents\":[", fp);
}

void
chrome_close(struct chrome *c, const char *other)
{
	fprintf(c->fp, "\n],\n\"otherData\":{%s}}\n", other);
}

/*
 * JSON is UTF-8, and one invalid byte makes a parser (Python's, Perfetto's)
 * refuse the whole file: a name the kernel cut inside a character is one.
 * Such a byte is written as the text \xHH (JSON "\\xHH"), seen and never
 * dropped; the controls, DEL and C1 as \u00HH, which JSON decodes back to
 * the byte or character itself.
 */
void
chrome_str(FILE *fp, const char *s)
{
	size_t len = strlen(s), i, k;
	unsigned char c;

	fputc('"', fp);
	for (i = 0; i < len; i += k) {
		c = s[i];
		k = 1;
		if (c == '"' || c == '\\')
			fprintf(fp, "\\%c", c);
		else if (c < 0x20 || c == 0x7f)
			fprintf(fp, "\\u%04x", c);
		else if (c < 0x80)
			fputc(c, fp);
		else if ((k = show_utf8_char(s + i, len - i)) > 0)
			fwrite(s + i, 1, k, fp);
		else if (c == 0xc2 && i + 1 < len && (unsigned char)s[i + 1] >=
		    0x80 && (unsigned char)s[i + 1] <= 0x9f) {
			fprintf(fp, "\\u%04x", (unsigned char)s[i + 1]);
			k = 2;		/* a C1 control, U+0080..U+009F */
		} else {
			fprintf(fp, "\\\\x%02x", c);
			k = 1;
		}
	}
	fputc('"', fp);
}

void
chrome_time(FILE *fp, const char *key, uint64_t ns)
{
	fprintf(fp, ",\"%s\":%" PRIu64 ".%03" PRIu64, key, ns / 1000,
	    ns % 1000);
}

void
chrome_event(struct chrome *c, const char *ph, uint32_t pid, uint32_t tid)
{
	fprintf(c->fp, "%s\n{\"ph\":\"%s\",\"pid\":%u,\"tid\":%u",
	    c->n++ ? "," : "", ph, pid, tid);
}

void
chrome_names(struct chrome *c, uint32_t pid, uint32_t tid, const char *comm,
    const char *process)
{
	if (process != NULL) {
		chrome_event(c, "M", pid, tid);
		fputs(",\"name\":\"process_name\",\"args\":{\"name\":", c->fp);
		chrome_str(c->fp, process);
		fputs("}}", c->fp);
	}
	chrome_event(c, "M", pid, tid);
	fputs(",\"name\":\"thread_name\",\"args\":{\"name\":", c->fp);
	chrome_str(c->fp, comm);
	fputs("}}", c->fp);
}

void
chrome_slice(struct chrome *c, uint32_t pid, uint32_t tid, uint64_t begin,
    uint64_t end, const char *name, const char *args)
{
	chrome_event(c, "X", pid, tid);
	fputs(",\"name\":", c->fp);
	chrome_str(c->fp, name);
	chrome_time(c->fp, "ts", begin);
	chrome_time(c->fp, "dur", end - begin);
	if (args != NULL)
		fprintf(c->fp, ",\"args\":{%s}", args);
	fputc('}', c->fp);
}

void
chrome_running(struct chrome *c, uint32_t pid, uint32_t tid, uint64_t begin,
    uint64_t end, uint32_t cpu, const uint64_t *cuts, size_t ncuts)
{
	char name[32], args[32];
	size_t lo = 0, hi = ncuts, mid;
	uint64_t t;

	snprintf(name, sizeof(name), "running on CPU %u", cpu);
	snprintf(args, sizeof(args), "\"cpu\":%u", cpu);
	while (lo < hi) {		/* the first cut past begin */
		mid = (lo + hi) / 2;
		if (cuts[mid] <= begin)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (t = begin; lo < ncuts && cuts[lo] < end; lo++)
		if (cuts[lo] > t) {
			chrome_slice(c, pid, tid, t, cuts[lo], name, args);
			t = cuts[lo];
		}
	if (end > t)
		chrome_slice(c, pid, tid, t, end, name, args);
}

int
chrome_flow_place(uint64_t fb, uint64_t fe, uint64_t tb, uint64_t te,
    uint64_t time, uint64_t *start, uint64_t *end)
{
	uint64_t s = time < fb ? fb : time > fe ? fe : time;

	if (te < s) {
		if (te < fb) {
			/* TO is over before FROM begins: reversed. */
			*start = te;
			*end = fb;
			return 1;
		}
		s = te;
	}
	*start = s;
	*end = tb > s ? tb : s;
	return 0;
}

/* One end of a flow: ph "s" or "f", bp its binding ("" the default). */
static void
flow_end(struct chrome *c, const char *ph, const char *bp, unsigned long id,
    const char *cat, const char *name, uint32_t pid, uint32_t tid,
    uint64_t ts, const char *args)
{
	chrome_event(c, ph, pid, tid);
	fprintf(c->fp, "%s,\"id\":%lu,\"cat\":", bp, id);
	chrome_str(c->fp, cat);
	fputs(",\"name\":", c->fp);
	chrome_str(c->fp, name);
	chrome_time(c->fp, "ts", ts);
	if (args != NULL)
		fprintf(c->fp, ",\"args\":{%s}", args);
	fputc('}', c->fp);
}

void
chrome_flow(struct chrome *c, unsigned long id, const char *cat,
    const char *name, uint32_t spid, uint32_t stid, uint64_t start,
    uint32_t epid, uint32_t etid, uint64_t end, const char *args)
{
	flow_end(c, "s", "", id, cat, name, spid, stid, start, args);
	flow_end(c, "f", ",\"bp\":\"e\"", id, cat, name, epid, etid, end,
	    NULL);
}

struct open_run {		/* a thread's, kept: switches are many */
	uint32_t	 tid, cpu;
	uint64_t	 since;		/* UINT64_MAX: off every CPU */
	UT_hash_handle	 hh;
};

static void
close_run(struct chrome_runs *rs, struct open_run *o, uint64_t t)
{
	if (o->since == UINT64_MAX)
		return;
	if (rs->n == rs->cap) {
		rs->cap = rs->cap ? 2 * rs->cap : 1024;
		rs->r = xrealloc(rs->r, rs->cap * sizeof(*rs->r));
	}
	rs->r[rs->n++] = (struct chrome_run){ o->tid, o->cpu, o->since, t };
	o->since = UINT64_MAX;
}

void
chrome_runs_switch(struct chrome_runs *rs, uint64_t time, uint32_t cpu,
    uint32_t prev, uint32_t next)
{
	struct open_run *o, *open = rs->open;

	/* The idle task is no thread to show. */
	if (prev != 0) {
		HASH_FIND(hh, open, &prev, sizeof(prev), o);
		if (o != NULL)
			close_run(rs, o, time);
	}
	if (next != 0) {
		HASH_FIND(hh, open, &next, sizeof(next), o);
		if (o == NULL) {
			o = xcalloc(1, sizeof(*o));
			o->tid = next;
			HASH_ADD(hh, open, tid, sizeof(o->tid), o);
			rs->open = open;
		}
		o->cpu = cpu;
		o->since = time;
	}
}

void
chrome_runs_end(struct chrome_runs *rs, uint64_t t)
{
	struct open_run *o, *tmp, *open = rs->open;

	HASH_ITER(hh, open, o, tmp) {
		close_run(rs, o, t);
		HASH_DEL(open, o);
		free(o);
	}
	rs->open = NULL;
}

static int
by_thread(const void *a, const void *b)
{
	const struct chrome_run *x = a, *y = b;

	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return x->begin < y->begin ? -1 : x->begin > y->begin;
}

void
chrome_runs_sort(struct chrome_runs *rs)
{
	if (rs->n > 1)
		qsort(rs->r, rs->n, sizeof(*rs->r), by_thread);
}

const struct chrome_run *
chrome_runs_of(const struct chrome_runs *rs, uint32_t tid, size_t *n)
{
	size_t lo = 0, hi = rs->n, mid, i;

	while (lo < hi) {
		mid = (lo + hi) / 2;
		if (rs->r[mid].tid < tid)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (i = lo; i < rs->n && rs->r[i].tid == tid; i++)
		;
	*n = i - lo;
	return rs->r + lo;
}
