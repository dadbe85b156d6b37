/*
 * Present stacks, as spindump and Windows' Wait Chain Traversal give
 * them: for each thread of a diagnosed chain that is still blocked when
 * `argus debug' asks, its kernel stack (/proc/PID/task/TID/stack) and its
 * user stack unwound now (capture/livestack.c), symbolized.  A person
 * acting on "redis-server is the root cause" wants the function it is
 * in: the most telling frame is the innermost one that is neither the C
 * library's (the system call's wrapper) nor a program's start-up.
 */
#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "porcelain.h"
#include "show.h"
#include "waits.h"
#include "../../capture/livestack.h"
#include "../../capture/ustack.h"

#define MAXFRAMES	64

/* The thread's state letter now: 0 if it is gone. */
static char
thread_state(uint32_t pid, uint32_t tid, char *comm, size_t size)
{
	char path[64], buf[512], *open, *close;
	FILE *fp;
	size_t n;

	snprintf(path, sizeof(path), "/proc/%u/task/%u/stat", pid, tid);
	if ((fp = fopen(path, "re")) == NULL)
		return 0;
	n = fread(buf, 1, sizeof(buf) - 1, fp);
	fclose(fp);
	buf[n] = '\0';
	/* "TID (COMM) S ...": the name may hold spaces and parentheses. */
	if ((open = strchr(buf, '(')) == NULL ||
	    (close = strrchr(buf, ')')) == NULL || close[1] != ' ')
		return 0;
	snprintf(comm, size, "%.*s", (int)(close - open - 1), open + 1);
	return close[2];
}

static char **
kernel_frames(uint32_t pid, uint32_t tid, int *n)
{
	char path[64], *line = NULL, *p, **v = NULL;
	size_t cap = 0;
	FILE *fp;

	*n = 0;
	snprintf(path, sizeof(path), "/proc/%u/task/%u/stack", pid, tid);
	if ((fp = fopen(path, "re")) == NULL)
		return NULL;
	while (getline(&line, &cap, fp) != -1 && *n < MAXFRAMES) {
		/* "[<0>] do_nanosleep+0x6c/0x170": the function and offset. */
		p = strchr(line, ']') ? strchr(line, ']') + 1 : line;
		while (isspace((unsigned char)*p))
			p++;
		p[strcspn(p, "/\n")] = '\0';
		if (*p == '\0')
			continue;
		v = xrealloc(v, (*n + 1) * sizeof(*v));
		v[(*n)++] = xstrdup(p);
	}
	free(line);
	fclose(fp);
	return v;
}

/*
 * The C library and the dynamic loader are where every program waits
 * (poll, nanosleep, futex wrappers); _start and the C library's start-up
 * are where every program begins.  Neither says what it was doing.
 */
static int
in_runtime(const char *frame)
{
	static const char *runtime[] = { "libc.so", "libc-", "ld-linux",
	    "ld-musl", "libpthread", "linux-vdso", "[vdso]", "0x" };
	size_t i;

	for (i = 0; i < ARRAY_LEN(runtime); i++)
		if (strncmp(frame, runtime[i], strlen(runtime[i])) == 0)
			return 1;
	return 0;
}

static int
telling(const char *frame, const char *exe)
{
	static const char *runtime[] = { "libc.so", "libc-", "ld-linux",
	    "ld-musl", "libpthread", "linux-vdso", "[vdso]" };
	static const char *startup[] = { "_start", "__libc_start_main",
	    "__libc_start_call_main", "start_thread", "clone", "clone3" };
	const char *bang = strchr(frame, '!'), *fn = frame;
	size_t i, len;

	if (strncmp(frame, "0x", 2) == 0)
		return 0;
	if (bang != NULL) {
		for (i = 0; i < ARRAY_LEN(runtime); i++)
			if (strncmp(frame, runtime[i], strlen(runtime[i])) == 0)
				return 0;
		fn = bang + 1;
	} else if (strstr(frame, ".so") != NULL)
		return 0;	/* an offset into a library: no symbol */
	len = strcspn(fn, "+");
	/* An offset into the program: it has no symbol there. */
	if (bang == NULL && strlen(exe) == len && strncmp(fn, exe, len) == 0)
		return 0;
	for (i = 0; i < ARRAY_LEN(startup); i++)
		if (strlen(startup[i]) == len &&
		    strncmp(fn, startup[i], len) == 0)
			return 0;
	return len > 0;
}

/* The program's file name, as ustack_frame() names offsets into it. */
static void
exe_name(uint32_t pid, char *buf, size_t size)
{
	char path[64], target[PATH_MAX], *slash;
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%u/exe", pid);
	if ((n = readlink(path, target, sizeof(target) - 1)) == -1)
		n = 0;
	target[n] = '\0';
	slash = strrchr(target, '/');
	snprintf(buf, size, "%s", slash != NULL ? slash + 1 : target);
}

