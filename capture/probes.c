/*
 * uprobe_events is global: every instance sees what is written there, and
 * other tools keep their own probes in it.  So we only ever append, name
 * ours argus_PID/EVENT_N, enable them in our instance's events/ alone, and
 * remove by name exactly those we made, at exit, from the signal paths
 * (which end through exit()), and, for a capture killed with SIGKILL, at
 * the start of the next one (a group argus_PID whose PID is no capture).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util.h"
#include "elfsym.h"
#include "probeset.h"
#include "procopen.h"
#include "probes.h"
#include "tracefs.h"

#define MAXPROBES	200

struct spec {
	char		*lib, *sym, *event;
	uint64_t	 off;
	int		 deref, ret, nargs;
	unsigned char	 skip[PROBESET_MAXSKIP];	/* the entry's first bytes */
	int		 nskip;
	char		*where;		/* file:line or --probe */
};

static struct spec	*specs;
static int		 nspecs;
static struct uprobe	 probes[MAXPROBES];
static char		*descs[MAXPROBES];
static int		 nprobes;
static uint8_t		 slot[65536];	/* event id -> probe index + 1 */
static char		 group[32];
static pid_t		 owner;

/* A probe parsed, as a spec of our own; where: FILE:LINE or --probe. */
static void
add(const struct probeline *pl, const char *where)
{
	struct spec sp;

	if (nspecs >= MAXPROBES)
		diex(EX_USAGE, "%s: more than %d probes", where, MAXPROBES);
	memset(&sp, 0, sizeof(sp));
	sp.off = pl->off;
	sp.deref = pl->deref;
	sp.ret = pl->ret;
	sp.nargs = pl->nargs;
	memcpy(sp.skip, pl->skip, sizeof(sp.skip));
	sp.nskip = pl->nskip;
	sp.lib = xstrdup(pl->lib);
	sp.sym = xstrdup(pl->sym);
	sp.event = xstrdup(pl->event);
	sp.where = xstrdup(where);
	specs = xrealloc(specs, (nspecs + 1) * sizeof(*specs));
	specs[nspecs++] = sp;
}

const char *
probes_event(int i)
{
	return i < nspecs ? specs[i].event : NULL;
}

void
probes_forget(void)
{
	nspecs = 0;
}

int
probes_wanted(void)
{
	return nspecs;
}

/*
 * A probe set named without a directory ("pthread", "glib.probes") is
 * looked for where Argus keeps its sets: installed beside the programs
 * (PREFIX/share/argus/probes) or in the source tree they were built in
 * (patchers/).
 */
static FILE *
open_set(const char *name, char *found, size_t size)
{
	static const char *const dirs[] = { "../share/argus/probes",
	    "../patchers" };
	char self[PATH_MAX], *slash;
	ssize_t n;
	FILE *f;

	snprintf(found, size, "%s", name);
	if ((f = fopen(name, "re")) != NULL || strchr(name, '/') != NULL)
		return f;
	if ((n = readlink("/proc/self/exe", self, sizeof(self) - 1)) == -1)
		return NULL;
	self[n] = '\0';
	if ((slash = strrchr(self, '/')) != NULL)
		*slash = '\0';
	return probeset_find(name, self, dirs, ARRAY_LEN(dirs), found, size);
}

/* A set's lines (lib/probeset.h); a malformed one stops the capture. */
void
probes_add_file(const char *name)
{
	char path[PATH_MAX], where[PATH_MAX + 32], err[PATH_MAX];
	char *line = NULL;
	struct probeline pl;
	unsigned long n = 0;
	size_t cap = 0;
	int r;
	FILE *f;

	if ((f = open_set(name, path, sizeof(path))) == NULL)
		die(EX_NOINPUT, "--probes %s", name);
	/* Whole lines, however long: a long comment is still one line. */
	while (getline(&line, &cap, f) != -1) {
		n++;
		if ((r = probeset_line(line, &pl, err, sizeof(err))) == 0)
			continue;
		snprintf(where, sizeof(where), "%s:%lu", path, n);
		if (r == -1)
			diex(EX_USAGE, "%s: %s", where, err);
		add(&pl, where);
	}
	if (ferror(f))
		die(EX_IOERR, "--probes %s", path);
	fclose(f);
	free(line);
}

