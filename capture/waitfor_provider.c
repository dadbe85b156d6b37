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

#define MAX_PROVIDERS	32
_Static_assert(MAX_PROVIDERS <= 32, "a process's providers are bits of a word");
#define MAX_NAMES	16
#define HEADER_SIZE	4096
#define STDERR_KEEP	2048
#define NOTE_SIZE	512
#define DEFAULT_NS	1000000000ULL
#define PROVIDER_NICE	(-10)
#define HEADER_SUFFIX	".header"

/* The header's keys, in a comment line of a script or in NAME.header. */
#define HDR_SAYS	"argus-says:"
#define HDR_MATCH	"argus-match:"

enum mkind { MK_EXE, MK_MAP, MK_COMM, MK_N };
static const char *const mkind_names[MK_N] = { "exe", "map", "comm" };

struct provider {
	char		 name[NAME_MAX + 1];
	char		 path[PATH_MAX];
	char		 says[RUNTIME_NAMELEN];
	char		*names[MK_N][MAX_NAMES];
	int		 nnames[MK_N];
	/* A run. */
	char		*in, *out, *err;
	size_t		 inlen, inoff, outlen, outcap, errlen;
	int		 fin, fout, ferr;
	pid_t		 pid;
	int		 status, reaped, killed, capped, nwaits, nprocs;
	uint64_t	 t0, ns;
	char		**objs;		/* the objects it was asked about */
	size_t		 nobjs;
};

/* Which providers speak for a process, looked at once. */
struct pmatch {
	int		 pid;
	uint32_t	 provs;
	UT_hash_handle	 hh;
};

struct wf_prov {
	struct provider	 p[MAX_PROVIDERS];
	int		 np;
	struct pmatch	*match;
	char		**notes;	/* "KEY\tVALUE", meta records */
	size_t		 nnotes;
};

