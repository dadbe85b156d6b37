/*
 * The stream reader on plain input: every record of a stream, in pieces
 * of any size.  Input: two bytes of piece sizes (see fuzz.h), a byte of
 * flags (1: a live flight recorder file), then the stream.
 */
#include "fuzz.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct reader *volatile r = NULL;
	struct record rec;
	size_t i, n = 0;

	if (size < 3)
		return 0;
	reader_live = data[2] & 1;
	fuzz_feed(data + 3, size - 3, data[0], data[1]);
	if (FUZZ_GUARD()) {
		r = reader_open("-");
		while (reader_next(r, &rec)) {
			/* Touch every field: each must be a whole string. */
			for (i = 0; i < rec.nf; i++)
				n += strlen(rec.f[i]);
			n += rec.rawlen && rec.raw[rec.rawlen - 1];
			if (rec.nf > COL_PID)
				n += record_u64_opt(&rec, COL_PID, &(uint64_t){ 0 });
		}
	}
	reader_close(r);
	feed = NULL;
	return n == (size_t)-1;
}
