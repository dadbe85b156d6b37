#include <sys/mman.h>
#include <sys/stat.h>

#include <stdlib.h>

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
	    st.st_size > 0) {
		p = mmap(NULL, st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
		if (p == MAP_FAILED)
			die(EX_IOERR, "%s: mmap", name);
		in->p = p;
		in->len = st.st_size;
		in->mapped = 1;
		return;
	}
	in->len = 0;
	for (;;) {
		if (in->len == cap) {
			cap = cap ? 2 * cap : 1 << 20;
			buf = xrealloc(buf, cap);
		}
		n = fread(buf + in->len, 1, cap - in->len, f);
		in->len += n;
		if (n == 0)
			break;
	}
	if (ferror(f))
		die(EX_IOERR, "%s: read", name);
	in->p = buf;
}

void
input_free(struct input *in)
{
	if (in->mapped)
		munmap((void *)in->p, in->len);
	else
		free((void *)in->p);
	in->p = NULL;
}
