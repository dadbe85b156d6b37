#include <sys/mman.h>
#include <sys/stat.h>

#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include "util.h"
#include "input.h"

void
input_load(struct input *in, FILE *f, const char *name)
{
	struct stat st;
	unsigned char *buf = NULL;
	size_t cap = 0, n;
	int fd = fileno(f);
	void *p;

	in->mapped = 0;
	if (fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
	    st.st_size > 0 && (uint64_t)st.st_size < SIZE_MAX / 2) {
		/*
		 * The file over the start of a zeroed region a page longer:
		 * a NUL follows the last byte even when the file fills its
		 * last page, which a mapping of the file alone leaves unmapped.
		 */
		in->len = st.st_size;
		in->maplen = (in->len / sysconf(_SC_PAGESIZE) + 1) *
		    sysconf(_SC_PAGESIZE);
		p = mmap(NULL, in->maplen, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS,
		    -1, 0);
		if (p == MAP_FAILED || mmap(p, in->len, PROT_READ,
		    MAP_PRIVATE | MAP_FIXED, fd, 0) == MAP_FAILED)
			die(EX_IOERR, "%s: mmap", name);
		in->p = p;
		in->mapped = 1;
		return;
	}
	in->len = 0;
	for (;;) {
		if (in->len + 1 >= cap) {	/* room for the NUL */
			cap = cap ? 2 * cap : 1 << 20;
			buf = xrealloc(buf, cap);
		}
		n = fread(buf + in->len, 1, cap - 1 - in->len, f);
		in->len += n;
		if (n == 0)
			break;
	}
	if (ferror(f))
		die(EX_IOERR, "%s: read", name);
	buf[in->len] = '\0';
	in->p = buf;
}

void
input_free(struct input *in)
{
	if (in->mapped)
		munmap((void *)in->p, in->maplen);
	else
		free((void *)in->p);
	in->p = NULL;
}