/* LIB:SYMBOL[+OFFSET][%return][=EVENT] */
void
probes_add_spec(const char *arg)
{
	char *s = xstrdup(arg), *colon, *eq, *pct, *sym;
	char ev[PROBESET_MAXEVENT + 1];
	struct probeline pl;

	memset(&pl, 0, sizeof(pl));
	pl.nargs = 1;
	if ((colon = strchr(s, ':')) == NULL || colon == s)
		goto bad;
	*colon = '\0';
	sym = colon + 1;
	if ((eq = strchr(sym, '=')) != NULL) {
		*eq++ = '\0';
		if (!probeset_ident(eq) || strlen(eq) > PROBESET_MAXEVENT)
			goto bad;
		pl.event = eq;
	}
	if ((pct = strchr(sym, '%')) != NULL) {
		if (strcmp(pct, "%return") != 0)
			goto bad;
		*pct = '\0';
		pl.ret = 1;
	}
	if (probeset_symbol(&pl, sym) == -1)
		goto bad;
	if (pl.event == NULL) {
		/* The symbol's own name, cut to fit. */
		snprintf(ev, sizeof(ev), "%s", pl.sym);
		if (!probeset_ident(ev))
			goto bad;
		pl.event = ev;
	}
	pl.lib = s;
	add(&pl, "--probe");
	free(s);
	return;
bad:
	diex(EX_USAGE, "--probe: expected LIB:SYMBOL[+OFFSET][%%return]"
	    "[=EVENT], got '%s'", arg);
}

/* A library by name as the loader would find it, or a path as given. */
static int
resolve_lib(const char *lib, char *out, size_t size)
{
	static const char *const dirs[] = {
		"/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu",
		"/lib64", "/usr/lib64", "/lib", "/usr/lib", "/usr/local/lib",
	};
	char p[PATH_MAX], line[1024], *arrow;
	size_t i, n = strlen(lib);
	FILE *f;

	if (strchr(lib, '/') != NULL)
		return realpath(lib, out) != NULL && size >= PATH_MAX ? 0 : -1;
	for (i = 0; i < ARRAY_LEN(dirs); i++) {
		snprintf(p, sizeof(p), "%s/%s", dirs[i], lib);
		if (access(p, R_OK) == 0 && realpath(p, out) != NULL)
			return 0;
	}
	/* "\tlibglib-2.0.so.0 (libc6,x86-64) => /lib/x86_64-linux-gnu/..." */
	if ((f = popen("ldconfig -p 2>/dev/null", "r")) == NULL)
		return -1;
	while (fgets(line, sizeof(line), f) != NULL) {
		char *b = line + strspn(line, " \t");

		if (strncmp(b, lib, n) != 0 || (b[n] != ' ' && b[n] != '\t'))
			continue;
		if (strstr(b, "x86-64") == NULL ||
		    (arrow = strstr(b, "=> ")) == NULL)
			continue;
		arrow[strcspn(arrow, "\n")] = '\0';
		if (realpath(arrow + 3, out) != NULL) {
			pclose(f);
			return 0;
		}
	}
	pclose(f);
	return -1;
}

static int
append(const char *file, const char *line)
{
	char p[PATH_MAX];
	ssize_t n;
	int fd, e;

	if (tfs_root_path() == NULL)
		return -1;
	snprintf(p, sizeof(p), "%s/%s", tfs_root_path(), file);
	/* Never O_TRUNC: that would delete every probe on the system. */
	if ((fd = open(p, O_WRONLY | O_APPEND | O_CLOEXEC)) == -1)
		return -1;
	n = write(fd, line, strlen(line));
	e = errno;
	close(fd);
	errno = e;
	return n == (ssize_t)strlen(line) ? 0 : -1;
}

