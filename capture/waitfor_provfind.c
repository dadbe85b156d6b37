/*
 * The runtime providers found, and which speak for a process: the
 * directories, each file's trust and header, the processes' executables,
 * names and mapped files (waitfor_provider.c says what a provider is).
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

/* A line for the snapshot's meta records: what a provider did. */
void
wfp_note(struct wf_prov *pv, const char *key, const char *fmt, ...)
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

static const char *const mkind_names[MK_N] = { "exe", "map", "comm" };

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
		wfp_note(pv, META_PROVIDER_ERROR, "%s: left out: others may "
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
			wfp_note(pv, META_PROVIDER_ERROR, "%s: left out: others "
			    "may write it", p->path);
			warnx_("provider %s: left out: others may write it",
			    p->path);
			continue;
		}
		if (read_header(dirfd(d), p) == -1) {
			wfp_note(pv, META_PROVIDER_ERROR, "%s: left out: no %s "
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
 * tree's capture/providers/ or PREFIX/lib/argus/providers beside our bin/, then
 * /etc/argus/providers.d.
 */
void
wfp_find(struct wf_prov *pv, const struct wf_opts *o)
{
	static const char *const rel[] = { "../capture/providers",
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
uint32_t
wfp_match(struct wf_snap *s, struct wf_prov *pv, int pid)
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

