/*
 * mapfifo: a process whose /proc/PID/maps names a trap, for the tests of
 * what root's tools open (lib/procopen.h).
 *
 *	mapfifo DIR fifo            "DIR/p (deleted)" is a FIFO
 *	mapfifo DIR link TARGET     "DIR/p (deleted)" is a link to TARGET
 *
 * DIR/p is mapped executable, then deleted: the maps show
 * "DIR/p (deleted)", the name that now holds the trap.  Prints "ready"
 * on stdout and waits, blocked (argus mark takes the stacks of threads
 * blocked a second or more), until killed.
 */
#include <sys/mman.h>
#include <sys/stat.h>

#include <err.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int
main(int argc, char *argv[])
{
	char path[PATH_MAX], trap[PATH_MAX + 16], page[4096];
	int fd;

	if (argc < 3 || (strcmp(argv[2], "link") == 0 && argc != 4))
		errx(64, "usage: mapfifo DIR fifo | mapfifo DIR link TARGET");
	snprintf(path, sizeof(path), "%s/p", argv[1]);
	snprintf(trap, sizeof(trap), "%s (deleted)", path);
	/* An ELF header's first bytes: worth a look to a symbol reader. */
	memset(page, 0, sizeof(page));
	memcpy(page, "\177ELF\2\1\1", 7);
	if ((fd = open(path, O_RDWR | O_CREAT | O_EXCL, 0600)) == -1)
		err(1, "%s", path);
	if (write(fd, page, sizeof(page)) != (ssize_t)sizeof(page))
		err(1, "%s", path);
	if (mmap(NULL, sizeof(page), PROT_READ | PROT_EXEC, MAP_PRIVATE, fd,
	    0) == MAP_FAILED)
		err(1, "mmap %s", path);
	close(fd);
	if (unlink(path) == -1)
		err(1, "unlink %s", path);
	if (strcmp(argv[2], "fifo") == 0) {
		if (mkfifo(trap, 0666) == -1)
			err(1, "mkfifo %s", trap);
	} else if (symlink(argv[3], trap) == -1)
		err(1, "symlink %s", trap);
	printf("ready\n");
	fflush(stdout);
	for (;;)
		pause();
}
