/*
 * Tracepoint formats and enabling.  Everything is written in our own
 * instance's events/ directory, so other tracers see none of it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"
#include "event.h"
#include "events.h"
#include "syscalls.h"
#include "tracefs.h"

/* Every type of lib/events.def; one with no tracepoint only names. */
struct evdef evdefs[EV_N];

uint8_t ev_by_id[65536];
int common_flags_off = 2, common_pid_off = 4;

static char *syscall_desc;

/*
 * A format file line: "\tfield:TYPE NAME[N];\toffset:O;\tsize:S;\tsigned:G;".
 * Returns the field name (arrays without their brackets) in name.
 */
static int
parse_field(char *line, char *name, size_t namesz, struct field *f)
{
	char *decl, *semi, *p, *q;
	int off, size, sign = 0;

	if ((decl = strstr(line, "field:")) == NULL)
		return 0;
	decl += 6;
	if ((semi = strchr(decl, ';')) == NULL)
		return 0;
	*semi = '\0';
	if ((p = strstr(semi + 1, "offset:")) == NULL ||
	    sscanf(p, "offset:%d;", &off) != 1)
		return 0;
	if ((p = strstr(semi + 1, "size:")) == NULL ||
	    sscanf(p, "size:%d;", &size) != 1)
		return 0;
	if ((p = strstr(semi + 1, "signed:")) != NULL)
		sscanf(p, "signed:%d;", &sign);
	f->dyn = strstr(decl, "__data_loc") != NULL;
	f->rel = strstr(decl, "__rel_loc") != NULL;
	if (f->rel)
		f->dyn = 1;
	/* "char comm[16]" names comm; "__data_loc char[] name" names name. */
	if ((q = strchr(decl, '[')) != NULL && !f->dyn)
		*q = '\0';
	/* The name is the last word. */
	p = decl + strlen(decl);
	while (p > decl && p[-1] == ' ')
		*--p = '\0';
	while (p > decl && p[-1] != ' ' && p[-1] != '*' && p[-1] != '\t')
		p--;
	snprintf(name, namesz, "%s", p);
	f->off = off;
	f->size = size;
	f->sign = sign;
	return 1;
}

int
events_load_fields(const char *sys, const char *event,
    const char *const *fields, int nfields, struct field *fs, int *id)
{
	char rel[256], buf[16384], name[128], *line, *save;
	struct field f;
	int i;

	snprintf(rel, sizeof(rel), "events/%s/%s/format", sys, event);
	if (tfs_read(rel, buf, sizeof(buf)) <= 0)
		return -1;
	for (i = 0; i < nfields; i++)
		fs[i].off = -1;
	*id = -1;
	for (line = strtok_r(buf, "\n", &save); line != NULL;
	    line = strtok_r(NULL, "\n", &save)) {
		if (strncmp(line, "ID:", 3) == 0) {
			*id = atoi(line + 3);
			continue;
		}
		memset(&f, 0, sizeof(f));
		if (!parse_field(line, name, sizeof(name), &f))
			continue;
		if (strcmp(name, "common_flags") == 0)
			common_flags_off = f.off;
		else if (strcmp(name, "common_pid") == 0)
			common_pid_off = f.off;
		for (i = 0; i < nfields && fields[i] != NULL; i++)
			if (strcmp(fields[i], name) == 0)
				fs[i] = f;
	}
	return *id >= 0 && *id < 65536 ? 0 : -1;
}

static int
load_format(struct evdef *e, const struct edef *d)
{
	const char *fields[EV_MAXFIELDS];
	int i;

	for (i = 0; i < e->nfields; i++)
		fields[i] = d->col[i].field;
	return events_load_fields(d->sys, d->tp, fields, e->nfields, e->f,
	    &e->id);
}

/* Columns, then the fields they USE, as lib/events.def lists them. */
static void
count_cols(struct evdef *e, const struct edef *d)
{
	int i;

	for (i = 0; i < EV_MAXFIELDS && d->col[i].field != NULL; i++) {
		e->kind[i] = d->col[i].kind;
		if (d->col[i].kind == EK_USE)
			continue;
		if (e->ncols < i)
			diex(EX_SOFTWARE, "%s: USE before a column", d->type);
		e->ncols = i + 1;
	}
	e->nfields = i;
}

