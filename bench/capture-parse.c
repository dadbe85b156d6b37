/*
 * bench/capture-parse: the cost per event of ways to parse tracefs raw
 * pages, on the same pages, one core, no I/O.  It backs the choice made in
 * capture/emit.c (libtraceevent's kbuffer to walk pages, our own loads at
 * format-file offsets for fields) with figures.
 *
 *   walk      kbuffer only: the floor of any parser
 *   offsets   kbuffer + fields loaded at precomputed offsets + CSV text
 *   byname    kbuffer + tep_get_field_val() by field name + the same text
 *   print     kbuffer + tep_print_event(), the trace-cmd report way
 *
 * Pages: files of whole sub-buffers as read from per_cpu/cpuN/trace_pipe_raw
 * (`cat` of it makes one).  Build (not part of `make`):
 *   cc -O2 -I/usr/include/traceevent -o bench/capture-parse \
 *       bench/capture-parse.c -ltracefs -ltraceevent
 * usage: bench/capture-parse PAGES...
 */
#include <err.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <tracefs/tracefs.h>
#include <traceevent/event-parse.h>
#include <traceevent/kbuffer.h>

#define PAGE	4096
#define MAXF	16

struct fdesc { int off, size, str; const char *name; };
struct edesc { int n; struct fdesc f[MAXF]; struct tep_event *ev; };

static struct edesc *ed;	/* by event id */
static char out[1 << 16];
static size_t outlen;
static unsigned long long sink;

static void
emit_u(unsigned long long v)
{
	char tmp[24], *p = tmp + sizeof(tmp);

	do { *--p = '0' + v % 10; v /= 10; } while (v);
	if (outlen + 32 > sizeof(out)) { sink += out[7]; outlen = 0; }
	out[outlen++] = ',';
	memcpy(out + outlen, p, tmp + sizeof(tmp) - p);
	outlen += tmp + sizeof(tmp) - p;
}

static void
emit_s(const char *s, size_t max)
{
	size_t n = strnlen(s, max);

	if (outlen + n + 2 > sizeof(out)) { sink += out[7]; outlen = 0; }
	out[outlen++] = ',';
	memcpy(out + outlen, s, n);
	outlen += n;
}

static unsigned long long
load(const char *d, int size)
{
	switch (size) {
	case 1: return *(const unsigned char *)d;
	case 2: return *(const unsigned short *)d;
	case 4: return *(const unsigned int *)d;
	default: return *(const unsigned long long *)d;
	}
}

static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int
main(int argc, char *argv[])
{
	const char *systems[] = { "sched", "task", "raw_syscalls", "irq",
	    "timer", "workqueue", "block", "signal", "ftrace", NULL };
	const char *modes[] = { "walk", "offsets", "byname", "print" };
	struct tep_handle *tep;
	struct tep_event **all;
	struct kbuffer *kb;
	struct trace_seq seq;
	char *pages = NULL;
	size_t npages = 0, i;
	int m, a, j, k;

	for (a = 1; a < argc; a++) {
		FILE *f = fopen(argv[a], "r");
		size_t got;

		if (f == NULL)
			err(1, "%s", argv[a]);
		for (;;) {
			pages = realloc(pages, (npages + 1) * PAGE);
			got = fread(pages + npages * PAGE, 1, PAGE, f);
			if (got < PAGE)
				break;
			npages++;
		}
		fclose(f);
	}
	if ((tep = tracefs_local_events_system(NULL, systems)) == NULL)
		errx(1, "cannot read event formats");
	kb = tep_kbuffer(tep);
	ed = calloc(65536, sizeof(*ed));
	all = tep_list_events(tep, TEP_EVENT_SORT_ID);
	for (j = 0; all[j] != NULL; j++) {
		struct tep_format_field *fl;
		struct edesc *e = &ed[all[j]->id];

		e->ev = all[j];
		for (fl = all[j]->format.fields; fl && e->n < MAXF; fl = fl->next) {
			e->f[e->n].off = fl->offset;
			e->f[e->n].size = fl->size;
			e->f[e->n].str = (fl->flags & TEP_FIELD_IS_STRING) != 0;
			e->f[e->n].name = fl->name;
			e->n++;
		}
	}
	trace_seq_init(&seq);
	printf("%zu pages (%.1f MB)\n", npages, npages * (double)PAGE / 1e6);
	for (m = 0; m < 4; m++) {
		unsigned long long n = 0, ts;
		double t0 = now(), t;

		for (i = 0; i < npages; i++) {
			char *pg = pages + i * PAGE, *d;

			if (kbuffer_load_subbuffer(kb, pg) < 0)
				continue;
			for (d = kbuffer_read_event(kb, &ts); d != NULL;
			    d = kbuffer_next_event(kb, &ts)) {
				unsigned short id = *(unsigned short *)d;
				struct edesc *e = &ed[id];
				struct tep_record rec = { .ts = ts, .data = d,
				    .size = kbuffer_event_size(kb) };
				unsigned long long v;

				n++;
				if (e->ev == NULL)
					continue;
				switch (m) {
				case 0:
					sink += id;
					break;
				case 1:
					emit_u(ts);
					for (k = 0; k < e->n; k++)
						if (e->f[k].str)
							emit_s(d + e->f[k].off, e->f[k].size);
						else
							emit_u(load(d + e->f[k].off, e->f[k].size));
					break;
				case 2:
					emit_u(ts);
					for (k = 0; k < e->n; k++)
						if (e->f[k].str)
							emit_s(d + e->f[k].off, e->f[k].size);
						else if (tep_get_field_val(NULL, e->ev,
						    e->f[k].name, &rec, &v, 0) == 0)
							emit_u(v);
					break;
				case 3:
					trace_seq_reset(&seq);
					tep_print_event(tep, &seq, &rec,
					    "%d %s %s", TEP_PRINT_PID,
					    TEP_PRINT_NAME, TEP_PRINT_INFO);
					sink += seq.len;
					break;
				}
			}
		}
		t = now() - t0;
		printf("%-8s %10llu events %7.3f s %7.1f ns/event %6.2f M events/s\n",
		    modes[m], n, t, t * 1e9 / n, n / t / 1e6);
	}
	return sink == 42;
}
