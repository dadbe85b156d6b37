/*
 * Files another process named (procopen.h).  No dependency beyond libc:
 * the patcher (patchers/) links this file too.
 */
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "procopen.h"

/*
 * The line of mount id in a mountinfo file: its fields past " - " (type,
 * source, super options), allocated; NULL if it is not there.  A line
 * whole, however long: a user names the source and the mount point of a
 * FUSE mount, and a line cut short could be taken for another, or cut
 * where its owner would read as someone else.
 */
static char *
mount_tail(const char *mountinfo, long id)
{
	char *line = NULL, *tail = NULL;
	const char *sep;
	size_t cap = 0;
	FILE *f;
	long n;

	if ((f = fopen(mountinfo, "re")) == NULL)
		return NULL;
	while (tail == NULL && getline(&line, &cap, f) != -1)
		if (sscanf(line, "%ld", &n) == 1 && n == id &&
		    (sep = strstr(line, " - ")) != NULL)
			tail = strdup(sep + 3);
	free(line);
	fclose(f);
	return tail;
}

/*
 * Whether the mount whose tail this is is FUSE and not our own user's:
 * its owner from the super options, past the type and the source (the
 * user's to name: "user_id=0" there is no owner), each separated by one
 * space, as mountinfo escapes its own.  No owner said: not ours.
 */
static int
foreign_fuse(const char *tail)
{
	const char *p;
	char *end;
	unsigned long uid;

	if (strncmp(tail, "fuse ", 5) != 0 && strncmp(tail, "fuse.", 5) != 0 &&
	    strncmp(tail, "fuseblk ", 8) != 0)
		return 0;
	if ((p = strchr(tail, ' ')) == NULL || (p = strchr(p + 1, ' ')) == NULL)
		return 1;
	for (p++; (p = strstr(p, "user_id=")) != NULL; p++)
		if (p[-1] == ' ' || p[-1] == ',')
			break;
	if (p == NULL)
		return 1;
	uid = strtoul(p + 8, &end, 10);
	return end == p + 8 || (*end != ',' && *end != '\n' && *end != '\0') ||
	    uid != (unsigned long)geteuid();
}

/*
 * A FUSE file system that another user mounted (allow_other lets root
 * in): its daemon answers each open, stat and read, or never does.  A
 * request that daemon has taken waits for it uninterruptibly, SIGKILL or
 * not: one look at a program it serves would hang the tool for ever.
 * Asked of the kernel alone, not of the file system: the descriptor's
 * mount (fdinfo) and that mount's type and owner (mountinfo, ours, or
 * that of the process whose /proc path it is, in a namespace of its own).
 */
static int
untrusted_fuse(int pfd, const char *path)
{
	char info[96], buf[512], *tail;
	struct statx stx;
	const char *p;
	long id;
	int pid, r;

	/*
	 * A user's FUSE mount has no block device (fusermount leaves
	 * fuseblk to root): a file on one, as most are, is no such file.
	 * Without a sync, a FUSE or NFS file system answers from what it
	 * has, asking no one.
	 */
	if (statx(pfd, "", AT_EMPTY_PATH | AT_STATX_DONT_SYNC, STATX_TYPE,
	    &stx) == 0 && stx.stx_dev_major != 0)
		return 0;
	snprintf(info, sizeof(info), "/proc/thread-self/fdinfo/%d", pfd);
	if (proc_slurp(info, buf, sizeof(buf)) <= 0 ||
	    (p = strstr(buf, "mnt_id:")) == NULL)
		return 0;
	id = strtol(p + 7, NULL, 10);
	if ((tail = mount_tail("/proc/thread-self/mountinfo", id)) == NULL) {
		if (sscanf(path, "/proc/%d/", &pid) != 1)
			return 0;
		snprintf(info, sizeof(info), "/proc/%d/mountinfo", pid);
		if ((tail = mount_tail(info, id)) == NULL)
			return 0;
	}
	r = foreign_fuse(tail);
	free(tail);
	return r;
}

int
open_regular(const char *path)
{
	char self[64];
	struct stat st;
	int pfd, fd, e;

	if ((pfd = open(path, O_PATH | O_CLOEXEC)) == -1)
		return -1;
	/* Before fstat(2): a FUSE file's may be a request to its daemon. */
	if (untrusted_fuse(pfd, path)) {
		close(pfd);
		errno = EACCES;
		return -1;
	}
	if (fstat(pfd, &st) == -1) {
		e = errno;
		close(pfd);
		errno = e;
		return -1;
	}
	if (!S_ISREG(st.st_mode)) {
		close(pfd);
		errno = ENOEXEC;
		return -1;
	}
	/* The inode just checked, not whatever the name holds by now. */
	snprintf(self, sizeof(self), "/proc/self/fd/%d", pfd);
	fd = open(self, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	e = errno;
	close(pfd);
	if (fd == -1 && e == ENOENT) {
		/* No /proc (a patched program in a chroot): the name again,
		 * never blocking, and only if it is still that inode. */
		struct stat now;

		fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
		e = errno;
		if (fd != -1 && (fstat(fd, &now) == -1 ||
		    now.st_dev != st.st_dev || now.st_ino != st.st_ino)) {
			close(fd);
			fd = -1;
			e = ENOEXEC;
		}
	}
	errno = e;
	return fd;
}

int
open_mapped(int pid, uint64_t start, uint64_t end)
{
	char path[96];

	snprintf(path, sizeof(path), "/proc/%d/map_files/%llx-%llx", pid,
	    (unsigned long long)start, (unsigned long long)end);
	return open_regular(path);
}

ssize_t
proc_slurp(const char *path, char *buf, size_t size)
{
	size_t want, got = 0;
	ssize_t n;
	int fd;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)) == -1)
		return -1;
	/*
	 * /proc's seq files fill a read to its size unless they are at their
	 * end: a short read is the whole file, and a second read for the
	 * end would cost a fifth of the snapshot.
	 */
	for (;;) {
		want = size - 1 - got;
		if (want == 0 || (n = read(fd, buf + got, want)) <= 0)
			break;
		got += n;
		if ((size_t)n < want)
			break;
	}
	close(fd);
	buf[got] = '\0';
	return got;
}
