/*
 * lockloop: take and drop a file lock N times, as fast as it goes, and
 * print the time each pair took, on the clock and on the CPU (what a
 * tracepoint adds, however loaded the machine): the workload
 * bench/filelock traces.
 *
 *	lockloop flock|posix|ofd N FILE
 */
#include <sys/file.h>

#include <err.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static void
setlk(int fd, int cmd, short type)
{
	struct flock fl = { .l_type = type, .l_whence = SEEK_SET };

	if (fcntl(fd, cmd, &fl) == -1)
		err(1, "fcntl");
}

int
main(int argc, char *argv[])
{
	struct timespec a, b, ca, cb;
	long i, n;
	int fd;

	if (argc != 4 || (n = atol(argv[2])) <= 0)
		errx(64, "usage: lockloop flock|posix|ofd N FILE");
	if ((fd = open(argv[3], O_RDWR | O_CREAT, 0600)) == -1)
		err(1, "%s", argv[3]);
	clock_gettime(CLOCK_MONOTONIC, &a);
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ca);
	for (i = 0; i < n; i++) {
		if (strcmp(argv[1], "flock") == 0) {
			if (flock(fd, LOCK_EX) == -1 || flock(fd, LOCK_UN) == -1)
				err(1, "flock");
		} else if (strcmp(argv[1], "posix") == 0) {
			setlk(fd, F_SETLKW, F_WRLCK);
			setlk(fd, F_SETLK, F_UNLCK);
		} else {
			setlk(fd, F_OFD_SETLKW, F_WRLCK);
			setlk(fd, F_OFD_SETLK, F_UNLCK);
		}
	}
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &cb);
	clock_gettime(CLOCK_MONOTONIC, &b);
	printf("%s: %ld pairs, ns per pair %.1f, CPU ns per pair %.1f\n",
	    argv[1], n,
	    ((b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec)) / n,
	    ((cb.tv_sec - ca.tv_sec) * 1e9 + (cb.tv_nsec - ca.tv_nsec)) / n);
	return 0;
}
