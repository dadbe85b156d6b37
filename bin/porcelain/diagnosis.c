/*
 * What argus debug shows once the pipeline is done, read back from its
 * output (the debug file: argus-spin's moment record, argus-slice's root
 * records) rather than from the stages' words: which moment was
 * diagnosed, argus-slice's report, and where the threads of the chain
 * that are still blocked wait now (present.c).
 *
 * With --json, the same as one JSON object (argus(1), DIAGNOSIS AS JSON):
 *
 *	{"argus_debug":1, "file":DEBUG, "status":EXIT, "found":BOOL,
 *	 "confidence":PHRASE, "probably":BOOL,
 *	 "moment":{"kind":"now|mark|at|every", "ns":MONO, "time":ISO},
 *	 "diagnoses":[{"victim":THREAD, "chain":[THREAD...],
 *	               "root_causes":[THREAD...], "confidence":PHRASE,
 *	               "probably":BOOL}],
 *	 "stacks":[{"pid","tid","comm","state","function","caller",
 *	            "kernel":[FRAME...], "user":[FRAME...]}]}
 *
 * THREAD is {"kind","pid","tid","comm","cgroup","unit","container",
 * "vertex","depth","begin_ns","end_ns","oncpu_ns","begin","end","class",
 * "evidence","hop","function"}: where the process runs is null where the recording
 * does not say (lib/cgroup.h).  The
 * confidence is the report's, in its words: the chain is as sure as its
 * least sure hop (argus-slice's report.c), and a guess is "probably".
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cgroup.h"
#include "chrome.h"
#include "file.h"
#include "graph.h"
#include "porcelain.h"
#include "show.h"

/* A patched process's user-space events lost (meta patch_lost). */
struct uloss {
	uint32_t	 pid;
	uint64_t	 n, from, to;
};

struct found {
	char		 moment[16];	/* now, mark, at, every; "" unknown */
	uint64_t	 moment_ns;	/* NO_TIME: none */
	struct root_rec	*r;		/* kept: root_keep() */
	int		 nr;
	struct uloss	*l;
	int		 nl;
	uint64_t	 lo, hi;	/* the events diagnosed: their span */
};

static void
found_free(struct found *f)
{
	int i;

	for (i = 0; i < f->nr; i++)
		root_drop(&f->r[i]);
	free(f->r);
	free(f->l);
}

static void
read_found(const char *out, struct found *f)
{
	char *paths[1] = { (char *)out };
	const struct record *rec;
	struct source *src;
	struct root_rec rr;
	const char *v;
	int fd;

	memset(f, 0, sizeof(*f));
	f->moment_ns = NO_TIME;
	f->lo = NO_TIME;
	/* An empty file: the pipeline failed before it wrote one. */
	if ((fd = open(out, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)) == -1)
		return;
	if (lseek(fd, 0, SEEK_END) <= 0) {
		close(fd);
		unlink(out);
		return;
	}
	close(fd);
	src = source_open(paths, 1);
	while ((rec = source_next(src)) != NULL) {
		if (rec->comment)
			continue;
		wall_learn(rec);
		cgroup_learn(rec);
		if (rec->time != NO_TIME &&
		    strcmp(rec->f[COL_KIND], KIND_EVENT) == 0) {
			if (f->lo == NO_TIME || rec->time < f->lo)
				f->lo = rec->time;
			if (rec->time > f->hi)
				f->hi = rec->time;
		}
		if (meta_is(rec, META_MOMENT)) {
			v = rec->f[META_VALUE];
			snprintf(f->moment, sizeof(f->moment), "%.*s",
			    (int)strcspn(v, " "), v);
			if (strchr(v, ' ') != NULL)
				f->moment_ns = strtoull(strchr(v, ' ') + 1,
				    NULL, 10);
		} else if (rec->nf > PATCH_LOST_SINCE &&
		    rec->time != NO_TIME &&
		    strcmp(rec->f[COL_KIND], KIND_META) == 0 &&
		    strcmp(rec->f[META_KEY], META_PATCH_LOST) == 0 &&
		    rec->f[COL_PID][0] != '\0') {
			f->l = xrealloc(f->l, (f->nl + 1) * sizeof(*f->l));
			f->l[f->nl].pid = strtoul(rec->f[COL_PID], NULL, 10);
			f->l[f->nl].n = strtoull(rec->f[PATCH_LOST_COUNT],
			    NULL, 10);
			f->l[f->nl].from = strtoull(rec->f[PATCH_LOST_SINCE],
			    NULL, 10);
			f->l[f->nl++].to = rec->time;
		} else if (root_parse(rec, &rr)) {
			f->r = xrealloc(f->r, (f->nr + 1) * sizeof(*f->r));
			root_keep(&rr);
			f->r[f->nr++] = rr;
		}
	}
	source_close(src);
}

