/*
 * kdebug events to Argus records: kdebug_file.c reads a file's layout and
 * hands each thread map entry and each event here, in file order.
 */
#ifndef ARGUS_KDEBUG_EVENTS_H
#define ARGUS_KDEBUG_EVENTS_H

#include <stdint.h>

#include "stream.h"

/* One kd_buf, decoded. */
struct kd_event {
	uint64_t	 timestamp;	/* the trace's own ticks */
	uint64_t	 arg[4];
	uint64_t	 thread;	/* the thread it ran in */
	uint32_t	 debugid;
	uint32_t	 cpu;
};

/* Where the input is, for messages and meta records. */
struct kd_source {
	const char	*name;
	const char	*layout;	/* "raw1", "v3" */
	uint32_t	 numer, denom;	/* ticks to ns */
	const char	*timebase_from;	/* "header", "environment", ... */
};

/* A new input: forget the last.  Then its threads, begin, events, end. */
void	 kdev_init(struct writer *);
/* pid 1 with command kernel_task is the kernel, pid 0. */
void	 kdev_thread(uint64_t tid, int64_t pid, const char *comm, size_t len);
void	 kdev_thread_name(uint64_t tid, const char *name, size_t len);
void	 kdev_begin(const struct kd_source *);	/* before the first event */
void	 kdev_event(const struct kd_event *);
void	 kdev_end(void);

#endif
