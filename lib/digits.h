/*
 * Decimal numbers read a word at a time, from the reader's padded fields
 * (lib/reader.c): the parsing every stage does of every record.
 */
#ifndef ARGUS_DIGITS_H
#define ARGUS_DIGITS_H

#include <endian.h>
#include <stdint.h>
#include <string.h>

/* Eight digits, or fewer at the top of the word (x << (64 - 8 * n)). */
static inline uint64_t
word_digits(uint64_t c)
{
	c = (c * 10 + (c >> 8)) & 0x00ff00ff00ff00ffULL;
	c = (c * 100 + (c >> 16)) & 0x0000ffff0000ffffULL;
	return (c * 10000 + (c >> 32)) & 0xffffffffULL;
}

/*
 * A number of fewer than eight digits (thread ids, CPUs, vertex ids) in a
 * field of the reader's own, which has 8 bytes readable from it (see
 * lib/reader.c, padded_any()): one word, one answer, no loop, no table.
 * 1 and *v; 0 for no number (empty, or a byte neither digit nor end);
 * -1 for eight digits or more, which are record_u64_opt()'s.
 */
static inline int
padded_short(const char *s, uint64_t *v)
{
	const uint64_t low7 = 0x7f7f7f7f7f7f7f7fULL, ones = ~low7 / 0x80;
	uint64_t w, x, nondig;
	unsigned n;

	memcpy(&w, s, 8);
	w = le64toh(w);
	x = w ^ ones * '0';
	nondig = (((x & low7) + ones * (0x80 - 10)) | x) & ~low7;
	if (nondig == 0)
		return -1;
	n = __builtin_ctzll(nondig) >> 3;
	if (n == 0 || (w >> (n * 8) & 0xff) != 0)
		return 0;	/* empty, or not a digit and not the end */
	*v = word_digits(x << (64 - n * 8));
	return 1;
}

#endif
