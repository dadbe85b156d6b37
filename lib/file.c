/*
 * Creating files safely where other users can write.  The attacks are the
 * old ones: a symbolic link planted under a name root will write (the
 * recorder's names are predictable), a directory prepared in advance by
 * someone else, and a user's own slip, `-o t.gz t.gz`.  The answers:
 * files are created with O_CREAT | O_EXCL | O_NOFOLLOW, or as unnamed
 * O_TMPFILE inodes linked in when complete, relative to a directory
 * descriptor; a rename replaces whatever held the name without following
 * it; a directory is used only if no one else can write into it.
 */
#include <sys/random.h>
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "file.h"
#include "util.h"

/* Root's or ours; writable by no one else, unless sticky (/tmp). */
static int
trusted(const struct stat *st)
{
	return (st->st_uid == 0 || st->st_uid == geteuid()) &&
	    (!(st->st_mode & (S_IWGRP | S_IWOTH)) || (st->st_mode & S_ISVTX));
}

/*
 * The directory that holds path's last component, reached a component at
 * a time (an O_PATH descriptor), and that component in buf.  Whoever may
 * write into a directory on the way may swap what follows for a link of
 * theirs between a look and a use, and a link of theirs on the way leads
 * where they like: every directory must be trusted(), and a link is
 * followed only if root's or ours.  A trailing slash, which has open(2)
 * follow the last component whatever O_NOFOLLOW says, is taken off first.
 * -1 with errno if a component is missing.
 */
static int
walk_parent(const char *path, char *buf, size_t size, const char **last)
{
	char *comp, *end, *slash;
	struct stat st;
	size_t n;
	int fd, next;

	if ((n = snprintf(buf, size, "%s", path)) >= size)
		diex(EX_USAGE, "%s: path too long", path);
	while (n > 1 && buf[n - 1] == '/')
		buf[--n] = '\0';
	if ((slash = strrchr(buf, '/')) == NULL) {
		*last = buf;
		return open(".", O_PATH | O_DIRECTORY | O_CLOEXEC);
	}
	*slash = '\0';
	*last = slash[1] != '\0' ? slash + 1 : ".";	/* "/" */
	if ((fd = open(buf[0] == '\0' || path[0] == '/' ? "/" : ".",
	    O_PATH | O_DIRECTORY | O_CLOEXEC)) == -1)
		die(EX_OSERR, "%s", path);
	for (comp = buf; comp != NULL; comp = end) {
		if ((end = strchr(comp, '/')) != NULL)
			*end++ = '\0';
		if (*comp == '\0' || strcmp(comp, ".") == 0)
			continue;	/* "a//b", "./a": where we are */
		if (fstatat(fd, comp, &st, AT_SYMLINK_NOFOLLOW) == -1) {
			close(fd);
			return -1;
		}
		if (S_ISLNK(st.st_mode) && st.st_uid != 0 &&
		    st.st_uid != geteuid())
			diex(EX_NOPERM, "%s: '%s' on the way is a symbolic "
			    "link of uid %u's: not using it", path, comp,
			    (unsigned)st.st_uid);
		if ((next = openat(fd, comp, O_PATH | O_DIRECTORY |
		    O_CLOEXEC)) == -1) {
			close(fd);
			return -1;
		}
		close(fd);
		fd = next;
		if (fstat(fd, &st) == -1)
			die(EX_IOERR, "%s", path);
		if (!trusted(&st))
			diex(EX_NOPERM, "%s: '%s' on the way is a directory "
			    "of uid %u's, mode %03o (whoever may write there "
			    "can replace what it holds): not using it", path,
			    comp, (unsigned)st.st_uid,
			    (unsigned)(st.st_mode & 07777));
	}
	return fd;
}