/* "lib.so!func+0x1a" as "func", into buf. */
static const char *
function_of(const char *frame, char *buf, size_t size)
{
	const char *fn = strchr(frame, '!') ? strchr(frame, '!') + 1 : frame;

	snprintf(buf, size, "%.*s", (int)strcspn(fn, "+"), fn);
	return buf;
}

static void	 name_frames(struct pstack *);

struct pstack *
present_stacks(const uint32_t *pids, const uint32_t *tids, int n, int *np)
{
	struct pstack *v = xcalloc(n > 0 ? n : 1, sizeof(*v)), *s;
	uint64_t pcs[MAXFRAMES];
	char buf[PATH_MAX];
	int i, k, npc;

	*np = 0;
	for (i = 0; i < n; i++) {
		s = &v[*np];
		memset(s, 0, sizeof(*s));
		s->pid = pids[i];
		s->tid = tids[i];
		s->state = thread_state(pids[i], tids[i], s->comm,
		    sizeof(s->comm));
		/* Gone, or running: nothing of the hang to see now. */
		if (s->state != 'S' && s->state != 'D')
			continue;
		s->kframes = kernel_frames(pids[i], tids[i], &s->nk);
		ustack_snapshot(pids[i]);
		npc = livestack_user(pids[i], tids[i], pcs, MAXFRAMES);
		s->uframes = xcalloc(npc > 0 ? npc : 1, sizeof(char *));
		for (k = 0; k < npc; k++) {
			ustack_frame(pids[i], pcs[k], k > 0, buf, sizeof(buf));
			s->uframes[s->nu++] = xstrdup(buf);
		}
		name_frames(s);
		(*np)++;
	}
	return v;
}

/* Its most telling frame and its caller's, or its first own frame. */
static void
name_frames(struct pstack *s)
{
	char fn[256], exe[PATH_MAX];
	int k;

	exe_name(s->pid, exe, sizeof(exe));
	/* Without symbols, the program's own frame says the most. */
	for (k = 0; k < s->nu && s->fallback == NULL; k++)
		if (!in_runtime(s->uframes[k]))
			s->fallback = s->uframes[k];
	for (k = 0; k < s->nu && s->caller == NULL; k++)
		if (!telling(s->uframes[k], exe))
			continue;
		else if (s->telling == NULL)
			s->telling = xstrdup(function_of(s->uframes[k], fn,
			    sizeof(fn)));
		else
			s->caller = xstrdup(function_of(s->uframes[k], fn,
			    sizeof(fn)));
}

/* The system call it sleeps in, from the kernel's frame for it. */
static const char *
syscall_of(const struct pstack *s, char *buf, size_t size)
{
	static const char *entry[] = { "__x64_sys_", "__arm64_sys_",
	    "__ia32_sys_", "__se_sys_", "__do_sys_", "sys_" };
	size_t i;
	int k;

	for (k = 0; k < s->nk; k++)
		for (i = 0; i < ARRAY_LEN(entry); i++)
			if (strncmp(s->kframes[k], entry[i],
			    strlen(entry[i])) == 0) {
				snprintf(buf, size, "%.*s",
				    (int)strcspn(s->kframes[k] +
				    strlen(entry[i]), "+."),
				    s->kframes[k] + strlen(entry[i]));
				return buf;
			}
	return NULL;
}

void
present_show(FILE *fp, const char *title, const struct pstack *s, int n,
    int verbose)
{
	char sys[64];
	int i, k;

	if (n == 0)
		return;
	fprintf(fp, "\n%s\n", title);
	for (i = 0; i < n; i++) {
		/* A name, a symbol: any user's choosing, shown escaped. */
		fprintf(fp, "  %s %u/%u (%c): ", show(s[i].comm), s[i].pid,
		    s[i].tid, s[i].state);
		if (s[i].telling != NULL)
			fprintf(fp, "in %s", show(s[i].telling));
		else if (s[i].fallback != NULL)
			fprintf(fp, "in %s (no symbol)", show(s[i].fallback));
		else if (s[i].nu > 0)
			fprintf(fp, "in %s", show(s[i].uframes[0]));
		else
			fprintf(fp, "no user stack");
		if (s[i].caller != NULL)
			fprintf(fp, " from %s", show(s[i].caller));
		if (syscall_of(&s[i], sys, sizeof(sys)) != NULL)
			fprintf(fp, " (%s)", sys);
		fputc('\n', fp);
		if (!verbose)
			continue;
		for (k = 0; k < s[i].nk; k++)
			fprintf(fp, "      kernel  %s\n", show(s[i].kframes[k]));
		for (k = 0; k < s[i].nu; k++)
			fprintf(fp, "      user    %s\n", show(s[i].uframes[k]));
	}
}

