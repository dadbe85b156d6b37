/*
 * Files another process named (procopen.h).  No dependency beyond libc:
 * the patcher (patchers/) links this file too.
 */
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

#include "procopen.h"

int
open_regular(const char *path)
{
	char self[64];
	struct stat st;
	int pfd, fd, e;

	if ((pfd = open(path, O_PATH | O_CLOEXEC)) == -1)
		return -1;
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