static void
note(struct wf_prov *pv, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void
note(struct wf_prov *pv, const char *key, const char *fmt, ...)
{
	char buf[NOTE_SIZE];
	va_list ap;
	int n;

	n = snprintf(buf, sizeof(buf), "%s\t", key);
	va_start(ap, fmt);
	vsnprintf(buf + n, sizeof(buf) - n, fmt, ap);
	va_end(ap);
	pv->notes = xrealloc(pv->notes, (pv->nnotes + 1) * sizeof(char *));
	pv->notes[pv->nnotes++] = xstrdup(buf);
}

/* Owned by root or by us, and nobody else may write it: ours to run. */
static int
trusted(const struct stat *st)
{
	return (st->st_uid == 0 || st->st_uid == geteuid()) &&
	    (st->st_mode & (S_IWGRP | S_IWOTH)) == 0;
}

static void
header_line(struct provider *p, char *line)
{
	char *v, *tok, *save;
	int k;

	if ((v = strstr(line, HDR_SAYS)) != NULL) {
		v += strlen(HDR_SAYS);
		v += strspn(v, " \t");
		v[strcspn(v, "\r")] = '\0';
		while (*v != '\0' && isspace((unsigned char)v[strlen(v) - 1]))
			v[strlen(v) - 1] = '\0';
		snprintf(p->says, sizeof(p->says), "%s", v);
		return;
	}
	if ((v = strstr(line, HDR_MATCH)) == NULL)
		return;
	v += strlen(HDR_MATCH);
	if ((tok = strtok_r(v, " \t\r", &save)) == NULL)
		return;
	for (k = 0; k < MK_N; k++)
		if (strcmp(tok, mkind_names[k]) == 0)
			break;
	if (k == MK_N)
		return;
	while ((tok = strtok_r(NULL, " \t\r", &save)) != NULL &&
	    p->nnames[k] < MAX_NAMES)
		p->names[k][p->nnames[k]++] = xstrdup(tok);
}

/* The header, from the file itself (a script) or NAME.header beside it. */
static int
read_header(int dfd, struct provider *p)
{
	char buf[HEADER_SIZE + 1], side[NAME_MAX + 16], *line, *save;
	struct stat st;
	ssize_t n;
	int fd, k, any = 0;

	if ((fd = openat(dfd, p->name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)) ==
	    -1)
		return -1;
	n = read(fd, buf, HEADER_SIZE);
	close(fd);
	if (n < 2 || memcmp(buf, "#!", 2) != 0) {
		snprintf(side, sizeof(side), "%s" HEADER_SUFFIX, p->name);
		if ((fd = openat(dfd, side, O_RDONLY | O_NOFOLLOW |
		    O_CLOEXEC)) == -1)
			return -1;
		if (fstat(fd, &st) == -1 || !trusted(&st)) {
			close(fd);
			return -1;
		}
		n = read(fd, buf, HEADER_SIZE);
		close(fd);
	}
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	for (line = strtok_r(buf, "\n", &save); line != NULL;
	    line = strtok_r(NULL, "\n", &save))
		header_line(p, line);
	for (k = 0; k < MK_N; k++)
		any += p->nnames[k];
	return p->says[0] != '\0' && any > 0 ? 0 : -1;
}

static void
scan_dir(struct wf_prov *pv, const char *name)
{
	char dir[PATH_MAX];
	struct provider *p;
	struct dirent *de;
	struct stat st;
	size_t len;
	DIR *d;
	int i;

	/* Run from /, the provider is named by its whole path. */
	if (realpath(name, dir) == NULL || (d = opendir(dir)) == NULL)
		return;
	if (fstat(dirfd(d), &st) == -1 || !trusted(&st)) {
		note(pv, META_PROVIDER_ERROR, "%s: left out: others may "
		    "write the directory", dir);
		warnx_("providers: %s: left out: others may write it", dir);
		closedir(d);
		return;
	}
	while ((de = readdir(d)) != NULL && pv->np < MAX_PROVIDERS) {
		len = strlen(de->d_name);
		if (de->d_name[0] == '.' || de->d_name[len - 1] == '~' ||
		    (len > strlen(HEADER_SUFFIX) && strcmp(de->d_name + len -
		    strlen(HEADER_SUFFIX), HEADER_SUFFIX) == 0))
			continue;
		if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) ==
		    -1 || !S_ISREG(st.st_mode) || (st.st_mode & 0111) == 0)
			continue;
		/* The first directory's provider of a name wins. */
		for (i = 0; i < pv->np; i++)
			if (strcmp(pv->p[i].name, de->d_name) == 0)
				break;
		if (i < pv->np)
			continue;
		p = &pv->p[pv->np];
		memset(p, 0, sizeof(*p));
		snprintf(p->name, sizeof(p->name), "%s", de->d_name);
		if ((size_t)snprintf(p->path, sizeof(p->path), "%s/%s", dir,
		    de->d_name) >= sizeof(p->path))
			continue;
		if (!trusted(&st)) {
			note(pv, META_PROVIDER_ERROR, "%s: left out: others "
			    "may write it", p->path);
			warnx_("provider %s: left out: others may write it",
			    p->path);
			continue;
		}
		if (read_header(dirfd(d), p) == -1) {
			note(pv, META_PROVIDER_ERROR, "%s: left out: no %s "
			    "and %s header", p->path, HDR_SAYS, HDR_MATCH);
			warnx_("provider %s: left out: no %s and %s header",
			    p->path, HDR_SAYS, HDR_MATCH);
			continue;
		}
		pv->np++;
	}
	closedir(d);
}

/*
 * ARGUS_PROVIDERS, a list of directories (empty: none), else the build
 * tree's providers/ or PREFIX/lib/argus/providers beside our bin/, then
 * /etc/argus/providers.d.
 */
