/*
 * The patched processes' rings (patchers/ubuf.h): found in one directory,
 * mapped, read in time order, merged with the kernel's events by emit.c.
 * Everything in a ring was written by the traced program, so it is data
 * to check, never to trust: names are bounded, indexes range-checked.
 *
 * A process's file is removed once it is read to its end and it can add
 * no more: the process is gone, or exec'd (a newer file of the same pid).
 */
#include <sys/mman.h>
#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util.h"
#include "patched.h"

#define MAXFILES	256
#define MAXSETS		16
#define REFRESH_NS	50000000ULL	/* directory rescans, at most */
#define HORIZON_NS	20000000ULL	/* a stamp's way to its commit */

struct ufile {
	struct ubuf_hdr	*h;
	char		 name[64];
	int		 pid, gen;
	char		 type[UBUF_PROBES][UBUF_NAMELEN];
};

static char		 dir[PATH_MAX];
static int		 made_dir;	/* ours to remove */
static int		 dfd = -1;
static const char	*sets[MAXSETS];
static int		 nsets;
static int		 dir_given;
static struct ufile	 files[MAXFILES];
static int		 nfiles;
static uint64_t		 last_scan, horizon, lost;
static struct ubuf_slot	*best_slot;	/* the peeked event's; NULL: none */
static struct ufile	*best_file;
static int		 peeked;	/* best_slot holds until consumed */
static char		 env_sets[8192];

void
patched_set(const char *name)
{
	char real[PATH_MAX];

	if (nsets == MAXSETS)
		diex(EX_USAGE, "--probes: more than %d sets", MAXSETS);
	/* A path for the program, which runs elsewhere; a name it finds. */
	if (strchr(name, '/') != NULL) {
		if (realpath(name, real) == NULL)
			die(EX_NOINPUT, "--probes %s", name);
		sets[nsets++] = xstrdup(real);
	} else
		sets[nsets++] = xstrdup(name);
}

void
patched_dir(const char *d)
{
	if (strlen(d) >= sizeof(dir))
		diex(EX_USAGE, "--patch-dir: path too long");
	snprintf(dir, sizeof(dir), "%s", d);
	dir_given = 1;
}

int
patched_wanted(void)
{
	return nsets > 0 || dir_given;
}

static void
cleanup(void)
{
	struct dirent *d;
	DIR *dp;

	if (!made_dir || dfd == -1)
		return;
	if ((dp = fdopendir(dup(dfd))) != NULL) {
		rewinddir(dp);	/* the offset is dfd's, shared */
		while ((d = readdir(dp)) != NULL)
			if (strstr(d->d_name, ".ubuf") != NULL)
				unlinkat(dfd, d->d_name, 0);
		closedir(dp);
	}
	rmdir(dir);
	made_dir = 0;
}

void
patched_setup(int has_command)
{
	struct stat st;
	char *p = env_sets;
	int i;

	if (!patched_wanted())
		return;
	if (nsets > 0 && !has_command && !dir_given)
		diex(EX_USAGE, "--patch: probe sets are applied to a COMMAND "
		    "(-- COMMAND), or to programs started with LD_PRELOAD and "
		    "--patch-dir DIR (argus-patch(7))");
	if (!dir_given) {
		snprintf(dir, sizeof(dir), "/tmp/argus-patch.XXXXXX");
		if (mkdtemp(dir) == NULL)
			die(EX_CANTCREAT, "%s", dir);
		made_dir = 1;
		atexit(cleanup);
	} else if (mkdir(dir, 0700) == -1 && errno != EEXIST)
		die(EX_CANTCREAT, "--patch-dir %s", dir);
	if ((dfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC)) == -1)
		die(EX_NOINPUT, "--patch-dir %s", dir);
	if (fstat(dfd, &st) == -1)
		die(EX_IOERR, "%s", dir);
	/* Whoever may write there may feed us events: ours, or root's. */
	if (st.st_uid != geteuid() && st.st_uid != 0)
		diex(77, "--patch-dir %s: not yours", dir);
	for (i = 0; i < nsets; i++)
		p += snprintf(p, env_sets + sizeof(env_sets) - p, "%s%s",
		    i ? ":" : "", sets[i]);
	patched_refresh();
}