void
present_free(struct pstack *s, int n)
{
	int i, k;

	for (i = 0; i < n; i++) {
		for (k = 0; k < s[i].nk; k++)
			free(s[i].kframes[k]);
		for (k = 0; k < s[i].nu; k++)
			free(s[i].uframes[k]);
		free(s[i].kframes);
		free(s[i].uframes);
		free((char *)s[i].telling);
		free((char *)s[i].caller);
	}
	free(s);
}

/*
 * The stacks are wanted of the chain argus-slice finds, which takes the
 * pipeline's time: by then a short hang may be over.  So they are taken
 * first, of the threads the wait-for snapshot just taken says are in the
 * target's chain as the kernel sees it (the target's blocked threads,
 * then whoever holds what they wait on, and so on), and kept until shown.
 */
struct swait {
	uint32_t	 pid, tid;
	char		*object, *comm;
	int		 taken;
};
struct shold {
	uint32_t	 pid, tid;	/* tid 0: any thread of pid */
	char		*object;
};

#define EARLY_MAX	32

static struct pstack *early;
static int nearly;

void
present_early(const char *snap, char *const target[], int nt)
{
	char *paths[1] = { (char *)snap };
	const struct record *rec;
	struct swait *w = NULL;
	struct shold *h = NULL;
	struct source *src;
	struct wait_rec wr;
	struct holder_rec hr;
	uint32_t *pids, *tids;
	int nw = 0, nh = 0, n = 0, i, j, k, more;

	if (*snap == '\0')
		return;
	src = source_open(paths, 1);
	while ((rec = source_next(src)) != NULL) {
		if (wait_parse(rec, &wr)) {
			w = xrealloc(w, (nw + 1) * sizeof(*w));
			w[nw].pid = wr.pid;
			w[nw].tid = wr.tid;
			w[nw].object = xstrdup(wr.object);
			w[nw].comm = xstrdup(wr.comm);
			w[nw++].taken = 0;
		} else if (holder_parse(rec, &hr)) {
			h = xrealloc(h, (nh + 1) * sizeof(*h));
			h[nh].pid = hr.pid;
			h[nh].tid = hr.tid;
			h[nh++].object = xstrdup(hr.object);
		}
	}
	source_close(src);
	for (i = 0; i < nw; i++)
		w[i].taken = target_is(target, nt, w[i].pid, w[i].tid,
		    w[i].comm);
	/* Who holds what a taken thread waits on is taken too, till none. */
	do {
		more = 0;
		for (i = 0; i < nw; i++) {
			if (w[i].taken != 1)
				continue;
			w[i].taken = 2;
			for (j = 0; j < nh; j++) {
				if (*w[i].object == '\0' ||
				    strcmp(h[j].object, w[i].object) != 0)
					continue;
				for (k = 0; k < nw; k++)
					if (!w[k].taken && (h[j].tid != 0 ?
					    w[k].tid == h[j].tid :
					    w[k].pid == h[j].pid)) {
						w[k].taken = 1;
						more = 1;
					}
			}
		}
	} while (more);
	pids = xcalloc(nw + 1, sizeof(*pids));
	tids = xcalloc(nw + 1, sizeof(*tids));
	for (i = 0; i < nw && n < EARLY_MAX; i++)
		if (w[i].taken) {
			pids[n] = w[i].pid;
			tids[n++] = w[i].tid;
		}
	early = present_stacks(pids, tids, n, &nearly);
	for (i = 0; i < nw; i++) {
		free(w[i].object);
		free(w[i].comm);
	}
	for (j = 0; j < nh; j++)
		free(h[j].object);
	free(w);
	free(h);
	free(pids);
	free(tids);
}

/*
 * The stacks of the chain's threads: those taken first, else taken now
 * (blocked only).  In the chain's order.
 */
struct pstack *
present_chain(const uint32_t *pids, const uint32_t *tids, int n, int *np)
{
	struct pstack *v = xcalloc(n > 0 ? n : 1, sizeof(*v)), *one;
	int i, j, got;

	*np = 0;
	for (i = 0; i < n; i++) {
		for (j = 0; j < nearly && early[j].tid != tids[i]; j++)
			;
		if (j < nearly) {
			v[(*np)++] = early[j];
			memset(&early[j], 0, sizeof(early[j]));
			early[j].tid = tids[i];	/* moved, not to be freed */
			continue;
		}
		one = present_stacks(&pids[i], &tids[i], 1, &got);
		if (got == 1)
			v[(*np)++] = one[0];
		free(one);
	}
	return v;
}