/* A CLOCK_MONOTONIC time as the local clock said it, to the second. */
static void
clock_words(uint64_t mono, char *buf, size_t size, int iso)
{
	struct timespec rt, mt;
	int64_t off;
	time_t t;

	clock_gettime(CLOCK_REALTIME, &rt);
	clock_gettime(CLOCK_MONOTONIC, &mt);
	off = ((int64_t)rt.tv_sec - mt.tv_sec) * 1000000000LL +
	    (rt.tv_nsec - mt.tv_nsec);
	t = ((int64_t)mono + off) / 1000000000LL;
	strftime(buf, size, iso ? "%FT%T%z" : "%F %T", localtime(&t));
}

/*
 * The user-space events lost in the diagnosed window (the events the
 * diagnosis read, to its moment) by a process on the chain, the hung one
 * too: the callback it hung in, one that woke it, or its baselines' may
 * be one of them.
 */
static void
loss_lines(const struct found *f, FILE *fp)
{
	char from[64], to[64];
	uint64_t hi = f->hi, n, lo, up;
	int i, j, k;

	if (f->moment_ns != NO_TIME && f->moment_ns > hi)
		hi = f->moment_ns;
	if (f->lo == NO_TIME)
		return;
	for (i = 0; i < f->nr; i++) {
		/* A process once, however many of its threads. */
		for (j = 0; j < i && f->r[j].pid != f->r[i].pid; j++)
			;
		if (j < i)
			continue;
		n = up = 0;
		lo = NO_TIME;
		for (k = 0; k < f->nl; k++) {
			if (f->l[k].pid != f->r[i].pid ||
			    f->l[k].to < f->lo || f->l[k].from > hi)
				continue;
			n += f->l[k].n;
			if (lo == NO_TIME || f->l[k].from < lo)
				lo = f->l[k].from;
			if (f->l[k].to > up)
				up = f->l[k].to;
		}
		if (n == 0)
			continue;
		recorder_when(lo, from, sizeof(from));
		recorder_when(up, to, sizeof(to));
		fprintf(fp, "%llu user-space events of %s %u were lost between "
		    "%s and %s: the chain may miss a callback\n",
		    (unsigned long long)n, show(f->r[i].comm), f->r[i].pid,
		    from, to);
	}
}

static void
moment_line(const struct found *f, const char *asked, FILE *fp)
{
	char when[64] = "";

	if (f->moment_ns != NO_TIME)
		clock_words(f->moment_ns, when, sizeof(when), 0);
	if (strcmp(f->moment, "now") == 0)
		fprintf(fp, "Moment: the hang going on now (%s)\n", when);
	else if (strcmp(f->moment, "mark") == 0)
		fprintf(fp, "Moment: the last 'argus mark', %s%s\n", when,
		    strcmp(asked, "mark") == 0 ? "" :
		    " (the target does not hang now)");
	else if (strcmp(f->moment, "at") == 0)
		fprintf(fp, "Moment: %s, as asked (--at)\n", when);
	else if (strcmp(f->moment, "every") == 0)
		fprintf(fp, "Moment: every hang of the target in the window "
		    "(it does not hang now, and no mark)\n");
}

