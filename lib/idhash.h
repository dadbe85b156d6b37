/*
 * uthash, with a cheaper hash for 4- and 8-byte keys: the graph stages
 * look a thread up by its id once or twice an event (argus-slice a vertex
 * by its id once a link), and uthash's own hash (Jenkins') costs about
 * fifty instructions on four bytes, a third of what a stage spends on the
 * lookup.  Longer keys keep Jenkins'.  Include this instead of <uthash.h>
 * wherever a table is used.
 */
#ifndef ARGUS_IDHASH_H
#define ARGUS_IDHASH_H

#include <stdint.h>
#include <string.h>

/* murmur3's finalizers: every bit of the id moves every bit of the hash. */
#define HASH_FUNCTION(keyptr, keylen, hashv) do {			\
	if ((keylen) == sizeof(uint32_t)) {				\
		uint32_t k_;						\
		memcpy(&k_, (keyptr), sizeof(k_));			\
		k_ ^= k_ >> 16;						\
		k_ *= 0x85ebca6bu;					\
		k_ ^= k_ >> 13;						\
		k_ *= 0xc2b2ae35u;					\
		(hashv) = k_ ^ (k_ >> 16);				\
	} else if ((keylen) == sizeof(uint64_t)) {			\
		uint64_t k_;						\
		memcpy(&k_, (keyptr), sizeof(k_));			\
		k_ ^= k_ >> 33;						\
		k_ *= 0xff51afd7ed558ccdULL;				\
		k_ ^= k_ >> 33;						\
		k_ *= 0xc4ceb9fe1a85ec53ULL;				\
		(hashv) = (unsigned)(k_ ^ (k_ >> 33));			\
	} else								\
		HASH_JEN(keyptr, keylen, hashv);			\
} while (0)

/*
 * Keys of 4 and 8 bytes compared in line, a word each: a table whose key
 * length is a variable (argus-link's causes pending) would call memcmp()
 * at every find.  0 if equal, as memcmp() says.
 */
static inline int
idhash_keycmp(const void *a, const void *b, size_t n)
{
	uint64_t x, y;
	uint32_t u, v;

	if (n == sizeof(uint64_t)) {
		memcpy(&x, a, sizeof(x));
		memcpy(&y, b, sizeof(y));
		return x != y;
	}
	if (n == sizeof(uint32_t)) {
		memcpy(&u, a, sizeof(u));
		memcpy(&v, b, sizeof(v));
		return u != v;
	}
	return memcmp(a, b, n);
}
#define HASH_KEYCMP(a, b, n)	idhash_keycmp((a), (b), (n))

#include <uthash.h>

#endif
