/*
 * The event parser and what the stages ask of an event: its columns, its
 * arguments as numbers, pids and strings, a stack's function, a futex
 * wait, a kernel function by a ksym record's name.  Input: a plain stream.
 */
#include "event.h"
#include "fuzz.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct reader *volatile r = NULL;
	volatile int i;
	struct record rec;
	struct event ev;
	char fn[64];
	size_t n = 0;

	reader_live = 0;
	fuzz_feed(data, size, 0, 0);
	if (FUZZ_GUARD()) {
		r = reader_open("-");
		while (reader_next(r, &rec)) {
			if (!rec.comment && stack_function(&rec, fn, sizeof(fn)))
				n += strlen(fn);
			if (!event_parse(&rec, &ev))
				continue;
			n += strlen(etype_name(ev.type)) + ev.cpu + ev.pid;
			n += syscall_is_lock_wait(&ev);
			n += syscall_is_send(event_str(&ev, 1));
			n += strlen(event_func(&ev));	/* ksym records */
			/* The first bad argument ends the input, as in a stage. */
			for (i = 0; i < event_nargs(&ev); i++) {
				n += strlen(event_str(&ev, i));
				if (i % 3 == 0)
					n += event_pid(&ev, i);
				else if (i % 3 == 1)
					n += event_u64(&ev, i);
				else
					n += event_i64(&ev, i);
			}
		}
	}
	reader_close(r);
	feed = NULL;
	return n == (size_t)-1;
}