void
probes_reap_stale(void)
{
	char p[PATH_MAX], line[PATH_MAX + 256], del[256], *slash, *end;
	long pid;
	FILE *f;
	char **dels = NULL;
	int ndels = 0, i;

	if (tfs_root_path() == NULL)
		return;
	snprintf(p, sizeof(p), "%s/uprobe_events", tfs_root_path());
	if ((f = fopen(p, "r")) == NULL)
		return;
	/* "p:argus_1234/runloop_begin_0 /usr/lib/...:0x..." */
	while (fgets(line, sizeof(line), f) != NULL) {
		if (line[0] == '\0' || line[1] != ':' ||
		    strncmp(line + 2, PROBE_GROUP, strlen(PROBE_GROUP)) != 0)
			continue;
		errno = 0;
		pid = strtol(line + 2 + strlen(PROBE_GROUP), &end, 10);
		if (*end != '/' || pid <= 0 || errno)
			continue;	/* not a name we would have made */
		if (tfs_alive_capture(pid))
			continue;
		slash = end + strcspn(end, " \t\n");
		*slash = '\0';
		snprintf(del, sizeof(del), "-:%.200s\n", line + 2);
		dels = xrealloc(dels, (ndels + 1) * sizeof(*dels));
		dels[ndels++] = xstrdup(del);
	}
	fclose(f);
	for (i = 0; i < ndels; i++) {
		dels[i][strlen(dels[i]) - 1] = '\0';
		if (append("uprobe_events", dels[i]) == 0 ||
		    errno == ENOENT)
			warnx_("removed uprobe %s left by a capture that died",
			    dels[i] + 2);
		else
			warnx_("could not remove stale uprobe %s: %s",
			    dels[i] + 2, strerror(errno));
		free(dels[i]);
	}
	free(dels);
}

static const char *const argregs[PROBE_MAXARGS] = {
	"%di", "%si", "%dx", "%cx", "%r8", "%r9",	/* x86-64 SysV */
};
static const char *const argnames[PROBE_MAXARGS] = {
	"arg1", "arg2", "arg3", "arg4", "arg5", "arg6",
};
static const char *const retnames[1] = { "ret" };

/*
 * The probe goes past the function's first instructions when they are the
 * bytes skip= names: a probed instruction that the kernel cannot emulate
 * is single-stepped, a second trap, slow in a virtual machine.  Any
 * other build of the library gets the entry, which is always an
 * instruction boundary, and a warning.
 */
static uint64_t
skip_prologue(const struct spec *sp, const char *path, uint64_t off)
{
	unsigned char b[PROBESET_MAXSKIP];
	int fd, same;

	if (sp->nskip == 0)
		return off;
	if ((fd = open_regular(path)) == -1)
		return off;
	same = pread(fd, b, sp->nskip, off) == sp->nskip &&
	    memcmp(b, sp->skip, sp->nskip) == 0;
	close(fd);
	if (same)
		return off + sp->nskip;
	warnx_("%s: %s does not begin with the bytes skip= names (another "
	    "build?): probing its entry, which costs more", sp->where,
	    sp->sym);
	return off;
}

