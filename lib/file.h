/*
 * Files, created the one way Argus creates them.  Argus runs as root on
 * machines other people use, and its files hold their commands: every file
 * is created 0600, never through a stranger's symbolic link, never over an
 * input, and an output appears under its name only when it is complete.
 */
#ifndef ARGUS_FILE_H
#define ARGUS_FILE_H

#include <fcntl.h>
#include <stdio.h>

/*
 * A directory of our own: owned by us and writable by nobody else.
 * Created 0700 with mkdir(2) if missing (and create is set); refused with
 * exit 77 (EX_NOPERM) if it belongs to someone else, is writable by group
 * or others, or is a symbolic link; so is a path through a directory
 * others may write into (but for a sticky one, /tmp) or through another
 * user's symbolic link, and a trailing slash changes nothing.  Its
 * descriptor, for openat(2) and outfile_open(); -1 with errno ENOENT if
 * missing and create is not set.
 */
int	 private_dir(const char *path, int create);

/* How an output reaches its name. */
enum outmode {
	OUT_ATOMIC,	/* an unnamed temporary, linked in when complete */
	OUT_PARTIAL,	/* a named temporary beside it: what a process
			   killed half-way had written stays readable */
	OUT_LIVE,	/* created new under its name and written in place,
			   for a reader that follows it (the recorder's ring) */
};

struct outfile {
	int	 fd;		/* write here */
	int	 dirfd;		/* the directory it goes into */
	char	*path;		/* as given, for messages */
	char	*name;		/* its name in dirfd */
	char	*tmp;		/* a named temporary in dirfd, or NULL */
	int	 unnamed;	/* fd is an O_TMPFILE still to be linked */
};

/*
 * Opens path (relative to dirfd: AT_FDCWD or a private_dir()) for writing.
 * A character device or a FIFO (-o /dev/null, a named pipe), and a
 * symbolic link of ours or root's (/dev/stdout), are written in place; a
 * stranger's link is replaced, never followed.  A path that is one of the
 * inputs is a usage error (exit 64), found before anything is created.
 * Errors exit 73 (EX_CANTCREAT).
 */
void	 outfile_open(struct outfile *, int dirfd, const char *path,
	    enum outmode);
void	 outfile_commit(struct outfile *);	/* closes; under its name now */
void	 outfile_discard(struct outfile *);	/* closes; as if never opened */

/* The same, through stdio: opened OUT_ATOMIC, committed at the close. */
FILE	*outfile_fopen(struct outfile *, const char *path);
void	 outfile_fclose(FILE *, struct outfile *);

/*
 * Inputs and outputs must never be the same file: every reader notes its
 * descriptor here (output 0), outfile_open() its target, and whichever of
 * an input and an output comes second is refused (exit 64, outputs
 * discarded) when they are.
 */
void	 file_note(int fd, const char *name, int output);

#endif