/*
 * argus mark's stacks: a hang marked may be over when it is debugged, so
 * the threads blocked at the mark for a second or more have their user
 * stacks taken then, into a stream of stack records beside the snapshot.
 */
#define MARK_BLOCKED_NS	1000000000ULL
#define MARK_MAX	256

void
present_save(const char *snap, const char *out)
{
	char *paths[1] = { (char *)snap }, buf[PATH_MAX];
	const struct record *rec;
	uint32_t *tids = NULL;
	uint64_t pcs[MAXFRAMES];
	struct source *src;
	struct writer *w;
	struct wait_rec wr;
	int n = 0, i, k, npc;

	w = writer_open(out, Z_AUTO);
	src = source_open(paths, 1);
	while ((rec = source_next(src)) != NULL && n < MARK_MAX) {
		if (!wait_parse(rec, &wr) || wr.since == NO_TIME ||
		    wr.since > wr.time || wr.time - wr.since < MARK_BLOCKED_NS)
			continue;
		for (i = 0; i < n && tids[i] != wr.tid; i++)
			;
		if (i < n)
			continue;	/* another object of the same wait */
		tids = xrealloc(tids, (n + 1) * sizeof(*tids));
		tids[n++] = wr.tid;
		ustack_snapshot(wr.pid);
		if ((npc = livestack_user(wr.pid, wr.tid, pcs, MAXFRAMES)) == 0)
			continue;
		writer_begin(w, KIND_STACK);
		writer_time(w, wr.time);
		writer_u64(w, wr.pid);
		writer_u64(w, wr.tid);
		for (k = 0; k < npc; k++) {
			ustack_frame(wr.pid, pcs[k], k > 0, buf, sizeof(buf));
			writer_str(w, buf);
		}
		writer_end(w);
	}
	source_close(src);
	writer_close(w);
	free(tids);
}

/* Those stacks, with the names and states the snapshot gave. */
struct pstack *
present_load(const char *stacks, const char *snap, int *np)
{
	char *paths[1];
	const struct record *rec;
	struct pstack *v = NULL, *s;
	struct source *src;
	struct wait_rec wr;
	uint64_t tid, pid;
	size_t f;
	int i;

	*np = 0;
	if (access(stacks, R_OK) == -1 || access(snap, R_OK) == -1)
		return NULL;
	paths[0] = (char *)stacks;
	src = source_open(paths, 1);
	while ((rec = source_next(src)) != NULL) {
		if (rec->comment || strcmp(rec->f[COL_KIND], KIND_STACK) != 0 ||
		    !record_u64_opt(rec, COL_TID, &tid) ||
		    !record_u64_opt(rec, COL_PID, &pid))
			continue;
		v = xrealloc(v, (*np + 1) * sizeof(*v));
		s = &v[(*np)++];
		memset(s, 0, sizeof(*s));
		s->pid = pid;
		s->tid = tid;
		s->state = '?';
		s->uframes = xcalloc(rec->nf, sizeof(char *));
		for (f = COL_FIRST_OWN; f < rec->nf; f++)
			s->uframes[s->nu++] = xstrdup(rec->f[f]);
		name_frames(s);
	}
	source_close(src);
	paths[0] = (char *)snap;
	src = source_open(paths, 1);
	while ((rec = source_next(src)) != NULL)
		if (wait_parse(rec, &wr))
			for (i = 0; i < *np; i++)
				if (v[i].tid == wr.tid && v[i].state == '?') {
					v[i].state = wr.state[0];
					snprintf(v[i].comm, sizeof(v[i].comm),
					    "%s", wr.comm);
				}
	source_close(src);
	return v;
}

/*
 * The chain's threads as the mark of snapshot SNAP found them, in the
 * chain's order; NULL if it took no stack of any of them.
 */
struct pstack *
present_marked(const char *snap, const uint32_t *pids, const uint32_t *tids,
    int n, int *np)
{
	char stacks[PATH_MAX];
	struct pstack *all, *v;
	int nall, i, j;

	(void)pids;
	*np = 0;
	snapshot_stacks(snapshot_time(snap), stacks, sizeof(stacks));
	if ((all = present_load(stacks, snap, &nall)) == NULL)
		return NULL;
	v = xcalloc(n > 0 ? n : 1, sizeof(*v));
	for (i = 0; i < n; i++)
		for (j = 0; j < nall; j++)
			if (all[j].tid == tids[i] && all[j].uframes != NULL) {
				v[(*np)++] = all[j];
				memset(&all[j], 0, sizeof(all[j]));
				break;
			}
	present_free(all, nall);
	if (*np == 0) {
		free(v);
		return NULL;
	}
	return v;
}