int
private_dir(const char *path, int create)
{
	char buf[PATH_MAX];
	const char *last;
	struct stat st;
	int pfd, fd, made = 0;

	if ((pfd = walk_parent(path, buf, sizeof(buf), &last)) == -1) {
		if (errno == ENOENT && !create)
			return -1;
		die(EX_CANTCREAT, "%s", path);
	}
	if (create) {
		if (mkdirat(pfd, last, 0700) == 0)
			made = 1;
		else if (errno != EEXIST)
			die(EX_CANTCREAT, "%s", path);
	}
	fd = openat(pfd, last, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC);
	if (fd == -1) {
		if (errno == ENOENT && !create) {
			close(pfd);
			return -1;
		}
		if (fstatat(pfd, last, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
		    S_ISLNK(st.st_mode))
			diex(EX_NOPERM, "%s: a symbolic link, not a directory "
			    "of yours: not using it", path);
		die(EX_CANTCREAT, "%s", path);
	}
	close(pfd);
	if (fstat(fd, &st) == -1)
		die(EX_IOERR, "%s", path);
	/* mkdir obeys the umask; ours must still be usable. */
	if (made && fchmod(fd, 0700) == -1)
		die(EX_IOERR, "%s: chmod", path);
	if (st.st_uid != geteuid())
		diex(EX_NOPERM, "%s: owned by uid %u, not by you (uid %u): not "
		    "using it", path, (unsigned)st.st_uid, (unsigned)geteuid());
	if (st.st_mode & (S_IWGRP | S_IWOTH))
		diex(EX_NOPERM, "%s: writable by others (mode %03o): not using "
		    "it; make it 0700", path, (unsigned)(st.st_mode & 0777));
	return fd;
}

/*
 * Files open in this process, by identity.  Few: a linear table.
 */
struct ident {
	dev_t	 dev;
	ino_t	 ino;
	int	 output;
	char	*name;
};

static struct ident	*idents;
static size_t		 nidents;

static void
note(const struct stat *st, const char *name, int output)
{
	size_t i;

	if (!S_ISREG(st->st_mode))
		return;		/* a pipe or a device can be both */
	for (i = 0; i < nidents; i++) {
		if (idents[i].dev != st->st_dev || idents[i].ino != st->st_ino ||
		    idents[i].output == output)
			continue;
		hooks_run(HOOK_REFUSE);
		if (strcmp(name, idents[i].name) == 0)
			diex(EX_USAGE, "%s: both an input and the output: "
			    "not writing over it", name);
		/* Said of the output, whichever was named second. */
		diex(EX_USAGE, "%s: the same file as input %s: not writing "
		    "over it", output ? name : idents[i].name,
		    output ? idents[i].name : name);
	}
	idents = xrealloc(idents, (nidents + 1) * sizeof(*idents));
	idents[nidents].dev = st->st_dev;
	idents[nidents].ino = st->st_ino;
	idents[nidents].output = output;
	idents[nidents].name = xstrdup(name);
	nidents++;
}

void
file_note(int fd, const char *name, int output)
{
	struct stat st;

	if (fstat(fd, &st) == -1)
		die(EX_IOERR, "%s", name);
	note(&st, name, output);
}

/* NAME.XXXXXX beside NAME, random: a temporary's name. */
static void
tmp_name(struct outfile *o)
{
	static const char set[] =
	    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
	unsigned char r[6];
	size_t i, n = strlen(o->name) + 8;

	if (getrandom(r, sizeof(r), 0) != sizeof(r))
		die(EX_OSERR, "getrandom");
	free(o->tmp);
	o->tmp = xmalloc(n);
	snprintf(o->tmp, n, "%s.", o->name);
	for (i = 0; i < sizeof(r); i++)
		o->tmp[n - 7 + i] = set[r[i] % (sizeof(set) - 1)];
	o->tmp[n - 1] = '\0';
}

/* A named temporary beside the target, new: nothing can be there before. */
static void
open_named(struct outfile *o)
{
	int tries;

	for (tries = 0; tries < 100; tries++) {
		tmp_name(o);
		o->fd = openat(o->dirfd, o->tmp, O_WRONLY | O_CREAT | O_EXCL |
		    O_NOFOLLOW | O_CLOEXEC, 0600);
		if (o->fd != -1 || errno != EEXIST)
			break;
	}
	if (o->fd == -1)
		die(EX_CANTCREAT, "%s: temporary file", o->path);
}

/*
 * Whether path, already there, is written in place: a device or FIFO the
 * user names, or a link that we or root made.  Replacing either would be
 * wrong (-o /dev/stdout must not replace /dev/stdout).  *what is what
 * opening it must find, or the name changed under us.
 */
static int
in_place(struct outfile *o, struct stat *what)
{
	struct stat st;

	if (fstatat(o->dirfd, o->name, &st, AT_SYMLINK_NOFOLLOW) == -1)
		return 0;
	if (S_ISLNK(st.st_mode))
		return (st.st_uid == geteuid() || st.st_uid == 0) &&
		    fstatat(o->dirfd, o->name, what, 0) == 0;
	*what = st;
	if (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode))
		return 1;
	if (S_ISDIR(st.st_mode))
		diex(EX_CANTCREAT, "%s: is a directory", o->path);
	if (!S_ISREG(st.st_mode))
		diex(EX_CANTCREAT, "%s: not a regular file", o->path);
	return 0;
}