/* "common_pid != A && common_pid != B": our own reads are not news. */
void
self_filter(char *buf, size_t size, const int *self, int nself)
{
	size_t len = 0;
	int i;

	buf[0] = '\0';
	for (i = 0; i < nself; i++)
		len += snprintf(buf + len, size - len, "%scommon_pid != %d",
		    i ? " && " : "", self[i]);
}

/*
 * One call in a filter under way: "id == NR", joined by " || ".  With
 * EXITS, the calls whose return a rule reads go to out, those read only
 * when they failed with EAGAIN (syscall_exit_again) to again, and the
 * rest nowhere.
 */
struct idlist {
	char	*buf;
	size_t	 len, cap;
	int	 n;
};

static void
idlist_add(struct idlist *l, long nr)
{
	l->len += snprintf(l->buf + l->len, l->cap - l->len, "%sid == %ld",
	    l->n++ ? " || " : "", nr);
	if (l->len >= l->cap - 64)
		diex(EX_USAGE, "--syscalls: list too long");
}

static void
add_call(struct idlist *out, struct idlist *again, long nr, int exits)
{
	const char *name = syscall_name(nr);

	if (!exits)
		idlist_add(out, nr);
	else if (syscall_exit_read(name))
		idlist_add(out, nr);
	else if (syscall_exit_again(name))
		idlist_add(again, nr);
}

/*
 * The filter of raw_syscalls' sys_enter for SPEC; with EXITS, of its
 * sys_exit: the calls of SPEC whose return a rule reads
 * (syscall_exit_read), and those that failed with EAGAIN of the calls
 * read only then; NULL if none.
 */
static char *
syscall_filter(const char *spec, const int *self, int nself, int exits)
{
	char selfs[256], *list, *tok, *save, *out;
	struct idlist ids = { 0 }, again = { 0 };
	const char *const *d;
	size_t len;
	long nr;

	self_filter(selfs, sizeof(selfs), self, nself);
	if (strcmp(spec, "all") == 0 && !exits) {
		syscall_desc = xstrdup("all");
		return xstrdup(selfs);
	}
	ids.cap = again.cap = 65536;
	ids.buf = xmalloc(ids.cap);
	again.buf = xmalloc(again.cap);
	ids.buf[0] = again.buf[0] = '\0';
	if (strcmp(spec, "all") == 0) {
		for (nr = 0; nr < SYSCALL_MAX; nr++)
			add_call(&ids, &again, nr, exits);
	} else if (strcmp(spec, "default") == 0) {
		for (d = syscall_default; *d != NULL; d++)
			if ((nr = syscall_nr(*d)) >= 0)
				add_call(&ids, &again, nr, exits);
		syscall_desc = xstrdup("default");
	} else {
		list = xstrdup(spec);
		for (tok = strtok_r(list, ",", &save); tok != NULL;
		    tok = strtok_r(NULL, ",", &save)) {
			if ((nr = syscall_nr(tok)) < 0) {
				char *end;

				nr = strtol(tok, &end, 10);
				if (*tok == '\0' || *end != '\0' || nr < 0)
					diex(EX_USAGE, "--syscalls: unknown "
					    "system call '%s'", tok);
			}
			add_call(&ids, &again, nr, exits);
		}
		free(list);
		if (!exits)
			syscall_desc = xstrdup(spec);
	}
	out = NULL;
	if (ids.n == 0 && again.n == 0 && !exits)
		diex(EX_USAGE, "--syscalls: empty list");
	if (ids.n > 0 || again.n > 0) {
		len = strlen(selfs) + ids.len + again.len + 64;
		out = xmalloc(len);
		if (again.n == 0)
			snprintf(out, len, "%s%s(%s)", selfs,
			    nself ? " && " : "", ids.buf);
		else
			snprintf(out, len, "%s%s(%s%sret == %d && (%s))", selfs,
			    nself ? " && " : "", ids.buf, ids.n ? " || " : "",
			    SYS_AGAIN, again.buf);
	}
	free(ids.buf);
	free(again.buf);
	return out;
}

char *
events_syscall_desc(void)
{
	return syscall_desc ? syscall_desc : "none";
}

/* An event of the instance's on, with a filter if one is given. */
static int
set_on(const char *dir, const char *filter)
{
	char rel[300];

	snprintf(rel, sizeof(rel), "%s/filter", dir);
	if (*filter && tfs_write(rel, "%s", filter) == -1)
		return -1;
	snprintf(rel, sizeof(rel), "%s/enable", dir);
	return tfs_write(rel, "1");
}