static void
find_providers(struct wf_prov *pv, const struct wf_opts *o)
{
	static const char *const rel[] = { "../providers",
	    "../lib/argus/providers" };
	const char *env = getenv("ARGUS_PROVIDERS");
	char self[PATH_MAX], dir[PATH_MAX + 32], *list, *tok, *save, *slash;
	ssize_t n;
	size_t i;
	int j;

	if (o->provider_dirs != NULL) {
		for (j = 0; j < o->nprovider_dirs; j++)
			scan_dir(pv, o->provider_dirs[j]);
		return;
	}
	if (env != NULL) {
		list = xstrdup(env);
		for (tok = strtok_r(list, ":", &save); tok != NULL;
		    tok = strtok_r(NULL, ":", &save))
			scan_dir(pv, tok);
		free(list);
		return;
	}
	if ((n = readlink("/proc/self/exe", self, sizeof(self) - 1)) > 0) {
		self[n] = '\0';
		if ((slash = strrchr(self, '/')) != NULL)
			*slash = '\0';
		for (i = 0; i < ARRAY_LEN(rel); i++) {
			snprintf(dir, sizeof(dir), "%s/%s", self, rel[i]);
			if (access(dir, X_OK) == 0) {
				scan_dir(pv, dir);
				break;
			}
		}
	}
	scan_dir(pv, "/etc/argus/providers.d");
}

static const char *
base(const char *path)
{
	const char *s = strrchr(path, '/');

	return s != NULL ? s + 1 : path;
}

static int
listed(const struct provider *p, int k, const char *name)
{
	int i;

	for (i = 0; i < p->nnames[k]; i++)
		if (strcmp(p->names[k][i], name) == 0)
			return 1;
	return 0;
}

/* Whether a file of one of p's map names is mapped into the process. */
static int
maps_match(int pid, const struct provider *p)
{
	char path[64], *line = NULL, *file;
	size_t cap = 0;
	int found = 0;
	FILE *fp;

	snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	if ((fp = fopen(path, "re")) == NULL)
		return 0;
	while (!found && getline(&line, &cap, fp) > 0) {
		line[strcspn(line, "\n")] = '\0';
		if ((file = strchr(line, '/')) != NULL)
			found = listed(p, MK_MAP, base(file));
	}
	free(line);
	fclose(fp);
	return found;
}

/*
 * The providers that speak for the process, a bit each (MAX_PROVIDERS
 * fit): every one whose header matches it, a JVM's and a user's for the
 * lock manager of the program it runs alike.
 */
static uint32_t
match(struct wf_snap *s, struct wf_prov *pv, int pid)
{
	struct pmatch *m;
	struct proc *pr;
	char path[64], exe[PATH_MAX];
	ssize_t n;
	int i;

	HASH_FIND_INT(pv->match, &pid, m);
	if (m != NULL)
		return m->provs;
	m = xcalloc(1, sizeof(*m));
	m->pid = pid;
	HASH_ADD_INT(pv->match, pid, m);
	if ((pr = wf_proc_get(s, pid)) == NULL || pr->kthread || pr->skip)
		return 0;
	snprintf(path, sizeof(path), "/proc/%d/exe", pid);
	if ((n = readlink(path, exe, sizeof(exe) - 1)) <= 0)
		n = 0;
	exe[n] = '\0';
	/* A replaced binary reads "/usr/sbin/mariadbd (deleted)". */
	if (n > 10 && strcmp(exe + n - 10, " (deleted)") == 0)
		exe[n - 10] = '\0';
	for (i = 0; i < pv->np; i++)
		if ((exe[0] != '\0' && listed(&pv->p[i], MK_EXE, base(exe))) ||
		    listed(&pv->p[i], MK_COMM, pr->comm) ||
		    (pv->p[i].nnames[MK_MAP] > 0 && maps_match(pid, &pv->p[i])))
			m->provs |= 1u << i;
	return m->provs;
}

static void
append(char **buf, size_t *len, size_t *cap, const char *s, size_t n)
{
	if (*len + n + 1 > *cap) {
		*cap = (*len + n + 1) * 2;
		*buf = xrealloc(*buf, *cap);
	}
	memcpy(*buf + *len, s, n);
	*len += n;
	(*buf)[*len] = '\0';
}