/* The library beside us: the build tree's patchers/, or PREFIX/lib/argus. */
static int
find_lib(char *out, size_t size)
{
	static const char *const rel[] = { "../patchers", "../lib/argus" };
	char self[PATH_MAX], *slash;
	const char *env = getenv("ARGUS_PATCH_LIB");
	ssize_t n;
	size_t i;

	if (env != NULL && *env != '\0') {
		snprintf(out, size, "%s", env);
		return access(out, R_OK);
	}
	if ((n = readlink("/proc/self/exe", self, sizeof(self) - 1)) == -1)
		return -1;
	self[n] = '\0';
	if ((slash = strrchr(self, '/')) != NULL)
		*slash = '\0';
	for (i = 0; i < ARRAY_LEN(rel); i++) {
		if ((size_t)snprintf(out, size, "%s/%s/libargus-patch.so", self,
		    rel[i]) < size && access(out, R_OK) == 0)
			return 0;
	}
	return -1;
}

/* In the command's child: preload the patcher, which reads these. */
void
patched_child_env(void)
{
	char lib[PATH_MAX], pre[2 * PATH_MAX + 2];
	const char *old = getenv("LD_PRELOAD");

	if (nsets == 0)
		return;
	if (find_lib(lib, sizeof(lib)) == -1) {
		fprintf(stderr, "argus-capture: libargus-patch.so not found "
		    "(built without libzydis-dev?): the command runs "
		    "unpatched\n");
		return;
	}
	if (old != NULL && *old != '\0')
		snprintf(pre, sizeof(pre), "%s:%s", lib, old);
	else
		snprintf(pre, sizeof(pre), "%s", lib);
	setenv("LD_PRELOAD", pre, 1);
	setenv("ARGUS_PATCH", env_sets, 1);
	setenv("ARGUS_PATCH_DIR", dir, 1);
}

const char *
patched_desc(int i)
{
	static char buf[PATH_MAX + 64];

	if (!patched_wanted())
		return NULL;
	if (i == 0) {
		snprintf(buf, sizeof(buf), "dir %s", dir);
		return buf;
	}
	if (i - 1 < nsets) {
		snprintf(buf, sizeof(buf), "set %s", sets[i - 1]);
		return buf;
	}
	return NULL;
}

int
patched_active(void)
{
	return dfd != -1;
}

static void
drop(int i)
{
	munmap(files[i].h, sizeof(struct ubuf_hdr));
	unlinkat(dfd, files[i].name, 0);
	files[i] = files[--nfiles];
}

static int
known(const char *name)
{
	int i;

	for (i = 0; i < nfiles; i++)
		if (strcmp(files[i].name, name) == 0)
			return 1;
	return 0;
}

