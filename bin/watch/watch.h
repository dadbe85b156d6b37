/*
 * argus-watch: reads and writes of a data flag in a running process, seen
 * by hardware watchpoints (perf_event_open, PERF_TYPE_BREAKPOINT) and
 * written as flag_read / flag_write events on the capture's clock, so that
 * they merge into the same stream (argus-cat a.gz b.gz).
 */
#ifndef ARGUS_WATCH_H
#define ARGUS_WATCH_H

#include <sys/types.h>

#include <stdint.h>

#include "util.h"

/* address.c: a symbol of the process's executable, as a run-time address. */
uint64_t	 symbol_address(pid_t, const char *symbol, uint64_t *size);

/* breakpoints.c */
struct hit {
	uint64_t	 time, ip;
	uint32_t	 pid, tid, cpu;
	int		 write;
};

struct watch;
void		 watch_selftest(void);	/* exit 69 if breakpoints never trap */
struct watch	*watch_open(pid_t, uint64_t addr, int len);
int		 watch_poll(struct watch *, int timeout_ms);	/* 0: all gone */
int		 watch_hits(struct watch *, struct hit **);	/* sorted by time */
uint64_t	 watch_value(struct watch *);			/* as it is now */
void		 watch_close(struct watch *);

#endif