static int
place(const struct spec *sp, const char *self, int n)
{
	char path[PATH_MAX], err[PATH_MAX + 128], def[2 * PATH_MAX], rel[256];
	struct uprobe *u = &probes[nprobes];
	uint64_t off, entry;
	size_t len;
	int i;

	if (resolve_lib(sp->lib, path, sizeof(path)) == -1) {
		warnx_("%s: library %s not found: no %s events", sp->where,
		    sp->lib, sp->event);
		return -1;
	}
	if (elf_locate(path, sp->sym, sp->off, sp->deref, &off, err,
	    sizeof(err)) == -1) {
		warnx_("%s: %s: no %s events", sp->where, err, sp->event);
		return -1;
	}
	entry = off;
	off = skip_prologue(sp, path, off);
	snprintf(u->name, sizeof(u->name), "%s_%d", sp->event, n);
	len = snprintf(def, sizeof(def), "%c:%s/%s %s:%#llx", sp->ret ? 'r' :
	    'p', group, u->name, path, (unsigned long long)off);
	if (sp->ret)
		len += snprintf(def + len, sizeof(def) - len,
		    " ret=$retval:x64");
	else
		for (i = 0; i < sp->nargs; i++)
			len += snprintf(def + len, sizeof(def) - len,
			    " %s=%s:x64", argnames[i], argregs[i]);
	if (append("uprobe_events", def) == -1) {
		warnx_("%s: cannot create uprobe '%s': %s (see %s/error_log)",
		    sp->where, def, strerror(errno), tfs_root_path());
		return -1;
	}
	/* From here on it is ours to remove, whatever else fails. */
	u->event = sp->event;
	u->id = -1;
	nprobes++;
	if (events_load_fields(group, u->name, sp->ret ? retnames : argnames,
	    sp->ret ? 1 : sp->nargs, u->f, &u->id) == -1) {
		warnx_("%s: uprobe %s/%s has no format in %s", sp->where, group,
		    u->name, tfs_instance());
		return -1;
	}
	u->nf = sp->ret ? 1 : sp->nargs;
	snprintf(rel, sizeof(rel), "events/%s/%s/filter", group, u->name);
	if (*self && tfs_write(rel, "%s", self) == -1)
		warnx_("%s: cannot set filter '%s': %s", rel, self,
		    strerror(errno));
	snprintf(rel, sizeof(rel), "events/%s/%s/enable", group, u->name);
	if (tfs_write(rel, "1") == -1) {
		warnx_("%s: cannot enable %s/%s: %s", sp->where, group,
		    u->name, strerror(errno));
		return -1;
	}
	slot[u->id] = nprobes;
	len = snprintf(err, sizeof(err), "%s %s:%s%s", sp->event, path,
	    sp->deref ? "*" : "", sp->sym);
	if (sp->off)
		snprintf(err + len, sizeof(err) - len, "+%#llx",
		    (unsigned long long)sp->off);
	if (sp->ret)
		strncat(err, "%return", sizeof(err) - strlen(err) - 1);
	len = strlen(err);
	if (off != entry)
		snprintf(err + len, sizeof(err) - len, " skip=%d",
		    (int)(off - entry));
	descs[nprobes - 1] = xstrdup(err);
	evdefs[EV_UPROBE].enabled = 1;
	return 0;
}

void
probes_setup(const int *self, int nself)
{
	char filt[256];
	int i;

	if (nspecs == 0)
		return;
	snprintf(group, sizeof(group), PROBE_GROUP "%d", (int)getpid());
	owner = getpid();
	atexit(probes_remove);
	self_filter(filt, sizeof(filt), self, nself);
	for (i = 0; i < nspecs; i++)
		place(&specs[i], filt, i);
	for (i = 0; i < 65536; i++)
		if (slot[i])
			ev_by_id[i] = EV_UPROBE;
}

const struct uprobe *
probe_by_id(int id)
{
	return id >= 0 && id < 65536 && slot[id] ? &probes[slot[id] - 1] :
	    NULL;
}

int
probes_count(void)
{
	int i, n = 0;

	for (i = 0; i < nprobes; i++)
		n += descs[i] != NULL;
	return n;
}

const char *
probes_desc(int i)
{
	int k;

	for (k = 0; k < nprobes; k++)
		if (descs[k] != NULL && i-- == 0)
			return descs[k];
	return NULL;
}

void
probes_remove(void)
{
	char rel[256], del[128];
	int i, tries, ok;

	if (nprobes == 0 || getpid() != owner)
		return;
	for (i = 0; i < nprobes; i++) {
		/* An enabled probe is busy: off first, if the instance is up. */
		snprintf(rel, sizeof(rel), "events/%s/%s/enable", group,
		    probes[i].name);
		if (tfs_instance() != NULL)
			tfs_write(rel, "0");
		snprintf(del, sizeof(del), "-:%s/%s", group, probes[i].name);
		for (ok = 0, tries = 0; tries < 50; tries++) {
			if (append("uprobe_events", del) == 0 ||
			    errno == ENOENT) {
				ok = 1;
				break;
			}
			if (errno != EBUSY)
				break;
			usleep(20000);
		}
		if (!ok)
			warnx_("could not remove uprobe %s/%s: %s", group,
			    probes[i].name, strerror(errno));
	}
	nprobes = 0;
	memset(slot, 0, sizeof(slot));
}
