/*
 * gen-events N: N event records shaped like a busy system's capture (switches,
 * wakeups, syscalls with arguments), for benchmarks of the stream itself.
 */
#include <stdlib.h>

#include "util.h"

int
main(int argc, char *argv[])
{
	static const char *comm[] = { "redis-server", "make", "Xorg", "kworker/0:1" };
	struct writer *w;
	uint64_t i, n, t = 4131977001311ULL;
	unsigned tid;

	if (argc != 2)
		diex(EX_USAGE, "usage: gen-events COUNT");
	n = parse_u64("COUNT", argv[1]);
	w = writer_open(NULL, Z_PLAIN);
	srandom(1);
	for (i = 0; i < n; i++) {
		t += random() % 2000;
		tid = 1000 + random() % 300;
		writer_begin(w, "event");
		writer_u64(w, t);
		writer_u64(w, tid - tid % 4);
		writer_u64(w, tid);
		writer_u64(w, random() % 2);
		switch (i % 4) {
		case 0:
			writer_str(w, "switch");
			writer_str(w, "-");
			writer_str(w, "S");
			writer_u64(w, tid + 4);
			writer_u64(w, tid + 5);
			writer_str(w, comm[i % 4]);
			break;
		case 1:
			writer_str(w, "waking");
			writer_str(w, i % 8 == 1 ? "s" : "-");
			writer_u64(w, tid + 4);
			writer_u64(w, tid + 5);
			writer_u64(w, 1);
			break;
		case 2:
			writer_str(w, "sys_enter");
			writer_str(w, "-");
			writer_u64(w, 0);
			writer_str(w, "read");
			writer_hex(w, 5);
			writer_hex(w, 0x7ffd3c9a2e40ULL);
			writer_hex(w, 4096);
			break;
		default:
			writer_str(w, "sys_exit");
			writer_str(w, "-");
			writer_u64(w, 0);
			writer_str(w, "read");
			writer_i64(w, 4096);
		}
		writer_end(w);
	}
	writer_close(w);
	return 0;
}
