/*
 * Decimal numbers read a word at a time, from the reader's padded fields
 * (lib/reader.c): the parsing every stage does of every record.  And the
 * kernel's addresses, 0x and sixteen hex digits, the same way.
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

/*
 * Eight hex digits in a word, the first in its lowest byte: 1 and *v
 * their value, 0 if a byte is no hex digit.  A byte is tested against
 * both ranges, digits and letters of either case, in every lane at once.
 */
static inline int
word_hex(uint64_t w, uint64_t *v)
{
	const uint64_t ones = 0x0101010101010101ULL, high = ones * 0x80;
	uint64_t l = w | ones * 0x20, dig, let, x;

	if (w & high)
		return 0;
	dig = (w + ones * (0x80 - '0')) & ~(w + ones * (0x7f - '9')) & high;
	let = (l + ones * (0x80 - 'a')) & ~(l + ones * (0x7f - 'f')) & high;
	if ((dig | let) != high)
		return 0;
	/* Each byte's value, the first digit in the top byte; then pairs. */
	x = __builtin_bswap64((w & ones * 0x0f) + (let >> 7) * 9);
	x = (x | x >> 4) & 0x00ff00ff00ff00ffULL;
	x = (x | x >> 8) & 0x0000ffff0000ffffULL;
	*v = (x | x >> 16) & 0xffffffffULL;
	return 1;
}

/*
 * A field of len bytes, "0x" and 8 to 16 hex digits (an address), in two
 * words from inside it: 1 and *v; 0 for anything else, which is left to
 * the slower ways (fewer digits cost less there).
 */
static inline int
field_hex(const char *s, size_t len, uint64_t *v)
{
	uint64_t w, hi, lo;

	if (len < 2 + 8 || len > 2 + 16 || s[0] != '0' || s[1] != 'x')
		return 0;
	memcpy(&w, s + 2, 8);
	if (!word_hex(le64toh(w), &hi))
		return 0;
	memcpy(&w, s + len - 8, 8);
	if (!word_hex(le64toh(w), &lo))
		return 0;
	*v = (hi >> 4 * (2 + 16 - len)) << 32 | lo;
	return 1;
}

/*
 * field_hex(), but an address whose two words are the last one's that m
 * read is m's value: an address comes in runs (a timer armed and armed
 * again, for one function), and two compares cost less than its digits.
 */
struct hex_memo {
	uint64_t	 hi, lo;	/* the words field_hex() read */
	uint64_t	 v;
	size_t		 len;		/* 0: none yet */
};

static inline int
field_hex_memo(struct hex_memo *m, const char *s, size_t len, uint64_t *v)
{
	uint64_t hi, lo;

	if (len < 2 + 8 || len > 2 + 16 || s[0] != '0' || s[1] != 'x')
		return 0;
	memcpy(&hi, s + 2, 8);
	memcpy(&lo, s + len - 8, 8);
	if (len == m->len && hi == m->hi && lo == m->lo) {
		*v = m->v;
		return 1;
	}
	if (!field_hex(s, len, v))
		return 0;
	*m = (struct hex_memo){ hi, lo, *v, len };
	return 1;
}

#endif