/*
 * The kernel's own event for each listed system call instead of
 * raw_syscalls for all.  Most of what a busy machine records
 * is system calls, and raw_syscalls:sys_enter takes 68 bytes of the ring
 * for its six arguments where syscalls:sys_enter_write takes 44: the same
 * kernel buffer reaches a third further back.  The calls not listed cost
 * a bit test instead of a filter over the list.  Only for a list of names
 * the kernel has events for; anything else (all, a number, an older
 * kernel) keeps raw_syscalls.  Returns whether it did.
 */
static int
per_syscall(const char *spec, const char *selfs)
{
	static const char *const enter_f[] = { "__syscall_nr" },
	    *const exit_f[] = { "__syscall_nr", "ret" };
	struct field fe[1], fx[2], ne = { .off = -1 }, nx = { .off = -1 },
	    ret = { .off = -1 };
	char ev[128], rel[256], xf[320], *list = NULL, *tok, *save;
	const char *sfx;
	const char **names = NULL;
	int i, n = 0, ok = 1, ide, idx, pass, exits = 0, again;

	if (strcmp(spec, "all") == 0 || getenv("ARGUS_RAW_SYSCALLS") != NULL)
		return 0;
	if (strcmp(spec, "default") == 0) {
		for (; syscall_default[n] != NULL; n++)
			;
		names = xmalloc((n + 1) * sizeof(*names));
		for (i = 0; i < n; i++)
			names[i] = syscall_default[i];
	} else {
		list = xstrdup(spec);
		for (tok = strtok_r(list, ",", &save); tok != NULL;
		    tok = strtok_r(NULL, ",", &save)) {
			names = xrealloc(names, (n + 1) * sizeof(*names));
			names[n++] = tok;
		}
	}
	/* Every event there, all of one layout, before any is enabled. */
	for (pass = 0; pass < 2 && ok; pass++)
		for (i = 0; i < n && ok; i++) {
			if (syscall_nr(names[i]) < 0) {
				/* Not this machine's (the raw filter skips it
				 * too), unless it is a number. */
				ok = strtol(names[i], NULL, 10) == 0 &&
				    names[i][0] != '0';
				continue;
			}
			/* The kernel's name, where it differs (sendfile64). */
			snprintf(ev, sizeof(ev), "sys_enter_%s", names[i]);
			sfx = "";
			if (events_load_fields("syscalls", ev, enter_f, 1, fe,
			    &ide) == -1) {
				sfx = "64";
				snprintf(ev, sizeof(ev), "sys_enter_%s64",
				    names[i]);
			}
			if (events_load_fields("syscalls", ev, enter_f, 1, fe,
			    &ide) == -1 || fe[0].off < 0 || (ne.off >= 0 &&
			    (fe[0].off != ne.off || fe[0].size != ne.size))) {
				ok = 0;
				break;
			}
			ne = fe[0];
			snprintf(ev, sizeof(ev), "sys_exit_%s%s", names[i], sfx);
			if (events_load_fields("syscalls", ev, exit_f, 2, fx,
			    &idx) == -1 || fx[0].off < 0 || fx[1].off < 0 ||
			    (nx.off >= 0 && (fx[0].off != nx.off ||
			    fx[1].off != ret.off))) {
				ok = 0;
				break;
			}
			nx = fx[0];
			ret = fx[1];
			if (pass == 0)
				continue;
			again = !syscall_exit_read(names[i]) &&
			    syscall_exit_again(names[i]);
			exits += syscall_exit_read(names[i]) || again;
			ev_by_id[ide] = E_SYS_ENTER;
			ev_by_id[idx] = E_SYS_EXIT;
			snprintf(rel, sizeof(rel), "events/syscalls/sys_enter_%s%s",
			    names[i], sfx);
			if (set_on(rel, selfs) == -1)
				diex(EX_UNAVAILABLE, "cannot enable syscalls:"
				    "sys_enter_%s: %s", names[i], strerror(errno));
			/*
			 * Only where a rule reads the return (lib/event.c),
			 * or where it failed with EAGAIN, for the calls whose
			 * failures alone tell.
			 */
			if (!syscall_exit_read(names[i]) && !again)
				continue;
			snprintf(rel, sizeof(rel), "events/syscalls/sys_exit_%s%s",
			    names[i], sfx);
			if (again)
				snprintf(xf, sizeof(xf), "%s%sret == %d", selfs,
				    *selfs ? " && " : "", SYS_AGAIN);
			if (set_on(rel, again ? xf : selfs) == -1)
				diex(EX_UNAVAILABLE, "cannot enable syscalls:"
				    "sys_exit_%s: %s", names[i], strerror(errno));
		}
	if (ok && ne.off >= 0) {
		/* NR and NAME from the number; the arguments follow it, eight
		 * bytes each. */
		evdefs[E_SYS_ENTER].f[0] = evdefs[E_SYS_ENTER].f[1] = ne;
		evdefs[E_SYS_ENTER].f[2] = (struct field){ .off =
		    (ne.off + ne.size + 7) & ~7, .size = 8 };
		evdefs[E_SYS_ENTER].enabled = 1;
		evdefs[E_SYS_EXIT].f[0] = evdefs[E_SYS_EXIT].f[1] = nx;
		evdefs[E_SYS_EXIT].f[2] = ret;
		evdefs[E_SYS_EXIT].enabled = exits > 0;
	}
	free(names);
	free(list);
	return ok && ne.off >= 0;
}

