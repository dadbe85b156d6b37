/*
 * Opening a file that another process named.  A path in /proc/PID/maps
 * (or any other process's /proc data) is that process's owner's text:
 * "/home/u/lib (deleted)" may be a FIFO, whose open(2) blocks for ever,
 * a device, whose open has effects, or a link to a file only root may
 * read.  Root's tools open such files here and nowhere else.
 */
#ifndef ARGUS_PROCOPEN_H
#define ARGUS_PROCOPEN_H

#include <sys/types.h>

#include <stdint.h>

/*
 * A regular file at path, read-only: opened O_PATH first (which neither
 * blocks nor opens a device), refused if it is on a FUSE file system
 * another user mounted (EACCES: its daemon may never answer, and a tool
 * that asked would wait for ever), or unless fstat says it is a regular
 * file, then reopened O_RDONLY | O_NONBLOCK.  Symbolic links are followed:
 * for paths of our own (a library a probe set names, /proc/PID/exe).  -1
 * with errno; ENOEXEC for what is not a regular file.
 */
int	 open_regular(const char *path);

/*
 * The object mapped at START-END in process pid, as /proc/PID/maps lists
 * it, through /proc/PID/map_files/START-END: the kernel's own reference
 * to the file mapped, never the name the maps show (which the process's
 * owner chose, and may have replaced since).  A regular file only, as
 * open_regular(); -1 with errno.
 */
int	 open_mapped(int pid, uint64_t start, uint64_t end);

/*
 * A /proc file whole, NUL-terminated, into buf (at most size - 1 bytes):
 * its length, or -1 with errno (a file gone, the process exited, is no
 * error to the caller).  Never through a symbolic link.
 */
ssize_t	 proc_slurp(const char *path, char *buf, size_t size);

#endif
