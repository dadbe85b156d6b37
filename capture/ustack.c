/*
 * Naming user stack frames.  A process's maps are read the first time one
 * of its stacks is written (for --stacks PID, when the capture starts), and
 * again when an address falls in none of them (a library loaded since),
 * at most once a second: the formatter runs close behind the kernel, so
 * the process is usually still there.  One that exited before its stacks
 * were written keeps raw addresses.  Symbol tables are read once a file,
 * through /proc/PID/map_files: the names in the maps are the process
 * owner's text (procopen.h).
 */
#include <sys/stat.h>

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <uthash.h>

#include "util.h"
#include "elfsym.h"
#include "procopen.h"
#include "spool.h"
#include "ustack.h"

struct file {
	char		*key;		/* "DEV INODE PATH", as the maps say */
	char		*path;
	struct elf_syms	*syms;		/* NULL: not ELF, or unreadable */
	UT_hash_handle	 hh;
};

struct map {
	uint64_t	 start, end, off;
	struct file	*file;
	int		 exe;		/* the program itself */
};

struct proc {
	int		 tgid;
	struct map	*maps;
	int		 nmaps;
	uint64_t	 read_at;
	UT_hash_handle	 hh;
};

static struct file *files;
static struct proc *procs;

/* The file mapped at start-end: its identity in the maps names it. */
static struct file *
file_get(int tgid, uint64_t start, uint64_t end, const char *dev,
    unsigned long long ino, const char *path)
{
	char key[PATH_MAX + 64];
	struct file *f;
	struct stat st;
	int fd;

	snprintf(key, sizeof(key), "%s %llu %s", dev, ino, path);
	HASH_FIND_STR(files, key, f);
	if (f != NULL)
		return f;
	f = xcalloc(1, sizeof(*f));
	f->key = xstrdup(key);
	f->path = xstrdup(path);
	/* Replaced since the maps were read: unnamed rather than wrong. */
	if ((fd = open_mapped(tgid, start, end)) != -1) {
		if (fstat(fd, &st) == 0 && st.st_ino == ino)
			f->syms = elf_syms_load_fd(fd);
		close(fd);
	}
	HASH_ADD_KEYPTR(hh, files, f->key, strlen(f->key), f);
	return f;
}

static void
read_maps(struct proc *p)
{
	char path[64], line[PATH_MAX + 128], exe[PATH_MAX], perms[8];
	char dev[32];
	unsigned long long start, end, off, ino;
	ssize_t n;
	int pos;
	FILE *f;

	p->read_at = now_ns();
	snprintf(path, sizeof(path), "/proc/%d/exe", p->tgid);
	if ((n = readlink(path, exe, sizeof(exe) - 1)) < 0)
		n = 0;
	exe[n] = '\0';
	snprintf(path, sizeof(path), "/proc/%d/maps", p->tgid);
	if ((f = fopen(path, "r")) == NULL)
		return;		/* gone: keep what we had */
	free(p->maps);
	p->maps = NULL;
	p->nmaps = 0;
	/* "start-end perms offset dev inode   path" */
	while (fgets(line, sizeof(line), f) != NULL) {
		char *file;

		if (sscanf(line, "%llx-%llx %7s %llx %31s %llu %n", &start,
		    &end, perms, &off, dev, &ino, &pos) < 6 ||
		    strchr(perms, 'x') == NULL)
			continue;
		file = line + pos;
		file[strcspn(file, "\n")] = '\0';
		if (file[0] != '/')
			continue;	/* [vdso], anonymous */
		p->maps = xrealloc(p->maps, (p->nmaps + 1) * sizeof(*p->maps));
		p->maps[p->nmaps].start = start;
		p->maps[p->nmaps].end = end;
		p->maps[p->nmaps].off = off;
		p->maps[p->nmaps].file = file_get(p->tgid, start, end, dev,
		    ino, file);
		p->maps[p->nmaps].exe = strcmp(file, exe) == 0;
		p->nmaps++;
	}
	fclose(f);
}

static struct proc *
proc_get(int tgid)
{
	struct proc *p;

	if (HASH_GET(hh, procs, tgid, &tgid, p))
		read_maps(p);
	return p;
}

void
ustack_snapshot(int tgid)
{
	if (tgid > 0)
		proc_get(tgid);
}

static const struct map *
find(const struct proc *p, uint64_t addr)
{
	int i;

	for (i = 0; i < p->nmaps; i++)
		if (addr >= p->maps[i].start && addr < p->maps[i].end)
			return &p->maps[i];
	return NULL;
}

void
ustack_frame(int tgid, uint64_t addr, int ret, char *buf, size_t size)
{
	const struct map *m;
	const char *name, *base;
	struct proc *p;
	uint64_t fo, off, back;

	if (tgid <= 0) {
		snprintf(buf, size, "%#llx", (unsigned long long)addr);
		return;
	}
	p = proc_get(tgid);
	if ((m = find(p, addr)) == NULL && now_ns() - p->read_at > 1000000000) {
		read_maps(p);
		m = find(p, addr);
	}
	if (m == NULL) {
		snprintf(buf, size, "%#llx", (unsigned long long)addr);
		return;
	}
	base = strrchr(m->file->path, '/');
	base = base ? base + 1 : m->file->path;
	fo = addr - m->start + m->off;
	/*
	 * A return address is one past its call: look up the byte before,
	 * or a call at a function's very end (noreturn) names the next one.
	 */
	back = ret && fo > 0;
	name = elf_syms_find(m->file->syms, fo - back, &off);
	if (name == NULL)
		snprintf(buf, size, "%s+%#llx", base, (unsigned long long)fo);
	else if (m->exe)
		snprintf(buf, size, "%s+%#llx", name,
		    (unsigned long long)(off + back));
	else
		snprintf(buf, size, "%s!%s+%#llx", base, name,
		    (unsigned long long)(off + back));
}

void
ustack_forget(int tgid)
{
	struct proc *p;

	HASH_FIND_INT(procs, &tgid, p);
	if (p == NULL)
		return;
	HASH_DEL(procs, p);
	free(p->maps);
	free(p);
}