void
events_setup(const char *syscalls, const int *self, int nself)
{
	char rel[256], selfs[256], *filt = NULL, *xfilt = NULL, *f;
	const struct edef *d;
	struct evdef *e;
	int i, want, persc = 0;

	memset(ev_by_id, EV_NONE, sizeof(ev_by_id));
	if (strcmp(syscalls, "none") != 0) {
		filt = syscall_filter(syscalls, self, nself, 0);
		xfilt = syscall_filter(syscalls, self, nself, 1);
		self_filter(selfs, sizeof(selfs), self, nself);
		persc = per_syscall(syscalls, selfs);
	}
	for (i = 0; i < EV_N; i++) {
		if (i >= E_NTYPES)
			continue;	/* EV_UPROBE: probes.c sets them up */
		e = &evdefs[i];
		d = &edefs[i];
		count_cols(e, d);
		if (d->sys == NULL)
			continue;
		want = 1;
		f = i == E_SYS_EXIT ? xfilt : filt;
		if ((i == E_SYS_ENTER || i == E_SYS_EXIT) && f == NULL)
			want = 0;
		if (!want)
			continue;
		if (persc && (i == E_SYS_ENTER || i == E_SYS_EXIT)) {
			/* Set, not enabled: --stacks reads it from here. */
			snprintf(rel, sizeof(rel), "events/%s/%s/filter",
			    d->sys, d->tp);
			tfs_write(rel, "%s", f);
			continue;
		}
		if (load_format(e, d) == -1) {
			if (d->flags & EF_REQUIRED)
				diex(EX_UNAVAILABLE, "tracepoint %s:%s is "
				    "missing from this kernel", d->sys,
				    d->tp);
			warnx_("tracepoint %s:%s unavailable: no %s events",
			    d->sys, d->tp, d->type);
			continue;
		}
		ev_by_id[e->id] = i;
		if (i == E_MARKER) {
			e->enabled = 1;
			continue;
		}
		if (i == E_SYS_ENTER || i == E_SYS_EXIT) {
			snprintf(rel, sizeof(rel), "events/%s/%s/filter",
			    d->sys, d->tp);
			if (tfs_write(rel, "%s", f) == -1)
				diex(EX_SOFTWARE, "%s: cannot set filter "
				    "'%.200s': %s", rel, f,
				    strerror(errno));
		}
		/* Unix sockets' sends are many and match nothing remote. */
		if (i == E_SOCK_SEND || i == E_SOCK_RECV) {
			snprintf(rel, sizeof(rel), "events/%s/%s/filter",
			    d->sys, d->tp);
			if (tfs_write(rel, "family == 2 || family == 10") == -1)
				warnx_("%s: cannot set filter: %s", rel,
				    strerror(errno));
		}
		snprintf(rel, sizeof(rel), "events/%s/%s/enable", d->sys,
		    d->tp);
		if (tfs_write(rel, "1") == -1) {
			if (d->flags & EF_REQUIRED)
				diex(EX_UNAVAILABLE, "cannot enable %s:%s: %s",
				    d->sys, d->tp, strerror(errno));
			warnx_("cannot enable %s:%s: %s", d->sys, d->tp,
			    strerror(errno));
			continue;
		}
		e->enabled = 1;
	}
	free(filt);
	free(xfilt);
}
