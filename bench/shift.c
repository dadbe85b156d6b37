/*
 * shift COPIES FILE: FILE's records COPIES times over, each copy later than
 * the one before by the span of the file, so that a real capture of a
 * busy system can be made as long as a benchmark needs.
 */
#include <stdio.h>
#include <stdlib.h>

#include "util.h"

int
main(int argc, char *argv[])
{
	struct writer *w;
	struct reader *r;
	struct record rec;
	uint64_t copies, k, first = NO_TIME, last = 0, span;
	char t[24];

	if (argc != 3)
		diex(EX_USAGE, "usage: shift COPIES FILE");
	copies = parse_u64("COPIES", argv[1]);
	r = reader_open(argv[2]);
	while (reader_next(r, &rec))
		if (rec.time != NO_TIME) {
			if (first == NO_TIME)
				first = rec.time;
			last = rec.time;
		}
	reader_close(r);
	span = last - first + 1000000;
	w = writer_open(NULL, Z_PLAIN);
	for (k = 0; k < copies; k++) {
		r = reader_open(argv[2]);
		while (reader_next(r, &rec)) {
			if (rec.comment || rec.time == NO_TIME || k == 0) {
				writer_record(w, &rec);
				continue;
			}
			snprintf(t, sizeof(t), "%llu",
			    (unsigned long long)(rec.time + k * span));
			writer_splice(w, &rec, COL_TIME, t);
		}
		reader_close(r);
	}
	writer_close(w);
	return 0;
}
