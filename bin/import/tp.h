/*
 * Kernel tracepoints to event records, for every importer of a kernel
 * trace (ftrace text, perf.data).  A tracepoint gives the record that
 * argus-capture writes for it (capture/emit.c, argus-stream(5) EVENT
 * TYPES), whatever the source, and each thread is introduced by a task
 * record just before its first event: an import of the same events is the
 * same stream, less what its source cannot say.
 */
#ifndef IMPORT_TP_H
#define IMPORT_TP_H

#include <stddef.h>
#include <stdint.h>

#include "graph.h"	/* meta_write */

struct writer;

/* One tracepoint hit, as an importer read it. */
struct tp {
	uint64_t	 ts;		/* ns */
	int		 cpu;
	int		 tid;
	char		 ctx;		/* '-' task, 's' softirq, 'h' hardirq, 'n' NMI */
	const char	*name;		/* "sched_switch"; a user probe's event */
	int		 probe;		/* a user probe: arguments arg1, arg2, ... */
	/*
	 * Its fields, by the names of the tracepoint's format file
	 * ("args[2]" for an element of an array); 0 where the source lacks
	 * one.  base says how the kernel prints the field (16: %p, %lx), for
	 * a source that has only the printed text.
	 */
	int		(*num)(const struct tp *, const char *field, int base,
			    int64_t *);
	int		(*str)(const struct tp *, const char *field,
			    const char **, size_t *);
	void		*arg;
};

void	 tp_reset(void);		/* a new input: no thread known */

/*
 * What the source says of a thread besides its events: its process
 * (tgid < 0: not said) and name (NULL: not said).  Without update only
 * what is still unknown is set (a first look over the whole input);
 * with it, the source is newer than what we knew (perf's COMM records).
 */
void	 tp_thread(int tid, int tgid, const char *comm, size_t len,
	    int update);
/* Threads whose process the source never said; *n: threads in all. */
unsigned long tp_unknown_pids(size_t *n);

/*
 * The source's own names of system calls by number (a macOS trace's
 * text), until tp_reset(); NULL: this machine's (lib/syscalls.c).
 */
void	 tp_syscall_names(const char *(*fn)(long nr));

int	 tp_known(const char *name);	/* a tracepoint we import */
void	 tp_event(struct writer *, const struct tp *);
/* COUNT TP_LOST_UNKNOWN: the trace says events were lost, not how many. */
#define TP_LOST_UNKNOWN	UINT64_MAX
void	 tp_lost(struct writer *, uint64_t ts, int cpu, uint64_t count);

/* Tracepoints met but not imported, counted; written as meta at the end. */
void	 tp_skip(const char *name, size_t len);
void	 tp_skipped(struct writer *, uint64_t ts);

#endif
