/*
 * A FUSE file system of one file, served by hand on /dev/fuse, for the
 * test programs (waitfor-cases fuse, fusestall): no libfuse, which the
 * project does not depend on.  The caller mounts it (fusefile_mount())
 * and takes its requests one by one (fusefile_serve()).
 */
#ifndef FUSEFILE_H
#define FUSEFILE_H

#include <sys/mount.h>
#include <sys/stat.h>

#include <linux/fuse.h>

#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

struct fusefile {
	int		 fd;		/* /dev/fuse, once mounted */
	const char	*name;		/* the file's, in the root */
	const char	*data;
	size_t		 size;
	mode_t		 mode;
	int		 hold_reads;	/* a read is taken, never answered */
	int		 stalled;	/* every request is */
};

static void
fusefile_answer(struct fusefile *ff, uint64_t unique, int error,
    const void *p, size_t n)
{
	static char buf[sizeof(struct fuse_out_header) + 65536];
	struct fuse_out_header *o = (void *)buf;

	if (error != 0 || n > sizeof(buf) - sizeof(*o))
		n = 0;
	o->len = sizeof(*o) + n;
	o->error = error;
	o->unique = unique;
	memcpy(buf + sizeof(*o), p, n);
	if (write(ff->fd, buf, o->len) == -1 && errno != ENOENT)
		err(1, "fuse write");
}

static void
fusefile_attr(const struct fusefile *ff, struct fuse_attr *a, uint64_t ino)
{
	memset(a, 0, sizeof(*a));
	a->ino = ino;
	a->nlink = 1;
	a->mode = ino == FUSE_ROOT_ID ? S_IFDIR | 0755 : S_IFREG | ff->mode;
	a->size = ino == FUSE_ROOT_ID ? 0 : ff->size;
}

/* One request taken, and answered unless held. */
static void
fusefile_serve(struct fusefile *ff)
{
	static char buf[FUSE_MIN_READ_BUFFER + 65536];
	struct fuse_in_header *in = (void *)buf;
	const void *arg = buf + sizeof(*in);
	const struct fuse_init_in *ii = arg;
	const struct fuse_read_in *r = arg;
	union {
		struct fuse_init_out	init;
		struct fuse_entry_out	entry;
		struct fuse_attr_out	attr;
		struct fuse_open_out	open;
	} o;
	size_t n;

	if (read(ff->fd, buf, sizeof(buf)) == -1) {
		if (errno == EINTR || errno == ENOENT)
			return;
		err(1, "fuse read");
	}
	if (ff->stalled)
		return;
	memset(&o, 0, sizeof(o));
	switch (in->opcode) {
	case FUSE_INIT:
		o.init.major = FUSE_KERNEL_VERSION;
		o.init.minor = ii->minor < FUSE_KERNEL_MINOR_VERSION ?
		    ii->minor : FUSE_KERNEL_MINOR_VERSION;
		o.init.max_write = 4096;
		o.init.max_readahead = ii->max_readahead;
		fusefile_answer(ff, in->unique, 0, &o.init, ii->minor < 23 ?
		    FUSE_COMPAT_22_INIT_OUT_SIZE : sizeof(o.init));
		break;
	case FUSE_LOOKUP:
		if (strcmp(arg, ff->name) != 0) {
			fusefile_answer(ff, in->unique, -ENOENT, NULL, 0);
			break;
		}
		o.entry.nodeid = 2;
		fusefile_attr(ff, &o.entry.attr, 2);
		fusefile_answer(ff, in->unique, 0, &o.entry, sizeof(o.entry));
		break;
	case FUSE_GETATTR:
		fusefile_attr(ff, &o.attr.attr, in->nodeid);
		fusefile_answer(ff, in->unique, 0, &o.attr, sizeof(o.attr));
		break;
	case FUSE_OPEN:
	case FUSE_OPENDIR:
		/* Where reads are held, each goes to us, not to the cache. */
		o.open.open_flags = ff->hold_reads ? FOPEN_DIRECT_IO : 0;
		fusefile_answer(ff, in->unique, 0, &o.open, sizeof(o.open));
		break;
	case FUSE_READ:
		if (ff->hold_reads)
			break;
		n = r->offset < ff->size ? ff->size - r->offset : 0;
		fusefile_answer(ff, in->unique, 0, ff->data + r->offset,
		    n < r->size ? n : r->size);
		break;
	case FUSE_FORGET:
	case FUSE_BATCH_FORGET:
		break;
	case FUSE_RELEASE:
	case FUSE_RELEASEDIR:
	case FUSE_FLUSH:
		fusefile_answer(ff, in->unique, 0, NULL, 0);
		break;
	default:
		fusefile_answer(ff, in->unique, -ENOSYS, NULL, 0);
	}
}

/*
 * Mounted on dir (made), named source, as user uid's fusermount would
 * (allow_other: any user may look in); ff->fd set.  -1 where the kernel
 * or we may not.
 */
static int
fusefile_mount(struct fusefile *ff, const char *source, const char *dir,
    const char *uid)
{
	char opts[128];

	if ((ff->fd = open("/dev/fuse", O_RDWR | O_CLOEXEC)) == -1)
		return -1;
	snprintf(opts, sizeof(opts), "fd=%d,rootmode=40000,user_id=%s,"
	    "group_id=%s,allow_other", ff->fd, uid, uid);
	if (mkdir(dir, 0755) == -1 || mount(source, dir, "fuse",
	    MS_NOSUID | MS_NODEV, opts) == -1) {
		close(ff->fd);
		return -1;
	}
	return 0;
}

#endif