/* A file the program published: right size, ours to read, magic set. */
static void
take(const char *name, int pid, int gen)
{
	struct ufile *f;
	struct ubuf_hdr *h;
	struct stat st;
	unsigned i;
	int fd;

	if (nfiles == MAXFILES || strlen(name) >= sizeof(f->name))
		return;
	if ((fd = openat(dfd, name, O_RDWR | O_NOFOLLOW | O_CLOEXEC)) == -1)
		return;
	if (fstat(fd, &st) == -1 || !S_ISREG(st.st_mode) ||
	    st.st_size != sizeof(*h)) {
		close(fd);
		return;		/* not yet sized, or not one of ours */
	}
	h = mmap(NULL, sizeof(*h), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (h == MAP_FAILED)
		return;
	if (__atomic_load_n(&h->magic, __ATOMIC_ACQUIRE) != UBUF_MAGIC ||
	    h->version != UBUF_VERSION || h->nslots != UBUF_SLOTS ||
	    h->nevents != UBUF_EVENTS || h->nprobes > UBUF_PROBES) {
		munmap(h, sizeof(*h));
		return;		/* not published yet: next scan */
	}
	f = &files[nfiles++];
	memset(f, 0, sizeof(*f));
	f->h = h;
	f->pid = pid;
	f->gen = gen;
	memcpy(f->name, name, strlen(name) + 1);
	for (i = 0; i < h->nprobes; i++) {
		memcpy(f->type[i], h->name[i], UBUF_NAMELEN - 1);
		f->type[i][UBUF_NAMELEN - 1] = '\0';
	}
}

static int
drained(const struct ufile *f)
{
	int s;

	for (s = 0; s < UBUF_SLOTS; s++)
		if (__atomic_load_n(&f->h->slot[s].head, __ATOMIC_ACQUIRE) !=
		    f->h->slot[s].tail)
			return 0;
	return 1;
}

static int
newer(const struct ufile *f)
{
	int i;

	for (i = 0; i < nfiles; i++)
		if (files[i].pid == f->pid && files[i].gen > f->gen)
			return 1;
	return 0;
}

void
patched_refresh(void)
{
	struct dirent *d;
	DIR *dp;
	uint64_t t = now_ns();
	int i, pid, gen, n;
	char tail[8];

	if (dfd == -1)
		return;
	horizon = t - HORIZON_NS;
	best_slot = NULL;
	peeked = 0;
	if (t - last_scan < REFRESH_NS)
		return;
	last_scan = t;
	if ((dp = fdopendir(dup(dfd))) != NULL) {
		rewinddir(dp);
		while ((d = readdir(dp)) != NULL) {
			n = sscanf(d->d_name, "%d-%d.%5s", &pid, &gen, tail);
			if (n != 3 || strcmp(tail, "ubuf") != 0 || pid <= 0 ||
			    known(d->d_name))
				continue;
			take(d->d_name, pid, gen);
		}
		closedir(dp);
	}
	for (i = 0; i < nfiles; i++)
		if (drained(&files[i]) && ((kill(files[i].pid, 0) == -1 &&
		    errno == ESRCH) || newer(&files[i])))
			drop(i--);
}

uint64_t
patched_horizon(void)
{
	return horizon;
}

/* The earliest unread event of every ring: a few dozen loads. */
const struct ubuf_event *
patched_peek(int *pid, const char **type)
{
	const struct ubuf_event *e, *best = NULL;
	struct ubuf_slot *s;
	int i, k;

	/* Rings only grow between refreshes: the answer holds till then. */
	if (peeked) {
		if (best_slot == NULL)
			return NULL;
		best = &best_slot->ev[best_slot->tail & (UBUF_EVENTS - 1)];
		*pid = best_file->pid;
		*type = best_file->type[best->probe];
		return best;
	}
	peeked = 1;
	best_slot = NULL;
	for (i = 0; i < nfiles; i++)
		for (k = 0; k < UBUF_SLOTS; k++) {
			s = &files[i].h->slot[k];
			if (__atomic_load_n(&s->head, __ATOMIC_ACQUIRE) ==
			    s->tail)
				continue;
			e = &s->ev[s->tail & (UBUF_EVENTS - 1)];
			if (best == NULL || e->ts < best->ts) {
				best = e;
				best_slot = s;
				best_file = &files[i];
			}
		}
	if (best == NULL)
		return NULL;
	if (best->probe >= best_file->h->nprobes) {
		/* Not a probe the file names: skipped, as a loss. */
		lost++;
		patched_consume();
		return patched_peek(pid, type);
	}
	*pid = best_file->pid;
	*type = best_file->type[best->probe];
	return best;
}

void
patched_consume(void)
{
	if (best_slot == NULL)
		return;
	__atomic_store_n(&best_slot->tail, best_slot->tail + 1,
	    __ATOMIC_RELEASE);
	best_slot = NULL;
	peeked = 0;
}

uint64_t
patched_lost(void)
{
	uint64_t n = lost, l;
	int i, k;

	for (i = 0; i < nfiles; i++) {
		struct ubuf_hdr *h = files[i].h;

		for (k = 0; k < UBUF_SLOTS; k++) {
			l = __atomic_load_n(&h->slot[k].lost, __ATOMIC_RELAXED);
			if (l > h->slot[k].reported) {
				n += l - h->slot[k].reported;
				h->slot[k].reported = l;
			}
		}
	}
	lost = 0;
	return n;
}
