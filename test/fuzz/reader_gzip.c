/*
 * The stream reader on gzip input: the input's stream compressed as one
 * or more members (a writer flushes a member at a time), maybe cut inside
 * the last, read in pieces of any size.  Input: two bytes of piece sizes
 * (see fuzz.h), a byte of flags (1: a live file; 2: cut the last member
 * in half), a byte for the member size (its value times 16, plus 1), the
 * stream.  Stray bytes after the members come from flag 4: the rest of
 * the input is appended raw, so corrupt data is tried too.
 */
#include <zlib.h>

#include "fuzz.h"

static uint8_t	*gz;
static size_t	 gzcap;

static size_t
compress_members(const uint8_t *p, size_t n, size_t member)
{
	z_stream z;
	size_t len = 0, take;

	if (gzcap < 2 * n + 64 * (n / member + 1)) {
		gzcap = 2 * n + 64 * (n / member + 1);
		gz = realloc(gz, gzcap);
	}
	do {
		take = n < member ? n : member;
		memset(&z, 0, sizeof(z));
		if (deflateInit2(&z, 1, Z_DEFLATED, 16 + MAX_WBITS, 8,
		    Z_DEFAULT_STRATEGY) != Z_OK)
			abort();
		z.next_in = (unsigned char *)p;
		z.avail_in = take;
		z.next_out = gz + len;
		z.avail_out = gzcap - len;
		if (deflate(&z, Z_FINISH) != Z_STREAM_END)
			abort();
		len = gzcap - z.avail_out;
		deflateEnd(&z);
		p += take;
		n -= take;
	} while (n > 0);
	return len;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct reader *volatile r = NULL;
	struct record rec;
	size_t i, n = 0, len, text;
	const uint8_t *raw = NULL;

	if (size < 4)
		return 0;
	text = size - 4;
	if (data[2] & 4) {
		/* The second half goes after the members as it is. */
		raw = data + 4 + text / 2;
		text /= 2;
	}
	len = compress_members(data + 4, text, (size_t)data[3] * 16 + 1);
	if (data[2] & 2)
		len -= (len - 10) / 2;
	if (raw != NULL) {
		if (gzcap < len + (size - 4 - text)) {
			gzcap = len + (size - 4 - text);
			gz = realloc(gz, gzcap);
		}
		memcpy(gz + len, raw, size - 4 - text);
		len += size - 4 - text;
	}
	reader_live = data[2] & 1;
	fuzz_feed(gz, len, data[0], data[1]);
	if (FUZZ_GUARD()) {
		r = reader_open("-");
		while (reader_next(r, &rec))
			for (i = 0; i < rec.nf; i++)
				n += strlen(rec.f[i]);
	}
	reader_close(r);
	feed = NULL;
	return n == (size_t)-1;
}