static void
copy_report(const char *report, FILE *to)
{
	char buf[8192];
	size_t n;
	FILE *fp;

	if ((fp = fopen(report, "re")) == NULL)
		return;
	while ((n = fread(buf, 1, sizeof(buf), fp)) > 0)
		fwrite(buf, 1, n, to);
	fclose(fp);
}

/* A stream time as the capture's wall clock said it, or null. */
static void
json_wall(FILE *fp, const char *key, uint64_t mono)
{
	char buf[64];

	if (!wall_set || mono == 0 || mono == NO_TIME) {
		fprintf(fp, ",\"%s\":null", key);
		return;
	}
	wall_format(buf, sizeof(buf), mono);
	fprintf(fp, ",\"%s\":\"%s\"", key, buf);
}

/*
 * The function a thread waits in: its root record's (the vertex's last
 * user stack in the recording), else, for a thread still blocked when the
 * stacks were taken, the most telling of its stack then.
 */
static const char *
thread_function(const struct root_rec *d, const struct pstack *s, int ns)
{
	int i;

	if (d->function[0] != '\0')
		return d->function;
	for (i = 0; i < ns; i++)
		if (s[i].tid == d->tid)
			return s[i].telling ? s[i].telling : s[i].fallback ?
			    s[i].fallback : "";
	return "";
}

/* A string, or null where it is unknown or empty. */
static void
json_str_or_null(FILE *fp, const char *key, const char *v)
{
	fprintf(fp, ",\"%s\":", key);
	if (v == NULL || *v == '\0')
		fputs("null", fp);
	else
		chrome_str(fp, v);
}

/* A number, by its root column's JSON name. */
static void
json_u64(FILE *fp, const char *key, uint64_t v)
{
	fprintf(fp, ",\"%s\":%llu", key, (unsigned long long)v);
}

/* A string, by its root column's JSON name. */
static void
json_str(FILE *fp, const char *key, const char *v)
{
	fprintf(fp, ",\"%s\":", key);
	chrome_str(fp, v);
}

static void
json_thread(FILE *fp, const struct root_rec *d, const struct pstack *s,
    int ns)
{
	const char *cg = cgroup_of(d->pid);
	char buf[CGROUP_MAX];

	fprintf(fp, "{\"%s\":\"%s\",\"pid\":%u,\"tid\":%u",
	    RJSON(root, KIND), root_kind_name(d->kind), d->pid, d->tid);
	json_str(fp, RJSON(root, COMM), d->comm);
	json_str_or_null(fp, "cgroup", cg);
	json_str_or_null(fp, "unit", cg ? cgroup_unit(cg, buf, sizeof(buf)) :
	    NULL);
	json_str_or_null(fp, "container", cg ? cgroup_container(cg, buf,
	    sizeof(buf)) : NULL);
	json_u64(fp, RJSON(root, VERTEX), d->vertex);
	json_u64(fp, RJSON(root, DEPTH), d->depth);
	json_u64(fp, RJSON(root, BEGIN), d->begin);
	json_u64(fp, RJSON(root, END), d->end);
	json_u64(fp, RJSON(root, ONCPU), d->oncpu);
	json_wall(fp, "begin", d->begin);
	json_wall(fp, "end", d->end);
	json_str(fp, RJSON(root, CLASS), d->class->name);
	json_str(fp, RJSON(root, WHY), d->why);
	if (d->evidence == EV_UNSAID)
		fprintf(fp, ",\"%s\":null", RJSON(root, EVIDENCE));
	else
		json_str(fp, RJSON(root, EVIDENCE),
		    evidence_phrase(d->evidence));
	json_str(fp, RJSON(root, FUNCTION), thread_function(d, s, ns));
	fputc('}', fp);
}

static int
is_root(const struct root_rec *d)
{
	return d->depth > 0 && (d->kind == RK_ROOT || d->kind == RK_CYCLE);
}

