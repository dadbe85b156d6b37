/*
 * Runtime providers: what only a runtime knows, asked after the four
 * passes.  A JVM parks a monitor's waiter on a condition of its own, and
 * InnoDB and PostgreSQL put a row lock's waiter to sleep on a latch: the
 * kernel sees the waiter's futex or epoll and no owner.  A provider is one
 * executable per runtime in a providers directory; its header says what
 * processes it speaks for and by what name; it reads the waits of the
 * matching processes on stdin and prints holder records of relation
 * runtime (argus-waitfor(1), PROVIDERS, is the protocol).
 *
 * A provider is bad input like any stream: it runs bounded (its own
 * process group, killed past the time limit, its output cut at a cap),
 * every record it prints is checked (a holder of an object it was asked
 * about, by a thread of a process it speaks for), and whatever it does,
 * the snapshot goes on and says in meta records what it did.
 */
#include <sys/types.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "graph.h"
#include "show.h"
#include "util.h"
#include "waits.h"
#include "waitfor.h"
#include "waitfor_int.h"
#include "waitfor_prov.h"

static void
build_inputs(struct wf_snap *s, struct wf_prov *pv)
{
	struct provider *p;
	struct thr *t;
	char line[KEYLEN + 64];
	size_t i, j, cap[MAX_PROVIDERS] = { 0 };
	int k, n, lastpid[MAX_PROVIDERS];
	uint32_t provs;

	for (k = 0; k < pv->np; k++)
		lastpid[k] = 0;
	for (i = 0; i < s->nw; i++) {
		t = &s->thr[s->w[i].thr];
		/*
		 * The wait itself, not an epoll set's members: those are
		 * shared (a postmaster's death pipe), the set is the
		 * thread's own.  Nor the memory a poller shares: no
		 * runtime's object.
		 */
		if (!t->keep || s->w[i].o.key[0] == '\0' ||
		    s->w[i].via[0] != '\0' || s->w[i].mode == WM_FLAG ||
		    (provs = wfp_match(s, pv, t->pid)) == 0)
			continue;
		n = snprintf(line, sizeof(line), "%d\t%d\t%s\t%s\n", t->pid,
		    t->tid, wmode_names[s->w[i].mode], s->w[i].o.key);
		for (k = 0; k < pv->np; k++) {
			if (!(provs & (1u << k)))
				continue;
			p = &pv->p[k];
			wfp_append(&p->in, &p->inlen, &cap[k], line, n);
			p->nwaits++;
			if (t->pid != lastpid[k])
				p->nprocs++;
			lastpid[k] = t->pid;
			for (j = 0; j < p->nobjs; j++)
				if (strcmp(p->objs[j], s->w[i].o.key) == 0)
					break;
			if (j == p->nobjs) {
				p->objs = xrealloc(p->objs, (p->nobjs + 1) *
				    sizeof(char *));
				p->objs[p->nobjs++] = xstrdup(s->w[i].o.key);
			}
		}
	}
}

static int
split(char *line, char **f, int max)
{
	char *r = line, *w = line;
	int n = 0;

	for (;;) {
		if (n == max)
			return -1;
		f[n++] = w;
		if (*r == '"') {
			for (r++;; r++) {
				if (*r == '\0')
					return -1;
				if (*r == '"' && r[1] == '"')
					*w++ = *r++;
				else if (*r == '"')
					break;
				else
					*w++ = *r;
			}
			r++;
			if (*r != ',' && *r != '\0')
				return -1;
		} else
			while (*r != ',' && *r != '\0')
				*w++ = *r++;
		if (*r == '\0') {
			*w = '\0';
			return n;
		}
		*w++ = '\0';
		r++;
	}
}

static int
number(const char *s, uint64_t max, uint64_t *v)
{
	char *end;

	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	*v = strtoull(s, &end, 10);
	return *end != '\0' || errno != 0 || *v == 0 || *v > max ? -1 : 0;
}

