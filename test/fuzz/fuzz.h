/*
 * What the fuzz targets share (libFuzzer, test/fuzz/run): a way back from
 * die(), which ends the program on bad input, to the next input; an input
 * as a file with a name; stdin that gives an input in pieces of chosen
 * sizes, so that the reader's refills fall everywhere in small inputs.
 */
#ifndef ARGUS_FUZZ_H
#define ARGUS_FUZZ_H

#include <sys/mman.h>
#include <sys/syscall.h>

#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

static jmp_buf	fuzz_back;

static void __attribute__((noreturn))
fuzz_die(int code)
{
	(void)code;
	longjmp(fuzz_back, 1);
}

/* Bad input is what a target is for: die() comes back here. */
#define FUZZ_GUARD()	(die_hook = fuzz_die, setjmp(fuzz_back) == 0)

/* The input as a file: one memfd, rewritten each time; its /proc name. */
static const char * __attribute__((unused))
fuzz_file(const uint8_t *data, size_t size)
{
	static char path[64];
	static int fd = -1;

	if (fd == -1) {
		if ((fd = memfd_create("fuzz-input", 0)) == -1)
			abort();
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	}
	if (ftruncate(fd, 0) == -1 ||
	    (size > 0 && pwrite(fd, data, size, 0) != (ssize_t)size))
		abort();
	return path;
}

/*
 * stdin, while fed: the input in pieces, the sizes taken in turn from
 * piece[] (0: all that was asked for).  Everything else reads as usual.
 */
static const uint8_t	*feed;
static size_t		 feed_len, feed_at;
static uint8_t		 piece[2];
static unsigned		 npieces;

static void __attribute__((unused))
fuzz_feed(const uint8_t *data, size_t size, uint8_t a, uint8_t b)
{
	feed = data;
	feed_len = size;
	feed_at = 0;
	piece[0] = a;
	piece[1] = b;
	npieces = 0;
}

ssize_t
read(int fd, void *buf, size_t n)
{
	volatile char *v = buf;
	size_t k;

	if (fd != STDIN_FILENO || feed == NULL)
		return syscall(SYS_read, fd, buf, n);
	/* The caller promised room for n: hold it to that (ASan checks). */
	if (n > 0)
		v[n - 1] = v[0];
	k = piece[npieces++ % 2];
	if (k == 0 || k > n)
		k = n;
	if (k > feed_len - feed_at)
		k = feed_len - feed_at;
	memcpy(buf, feed + feed_at, k);
	feed_at += k;
	return k;
}

#endif