/* Each provider's stdin: PID TID MODE OBJECT, a line a kept wait. */
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
		 * thread's own.
		 */
		if (!t->keep || s->w[i].o.key[0] == '\0' ||
		    s->w[i].via[0] != '\0' || (provs = match(s, pv,
		    t->pid)) == 0)
			continue;
		n = snprintf(line, sizeof(line), "%d\t%d\t%s\t%s\n", t->pid,
		    t->tid, wmode_names[s->w[i].mode], s->w[i].o.key);
		for (k = 0; k < pv->np; k++) {
			if (!(provs & (1u << k)))
				continue;
			p = &pv->p[k];
			append(&p->in, &p->inlen, &cap[k], line, n);
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

static void
start(struct provider *p, uint64_t limit)
{
	int in[2], out[2], err[2], fd;
	char secs[32];
	sigset_t all;

	if (pipe2(in, O_CLOEXEC) == -1 || pipe2(out, O_CLOEXEC) == -1 ||
	    pipe2(err, O_CLOEXEC) == -1)
		die(EX_OSERR, "pipe");
	p->t0 = now_ns();
	if ((p->pid = fork()) == -1)
		die(EX_OSERR, "fork");
	if (p->pid == 0) {
		/* Its own group: the time limit kills all it started. */
		setpgid(0, 0);
		/*
		 * Its limit is of wall time, on a machine that may be busy
		 * with the very hang: ahead of the crowd, as the capture's
		 * reader is (root only; anyone else stays as it was).
		 */
		setpriority(PRIO_PROCESS, 0, PROVIDER_NICE);
		sigemptyset(&all);
		sigprocmask(SIG_SETMASK, &all, NULL);
		for (fd = 1; fd < NSIG; fd++)
			if (fd != SIGKILL && fd != SIGSTOP)
				signal(fd, SIG_DFL);
		if (dup2(in[0], 0) == -1 || dup2(out[1], 1) == -1 ||
		    dup2(err[1], 2) == -1)
			_exit(126);
		closefrom(3);
		snprintf(secs, sizeof(secs), "%.3f", limit / 1e9);
		setenv("ARGUS_PROVIDER_TIMEOUT", secs, 1);
		if (chdir("/") == -1)
			_exit(126);
		execl(p->path, p->path, (char *)NULL);
		_exit(127);
	}
	/* Both sides: no race with the group's first kill. */
	setpgid(p->pid, p->pid);
	close(in[0]);
	close(out[1]);
	close(err[1]);
	p->fin = in[1];
	p->fout = out[0];
	p->ferr = err[0];
	fcntl(p->fin, F_SETFL, O_NONBLOCK);
	p->status = -1;
}

static void
closefd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

/* Its group first, while the unreaped leader keeps the group's id ours. */
static void
stop(struct provider *p)
{
	kill(-p->pid, SIGKILL);
	kill(p->pid, SIGKILL);
}

static void
reap(struct provider *p, int block)
{
	siginfo_t si;
	int st;

	if (p->reaped)
		return;
	memset(&si, 0, sizeof(si));
	if (!block && (waitid(P_PID, p->pid, &si, WEXITED | WNOHANG |
	    WNOWAIT) == -1 || si.si_pid == 0))
		return;
	/* Whatever it left behind goes with it. */
	kill(-p->pid, SIGKILL);
	p->reaped = 1;
	p->ns = now_ns() - p->t0;
	/* Killed, it is gone at once, but in an uninterruptible sleep. */
	for (st = 0; st < 20; st++) {
		if (waitpid(p->pid, &p->status, WNOHANG) == p->pid)
			return;
		if (!block)
			break;
		usleep(5000);
	}
}

static void
drain(struct provider *p, int *fd, size_t cap_out)
{
	char buf[65536];
	ssize_t n;
	size_t room;

	if ((n = read(*fd, buf, sizeof(buf))) <= 0) {
		if (n == 0 || (errno != EINTR && errno != EAGAIN))
			closefd(fd);
		return;
	}
	if (fd == &p->fout) {
		room = cap_out - p->outlen;
		if ((size_t)n > room) {
			append(&p->out, &p->outlen, &p->outcap, buf, room);
			p->capped = 1;
			stop(p);
			closefd(fd);
			return;
		}
		append(&p->out, &p->outlen, &p->outcap, buf, n);
	} else if (p->errlen < STDERR_KEEP) {
		room = STDERR_KEEP - p->errlen;
		if (p->err == NULL)
			p->err = xmalloc(STDERR_KEEP + 1);
		memcpy(p->err + p->errlen, buf, (size_t)n < room ? (size_t)n :
		    room);
		p->errlen += (size_t)n < room ? (size_t)n : room;
		p->err[p->errlen] = '\0';
	}
}

/* All at once, each within the time limit from its start. */
static void
run_all(struct wf_prov *pv, const struct wf_opts *o)
{
	struct pollfd fds[3 * MAX_PROVIDERS];
	struct provider *by[3 * MAX_PROVIDERS];
	int *which[3 * MAX_PROVIDERS];
	uint64_t limit = o->provider_ns ? o->provider_ns : DEFAULT_NS;
	size_t cap = o->provider_cap ? o->provider_cap : PROVIDER_CAP;
	uint64_t t, end = 0;
	struct sigaction ign = { .sa_handler = SIG_IGN }, old;
	struct provider *p;
	int i, n, active, ms;
	ssize_t w;

	/* A provider that never reads its input is no signal for us. */
	sigaction(SIGPIPE, &ign, &old);
	for (i = 0; i < pv->np; i++) {
		p = &pv->p[i];
		p->fin = p->fout = p->ferr = -1;
		if (p->nwaits == 0)
			continue;
		start(p, limit);
		end = p->t0 + limit;
	}
	for (;;) {
		n = active = 0;
		t = now_ns();
		for (i = 0; i < pv->np; i++) {
			p = &pv->p[i];
			if (p->nwaits == 0 || p->reaped)
				continue;
			if (t >= p->t0 + limit || p->capped) {
				if (!p->capped)
					p->killed = 1;
				stop(p);
				closefd(&p->fin);
				closefd(&p->fout);
				closefd(&p->ferr);
				reap(p, 1);
				continue;
			}
			active++;
			if (p->fin >= 0) {
				w = write(p->fin, p->in + p->inoff,
				    p->inlen - p->inoff);
				if (w > 0)
					p->inoff += w;
				if ((w == -1 && errno != EAGAIN &&
				    errno != EINTR) || p->inoff == p->inlen)
					closefd(&p->fin);
			}
			if (p->fin >= 0) {
				fds[n] = (struct pollfd){ p->fin, POLLOUT, 0 };
				by[n] = p;
				which[n++] = &p->fin;
			}
			if (p->fout >= 0) {
				fds[n] = (struct pollfd){ p->fout, POLLIN, 0 };
				by[n] = p;
				which[n++] = &p->fout;
			}
			if (p->ferr >= 0) {
				fds[n] = (struct pollfd){ p->ferr, POLLIN, 0 };
				by[n] = p;
				which[n++] = &p->ferr;
			}
			if (p->fout < 0 && p->ferr < 0)
				reap(p, 0);
		}
		if (active == 0)
			break;
		/* Its exit, and the time limit, are looked at every 20 ms. */
		ms = end > t ? (int)((end - t) / 1000000) + 1 : 1;
		if (ms > 20)
			ms = n == 0 ? 5 : 20;
		if (poll(fds, n, ms) <= 0)
			continue;
		for (i = 0; i < n; i++)
			if (fds[i].revents != 0 && *which[i] >= 0 &&
			    which[i] != &by[i]->fin)
				drain(by[i], which[i], cap);
	}
	sigaction(SIGPIPE, &old, NULL);
}

/* One CSV line into fields, in place: quotes as argus-stream(5) has them. */
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
	char *f[HC_COMM + 2], path[64];
	struct hd *h;
	uint64_t pid, tid;
	size_t i;
	int nf;

	if ((nf = split(line, f, HC_COMM + 2)) < 0)
		return "not a CSV record";
	if (strcmp(f[COL_KIND], KIND_HOLDER) != 0)
		return "not a holder record";
	if (nf != HC_COMM + 1)
		return "not the 10 columns of a holder record";
	if (strcmp(f[HC_RELATION], wrels[WR_RUNTIME].name) != 0)
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
	if (!(match(s, pv, pid) & (1u << (p - pv->p))))
		return "a process it does not speak for";
	for (i = 0; i < p->nobjs; i++)
		if (strcmp(p->objs[i], f[HC_OBJECT]) == 0)
			break;
	if (i == p->nobjs)
		return "an object it was not asked about";
	if (*f[HC_FD] != '\0')
		return "a descriptor (a runtime's holder has none)";
	if (strlen(f[HC_THROUGH]) >= sizeof(h->through) ||
	    !printable(f[HC_THROUGH]))
		return "THROUGH too long or not printable";
	if (*f[HC_DETAIL] != '\0' && strcmp(f[HC_DETAIL], p->says) != 0)
		return "DETAIL not the name its header says";
	for (i = 0; i < s->nh; i++)
		if (s->h[i].rel == WR_RUNTIME && s->h[i].pid == (int)pid &&
		    s->h[i].tid == (int)tid &&
		    strcmp(s->h[i].obj, f[HC_OBJECT]) == 0)
			return NULL;
	GROW(s->h, s->nh, s->caph);
	h = &s->h[s->nh++];
	memset(h, 0, sizeof(*h));
	snprintf(h->obj, sizeof(h->obj), "%s", f[HC_OBJECT]);
	h->rel = WR_RUNTIME;
	h->pid = pid;
	h->tid = tid;
	h->fd = NO_FD;
	snprintf(h->through, sizeof(h->through), "%s", f[HC_THROUGH]);
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
		note(pv, META_PROVIDER_ERROR, "%s: killed past its time "
		    "limit of %.1f s; %lu records taken before", p->name,
		    limit / 1e9, good);
	else if (p->capped)
		note(pv, META_PROVIDER_ERROR, "%s: stopped at %zu bytes of "
		    "output, its cap; %lu records taken before", p->name, cap,
		    good);
	else if (!WIFEXITED(p->status) || WEXITSTATUS(p->status) != 0)
		note(pv, META_PROVIDER_ERROR, "%s: %s %d in %.2f s; %lu "
		    "records taken", p->name, WIFEXITED(p->status) ?
		    "exited with status" : "killed by signal",
		    WIFEXITED(p->status) ? WEXITSTATUS(p->status) :
		    WTERMSIG(p->status), p->ns / 1e9, good);
	else
		note(pv, META_PROVIDER, "%s: %s named %zu holders for %d "
		    "waits of %d processes in %.2f s", p->name, p->says, s->nh - before,
		    p->nwaits, p->nprocs, p->ns / 1e9);
	if (p->killed || p->capped || p->status != 0)
		warnx_("provider %s", strchr(pv->notes[pv->nnotes - 1], '\t') +
		    1);
	if (bad > 0) {
		note(pv, META_PROVIDER_ERROR, "%s: %lu bad records dropped "
		    "(%s)", p->name, bad, first);
		warnx_("provider %s: %lu bad records dropped", p->name, bad);
	}
	for (line = p->err; line != NULL && *line != '\0'; line = next) {
		next = strchr(line, '\n');
		if (next != NULL)
			*next++ = '\0';
		if (*line != '\0')
			note(pv, META_PROVIDER_STDERR, "%s: %s", p->name,
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
	find_providers(pv, o);
	if (pv->np == 0)
		return 0;
	build_inputs(s, pv);
	for (i = 0; i < pv->np; i++)
		any |= pv->p[i].nwaits > 0;
	if (!any)
		return 0;
	run_all(pv, o);
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
	struct pmatch *m, *tmp;
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
	HASH_ITER(hh, pv->match, m, tmp) {
		HASH_DEL(pv->match, m);
		free(m);
	}
	for (j = 0; j < pv->nnotes; j++)
		free(pv->notes[j]);
	free(pv->notes);
	free(pv);
	s->prov = NULL;
}