static int
printable(const char *s)
{
	for (; *s != '\0'; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return 0;
	return 1;
}

/* NULL and a holder added, or why the record is refused. */
static const char *
take(struct wf_snap *s, struct wf_prov *pv, struct provider *p, char *line)
{
	char *f[RCOL(holder, COMM) + 2], path[64];
	struct hd *h;
	uint64_t pid, tid;
	size_t i;
	int nf;

	if ((nf = split(line, f, RCOL(holder, COMM) + 2)) < 0)
		return "not a CSV record";
	if (strcmp(f[COL_KIND], KIND_HOLDER) != 0)
		return "not a holder record";
	if (nf != RCOL(holder, COMM) + 1)
		return "not the 10 columns of a holder record";
	if (strcmp(f[RCOL(holder, RELATION)], wrels[WR_RUNTIME].name) != 0)
		return "a relation other than runtime";
	if (number(f[COL_PID], 4194304, &pid) == -1 ||
	    number(f[COL_TID], 4194304, &tid) == -1)
		return "no process and thread";
	if (wf_proc_get(s, pid) == NULL)
		return "no such process";
	snprintf(path, sizeof(path), "/proc/%llu/task/%llu",
	    (unsigned long long)pid, (unsigned long long)tid);
	if (access(path, F_OK) == -1)
		return "no such thread of the process";
	/* A provider speaks for the processes it matches, and no others. */
	if (!(wfp_match(s, pv, pid) & (1u << (p - pv->p))))
		return "a process it does not speak for";
	for (i = 0; i < p->nobjs; i++)
		if (strcmp(p->objs[i], f[RCOL(holder, OBJECT)]) == 0)
			break;
	if (i == p->nobjs)
		return "an object it was not asked about";
	if (*f[RCOL(holder, FD)] != '\0')
		return "a descriptor (a runtime's holder has none)";
	if (strlen(f[RCOL(holder, THROUGH)]) >= sizeof(h->through) ||
	    !printable(f[RCOL(holder, THROUGH)]))
		return "THROUGH too long or not printable";
	if (*f[RCOL(holder, DETAIL)] != '\0' && strcmp(f[RCOL(holder, DETAIL)], p->says) != 0)
		return "DETAIL not the name its header says";
	for (i = 0; i < s->nh; i++)
		if (s->h[i].rel == WR_RUNTIME && s->h[i].pid == (int)pid &&
		    s->h[i].tid == (int)tid &&
		    strcmp(s->h[i].obj, f[RCOL(holder, OBJECT)]) == 0)
			return NULL;
	GROW(s->h, s->nh, s->caph);
	h = &s->h[s->nh++];
	memset(h, 0, sizeof(*h));
	snprintf(h->obj, sizeof(h->obj), "%s", f[RCOL(holder, OBJECT)]);
	h->rel = WR_RUNTIME;
	h->pid = pid;
	h->tid = tid;
	h->fd = NO_FD;
	snprintf(h->through, sizeof(h->through), "%s", f[RCOL(holder, THROUGH)]);
	snprintf(h->detail, sizeof(h->detail), "%s", p->says);
	return NULL;
}

/* Its records, checked; what it did, said. */
static void
judge(struct wf_snap *s, struct wf_prov *pv, struct provider *p,
    uint64_t limit, size_t cap)
{
	char *line, *next, *nl, first[160] = "", copy[64] = "";
	unsigned long lineno = 0, bad = 0, good = 0;
	const char *why;
	size_t before = s->nh;
	int whole;

	for (line = p->out; line != NULL && line < p->out + p->outlen;
	    line = next) {
		nl = memchr(line, '\n', p->out + p->outlen - line);
		/* A last line cut by the cap or the kill is no record. */
		whole = nl != NULL;
		next = nl != NULL ? nl + 1 : NULL;
		if (nl != NULL)
			*nl = '\0';
		lineno++;
		if (!whole && (p->capped || p->killed))
			break;
		if (*line == '\0' || *line == '#')
			continue;
		if (strlen(line) != (size_t)((nl != NULL ? nl : p->out +
		    p->outlen) - line))
			why = "a NUL byte";
		else {
			/* take() splits it in place: the message shows it whole. */
			snprintf(copy, sizeof(copy), "%s", line);
			why = take(s, pv, p, line);
		}
		if (why == NULL) {
			good++;
			continue;
		}
		if (bad++ == 0)
			snprintf(first, sizeof(first), "line %lu: %s", lineno,
			    why);
		if (bad <= 3)
			warnx_("provider %s: line %lu: %s: '%s'", p->name,
			    lineno, why, show(copy));
	}
	if (p->killed)
		wfp_note(pv, META_PROVIDER_ERROR, "%s: killed past its time "
		    "limit of %.1f s; %lu records taken before", p->name,
		    limit / 1e9, good);
	else if (p->capped)
		wfp_note(pv, META_PROVIDER_ERROR, "%s: stopped at %zu bytes of "
		    "output, its cap; %lu records taken before", p->name, cap,
		    good);
	else if (!WIFEXITED(p->status) || WEXITSTATUS(p->status) != 0)
		wfp_note(pv, META_PROVIDER_ERROR, "%s: %s %d in %.2f s; %lu "
		    "records taken", p->name, WIFEXITED(p->status) ?
		    "exited with status" : "killed by signal",
		    WIFEXITED(p->status) ? WEXITSTATUS(p->status) :
		    WTERMSIG(p->status), p->ns / 1e9, good);
	else
		wfp_note(pv, META_PROVIDER, "%s: %s named %zu holders for %d "
		    "waits of %d processes in %.2f s", p->name, p->says, s->nh - before,
		    p->nwaits, p->nprocs, p->ns / 1e9);
	if (p->killed || p->capped || p->status != 0)
		warnx_("provider %s", strchr(pv->notes[pv->nnotes - 1], '\t') +
		    1);
	if (bad > 0) {
		wfp_note(pv, META_PROVIDER_ERROR, "%s: %lu bad records dropped "
		    "(%s)", p->name, bad, first);
		warnx_("provider %s: %lu bad records dropped", p->name, bad);
	}
	for (line = p->err; line != NULL && *line != '\0'; line = next) {
		next = strchr(line, '\n');
		if (next != NULL)
			*next++ = '\0';
		if (*line != '\0')
			wfp_note(pv, META_PROVIDER_STDERR, "%s: %s", p->name,
			    show(line));
	}
}

int
wf_providers(struct wf_snap *s)
{
	const struct wf_opts *o = s->opt;
	struct wf_prov *pv;
	uint64_t limit = o->provider_ns ? o->provider_ns : DEFAULT_NS;
	size_t cap = o->provider_cap ? o->provider_cap : PROVIDER_CAP;
	size_t before = s->nh;
	int i, any = 0;

	if (o->no_providers)
		return 0;
	s->prov = pv = xcalloc(1, sizeof(*pv));
	wfp_find(pv, o);
	if (pv->np == 0)
		return 0;
	build_inputs(s, pv);
	for (i = 0; i < pv->np; i++)
		any |= pv->p[i].nwaits > 0;
	if (!any)
		return 0;
	wfp_run(pv, o);
	for (i = 0; i < pv->np; i++)
		if (pv->p[i].nwaits > 0)
			judge(s, pv, &pv->p[i], limit, cap);
	return s->nh > before;
}

void
wf_providers_write(struct writer *wr, const struct wf_snap *s)
{
	char *tab;
	size_t i;

	if (s->prov == NULL)
		return;
	for (i = 0; i < s->prov->nnotes; i++) {
		tab = strchr(s->prov->notes[i], '\t');
		*tab = '\0';
		meta_write(wr, s->t0, s->prov->notes[i], "%s", tab + 1);
		*tab = '\t';
	}
}

void
wf_providers_free(struct wf_snap *s)
{
	struct wf_prov *pv = s->prov;
	struct provider *p;
	size_t j;
	int i, k, n;

	if (pv == NULL)
		return;
	for (i = 0; i < pv->np; i++) {
		p = &pv->p[i];
		for (k = 0; k < MK_N; k++)
			for (n = 0; n < p->nnames[k]; n++)
				free(p->names[k][n]);
		for (j = 0; j < p->nobjs; j++)
			free(p->objs[j]);
		free(p->objs);
		free(p->in);
		free(p->out);
		free(p->err);
	}
	HASH_FREE(hh, pv->match);
	for (j = 0; j < pv->nnotes; j++)
		free(pv->notes[j]);
	free(pv->notes);
	free(pv);
	s->prov = NULL;
}