/*
 * How sure the diagnosis of records i..j-1 (a victim first) is, as its
 * report's headline says it: its first root's chain, from the root back
 * up to the victim, is as sure as its least sure hop.  -1: no root.
 */
static int
confidence(const struct found *f, int i, int j, int *cycle)
{
	enum evidence ev = EV_KERNEL;
	int r, k;
	uint64_t depth;

	for (r = i; r < j && !is_root(&f->r[r]); r++)
		;
	if (r == j)
		return -1;
	*cycle = f->r[r].kind == RK_CYCLE;
	depth = f->r[r].depth;
	if (f->r[r].evidence != EV_UNSAID && f->r[r].evidence < ev)
		ev = f->r[r].evidence;
	for (k = r - 1; k >= i && depth > 1; k--)
		if (f->r[k].depth == depth - 1) {
			depth--;
			if (f->r[k].evidence != EV_UNSAID &&
			    f->r[k].evidence < ev)
				ev = f->r[k].evidence;
		}
	return ev;
}

static void
json_confidence(FILE *fp, int ev, int cycle)
{
	if (ev < 0) {
		fputs(",\"confidence\":null,\"probably\":false", fp);
		return;
	}
	fputs(",\"confidence\":", fp);
	chrome_str(fp, evidence_phrase(ev));
	fprintf(fp, ",\"probably\":%s", ev == EV_GUESS && !cycle ? "true" :
	    "false");
}

/* The diagnosis beginning at record i: where the next victim is. */
static int
diagnosis_end(const struct found *f, int i)
{
	int j;

	for (j = i + 1; j < f->nr && f->r[j].kind != RK_VICTIM; j++)
		;
	return j;
}

static void
json_frames(FILE *fp, const char *key, char **v, int n)
{
	int i;

	fprintf(fp, ",\"%s\":[", key);
	for (i = 0; i < n; i++) {
		if (i)
			fputc(',', fp);
		chrome_str(fp, v[i]);
	}
	fputc(']', fp);
}

static void
json_write(FILE *fp, const char *out, int status, const struct found *f,
    const struct pstack *s, int ns)
{
	char when[64];
	int i, j, k, first, ev, cycle = 0;

	fprintf(fp, "{\"argus_debug\":1,\"file\":");
	chrome_str(fp, out);
	fprintf(fp, ",\"status\":%d,\"found\":%s", status, status == 0 ?
	    "true" : "false");
	/* The first diagnosis's, which the report's headline says. */
	ev = -1;
	for (i = 0; i < f->nr && ev < 0; i = diagnosis_end(f, i))
		ev = confidence(f, i, diagnosis_end(f, i), &cycle);
	json_confidence(fp, ev, cycle);
	fputs(",\n\"moment\":{\"kind\":", fp);
	chrome_str(fp, f->moment);
	if (f->moment_ns != NO_TIME) {
		clock_words(f->moment_ns, when, sizeof(when), 1);
		fprintf(fp, ",\"ns\":%llu,\"time\":\"%s\"",
		    (unsigned long long)f->moment_ns, when);
	}
	fputs("},\n\"diagnoses\":[", fp);
	/* A victim begins each diagnosis; its culprits follow it. */
	for (i = 0, first = 1; i < f->nr; i = j) {
		j = diagnosis_end(f, i);
		fprintf(fp, "%s\n{\"victim\":", first ? "" : ",");
		first = 0;
		json_thread(fp, &f->r[i], s, ns);
		fputs(",\"chain\":[", fp);
		for (k = i + 1; k < j; k++) {
			if (k > i + 1)
				fputc(',', fp);
			json_thread(fp, &f->r[k], s, ns);
		}
		fputs("],\"root_causes\":[", fp);
		for (k = i + 1, first = 1; k < j; k++)
			if (f->r[k].kind == RK_ROOT || f->r[k].kind == RK_CYCLE ||
			    (f->r[k].kind == RK_CULPRIT && k + 1 == j)) {
				if (!first)
					fputc(',', fp);
				first = 0;
				json_thread(fp, &f->r[k], s, ns);
			}
		fputc(']', fp);
		json_confidence(fp, confidence(f, i, j, &cycle), cycle);
		fputc('}', fp);
		first = 0;
	}
	fputs("],\n\"stacks\":[", fp);
	for (i = 0; i < ns; i++) {
		fprintf(fp, "%s\n{\"pid\":%u,\"tid\":%u,\"comm\":", i ? "," : "",
		    s[i].pid, s[i].tid);
		chrome_str(fp, s[i].comm);
		fprintf(fp, ",\"state\":\"%c\",\"function\":", s[i].state);
		chrome_str(fp, s[i].telling ? s[i].telling : "");
		fputs(",\"caller\":", fp);
		chrome_str(fp, s[i].caller ? s[i].caller : "");
		json_frames(fp, "kernel", s[i].kframes, s[i].nk);
		json_frames(fp, "user", s[i].uframes, s[i].nu);
		fputc('}', fp);
	}
	fputs("]}\n", fp);
}