void
outfile_open(struct outfile *o, int dirfd, const char *path, enum outmode how)
{
	char *slash, *dir;
	struct stat st, what;

	memset(o, 0, sizeof(*o));
	o->path = xstrdup(path);
	o->dirfd = -1;
	/* The directory by descriptor: the name cannot move under us. */
	if ((slash = strrchr(path, '/')) != NULL && slash[1] == '\0')
		diex(EX_CANTCREAT, "%s: is a directory", path);
	if (slash == NULL) {
		o->name = xstrdup(path);
		o->dirfd = dirfd == AT_FDCWD ?
		    open(".", O_PATH | O_DIRECTORY | O_CLOEXEC) :
		    fcntl(dirfd, F_DUPFD_CLOEXEC, 0);
	} else {
		o->name = xstrdup(slash + 1);
		dir = xstrdup(path);
		dir[slash == path ? 1 : slash - path] = '\0';	/* "/x": "/" */
		o->dirfd = openat(dirfd, dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
		free(dir);
	}
	if (o->dirfd == -1)
		die(EX_CANTCREAT, "%s", path);

	/* The target as any reader of path would open it. */
	if (fstatat(o->dirfd, o->name, &st, 0) == 0 && S_ISREG(st.st_mode))
		note(&st, path, 1);

	if (how != OUT_LIVE && in_place(o, &what)) {
		o->fd = openat(o->dirfd, o->name, O_WRONLY | O_CLOEXEC);
		if (o->fd == -1)
			die(EX_CANTCREAT, "%s", path);
		if (fstat(o->fd, &st) == -1)
			die(EX_IOERR, "%s", path);
		if (st.st_dev != what.st_dev || st.st_ino != what.st_ino)
			diex(EX_CANTCREAT, "%s: replaced while being opened",
			    path);
		/* A link of ours to a regular file: that file, emptied. */
		if (S_ISREG(st.st_mode) && (ftruncate(o->fd, 0) == -1 ||
		    ((st.st_mode & 077) && fchmod(o->fd, 0600) == -1)))
			die(EX_CANTCREAT, "%s", path);
		return;
	}
	switch (how) {
	case OUT_LIVE:
		o->fd = openat(o->dirfd, o->name, O_WRONLY | O_CREAT | O_EXCL |
		    O_NOFOLLOW | O_CLOEXEC, 0600);
		if (o->fd == -1)
			die(EX_CANTCREAT, "%s", path);
		return;
	case OUT_ATOMIC:
		o->fd = openat(o->dirfd, ".", O_TMPFILE | O_WRONLY | O_CLOEXEC,
		    0600);
		if (o->fd != -1) {
			o->unnamed = 1;
			return;
		}
		/* A file system without O_TMPFILE: a named one instead. */
		if (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL)
			die(EX_CANTCREAT, "%s", path);
		/* FALLTHROUGH */
	case OUT_PARTIAL:
		open_named(o);
		return;
	}
}

/* The unnamed temporary, given a name in its directory. */
static int
link_unnamed(struct outfile *o, const char *name)
{
	char proc[64];

	/* AT_EMPTY_PATH needs CAP_DAC_READ_SEARCH; /proc does not. */
	if (linkat(o->fd, "", o->dirfd, name, AT_EMPTY_PATH) == 0)
		return 0;
	if (errno != ENOENT && errno != EPERM)
		return -1;
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", o->fd);
	return linkat(AT_FDCWD, proc, o->dirfd, name, AT_SYMLINK_FOLLOW);
}

static void
release(struct outfile *o)
{
	if (o->dirfd != -1)
		close(o->dirfd);
	free(o->path);
	free(o->name);
	free(o->tmp);
	memset(o, 0, sizeof(*o));
	o->fd = o->dirfd = -1;
}

void
outfile_commit(struct outfile *o)
{
	int rc, eno, tries = 0;

	if (o->unnamed) {
		/* Nothing there: straight to the name.  Else beside it. */
		if (link_unnamed(o, o->name) == 0)
			goto done;
		if (errno != EEXIST)
			goto fail;
		do {
			tmp_name(o);
			rc = link_unnamed(o, o->tmp);
		} while (rc == -1 && errno == EEXIST && ++tries < 100);
		if (rc == -1) {
			free(o->tmp);	/* someone else's name */
			o->tmp = NULL;
			goto fail;
		}
		o->unnamed = 0;
	}
	/* A rename replaces what held the name; it never follows it. */
	if (o->tmp != NULL && renameat(o->dirfd, o->tmp, o->dirfd, o->name) == -1)
		goto fail;
done:
	if (close(o->fd) == -1)
		die(EX_IOERR, "%s: close", o->path);
	release(o);
	return;
fail:
	eno = errno;
	if (o->tmp != NULL && !o->unnamed)
		unlinkat(o->dirfd, o->tmp, 0);
	errno = eno;
	die(EX_CANTCREAT, "%s", o->path);
}

void
outfile_discard(struct outfile *o)
{
	int eno = errno;

	if (o->tmp != NULL && !o->unnamed)
		unlinkat(o->dirfd, o->tmp, 0);
	close(o->fd);
	release(o);
	errno = eno;
}

FILE *
outfile_fopen(struct outfile *of, const char *path)
{
	FILE *fp;
	int fd;

	outfile_open(of, AT_FDCWD, path, OUT_ATOMIC);
	if ((fd = dup(of->fd)) == -1 || (fp = fdopen(fd, "w")) == NULL)
		die(EX_OSERR, "%s", path);
	return fp;
}

void
outfile_fclose(FILE *fp, struct outfile *of)
{
	if (fclose(fp) == EOF) {
		outfile_discard(of);	/* keeps errno */
		die(EX_IOERR, "%s", of->path);
	}
	outfile_commit(of);
}