/* The chain's threads, each once: those whose stacks are worth taking. */
static int
chain_threads(const struct found *f, uint32_t **pids, uint32_t **tids)
{
	int i, j, n = 0;

	*pids = xcalloc(f->nr + 1, sizeof(**pids));
	*tids = xcalloc(f->nr + 1, sizeof(**tids));
	for (i = 0; i < f->nr; i++) {
		for (j = 0; j < n && (*tids)[j] != f->r[i].tid; j++)
			;
		if (j < n || f->r[i].tid == 0)
			continue;
		(*pids)[n] = f->r[i].pid;
		(*tids)[n++] = f->r[i].tid;
	}
	return n;
}

/*
 * The earliest beginning of a vertex on a diagnosis's chain (victim,
 * chain, root causes), NO_TIME if none: argus debug reads older spilled
 * events when it is where what was read begins.
 */
uint64_t
diagnosis_earliest(const char *out)
{
	struct found f;
	uint64_t t = NO_TIME;
	int i;

	read_found(out, &f);
	for (i = 0; i < f.nr; i++)
		if (f.r[i].begin != NO_TIME && f.r[i].begin != 0 &&
		    (t == NO_TIME || f.r[i].begin < t))
			t = f.r[i].begin;
	found_free(&f);
	return t;
}

void
diagnosis_show(const char *out, const char *report, const char *json,
    int verbose, int status, const char *asked, const char *mark_stacks)
{
	FILE *text = stdout, *jf = NULL;
	struct pstack *s = NULL;
	struct outfile of;
	struct found f;
	uint32_t *pids, *tids;
	int n, ns = 0;

	read_found(out, &f);
	if (json != NULL && strcmp(json, "-") == 0) {
		jf = stdout;
		text = stderr;
	} else if (json != NULL)
		jf = outfile_fopen(&of, json);	/* whole when complete */
	moment_line(&f, asked, text);
	fflush(text);
	copy_report(report, text);
	unlink(report);
	loss_lines(&f, text);
	n = chain_threads(&f, &pids, &tids);
	/* A mark's hang: where they waited then, if the mark took stacks. */
	if (n > 0 && strcmp(f.moment, "mark") == 0 && mark_stacks != NULL &&
	    (s = present_marked(mark_stacks, pids, tids, n, &ns)) != NULL)
		present_show(text, "Where they waited at the mark:", s, ns,
		    verbose);
	else {
		if (n > 0)
			s = present_chain(pids, tids, n, &ns);
		present_show(text, "Where they wait now:", s, ns, verbose);
	}
	if (jf != NULL) {
		json_write(jf, out, status, &f, s, ns);
		if (jf != stdout)
			outfile_fclose(jf, &of);
		else if (fflush(jf) == EOF)
			die(EX_IOERR, "stdout");
	}
	if (fflush(text) == EOF)
		die(EX_IOERR, "stdout");
	present_free(s, ns);
	free(pids);
	free(tids);
	found_free(&f);
}
